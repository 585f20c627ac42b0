"""BusyState: a followed task that outlasts the grace period makes the window busy until it ends;
work that blocks the GUI thread is busy at once; the most recent reason is the one shown."""

import threading

import pytest

from inspector.state.background_task import BackgroundTask, shutdown_tasks
from inspector.state.busy import BusyState


@pytest.fixture(autouse=True)
def _no_leftover_tasks(qtbot):
    yield
    assert shutdown_tasks(10_000)
    qtbot.wait(1)


def gated_task(gate: threading.Event) -> BackgroundTask:
    """A task that runs until the test opens ``gate`` (the slowness is the test's, not a clock's)."""
    return BackgroundTask(lambda _progress, _cancelled: gate.wait(30) and 42)


def test_a_task_still_running_after_the_grace_period_is_busy_until_it_ends(qtbot):
    busy = BusyState()
    seen = []
    busy.changed.connect(lambda message, blocking: seen.append((message, blocking)))
    gate = threading.Event()
    task = gated_task(gate).start()
    busy.follow(task, "Computing the statistics of 10 values…")
    assert not busy.is_busy()  # not before the grace period: quick work never flickers
    qtbot.waitUntil(busy.is_busy, timeout=5_000)
    assert (busy.message, busy.blocking) == ("Computing the statistics of 10 values…", False)
    gate.set()
    with qtbot.waitSignal(task.finished, timeout=10_000):
        pass
    assert not busy.is_busy() and busy.message == ""
    assert seen == [("Computing the statistics of 10 values…", False), ("", False)]


def test_blocking_work_is_busy_at_once_and_the_latest_reason_is_shown(qtbot):
    busy = BusyState()
    gate = threading.Event()
    task = gated_task(gate).start()
    busy.follow(task, "Guessing the layout of a.bin…")
    qtbot.waitUntil(busy.is_busy, timeout=5_000)
    with busy.during("Loading the bfloat16 and float8 types…"):
        assert (busy.message, busy.blocking) == ("Loading the bfloat16 and float8 types…", True)
    assert (busy.message, busy.blocking) == ("Guessing the layout of a.bin…", False)
    gate.set()
    qtbot.waitUntil(lambda: not busy.is_busy(), timeout=10_000)


def test_a_finished_task_is_not_followed(qtbot):
    busy = BusyState()
    gate = threading.Event()
    gate.set()
    task = gated_task(gate).start()
    with qtbot.waitSignal(task.finished, timeout=10_000):
        pass
    busy.follow(task, "too late")
    qtbot.wait(150)
    assert not busy.is_busy()
