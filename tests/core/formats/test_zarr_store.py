"""Zarr v2 and v3 stores written by zarr itself: a one-chunk uncompressed array is a view of its
chunk file, every other array a copy read by zarr, and the values are zarr's own."""

from __future__ import annotations

import builtins
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from zarr_stores import F32, I16, all_arrays, write_v2, write_v3

from core import budget
from core.cli import main
from core.errors import BudgetError, ContainerError
from core.files.sources import open_source
from core.formats.entry import Storage, find_entry
from core.formats.registry import container_path, list_file
from core.formats.values import open_entry
from core.formats.zarr_store import store_metadata_file
from core.pipeline.pipeline import Pipeline


@pytest.fixture(scope="module")
def v2(tmp_path_factory):
    return write_v2(tmp_path_factory.mktemp("zarr") / "v2.zarr")


@pytest.fixture(scope="module")
def v3(tmp_path_factory):
    return write_v3(tmp_path_factory.mktemp("zarr") / "v3.zarr")


def _values(store, name):
    """The entry's values through the one path the command and the dock use."""
    path = container_path(str(store))
    listing = list_file(path)
    entry = find_entry(listing, name)
    with open_source(path) as source:
        opened = open_entry(source, listing, entry)
        try:
            with Pipeline(opened.source) as pipeline:
                return np.array(pipeline.run(opened.params).view), entry, opened
        finally:
            if opened.owned:
                opened.source.close()


def test_a_store_folder_opens_as_its_metadata_file(v2, v3, tmp_path):
    assert store_metadata_file(str(v2)) == os.path.join(str(v2), ".zmetadata")
    assert store_metadata_file(str(v3)) == os.path.join(str(v3), "zarr.json")
    assert container_path(str(v2 / "plain" / "big")) == os.path.join(str(v2), "plain", "big", ".zarray")
    assert store_metadata_file(str(tmp_path)) is None
    assert container_path(str(tmp_path)) == str(tmp_path)


@pytest.mark.parametrize("which", ["v2", "v3"])
def test_every_array_is_listed_with_zarrs_values(which, v2, v3):
    store = v2 if which == "v2" else v3
    expected = all_arrays(store)
    listing = list_file(container_path(str(store)))
    assert listing.format == "zarr" and listing.problems == ()
    assert listing.metadata["zarr format"] == which[1]
    assert sorted(e.name for e in listing.entries) == sorted(expected)
    for entry in listing.entries:
        values, _entry, _opened = _values(store, entry.name)
        want = expected[entry.name]
        assert values.shape == want.shape and values.dtype.str[1:] == want.dtype.str[1:], entry.name
        np.testing.assert_array_equal(values, want, err_msg=entry.name)


def test_one_uncompressed_chunk_is_a_view_of_its_chunk_file(v2):
    listing = list_file(container_path(str(v2)))
    kinds = {e.name: e.storage for e in listing.entries}
    assert {n for n, k in kinds.items() if k is Storage.VIEW} == {
        "plain/big", "plain/edge", "plain/prefix", "flags", "complex", "scalar"}
    big = find_entry(listing, "plain/big")
    assert (big.dtype, big.little_endian, big.shape, big.offset, big.nbytes, big.file, big.strides) == \
        ("int16", False, (2, 3, 4), 0, 48, "plain/big/0.0.0", None)
    edge = find_entry(listing, "plain/edge")  # chunks stored full size: a strided view of 4 x 8
    assert (edge.nbytes, edge.strides) == (4 * 8 * 8, (8, 1))
    prefix = find_entry(listing, "plain/prefix")  # the chunk's first 12 values
    assert (prefix.nbytes, prefix.strides) == (24, None)
    values, _entry, opened = _values(v2, "plain/edge")
    assert opened.kind is Storage.VIEW and opened.note.startswith("'plain/edge' is stored in")
    np.testing.assert_array_equal(values, np.arange(15.0).reshape(3, 5))


