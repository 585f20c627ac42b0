"""Undo / Redo in the real main window walk through decode and slice edits alike; the selection
has one owner (the document) that the table and the plot reflect."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QKeySequence

from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

DATA = bytes(range(1, 13))  # int16 little-endian: 513, 1027, 1541, 2055, 2569, 3083
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    w = MainWindow(SettingsStore(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    path = tmp_path / "twelve.bin"
    path.write_bytes(DATA)
    assert w.open_paths([str(path)])
    w.show()
    qtbot.waitExposed(w)
    return w


def column(window) -> list:
    model = window.table_panel.model
    return [int(model.value_at(r, 0)) for r in range(model.rowCount())]


def type_over(qtbot, line, text: str) -> None:
    line.setFocus()
    qtbot.keyClick(line, Qt.Key.Key_A, CTRL)
    qtbot.keyClicks(line, text)
    qtbot.keyClick(line, Qt.Key.Key_Return)


def make_four_edits(qtbot, window) -> None:
    """dtype int16, slice [1:], header offset 2, slice [::2]: four undo steps."""
    panel, expression = window.decode_panel, window.slice_editor.expression_edit
    assert column(window) == list(range(1, 13))
    panel.dtype_combo.setCurrentIndex(panel.dtype_combo.findData("int16"))
    assert column(window) == [513, 1027, 1541, 2055, 2569, 3083]
    type_over(qtbot, expression, "[1:]")
    assert column(window) == [1027, 1541, 2055, 2569, 3083]
    type_over(qtbot, panel.offset_field, "2")
    assert column(window) == [1541, 2055, 2569, 3083]
    type_over(qtbot, expression, "[::2]")
    assert column(window) == [1027, 2055, 3083]
    assert len(window.document.history) == 4


def assert_state(window, values, dtype, offset_text, expression) -> None:
    assert column(window) == values
    assert window.decode_panel.dtype_combo.currentData() == dtype
    assert window.decode_panel.offset_field.text() == offset_text
    assert window.slice_editor.expression_edit.text() == expression
    assert window.slice_editor.text() == expression


STATES = [  # after 4, 3, 2, 1, 0 edits
    ([1027, 2055, 3083], "int16", "2", "[::2]"),
    ([1541, 2055, 2569, 3083], "int16", "2", "[1:]"),
    ([1027, 1541, 2055, 2569, 3083], "int16", "", "[1:]"),
    ([513, 1027, 1541, 2055, 2569, 3083], "int16", "", "[]"),
    (list(range(1, 13)), "uint8", "", "[]"),
]


def test_edit_menu_undo_and_redo_walk_through_decode_and_slice_edits(qtbot, window):
    undo, redo = window.menus.undo_action, window.menus.redo_action
    edit_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")
    assert undo in edit_menu.actions() and redo in edit_menu.actions()
    assert QKeySequence(QKeySequence.StandardKey.Undo) in undo.shortcuts()
    assert QKeySequence(QKeySequence.StandardKey.Redo) in redo.shortcuts()
    assert not undo.isEnabled() and not redo.isEnabled()  # opening a file starts a fresh history
    make_four_edits(qtbot, window)
    assert undo.isEnabled() and not redo.isEnabled()
    assert undo.text() == "&Undo type slice"
    assert_state(window, *STATES[0])
    for state in STATES[1:]:
        undo.trigger()
        assert_state(window, *state)
    assert not undo.isEnabled() and redo.isEnabled()
    for state in reversed(STATES[:-1]):
        redo.trigger()
        assert_state(window, *state)
    assert not redo.isEnabled()


def test_keyboard_undo_in_a_line_edit_undoes_the_document(qtbot, window):
    make_four_edits(qtbot, window)
    expression = window.slice_editor.expression_edit
    offset = window.decode_panel.offset_field
    qtbot.keyClick(expression, Qt.Key.Key_Z, CTRL)  # focus in the slice expression
    assert_state(window, *STATES[1])
    qtbot.keyClick(offset, Qt.Key.Key_Z, CTRL)  # focus in a decode field
    assert_state(window, *STATES[2])
    go_to = window.table_panel.findChild(type(expression), "table.goTo")
    qtbot.keyClick(go_to, Qt.Key.Key_Z, CTRL)  # any line edit of the window
    assert_state(window, *STATES[3])
    qtbot.keyClick(window.table_panel.view, Qt.Key.Key_Z, CTRL)  # not a line edit: the shortcut
    assert_state(window, *STATES[4])
    qtbot.keyClick(offset, Qt.Key.Key_Z, CTRL)  # nothing left: the line edit's own undo must not run
    assert_state(window, *STATES[4])
    qtbot.keyClick(expression, Qt.Key.Key_Z, CTRL | SHIFT)
    assert_state(window, *STATES[3])
    qtbot.keyClick(offset, Qt.Key.Key_Y, CTRL)
    assert_state(window, *STATES[2])
    qtbot.keyClick(window.table_panel.view, Qt.Key.Key_Z, CTRL | SHIFT)
    assert_state(window, *STATES[1])


def test_typing_a_number_is_one_undo_step(qtbot, window):
    panel = window.decode_panel
    type_over(qtbot, panel.offset_field, "10")  # "1" then "10": one step
    assert column(window) == [11, 12]
    assert len(window.document.history) == 1
    window.menus.undo_action.trigger()
    assert column(window) == list(range(1, 13)) and panel.offset_field.text() == ""


def test_selection_has_one_owner(qtbot, window):
    window.decode_panel.shape_field.setText("3,4")
    window.decode_panel.shape_field.textEdited.emit("3,4")
    table, plot = window.table_panel, window.plot_panel
    assert window.document.result.view.shape == (3, 4)
    # Table -> document -> plot.
    table.view.setCurrentIndex(table.model.index(2, 1))
    assert window.document.selection == (2, 1)
    assert plot.selected_index == (2, 1) and plot.image_plot.marked == (2, 1)
    # Plot click -> document -> table.
    plot.image_plot.cellClicked.emit(0, 3)
    assert window.document.selection == (0, 3)
    current = table.view.currentIndex()
    assert (current.row(), current.column()) == (0, 3)
    assert plot.image_plot.marked == (0, 3)
    assert "[0, 3] = 4" in window.statusBar().selection_label.text()
    # The document -> both views.
    window.document.select((1, 2))
    current = table.view.currentIndex()
    assert (current.row(), current.column()) == (1, 2) and plot.image_plot.marked == (1, 2)
    assert table.model.value_at(1, 2) == 7
