"""Test-wide setup.

- Qt runs headless (offscreen) unless a display platform is requested.
- Each Qt test's top-level widgets are destroyed at its teardown. A widget whose child's signal
  holds a lambda that captures the widget is a cycle through Qt's ownership that Python cannot
  collect; left alive, hundreds of windows would each keep receiving application events.
- Python's cyclic garbage collector runs in the GUI thread only, as in the application
  (:mod:`inspector.state.gc_policy`): once a test has used Qt, automatic collection is off and
  each test's teardown collects in the main thread. Otherwise a worker thread (statistics,
  export, overviews) could free a cycle holding Qt objects of the GUI thread and crash the run.
"""

import gc
import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

_QT_FIXTURES = {"qtbot", "qapp"}


_collector = None


@pytest.fixture(autouse=True)
def _collect_garbage_in_the_main_thread(request):
    global _collector
    uses_qt = bool(_QT_FIXTURES & set(request.fixturenames))
    if uses_qt and _collector is None:
        from inspector.state.gc_policy import collect_in_gui_thread

        _collector = collect_in_gui_thread()
    yield
    if uses_qt:
        _destroy_top_level_widgets()
        gc.collect()  # the test's widgets and documents go now, in this thread
    elif _collector is not None:
        _collector.collect()  # what the application's timer would do


def _destroy_top_level_widgets():
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        return
    for widget in app.topLevelWidgets():
        widget.close()
        widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
