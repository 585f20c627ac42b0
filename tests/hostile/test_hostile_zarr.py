"""Hostile Zarr stores: metadata that lies, absurd shapes, unknown types and codecs, names that
leave the store, decompression bombs, FIFOs, deep and looping folders. Each is a clear message
on the array (the others stay usable) or on the listing, never a crash, a hang or a large
allocation; nothing from the store is imported or run."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import struct
import time
import zlib

import numpy as np
import pytest

pytest.importorskip("zarr")  # the optional [zarr] extra reads the copies

from core import budget
from core.cli import main
from core.errors import BudgetError, ContainerError
from core.files.sources import open_source
from core.formats.entry import Storage, find_entry
from core.formats.registry import container_path, list_file
from core.formats.values import open_entry
from core.formats.zarr_store import MAX_CHUNKS, MAX_DEPTH
from core.pipeline.pipeline import Pipeline


def _zarray(shape, chunks, dtype="<f4", compressor=None, filters=None, **more):
    return {"zarr_format": 2, "shape": shape, "chunks": chunks, "dtype": dtype, "compressor": compressor,
            "filters": filters, "order": "C", "fill_value": 0, **more}


def _store(folder, arrays: dict, chunks: dict | None = None, consolidated: bool = False):
    """A v2 group at ``folder``: ``arrays`` path -> .zarray document, ``chunks`` path -> bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".zgroup").write_text(json.dumps({"zarr_format": 2}))
    for path, doc in arrays.items():
        where = folder.joinpath(*path.split("/"))
        where.mkdir(parents=True, exist_ok=True)
        parent = where.parent
        while parent != folder:
            (parent / ".zgroup").write_text(json.dumps({"zarr_format": 2}))
            parent = parent.parent
        (where / ".zarray").write_text(doc if isinstance(doc, str) else json.dumps(doc))
    for path, data in (chunks or {}).items():
        target = folder.joinpath(*path.split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    if consolidated:
        meta = {".zgroup": {"zarr_format": 2}}
        meta.update({f"{p}/.zarray": d for p, d in arrays.items()})
        (folder / ".zmetadata").write_text(json.dumps({"metadata": meta, "zarr_consolidated_format": 1}))
    return folder


def _entries(folder):
    return {e.name: e for e in list_file(container_path(str(folder))).entries}


def _open(folder, name):
    path = container_path(str(folder))
    listing = list_file(path)
    with open_source(path) as source:
        opened = open_entry(source, listing, find_entry(listing, name))
        try:
            with Pipeline(opened.source) as pipeline:
                return np.array(pipeline.run(opened.params).view)
        finally:
            if opened.owned:
                opened.source.close()


def test_a_chunk_file_of_another_size_than_the_metadata_says(tmp_path):
    store = _store(tmp_path / "s.zarr", {"short": _zarray([4, 4], [4, 4]), "good": _zarray([2], [2], "<i2")},
                   {"short/0.0": b"\x00" * 10, "good/0": struct.pack("<2h", 7, -8)})
    entries = _entries(store)
    assert not entries["short"].readable
    assert entries["short"].problem == ("zarr array 'short': its chunk file 'short/0.0' has 10 bytes, but chunks "
                                        "[4, 4] of <f4 are 64 bytes (the metadata and the chunk disagree; open "
                                        "the chunk file as raw bytes)")
    np.testing.assert_array_equal(_open(store, "good"), [7, -8])  # the others stay usable


def test_chunks_shorter_than_the_metadata_says_are_zarrs_error_not_a_crash(tmp_path):
    store = _store(tmp_path / "s.zarr", {"a": _zarray([8], [4], "<i4")}, {"a/0": b"\x01" * 16, "a/1": b"\x01" * 3})
    with pytest.raises(ContainerError, match=r"zarr could not read the array 'a' \(.*\) \(a chunk is damaged"):
        _open(store, "a")


def test_a_huge_chunk_file_is_refused_from_its_size(tmp_path):
    store = _store(tmp_path / "s.zarr", {"a": _zarray([8], [4], "<i4")})
    with open(store / "a" / "0", "wb") as handle:
        handle.truncate(1 << 40)  # sparse: nothing is written or read
    started = time.monotonic()
    with pytest.raises(ContainerError, match=r"the zarr chunk .* is 1.0 TiB .* it was not read"):
        _open(store, "a")
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("doc, message", [
    (_zarray([-1, 4], [1, 4]), "its shape [-1, 4] has -1, not a whole number from 0 to 2**62"),
    (_zarray([True], [1]), "its shape [true] has true, not a whole number"),
    (_zarray([2 ** 70], [1]), "its shape [1180591620717411303424] has 1180591620717411303424"),
    (_zarray([4], [0]), "its chunks [0] has 0, not a whole number from 1 to 2**62"),
    (_zarray([1] * 40, [1] * 40), "its shape"),
    (_zarray([4, 4], [4]), "its chunks [4] do not have one size per dimension of its shape [4, 4]"),
    (_zarray("big", [4]), "its shape is not a list"),
    (_zarray([4], [4], order="K"), "its order 'K' is neither \"C\" nor \"F\""),
    (_zarray([4], [4], dimension_separator="/../"), "its dimension_separator '/../' is neither"),
])
def test_lying_shapes_and_layouts_are_the_arrays_problem(tmp_path, doc, message):
    store = _store(tmp_path / "s.zarr", {"bad": doc})
    entry = _entries(store)["bad"]
    assert not entry.readable and message in entry.problem, entry.problem
    assert entry.problem.endswith("(the metadata is damaged; fix it or rewrite the array with zarr)")


def test_an_absurd_but_valid_shape_lists_and_is_refused_by_the_budget(tmp_path):
    store = _store(tmp_path / "s.zarr", {
        "huge": _zarray([2 ** 40, 2 ** 40], [1, 1], compressor={"id": "zlib", "level": 1}),
        "wide": _zarray([10], [2 ** 60], compressor={"id": "zlib", "level": 1}),
        "one": _zarray([2 ** 40], [2 ** 40])})
    entries = _entries(store)
    assert entries["huge"].storage is Storage.COPY and entries["huge"].extras["chunk count"] == 2 ** 80
    with pytest.raises(BudgetError, match=r"reading the zarr array 'huge' \(1099511627776, 1099511627776\) would copy"):
        _open(store, "huge")
    with pytest.raises(BudgetError, match=r"one chunk \(1152921504606846976,\) of the zarr array 'wide' would copy"):
        _open(store, "wide")
    assert entries["one"].extras["chunk"] == "0 not written: the fill value"  # one chunk, not there
    with pytest.raises(BudgetError):
        _open(store, "one")


def test_more_chunks_than_one_read_takes(tmp_path, monkeypatch):
    store = _store(tmp_path / "s.zarr", {"many": _zarray([MAX_CHUNKS + 1], [1], "|u1")})
    with pytest.raises(ContainerError, match=r"has 1,048,577 chunks, more than the 1,048,576 one read takes"):
        _open(store, "many")


@pytest.mark.parametrize("dtype, message", [
    ("|O", "it is an object array (its chunks hold encoded Python objects): never read (store it as a numeric type)"),
    ("<M8[ns]", "its dtype '<M8[ns]' has no engine type"),
    ("|S10", "its dtype '|S10' has no engine type"),
    ("<U4", "its dtype '<U4' has no engine type"),
    ("|V2", "its dtype '|V2' has no engine type"),
    ([["x", "<f4"], ["y", "<i2"]], "is a structured type"),
    (17, "is a structured type"),
])
def test_types_the_engine_has_no_name_for(tmp_path, dtype, message):
    store = _store(tmp_path / "s.zarr", {"t": _zarray([2], [2], dtype)}, {"t/0": b"\x00" * 64})
    entry = _entries(store)["t"]
    assert not entry.readable and message in entry.problem, entry.problem


@pytest.mark.parametrize("compressor, filters, message", [
    ({"id": "evil", "module": "os"}, None, "its compressor 'evil' is not one this tool reads (blosc, zstd"),
    (None, [{"id": "pickle"}], "its filter 'pickle' is not one this tool reads (delta"),
    (None, [{"id": "vlen-utf8"}], "its filter 'vlen-utf8' is not one this tool reads"),
    ({"level": 1}, None, "it has a codec that is not an object with a 'id'"),
])
def test_unknown_codecs_are_refused_before_zarr_sees_them(tmp_path, compressor, filters, message):
    store = _store(tmp_path / "s.zarr", {"c": _zarray([2], [2], compressor=compressor, filters=filters)})
    entry = _entries(store)["c"]
    assert not entry.readable and message in entry.problem, entry.problem
    with pytest.raises(ContainerError, match="zarr array 'c'"):
        _open(store, "c")


def _v3(folder, doc_changes: dict):
    folder.mkdir(parents=True)
    doc = {"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "float32",
           "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
           "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
           "fill_value": 0.0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
           "attributes": {}, "storage_transformers": []}
    doc.update(doc_changes)
    (folder / "zarr.json").write_text(json.dumps(doc))
    return folder


@pytest.mark.parametrize("changes, message", [
    ({"data_type": "string"}, "its data type 'string' has no engine type"),
    ({"data_type": {"name": "my.type"}}, "its data type {\"name\": \"my.type\"} has no engine type"),
    ({"codecs": [{"name": "bytes"}, {"name": "numcodecs.pickle"}]}, "its codec 'numcodecs.pickle' is not one"),
    ({"codecs": [{"name": "sharding_indexed", "configuration": {}}]}, "it is sharded (sharding_indexed): not read yet"),
    ({"chunk_grid": {"name": "rectilinear"}}, "its chunk grid 'rectilinear' is not \"regular\""),
    ({"storage_transformers": [{"name": "x"}]}, "it has storage transformers"),
    ({"chunk_key_encoding": {"name": "default", "configuration": {"separator": ".."}}}, "its chunk key separator '..'"),
    ({"codecs": [{"name": "gzip"}, {"name": "bytes"}]}, "are not in the order array -> array, bytes, bytes -> bytes"),
    ({"codecs": [{"name": "bytes", "configuration": {"endian": "middle"}}]}, "endian 'middle'"),
])
def test_v3_metadata_that_is_refused(tmp_path, changes, message):
    entry = _entries(_v3(tmp_path / "a.zarr", changes))["/"]
    assert not entry.readable and message in entry.problem, entry.problem


@pytest.mark.parametrize("key", ["../../outside/.zarray", "/abs/.zarray", "a//b/.zarray", "a/./b/.zarray",
                                 "a\\..\\b/.zarray"])
def test_consolidated_names_that_leave_the_store(tmp_path, key):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "0").write_bytes(b"\x00" * 16)
    store = tmp_path / "deep" / "er" / "s.zarr"
    store.mkdir(parents=True)
    meta = {".zgroup": {"zarr_format": 2}, key: _zarray([4], [4]), "ok/.zarray": _zarray([1], [1], "|u1")}
    (store / ".zmetadata").write_text(json.dumps({"metadata": meta, "zarr_consolidated_format": 1}))
    (store / "ok").mkdir()
    (store / "ok" / "0").write_bytes(b"\x05")
    entries = list_file(container_path(str(store))).entries
    bad = [e for e in entries if e.name != "ok"]
    assert len(bad) == 1 and not bad[0].readable
    assert "is not a relative path inside the store" in bad[0].problem
    np.testing.assert_array_equal(_open(store, "ok"), [5])


