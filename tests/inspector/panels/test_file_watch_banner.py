"""FileWatchBanner: real files changed on disk (modified, grown, shrunk, deleted, replaced) and
the banner's message, Reload / Dismiss buttons, following the document's one change signal."""

import os

import numpy as np
import pytest
from PySide6.QtCore import Qt

from core.pipeline.pipeline import DecodeParams
from inspector.panels.file_watch_banner import FileWatchBanner
from inspector.state.document import Document

VALUES = np.arange(100, dtype=np.float32)  # 400 bytes
CLEARED = "; the view was cleared until you reload"


@pytest.fixture
def setup(qtbot, tmp_path):
    path = tmp_path / "data.bin"
    VALUES.tofile(path)
    document = Document()
    assert document.open_files([str(path)], DecodeParams(dtype="float32"))
    banner = FileWatchBanner(document)
    qtbot.addWidget(banner)
    yield path, document, banner
    document.close_files()


def shown(banner):
    return not banner.isHidden()


def bump_mtime(path):
    """Writes in the same clock tick may keep the mtime: move it explicitly."""
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_nothing_shown_while_the_file_is_unchanged(setup):
    _path, document, banner = setup
    assert document.changes_on_disk() is None
    assert not shown(banner) and banner.message() == ""


def test_modified_file_shows_the_banner_and_reload_refreshes(qtbot, setup):
    path, document, banner = setup
    with open(path, "r+b") as f:
        f.write(np.float32(42.0).tobytes())
    bump_mtime(path)
    qtbot.waitUntil(lambda: shown(banner), timeout=5000)
    assert banner.message() == "data.bin changed on disk" + CLEARED
    assert banner.reload_button.text() == "Reload"

    with qtbot.waitSignal(document.resultChanged, timeout=5000):
        qtbot.mouseClick(banner.reload_button, Qt.MouseButton.LeftButton)
    assert document.result.view[0] == 42.0
    np.testing.assert_array_equal(document.result.view[1:], VALUES[1:])
    assert not shown(banner) and banner.message() == ""


def test_truncated_file_says_so(qtbot, setup):
    path, document, banner = setup
    with qtbot.waitSignal(document.filesChangedOnDisk, timeout=5000) as blocker:
        os.truncate(path, 100)
    assert blocker.args[0].invalidates_view
    expected = "data.bin shrank from 400 to 100 bytes" + CLEARED
    assert shown(banner) and banner.message() == expected

    document.reload()  # reopened at its new size: nothing to report any more
    assert document.result.view.shape == (25,)
    assert not shown(banner) and document.changes_on_disk() is None


def test_deleted_file_says_so(qtbot, setup):
    path, _document, banner = setup
    os.remove(path)
    qtbot.waitUntil(lambda: shown(banner), timeout=5000)
    assert banner.message() == "data.bin was deleted" + CLEARED


def test_grown_file(qtbot, setup):
    path, _document, banner = setup
    with open(path, "ab") as f:
        f.write(b"\0" * 24)
    qtbot.waitUntil(lambda: shown(banner), timeout=5000)
    assert banner.message() == "data.bin grew from 400 to 424 bytes" + CLEARED


def test_replaced_file_keeps_the_view_and_dismiss_hides_until_it_changes_again(qtbot, tmp_path, setup):
    path, document, banner = setup
    new = tmp_path / "data.bin.new"
    (VALUES * 2).tofile(new)
    os.replace(new, path)  # an atomic save: the map still holds the old, intact file
    qtbot.waitUntil(lambda: shown(banner), timeout=5000)
    assert banner.message() == "data.bin was replaced on disk"
    assert not document.file_monitor.report().invalidates_view

    qtbot.mouseClick(banner.dismiss_button, Qt.MouseButton.LeftButton)
    assert not shown(banner)
    (tmp_path / "unrelated.txt").write_text("x")  # a folder event alone does not re-show it
    qtbot.wait(400)  # longer than the poll: an unchanged report is not emitted again
    assert not shown(banner)
    with open(path, "r+b") as f:  # the *new* file changes: its watch was moved to it
        f.write(b"\1")
    qtbot.waitUntil(lambda: shown(banner), timeout=5000)
    assert banner.message() == "data.bin was replaced on disk"


def test_several_changed_files_are_counted(qtbot, tmp_path):
    paths = [tmp_path / f"f{i}.bin" for i in range(3)]
    for p in paths:
        VALUES.tofile(p)
    document = Document()
    assert document.open_files([str(p) for p in paths], DecodeParams(dtype="float32"))
    banner = FileWatchBanner(document)
    qtbot.addWidget(banner)
    for p in paths[1:]:
        os.truncate(p, 8)
    with qtbot.waitSignal(document.filesChangedOnDisk, timeout=5000):
        report = document.changes_on_disk()
    assert banner.message() == report.message == (
        "f1.bin shrank from 400 to 8 bytes" + CLEARED + " (and 1 more file)")
    document.close_files()
