"""The expression keeps what the user types; grid values typed under a set mask bit are used.

Issue 15, items 7 and 9: the text is never rewritten while (or after) the user types it, not
even when the focus leaves the line between keystrokes; the view follows every text that
parses. A begin / end typed into the grid clears the mask bit that would make TensorFlow ignore
it, and the explanation says so.
"""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QTextBrowser,
    QToolButton,
)

from core.slicing.expr import parse_slice
from core.slicing.spec import SliceSpec
from inspector.slice_editor.editor import SliceEditor

SHAPE = (4, 5, 6, 10)
BEGIN, END, SHRINK = 1, 2, 8


@pytest.fixture
def editor(qtbot):
    widget = SliceEditor()
    qtbot.addWidget(widget)
    widget.resize(820, 600)
    widget.set_input_shape(SHAPE)
    widget.show()
    widget.activateWindow()
    qtbot.waitActive(widget)  # focus in and out of the line only happen in an active window
    return widget


def expression(editor) -> QLineEdit:
    line = editor.findChild(QLineEdit, "slice.expression")
    assert line is not None
    return line


def leave_and_come_back(qtbot, editor, line: QLineEdit) -> None:
    """Tab out of the line (Qt's editingFinished fires) and click back in at its end."""
    qtbot.keyClick(line, Qt.Key.Key_Tab)
    assert not line.hasFocus()
    qtbot.mouseClick(line, Qt.MouseButton.LeftButton)
    qtbot.keyClick(line, Qt.Key.Key_End)


def test_text_typed_key_by_key_stays_exactly_as_typed(qtbot, editor):
    line = expression(editor)
    qtbot.mouseClick(line, Qt.MouseButton.LeftButton)
    line.selectAll()
    texts, specs = [], []
    for key in "1, 2":
        qtbot.keyClicks(line, key)
        texts.append(line.text())
        specs.append(editor.document.slice_spec)
    assert texts == ["1", "1,", "1, ", "1, 2"]
    # Every text that parses is the document's spec at once ("1," is "[1]" too).
    assert specs == [parse_slice("[1]"), parse_slice("[1]"), parse_slice("[1]"),
                     parse_slice("[1, 2]")]
    qtbot.keyClick(line, Qt.Key.Key_Return)
    assert line.text() == "1, 2"


def test_leaving_the_line_between_keys_does_not_rewrite_it(qtbot, editor):
    line = expression(editor)
    qtbot.mouseClick(line, Qt.MouseButton.LeftButton)
    line.selectAll()
    qtbot.keyClicks(line, "1")
    leave_and_come_back(qtbot, editor, line)
    assert line.text() == "1"  # was "[1]", and typing on made "[1], 2"
    qtbot.keyClicks(line, ", 2")
    assert line.text() == "1, 2"
    assert editor.document.slice_spec == parse_slice("[1, 2]")
    assert editor.error_text() == ""

    line.selectAll()
    qtbot.keyClicks(line, ":")
    leave_and_come_back(qtbot, editor, line)
    qtbot.keyClicks(line, ":2")
    assert line.text() == "::2"  # was "[:]:2", a syntax error
    assert editor.document.slice_spec == parse_slice("[::2]")


def test_an_emptied_line_stays_empty_and_means_the_whole_tensor(qtbot, editor):
    line = expression(editor)
    editor.set_text("[1, 2]")
    qtbot.mouseClick(line, Qt.MouseButton.LeftButton)
    line.selectAll()
    qtbot.keyClick(line, Qt.Key.Key_Backspace)
    assert editor.document.slice_spec == SliceSpec.full()
    qtbot.keyClick(line, Qt.Key.Key_Tab)
    assert line.text() == ""  # was refilled with "[]"
    assert editor.explanation_text().startswith("input (4, 5, 6, 10) -> output (4, 5, 6, 10)")


def test_a_text_that_does_not_parse_keeps_the_last_spec_and_says_so(qtbot, editor):
    line = expression(editor)
    qtbot.mouseClick(line, Qt.MouseButton.LeftButton)
    line.selectAll()
    qtbot.keyClicks(line, "1, 2 x")
    assert line.text() == "1, 2 x"
    assert editor.document.slice_spec == parse_slice("[1, 2]")
    assert editor.error_text() == "unexpected 'x' at column 6 (separate items with ',')"
    label = editor.findChild(QLabel, "slice.error")
    assert "nothing changed: the grid shows the last slice that parsed, the table and plot " \
           "the last good view" in label.text()
    tidy = editor.findChild(QPushButton, "slice.tidy")
    assert not tidy.isEnabled()  # nothing to tidy: the text does not parse
    qtbot.keyClick(line, Qt.Key.Key_Backspace)
    assert tidy.isEnabled() and line.text() == "1, 2 "
    qtbot.mouseClick(tidy, Qt.MouseButton.LeftButton)
    assert line.text() == "[1, 2]"