def _bomb_chunks():
    zeros = b"\x00" * (64 << 20)  # 64 MiB: a chunk of 16 bytes may decode to at most ~64 KiB
    blosc_header = bytes([2, 1, 0x21, 4]) + struct.pack("<III", 1 << 31, 1 << 16, 32) + b"\x00" * 16
    zstd = pytest.importorskip("numcodecs").Zstd(level=1).encode(zeros)
    return {"zlib": zlib.compress(zeros, 9), "gzip": gzip.compress(zeros, 9), "bz2": bz2.compress(zeros, 9),
            "lzma": lzma.compress(zeros), "zstd": bytes(zstd), "blosc": blosc_header,
            "lz4": struct.pack("<I", 1 << 31) + b"\x00" * 16}


@pytest.fixture(scope="module")
def bombs():
    return _bomb_chunks()


@pytest.mark.parametrize("codec", ["zlib", "gzip", "bz2", "lzma", "zstd", "blosc", "lz4"])
def test_decompression_bombs_are_refused_before_zarr_decodes_them(tmp_path, bombs, codec):
    store = _store(tmp_path / "s.zarr", {"b": _zarray([4], [4], compressor={"id": codec})}, {"b/0": bombs[codec]})
    started = time.monotonic()
    with pytest.raises(ContainerError, match=r"the zarr array 'b': chunk '0' decodes to more than 65,600 bytes "
                                             r"\(.* or more\), more than a chunk of its shape holds"):
        _open(store, "b")
    assert time.monotonic() - started < 10


