"""File sources (docs/semantics.md §3): mapping, layouts, bad files, files changed under the map."""

from __future__ import annotations

import os
import stat
import sys

import numpy as np
import pytest

from core.errors import SourceError
from core.files.sources import open_source


def _write(path, data: bytes):
    path.write_bytes(data)
    return str(path)


@pytest.fixture
def opened():
    sources = []

    def _open(*args, **kwargs):
        source = open_source(*args, **kwargs)
        sources.append(source)
        return source

    yield _open
    for source in sources:
        source.close()


# -- layouts ----------------------------------------------------------------------------------
def test_whole_file_is_one_scalar_element_viewing_the_map(tmp_path, opened):
    path = _write(tmp_path / "a.bin", bytes(range(10)))
    source = opened(path)
    layout = source.layout()
    assert layout.input_shape == ()
    assert layout.arrays[0].shape == (10,) and layout.arrays[0].dtype == np.uint8
    assert layout.arrays[0].tolist() == list(range(10))
    assert np.shares_memory(layout.arrays[0], source.data(0))
    assert not layout.arrays[0].flags.writeable
    assert layout.trailing_bytes == (0,) and layout.starts == (0,)


def test_offset_and_record_size_split_the_rest_and_count_trailing_bytes(tmp_path, opened):
    path = _write(tmp_path / "a.bin", bytes(range(20)))
    layout = opened(path, offset=3, record_size=4).layout()
    assert layout.input_shape == (4,)
    assert layout.arrays[0].shape == (4, 4)
    assert layout.arrays[0][1].tolist() == [7, 8, 9, 10]
    assert layout.trailing_bytes == (1,)
    assert layout.element_lengths == (4,) and layout.record_size == 4


def test_layout_overrides_the_open_defaults(tmp_path, opened):
    source = opened(_write(tmp_path / "a.bin", bytes(12)), record_size=4)
    assert source.layout().input_shape == (3,)
    assert source.layout(record_size=None).input_shape == ()
    assert source.layout(offset=6, record_size=3).input_shape == (2,)


def test_offset_at_the_end_gives_an_empty_element(tmp_path, opened):
    layout = opened(_write(tmp_path / "a.bin", b"abc"), offset=3).layout()
    assert layout.arrays[0].shape == (0,)


def test_several_files_form_a_batch(tmp_path, opened):
    paths = [_write(tmp_path / f"{i}.bin", bytes([i]) * 8) for i in range(3)]
    source = opened(paths)
    assert source.layout().input_shape == (3,)
    assert source.layout(record_size=2).input_shape == (3, 4)


def test_several_files_with_different_record_counts_are_refused(tmp_path, opened):
    paths = [_write(tmp_path / "a.bin", bytes(8)), _write(tmp_path / "b.bin", bytes(12))]
    source = opened(paths)
    with pytest.raises(SourceError) as info:
        source.layout(record_size=4)
    assert str(info.value).startswith(
        f"the files hold different numbers of records of 4 bytes: '{paths[0]}' has 2, "
        f"'{paths[1]}' has 3 (")
    assert info.value.field == "record_size"


def test_empty_file_reads_as_empty_bytes(tmp_path, opened):
    source = opened(_write(tmp_path / "empty.bin", b""))
    assert source.data(0).shape == (0,)
    assert source.layout().arrays[0].shape == (0,)


def test_accepts_pathlike_and_single_path(tmp_path, opened):
    path = tmp_path / "a.bin"
    path.write_bytes(b"xy")
    assert opened(path).paths == (str(path),)
    assert opened([path, str(path)]).layout().input_shape == (2,)


# -- bad parameters ---------------------------------------------------------------------------
@pytest.mark.parametrize(("kwargs", "field", "pattern"), [
    ({"offset": -1}, "offset", r"^offset -1 is negative \(use 0 or more"),
    ({"offset": 11}, "offset", (r"^offset 11 is past the end of '.*a\.bin' \(10 bytes\) \(use an "
                               r"offset of at most 10\)")),
    ({"offset": 1.5}, "offset", r"^offset must be a whole number"),
    ({"record_size": 0}, "record_size", r"^record_size 0 must be greater than zero \("),
    ({"record_size": -4}, "record_size", r"^record_size -4 must be greater than zero \("),
    ({"record_size": 11}, "record_size", (r"^record_size 11 is larger than the 10 bytes of data in "
                                         r"'.*a\.bin' after offset 0 \(use a record size of at most 10")),
    ({"offset": 4, "record_size": 7}, "record_size", r"larger than the 6 bytes of data"),
])
def test_bad_offset_and_record_size(tmp_path, kwargs, field, pattern):
    path = _write(tmp_path / "a.bin", bytes(10))
    with pytest.raises(SourceError, match=pattern) as info:
        open_source(path, **kwargs)
    assert info.value.field == field


# -- bad files --------------------------------------------------------------------------------
def test_missing_file(tmp_path):
    with pytest.raises(SourceError, match=r"^'.*nope\.bin' does not exist \(check the path\)$") as info:
        open_source(str(tmp_path / "nope.bin"))
    assert info.value.field == "files"


def test_no_files():
    with pytest.raises(SourceError, match="no files given"):
        open_source([])


