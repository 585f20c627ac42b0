"""SliceEditor driven as a user: type, click check boxes, edit cells and mask integers, undo."""


import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLineEdit, QPushButton

from core.slicing.expr import format_slice, parse_slice
from core.slicing.source_code import to_java, to_numpy, to_tf
from core.slicing.spec import SliceSpec
from inspector.slice_editor.editor import SliceEditor

EXPRESSION = "[2, ..., 5:8, tf.newaxis]"
SHAPE = (4, 5, 6, 10)
KIND, BEGIN, END, STRIDE = 0, 1, 2, 3
BEGIN_MASK, END_MASK, ELLIPSIS, NEW_AXIS, SHRINK = 4, 5, 6, 7, 8


@pytest.fixture
def editor(qtbot):
    widget = SliceEditor()
    qtbot.addWidget(widget)
    widget.resize(820, 600)
    widget.set_input_shape(SHAPE)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def emitted(editor):
    """Record every specChanged argument."""
    seen = []
    editor.specChanged.connect(seen.append)
    return seen


def type_into(qtbot, line: QLineEdit, text: str) -> None:
    """Select everything in ``line`` and type ``text`` over it, key by key."""
    qtbot.mouseClick(line, Qt.MouseButton.LeftButton)
    qtbot.keyClick(line, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(line, text)


def grid(editor):
    model = editor._entries.model()
    return [
        [model.index(r, c).data() for c in range(KIND, STRIDE + 1)]
        + [
            model.index(r, c).data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
            for c in range(BEGIN_MASK, SHRINK + 1)
        ]
        for r in range(model.rowCount())
    ]


def masks(editor):
    return {name: field.text() for name, field in editor._mask_fields.items()}


def click_cell(qtbot, editor, row, column):
    view = editor._entries.table
    rect = view.visualRect(view.model().index(row, column))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def edit_cell(qtbot, editor, row, column, text):
    """Double-click a cell, type ``text`` over its value and press Enter."""
    view = editor._entries.table
    index = view.model().index(row, column)
    rect = view.visualRect(index)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    cell = view.indexWidget(index)
    assert isinstance(cell, QLineEdit)
    qtbot.keyClick(cell, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(cell, text)
    qtbot.keyClick(cell, Qt.Key.Key_Return)


def test_typing_an_expression_fills_grid_masks_and_feedback(qtbot, editor):
    seen = emitted(editor)
    with qtbot.waitSignal(editor.specChanged, timeout=1000) as blocker:
        type_into(qtbot, editor._expression, EXPRESSION)
    assert blocker.args == [parse_slice(EXPRESSION)]
    assert seen == [parse_slice(EXPRESSION)]  # the unfinished texts never parsed
    assert grid(editor) == [
        ["index", "2", "3", "1", False, False, False, False, True],
        ["ellipsis", "0", "0", "1", False, False, True, False, False],
        ["range", "5", "8", "1", False, False, False, False, False],
        ["new axis", "0", "0", "1", False, False, False, True, False],
    ]
    assert masks(editor) == {
        "begin_mask": "0",
        "end_mask": "0",
        "ellipsis_mask": "2",
        "new_axis_mask": "8",
        "shrink_axis_mask": "1",
    }
    assert editor.explanation_text().splitlines() == [
        "input (4, 5, 6, 10) -> output (5, 6, 3, 1)",
        "Output dims:",
        "  output dim 0: length 5 = input dim 1, start 0, stop 5, step 1 (ellipsis, entry 1)",
        "  output dim 1: length 6 = input dim 2, start 0, stop 6, step 1 (ellipsis, entry 1)",
        "  output dim 2: length 3 = input dim 3, start 5, stop 8, step 1 (entry 2)",
        "  output dim 3: length 1 = new axis (entry 3)",
        "Input dims:",
        "  input dim 0 (size 4): shrunk to index 2 (entry 0)",
        "  input dim 1 (size 5): taken whole by the ellipsis (entry 1) -> output dim 0",
        "  input dim 2 (size 6): taken whole by the ellipsis (entry 1) -> output dim 1",
        "  input dim 3 (size 10): kept, sliced by entry 2 -> output dim 2",
    ]
    assert editor.error_text() == ""
    assert editor.spec() == parse_slice(EXPRESSION)
    assert editor.text() == EXPRESSION


def test_enter_keeps_the_text_and_tidy_rewrites_it_in_canonical_form(qtbot, editor):
    type_into(qtbot, editor._expression, "2,...,5:8,None")
    qtbot.keyClick(editor._expression, Qt.Key.Key_Return)
    assert editor._expression.text() == "2,...,5:8,None"
    assert editor.spec() == parse_slice(EXPRESSION)
    steps = len(editor.history)
    tidy = editor.findChild(QPushButton, "slice.tidy")
    qtbot.mouseClick(tidy, Qt.MouseButton.LeftButton)
    assert editor._expression.text() == EXPRESSION
    assert editor.spec() == parse_slice(EXPRESSION) and len(editor.history) == steps


def test_unchecking_shrink_rewrites_the_expression(qtbot, editor):
    editor.set_text(EXPRESSION)
    with qtbot.waitSignal(editor.specChanged, timeout=1000) as blocker:
        click_cell(qtbot, editor, 0, SHRINK)
    assert blocker.args[0] == parse_slice("[2:3, ..., 5:8, tf.newaxis]")
    assert editor._expression.text() == "[2:3, ..., 5:8, tf.newaxis]"
    assert masks(editor)["shrink_axis_mask"] == "0"
    assert grid(editor)[0][:4] == ["range", "2", "3", "1"]
    assert editor.explanation_text().startswith("input (4, 5, 6, 10) -> output (1, 5, 6, 3, 1)")


def test_space_toggles_the_current_check_box(qtbot, editor):
    editor.set_text("[:, 1]")
    click_cell(qtbot, editor, 0, BEGIN_MASK)  # a click toggles: begin mask off
    assert editor._expression.text() == "[0:, 1]"
    qtbot.keyClick(editor._entries.table, Qt.Key.Key_Space)  # Space toggles it back
    assert editor._expression.text() == "[:, 1]"


def test_editing_a_mask_integer_rewrites_grid_and_expression(qtbot, editor):
    editor.set_text(EXPRESSION)
    seen = emitted(editor)
    type_into(qtbot, editor._mask_fields["new_axis_mask"], "0")
    assert editor._expression.text() == "[2, ..., 5:8, 0:0]"
    assert grid(editor)[3] == ["range", "0", "0", "1", False, False, False, False, False]
    # Entry 3 now slices input dim 3 (0:0 -> length 0), so the ellipsis takes only dim 1.
    assert editor.explanation_text().startswith("input (4, 5, 6, 10) -> output (5, 1, 0)")
    assert seen == [parse_slice("[2, ..., 5:8, 0:0]")]


def test_new_axis_and_shrink_on_one_bit_is_explained(qtbot, editor):
    editor.set_text(EXPRESSION)
    type_into(qtbot, editor._mask_fields["shrink_axis_mask"], "9")
    spec = editor.spec()
    assert spec.shrink_axis_mask == 9 and spec.new_axis_mask == 8
    assert editor._expression.text() == format_slice(spec)
    assert editor._expression.text().startswith("strided_slice(begin=[2, 0, 5, 0]")
    assert grid(editor)[3][0] == "new axis"  # precedence: new axis wins
    assert grid(editor)[3][NEW_AXIS] and grid(editor)[3][SHRINK]
    text = editor.explanation_text()
    assert "output (5, 6, 3, 1)" in text
    assert "Notes:\n  entry 3: new_axis and shrink both set; new axis wins" in text
    numpy_action = editor._copy_actions["numpy"]
    assert not numpy_action.isEnabled()
    assert "No index expression" in numpy_action.toolTip()


def test_a_mask_that_is_not_an_integer_is_reported_and_changes_nothing(qtbot, editor):
    editor.set_text(EXPRESSION)
    with qtbot.assertNotEmitted(editor.specChanged):
        type_into(qtbot, editor._mask_fields["end_mask"], "x")
    assert editor.error_text() == "end_mask 'x' is not an integer (type e.g. 5 or 0x5)"
    assert editor._error_label.isVisible()
    assert editor.spec() == parse_slice(EXPRESSION)
    type_into(qtbot, editor._mask_fields["end_mask"], "0x4")
    assert editor.error_text() == ""
    assert editor.spec().end_mask == 4
    # A masked end that still holds 8 is beyond index expressions: the explicit form shows it.
    assert editor._expression.text() == (
        "strided_slice(begin=[2, 0, 5, 0], end=[3, 0, 8, 0], strides=[1, 1, 1, 1], "
        "end_mask=4, ellipsis_mask=2, new_axis_mask=8, shrink_axis_mask=1)"
    )
    assert "end 8 of entry 2 ignored because end_mask bit 2 is set" in editor.explanation_text()
    assert editor.explanation_text().startswith("input (4, 5, 6, 10) -> output (5, 6, 5, 1)")


def test_editing_a_cell_accepts_int64_values(qtbot, editor):
    editor.set_text(EXPRESSION)
    with qtbot.waitSignal(editor.specChanged, timeout=1000):
        edit_cell(qtbot, editor, 2, END, str(2**40))
    assert editor._expression.text() == f"[2, ..., 5:{2**40}, tf.newaxis]"
    assert editor.explanation_text().startswith("input (4, 5, 6, 10) -> output (5, 6, 5, 1)")
    with qtbot.assertNotEmitted(editor.specChanged):
        edit_cell(qtbot, editor, 2, END, str(2**63))
        qtbot.waitUntil(lambda: editor.error_text() != "", timeout=1000)  # commit is queued
    assert editor.error_text() == (
        "end[2] = 9223372036854775808 does not fit in int64 "
        "(use a value in [-9223372036854775808, 9223372036854775807])"
    )
    assert editor.spec().end[2] == 2**40


def test_a_syntax_error_is_underlined_at_its_column_and_emits_nothing(qtbot, editor):
    editor.set_text(EXPRESSION)
    with qtbot.assertNotEmitted(editor.specChanged):
        type_into(qtbot, editor._expression, "[1, 2 x]")
    assert editor.error_text() == "unexpected 'x' at column 7 (separate items with ',')"
    assert editor.error_span() == (6, 1)
    label = editor._error_label
    assert label.isVisible()
    assert "[1, 2 <span" in label.text()
    assert 'text-decoration:underline"><b>x</b></span>]' in label.text()
    # The grid and the spec keep the last slice that parsed.
    assert editor.spec() == parse_slice(EXPRESSION)
    assert len(grid(editor)) == 4
    # Fixing the text clears the error.
    qtbot.keyClick(editor._expression, Qt.Key.Key_Backspace)  # "[1, 2 x"
    qtbot.keyClick(editor._expression, Qt.Key.Key_Backspace)  # "[1, 2 "
    with qtbot.waitSignal(editor.specChanged, timeout=1000):
        qtbot.keyClicks(editor._expression, "]")
    assert editor.error_text() == "" and editor.error_span() is None
    assert not label.isVisible()
    assert editor.spec() == parse_slice("[1, 2]")


def test_a_spec_the_shape_refuses_is_shown_and_emitted_once_the_shape_allows_it(qtbot, editor):
    with qtbot.assertNotEmitted(editor.specChanged):
        type_into(qtbot, editor._expression, "[7]")
    assert editor.error_text() == (
        "slice index 7 of dimension 0 out of bounds. (use an index in [-4, 4))"
    )
    assert editor._error_label.isVisible()
    assert editor.spec() == parse_slice("[7]")  # well-formed: shown in the grid
    assert grid(editor)[0][:4] == ["index", "7", "8", "1"]
    with qtbot.waitSignal(editor.specChanged, timeout=1000) as blocker:
        editor.set_input_shape((8, 5))
    assert blocker.args == [parse_slice("[7]")]
    assert editor.error_text() == ""
    assert editor.explanation_text().startswith("input (8, 5) -> output (5,)")


def test_undo_and_redo_restore_previous_specs(qtbot, editor):
    seen = emitted(editor)
    type_into(qtbot, editor._expression, "1:3")  # "1", "1:", "1:3": one merged command
    assert len(editor.history) == 1
    qtbot.keyClick(editor._expression, Qt.Key.Key_Return)
    click_cell(qtbot, editor, 0, STRIDE - 2)  # select row 0 (begin cell)
    qtbot.mouseClick(editor._entries.add_button, Qt.MouseButton.LeftButton)
    assert editor.spec() == parse_slice("[1:3, :]")
    assert len(editor.history) == 2
    line = editor._expression
    qtbot.keyClick(line, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.spec() == parse_slice("[1:3]") and line.text() == "[1:3]"
    qtbot.keyClick(line, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.spec() == SliceSpec.full() and line.text() == "[]"
    redo = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(line, Qt.Key.Key_Z, redo)
    assert editor.spec() == parse_slice("[1:3]")
    qtbot.keyClick(line, Qt.Key.Key_Z, redo)
    assert editor.spec() == parse_slice("[1:3, :]")
    assert masks(editor)["begin_mask"] == "2"
    assert seen == [
        parse_slice("1"),
        parse_slice("1:"),
        parse_slice("1:3"),
        parse_slice("[1:3, :]"),
        parse_slice("[1:3]"),
        SliceSpec.full(),
        parse_slice("[1:3]"),
        parse_slice("[1:3, :]"),
    ]


def test_ctrl_z_works_from_the_grid_too(qtbot, editor):
    editor.activateWindow()
    qtbot.waitUntil(lambda: QGuiApplication.focusWindow() is not None, timeout=1000)
    editor.set_text("[:, 1]")
    click_cell(qtbot, editor, 1, SHRINK)
    assert editor.spec() == parse_slice("[:, 1:2]")
    qtbot.keyClick(editor._entries.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.spec() == parse_slice("[:, 1]")


def test_typing_back_to_the_start_leaves_no_undo_step(qtbot, editor):
    editor.set_text("[1]")  # a document edit: one step
    assert len(editor.history) == 1
    qtbot.mouseClick(editor._expression, Qt.MouseButton.LeftButton)
    qtbot.keyClick(editor._expression, Qt.Key.Key_End)
    qtbot.keyClick(editor._expression, Qt.Key.Key_Left)
    qtbot.keyClicks(editor._expression, "2")  # "[12]"
    assert len(editor.history) == 2
    qtbot.keyClick(editor._expression, Qt.Key.Key_Backspace)  # "[1]" again
    assert len(editor.history) == 1
    assert editor.history.undo_label == "set slice"


def test_entry_buttons_add_remove_and_move(qtbot, editor):
    editor.set_text("[2, ..., 5:8]")
    click_cell(qtbot, editor, 0, KIND)
    qtbot.mouseClick(editor._entries.down_button, Qt.MouseButton.LeftButton)
    assert editor._expression.text() == "[..., 2, 5:8]"
    qtbot.mouseClick(editor._entries.down_button, Qt.MouseButton.LeftButton)
    assert editor._expression.text() == "[..., 5:8, 2]"
    assert not editor._entries.down_button.isEnabled()
    qtbot.mouseClick(editor._entries.up_button, Qt.MouseButton.LeftButton)
    assert editor._expression.text() == "[..., 2, 5:8]"
    qtbot.mouseClick(editor._entries.add_button, Qt.MouseButton.LeftButton)  # after row 1
    assert editor._expression.text() == "[..., 2, :, 5:8]"
    qtbot.mouseClick(editor._entries.remove_button, Qt.MouseButton.LeftButton)  # the new row 2
    assert editor._expression.text() == "[..., 2, 5:8]"
    assert editor.spec().ellipsis_mask == 1 and editor.spec().shrink_axis_mask == 2


def test_reset_means_the_whole_tensor(qtbot, editor):
    editor.set_text(EXPRESSION)
    with qtbot.waitSignal(editor.specChanged, timeout=1000) as blocker:
        qtbot.mouseClick(editor._reset_button, Qt.MouseButton.LeftButton)
    assert blocker.args == [SliceSpec.full()]
    assert editor._expression.text() == "[]" and grid(editor) == []
    assert editor.explanation_text().startswith("input (4, 5, 6, 10) -> output (4, 5, 6, 10)")


def test_copy_as_puts_engine_text_on_the_clipboard(qtbot, editor):
    editor.set_text(EXPRESSION)
    spec = parse_slice(EXPRESSION)
    clipboard = QGuiApplication.clipboard()
    for kind, expected in (
        ("tf", to_tf(spec, "x")),
        ("numpy", to_numpy(spec, "x")),
        ("java", to_java(spec)),
    ):
        assert editor.copy_text(kind) == expected
        editor._copy_actions[kind].trigger()
        assert clipboard.text() == expected
    assert clipboard.text() == (
        "StridedSlice.ellipsisMask(2L), StridedSlice.newAxisMask(8L), "
        "StridedSlice.shrinkAxisMask(1L)"
    )
    with pytest.raises(ValueError, match="copy kind"):
        editor.copy_text("c++")
    editor.set_text("[1:3]")  # no masks: nothing for Java's options
    assert editor.copy_text("java") == ""
    assert not editor._copy_actions["java"].isEnabled()
    assert editor._copy_actions["numpy"].isEnabled()


def test_set_text_and_set_spec_from_outside_emit_nothing(qtbot, editor):
    with qtbot.assertNotEmitted(editor.specChanged):
        editor.set_text(EXPRESSION)
        editor.set_spec(parse_slice("[::-1]"))
        editor.set_text("[1, 2 x]")
    assert len(editor.history) == 2  # set_text and set_spec are document edits; the bad text is not
    assert editor.spec() == parse_slice("[::-1]")
    assert editor.error_span() == (6, 1) and editor._expression.text() == "[1, 2 x]"
    assert editor.explanation_text().startswith("input (4, 5, 6, 10) -> output (4, 5, 6, 10)")
    assert "output dim 0: length 4 = input dim 0, start 3, stop -1 (before index 0), step -1" in (
        editor.explanation_text()
    )
    # Fixing the text to the spec the lead already has is no change for the lead.
    with qtbot.assertNotEmitted(editor.specChanged):
        type_into(qtbot, editor._expression, "[::-1] ")  # "[::-1" never parses, "[::-1]" ...
    assert editor.error_text() == "" and len(editor.history) == 2
    with pytest.raises(TypeError):
        editor.set_spec("[1]")


def test_without_an_input_shape_specs_are_valid_and_notes_still_shown(qtbot):
    widget = SliceEditor()
    qtbot.addWidget(widget)
    with qtbot.waitSignal(widget.specChanged, timeout=1000):
        widget._mask_fields["begin_mask"].setFocus()
        type_into(qtbot, widget._mask_fields["begin_mask"], "4")
    assert widget.text() == "strided_slice(begin=[], end=[], strides=[], begin_mask=4)"
    assert widget.explanation_text().splitlines() == [
        "no input tensor yet: the output shape needs one",
        "Notes:",
        "  bit 2 of begin_mask is beyond the spec's 0 entries and is ignored",
    ]
