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
- :class:`StreamedRows` is the owner of such rows (the Model dock's scan, Compare models' pairs):
  one run at a time (a new one cancels the one before, whose late rows and outcome are
  dropped), the rows so far, and a status.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from PySide6.QtCore import QObject, QTimer, Signal

from core.errors import describe_error
from inspector.state.background_task import BackgroundTask

__all__ = ["BATCH_MS", "RowStream", "StreamedRows"]

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


class StreamedRows(QObject):
    """The rows of the latest run of a producer, and its status (module rules); subclasses say
    what is produced and call :meth:`_run`.

    Signals
    -------
    reset()
        The rows were cleared (a new run, or nothing to show).
    rowsAdded(list)
        Rows, in order, appended to :attr:`rows`.
    stateChanged()
        :attr:`status` or :attr:`error` changed.
    progressChanged(int, int)
        ``(done, total)`` as the run reports it.
    """

    reset = Signal()
    rowsAdded = Signal(list)
    stateChanged = Signal()
    progressChanged = Signal("qlonglong", "qlonglong")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._stream: RowStream | None = None
        self.rows: list[object] = []
        #: ``idle`` (nothing run), ``running``, ``done``, ``cancelled`` or ``failed``.
        self.status = "idle"
        #: The message of what failed, or of a refusal met meanwhile (None: nothing).
        self.error: str | None = None

    @property
    def running(self) -> bool:
        return self.status == "running"

    def cancel(self) -> None:
        """Stop the running run at its next check (the rows so far stay)."""
        if self._stream is not None:
            self._stream.cancel()

    def _run(self, produce: Produce) -> None:
        """Clear the rows and run ``produce`` (the run before is cancelled)."""
        self._stop()
        self.rows, self.error = [], None
        self.reset.emit()
        stream = RowStream(produce, self)
        stream.rowsAdded.connect(self._on_rows)
        stream.progressChanged.connect(self.progressChanged)
        stream.finished.connect(lambda outcome, error: self._on_finished(stream, outcome, error))
        self._stream = stream
        self._set_status("running")
        stream.start()

    def _clear(self, status: str = "idle") -> None:
        """Stop, forget the rows and say ``status``."""
        self._stop()
        self.rows, self.error = [], None
        self.reset.emit()
        self._set_status(status)

    def _stop(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.cancel()
            stream.rowsAdded.disconnect(self._on_rows)

    def _rows_arrived(self) -> None:
        """Called before each batch is appended (what the run found besides its rows)."""

    def _ended(self) -> None:
        """Called when the current run ends, before the status says how."""

    def _on_rows(self, rows: list) -> None:
        self._rows_arrived()
        self.rows.extend(rows)
        self.rowsAdded.emit(rows)

    def _on_finished(self, stream: RowStream, outcome: str, error) -> None:
        if stream is not self._stream:
            return  # a run replaced meanwhile
        self._stream = None
        self._ended()
        if outcome == "failed":
            self.error = describe_error(error).message
        self._set_status({"succeeded": "done"}.get(outcome, outcome))

    def _set_status(self, status: str) -> None:
        self.status = status
        self.stateChanged.emit()
