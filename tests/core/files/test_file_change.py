"""file_change and shrink_guard: the one rule of what changed on disk, the one SIGBUS guard, and
FileSource reading through them (real files, changed as other programs would change them)."""

import os

import numpy as np
import pytest

import core.files.shrink_guard as shrink_guard
from core.errors import SourceError
from core.files.file_change import ChangeReport, detect_change, path_identity
from core.files.sources import open_source

CLEARED = "; the view was cleared until you reload"


@pytest.fixture
def opened(tmp_path):
    sources = []

    def open_(*contents):
        paths = []
        for i, data in enumerate(contents):
            paths.append(tmp_path / f"f{i}.bin")
            paths[-1].write_bytes(data)
        sources.append(open_source([str(p) for p in paths]))
        return sources[-1], paths

    yield open_
    for source in sources:
        source.close()


def the_change(source, index=0):
    return detect_change(source.files[index], source._fds[index])


def bump_mtime(path):
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_an_unchanged_file_has_no_change(opened):
    source, _ = opened(bytes(10))
    assert the_change(source) is None and source.changes() == ()
    source.check_unchanged()


@pytest.mark.parametrize("how, kind, detail, summary, invalidates", [
    ("shrink", "shrank", "size 4096 -> 100 bytes",
     "f0.bin shrank from 4,096 to 100 bytes" + CLEARED, True),
    ("grow", "grew", "size 4096 -> 4100 bytes", "f0.bin grew from 4,096 to 4,100 bytes" + CLEARED,
     True),
    ("rewrite", "modified", "it was modified", "f0.bin changed on disk" + CLEARED, True),
    ("delete", "deleted", "it was deleted or moved", "f0.bin was deleted" + CLEARED, True),
    ("replace", "replaced", "it was replaced by another file", "f0.bin was replaced on disk", False),
    ("fifo", "replaced", "it was replaced by another file", "f0.bin was replaced on disk", False),
])
def test_each_kind_of_change(opened, tmp_path, how, kind, detail, summary, invalidates):
    source, [path] = opened(bytes(range(256)) * 16)
    if how == "shrink":
        os.truncate(path, 100)
    elif how == "grow":
        with open(path, "ab") as f:
            f.write(b"1234")
    elif how == "rewrite":
        with open(path, "r+b") as f:
            f.write(b"\xff")
        bump_mtime(path)
    elif how == "delete":
        os.remove(path)
    elif how == "replace":
        (tmp_path / "new").write_bytes(bytes(4096))
        os.replace(tmp_path / "new", path)
    else:  # a FIFO in its place: only stat'ed, never opened (this would block otherwise)
        os.remove(path)
        os.mkfifo(path)
    change = the_change(source)
    assert (change.kind, change.detail, change.summary, change.invalidates_view) == (
        kind, detail, summary, invalidates)
    with pytest.raises(SourceError) as caught:
        source.check_unchanged()
    assert str(caught.value) == f"'{path}' changed on disk since it was opened ({detail}) (reload it)"


def test_a_closed_descriptor_is_reported(opened):
    source, _ = opened(bytes(10))
    info = source.files[0]
    source.close()
    change = detect_change(info, 999_999)
    assert (change.kind, change.summary) == ("closed", "f0.bin can no longer be read" + CLEARED)


def test_the_report_names_the_first_invalidating_change_and_counts_the_rest(opened, tmp_path):
    source, paths = opened(bytes(8), bytes(8), bytes(8))
    (tmp_path / "new").write_bytes(bytes(8))
    os.replace(tmp_path / "new", paths[0])  # replaced: listed first, but harmless
    os.truncate(paths[2], 2)
    report = ChangeReport.of(source.changes())
    assert [c.kind for c in report.changes] == ["replaced", "shrank"]
    assert report.invalidates_view
    assert report.message == "f2.bin shrank from 8 to 2 bytes" + CLEARED + " (and 1 more file)"
    assert ChangeReport.of([None, None]) is None


def test_path_identity(tmp_path):
    path = tmp_path / "a"
    path.write_bytes(b"x")
    assert path_identity(str(path)) == (os.stat(path).st_dev, os.stat(path).st_ino)
    assert path_identity(str(tmp_path / "missing")) is None


def test_bytes_at_reads_the_file_as_opened(opened, tmp_path):
    source, [path] = opened(bytes([1, 0, 2, 1]))
    assert source.bytes_at(0, 2, 2) == b"\x02\x01" and source.file_size(0) == 4
    assert source.bytes_at(0, 3, 10) == b"\x01" and source.bytes_at(0, -5, 1) == b"\x01"
    (tmp_path / "new").write_bytes(b"\xaa" * 4)
    os.replace(tmp_path / "new", path)
    assert source.bytes_at(0, 0, 4) == bytes([1, 0, 2, 1])  # the map, like every view
    source.close()
    with pytest.raises(SourceError, match="the files were closed"):
        source.bytes_at(0, 0, 1)


def test_a_shrunk_file_reads_zeros_and_is_remapped_once_per_smaller_size(opened, monkeypatch):
    source, [path] = opened(bytes([7]) * 3 * 4096)  # three pages
    calls = []
    real = shrink_guard.zero_fill_past
    monkeypatch.setattr(shrink_guard, "zero_fill_past",
                        lambda data, old, new: calls.append((old, new)) or real(data, old, new))
    mapped = source.data(0)
    os.truncate(path, 5000)  # page 2 (bytes 8192..12287) now lies wholly past the end
    assert source.bytes_at(0, 12287, 1) == b"\x00"  # would SIGBUS unprotected
    assert source.bytes_at(0, 0, 2) == b"\x07\x07"
    for _ in range(5):
        assert source.protect_shrunk() == (
            f"'{path}' changed on disk since it was opened (size 12288 -> 5000 bytes) (reload it)")
    os.truncate(path, 10)
    source.shrink_guard.protect_all()
    assert calls == [(12288, 5000), (12288, 10)]  # not once per check
    assert mapped[4096] == 0 and int(np.count_nonzero(mapped[4096:])) == 0


def test_protect_next_checks_one_file_per_call_in_turn(opened, monkeypatch):
    source, paths = opened(bytes(8), bytes(8), bytes(8))
    os.truncate(paths[1], 0)
    checked = []
    real = os.fstat
    monkeypatch.setattr(os, "fstat", lambda fd: checked.append(fd) or real(fd))
    found = [source.shrink_guard.protect_next() for _ in range(4)]
    assert checked == [source._fds[0], source._fds[1], source._fds[2], source._fds[0]]
    assert [bool(message) for message in found] == [False, True, False, False]
