"""The raw-bytes view never depends on a container parser (core/cli/show.py, _container_hint):
after printing, the hint only sniffs the file's first bytes; a parser that raises or would hang
is never called, and a sniff that fails is a short note, never an error of the run."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import core.formats.registry as registry
from core.cli import main


def parsers_that_must_not_run(monkeypatch, calls):
    def parse(reader):  # stands in for a parser that raises or never returns
        calls.append(reader.path)
        raise AssertionError("a container parser ran for the raw view")

    monkeypatch.setattr(registry, "FORMATS", tuple(dataclasses.replace(f, list=parse) for f in registry.FORMATS))


@pytest.fixture
def damaged_npz(tmp_path):
    path = tmp_path / "d.npz"
    np.savez(path, a=np.arange(6, dtype=np.int16))
    data = bytearray(path.read_bytes())
    end = data.rindex(b"PK\x05\x06")
    data[end + 16:end + 20] = (2**31 - 5).to_bytes(4, "little")  # central directory offset: a lie
    path.write_bytes(bytes(data))
    return path


def test_raw_bytes_of_a_damaged_npz_print_without_the_parser(damaged_npz, monkeypatch, capsys):
    calls: list[str] = []
    parsers_that_must_not_run(monkeypatch, calls)
    assert main([str(damaged_npz), "--offset", "0", "--dtype", "uint8", "--limit", "4"]) == 0
    out, err = capsys.readouterr()
    assert out == f"shape: ({damaged_npz.stat().st_size},)\ndtype: uint8\n[80 75 ...  0  0]\n"
    assert calls == []
    assert err == (f"note: '{damaged_npz}' starts like a npz file, shown here as raw bytes: --list lists its "
                   "tensors, --tensor NAME shows one\n")


@pytest.mark.parametrize("make", ["hdf5", "tflite"])
def test_raw_bytes_of_other_containers_never_call_their_parser(tmp_path, monkeypatch, capsys, make):
    path = tmp_path / f"m.{make}"
    if make == "hdf5":
        h5py = pytest.importorskip("h5py")
        with h5py.File(path, "w") as f:
            f["x"] = np.arange(4.0)
    else:
        # the TFLite sniff: the flatbuffer identifier at bytes 4..8
        path.write_bytes(b"\x1c\x00\x00\x00TFL3" + bytes(56))
    calls: list[str] = []
    parsers_that_must_not_run(monkeypatch, calls)
    assert main([str(path), "--offset", "0", "--dtype", "uint8", "--limit", "2"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("shape: (") and calls == []
    assert err.startswith(f"note: '{path}' starts like a {make} file, shown here as raw bytes")


def test_a_sniff_that_fails_is_a_short_note(tmp_path, monkeypatch, capsys):
    def broken_sniff(head, size):
        raise RuntimeError("boom")

    monkeypatch.setattr(registry, "FORMATS", (dataclasses.replace(registry.FORMATS[0], sniff=broken_sniff),))
    path = tmp_path / "raw.bin"
    path.write_bytes(bytes(range(4)))
    assert main([str(path)]) == 0
    out, err = capsys.readouterr()
    assert out == "shape: (4,)\ndtype: uint8\n[0 1 2 3]\n"
    assert err == f"note: '{path}' was not checked for a container format (RuntimeError)\n"
