"""Python's cyclic garbage collector runs in the GUI thread only.

Why: the collector runs in whichever thread happens to allocate when a generation's threshold is
reached. Our worker threads (statistics, export, line-plot overviews) allocate a lot, so without
this rule they are where unreachable cycles get freed, including cycles holding Qt objects of
the GUI thread (a document with its timer, watcher and application event filter, a dialog).
Destroying a QObject outside its thread while the GUI thread dispatches events to it crashes
the process (a segmentation fault in the event loop, at an unrelated moment).

Rule: :func:`collect_in_gui_thread` turns automatic collection off and collects on a timer of
the GUI thread instead, one generation at a time with the interpreter's own thresholds, so the
memory behaviour is the same and the cost is spread out. Reference counting (which frees almost
everything) is unaffected. The application and the test suite both install it.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

__all__ = ["GuiThreadCollector", "collect_in_gui_thread"]

#: How often the GUI thread looks at the collector's counts.
INTERVAL_MS = 500


class GuiThreadCollector(QObject):
    """Collects garbage from a timer of the thread it lives in (create it in the GUI thread)."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self._thresholds = gc.get_threshold()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.collect)
        self._timer.start()

    def collect(self) -> int:
        """Collect the generations whose counts passed their thresholds; the objects freed."""
        counts = gc.get_count()
        freed = 0
        for generation in range(3):
            if counts[generation] <= self._thresholds[generation]:
                break
            freed = gc.collect(generation)
        return freed

    def stop(self) -> None:
        """Give collection back to the interpreter."""
        self._timer.stop()
        gc.enable()


_collector: GuiThreadCollector | None = None


def collect_in_gui_thread(parent: QObject | None = None) -> GuiThreadCollector:
    """Install the rule once (later calls return the same collector)."""
    global _collector
    if _collector is None:
        _collector = GuiThreadCollector(parent)
    return _collector