def test_grid_and_mask_edits_rewrite_the_expression(qtbot, editor):
    line = expression(editor)
    qtbot.mouseClick(line, Qt.MouseButton.LeftButton)
    line.selectAll()
    qtbot.keyClicks(line, "1, :")
    view = editor.findChild(QTableView, "slice.entries")
    rect = view.visualRect(view.model().index(0, SHRINK))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert line.text() == "[1:2, :]"
    mask = editor.findChild(QLineEdit, "slice.shrinkAxisMask")
    mask.selectAll()
    qtbot.keyClicks(mask, "1")
    assert line.text() == "[1, :]"


def edit_cell(qtbot, editor, row, column, text):
    """Double-click a cell of the grid, type ``text`` over its value, press Enter and wait for
    the edit to reach the document (the delegate commits from the event loop)."""
    before = editor.document.slice_spec
    view = editor.findChild(QTableView, "slice.entries")
    index = view.model().index(row, column)
    rect = view.visualRect(index)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    cell = view.indexWidget(index)
    assert isinstance(cell, QLineEdit)
    qtbot.keyClick(cell, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(cell, text)
    qtbot.keyClick(cell, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: editor.document.slice_spec != before, timeout=2000)


def test_a_begin_typed_into_a_full_range_entry_is_used(qtbot, editor):
    editor.set_text("[:, 1]")  # entry 0 is ":": begin_mask and end_mask bit 0 set
    model = editor.findChild(QTableView, "slice.entries").model()
    assert model.index(0, BEGIN).data(Qt.ItemDataRole.ToolTipRole) == (
        "ignored while begin_mask bit 0 is set; typing a value clears the bit")
    edit_cell(qtbot, editor, 0, BEGIN, "2")
    spec = editor.document.slice_spec
    assert (spec.begin, spec.begin_mask, spec.end_mask) == ((2, 1), 0, 1)
    assert spec == parse_slice("[2:, 1]")
    assert expression(editor).text() == "[2:, 1]"
    assert editor.findChild(QLineEdit, "slice.beginMask").text() == "0"
    text = editor.explanation_text()
    assert text.startswith("input (4, 5, 6, 10) -> output (2, 6, 10)")
    assert text.endswith(
        "Last edit:\n  begin of entry 0 is now 2: begin_mask bit 0 was cleared (while it is "
        "set, TensorFlow ignores the begin value)")
    assert "Last edit" in editor.findChild(QTextBrowser, "slice.explanation").toPlainText()

    edit_cell(qtbot, editor, 0, END, "3")
    assert editor.document.slice_spec == parse_slice("[2:3, 1]")
    assert editor.explanation_text().endswith(
        "Last edit:\n  end of entry 0 is now 3: end_mask bit 0 was cleared (while it is set, "
        "TensorFlow ignores the end value)")
    assert editor.explanation_text().startswith("input (4, 5, 6, 10) -> output (1, 6, 10)")

    edit_cell(qtbot, editor, 0, END, "4")  # no bit to clear: no note
    assert editor.document.slice_spec == parse_slice("[2:4, 1]")
    assert "Last edit" not in editor.explanation_text()


def test_every_control_has_its_stable_name(editor):
    names = {
        QLineEdit: ["slice.expression", "slice.beginMask", "slice.endMask", "slice.ellipsisMask",
                    "slice.newAxisMask", "slice.shrinkAxisMask"],
        QLabel: ["slice.error"],
        QTableView: ["slice.entries"],
        QTextBrowser: ["slice.explanation"],
        QPushButton: ["slice.tidy", "slice.reset", "slice.addEntry", "slice.removeEntry",
                      "slice.moveUp", "slice.moveDown"],
        QToolButton: ["slice.undo", "slice.redo", "slice.copyAs"],
    }
    for kind, expected in names.items():
        for name in expected:
            assert len(editor.findChildren(kind, name)) == 1, name
