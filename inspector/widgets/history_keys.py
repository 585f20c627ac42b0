"""Which key presses mean undo / redo of the document (not of the focused line edit's text)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QKeySequence

__all__ = ["REDO_KEYS", "UNDO_KEYS", "history_step"]

_CTRL = Qt.KeyboardModifier.ControlModifier
_SHIFT = Qt.KeyboardModifier.ShiftModifier
#: Undo / redo keys on every platform theme (offscreen's has no Ctrl+Shift+Z binding), in
#: addition to the platform's QKeySequence.Undo / Redo.
UNDO_KEYS = [QKeySequence(_CTRL | Qt.Key.Key_Z)]
REDO_KEYS = [QKeySequence(_CTRL | _SHIFT | Qt.Key.Key_Z), QKeySequence(_CTRL | Qt.Key.Key_Y)]


def history_step(event: QKeyEvent) -> str | None:
    """``"undo"`` / ``"redo"`` when a key event is one of their shortcuts, else None."""
    combo = QKeySequence(event.keyCombination())
    if combo in UNDO_KEYS or event.matches(QKeySequence.StandardKey.Undo):
        return "undo"
    if combo in REDO_KEYS or event.matches(QKeySequence.StandardKey.Redo):
        return "redo"
    return None
