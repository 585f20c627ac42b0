"""Undo support for the slice editor: one command per slice edit, typing merged.

:class:`SpecCommand` records ``old -> new`` and hands the spec to show back to its owner
through a callback (so it needs no reference to the widget). Consecutive keystrokes in one
field form a *typing session* (:class:`TypingSessions`); their commands share a merge key and
collapse into one undo step, and a session that typed back to where it started leaves no step.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QUndoCommand

from core.slicing.spec import SliceSpec

__all__ = ["REDO_KEYS", "UNDO_KEYS", "SpecCommand", "TypingSessions", "history_step"]

_CTRL = Qt.KeyboardModifier.ControlModifier
_SHIFT = Qt.KeyboardModifier.ShiftModifier
#: Undo / redo shortcuts on every platform theme (offscreen's has no Ctrl+Shift+Z binding).
UNDO_KEYS = [QKeySequence(_CTRL | Qt.Key.Key_Z)]
REDO_KEYS = [QKeySequence(_CTRL | _SHIFT | Qt.Key.Key_Z), QKeySequence(_CTRL | Qt.Key.Key_Y)]
_MERGE_ID = 0x511CE  # QUndoCommand.id() of typing commands; -1 means "never merge"


def history_step(event: QKeyEvent) -> str | None:
    """``"undo"`` / ``"redo"`` when a key press is one of their shortcuts, else None."""
    combo = QKeySequence(event.keyCombination())
    if combo in UNDO_KEYS or event.matches(QKeySequence.StandardKey.Undo):
        return "undo"
    if combo in REDO_KEYS or event.matches(QKeySequence.StandardKey.Redo):
        return "redo"
    return None


class TypingSessions:
    """Numbers the runs of consecutive edits in one field.

    :meth:`key` returns the same key while edits keep coming from the same field, a new one
    after :meth:`end` or an edit elsewhere.
    """

    def __init__(self) -> None:
        self._field: str | None = None
        self._number = 0

    def key(self, field: str) -> tuple[str, int]:
        if self._field != field:
            self._number += 1
            self._field = field
        return field, self._number

    def end(self) -> None:
        self._field = None


class SpecCommand(QUndoCommand):
    """One slice edit ``old -> new``.

    Parameters
    ----------
    text
        What the undo action says (``"type slice"``, ``"add entry"``...).
    old, new
        The specs before and after.
    show
        ``show(spec, shown_by)`` makes ``spec`` current; ``shown_by`` names the view that
        already shows it (the field being typed in, on the first redo only), else None.
    merge_key
        Commands with equal, non-None keys merge (see :class:`TypingSessions`).
    shown_by
        Passed to ``show`` on the first redo (which ``QUndoStack.push`` performs).
    """

    def __init__(
        self,
        text: str,
        old: SliceSpec,
        new: SliceSpec,
        show: Callable[[SliceSpec, str | None], None],
        merge_key: tuple[str, int] | None = None,
        shown_by: str | None = None,
    ) -> None:
        super().__init__(text)
        self._old, self._new, self._show = old, new, show
        self._merge_key = merge_key
        self._shown_by = shown_by

    def id(self) -> int:
        return _MERGE_ID if self._merge_key is not None else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, SpecCommand) or other._merge_key != self._merge_key:
            return False
        self._new = other._new
        self.setObsolete(self._new == self._old)  # typed back to where it started
        return True

    def redo(self) -> None:
        shown_by, self._shown_by = self._shown_by, None
        self._show(self._new, shown_by)

    def undo(self) -> None:
        self._show(self._old, None)
