"""Window, round 3: the selection follows the plane, the guess banner goes away once the user
works on the layout and never widens the window, the table has the focus after an open."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    return window


@pytest.fixture
def cube(tmp_path):
    """(2, 2, 3, 4) float32: element [a, b, r, c] = 1000 * b + 100 * a + 10 * r + c + 0.03."""
    a, b, r, c = np.indices((2, 2, 3, 4))
    values = (1000 * b + 100 * a + 10 * r + c + 0.03).astype("<f4")
    path = tmp_path / "cube.bin"
    path.write_bytes(values.tobytes())
    return str(path), values


def test_after_an_axis_slider_moves_the_selection_is_the_highlighted_cell_of_the_new_plane(window, qtbot, cube):
    path, values = cube
    assert window.open_paths([path], DecodeParams(dtype="float32", shape=(2, 2, 3, 4)))
    document = window.document
    document.select((0, 0, 2, 3))
    assert document.selection == (0, 0, 2, 3)
    document.display_axes.set_index(1, 1)  # the slider of axis 1
    qtbot.wait(1)
    assert document.selection == (0, 1, 2, 3)  # same row and column, the new plane
    current = window.table_panel.view.currentIndex()
    assert (current.row(), current.column()) == (2, 3)
    assert window.table_panel.model.element_index(current) == (0, 1, 2, 3)
    assert float(document.result.view[document.selection]) == pytest.approx(1023.03, abs=1e-3)
    document.display_axes.set_index(0, 1)
    assert document.selection == (1, 1, 2, 3)
    # a click on another cell of this plane selects it
    view = window.table_panel.view
    view.setCurrentIndex(window.table_panel.model.index(1, 2))
    assert document.selection == (1, 1, 1, 2)
    assert float(document.result.view[document.selection]) == pytest.approx(1112.03, abs=1e-3)


def _raw_file(tmp_path, name="raw.bin"):
    path = tmp_path / name
    path.write_bytes(np.arange(64, dtype=np.uint8).tobytes())
    return str(path)


def test_the_guess_banner_goes_away_once_the_user_chooses_a_layout(window, qtbot, tmp_path):
    banner = window.guess_banner
    assert window.open_paths([_raw_file(tmp_path)])
    assert banner.isVisible()
    window.document.update_params(dtype="int16")
    assert not banner.isVisible()


def test_the_guess_banner_goes_away_after_a_bookmark_or_a_comparison(window, qtbot, tmp_path):
    banner = window.guess_banner
    assert window.open_paths([_raw_file(tmp_path)])
    assert banner.isVisible()
    window.document.select((3,))
    window.bookmarks_panel.add_element()
    assert not banner.isVisible()
    assert window.open_paths([_raw_file(tmp_path, "other.bin")])
    assert banner.isVisible()
    assert window.comparison.open_b([_raw_file(tmp_path, "b.bin")])
    assert not banner.isVisible()


def test_a_long_file_name_in_the_banner_never_widens_the_window(window, qtbot, tmp_path):
    name = "sensor_capture_" + "x" * 90 + ".bin"  # 109 characters, no space to wrap at
    assert window.open_paths([_raw_file(tmp_path, name)])
    qtbot.wait(10)
    assert window.guess_banner.isVisible()
    assert window.width() == 1280
    assert window.minimumSizeHint().width() <= 1280
    assert window.guess_banner.label.toolTip().count(name) == 1


def test_the_table_has_the_focus_after_a_file_is_opened(window, qtbot, tmp_path):
    window.activateWindow()
    assert window.open_paths([_raw_file(tmp_path)])
    assert window.guess_banner.isVisible()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None)
    assert QApplication.focusWidget() is window.table_panel.view


def test_showing_a_closed_dock_from_the_view_menu_raises_and_focuses_it(window, qtbot, tmp_path):
    assert window.open_paths([_raw_file(tmp_path)])
    dock = window.docks["inspector"]
    dock.close()
    qtbot.wait(1)
    assert not dock.isVisible()
    dock.toggleViewAction().trigger()
    qtbot.wait(1)
    assert dock.isVisible() and not dock.visibleRegion().isEmpty()  # in front, not a hidden tab
    focused = QApplication.focusWidget()
    assert focused is not None and dock.isAncestorOf(focused)


def test_after_a_file_shrinks_the_status_bar_shows_its_size_now(window, qtbot, tmp_path):
    path = tmp_path / "shrinks.bin"
    path.write_bytes(bytes(4096))
    assert window.open_paths([str(path)])
    label = window.statusBar().file_label
    assert label.text() == "shrinks.bin (4.0 KiB)"
    with open(path, "r+b") as file:
        file.truncate(2048)
    window.document.file_monitor.check_now()
    qtbot.wait(1)
    assert label.text() == "shrinks.bin (2.0 KiB now, was 4.0 KiB)"


def test_a_container_of_one_tensor_says_tensor(window, qtbot, tmp_path):
    from PySide6.QtWidgets import QTreeView
    from scipy.io import wavfile

    path = tmp_path / "stereo.wav"
    wavfile.write(path, 8000, np.zeros((100, 2), dtype=np.int16))
    assert window.open_paths([str(path)])
    model = window.findChild(QTreeView, "tensors.tree").model()
    assert model.index(0, 0).data() == "wav: stereo.wav (1 tensor)"


def test_statistics_of_a_complex64_view_print_in_its_parts_precision():
    from core.scan.statistics import compute_statistics
    from inspector.panels.statistics_texts import field_texts

    values = np.array([1.1496209 + 0.0j, 3 + 4j, 0.3 - 2.5j, -6 + 0.5j], dtype=np.complex64)
    texts = field_texts(compute_statistics(values, quantity="magnitude"), values.dtype)
    assert texts["min"] == str(np.float32(np.abs(values[0])))  # float32's shortest repr, 8 digits
    assert texts["max"] == str(np.float32(abs(-6 + 0.5j)))
    assert len(texts["min"].replace(".", "")) <= 9


def test_f8_to_a_mismatch_whose_b_is_nan_circles_only_the_finite_values(window, qtbot, tmp_path, recwarn):
    a, b = np.arange(10, dtype=np.float32), np.arange(10, dtype=np.float32)
    b[4] = np.nan
    a.tofile(tmp_path / "a.bin")
    b.tofile(tmp_path / "b.bin")
    assert window.open_paths([str(tmp_path / "a.bin")], DecodeParams(dtype="float32"))
    assert window.comparison.open_b([str(tmp_path / "b.bin")])
    qtbot.waitUntil(lambda: window.comparison.result is not None)
    window.next_mismatch_action.trigger()
    qtbot.wait(5)
    assert window.document.selection == (4,)
    marks = window.compare_plot._marks
    assert list(marks[0].getData()[1]) == [4.0]  # A's value; B's NaN is not circled
    assert len(marks[1].getData()[1]) == 0  # the difference is NaN
    assert not [w for w in recwarn if "All-NaN" in str(w.message)]


def test_columns_are_refitted_when_the_plane_changes(window, qtbot, tmp_path):
    from PySide6.QtGui import QFontMetrics

    values = np.zeros((2, 3, 4), dtype="<f4")
    values[1] = 123456.78125
    path = tmp_path / "planes.bin"
    path.write_bytes(values.tobytes())
    assert window.open_paths([str(path)], DecodeParams(dtype="float32", shape=(2, 3, 4)))
    view, model = window.table_panel.view, window.table_panel.model
    narrow = view.horizontalHeader().defaultSectionSize()
    window.document.display_axes.set_index(0, 1)
    qtbot.wait(1)
    text = model.data(model.index(0, 0))
    assert text.startswith("123456.78")
    assert view.horizontalHeader().defaultSectionSize() > narrow
    assert view.columnWidth(0) >= QFontMetrics(view.font()).horizontalAdvance(text)


def test_the_data_inspector_chooses_a_type_from_the_keyboard_and_keeps_a_usable_shape(window, qtbot, tmp_path):
    from PySide6.QtCore import Qt

    from inspector.bytes.data_inspector import _BE_COL, _LE_COL, ENGINE_TYPES

    path = tmp_path / "nchw.bin"
    path.write_bytes(np.arange(4 * 3 * 40 * 50, dtype="<f4").tobytes())
    assert window.open_paths([str(path)], DecodeParams(dtype="float32", shape=(4, 3, 40, 50)))
    table = window.data_inspector.table
    table.setCurrentCell(ENGINE_TYPES.index("int16"), _LE_COL)
    table.setFocus()
    qtbot.keyClick(table, Qt.Key.Key_Return)
    document = window.document
    assert document.params.dtype == "int16" and document.params.little_endian is True
    assert document.error is None
    assert document.params.shape == (4, 3, 40, 100) and document.result.view.shape == (4, 3, 40, 100)
    table.setCurrentCell(ENGINE_TYPES.index("float32"), _BE_COL)
    qtbot.keyClick(table, Qt.Key.Key_Space)
    assert (document.params.dtype, document.params.little_endian) == ("float32", False)
    assert document.params.shape == (4, 3, 40, 50) and document.error is None
    document.undo()
    assert (document.params.dtype, document.params.shape) == ("int16", (4, 3, 40, 100))


def _two_tensor_safetensors(tmp_path):
    from safetensors.numpy import save_file

    path = tmp_path / "two.safetensors"
    save_file({"a": np.arange(6, dtype=np.float32), "b": np.arange(25, dtype=np.uint8)}, str(path))
    return path


def test_a_container_tensor_reports_no_trailing_bytes(window, qtbot, tmp_path):
    path = _two_tensor_safetensors(tmp_path)
    assert window.open_paths([str(path)])
    assert window.document.current_entry.name == "a"
    assert sum(window.document.result.trailing_bytes) == 25  # b's bytes follow a in the file
    info = window.decode_panel.info_label.text()
    assert "<b>Tensor</b> 'a'" in info and "Trailing bytes" not in info


def test_the_json_of_a_container_tensor_reports_no_trailing_bytes(tmp_path, capsys):
    import json

    from core.cli import main

    path = _two_tensor_safetensors(tmp_path)
    assert main([str(path), "--tensor", "a", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["values"] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and out["trailing_bytes"] == [0]
    raw = tmp_path / "raw.bin"
    raw.write_bytes(bytes(10))
    assert main([str(raw), "--record-size", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["trailing_bytes"] == [2]  # outside a container: said
