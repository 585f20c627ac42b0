"""CommandStack: do/undo/redo, typing merge, clean state, redo cleared by a new edit."""

from __future__ import annotations

import pytest

from inspector.state.commands import CommandStack, ValueCommand


class Field:
    """A value edited through commands; records every value applied and whether it was a replay."""

    def __init__(self, value: str = "") -> None:
        self.value = value
        self.applied: list[tuple[str, bool]] = []

    def apply(self, value: str, redoing: bool) -> None:
        self.value = value
        self.applied.append((value, redoing))

    def edit(self, stack: CommandStack, new: str, key: object = None) -> None:
        stack.push(ValueCommand(f"set {new}", self.value, new, self.apply, key))


def test_push_undo_redo_walk_back_and_forth():
    field, stack = Field("a"), CommandStack()
    assert not stack.can_undo and not stack.can_redo
    field.edit(stack, "b")
    field.edit(stack, "c")
    assert field.value == "c" and len(stack) == 2 and stack.undo_label == "set c"
    stack.undo()
    assert field.value == "b" and stack.can_redo and stack.redo_label == "set c"
    stack.undo()
    assert field.value == "a" and not stack.can_undo
    stack.undo()  # nothing left: no change
    assert field.value == "a"
    stack.redo()
    stack.redo()
    assert field.value == "c" and not stack.can_redo
    # The first do is the edit itself (redoing False); undo and redo are replays.
    assert field.applied == [("b", False), ("c", False), ("b", True), ("a", True), ("b", True), ("c", True)]


def test_consecutive_typing_in_one_field_merges_into_one_step():
    field, stack = Field("1"), CommandStack()
    for text in ("12", "123", "1234"):
        field.edit(stack, text, key=("params", "offset"))
    assert len(stack) == 1 and field.value == "1234"
    field.edit(stack, "x", key=("params", "record_size"))  # another field: a new step
    assert len(stack) == 2
    stack.undo()
    stack.undo()
    assert field.value == "1"  # one undo removes the whole typing session
    stack.redo()
    assert field.value == "1234"


def test_end_merge_starts_a_new_step_with_the_same_key():
    field, stack = Field(""), CommandStack()
    field.edit(stack, "1", key="offset")
    stack.end_merge()  # Enter pressed
    field.edit(stack, "12", key="offset")
    assert len(stack) == 2
    stack.undo()
    assert field.value == "1"


def test_unkeyed_commands_never_merge():
    field, stack = Field(""), CommandStack()
    field.edit(stack, "1")
    field.edit(stack, "2")
    assert len(stack) == 2


def test_typing_back_to_the_start_leaves_no_step():
    field, stack = Field("[1]"), CommandStack()
    field.edit(stack, "[12]", key="expression")
    assert len(stack) == 1
    field.edit(stack, "[1]", key="expression")
    assert len(stack) == 0 and field.value == "[1]" and not stack.can_undo


def test_a_new_edit_clears_the_redo_side():
    field, stack = Field("a"), CommandStack()
    field.edit(stack, "b")
    field.edit(stack, "c")
    stack.undo()
    assert stack.can_redo
    field.edit(stack, "d")
    assert not stack.can_redo and field.value == "d"
    stack.redo()  # nothing to redo: "c" is gone
    assert field.value == "d"
    stack.undo()
    assert field.value == "b"


def test_a_new_edit_after_undo_does_not_merge_into_the_undone_session():
    field, stack = Field(""), CommandStack()
    field.edit(stack, "1", key="offset")
    field.edit(stack, "x")
    stack.undo()
    field.edit(stack, "12", key="offset")  # same key as the top, but undo ended that session
    assert len(stack) == 2
    stack.undo()
    assert field.value == "1"


def test_clean_state_follows_the_mark():
    field, stack = Field("a"), CommandStack()
    assert stack.clean
    field.edit(stack, "b")
    assert not stack.clean
    stack.undo()
    assert stack.clean
    stack.redo()
    stack.set_clean()
    assert stack.clean
    stack.undo()
    assert not stack.clean
    field.edit(stack, "z")  # the clean state was on the discarded redo side
    assert not stack.clean
    stack.undo()
    assert not stack.clean and field.value == "a"
    stack.clear()
    assert stack.clean and len(stack) == 0 and not stack.can_redo


def test_on_change_is_called_for_every_change():
    calls = []
    field, stack = Field("a"), CommandStack(on_change=lambda: calls.append(len(stack)))
    field.edit(stack, "b")
    stack.undo()
    stack.redo()
    stack.clear()
    assert calls == [1, 0, 1, 0]


def test_pushing_from_inside_a_command_is_refused():
    stack = CommandStack()
    seen = []

    def reentrant(value, _redoing):
        seen.append(stack.busy)
        stack.push(ValueCommand("inner", 0, 1, lambda v, r: None))

    with pytest.raises(RuntimeError, match="while another one runs"):
        stack.push(ValueCommand("outer", 0, 1, reentrant))
    assert seen == [True] and not stack.busy and len(stack) == 0


def test_replaying_is_true_only_during_undo_and_redo():
    stack = CommandStack()
    seen = []
    record = lambda value, redoing: seen.append((value, stack.replaying))
    stack.push(ValueCommand("edit", 0, 1, record))
    stack.undo()
    stack.redo()
    assert seen == [(1, False), (0, True), (1, True)]


def test_the_state_layer_uses_qtcore_only():
    """The document, its commands and settings never depend on widgets (QtGui / QtWidgets)."""
    import ast
    from pathlib import Path

    import inspector.state

    imported = set()
    for path in Path(inspector.state.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    qt = {name for name in imported if name.startswith("PySide6")}
    assert qt == {"PySide6.QtCore"}
    assert "inspector.state.commands" in imported  # the document records its edits here
