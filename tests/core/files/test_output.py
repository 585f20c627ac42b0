"""Output files: never onto an input, never to a FIFO or device, replaced only when complete."""

import os

import pytest

from core.errors import ExportError
from core.files.output import check_destination, write_atomically


def test_a_new_file_is_written_with_the_bytes_given(tmp_path):
    target = tmp_path / "out.bin"
    assert write_atomically(target, lambda out: out.write(b"abc")) == 3
    assert target.read_bytes() == b"abc"
    assert os.listdir(tmp_path) == ["out.bin"]


def test_a_failed_write_leaves_the_existing_file_and_no_temporary(tmp_path):
    target = tmp_path / "out.bin"
    target.write_bytes(b"precious")

    def fail(out):
        out.write(b"half")
        raise OSError(28, "No space left on device")

    with pytest.raises(ExportError, match="No space left on device.*free space"):
        write_atomically(target, fail)
    assert target.read_bytes() == b"precious"
    assert os.listdir(tmp_path) == ["out.bin"]


def test_an_interruption_propagates_and_leaves_the_existing_file(tmp_path):
    target = tmp_path / "out.bin"
    target.write_bytes(b"precious")

    def interrupted(out):
        out.write(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, interrupted)
    assert target.read_bytes() == b"precious"
    assert os.listdir(tmp_path) == ["out.bin"]


def test_the_inspected_file_is_refused_through_links(tmp_path):
    source = tmp_path / "data.bin"
    source.write_bytes(b"\x01\x02")
    hard = tmp_path / "hard.bin"
    os.link(source, hard)
    soft = tmp_path / "soft.png"
    soft.symlink_to(source)
    dotted = tmp_path / "sub" / ".." / "data.bin"
    (tmp_path / "sub").mkdir()
    for destination in (source, hard, soft, dotted):
        with pytest.raises(ExportError, match="file being inspected") as info:
            write_atomically(destination, lambda out: out.write(b"x"), [source])
        assert info.value.field == "path"
    assert source.read_bytes() == b"\x01\x02"


def test_fifos_devices_and_directories_are_refused(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ExportError, match="not a regular file"):
        check_destination(fifo)
    with pytest.raises(ExportError, match="not a regular file"):
        check_destination("/dev/null")
    with pytest.raises(ExportError, match="is a directory"):
        check_destination(tmp_path)
    with pytest.raises(ExportError, match="No output file name"):
        check_destination("")


def test_a_replaced_file_keeps_its_permission_bits(tmp_path):
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    os.chmod(target, 0o600)
    write_atomically(target, lambda out: out.write(b"new"))
    assert target.read_bytes() == b"new"
    assert os.stat(target).st_mode & 0o777 == 0o600
