"""Issue 30 item 11: a container's listing runs off the GUI thread, with progress and cancel.

The listing is made slow deterministically: ``list_container`` is replaced by one that keeps
reading header bytes through the real HeaderReader (so progress and cancel go through the
engine's hook) until the test opens its gate, then lists the file for real.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QLabel, QToolButton
from safetensors.numpy import save_file

from core.formats import registry
from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state import document as document_module
from inspector.state.background_task import wait_for_tasks
from inspector.state.document import Document
from inspector.state.settings_store import SettingsStore


class SlowListing:
    """``list_container`` that reads 8 header bytes every 5 ms until :attr:`gate` is set (at
    most 20 s) for the files named in ``slow``; other files list at once."""

    def __init__(self, *slow: str) -> None:
        self.slow = set(slow)
        self.gate = threading.Event()
        self.started = threading.Event()
        self.stopped_by: list[BaseException] = []

    def __call__(self, reader):
        if reader.path in self.slow:
            self.started.set()
            deadline = time.monotonic() + 20
            try:
                while not self.gate.is_set() and time.monotonic() < deadline:
                    reader.read(0, 8)  # the engine's hook: progress, and cancel
                    time.sleep(0.005)
            except BaseException as error:
                self.stopped_by.append(error)
                raise
        return registry.list_container(reader)


@pytest.fixture
def files(tmp_path):
    a, b = tmp_path / "a.safetensors", tmp_path / "b.safetensors"
    save_file({"alpha": np.arange(4, dtype=np.float32), "beta": np.ones(2, np.int16)}, str(a))
    save_file({"gamma": np.arange(3, dtype=np.int32)}, str(b))
    return str(a), str(b)


@pytest.fixture
def slow(monkeypatch, files):
    listing = SlowListing(files[0])
    monkeypatch.setattr(document_module, "list_container", listing)
    monkeypatch.setattr(document_module, "LISTING_GRACE_S", 0.0)
    yield listing
    listing.gate.set()
    wait_for_tasks()


def test_the_window_answers_while_a_slow_listing_runs_and_the_raw_bytes_show_at_once(qtbot, files, slow):
    doc = Document()
    assert doc.open_files([files[0]])
    assert doc.listing_running and doc.container is None
    assert doc.params == DecodeParams() and doc.result is not None  # the raw bytes, at once
    assert bytes(doc.result.view[:8]) == open(files[0], "rb").read(8)
    fired = []
    QTimer.singleShot(10, lambda: fired.append(True))
    qtbot.waitUntil(lambda: bool(fired) and doc.listing_bytes >= 16, timeout=10_000)  # the event loop runs
    assert doc.listing_running
    with qtbot.waitSignal(doc.containerChanged, timeout=10_000):
        slow.gate.set()
    assert not doc.listing_running and doc.listing_status == ""
    assert [e.name for e in doc.container.entries] == ["alpha", "beta"]
    assert doc.current_entry.name == "alpha"  # nothing chosen meanwhile: its first tensor
    np.testing.assert_array_equal(doc.result.view, np.arange(4, dtype=np.float32))


def test_an_edit_made_while_listing_is_kept_when_the_listing_ends(qtbot, files, slow):
    doc = Document()
    doc.open_files([files[0]])
    doc.update_params(dtype="int16")
    with qtbot.waitSignal(doc.containerChanged, timeout=10_000):
        slow.gate.set()
    assert doc.params == DecodeParams(dtype="int16") and doc.container is not None


def test_cancel_in_the_status_bar_stops_the_listing_and_says_listing_cancelled(qtbot, tmp_path, files, slow):
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    window.show()
    assert window.open_paths([files[0]])
    label = window.findChild(QLabel, "status.listing")
    cancel = window.findChild(QToolButton, "status.listingCancel")
    assert cancel.isVisible() and label.text().startswith("Listing tensors…")
    qtbot.waitUntil(lambda: window.document.listing_bytes >= 16, timeout=10_000)
    read = window.document.listing_bytes
    assert read % 8 == 0 and label.text() == f"Listing tensors… {read} bytes of header read"
    cancel.click()
    qtbot.waitUntil(lambda: not window.document.listing_running, timeout=10_000)
    assert type(slow.stopped_by[0]).__name__ == "ListingCancelled"  # stopped inside the engine
    assert not slow.gate.is_set()
    assert label.text() == "listing cancelled" and label.isVisible() and not cancel.isVisible()
    assert window.document.listing_status == "listing cancelled"
    assert window.document.container is None and window.document.result is not None  # still the raw bytes
    assert not window.docks["tensors"].isVisible()
    window.close()


def test_a_file_opened_meanwhile_is_not_overwritten_by_the_old_listing(qtbot, files, slow):
    doc = Document()
    doc.open_files([files[0]])
    first = doc.pipeline
    assert slow.started.wait(10)
    doc.open_files([files[1]])  # listed at once (not slow), in the background
    qtbot.waitUntil(lambda: doc.container is not None, timeout=10_000)
    assert [e.name for e in doc.container.entries] == ["gamma"]
    slow.gate.set()  # too late: the old listing was cancelled when b was opened
    assert wait_for_tasks()
    qtbot.wait(50)  # any late outcome is delivered
    assert doc.paths == (files[1],) and [e.name for e in doc.container.entries] == ["gamma"]
    assert doc.current_entry.name == "gamma"
    np.testing.assert_array_equal(doc.result.view, np.arange(3, dtype=np.int32))
    assert first.source.closed  # closed once its listing stopped
    assert not doc.pipeline.source.closed


# ------------------------------------------------------------------ entries as they are found
class PausedMembers:
    """``npz._member_entry`` that, from member ``after`` on, keeps reading header bytes (the
    engine's progress hook) until :attr:`gate` is set (at most 20 s)."""

    def __init__(self, original, after: int) -> None:
        self.original, self.after, self.calls = original, after, 0
        self.gate = threading.Event()

    def __call__(self, reader, *args):
        self.calls += 1
        deadline = time.monotonic() + 20
        while self.calls > self.after and not self.gate.is_set() and time.monotonic() < deadline:
            reader.read(0, 8)
            time.sleep(0.005)
        return self.original(reader, *args)


def test_entries_appear_as_they_are_found_and_can_be_chosen_before_the_listing_ends(
        qtbot, tmp_path, monkeypatch):
    from core.formats import npz

    path = tmp_path / "five.npz"
    np.savez(path, **{f"a{i}": np.arange(3, dtype=np.int16) + 10 * i for i in range(5)})
    paused = PausedMembers(npz._member_entry, after=2)
    monkeypatch.setattr(npz, "_member_entry", paused)
    monkeypatch.setattr(document_module, "LISTING_GRACE_S", 0.0)
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    try:
        assert window.open_paths([str(path)])
        doc = window.document
        qtbot.waitUntil(lambda: doc.listing_found is not None and len(doc.listing_found.entries) == 2,
                        timeout=10_000)
        assert doc.listing_running and doc.container is None
        assert [e.name for e in doc.listing_found.entries] == ["a0", "a1"]
        panel = window.docks["tensors"].widget()
        root = panel.model.index(0, 0)
        qtbot.waitUntil(lambda: panel.model.rowCount(root) == 2, timeout=10_000)
        assert panel.model.data(root) == "npz: five.npz (listing... 2 tensors so far)"
        assert panel.model.data(panel.model.index(1, 0, root)) == "a1"
        doc.choose_tensor("a1")  # chosen before the listing ends
        assert doc.result.view.tolist() == [10, 11, 12]
        with qtbot.waitSignal(doc.containerChanged, timeout=10_000):
            paused.gate.set()
        assert [e.name for e in doc.container.entries] == ["a0", "a1", "a2", "a3", "a4"]
        assert doc.listing_found is None and doc.current_entry.name == "a1"  # the choice is kept
        assert panel.model.data(root) == "npz: five.npz (5 tensors)"
        assert doc.result.view.tolist() == [10, 11, 12]
    finally:
        paused.gate.set()
        wait_for_tasks()
        window.close()