def test_directory(tmp_path):
    with pytest.raises(SourceError, match=r"is a directory, not a file \(choose a file inside it\)"):
        open_source(str(tmp_path))


def _forbid_opening(monkeypatch, forbidden: str):
    real_open = os.open

    def guarded(path, *args, **kwargs):
        assert os.fspath(path) != forbidden, "a non-regular file must never be opened"
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded)


def test_fifo_is_refused_without_being_opened(tmp_path, monkeypatch):
    fifo = str(tmp_path / "pipe")
    os.mkfifo(fifo)
    _forbid_opening(monkeypatch, fifo)
    with pytest.raises(SourceError, match=r"is a named pipe \(FIFO\), not a regular file") as info:
        open_source(fifo)
    assert info.value.field == "files"


@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero"])
def test_devices_are_refused_without_being_opened(device, monkeypatch):
    if not os.path.exists(device) or not stat.S_ISCHR(os.stat(device).st_mode):
        pytest.skip(f"{device} is not a character device here")
    _forbid_opening(monkeypatch, device)
    with pytest.raises(SourceError, match=rf"^'{device}' is a character device, not a regular file"):
        open_source(device)


def test_permission_denied_via_a_refusing_open(tmp_path, monkeypatch):
    path = _write(tmp_path / "secret.bin", b"x")

    def refuse(name, *args, **kwargs):
        raise PermissionError(13, "Permission denied", name)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(SourceError, match=r"^permission denied reading '.*secret\.bin' \(make the "
                                          r"file readable"):
        open_source(path)


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0,
                    reason="root reads files whatever their mode")
def test_permission_denied_for_real(tmp_path):
    path = tmp_path / "secret.bin"
    path.write_bytes(b"x")
    path.chmod(0)
    with pytest.raises(SourceError, match="permission denied"):
        open_source(str(path))


def test_bad_file_among_several_closes_the_opened_ones(tmp_path, monkeypatch):
    good = _write(tmp_path / "good.bin", b"ab")
    closed = []
    real_close = os.close
    monkeypatch.setattr(os, "close", lambda fd: (closed.append(fd), real_close(fd)))
    with pytest.raises(SourceError, match="does not exist"):
        open_source([good, str(tmp_path / "missing.bin")])
    assert len(closed) == 1


# -- files changed under the map --------------------------------------------------------------
def test_unchanged_file_passes(tmp_path, opened):
    opened(_write(tmp_path / "a.bin", bytes(100))).check_unchanged()


def test_truncated_file_is_detected_before_any_page_is_read(tmp_path, opened):
    path = _write(tmp_path / "a.bin", bytes(100))
    source = opened(path)
    os.truncate(path, 50)
    with pytest.raises(SourceError) as info:
        source.check_unchanged()
    assert str(info.value) == (f"'{path}' changed on disk since it was opened "
                               "(size 100 -> 50 bytes) (reload it)")
    assert info.value.field == "files"


def test_grown_file_is_detected(tmp_path, opened):
    path = _write(tmp_path / "a.bin", bytes(10))
    source = opened(path)
    with open(path, "ab") as f:
        f.write(b"more")
    with pytest.raises(SourceError, match=r"size 10 -> 14 bytes"):
        source.check_unchanged()


def test_rewritten_file_with_same_size_is_detected_by_mtime(tmp_path, opened):
    path = _write(tmp_path / "a.bin", bytes(10))
    source = opened(path)
    info = os.stat(path)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 5_000_000_000))
    with pytest.raises(SourceError, match=r"\(it was modified\) \(reload it\)"):
        source.check_unchanged()


def test_replaced_file_is_detected(tmp_path, opened):
    path = _write(tmp_path / "a.bin", bytes(10))
    source = opened(path)
    other = _write(tmp_path / "b.bin", bytes(10))
    os.replace(other, path)
    with pytest.raises(SourceError, match="replaced by another file"):
        source.check_unchanged()


def test_deleted_file_is_detected(tmp_path, opened):
    path = _write(tmp_path / "a.bin", bytes(10))
    source = opened(path)
    os.remove(path)
    with pytest.raises(SourceError, match="deleted or moved"):
        source.check_unchanged()


def test_closed_source_refuses_use(tmp_path):
    source = open_source(_write(tmp_path / "a.bin", bytes(4)))
    view = source.layout().arrays[0]  # a live view keeps the map valid after close
    source.close()
    assert source.closed
    assert view.tolist() == [0, 0, 0, 0]
    with pytest.raises(SourceError, match="closed"):
        source.check_unchanged()
    with pytest.raises(SourceError, match="closed"):
        source.layout()


def test_context_manager_closes(tmp_path):
    with open_source(_write(tmp_path / "a.bin", bytes(4))) as source:
        assert not source.closed
    assert source.closed


# -- huge sparse file -------------------------------------------------------------------------
def test_eight_gib_sparse_file_maps_without_reading(tmp_path, opened):
    path = tmp_path / "huge.bin"
    with open(path, "wb") as f:
        f.truncate(8 << 30)
    source = opened(str(path), record_size=1 << 20)
    layout = source.layout()
    assert layout.input_shape == (8192,)
    record = layout.arrays[0][4096]
    assert np.shares_memory(record, source.data(0))
    assert int(record[:16].max()) == 0
