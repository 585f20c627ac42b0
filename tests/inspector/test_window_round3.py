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


# ---------------------------------------------------------------- issue 31 item 15: busy state
def _busy_label(window):
    from PySide6.QtWidgets import QLabel

    return window.findChild(QLabel, "status.busy")


def test_slow_statistics_show_the_busy_state_until_they_end(window, qtbot, tmp_path, monkeypatch):
    """The slowness is injected (the statistics wait for the test), never measured."""
    import threading

    from PySide6.QtCore import Qt

    import inspector.panels.statistics_panel as statistics_panel

    gate = threading.Event()
    real = statistics_panel.compute_statistics

    def slow_statistics(*args, **kwargs):
        gate.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(statistics_panel, "compute_statistics", slow_statistics)
    path = tmp_path / "ramp.bin"
    path.write_bytes(np.arange(1000, dtype="<f4").tobytes())
    assert window.open_paths([str(path)], DecodeParams(dtype="float32"))
    label = _busy_label(window)
    qtbot.waitUntil(lambda: label.isVisible(), timeout=5_000)
    assert label.text() == "Computing the statistics of 1,000 values…"
    assert QApplication.overrideCursor() is not None
    assert QApplication.overrideCursor().shape() == Qt.CursorShape.BusyCursor
    gate.set()
    qtbot.waitUntil(lambda: not label.isVisible(), timeout=10_000)
    assert QApplication.overrideCursor() is None
    assert window.statistics_panel.status_text().startswith("1,000 values")


def test_the_ml_dtypes_import_blocks_with_the_wait_cursor_and_a_message(window, qtbot, tmp_path, monkeypatch):
    """The data inspector's import of ml_dtypes (about 0.5 s holding the GIL) is the GUI-thread
    freeze a first open or dtype change met: it is announced before it starts and cleared after."""
    from PySide6.QtCore import Qt

    import inspector.bytes.data_inspector as data_inspector

    during = []

    def import_seen_from_the_window():
        cursor = QApplication.overrideCursor()
        during.append((_busy_label(window).isVisible(), _busy_label(window).text(),
                       None if cursor is None else cursor.shape()))

    monkeypatch.setattr(data_inspector, "loaded_ml_dtypes", lambda: None)  # as at start-up
    monkeypatch.setattr(data_inspector, "ml_dtypes_module", import_seen_from_the_window)
    path = tmp_path / "bytes.bin"
    path.write_bytes(np.arange(64, dtype=np.uint8).tobytes())
    assert window.open_paths([str(path)])
    window.docks["inspector"].raise_()
    qtbot.waitUntil(lambda: len(during) > 0, timeout=5_000)
    assert during[0] == (True, "Loading the bfloat16 and float8 types…", Qt.CursorShape.WaitCursor)
    assert not _busy_label(window).isVisible() and QApplication.overrideCursor() is None


def test_a_dtype_change_on_a_2_gib_file_reads_the_whole_file_off_the_gui_thread(window, qtbot, tmp_path, monkeypatch):
    """Nothing proportional to the file runs on the GUI thread: the overview of 2 GiB reads on a
    worker, and the GUI thread reads only what the screen shows (a strided preview, the table's
    cells, the bytes at the cursor)."""
    import threading

    from core.display.line_decimation import MinMaxPyramid
    from core.scan.blocks import BlockReader

    path = tmp_path / "big.bin"
    with open(path, "wb") as f:
        f.truncate(2 << 30)  # sparse: 2 GiB of zeros that take no disk space
    read_by = {"gui": 0, "workers": 0}
    lock = threading.Lock()
    real_read = BlockReader.read

    def counted_read(self, view, *args, **kwargs):
        out = real_read(self, view, *args, **kwargs)
        with lock:
            read_by["gui" if threading.current_thread() is threading.main_thread() else "workers"] += out.nbytes
        return out

    built_on = []
    real_build = MinMaxPyramid.build.__func__

    def recorded_build(cls, *args, **kwargs):
        built_on.append(threading.current_thread() is threading.main_thread())
        return real_build(cls, *args, **kwargs)

    monkeypatch.setattr(BlockReader, "read", counted_read)
    monkeypatch.setattr(MinMaxPyramid, "build", classmethod(recorded_build))
    assert window.open_paths([str(path)])
    qtbot.waitUntil(lambda: window.plot_panel.line_plot.pyramid is not None, timeout=120_000)
    read_by.update(gui=0, workers=0)
    built_on.clear()
    window.findChild(type(window.decode_panel.dtype_combo), "decode.dtype").setCurrentIndex(
        window.decode_panel.dtype_combo.findData("float32"))
    assert window.document.result.view.shape == (1 << 29,)
    qtbot.waitUntil(lambda: window.plot_panel.line_plot.pyramid is not None, timeout=120_000)
    assert built_on == [False]  # the overview of the new type was built on a worker
    assert read_by["workers"] == 2 << 30  # ... reading every byte there
    assert read_by["gui"] < 1 << 20  # the GUI thread read less than 1 MiB of the 2 GiB


