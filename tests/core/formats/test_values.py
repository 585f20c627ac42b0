"""The format interface: storage kinds, element strides, entries in other files, one way to open
any entry (:func:`core.formats.values.open_entry`), through the command's ``--tensor`` too.

A toy container format is registered here (as the Tensors dock's tests do), so strided entries
and entries in other files, which no format of today writes, are checked end to end."""

from __future__ import annotations

import dataclasses
import json
import struct

import numpy as np
import pytest

from core.cli import main
from core.errors import ContainerError, ShapeError
from core.files.sources import open_source
from core.formats import registry
from core.formats.entry import ContainerFormat, ContainerListing, EntryValues, Storage, TensorEntry
from core.formats.registry import format_named, list_file
from core.formats.values import entry_file, entry_values, open_entry
from core.pipeline.pipeline import DecodeParams, Pipeline

VALUES = np.arange(12, dtype="<i2")  # the toy file's data, from byte 8


def _list_toy(reader):
    head = reader.read(0, 8)
    (shard_length,) = struct.unpack_from("<I", head, 4)
    entries = (
        TensorEntry("plain", "int16", True, (4, 3), 8, 24, "I16"),
        # a Fortran-order (4, 3) view of the same bytes: element (i, j) is value i + 4 j
        TensorEntry("fortran", "int16", True, (4, 3), 8, 24, "I16", strides=(1, 4)),
        # every other value of the first row of a (3, 4) storage, twice: a saved slice view
        TensorEntry("slice", "int16", True, (2, 2), 10, 22, "I16", strides=(4, 2)),
        TensorEntry("doubled", "int16", True, (3,), 8, 24, "I16", storage=Storage.COMPUTED,
                    extras={"rule": "twice the stored values"}),
        TensorEntry("sharded", "float32", True, (shard_length // 4,), 0, shard_length, "F32",
                    file="shard.bin"),
        TensorEntry("escaping", "uint8", True, (1,), 0, 1, "U8", file="../outside.bin"),
    )
    return ContainerListing("toyfmt", reader.path, entries)


def _doubled(source, entry):
    stored = np.frombuffer(source.bytes_at(0, entry.offset, 6), "<i2")
    return EntryValues(stored.astype(np.int16) * 2, "doubled", f"'{entry.name}' is computed: twice its bytes")


TOY = ContainerFormat("toyfmt", lambda head, size: head.startswith(b"TOYF"), _list_toy, _doubled)
SHARD = np.array([0.5, -1.25, 3.0], dtype="<f4")


@pytest.fixture
def toy(tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "FORMATS", (TOY, *registry.FORMATS))
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "shard.bin").write_bytes(SHARD.tobytes())
    path = folder / "model.toy"
    path.write_bytes(b"TOYF" + struct.pack("<I", SHARD.nbytes) + VALUES.tobytes())
    return str(path)


# -- strides ---------------------------------------------------------------------------------
def test_a_strided_entry_is_a_view_of_the_map_with_exact_byte_offsets(toy):
    listing = list_file(toy)
    fortran = next(e for e in listing.entries if e.name == "fortran")
    assert fortran.local_view and fortran.params().strides == (1, 4)
    with Pipeline(toy) as pipeline:
        result = pipeline.run(fortran.params())
        np.testing.assert_array_equal(result.view, VALUES.reshape(3, 4).T)
        assert result.zero_copy and not result.view.flags.c_contiguous
        assert np.shares_memory(result.view, pipeline.source.data(0))
        assert "with element strides (1, 4)" in result.steps[2]
        # element (i, j) is value i + 4 j: its bytes are at 8 + 2 (i + 4 j), and back
        assert result.byte_offset((1, 2)) == (0, 8 + 2 * 9, 2)
        assert result.element_at_byte(0, 8 + 2 * 9 + 1) == (1, 2)
        sliced = pipeline.run(next(e for e in listing.entries if e.name == "slice").params())
        assert sliced.view.tolist() == [[1, 3], [5, 7]]


def test_strides_are_checked_against_the_values_before_the_view_is_made(toy):
    entry = next(e for e in list_file(toy).entries if e.name == "fortran")
    with Pipeline(toy) as pipeline:
        with pytest.raises(ShapeError, match=r"shape \(4, 3\) with element strides \(1, 5\) reaches value "
                           r"13, past the 12 values there are"):
            pipeline.run(dataclasses.replace(entry, strides=(1, 5)).params())
        with pytest.raises(ShapeError, match="give one stride per dimension"):
            pipeline.run(dataclasses.replace(entry, strides=(1,)).params())
        with pytest.raises(ShapeError, match="negative step"):
            pipeline.run(dataclasses.replace(entry, strides=(1, -4)).params())
        # an empty shape reaches nothing; a zero stride repeats a value
        assert pipeline.run(dataclasses.replace(entry, shape=(0, 3)).params()).view.shape == (0, 3)
        repeated = pipeline.run(dataclasses.replace(entry, shape=(2, 3), strides=(0, 1)).params())
        assert repeated.view.tolist() == [[0, 1, 2], [0, 1, 2]]


def test_a_fortran_order_npz_member_as_a_strided_entry_is_what_np_load_returns(tmp_path):
    # npz lists a Fortran-order member transposed (the C-order reading of its bytes); the same
    # bytes as a strided view are exactly np.load's array, without a copy.
    path = tmp_path / "f.npz"
    array = np.asfortranarray(np.arange(24, dtype=">i4").reshape(2, 3, 4))
    np.savez(path, f=array)
    listed = list_file(str(path)).entries[0]
    assert listed.shape == (4, 3, 2) and listed.extras["fortran_order"] is True
    strided = dataclasses.replace(listed, shape=(2, 3, 4), strides=(1, 2, 6))
    with Pipeline(str(path)) as pipeline:
        result = pipeline.run(strided.params())
        np.testing.assert_array_equal(result.view, np.load(path)["f"])
        assert result.zero_copy and result.view.dtype == np.dtype(">i4")
    # given another shape, the entry's strides do not apply (its elements, not its view)
    assert strided.params_over(DecodeParams(shape=(24,))).strides is None
    assert strided.params_over(DecodeParams(dtype="uint8")).strides is None
    assert strided.params_over(DecodeParams(little_endian=False)).strides == (1, 2, 6)