def test_a_v3_bomb_behind_a_checksum_is_refused(tmp_path, bombs):
    folder = _v3(tmp_path / "a.zarr", {"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
                                       "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                                  {"name": "gzip", "configuration": {"level": 1}},
                                                  {"name": "crc32c"}]})
    (folder / "c").mkdir()
    (folder / "c" / "0").write_bytes(bombs["gzip"] + b"\x00\x00\x00\x00")
    with pytest.raises(ContainerError, match=r"chunk 'c/0' decodes to more than"):
        _open(folder, "/")


def test_damaged_compressed_chunks_are_messages(tmp_path):
    data = zlib.compress(np.arange(4, dtype="<f4").tobytes())
    store = _store(tmp_path / "s.zarr", {"z": _zarray([4], [4], compressor={"id": "zlib"}),
                                         "t": _zarray([4], [4], compressor={"id": "zstd"})},
                   {"z/0": data[:5] + b"garbage", "t/0": b"not a zstd frame"})
    with pytest.raises(ContainerError, match="is not valid zlib data"):
        _open(store, "z")
    with pytest.raises(ContainerError, match="is not a zstd frame"):
        _open(store, "t")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_in_the_store_is_never_opened(tmp_path):
    store = _store(tmp_path / "s.zarr", {"one": _zarray([4], [4]), "two": _zarray([4], [2], compressor={"id": "zlib"})})
    os.mkfifo(store / "one" / "0")
    os.mkfifo(store / "two" / "0")
    entries = _entries(store)
    assert "is not a regular file" in entries["one"].problem
    with pytest.raises(ContainerError, match="the zarr array 'two': .*FIFO"):
        _open(store, "two")
    os.mkfifo(store / "three")
    assert main([str(store), "--list"]) == 0


