"""Run one long computation off the GUI thread, with progress, cancel and an outcome signal.

:class:`BackgroundTask` wraps a function ``work(progress, cancelled) -> result`` (the calling
convention of :func:`core.scan.statistics.compute_statistics` and :func:`core.export.arrays.export_view`)
and runs it on a worker of :func:`task_pool` (a :class:`QThreadPool` of its own, so other code
using the global pool cannot starve it, and :func:`shutdown_tasks` can wait for exactly these
workers).

Threading rules
---------------
* The worker never touches a widget, nor a signal of the task itself: it emits the two signals of
  a private relay ``QObject`` that lives in the GUI thread, connected to the task with
  ``Qt.QueuedConnection``. The public signals are therefore always emitted *in the GUI thread*,
  so anything connected to them (lambdas included) runs there.
* ``progress(done, total)`` from the worker is throttled to one signal per 1/1000 of ``total``
  (at most ~1000 events per task), so a small block size cannot flood the event loop.
* Cancelling sets a flag that ``cancelled()`` returns; the work raises
  :class:`core.errors.Cancelled` at its next check. A task cancelled before it started never
  calls ``work``. A task whose work returned in spite of a cancel request reports success (the
  work *was* done; for an export the file exists).
* A started task is kept alive by a module registry until its outcome reached the GUI thread
  *and* the worker has left the relay's ``emit``, so dropping every reference early is safe.

Outcomes: exactly one of :attr:`BackgroundTask.succeeded` (the result),
:attr:`BackgroundTask.failed` (the exception), :attr:`BackgroundTask.cancelled`, then
:attr:`BackgroundTask.finished`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal

from core.errors import Cancelled

__all__ = ["BackgroundTask", "task_pool", "shutdown_tasks", "wait_for_tasks"]

Progress = Callable[[int, int], None]
Work = Callable[[Progress, Callable[[], bool]], Any]

_LIVE: set[BackgroundTask] = set()
_POOL: QThreadPool | None = None


def task_pool() -> QThreadPool:
    """The thread pool every :class:`BackgroundTask` runs on (created on first use).

    Two workers at least (statistics and an export can run side by side), half the cores at most.
    """
    global _POOL
    if _POOL is None:
        _POOL = QThreadPool()
        _POOL.setObjectName("tensorInspectorTasks")
        _POOL.setMaxThreadCount(max(2, QThreadPool.globalInstance().maxThreadCount() // 2))
    return _POOL


def wait_for_tasks(msecs: int = 10_000) -> bool:
    """Block until every worker of :func:`task_pool` is idle; False on timeout.

    Queued outcome signals are delivered later, by the event loop, as usual.
    """
    return task_pool().waitForDone(msecs)


def shutdown_tasks(msecs: int = 5_000) -> bool:
    """Cancel every running task and wait for the workers (call from ``closeEvent``).

    A worker still running Python code while the interpreter shuts down can crash it, so the main
    window should call this before the application quits.

    Returns
    -------
    bool
        False when a worker did not stop within ``msecs``.
    """
    for task in list(_LIVE):
        task.cancel()
    return wait_for_tasks(msecs)


class _Relay(QObject):
    """Signals the worker emits; lives in the GUI thread as a child of its task."""

    progress = Signal("qlonglong", "qlonglong")
    outcome = Signal(str, object)


class _Runnable(QRunnable):
    """Calls the work on a pool thread and reports through the relay (never the task)."""

    def __init__(self, work: Work, relay: _Relay, cancel_flag: threading.Event,
                 left_emit: threading.Event) -> None:
        super().__init__()
        self._work = work
        self._relay = relay
        self._cancel_flag = cancel_flag
        self._left_emit = left_emit
        self._last_permille = -1

    def run(self) -> None:
        relay = self._relay
        try:
            if self._cancel_flag.is_set():
                kind, value = "cancelled", None
            else:
                value = self._work(self._on_progress, self._cancel_flag.is_set)
                kind = "succeeded"
        except Cancelled:
            kind, value = "cancelled", None
        except BaseException as error:
            kind, value = "failed", error  # its __traceback__ stays available for logs
        try:
            relay.outcome.emit(kind, value)
        finally:
            self._work = None
            self._relay = None
            self._left_emit.set()

    def _on_progress(self, done: int, total: int) -> None:
        permille = 1000 if total <= 0 else min(1000, int(done * 1000 // total))
        if permille != self._last_permille:
            self._last_permille = permille
            self._relay.progress.emit(int(done), int(total))


class BackgroundTask(QObject):
    """One call of ``work(progress, cancelled)`` on a worker thread.

    Parameters
    ----------
    work
        ``work(progress, cancelled) -> result``: runs on the worker, must not touch Qt widgets,
        should call ``progress(done, total)`` now and then and raise
        :class:`core.errors.Cancelled` soon after ``cancelled()`` returns True.
    parent
        Optional Qt parent (the task is kept alive while running either way).

    Signals
    -------
    progressChanged(int, int)
        ``(done, total)`` as reported by the work (64-bit values), throttled.
    succeeded(object)
        The result of ``work``.
    failed(object)
        The exception ``work`` raised (:func:`core.errors.describe_error` gives its message).
    cancelled()
        The work stopped because of :meth:`cancel` (or never started).
    finished()
        After any of the three outcomes.
    """

    progressChanged = Signal("qlonglong", "qlonglong")
    succeeded = Signal(object)
    failed = Signal(object)
    cancelled = Signal()
    finished = Signal()

    def __init__(self, work: Work, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._work = work
        self._cancel_flag = threading.Event()
        self._left_emit = threading.Event()
        self._relay = _Relay(self)
        self._relay.progress.connect(self._on_worker_progress, Qt.QueuedConnection)
        self._relay.outcome.connect(self._on_worker_outcome, Qt.QueuedConnection)
        self._state = "pending"
        self._result: Any = None
        self._error: BaseException | None = None

    # ------------------------------------------------------------------ control
    def start(self, pool: QThreadPool | None = None) -> BackgroundTask:
        """Queue the work on ``pool`` (default :func:`task_pool`); returns ``self``.

        Raises
        ------
        RuntimeError
            The task was already started (a task runs once; make a new one).
        """
        if self._state != "pending":
            raise RuntimeError("a BackgroundTask runs once (create a new task to run again)")
        self._state = "running"
        _LIVE.add(self)
        runnable = _Runnable(self._work, self._relay, self._cancel_flag, self._left_emit)
        self._work = None
        (pool or task_pool()).start(runnable)
        return self

    def cancel(self) -> None:
        """Ask the work to stop at its next check; :attr:`cancelled` follows (if it stops)."""
        self._cancel_flag.set()

    # ------------------------------------------------------------------ state
    @property
    def state(self) -> str:
        """``"pending"``, ``"running"``, ``"succeeded"``, ``"failed"`` or ``"cancelled"``."""
        return self._state

    def is_running(self) -> bool:
        """True from :meth:`start` until the outcome was delivered in the GUI thread."""
        return self._state == "running"

    def cancel_requested(self) -> bool:
        return self._cancel_flag.is_set()

    @property
    def result(self) -> Any:
        """What ``work`` returned (None until :attr:`succeeded`)."""
        return self._result

    @property
    def error(self) -> BaseException | None:
        """What ``work`` raised (None unless :attr:`failed`)."""
        return self._error

    # ------------------------------------------------------------------ GUI-thread slots
    def _on_worker_progress(self, done: int, total: int) -> None:
        if self._state == "running":
            self.progressChanged.emit(done, total)

    def _on_worker_outcome(self, kind: str, value: object) -> None:
        # The worker sets the flag right after its emit returns: microseconds. Waiting for it
        # means the relay cannot be deleted while the worker is still inside emit().
        self._left_emit.wait(5.0)
        self._state = kind
        try:
            if kind == "succeeded":
                self._result = value
                self.succeeded.emit(value)
            elif kind == "failed":
                self._error = value  # type: ignore[assignment]
                self.failed.emit(value)
            else:
                self.cancelled.emit()
            self.finished.emit()
        finally:
            _LIVE.discard(self)
