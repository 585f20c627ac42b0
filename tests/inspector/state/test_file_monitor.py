"""FileMonitor: the one change detector (watcher, poll, per-event SIGBUS guard) of the document."""

import os

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject

from core.pipeline.pipeline import DecodeParams
from inspector.state.document import Document


def open_document(paths, **params):
    document = Document()
    assert document.open_files([str(p) for p in paths], DecodeParams(**params))
    return document


def send_events(count, kind=QEvent.Type.UpdateRequest):
    """``count`` events of a kind during which a widget may read mapped bytes (a repaint)."""
    target = QObject()
    for _ in range(count):
        QCoreApplication.sendEvent(target, QEvent(kind))


class CountingStat:
    """Counts os.stat / os.fstat calls (the only calls the checks make) on the given files.

    Only calls on ``files`` (paths or descriptors) count: documents of other tests that are
    still alive in the same process have monitors of their own.
    """

    def __init__(self, monkeypatch, files=None):
        self.calls = {"stat": 0, "fstat": 0}
        for name in self.calls:
            real = getattr(os, name)

            def counting(target, *args, _real=real, _name=name, **kwargs):
                if files is None or target in files or (not isinstance(target, int) and os.fspath(target) in files):
                    self.calls[_name] += 1
                return _real(target, *args, **kwargs)

            monkeypatch.setattr(os, name, counting)


def test_the_per_event_guard_costs_one_fstat_whatever_the_number_of_files(qtbot, tmp_path,
                                                                         monkeypatch):
    paths = []
    for i in range(200):
        paths.append(tmp_path / f"f{i:03}.bin")
        paths[-1].write_bytes(bytes(range(64)))
    document = open_document(paths, record_size=64)
    source = document.pipeline.source
    ours = {str(p) for p in paths} | {os.fspath(p) for p in source.paths} | set(source._fds)
    counter = CountingStat(monkeypatch, ours)
    send_events(50)
    assert counter.calls == {"stat": 0, "fstat": 50}  # one descriptor per event, in turn
    send_events(50, QEvent.Type.User)  # bookkeeping events read no mapped bytes: no check
    assert counter.calls == {"stat": 0, "fstat": 50}
    document.close_files()


def test_the_per_event_guard_finds_a_shrink_within_one_round(qtbot, tmp_path):
    paths = []
    for i in range(200):
        paths.append(tmp_path / f"f{i:03}.bin")
        np.full(2048, i, dtype="<f4").tofile(paths[-1])  # 8 KiB: two pages
    document = open_document(paths, dtype="float32")
    mapped = document.pipeline.source.data(150)  # a view of the map, as a table would hold
    os.truncate(paths[150], 0)
    with qtbot.waitSignal(document.filesChangedOnDisk, timeout=5000) as blocker:
        send_events(200)  # the guard has checked (and protected) every file once now
        assert mapped[8191] == 0  # a page past the new end reads zeros: no SIGBUS
    assert blocker.args[0].message == (
        "f150.bin shrank from 8,192 to 0 bytes; the view was cleared until you reload")
    assert document.error.message == (
        f"'{paths[150]}' changed on disk since it was opened (size 8192 -> 0 bytes) (reload it)")
    document.close_files()


def test_check_now_finds_a_change_without_any_event(qtbot, tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(400))
    document = open_document([path])
    monitor = document.file_monitor
    monitor.watch(document.pipeline.source)
    monitor._watcher.removePaths(monitor.watched_paths())  # no file-system event will come
    os.truncate(path, 8)
    with qtbot.waitSignal(document.filesChangedOnDisk, timeout=1000):
        report = document.changes_on_disk()
    assert [(c.kind, c.old_size, c.new_size) for c in report.changes] == [("shrank", 400, 8)]
    assert monitor.report() == report
    document.close_files()


def test_closing_the_files_stops_watching(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(8))
    document = open_document([path])
    assert set(document.file_monitor.watched_paths()) == {str(path), str(tmp_path)}
    document.close_files()
    assert document.file_monitor.watched_paths() == []
    assert document.changes_on_disk() is None


def test_a_deleted_then_recreated_file_is_watched_again(qtbot, tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(8))
    document = open_document([path])
    with qtbot.waitSignal(document.filesChangedOnDisk, timeout=5000) as blocker:
        os.remove(path)
    assert blocker.args[0].changes[0].kind == "deleted"
    path.write_bytes(bytes(8))  # a new inode: only the folder watch can see it
    qtbot.waitUntil(lambda: document.file_monitor.report().changes[0].kind == "replaced",
                    timeout=5000)
    assert document.file_monitor._watched[str(path)] == (os.stat(path).st_dev,
                                                         os.stat(path).st_ino)
    document.close_files()


@pytest.mark.parametrize("poll_ms", [50])
def test_the_poll_notices_without_a_watcher(qtbot, tmp_path, poll_ms):
    from inspector.state.file_monitor import FileMonitor

    path = tmp_path / "data.bin"
    path.write_bytes(bytes(16))
    document = open_document([path])
    monitor = FileMonitor(poll_ms=poll_ms)
    monitor.watch(document.pipeline.source)
    monitor._watcher.removePaths(monitor.watched_paths())
    with open(path, "r+b") as f:
        f.write(b"\1")
    os.utime(path, ns=(0, 10**9))
    with qtbot.waitSignal(monitor.changed, timeout=5000) as blocker:
        pass
    assert blocker.args[0].changes[0].kind == "modified"
    monitor.watch(None)
    document.close_files()


def test_there_is_one_file_system_watcher():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    users = []
    for folder, _dirs, files in os.walk(os.path.join(root, "inspector")):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    if "QFileSystemWatcher(" in f.read():
                        users.append(os.path.relpath(os.path.join(folder, name), root))
    assert users == [os.path.join("inspector", "state", "file_monitor.py")]


def test_a_batch_of_thousands_of_files_is_polled_in_bounded_steps(qtbot, tmp_path, monkeypatch):
    # Issue 30 item 19: 9,000 files made every 250 ms poll cost ~1 s (a list membership test per
    # file). Now the poll's interval grows with the count (250 ms per 512 files) and one poll
    # moves the watches of 512 files only, in turn; the changes of all are still compared.
    from inspector.state import file_monitor

    paths = []
    for i in range(1200):
        paths.append(tmp_path / f"f{i:04}.bin")
        paths[-1].write_bytes(bytes(8))
    document = open_document(paths, record_size=8)
    monitor = document.file_monitor
    assert monitor.poll_interval() == 3 * file_monitor.POLL_MS  # ceil(1200 / 512) = 3 steps
    names = {str(p) for p in paths}
    stats = []
    real_identity = file_monitor.path_identity
    monkeypatch.setattr(file_monitor, "path_identity",
                        lambda path: (stats.append(path) if path in names else None) or real_identity(path))
    monitor._poll.timeout.emit()  # one poll
    assert len(stats) == file_monitor.FILES_PER_POLL
    assert stats == [str(p) for p in paths[:512]]
    stats.clear()
    monitor._poll.timeout.emit()
    monitor._poll.timeout.emit()  # the third step wraps round to the first files
    assert stats == [str(p) for p in paths[512:1200] + paths[:336]]
    paths[700].write_bytes(bytes(9))  # a change is found by any poll, whichever files it re-watches
    with qtbot.waitSignal(monitor.changed, timeout=5_000) as changed:
        monitor._poll.timeout.emit()
    assert [c.path for c in changed.args[0].changes] == [str(paths[700])]
    document.close_files()
