"""Hostile container files: lying lengths, offsets out of range or overlapping, huge headers and
counts, truncation, zip bombs. Each gives a clear message naming the container (and the entry),
the other entries stay usable, and nothing large is read or allocated."""

from __future__ import annotations

import json
import struct
import time
import zipfile

import numpy as np
import pytest

from core.cli import main
from core.errors import ContainerError
from core.files.sources import open_source
from core.formats.entry import Storage, find_entry
from core.formats.reader import HeaderReader
from core.formats.registry import list_container, list_file
from core.pipeline.pipeline import Pipeline


@pytest.fixture
def shown():
    """``shown(path, name)``: the entry's values through the pipeline (a copy), and the result."""
    def show(path, name):
        entry = find_entry(list_file(str(path)), name)
        with Pipeline([str(path)]) as pipeline:
            result = pipeline.run(entry.params())
            return np.array(result.view), result
    return show


def _safetensors(path, header: dict | str, data: bytes = b"", length: int | None = None):
    text = (header if isinstance(header, str) else json.dumps(header)).encode()
    path.write_bytes(struct.pack("<Q", len(text) if length is None else length) + text + data)
    return path


GOOD = {"ok": {"dtype": "I16", "shape": [2], "data_offsets": [0, 4]}}


# -- safetensors -----------------------------------------------------------------------------
@pytest.mark.parametrize(("length", "message"), [
    (10**6, r"the header length says 1000000 bytes but only 92 follow it"),
    (2**63, r"the header length says 9223372036854775808 bytes, more than the 100,000,000 bytes a header "
            r"may have"),
])
def test_safetensors_lying_header_length(tmp_path, length, message):
    path = tmp_path / "lie.safetensors"
    path.write_bytes(struct.pack("<Q", length) + json.dumps(GOOD).encode().ljust(92))
    with pytest.raises(ContainerError, match=rf"^the safetensors file '.*lie.safetensors' at byte "
                       rf"0: {message} \((the file is truncated or corrupt|the file is corrupt or "
                       r"not safetensors); open it as raw bytes with an explicit offset\)$"):
        list_file(str(path))


@pytest.mark.parametrize(("header", "message"), [
    ('{"a": ', r"the header is not valid UTF-8 JSON"),
    ('{"a": 1}}', r"the header is not valid UTF-8 JSON \(Extra data"),
    ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", r"the header is not valid UTF-8 JSON"),
])
def test_safetensors_corrupt_json(tmp_path, header, message):
    path = _safetensors(tmp_path / "bad.safetensors", header)
    with pytest.raises(ContainerError, match=message):
        list_file(str(path))


def test_safetensors_bad_entries_leave_the_others_usable(tmp_path, shown):
    header = {
        **GOOD,
        "past_end": {"dtype": "F32", "shape": [4], "data_offsets": [4, 20]},
        "negative": {"dtype": "F32", "shape": [1], "data_offsets": [-4, 0]},
        "lying_shape": {"dtype": "F32", "shape": [2**62, 2**62], "data_offsets": [0, 4]},
        "not_a_dict": 5,
        "bad_shape": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]},
        "unknown_type": {"dtype": "Q9", "shape": [1], "data_offsets": [0, 1]},
    }
    path = _safetensors(tmp_path / "mixed.safetensors", header, np.array([7, -7], "<i2").tobytes())
    listing = list_file(str(path))
    problems = {e.name: e.problem for e in listing.entries}
    assert problems["ok"] is None
    data_start = path.stat().st_size - 4
    assert problems["past_end"] == (
        f"safetensors tensor 'past_end': its data_offsets [4, 20] are outside the data area (bytes "
        f"0 to 4 after the header, i.e. file bytes {data_start} to {data_start + 4}) (the file is "
        "truncated or corrupt)")
    assert "are outside the data area" in problems["negative"]
    assert problems["lying_shape"] == (
        "safetensors tensor 'lying_shape': its shape (4611686018427387904, 4611686018427387904) of "
        "F32 needs 85070591730234615865843651857942052864 bytes but its data_offsets [0, 4] hold "  # 2**126
        "4 (the file is corrupt)")
    assert "is not a JSON object" in problems["not_a_dict"]
    assert "is not a list of non-negative integers" in problems["bad_shape"]
    assert "'Q9' is not a safetensors type the engine knows" in problems["unknown_type"]
    for name in ("past_end", "lying_shape"):
        with pytest.raises(ContainerError, match=f"safetensors tensor '{name}'"):
            find_entry(listing, name).params()
    values, _ = shown(path, "ok")
    assert values.tolist() == [7, -7]


