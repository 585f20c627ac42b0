"""core.files.checked_read: stat before open, bounded reads, special files refused."""

from __future__ import annotations

import hashlib
import os
import tracemalloc

import pytest

from core.errors import SourceError
from core.files.checked_read import HASH_BLOCK, file_sha256, read_capped, regular_file_stat


def test_the_hash_is_sha256_of_the_content(tmp_path):
    path = tmp_path / "a.bin"
    content = bytes(range(256)) * 5000  # 1.28 MB: more than one block
    path.write_bytes(content)
    assert file_sha256(str(path)) == hashlib.sha256(content).hexdigest()
    assert file_sha256(str(path), block_size=7) == hashlib.sha256(content).hexdigest()
    (tmp_path / "empty").write_bytes(b"")
    assert file_sha256(str(tmp_path / "empty")) == hashlib.sha256(b"").hexdigest()


def test_hashing_a_large_file_keeps_one_block_in_memory(tmp_path):
    path = tmp_path / "big.bin"
    with open(path, "wb") as out:
        out.truncate(64 * HASH_BLOCK)  # 64 MiB sparse
    tracemalloc.start()
    try:
        digest = file_sha256(str(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert digest == "3b6a07d0d404fab4e23b6d34bc6696a6a312dd92821332385e5af7c01c421351"  # sha256 of 64 MiB of zeros
    assert peak < 3 * HASH_BLOCK


def test_read_capped_reads_small_files_and_refuses_large_ones_unread(tmp_path):
    path = tmp_path / "s.json"
    path.write_bytes(b"x" * 100)
    assert read_capped(str(path), 100) == b"x" * 100
    with pytest.raises(SourceError, match=r"the session file '.*s\.json' is 101 bytes, more than the 100 bytes a session file may be; it was not read"):
        path.write_bytes(b"x" * 101)
        read_capped(str(path), 100, "session file")


@pytest.mark.parametrize("path, message", [
    ("/dev/zero", "is a character device, not a regular file"),
    ("/proc/self/status", "is in /proc, whose files are devices or pseudo-files"),
])
def test_special_files_are_refused(path, message):
    for function in (regular_file_stat, file_sha256, lambda p: read_capped(p, 10)):
        with pytest.raises(SourceError, match=message):
            function(path)


def test_missing_files_raise_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        regular_file_stat(str(tmp_path / "none"))
    with pytest.raises(FileNotFoundError):
        file_sha256(str(tmp_path / "none" / "deeper"))


def test_a_link_into_proc_is_refused(tmp_path):
    os.symlink("/proc/self/status", tmp_path / "link")
    with pytest.raises(SourceError, match="is in /proc"):
        regular_file_stat(str(tmp_path / "link"))
