"""Rows of a long computation handed to the GUI thread as they are produced.

:class:`RowStream` runs ``produce(progress, cancelled)``, a function returning an iterator of
rows (a scan's :class:`~core.models.scan.TensorScan`, a model diff's
:class:`~core.models.diff.PairDiff`), on a :class:`~inspector.state.background_task.BackgroundTask`.

Rules
-----
- The worker only appends rows to a list under a lock; the GUI thread takes them in batches
  (every :data:`BATCH_MS` ms while running, and once more when the work ends), so a thousand
  small tensors cost a few model updates, not a thousand, and no widget is touched off the GUI
  thread.
- :attr:`RowStream.rowsAdded` carries each batch in production order; every row produced
  before the outcome is delivered before :attr:`RowStream.finished`.
- :meth:`RowStream.cancel` stops the work at its next check (between blocks or rows); the rows
  so far stay and :attr:`RowStream.outcome` says ``cancelled``, so a partial table is never
  shown as complete.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from PySide6.QtCore import QObject, QTimer, Signal

from inspector.state.background_task import BackgroundTask

__all__ = ["BATCH_MS", "RowStream"]

#: How often the GUI thread takes the rows produced meanwhile.
BATCH_MS = 100

Produce = Callable[[Callable[[int, int], None], Callable[[], bool]], Iterable[object]]


class RowStream(QObject):
    """One run of ``produce`` (module rules).

    Signals
    -------
    rowsAdded(list)
        Rows produced since the last batch, in order.
    progressChanged(int, int)
        ``(done, total)`` as the work reports it.
    finished(str, object)
        The outcome (``succeeded``, ``failed``, ``cancelled``) and the exception when it failed.
    """

    rowsAdded = Signal(list)
    progressChanged = Signal("qlonglong", "qlonglong")
    finished = Signal(str, object)

    def __init__(self, produce: Produce, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lock = threading.Lock()
        self._pending: list[object] = []
        self.outcome: str | None = None  # None while running
        self.error: BaseException | None = None

        def work(progress, cancelled) -> None:
            for row in produce(progress, cancelled):
                with self._lock:
                    self._pending.append(row)

        self._task = BackgroundTask(work, self)
        self._task.progressChanged.connect(self.progressChanged)
        self._task.succeeded.connect(lambda _r: self._end("succeeded", None))
        self._task.failed.connect(lambda error: self._end("failed", error))
        self._task.cancelled.connect(lambda: self._end("cancelled", None))
        self._timer = QTimer(self, interval=BATCH_MS)
        self._timer.timeout.connect(self._deliver)

    def start(self) -> RowStream:
        self._timer.start()
        self._task.start()
        return self

    def cancel(self) -> None:
        self._task.cancel()

    @property
    def running(self) -> bool:
        return self._task.state == "running"

    def _deliver(self) -> None:
        with self._lock:
            rows, self._pending = self._pending, []
        if rows:
            self.rowsAdded.emit(rows)

    def _end(self, outcome: str, error: BaseException | None) -> None:
        self._timer.stop()
        self._deliver()
        self.outcome, self.error = outcome, error
        self.finished.emit(outcome, error)
