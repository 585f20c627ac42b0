"""Operating-system limits give a message naming the file, the cause and the fix (issue 14, item 5).

Conditions that are impractical to create for real (a 100 TiB map, a device that refuses
``mmap``) are simulated by making ``mmap.mmap`` fail with that ``errno``; the descriptor limit is
real, lowered in a subprocess.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core import SourceError
from core.files import safe_open
from core.files.sources import open_source

ROOT = Path(__file__).resolve().parents[2]


def _mmap_failing_with(code: int):
    def fail(*args, **kwargs):
        raise OSError(code, os.strerror(code))
    return fail


def test_a_map_too_large_for_the_address_space_names_the_size_and_the_fix(tmp_path, monkeypatch):
    path = tmp_path / "huge.bin"
    with open(path, "wb") as handle:
        handle.truncate(1 << 40)  # 1 TiB, sparse (the file system here refuses 100 TiB)
    monkeypatch.setattr(safe_open.mmap, "mmap", _mmap_failing_with(errno.ENOMEM))
    with pytest.raises(SourceError) as caught:
        open_source(path)
    message = str(caught.value)
    assert message.startswith(f"'{path}' (1.0 TiB, 1099511627776 bytes) could not be memory-mapped: "
                              "not enough address space or memory")
    assert "dd if=BIG of=part.bin" in message and "ulimit -v unlimited" in message
    assert caught.value.field == "files"


def test_a_file_that_cannot_be_mapped_says_to_copy_it(tmp_path, monkeypatch):
    path = tmp_path / "attribute"
    path.write_bytes(b"x" * 4096)
    monkeypatch.setattr(safe_open.mmap, "mmap", _mmap_failing_with(errno.ENODEV))
    with pytest.raises(SourceError) as caught:
        open_source(path)
    assert str(caught.value) == (
        f"'{path}' cannot be memory-mapped (No such device): it is a special file, such as one in "
        f"/sys or /proc, whose size is not real (copy it to a regular file first, e.g. "
        f"cat '{path}' > copy.bin, and open the copy)")


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux /proc")
def test_a_proc_pseudo_file_says_its_size_is_not_real():
    assert os.stat("/proc/self/status").st_size == 0  # what made it look empty
    with pytest.raises(SourceError) as caught:
        open_source("/proc/self/status")
    assert str(caught.value) == (
        "'/proc/self/status' reports a size of 0 bytes but has content: it is a pseudo-file "
        "(such as one in /proc or /sys) and its size is not real (copy it to a regular file "
        "first, e.g. cat '/proc/self/status' > copy.bin, and open the copy)")


def test_an_empty_regular_file_still_opens_as_empty(tmp_path):
    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    with open_source(path) as source:
        assert source.data(0).size == 0


_OPEN_600 = textwrap.dedent("""
    import os, resource, sys
    from core.errors import SourceError
    from core.files.sources import open_source
    soft, hard = (int(x) for x in sys.argv[2:4])
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    paths = []
    for i in range(600):
        path = os.path.join(sys.argv[1], f"f{i:03d}.bin")
        with open(path, "wb") as handle:
            handle.write(bytes([i % 256]) * 8)
        paths.append(path)
    try:
        source = open_source(paths, record_size=8)
    except SourceError as error:
        print("error:", error)
    else:
        print("opened", len(source.files), source.data(599)[0],
              resource.getrlimit(resource.RLIMIT_NOFILE)[0])
""")


def _open_600(tmp_path: Path, soft: int, hard: int) -> str:
    import resource
    if resource.getrlimit(resource.RLIMIT_NOFILE)[1] not in (resource.RLIM_INFINITY,) and \
            resource.getrlimit(resource.RLIMIT_NOFILE)[1] < hard:
        pytest.skip("the hard descriptor limit here is below what the test needs")
    done = subprocess.run([sys.executable, "-c", _OPEN_600, str(tmp_path), str(soft), str(hard)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.stderr == ""
    return done.stdout.strip()


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_NOFILE is POSIX")
def test_600_files_open_when_the_soft_limit_is_low_but_the_hard_limit_allows(tmp_path):
    # 600 files x 2 descriptors + 64 spare = 1264: the soft limit is raised to that, not further.
    assert _open_600(tmp_path, 256, 4096) == "opened 600 87 1264"


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_NOFILE is POSIX")
def test_600_files_over_the_hard_limit_say_how_many_the_limit_and_the_fix(tmp_path):
    output = _open_600(tmp_path, 256, 256)
    assert output.startswith("error: too many open files while opening '")
    assert output.endswith(": 600 files need about 1264 file descriptors (two per file), and this "
                           "process may open 256 (its hard limit included); raise the limit before "
                           "starting, e.g. ulimit -n 1264, or open fewer files")