def test_safetensors_overlapping_tensors_are_reported(tmp_path, shown):
    header = {"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
              "b": {"dtype": "U8", "shape": [2], "data_offsets": [2, 4]}}
    path = _safetensors(tmp_path / "overlap.safetensors", header, bytes([1, 2, 3, 4]))
    listing = list_file(str(path))
    start = path.stat().st_size - 4
    assert listing.problems == (f"safetensors tensors 'a' and 'b' overlap at byte {start + 2} (the "
                                "file is corrupt or hand-made; each shows its own bytes)",)
    assert shown(path, "b")[0].tolist() == [3, 4]


# -- npz -------------------------------------------------------------------------------------
def test_npz_truncated_directory(tmp_path):
    path = tmp_path / "cut.npz"
    np.savez(path, a=np.arange(10))
    path.write_bytes(path.read_bytes()[:-30])
    with pytest.raises(ContainerError, match=r"^the npz file '.*cut.npz': its zip directory cannot "
                       r"be read \(.*\) \(the file is truncated or corrupt; open it as raw bytes "
                       r"with an explicit offset\)$"):
        list_file(str(path))


def _patch_header_offset(path, member: str, new_offset: int) -> None:
    """Point the central directory entry of ``member`` at ``new_offset`` (no zip64 extra)."""
    content = bytearray(path.read_bytes())
    index = 0
    while True:
        at = content.find(b"PK\x01\x02", index)
        name_length = struct.unpack("<H", content[at + 28:at + 30])[0]
        if content[at + 46:at + 46 + name_length] == member.encode():
            content[at + 42:at + 46] = struct.pack("<I", new_offset)
            break
        index = at + 4
    path.write_bytes(bytes(content))


def test_npz_member_offsets_out_of_range_or_circular(tmp_path, shown):
    path = tmp_path / "bad.npz"
    with zipfile.ZipFile(path, "w") as archive:  # the stdlib writer, no zip64 extras
        for name in ("good", "far", "loop"):
            with archive.open(f"{name}.npy", "w") as member:
                np.lib.format.write_array(member, np.arange(3, dtype="<i4"))
    directory = path.read_bytes().find(b"PK\x01\x02")
    _patch_header_offset(path, "far.npy", 10**9)
    _patch_header_offset(path, "loop.npy", directory)  # points into the directory itself
    problems = {e.name: e.problem for e in list_file(str(path)).entries}
    assert problems["good"] is None
    size = path.stat().st_size
    assert problems["far"] == ("npz member 'far.npy': its directory entry's local header offset "
                               "field is 1000000000, so the local header would be at byte "
                               f"1000000000; it must be between 0 and {size - 30} (the file has "
                               f"{size} bytes): the zip directory is corrupt")
    assert problems["loop"] == (f"npz member 'loop.npy': no local file header at byte {directory} "
                                "(the zip is corrupt)")
    assert shown(path, "good")[0].tolist() == [0, 1, 2]


def test_npz_zip_bomb_costs_nothing(tmp_path):
    path = tmp_path / "bomb.npz"
    np.savez_compressed(path, zeros=np.zeros(20_000_000, dtype=np.uint8))  # 20 MB -> ~20 KB
    assert path.stat().st_size < 100_000
    started = time.perf_counter()
    with open_source(str(path)) as source:
        reader = HeaderReader(source, 0, "npz")
        listing = list_container(reader)
    assert time.perf_counter() - started < 1.0
    assert reader.consumed < path.stat().st_size  # the compressed data is never read
    assert listing.entries[0].storage is Storage.COPY  # a copy made only when asked


