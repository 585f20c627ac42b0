"""Whether the window is busy, and with what: the one owner of the busy state.

The status bar shows it (``status.busy``: the message, and the application's override cursor);
nothing else sets a busy cursor or message. Two ways in:

* :meth:`BusyState.follow` a :class:`~inspector.state.background_task.BackgroundTask` whose
  result the window waits for (statistics, a guess): if the task is still running
  :data:`GRACE_MS` (100 ms) after it was followed, the window is busy with its message until the
  task ends (any outcome). Work that ends sooner never shows anything, so quick edits do not
  flicker. The cursor is the busy cursor (an arrow with an hourglass): the window still works.
* :meth:`BusyState.during` a piece of work that has to block the GUI thread and is known to take
  longer than the grace period (importing ml_dtypes, about 0.5 s: the first decode as bfloat16
  or float8, or the data inspector's rows of those types): busy at once, before the work
  starts, with the wait cursor; :attr:`changed` is emitted synchronously, so the status bar paints
  the message before the event loop stops.

Several reasons can be active; the message shown is the most recent one's, and the window is
idle again when the last one ends. The state uses QtCore only (a timer); showing it is the status
bar's job.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QObject, QTimer, Signal

from inspector.state.background_task import BackgroundTask

__all__ = ["GRACE_MS", "ML_DTYPES_MESSAGE", "BusyState"]

#: Work that lasts longer than this (ms) shows the busy state.
GRACE_MS = 100
#: The message while ml_dtypes is imported (the first bfloat16 or float8 decode, the data
#: inspector's rows of those types): a C extension's set-up that holds the GIL for ~0.5 s.
ML_DTYPES_MESSAGE = "Loading the bfloat16 and float8 types…"


class BusyState(QObject):
    """The active busy reasons of one window (module docstring).

    Signals
    -------
    changed(str, bool)
        ``(message, blocking)``: the message to show (``""`` when idle) and whether the GUI
        thread is blocked (wait cursor) rather than waiting for a worker (busy cursor).
    """

    changed = Signal(str, bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._reasons: dict[int, tuple[str, bool]] = {}  # insertion order: the last is shown
        self._tokens = itertools.count(1)
        self._timers: dict[int, QTimer] = {}

    # ------------------------------------------------------------------ state
    @property
    def message(self) -> str:
        """What the window is busy with (the most recent reason), ``""`` when idle."""
        return next(reversed(self._reasons.values()))[0] if self._reasons else ""

    @property
    def blocking(self) -> bool:
        """Whether the most recent reason blocks the GUI thread (False when idle)."""
        return bool(self._reasons) and next(reversed(self._reasons.values()))[1]

    def is_busy(self) -> bool:
        return bool(self._reasons)

    # ------------------------------------------------------------------ reasons
    def follow(self, task: BackgroundTask, message: str) -> None:
        """Busy with ``message`` while ``task`` runs, once it has run :data:`GRACE_MS`."""
        if not task.is_running():
            return
        token = next(self._tokens)
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.setInterval(GRACE_MS)
        timer.timeout.connect(lambda: self._grace_over(token, task, message))
        self._timers[token] = timer
        task.finished.connect(lambda: self._end(token))
        timer.start()

    @contextmanager
    def during(self, message: str) -> Iterator[None]:
        """Busy with ``message`` (blocking) from now until the ``with`` block ends."""
        token = next(self._tokens)
        self._begin(token, message, True)
        try:
            yield
        finally:
            self._end(token)

    # ------------------------------------------------------------------ internals
    def _grace_over(self, token: int, task: BackgroundTask, message: str) -> None:
        self._drop_timer(token)
        if task.is_running():
            self._begin(token, message, False)

    def _begin(self, token: int, message: str, blocking: bool) -> None:
        self._reasons[token] = (message, blocking)
        self.changed.emit(self.message, self.blocking)

    def _end(self, token: int) -> None:
        self._drop_timer(token)
        if self._reasons.pop(token, None) is not None:
            self.changed.emit(self.message, self.blocking)

    def _drop_timer(self, token: int) -> None:
        timer = self._timers.pop(token, None)
        if timer is not None:
            timer.stop()
            timer.deleteLater()
