"""Cyclic garbage is freed in the GUI thread only (a QObject destroyed in a worker crashes Qt)."""

import gc
import threading
import weakref

from PySide6.QtCore import QObject

from inspector.state.gc_policy import GuiThreadCollector, collect_in_gui_thread


class _Cyclic(QObject):
    def __init__(self):
        super().__init__()
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_the_policy_turns_automatic_collection_off_and_is_installed_once(qapp):
    collector = collect_in_gui_thread()
    assert isinstance(collector, GuiThreadCollector)
    assert collect_in_gui_thread() is collector
    assert not gc.isenabled()


def test_a_worker_that_allocates_a_lot_never_frees_a_qt_cycle_but_the_gui_thread_does(qapp):
    collect_in_gui_thread()
    gc.collect()
    ref = weakref.ref(_Cyclic())
    freed_in = []

    def allocate():
        for _ in range(200_000):  # far past generation 0's threshold
            [[]]
        freed_in.append(ref() is None)

    worker = threading.Thread(target=allocate)
    worker.start()
    worker.join()
    assert freed_in == [False]  # the worker never collected
    assert ref() is not None
    gc.collect()  # the GUI thread (what the collector's timer does)
    assert ref() is None


def test_collect_follows_the_interpreter_thresholds(qapp):
    collector = collect_in_gui_thread()
    gc.collect()
    assert collector.collect() == 0  # counts below the thresholds: nothing to do
    for _ in range(gc.get_threshold()[0] + 10):
        _Cyclic()
    assert collector.collect() >= 1  # generation 0 collected, the cycles freed