# ---------------------------------------------------------------- issue 31 item 18: WAV lines
def _stereo_wav(tmp_path, frames=1000):
    """A stereo int16 WAV written by Python's wave module: left = 10 * frame - 5000, right =
    3000 - 7 * frame (exact in int16)."""
    import wave

    frame = np.arange(frames)
    samples = np.stack([10 * frame - 5000, 3000 - 7 * frame], axis=1).astype("<i2")
    path = tmp_path / "stereo.wav"
    with wave.open(str(path), "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(samples.tobytes())
    return str(path), samples


def test_a_stereo_wav_opens_as_one_line_per_channel(window, qtbot, tmp_path):
    path, samples = _stereo_wav(tmp_path)
    assert window.open_paths([path])
    document, panel = window.document, window.plot_panel
    assert document.result.view.shape == (1000, 2)
    assert document.view_options.value.plot_line_axis == 0
    assert document.view_options.value.plot_channel_lines is True
    assert panel.mode == "line"
    curves = [panel.line_plot.curve, *panel.line_plot.channel_curves]
    assert len(curves) == 2
    x0, y0 = curves[0].getData()
    x1, y1 = curves[1].getData()
    assert len(x0) == len(x1) == 1000 and x0[0] == 0 and x0[-1] == 999  # x is the frame index
    for frame in (0, 1, 500, 999):
        assert y0[frame] == 10 * frame - 5000 == samples[frame, 0]
        assert y1[frame] == 3000 - 7 * frame == samples[frame, 1]
    legend = panel.line_plot.plot_item.legend
    assert [label.text for _sample, label in legend.items] == ["channel 0", "channel 1"]
    assert window.findChild(type(panel.toolbar.mode_combo), "plot.mode").currentText() == "lines per channel (axis 1)"
    # the image is still a choice away, undoable
    panel.set_line_axis(None)
    assert panel.mode == "image"
    window.menus.undo_action.trigger()
    assert panel.mode == "line" and len(panel.line_plot.channel_curves) == 1


def test_the_same_samples_as_raw_bytes_are_an_image_not_lines(window, qtbot, tmp_path):
    """Only a signal entry (or the user's choice) draws lines per channel: a raw 2-d file of the
    same shape opens as the image, and leaving the WAV entry's layout goes back to the image."""
    _path, samples = _stereo_wav(tmp_path)
    raw = tmp_path / "stereo.bin"
    raw.write_bytes(samples.tobytes())
    assert window.open_paths([str(raw)], DecodeParams(dtype="int16", shape=(1000, 2)))
    assert window.plot_panel.mode == "image"
    assert window.document.view_options.value.plot_channel_lines is False
    assert window.open_paths([_path])
    assert window.plot_panel.mode == "line"
    window.document.update_params(shape=(500, 4))  # not the entry's (frames, channels) any more
    assert window.plot_panel.mode == "image"
    assert window.plot_panel.line_plot.channel_curves == []


def test_the_first_bfloat16_decode_announces_the_ml_dtypes_import(window, qtbot, tmp_path, monkeypatch):
    """Decoding bfloat16 before anything imported ml_dtypes imports it in the pipeline's run on
    the GUI thread (about 0.5 s, the GIL held): the wait cursor and the message come first."""
    from PySide6.QtCore import Qt

    import inspector.state.document as document_module
    from core.dtypes.table import needs_ml_dtypes_import
    from core.pipeline.pipeline import Pipeline

    assert needs_ml_dtypes_import("float32") is False and needs_ml_dtypes_import(None) is False
    path = tmp_path / "halves.bin"
    path.write_bytes(np.array([1.0, -2.5, 3.0, 0.5], dtype="<f4").view("<u2")[1::2].tobytes())
    assert window.open_paths([str(path)], DecodeParams(dtype="uint16"))
    seen = []
    real_run = Pipeline.run

    def observed_run(self, params, *args, **kwargs):
        cursor = QApplication.overrideCursor()
        seen.append((params.dtype, _busy_label(window).isVisible(), _busy_label(window).text(),
                     None if cursor is None else cursor.shape()))
        return real_run(self, params, *args, **kwargs)

    # as at start-up: ml_dtypes not imported yet (the test session may have imported it)
    monkeypatch.setattr(document_module, "needs_ml_dtypes_import", lambda dtype: dtype == "bfloat16")
    monkeypatch.setattr(Pipeline, "run", observed_run)
    window.document.update_params(dtype="bfloat16")
    assert seen == [("bfloat16", True, "Loading the bfloat16 and float8 types…", Qt.CursorShape.WaitCursor)]
    assert not _busy_label(window).isVisible() and QApplication.overrideCursor() is None
    assert [float(v) for v in window.document.result.view] == [1.0, -2.5, 3.0, 0.5]
    window.document.update_params(dtype="uint16")
    assert seen[-1] == ("uint16", False, "", None)
