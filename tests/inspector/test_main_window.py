"""The main window driven as a user would: open, change decode settings, read the table back."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDropEvent

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore
from resources import DEFAULT_SAMPLE, resource_path, sample_settings
from resources.make_samples import waves


@pytest.fixture
def settings(tmp_path):
    return SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))


@pytest.fixture
def window(qtbot, settings):
    configure_pyqtgraph()
    w = MainWindow(settings)
    qtbot.addWidget(w)
    return w


def table_values(window) -> np.ndarray:
    model = window.table_panel.model
    return np.array(
        [[model.value_at(r, c) for c in range(model.columnCount())] for r in range(model.rowCount())]
    )


def choose(combo, data) -> None:
    combo.setCurrentIndex(combo.findData(data))


def test_sample_opens_with_its_preset_and_shows_the_ripples(window):
    preset = sample_settings()[DEFAULT_SAMPLE]
    params = DecodeParams(**{k: tuple(v) if isinstance(v, list) else v for k, v in preset.items()})
    assert window.open_paths([str(resource_path(DEFAULT_SAMPLE))], params)
    assert window.document.result.view.shape == (3, 48, 64)
    # The table shows plane [0, :, :] (rows = axis 1, columns = axis 2), read from the file.
    np.testing.assert_array_equal(table_values(window), waves()[0])
    assert window.plot_panel.mode == "image"
    np.testing.assert_array_equal(window.plot_panel.image_item.image, waves()[0])
    window.close()


def test_decode_panel_edits_change_the_table(window, qtbot, tmp_path):
    data = bytes(range(1, 13))  # 12 bytes
    path = tmp_path / "data.bin"
    path.write_bytes(data)
    assert window.open_paths([str(path)])
    np.testing.assert_array_equal(table_values(window)[:, 0], np.frombuffer(data, np.uint8))

    panel = window.decode_panel
    choose(panel.dtype_combo, "int16")
    np.testing.assert_array_equal(table_values(window)[:, 0], np.frombuffer(data, "<i2"))
    choose(panel.byte_order_combo, False)
    np.testing.assert_array_equal(table_values(window)[:, 0], np.frombuffer(data, ">i2"))

    qtbot.keyClicks(panel.record_size_field, "4")
    assert window.document.result.view.shape == (3, 2)
    np.testing.assert_array_equal(table_values(window), np.frombuffer(data, ">i2").reshape(3, 2))

    qtbot.keyClicks(panel.offset_field, "2")  # 10 bytes left: 2 records of 4, 2 trailing
    assert window.document.result.trailing_bytes == (2,)
    np.testing.assert_array_equal(table_values(window), np.frombuffer(data[2:10], ">i2").reshape(2, 2))

    panel.fixed_length_check.setChecked(True)
    qtbot.keyClicks(panel.fixed_length_field, "6")  # pad each 4-byte record to 6 bytes
    expected = np.frombuffer(data[2:6] + b"\0\0" + data[6:10] + b"\0\0", ">i2").reshape(2, 3)
    np.testing.assert_array_equal(table_values(window), expected)


def test_invalid_settings_show_the_message_and_keep_the_last_view(window, tmp_path):
    path = tmp_path / "six.bin"
    path.write_bytes(bytes(range(6)))
    window.open_paths([str(path)])
    choose(window.decode_panel.dtype_combo, "int16")
    before = table_values(window).copy()
    choose(window.decode_panel.dtype_combo, "int32")  # 6 bytes is not a multiple of 4
    error = window.document.error
    assert error is not None and "not a multiple of 4" in error.message
    shown = [label.text() for label in window.decode_panel.error_labels.values() if not label.isHidden()]
    assert any("not a multiple of 4" in text for text in shown)
    np.testing.assert_array_equal(table_values(window), before)
    choose(window.decode_panel.dtype_combo, "uint16")
    assert window.document.error is None
    assert all(label.isHidden() for label in window.decode_panel.error_labels.values())


def test_a_missing_file_is_reported_in_the_window_and_the_app_keeps_running(window, tmp_path):
    assert not window.open_paths([str(tmp_path / "nope.bin")])
    assert not window.message_label.isHidden()
    assert "nope.bin" in window.message_label.text()
    path = tmp_path / "ok.bin"
    path.write_bytes(b"\x01\x02")
    assert window.open_paths([str(path)])
    assert window.message_label.isHidden()


def test_dropping_two_files_opens_them_as_a_batch(window, tmp_path):
    paths = []
    for i in range(2):
        p = tmp_path / f"f{i}.bin"
        p.write_bytes(bytes([i, i + 10, i + 20, i + 30]))
        paths.append(p)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    event = QDropEvent(QPointF(10, 10), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    window.dropEvent(event)
    assert window.document.paths == tuple(str(p) for p in paths)
    np.testing.assert_array_equal(table_values(window), [[0, 10, 20, 30], [1, 11, 21, 31]])


def test_batch_of_different_lengths_says_fixed_length_is_needed(window, tmp_path):
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(b"\x01\x02\x03\x04")
    b.write_bytes(b"\x05\x06")
    window.open_paths([str(a), str(b)])
    assert window.document.error is not None
    assert "fixed_length" in window.document.error.message
    window.decode_panel.fixed_length_check.setChecked(True)
    window.decode_panel.fixed_length_field.setText("4")
    window.decode_panel.fixed_length_field.textEdited.emit("4")
    np.testing.assert_array_equal(table_values(window), [[1, 2, 3, 4], [5, 6, 0, 0]])


def test_decode_settings_are_restored_when_the_file_is_reopened(qtbot, settings, tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(np.arange(8, dtype=">f4").tobytes())
    first = MainWindow(settings)
    qtbot.addWidget(first)
    first.open_paths([str(path)])
    choose(first.decode_panel.dtype_combo, "float32")
    choose(first.decode_panel.byte_order_combo, False)
    first.close()
    assert str(path) in settings.recent_files()

    second = MainWindow(settings)
    qtbot.addWidget(second)
    second.open_paths([str(path)])
    assert second.document.params.dtype == "float32"
    assert second.document.params.little_endian is False
    np.testing.assert_array_equal(table_values(second)[:, 0], np.arange(8, dtype=np.float32))


def test_corrupt_settings_fall_back_to_defaults(qtbot, settings, tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(b"\x01\x02\x03\x04")
    store = settings.qsettings
    store.setValue("recent_files", 12345)
    store.setValue("window/geometry", "garbage")
    store.setValue("window/state", 3.5)
    store.setValue(SettingsStore._key((str(path),)), '{"params": {"dtype": 7, "offset": "x"}}')
    w = MainWindow(settings)
    qtbot.addWidget(w)
    assert settings.recent_files() == []
    assert w.open_paths([str(path)])
    assert w.document.params == DecodeParams()
    np.testing.assert_array_equal(table_values(w)[:, 0], [1, 2, 3, 4])


def test_selection_links_table_hex_view_data_inspector_and_status_bar(window, tmp_path):
    values = np.arange(12, dtype=">f4").reshape(3, 4)
    path = tmp_path / "grid.bin"
    path.write_bytes(b"HEADER16........" + values.tobytes())
    window.open_paths([str(path)], DecodeParams(dtype="float32", little_endian=False, offset=16, shape=(3, 4)))
    view = window.table_panel.view
    view.setCurrentIndex(window.table_panel.model.index(1, 2))  # element [1, 2] = 6.0
    assert window.document.selection == (1, 2)
    # Element 6 of the data starts at 16 + 6 * 4 = 40.
    assert window.hex_view.highlighted() == (0, 40, 4)
    assert window.data_inspector.data()[:4] == values[1:2, 2].tobytes()  # the file's big-endian bytes
    assert window.data_inspector.value_text("float32", False) == "6.0"
    status = window.statusBar().selection_label.text()
    assert "[1, 2] = 6.0" in status and "bytes 40..43" in status and "grid.bin" in status
    # A byte clicked in the hex view selects the element holding it.
    window.hex_view.bytesSelected.emit(0, 58)  # (58 - 16) // 4 = element 10 = [2, 2]
    assert window.document.selection == (2, 2)
    assert window.table_panel.view.currentIndex().row() == 2
    # A byte of the header belongs to no element: the selection stays.
    window.hex_view.bytesSelected.emit(0, 3)
    assert window.document.selection == (2, 2)


def test_data_inspector_choice_switches_the_decode_panel(window, tmp_path):
    path = tmp_path / "d.bin"
    path.write_bytes(np.array([1, 2, 3], dtype=">i2").tobytes())
    window.open_paths([str(path)])
    window.data_inspector.typeChosen.emit("int16", False)
    assert window.decode_panel.dtype_combo.currentData() == "int16"
    assert window.decode_panel.byte_order_combo.currentData() is False
    np.testing.assert_array_equal(table_values(window)[:, 0], [1, 2, 3])


def test_statistics_dock_computes_the_current_view(window, qtbot, tmp_path):
    values = np.array([1.5, np.nan, -2.0, np.inf, 0.0, 4.5], dtype="<f4")
    path = tmp_path / "s.bin"
    path.write_bytes(values.tobytes())
    window.open_paths([str(path)], DecodeParams(dtype="float32"))
    panel = window.statistics_panel
    qtbot.waitUntil(lambda: panel.statistics is not None and panel.statistics.count == 6, timeout=10_000)
    stats = panel.statistics
    assert (stats.nan_count, stats.posinf_count, stats.zero_count) == (1, 1, 1)
    assert (stats.min, stats.max) == (-2.0, np.inf)
    assert stats.mean == pytest.approx(np.mean([1.5, -2.0, 0.0, 4.5]))


def test_copy_as_numpy_code_reproduces_the_view(window, tmp_path):
    from PySide6.QtGui import QGuiApplication

    data = np.arange(24, dtype=">u2")
    path = tmp_path / "c.bin"
    path.write_bytes(b"\xff" * 8 + data.tobytes())
    window.open_paths([str(path)], DecodeParams(dtype="uint16", little_endian=False, offset=8, shape=(4, 6)), "[1:, ::-2]")
    window._copy_code("numpy")
    namespace: dict = {}
    exec(QGuiApplication.clipboard().text(), namespace)  # test only: run the exported snippet
    np.testing.assert_array_equal(namespace["x"], data.reshape(4, 6)[1:, ::-2])


def test_a_file_truncated_while_open_clears_the_view_without_crashing(window, qtbot, tmp_path):
    path = tmp_path / "shrinks.bin"
    path.write_bytes(np.arange(4096, dtype="<f4").tobytes())
    window.open_paths([str(path)], DecodeParams(dtype="float32"))
    with qtbot.waitSignal(window.document.filesChangedOnDisk, timeout=5000):
        with open(path, "r+b") as f:
            f.truncate(100)
    assert window.file_watch_banner.message() == (
        "shrinks.bin shrank from 16,384 to 100 bytes; the view was cleared until you reload")
    assert window.table_panel.model.rowCount() == 0
    window.document.select((5,))  # must not touch the shrunk map
    window.repaint()
    window.document.reload()  # the user presses Reload: 100 bytes = 25 floats
    assert window.document.result.view.shape == (25,)


def test_fortran_order_npy_says_it_is_shown_transposed(window, tmp_path):
    path = tmp_path / "f.npy"
    np.save(path, np.asfortranarray(np.arange(6, dtype="<i2").reshape(2, 3)))
    assert window.open_paths([str(path)])
    assert window.document.result.transposed
    np.testing.assert_array_equal(table_values(window), [[0, 3], [1, 4], [2, 5]])
    assert ("<b>Fortran order</b> shown transposed: the C-order reading of the bytes (np.load "
            "gives the transpose)") in window.decode_panel.info_label.text()
    np.save(path, np.arange(6, dtype="<i2").reshape(2, 3))
    assert window.open_paths([str(path)])
    assert "Fortran" not in window.decode_panel.info_label.text()


def test_a_bfloat16_npy_opens_once_the_type_is_chosen(window, tmp_path):
    import ml_dtypes

    path = tmp_path / "bf16.npy"
    np.save(path, np.array([[1.5, -2.0]], dtype=ml_dtypes.bfloat16))
    assert window.open_paths([str(path)])  # opens; the header asks for the type
    assert window.document.result is None
    window.document.update_params(dtype="bfloat16")
    assert window.document.result.view.shape == (1, 2)
    np.testing.assert_array_equal(table_values(window).astype(float), [[1.5, -2.0]])


def test_a_complex_value_reads_a_plus_bj_in_table_readout_status_bar_and_data_inspector(window, tmp_path):
    values = np.array([1.5 - 2.25j, -0.5 + 4j, 3 + 0j], dtype="<c8")
    path = tmp_path / "iq.bin"
    path.write_bytes(values.tobytes())
    window.open_paths([str(path)], DecodeParams(dtype="complex64"))
    model = window.table_panel.model
    window.table_panel.view.setCurrentIndex(model.index(1, 0))  # element [1] = -0.5+4j
    assert window.document.selection == (1,)
    assert model.data(model.index(1, 0)) == "-0.5+4.0j"
    assert window.plot_panel.readout_text() == "selected index (1,) value -0.5+4.0j"
    assert "[1] = -0.5+4.0j" in window.statusBar().selection_label.text()
    assert window.data_inspector.value_text("complex64", True) == "-0.5+4.0j"
    window.table_panel.view.setCurrentIndex(model.index(0, 0))
    assert model.data(model.index(0, 0)) == "1.5-2.25j" == window.data_inspector.value_text("complex64", True)