def test_every_other_array_is_a_copy_read_by_zarr(v2):
    listing = list_file(container_path(str(v2)))
    for name, why in (("blosc", "compressor"), ("chunked", "chunk count"), ("fortran", "order"), ("delta", "compressor"),
                      ("sparse", "chunk count"), ("never", "chunk")):
        entry = find_entry(listing, name)
        assert entry.storage is Storage.COPY and entry.readable and why in entry.extras, name
    assert find_entry(listing, "fortran").extras["order"] == "F"
    assert find_entry(listing, "delta").extras["compressor"] == "delta"
    assert find_entry(listing, "never").extras["chunk"] == "0 not written: the fill value"
    values, entry, opened = _values(v2, "sparse")
    np.testing.assert_array_equal(values, [1, 2, 3, -1.5, -1.5, -1.5])
    assert opened.kind is Storage.COPY and opened.how == "read by zarr"
    assert opened.note == ("the zarr array 'sparse' (none; chunks (3,)), read by zarr, a copy of 24 bytes in memory "
                           "(their byte offsets are not file offsets)")
    np.testing.assert_array_equal(_values(v2, "never")[0], [9, 9, 9, 9])
    assert _values(v2, "empty")[0].shape == (0, 3)


def test_v3_views_copies_and_byte_order(v3):
    listing = list_file(container_path(str(v3)))
    assert listing.metadata["consolidated"] == "no" and listing.metadata["groups"] == "3"
    be = find_entry(listing, "be")
    assert (be.storage, be.little_endian, be.file, be.stored_type) == (Storage.VIEW, False, "be/c/0", "int16")
    assert find_entry(listing, "s").file == "s/c"
    assert find_entry(listing, "v2keys").storage is Storage.COPY
    assert find_entry(listing, "t").storage is Storage.COPY  # transposed chunks
    assert find_entry(listing, "zstd").extras["codecs"] == "bytes, zstd"
    np.testing.assert_array_equal(_values(v3, "be")[0], np.arange(6) - 3)
    np.testing.assert_array_equal(_values(v3, "t")[0], np.arange(12).reshape(3, 4))


@pytest.mark.filterwarnings("ignore:Consolidated metadata is currently not part")
def test_v3_consolidated_metadata_lists_without_a_walk(tmp_path):
    store = write_v3(tmp_path / "c.zarr")
    zarr.consolidate_metadata(str(store))
    listing = list_file(container_path(str(store)))
    assert listing.metadata["consolidated"] == "yes"
    assert sorted(e.name for e in listing.entries) == sorted(all_arrays(store))


def test_a_root_array_and_a_nested_metadata_file(v2, tmp_path):
    root = zarr.create_array(str(tmp_path / "r.zarr"), shape=(4,), chunks=(4,), dtype="<i4", zarr_format=2,
                             compressors=None)
    root[...] = [5, 6, 7, 8]
    listing = list_file(container_path(str(tmp_path / "r.zarr")))
    assert [e.name for e in listing.entries] == ["/"]
    np.testing.assert_array_equal(_values(tmp_path / "r.zarr", "/")[0], [5, 6, 7, 8])
    nested = list_file(str(v2 / "plain" / "big" / ".zarray"))  # that array is the store's root
    assert [e.name for e in nested.entries] == ["/"] and nested.entries[0].file == "0.0.0"


def test_the_command_lists_and_shows_a_store(v2, capsys):
    assert main([str(v2), "--list", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["format"] == "zarr"
    assert main([str(v2), "--tensor", "blosc", "--json"]) == 0
    captured = capsys.readouterr()
    np.testing.assert_array_equal(np.asarray(json.loads(captured.out)["values"], np.float32), F32)
    assert captured.err.startswith("note: the zarr array 'blosc' (blosc; chunks (2, 3)), read by zarr")


def test_a_copy_without_zarr_says_how_to_install_it(v2, monkeypatch):
    real = builtins.__import__

    def no_zarr(name, *args, **kwargs):
        if name == "zarr" or name.startswith("zarr."):
            raise ImportError("no zarr")
        return real(name, *args, **kwargs)

    listing = list_file(container_path(str(v2)))  # listing needs no zarr
    monkeypatch.setattr(builtins, "__import__", no_zarr)
    assert find_entry(list_file(container_path(str(v2))), "blosc").storage is Storage.COPY
    with pytest.raises(ContainerError, match=r"needs the zarr package \(pip install 'tensor-inspector\[zarr\]'"):
        _values(v2, "blosc")
    np.testing.assert_array_equal(_values(v2, "plain/big")[0], I16)  # a view needs no zarr
    assert listing.entries


def test_a_copy_over_the_budget_is_refused_before_reading(v2, monkeypatch):
    monkeypatch.setattr(budget, "COPY_BUDGET_BYTES", 100)
    with pytest.raises(BudgetError, match=r"reading the zarr array 'blosc' \(5, 7\) would copy 140 bytes"):
        _values(v2, "blosc")
