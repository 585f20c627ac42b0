"""FileWatchBanner: real files changed on disk (modified, grown, shrunk, deleted, replaced) and
the banner's message, Reload / Dismiss buttons and filesInvalidated signal."""

import os

import numpy as np
import pytest
from PySide6.QtCore import Qt

from core.pipeline.pipeline import DecodeParams
from inspector.panels.file_watch_banner import FileWatchBanner
from inspector.state.document import Document

VALUES = np.arange(100, dtype=np.float32)  # 400 bytes


@pytest.fixture
def setup(qtbot, tmp_path):
    path = tmp_path / "data.bin"
    VALUES.tofile(path)
    document = Document()
    assert document.open_files([str(path)], DecodeParams(dtype="float32"))
    banner = FileWatchBanner(document, debounce_ms=10)
    qtbot.addWidget(banner)
    return path, document, banner


def shown(banner):
    return not banner.isHidden()


def bump_mtime(path):
    """Writes in the same clock tick may keep the mtime: move it explicitly."""
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_nothing_shown_while_the_file_is_unchanged(setup):
    _path, _document, banner = setup
    banner.check_now()
    assert not shown(banner) and banner.message() == "" and banner.file_problem() is None


def test_modified_file_shows_the_banner_and_reload_refreshes(qtbot, setup):
    path, document, banner = setup
    with open(path, "r+b") as f:
        f.write(np.float32(42.0).tobytes())
    bump_mtime(path)
    qtbot.waitUntil(lambda: shown(banner), timeout=5000)
    assert banner.message() == "data.bin changed on disk"
    assert banner.reload_button.text() == "Reload"
    assert banner.file_problem() is None  # same size: the mapped pages are all still there

    with qtbot.waitSignal(document.resultChanged, timeout=5000):
        qtbot.mouseClick(banner.reload_button, Qt.MouseButton.LeftButton)
    assert document.result.view[0] == 42.0
    np.testing.assert_array_equal(document.result.view[1:], VALUES[1:])
    assert not shown(banner) and banner.message() == ""


def test_truncated_file_says_so_and_invalidates(qtbot, setup):
    path, document, banner = setup
    with qtbot.waitSignal(banner.filesInvalidated, timeout=5000):
        os.truncate(path, 100)
    expected = "data.bin shrank from 400 to 100 bytes; the view was cleared until you reload"
    qtbot.waitUntil(lambda: shown(banner), timeout=5000)
    assert banner.message() == expected
    assert banner.file_problem() == expected

    document.reload()  # reopened at its new size: nothing to report any more
    assert document.result.view.shape == (25,)
    assert not shown(banner) and banner.file_problem() is None


def test_deleted_file_says_so_and_invalidates(qtbot, setup):
    path, _document, banner = setup
    with qtbot.waitSignal(banner.filesInvalidated, timeout=5000):
        os.remove(path)
    qtbot.waitUntil(lambda: shown(banner), timeout=5000)
    assert banner.message() == "data.bin was deleted; the view was cleared until you reload"
    assert banner.file_problem() == banner.message()


def test_invalidated_is_emitted_once_per_change(qtbot, setup):
    path, _document, banner = setup
    emitted = []
    banner.filesInvalidated.connect(lambda: emitted.append(1))
    os.truncate(path, 100)
    qtbot.waitUntil(lambda: bool(emitted), timeout=5000)
    os.truncate(path, 50)
    qtbot.waitUntil(lambda: "to 50 bytes" in banner.message(), timeout=5000)
    assert emitted == [1]


def test_file_problem_checks_right_away(qtbot, setup):
    path, _document, banner = setup
    banner._watcher.removePaths(banner._watcher.files() + banner._watcher.directories())
    os.truncate(path, 8)  # no event will come: the watcher is off
    assert banner.file_problem() == ("data.bin shrank from 400 to 8 bytes; the view was cleared "
                                     "until you reload")
    with qtbot.waitSignal(banner.filesInvalidated, timeout=5000):
        pass  # the banner catches up from the event loop


def test_grown_file(qtbot, setup):
    path, _document, banner = setup
    with open(path, "ab") as f:
        f.write(b"\0" * 24)
    qtbot.waitUntil(lambda: shown(banner), timeout=5000)
    assert banner.message() == "data.bin grew from 400 to 424 bytes on disk"
    assert banner.file_problem() is None


def test_replaced_file_is_watched_again(qtbot, tmp_path, setup):
    path, _document, banner = setup
    new = tmp_path / "data.bin.new"
    (VALUES * 2).tofile(new)
    os.replace(new, path)  # an atomic save: the watched inode is gone from the path
    qtbot.waitUntil(lambda: shown(banner), timeout=5000)
    assert banner.message() == "data.bin was replaced on disk"
    assert banner.file_problem() is None  # the map still holds the old, intact file
    new_identity = (os.stat(path).st_dev, os.stat(path).st_ino)
    assert str(path) in banner._watcher.files() and banner._watched[str(path)] == new_identity

    qtbot.mouseClick(banner.dismiss_button, Qt.MouseButton.LeftButton)
    assert not shown(banner)
    (tmp_path / "unrelated.txt").write_text("x")  # a folder event alone does not re-show it
    qtbot.wait(100)
    assert not shown(banner)
    with open(path, "r+b") as f:  # the *new* file changes: its watch was added back
        f.write(b"\1")
    qtbot.waitUntil(lambda: shown(banner), timeout=5000)


def test_closing_the_files_stops_watching(setup):
    _path, document, banner = setup
    document.close_files()
    assert banner._watcher.files() == [] and banner._watcher.directories() == []
    assert banner.file_problem() is None


def test_deleted_then_recreated_file_is_noticed_through_the_folder(qtbot, setup):
    path, _document, banner = setup
    with qtbot.waitSignal(banner.filesInvalidated, timeout=5000):
        os.remove(path)
    VALUES.tofile(path)  # a new inode: only the folder watch can see this
    qtbot.waitUntil(lambda: banner.message() == "data.bin was replaced on disk", timeout=5000)
    assert banner.file_problem() is None
    assert banner._watched[str(path)] == (os.stat(path).st_dev, os.stat(path).st_ino)