def test_npz_member_with_a_corrupt_npy_header(tmp_path):
    path = tmp_path / "h.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("x.npy", b"\x93NUMPY\x01\x00\xff\x00{")
    [entry] = list_file(str(path)).entries
    assert entry.problem == (f"npz member 'x.npy': '{path}:x.npy' is not a usable .npy file: the "
                             "header ends at byte 265 but the file has 11 bytes (the file is "
                             "truncated: save it again)")


# -- WAV / AIFF ------------------------------------------------------------------------------
def _riff(chunks: bytes) -> bytes:
    return b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WAVE" + chunks


def _fmt(channels: int = 1, block_align: int = 2, bits: int = 16) -> bytes:
    body = struct.pack("<HHIIHH", 1, channels, 8000, 8000 * block_align, block_align, bits)
    return b"fmt " + struct.pack("<I", len(body)) + body


def test_wav_data_chunk_longer_than_the_file(tmp_path, shown):
    path = tmp_path / "lie.wav"
    path.write_bytes(_riff(_fmt() + b"data" + struct.pack("<I", 0xFFFFFFF0)
                           + np.array([1, -1, 3], "<i2").tobytes()))
    listing = list_file(str(path))
    assert listing.problems == ("WAV data chunk: says 4294967280 bytes but only 6 follow byte 44 "
                                "(the file is truncated or still being written); listing what is "
                                "there",)
    assert shown(path, "samples")[0].tolist() == [[1], [-1], [3]]


def test_wav_with_too_many_chunks(tmp_path):
    path = tmp_path / "many.wav"
    path.write_bytes(_riff(b"junk\x00\x00\x00\x00" * 10_001 + _fmt()))
    with pytest.raises(ContainerError, match=r"more than 10000 chunks"):
        list_file(str(path))


def test_wav_without_data_or_with_zero_channels(tmp_path):
    path = tmp_path / "nodata.wav"
    path.write_bytes(_riff(_fmt()))
    with pytest.raises(ContainerError, match=r"^the wav file '.*nodata.wav' at byte 12: no 'data' "
                       r"chunk \(the file is corrupt or not a WAV file\)$"):
        list_file(str(path))
    path.write_bytes(_riff(_fmt(channels=0) + b"data\x02\x00\x00\x00\x01\x02"))
    [entry] = list_file(str(path)).entries
    assert entry.problem == ("WAV samples: the header says 0 channels in frames of 2 bytes, which "
                             "does not divide (the file is corrupt)")


def test_aiff_without_samples(tmp_path):
    path = tmp_path / "x.aiff"
    comm = struct.pack(">hIh", 1, 5, 16) + bytes(10)
    body = b"AIFF" + b"COMM" + struct.pack(">I", len(comm)) + comm
    path.write_bytes(b"FORM" + struct.pack(">I", len(body)) + body)
    with pytest.raises(ContainerError, match=r"no 'SSND' chunk"):
        list_file(str(path))


# -- HDF5 ------------------------------------------------------------------------------------
def test_truncated_hdf5(tmp_path):
    h5py = pytest.importorskip("h5py")
    path = tmp_path / "cut.h5"
    with h5py.File(path, "w") as out:
        out.create_dataset("x", data=np.arange(1000))
    path.write_bytes(path.read_bytes()[:1000])
    with pytest.raises(ContainerError, match=r"^the hdf5 file '.*cut.h5': the HDF5 library cannot "
                       r"open it \(.*\) \(the file is truncated or corrupt\)$"):
        list_file(str(path))


# -- the command line ------------------------------------------------------------------------
def test_the_command_gives_one_line_for_a_hostile_container(tmp_path, capsys):
    path = _safetensors(tmp_path / "lie.safetensors", GOOD, bytes(4), length=10**6)
    assert main([str(path), "--list"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: the safetensors file")
    assert main([str(path), "--tensor", "ok"]) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("fixture, good", [("npz_mutant_empty_name_1.npz", "b"),
                                           ("npz_mutant_empty_name_2.npz", "a")])
def test_npz_mutants_with_an_empty_member_name(tmp_path, fixture, good):
    """Issue 30 item 14: mutants of a two-member npz (from a seeded mutation loop) whose
    directory gives a member an empty name; main escaped 'string index out of range'."""
    import pathlib
    import shutil

    path = tmp_path / "mutant.npz"
    shutil.copy(pathlib.Path(__file__).parent / "fixtures" / fixture, path)
    entries = {e.name: e for e in list_file(str(path)).entries}
    assert sorted(entries) == sorted(["", good])
    assert entries[""].problem == ("npz member '': its name in the zip directory is empty, so "
                                   "np.load has no key for it (the zip directory is corrupt)")
    assert entries[good].readable


@pytest.mark.parametrize("fixture, problem", [
    ("hdf5_mutant_attributes_1.h5", "Can't synchronously read data (actual len exceeds EOA)"),
    ("hdf5_mutant_attributes_2.h5", "Error iterating over attributes (ran off end of input buffer "
                                    "while decoding)"),
])
def test_hdf5_mutants_with_unreadable_attributes_still_list(tmp_path, fixture, problem):
    """Issue 30 item 14: mutants of a two-dataset HDF5 file (seeded mutation loop) whose root
    attributes are damaged; main escaped h5py's OSError/RuntimeError from the listing."""
    pytest.importorskip("h5py")
    import pathlib
    import shutil

    path = tmp_path / "mutant.h5"
    shutil.copy(pathlib.Path(__file__).parent / "fixtures" / fixture, path)
    listing = list_file(str(path))
    assert [(e.name, e.readable) for e in listing.entries] == [("a", True), ("g/c", True)]
    assert listing.problems == (f"HDF5: the file's attributes cannot be read ({problem})",)
