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
    window.export_action.trigger()
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