# -- one way to open every entry -------------------------------------------------------------------
def test_open_entry_decides_by_the_storage_kind(toy):
    listing = list_file(toy)
    named = {e.name: e for e in listing.entries}
    with open_source(toy) as source:
        view = open_entry(source, listing, named["plain"])
        assert (view.source is source, view.kind, view.note, view.owned) == (True, Storage.VIEW, None, False)
        computed = open_entry(source, listing, named["doubled"], DecodeParams(shape=(3, 1)))
        assert computed.kind is Storage.COMPUTED and computed.owned and computed.how == "doubled"
        assert computed.values.array.tolist() == [0, 2, 4]
        with Pipeline(computed.source) as pipeline:
            assert pipeline.run(computed.params).view.tolist() == [[0], [2], [4]]
        # a layout option: the entry's bytes in its file, whatever its kind
        raw = open_entry(source, listing, named["doubled"], DecodeParams(dtype="uint8"))
        assert raw.kind is Storage.VIEW and raw.source is source and (raw.params.offset, raw.params.length) == (8, 24)
        assert entry_values(source, listing, named["doubled"]).note == "'doubled' is computed: twice its bytes"
        with pytest.raises(ContainerError, match="'plain' is a view of the file"):
            entry_values(source, listing, named["plain"])


def test_an_entry_in_another_file_opens_that_file_inside_the_containers_folder(toy, tmp_path):
    listing = list_file(toy)
    named = {e.name: e for e in listing.entries}
    assert not named["sharded"].local_view and named["sharded"].readable
    shard = str(tmp_path / "model" / "shard.bin")
    assert entry_file(toy, named["sharded"]) == shard
    with open_source(toy) as source:
        opened = open_entry(source, listing, named["sharded"])
        try:
            assert opened.owned and opened.source.paths == (shard,) and opened.how == "in shard.bin"
            with Pipeline(opened.source) as pipeline:
                result = pipeline.run(opened.params)
                np.testing.assert_array_equal(result.view, SHARD)
                assert result.zero_copy
        finally:
            opened.source.close()
        with pytest.raises(ContainerError, match="names its data file '../outside.bin', which is not "
                           "inside the container's folder"):
            open_entry(source, listing, named["escaping"])
    absolute = dataclasses.replace(named["sharded"], file=shard)
    with pytest.raises(ContainerError, match="not inside the container's folder"):
        entry_file(toy, absolute)


def test_the_command_opens_every_kind_through_tensor(toy, capsys):
    assert main([toy, "--tensor", "fortran", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == VALUES.reshape(3, 4).T.tolist()
    assert main([toy, "--tensor", "doubled", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["values"] == [0, 2, 4]
    assert captured.err == "note: 'doubled' is computed: twice its bytes\n"
    assert main([toy, "--tensor", "sharded", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["values"] == SHARD.tolist()
    shard = entry_file(toy, next(e for e in list_file(toy).entries if e.name == "sharded"))
    assert captured.err == f"note: 'sharded' is stored in '{shard}': its byte offsets are that file's\n"
    assert main([toy, "--tensor", "escaping"]) == 2
    assert "which is not inside the container's folder" in capsys.readouterr().err


def test_the_listing_says_each_kind_and_the_strides_and_files(toy, capsys):
    assert main([toy, "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["name", "dtype", "shape", "kind", "offset", "bytes", "notes"]
    assert lines[3].split()[:7] == ["fortran", "int16", "(4,", "3)", "view", "8", "24"]
    assert "strides (1, 4)" in lines[3]
    assert lines[5].split()[3] == "computed" and "in file shard.bin" in lines[6]
    assert main([toy, "--list", "--json"]) == 0
    tensors = json.loads(capsys.readouterr().out)["tensors"]
    assert [(t["storage"], t["strides"], t["file"]) for t in tensors[1:5]] == [
        ("view", [1, 4], None), ("view", [4, 2], None), ("computed", None, None), ("view", None, "shard.bin")]


def test_every_format_with_copies_has_the_values_hook():
    hooked = {f.name for f in registry.FORMATS if f.values is not None}
    assert hooked == {"npz", "hdf5", "gguf", "tfrecord", "tflite", "onnx", "keras", "pytorch",
                      "safetensors-index", "zarr", "c-arrays", "intel-hex", "srec", "hex-dump"}  # the index: its shards' hooks; pytorch: dequantized qtensors
    assert format_named("gguf").values is not None
    with pytest.raises(ContainerError, match="no container format is named 'pt'"):
        format_named("pt")


def test_hostile_strides_never_reach_outside_the_values(toy):
    entry = next(e for e in list_file(toy).entries if e.name == "fortran")
    with Pipeline(toy) as pipeline:
        # an axis of one element may carry any stride (as numpy and PyTorch allow): it never steps
        one = pipeline.run(dataclasses.replace(entry, shape=(1, 3), strides=(2**62, 4)).params())
        assert one.view.tolist() == [[0, 4, 8]]
        for strides in ((2**62, 1), (1, 2**40)):
            with pytest.raises(ShapeError, match="past the 12 values there are"):
                pipeline.run(dataclasses.replace(entry, strides=strides).params())
