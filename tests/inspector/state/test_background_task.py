"""BackgroundTask: the work runs on a pool thread, every signal arrives in the GUI thread, and
each task ends with exactly one of succeeded / failed / cancelled, then finished."""

import gc
import threading

import pytest
from PySide6.QtCore import QThread

from core.errors import Cancelled, SourceError, describe_error
from inspector.state.background_task import BackgroundTask, shutdown_tasks, task_pool


@pytest.fixture(autouse=True)
def _no_leftover_tasks(qtbot):
    yield
    assert shutdown_tasks(10_000)
    qtbot.wait(1)


def record(task):
    events = []
    gui = QThread.currentThread()
    for name in ("succeeded", "failed", "cancelled", "finished"):
        getattr(task, name).connect(
            lambda *args, name=name: events.append((name, args, QThread.currentThread() is gui)))
    return events


def test_success_with_throttled_progress_delivered_in_the_gui_thread(qtbot):
    threads = []

    def work(progress, cancelled):
        threads.append(threading.current_thread())
        for done in range(1, 100_001):
            progress(done, 100_000)
        return "done"

    task = BackgroundTask(work)
    events = record(task)
    progress = []
    task.progressChanged.connect(lambda done, total: progress.append((done, total)))
    with qtbot.waitSignal(task.finished, timeout=10_000):
        assert task.start() is task
        assert task.is_running()
    assert threads and threads[0] is not threading.main_thread()
    assert [e[0] for e in events] == ["succeeded", "finished"]
    assert events[0][1] == ("done",) and all(e[2] for e in events)
    assert task.state == "succeeded" and task.result == "done" and not task.is_running()
    assert 900 <= len(progress) <= 1001  # one per permille, not 100,000
    assert progress[-1] == (100_000, 100_000)


def test_progress_counts_beyond_32_bits(qtbot):
    task = BackgroundTask(lambda progress, cancelled: progress(3 << 40, 4 << 40))
    progress = []
    task.progressChanged.connect(lambda done, total: progress.append((done, total)))
    with qtbot.waitSignal(task.finished, timeout=10_000):
        task.start()
    assert progress == [(3 << 40, 4 << 40)]


def test_failure_carries_the_exception(qtbot):
    def work(progress, cancelled):
        raise SourceError("'x.bin' changed on disk since it was opened (reload it)")

    task = BackgroundTask(work)
    events = record(task)
    with qtbot.waitSignal(task.finished, timeout=10_000):
        task.start()
    assert [e[0] for e in events] == ["failed", "finished"]
    assert isinstance(task.error, SourceError) and task.state == "failed"
    assert describe_error(task.error).message == "'x.bin' changed on disk since it was opened (reload it)"


def test_cancel_while_running(qtbot):
    started = threading.Event()

    def work(progress, cancelled):
        started.set()
        for _ in range(10_000):
            if cancelled():
                raise Cancelled("stopped")
            threading.Event().wait(0.001)
        return "not cancelled"

    task = BackgroundTask(work)
    events = record(task)
    task.start()
    assert started.wait(10)
    with qtbot.waitSignal(task.finished, timeout=10_000):
        task.cancel()
    assert [e[0] for e in events] == ["cancelled", "finished"]
    assert task.state == "cancelled" and task.result is None


def test_cancel_before_the_work_starts_never_calls_it(qtbot):
    calls = []
    task = BackgroundTask(lambda progress, cancelled: calls.append(1))
    task.cancel()
    with qtbot.waitSignal(task.cancelled, timeout=10_000):
        task.start()
    assert calls == [] and task.state == "cancelled"


def test_a_task_runs_once(qtbot):
    task = BackgroundTask(lambda progress, cancelled: 1)
    with qtbot.waitSignal(task.finished, timeout=10_000):
        task.start()
    with pytest.raises(RuntimeError, match="runs once"):
        task.start()


def test_dropping_every_reference_while_running_is_safe(qtbot):
    release = threading.Event()
    outcomes = []

    def work(progress, cancelled):
        release.wait(10)
        return 7

    task = BackgroundTask(work)
    task.succeeded.connect(outcomes.append)
    task.start()
    del task
    gc.collect()
    release.set()
    qtbot.waitUntil(lambda: outcomes == [7], timeout=10_000)


def test_shutdown_cancels_running_tasks(qtbot):
    def work(progress, cancelled):
        while not cancelled():
            threading.Event().wait(0.001)
        raise Cancelled("stopped")

    tasks = [BackgroundTask(work).start() for _ in range(2)]
    assert shutdown_tasks(10_000)
    qtbot.waitUntil(lambda: all(t.state == "cancelled" for t in tasks), timeout=10_000)
    assert task_pool().maxThreadCount() >= 2
