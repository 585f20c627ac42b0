"""Edit history as command objects, outside the widgets (glue's ``CommandStack`` idea).

Pure Python: no Qt. A :class:`Command` knows how to :meth:`~Command.do` and
:meth:`~Command.undo` one change of the document; the :class:`CommandStack` keeps the ones done
and the ones undone. Rules:

- :meth:`CommandStack.push` does the command and records it; it clears the redo side.
- Consecutive commands with equal, non-None ``merge_key`` (keystrokes in one field, one typing
  session) collapse into one step: the top command takes the newer command's after-state. A
  merge that brings the state back to where the step started removes the step.
  :meth:`CommandStack.end_merge` (Enter, leaving the field, any undo/redo) starts a new step.
- :attr:`CommandStack.clean` is True while the stack is at the state marked by
  :meth:`CommandStack.set_clean` (opening files marks it, together with :meth:`clear`).
- Every change of the stack calls the ``on_change`` callback (the document turns it into a Qt
  signal for the Edit menu).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["Command", "CommandStack", "ValueCommand"]


class Command:
    """One undoable change. Subclasses implement :meth:`do` and :meth:`undo`.

    Attributes
    ----------
    label : str
        What the Edit menu says after "Undo" / "Redo" (``"type slice"``, ``"offset"``...).
    merge_key : hashable or None
        Commands with equal non-None keys pushed one after the other merge (see
        :meth:`merge`).
    """

    label: str = ""
    merge_key: Hashable | None = None

    def do(self) -> None:
        raise NotImplementedError

    def undo(self) -> None:
        raise NotImplementedError

    def merge(self, newer: Command) -> bool:
        """Absorb ``newer`` (already done) into this command; False if it cannot.

        The default never merges.
        """
        return False

    def is_noop(self) -> bool:
        """True when doing this command changes nothing (after a merge typed back)."""
        return False


class ValueCommand(Command):
    """Set a value through ``apply(value)``: ``old -> new``; merges by ``merge_key``.

    Parameters
    ----------
    label : str
        Shown in the Edit menu.
    old, new
        The values before and after (compared with ``==`` to detect a no-op).
    apply : callable
        ``apply(value, redoing)`` makes ``value`` current. ``redoing`` is False for the first
        :meth:`do` (the edit itself, whose widget already shows it) and True for undo / redo.
    merge_key : hashable, optional
    """

    def __init__(self, label: str, old: Any, new: Any, apply: Callable[[Any, bool], None],
                 merge_key: Hashable | None = None) -> None:
        self.label, self.old, self.new = label, old, new
        self._apply = apply
        self.merge_key = merge_key
        self._done_once = False

    def do(self) -> None:
        redoing, self._done_once = self._done_once, True
        self._apply(self.new, redoing)

    def undo(self) -> None:
        self._apply(self.old, True)

    def merge(self, newer: Command) -> bool:
        if not isinstance(newer, ValueCommand) or newer._apply != self._apply:
            return False
        self.new = newer.new
        return True

    def is_noop(self) -> bool:
        return self.old == self.new


class CommandStack:
    """Done and undone commands, with typing merge and a clean mark.

    Parameters
    ----------
    on_change : callable, optional
        Called with no argument after every change (push, undo, redo, clear, set_clean).
    """

    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self._done: list[Command] = []
        self._undone: list[Command] = []
        self._merge_open = True
        self._clean_depth: int | None = 0  # None: the clean state was dropped from the redo side
        self._on_change = on_change
        self._busy = False
        self._replaying = False

    # ------------------------------------------------------------------ state
    @property
    def can_undo(self) -> bool:
        return bool(self._done)

    @property
    def can_redo(self) -> bool:
        return bool(self._undone)

    @property
    def clean(self) -> bool:
        """True at the state last marked by :meth:`set_clean` (or :meth:`clear`)."""
        return self._clean_depth == len(self._done)

    @property
    def undo_label(self) -> str:
        return self._done[-1].label if self._done else ""

    @property
    def redo_label(self) -> str:
        return self._undone[-1].label if self._undone else ""

    def __len__(self) -> int:
        """Number of undo steps."""
        return len(self._done)

    @property
    def busy(self) -> bool:
        """True while a command's do/undo runs (edits made then are not recorded again)."""
        return self._busy

    @property
    def replaying(self) -> bool:
        """True while :meth:`undo` or :meth:`redo` runs a command (not a fresh :meth:`push`)."""
        return self._replaying

    # ------------------------------------------------------------------ edits
    def push(self, command: Command) -> None:
        """Do ``command`` and record it (merging it into the top step when allowed).

        The redo side is cleared. Pushing while a command runs is refused.

        Raises
        ------
        RuntimeError
            If called from inside a command's do/undo.
        """
        if self._busy:
            raise RuntimeError("cannot push a command while another one runs")
        self._run(command.do)
        if self._undone:
            self._undone.clear()
            if self._clean_depth is not None and self._clean_depth > len(self._done):
                self._clean_depth = None
        top = self._done[-1] if self._done else None
        if (self._merge_open and top is not None and command.merge_key is not None
                and top.merge_key == command.merge_key and top.merge(command)):
            if top.is_noop():
                self._done.pop()
        elif not command.is_noop():
            self._done.append(command)
        self._merge_open = True
        self._changed()

    def end_merge(self) -> None:
        """The next pushed command starts a new step even if its merge key is the same."""
        self._merge_open = False

    def undo(self) -> None:
        """Undo the top step (nothing when there is none)."""
        if not self._done or self._busy:
            return
        command = self._done.pop()
        self._run(command.undo, replaying=True)
        self._undone.append(command)
        self._merge_open = False
        self._changed()

    def redo(self) -> None:
        """Redo the last undone step (nothing when there is none)."""
        if not self._undone or self._busy:
            return
        command = self._undone.pop()
        self._run(command.do, replaying=True)
        self._done.append(command)
        self._merge_open = False
        self._changed()

    def clear(self) -> None:
        """Forget every step; the current state is clean."""
        self._done.clear()
        self._undone.clear()
        self._clean_depth = 0
        self._merge_open = False
        self._changed()

    def set_clean(self) -> None:
        """Mark the current state as clean (e.g. saved)."""
        self._clean_depth = len(self._done)
        self._changed()

    # ------------------------------------------------------------------ internals
    def _run(self, action: Callable[[], None], replaying: bool = False) -> None:
        self._busy, self._replaying = True, replaying
        try:
            action()
        finally:
            self._busy = self._replaying = False

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()