def test_metadata_that_is_not_zarr_stops_the_listing(tmp_path):
    for name, text, message in (
            ("a", '{"zarr_format": 7}', "its zarr_format 7 is neither 2 nor 3"),
            ("b", '{"zarr_format": 3, "node_type": "evil"}', "its node_type 'evil' is neither"),
            ("c", '{"zarr_format": 2, "shape": [1], ', "it is not JSON"),
            ("d", '{"zarr_consolidated_format": 2, "metadata": {}}', "is not version 1")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "zarr.json").write_text(text)
        with pytest.raises(ContainerError, match=message):
            list_file(container_path(str(folder)))


def test_a_damaged_node_inside_a_group_is_a_problem_of_the_listing(tmp_path):
    store = _store(tmp_path / "s.zarr", {"ok": _zarray([1], [1], "|u1"), "bad": "{not json"}, {"ok/0": b"\x01"})
    listing = list_file(container_path(str(store)))
    assert [e.name for e in listing.entries] == ["ok"]
    assert len(listing.problems) == 1 and "zarr node 'bad' not read: 'bad/.zarray'" in listing.problems[0].replace(
        str(store) + os.sep, "")


def test_a_huge_metadata_file_is_not_read(tmp_path):
    store = _store(tmp_path / "s.zarr", {"ok": _zarray([1], [1], "|u1")}, {"ok/0": b"\x01"})
    (store / "big").mkdir()
    with open(store / "big" / ".zarray", "wb") as handle:
        handle.truncate(1 << 34)
    listing = list_file(container_path(str(store)))
    assert [e.name for e in listing.entries] == ["ok"]
    assert "the zarr metadata file" in listing.problems[0] and "it was not read" in listing.problems[0]


def test_deep_nesting_and_linked_folders_are_bounded(tmp_path):
    store = _store(tmp_path / "s.zarr", {"/".join(["g"] * (MAX_DEPTH + 3)) + "/a": _zarray([1], [1], "|u1")})
    (store / "loop").symlink_to(store, target_is_directory=True)
    started = time.monotonic()
    listing = list_file(container_path(str(store)))
    assert time.monotonic() - started < 10
    assert listing.entries == ()
    assert any(f"groups nested deeper than {MAX_DEPTH} are not listed" in p for p in listing.problems)
    assert any("'loop' is a link to a folder: not followed" in p for p in listing.problems)


def test_the_values_are_read_again_and_checked(tmp_path, monkeypatch):
    store = _store(tmp_path / "s.zarr", {"a": _zarray([4], [2], "<i2", compressor={"id": "zlib"})},
                   {"a/0": zlib.compress(struct.pack("<2h", 1, 2)), "a/1": zlib.compress(struct.pack("<2h", 3, 4))})
    path = container_path(str(store))
    listing = list_file(path)
    (store / "a" / ".zarray").write_text(json.dumps(_zarray([4], [2], "|O", compressor={"id": "zlib"})))
    with open_source(path) as source, pytest.raises(ContainerError, match="it is an object array"):
        open_entry(source, listing, find_entry(listing, "a"))
    monkeypatch.setattr(budget, "COPY_BUDGET_BYTES", 4)
    (store / "a" / ".zarray").write_text(json.dumps(_zarray([4], [2], "<i2", compressor={"id": "zlib"})))
    with pytest.raises(BudgetError):
        _open(store, "a")
