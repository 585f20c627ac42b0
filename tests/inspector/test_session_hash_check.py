"""Issue 30 item 19: a session whose file records a SHA-256 is opened at once; the content is
hashed on a worker (progress and *Stop checking* in the session banner), then the verdict shown.

The hash is made slow deterministically: ``file_sha256`` as the session loader calls it keeps
reporting progress until the test opens its gate.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time

import numpy as np
import pytest
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QFrame, QLabel, QPushButton

from core.files import checked_read
from core.pipeline.pipeline import DecodeParams
from core.session import loading
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.background_task import wait_for_tasks
from inspector.state.settings_store import SettingsStore


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    w = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    w.show()
    return w


@pytest.fixture
def gate(monkeypatch):
    opened = threading.Event()

    def slow_sha256(path, block_size=checked_read.HASH_BLOCK, progress=None):
        deadline = time.monotonic() + 20
        while not opened.is_set() and time.monotonic() < deadline:
            progress(0)  # raises Cancelled once Stop checking was clicked
            time.sleep(0.005)
        return checked_read.file_sha256(path, block_size, progress)

    monkeypatch.setattr(loading, "file_sha256", slow_sha256)
    yield opened
    opened.set()
    wait_for_tasks()


def banner_text(window) -> str:
    banner = window.findChild(QFrame, "session.banner")
    return "" if banner.isHidden() else window.findChild(QLabel, "session.message").text()


def session_with_hash(window, tmp_path, *, edit: bool) -> str:
    """A session of a.bin recording its SHA-256; ``edit``: then its content changes, same size."""
    path = tmp_path / "a.bin"
    np.arange(24, dtype=np.float32).tofile(path)
    assert window.open_paths([str(path)], DecodeParams(dtype="float32"))
    session = tmp_path / "s.json"
    assert window.session_actions.save(str(session))
    data = json.loads(session.read_text())
    data["files"][0]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    session.write_text(json.dumps(data))
    window.close_file()
    if edit:
        path.write_bytes(bytes(96))  # same size, other content
    return str(session)


def test_the_hash_runs_on_a_worker_and_its_verdict_is_shown(qtbot, window, tmp_path, gate):
    session = session_with_hash(window, tmp_path, edit=True)
    assert window.session_actions.open_session(session)  # returns while the hash waits
    assert window.session_actions.checking()
    assert window.document.result.view.shape == (24,)  # the files are shown meanwhile
    assert banner_text(window).startswith("Session s.json: checking the content of 1 file (SHA-256): ")
    assert window.findChild(QPushButton, "session.stopChecking").isVisible()
    fired = []
    QTimer.singleShot(10, lambda: fired.append(True))
    qtbot.waitUntil(lambda: bool(fired), timeout=10_000)  # the window answers
    gate.set()
    qtbot.waitUntil(lambda: not window.session_actions.checking(), timeout=10_000)
    text = banner_text(window)
    assert "a.bin' changed since the session was saved: same size, other content (its SHA-256 differs)" in text
    assert not window.findChild(QPushButton, "session.stopChecking").isVisible()


def test_stop_checking_says_the_content_was_not_compared(qtbot, window, tmp_path, gate):
    session = session_with_hash(window, tmp_path, edit=True)
    assert window.session_actions.open_session(session)
    window.findChild(QPushButton, "session.stopChecking").click()
    qtbot.waitUntil(lambda: not window.session_actions.checking(), timeout=10_000)
    assert not gate.is_set()
    text = banner_text(window)
    assert "The content check (SHA-256 of 1 file) was stopped: their content was not compared" in text
    assert "a.bin' was modified since the session was saved" in text  # what the times say


def test_a_matching_hash_leaves_no_note(qtbot, window, tmp_path):
    session = session_with_hash(window, tmp_path, edit=False)
    assert window.session_actions.open_session(session)
    qtbot.waitUntil(lambda: not window.session_actions.checking(), timeout=10_000)
    assert banner_text(window) == ""
