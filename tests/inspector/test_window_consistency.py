"""What the window says matches what it shows (issue 15, items 3, 4, 6 and 7 in the window).

- Go to index selects the element in the document: the status bar, plot marker, hex view and
  data inspector follow, as for a click.
- Title and status bar describe the files the table shows; one banner tells what is shown.
- A slice the tensor refuses shows the **Slice:** banner; Export refuses invalid settings.
- The slice expression keeps what is typed while the view follows it.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QLabel, QLineEdit, QPushButton

from core.pipeline.pipeline import DecodeParams
from core.slicing.expr import parse_slice
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    w = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    yield w
    w.document.close_files()


def named(window, kind, name):
    widget = window.findChild(kind, name)
    assert widget is not None, name
    return widget


def banner(window) -> str:
    return window.message_label.text() if not window.message_label.isHidden() else ""


def status(window) -> str:
    bar = window.statusBar()
    return " | ".join(label.text() for label in (bar.file_label, bar.type_label, bar.shape_label))


def table_values(window) -> np.ndarray:
    model = window.table_panel.model
    return np.array([[model.value_at(r, c) for c in range(model.columnCount())]
                     for r in range(model.rowCount())])


# ----------------------------------------------------------------------------- item 3
def test_go_to_index_selects_the_element_everywhere(qtbot, window, tmp_path):
    values = np.arange(12, dtype=">f4").reshape(3, 4)
    path = tmp_path / "grid.bin"
    path.write_bytes(b"HEADER16........" + values.tobytes())
    window.open_paths([str(path)], DecodeParams(dtype="float32", little_endian=False, offset=16,
                                                shape=(3, 4)))
    assert window.document.selection == (0, 0)
    go_to = named(window, QLineEdit, "table.goTo")
    qtbot.keyClicks(go_to, "2, 1")
    qtbot.keyClick(go_to, Qt.Key.Key_Return)
    assert window.document.selection == (2, 1)  # element 9 = 9.0, bytes 16 + 9 * 4 = 52..55
    current = window.table_panel.view.currentIndex()
    assert (current.row(), current.column()) == (2, 1)
    assert window.statusBar().selection_label.text() == "[2, 1] = 9.0   bytes 52..55 (0x34) of grid.bin"
    assert window.hex_view.highlighted() == (0, 52, 4)
    assert window.data_inspector.value_text("float32", False) == "9.0"
    assert window.plot_panel.selected_index == (2, 1)


# ----------------------------------------------------------------------------- item 6
def three_values(window, tmp_path):
    path = tmp_path / "three.bin"
    path.write_bytes(bytes([10, 20, 30]))
    window.open_paths([str(path)])
    return path


def test_an_index_out_of_range_shows_the_slice_banner(qtbot, window, tmp_path):
    three_values(window, tmp_path)
    line = named(window, QLineEdit, "slice.expression")
    line.selectAll()
    qtbot.keyClicks(line, "[9]")
    message = "slice index 9 of dimension 0 out of bounds. (use an index in [-3, 3))"
    assert banner(window) == f"<b>Slice:</b> {message} The last good view is still shown."
    assert named(window, QLabel, "slice.error").text().endswith(message + "</span>")
    np.testing.assert_array_equal(table_values(window)[:, 0], [10, 20, 30])  # the last good view


def test_export_refuses_invalid_settings_and_says_why(qtbot, window, tmp_path):
    from inspector.panels.export_dialog import ExportDialog

    three_values(window, tmp_path)
    line = named(window, QLineEdit, "slice.expression")
    line.selectAll()
    qtbot.keyClicks(line, "[9]")
    window.menus.export_action.trigger()
    dialog = named(window, ExportDialog, "export.dialog")
    out = tmp_path / "out.bin"
    named(dialog, QLineEdit, "export.path").setText(str(out))
    dialog.set_format("bin")
    message = ("Cannot export: the current settings are invalid, and the view on screen is the "
               "last good one, not theirs: slice index 9 of dimension 0 out of bounds. (use an "
               "index in [-3, 3))")
    assert named(dialog, QLabel, "export.message").text() == message
    start = named(dialog, QPushButton, "export.start")
    assert not start.isEnabled()
    with qtbot.waitSignal(dialog.controller.failed, timeout=5000) as refused:
        assert dialog.export() is None  # what a script calling it gets
    assert refused.args == [message]
    assert not out.exists()  # nothing written, not the last good view either

    line.selectAll()
    qtbot.keyClicks(line, "1:")  # valid again: [20, 30]
    assert start.isEnabled() and dialog.message() == ""
    with qtbot.waitSignal(dialog.controller.finished, timeout=10_000):
        qtbot.mouseClick(start, Qt.MouseButton.LeftButton)
    assert out.read_bytes() == bytes([20, 30])


# ----------------------------------------------------------------------------- item 4
def drop(window, paths) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    window.dropEvent(QDropEvent(QPointF(10, 10), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier))


def test_files_that_cannot_be_decoded_leave_title_and_status_on_the_view_shown(window, tmp_path):
    old = tmp_path / "old.bin"
    old.write_bytes(bytes([1, 2, 3, 4, 5, 6]))
    window.open_paths([str(old)])
    assert window.windowTitle() == "old.bin — tensor-inspector"
    assert status(window) == "old.bin (6 bytes) | uint8 single byte | shape (6)"
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(bytes([10, 11, 12, 13]))
    b.write_bytes(bytes([20, 21, 22, 23, 24, 25]))
    drop(window, [a, b])  # different sizes: decode_raw refuses them without fixed_length
    assert window.document.paths == (str(a), str(b))
    np.testing.assert_array_equal(table_values(window)[:, 0], [1, 2, 3, 4, 5, 6])  # still old.bin
    assert window.windowTitle() == "old.bin — tensor-inspector"
    assert status(window) == "old.bin (6 bytes) | uint8 single byte | shape (6)"
    assert window.statusBar().selection_label.text().endswith("of old.bin")
    message = window.document.error.message
    assert message.startswith("DecodeRaw requires input strings to all be the same size")
    assert banner(window) == (f"<b>Decode:</b> {message} The view still shows the previous file; "
                              "a.bin + 1 more is shown once this is fixed.")

    window.decode_panel.fixed_length_check.setChecked(True)
    window.decode_panel.fixed_length_field.setText("4")
    window.decode_panel.fixed_length_field.textEdited.emit("4")
    np.testing.assert_array_equal(table_values(window), [[10, 11, 12, 13], [20, 21, 22, 23]])
    assert window.windowTitle() == "a.bin + 1 more — tensor-inspector"
    assert status(window) == "a.bin + 1 more (10 bytes) | uint8 single byte | shape (2, 4)"
    assert banner(window) == ""


def test_a_shrunk_file_is_told_by_one_banner(qtbot, window, tmp_path):
    path = tmp_path / "shrinks.bin"
    path.write_bytes(np.arange(16, dtype="<f4").tobytes())
    window.open_paths([str(path)], DecodeParams(dtype="float32"))
    with qtbot.waitSignal(window.document.filesChangedOnDisk, timeout=5000):
        with open(path, "r+b") as f:
            f.truncate(5)
    assert window.table_panel.model.rowCount() == 0
    assert not window.file_watch_banner.isHidden()
    assert window.file_watch_banner.message() == (
        "shrinks.bin shrank from 64 to 5 bytes; the view was cleared until you reload")
    assert banner(window) == ""  # not a second banner saying "the last good view is still shown"
    assert status(window) == "shrinks.bin (5 bytes now, was 64 bytes) |  | "  # no type or shape of a view now

    window.document.reload()  # 5 bytes are no float32s: still nothing to show, and it says so
    assert window.file_watch_banner.isHidden()
    assert window.table_panel.model.rowCount() == 0
    assert banner(window) == (
        "<b>Decode:</b> Input to DecodeRaw has length 5 that is not a multiple of 4, the size of "
        "float (choose a record size or fixed_length that is a multiple of 4) Nothing of "
        "shrinks.bin is shown until this is fixed.")


# ----------------------------------------------------------------------------- item 7
def test_the_slice_typed_in_the_window_stays_as_typed_and_the_view_follows(qtbot, window, tmp_path):
    data = np.arange(12, dtype="<i4").reshape(3, 4)
    path = tmp_path / "grid.bin"
    path.write_bytes(data.tobytes())
    window.open_paths([str(path)], DecodeParams(dtype="int32", shape=(3, 4)))
    window.show()
    window.activateWindow()
    qtbot.waitActive(window)
    line = named(window, QLineEdit, "slice.expression")
    qtbot.mouseClick(line, Qt.MouseButton.LeftButton)
    line.selectAll()
    qtbot.keyClicks(line, "1")
    assert window.document.result.view.shape == (4,)  # the view follows at once: row 1
    qtbot.keyClick(line, Qt.Key.Key_Tab)  # the focus leaves the line, then comes back
    qtbot.mouseClick(line, Qt.MouseButton.LeftButton)
    qtbot.keyClick(line, Qt.Key.Key_End)
    qtbot.keyClicks(line, ", 2")
    assert line.text() == "1, 2"
    assert window.document.slice_spec == parse_slice("[1, 2]")
    assert table_values(window).tolist() == [[6]]
    assert banner(window) == ""

    line.selectAll()
    qtbot.keyClicks(line, "::2")
    qtbot.keyClick(line, Qt.Key.Key_Return)
    assert line.text() == "::2"
    np.testing.assert_array_equal(table_values(window), data[::2])

    line.selectAll()
    qtbot.keyClick(line, Qt.Key.Key_Backspace)
    qtbot.keyClick(line, Qt.Key.Key_Tab)
    assert line.text() == ""
    np.testing.assert_array_equal(table_values(window), data)
