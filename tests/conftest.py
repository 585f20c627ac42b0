"""Test-wide setup.

- Qt runs headless (offscreen) unless a display platform is requested.
- Each Qt test's top-level widgets are destroyed at its teardown. A widget whose child's signal
  holds a lambda that captures the widget is a cycle through Qt's ownership that Python cannot
  collect; left alive, hundreds of windows would each keep receiving application events.
- Python's cyclic garbage collector runs in the GUI thread only, as in the application
  (:mod:`inspector.state.gc_policy`): once a test has used Qt, automatic collection is off and
  each test's teardown collects in the main thread. Otherwise a worker thread (statistics,
  export, overviews) could free a cycle holding Qt objects of the GUI thread and crash the run.
- A Qt test's document waits for a container's listing until it ends (``LISTING_GRACE_S`` 60 s
  instead of the application's 0.3 s), so a slow first import of h5py on a loaded machine never
  turns an open the test reads at once into a background listing; the tests of the background
  listing (tests/inspector/state/test_listing_in_background.py) set it to 0.
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
    if uses_qt:
        from inspector.state import document

        document.LISTING_GRACE_S = 60.0
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


@pytest.fixture
def quantized_gguf(tmp_path):
    """A GGUF file written by llama.cpp's writer holding "plain" (float32 [1.5, 2.5]) and "q8",
    a 2 x 64 float32 ramp from -4 to 4 quantized to Q8_0; returns ``(path, q8's values as the
    gguf package dequantizes them)``. Skips when the gguf package is missing."""
    import numpy as np

    gguf = pytest.importorskip("gguf")
    from gguf.constants import GGMLQuantizationType as Q

    rows = np.linspace(-4, 4, 2 * 64, dtype=np.float32).reshape(2, 64)
    blocks = gguf.quants.quantize(rows, Q.Q8_0)
    path = tmp_path / "q.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_tensor("plain", np.array([1.5, 2.5], dtype=np.float32))
    writer.add_tensor("q8", blocks, raw_dtype=Q.Q8_0)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return str(path), gguf.quants.dequantize(blocks, Q.Q8_0)
