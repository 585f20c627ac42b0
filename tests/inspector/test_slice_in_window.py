"""Slicing in the main window: typing an expression updates table, plot, status bar and bytes."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QGuiApplication

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

DATA = np.arange(2 * 3 * 4, dtype=">i2").reshape(2, 3, 4)


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    w = MainWindow(SettingsStore(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    path = tmp_path / "t.bin"
    path.write_bytes(DATA.tobytes())
    w.open_paths([str(path)], DecodeParams(dtype="int16", little_endian=False, shape=(2, 3, 4)))
    return w


def type_expression(qtbot, window, text: str) -> None:
    """Replace the expression by pasting ``text`` over it (one edit, as a user pasting)."""
    edit = window.slice_editor.expression_edit
    QGuiApplication.clipboard().setText(text)
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert edit.text() == text


def table_values(window) -> np.ndarray:
    model = window.table_panel.model
    return np.array([[model.value_at(r, c) for c in range(model.columnCount())] for r in range(model.rowCount())])


def test_typing_a_slice_updates_the_table_and_the_plot(qtbot, window):
    type_expression(qtbot, window, "[1, ::-1, 1:4:2]")
    expected = DATA[1, ::-1, 1:4:2]
    assert window.document.result.view.shape == (3, 2)
    np.testing.assert_array_equal(table_values(window), expected)
    np.testing.assert_array_equal(window.plot_panel.image_item.image, expected)
    masks = window.slice_editor.spec()
    assert (masks.shrink_axis_mask, masks.begin_mask, masks.end_mask) == (1, 2, 2)


def test_a_one_d_slice_plots_a_line_with_the_values(qtbot, window):
    type_expression(qtbot, window, "[0, 2]")
    np.testing.assert_array_equal(table_values(window)[:, 0], DATA[0, 2])
    x, y = window.plot_panel.curve.getData()
    np.testing.assert_array_equal(x, [0, 1, 2, 3])
    np.testing.assert_array_equal(y, DATA[0, 2])


def test_byte_offsets_follow_the_slice(qtbot, window):
    type_expression(qtbot, window, "[1, ::-1]")  # view[0, 0] is DATA[1, 2, 0]: element 20, byte 40
    window.document.select((0, 0))
    assert window.hex_view.highlighted() == (0, 40, 2)
    assert "bytes 40..41" in window.statusBar().selection_label.text()


def test_a_bad_expression_shows_its_error_and_keeps_the_view(qtbot, window):
    type_expression(qtbot, window, "[0, 1:3]")
    before = table_values(window).copy()
    type_expression(qtbot, window, "[0, 1:3 x]")
    assert "column" in window.slice_editor.error_text()
    np.testing.assert_array_equal(table_values(window), before)
    type_expression(qtbot, window, "[5]")  # out of range for dim 0 of size 2
    assert "out of bounds" in window.slice_editor.error_text()
    np.testing.assert_array_equal(table_values(window), before)


def test_undo_restores_the_previous_view(qtbot, window):
    type_expression(qtbot, window, "[0]")
    qtbot.keyClick(window.slice_editor.expression_edit, Qt.Key.Key_Return)
    type_expression(qtbot, window, "[1, 2]")
    qtbot.keyClick(window.slice_editor.expression_edit, Qt.Key.Key_Return)
    np.testing.assert_array_equal(table_values(window)[:, 0], DATA[1, 2])
    window.document.undo()
    np.testing.assert_array_equal(table_values(window), DATA[0])
    window.document.redo()
    np.testing.assert_array_equal(table_values(window)[:, 0], DATA[1, 2])


def test_changing_the_decode_keeps_the_slice(qtbot, window):
    type_expression(qtbot, window, "[:, 0, :2]")
    window.decode_panel.byte_order_combo.setCurrentIndex(0)  # now little-endian
    expected = DATA.astype("<i2").view(">i2").reshape(2, 3, 4)[:, 0, :2]  # bytes read the other way
    np.testing.assert_array_equal(table_values(window), expected)


def test_selection_links_table_and_plot_both_ways(qtbot, window):
    type_expression(qtbot, window, "[1]")  # a 3 x 4 plane
    window.table_panel.view.setCurrentIndex(window.table_panel.model.index(2, 1))
    assert window.document.selection == (2, 1)
    assert window.plot_panel.selected_index == (2, 1)
    window.plot_panel.image_plot.cellClicked.emit(0, 3)  # what a click on pixel (row 0, column 3) emits
    assert window.document.selection == (0, 3)
    current = window.table_panel.view.currentIndex()
    assert (current.row(), current.column()) == (0, 3)
    assert window.table_panel.model.value_at(0, 3) == DATA[1, 0, 3]
