"""HDF5 files written by h5py: contiguous datasets exact as views, chunked ones say why not."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import ContainerError
from core.formats.entry import Storage, find_entry
from core.formats.registry import list_file

h5py = pytest.importorskip("h5py")

DATASETS = {
    "f32": np.arange(12, dtype="<f4").reshape(3, 4) / 3,
    "group/be_i32": np.array([1, -2, 1 << 30], dtype=">i4"),
    "group/deeper/u8": np.arange(7, dtype=np.uint8),
    "c128": np.array([1 + 2j, 3 - 4j]),
    "flags": np.array([True, False]),
}


@pytest.fixture(scope="module")
def h5(tmp_path_factory):
    path = tmp_path_factory.mktemp("h5") / "data.h5"
    with h5py.File(path, "w") as out:
        for name, array in DATASETS.items():
            out.create_dataset(name, data=array)
        out.create_dataset("chunked", data=np.arange(100), chunks=(10,), compression="gzip")
        out.create_dataset("compact", data=np.arange(4, dtype="<i2"),
                           dcpl=_compact_plist())
        out.create_dataset("text", data=np.array([b"ab", b"cd"]))
        out.attrs["title"] = "unit test"
    return path


def _compact_plist():
    plist = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    plist.set_layout(h5py.h5d.COMPACT)
    return plist


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_contiguous_datasets_show_their_values_as_views(h5, shown, name):
    values, result = shown(h5, name)
    np.testing.assert_array_equal(values, DATASETS[name])
    with h5py.File(h5, "r") as handle:
        np.testing.assert_array_equal(values, handle[name][()])
    assert result.zero_copy


def test_listing(h5):
    listing = list_file(str(h5))
    assert listing.format == "hdf5"
    assert listing.metadata == {"title": "unit test"}
    names = {e.name for e in listing.entries}
    assert names == set(DATASETS) | {"chunked", "compact", "text"}
    assert find_entry(listing, "group/be_i32").little_endian is False
    chunked = find_entry(listing, "chunked")
    # chunked (filters) and compact datasets are not one byte range: copies read by h5py
    assert not chunked.mappable and chunked.readable and chunked.problem is None
    assert chunked.storage is find_entry(listing, "compact").storage is Storage.COPY
    assert (chunked.dtype, chunked.shape, chunked.extras) == ("int64", (100,), {"chunks": (10,), "filters": "deflate"})
    assert find_entry(listing, "compact").extras == {"layout": "compact"}
    text = find_entry(listing, "text")
    assert "not a numeric type" in text.problem and not text.readable
    with pytest.raises(ContainerError, match="tensor 'chunked' holds copy values, not a view of the file"):
        chunked.params()


def test_chunked_and_compact_datasets_are_read_by_h5py_into_a_copy(h5, monkeypatch):
    from core.budget import BudgetError
    from core.files.sources import open_source
    from core.formats.values import entry_values

    listing = list_file(str(h5))
    chunked, compact = find_entry(listing, "chunked"), find_entry(listing, "compact")
    with open_source(str(h5)) as source:
        values = entry_values(source, listing, chunked)
        assert values.array.dtype == np.int64 and values.array.tolist() == list(range(100))
        assert values.how == "read by h5py"
        assert values.note == ("'chunked' is stored in chunks of (10,), filters deflate in the file: these "
                               "are its values as h5py reads them, a copy of 800 bytes in memory (their "
                               "byte offsets are not file offsets)")
        assert entry_values(source, listing, compact).array.tolist() == [0, 1, 2, 3]
        with pytest.raises(ContainerError, match="not a numeric type"):  # not numeric: no copy either
            entry_values(source, listing, find_entry(listing, "text"))
        monkeypatch.setattr("core.budget.COPY_BUDGET_BYTES", 799)
        with pytest.raises(BudgetError, match="reading HDF5 dataset 'chunked' would copy 800 bytes"):
            entry_values(source, listing, chunked)


def test_user_block_offsets_are_absolute(tmp_path, shown):
    path = tmp_path / "ub.h5"
    with h5py.File(path, "w", userblock_size=512) as out:
        out.create_dataset("x", data=np.arange(5, dtype="<i8"))
    values, _ = shown(path, "x")
    np.testing.assert_array_equal(values, np.arange(5))


def test_missing_h5py_says_how_to_install(h5, monkeypatch):
    """The parent asks whether h5py is installed without importing it (only the worker
    processes load libhdf5): not installed is what ``find_spec`` says then."""
    import importlib.util

    real_find_spec = importlib.util.find_spec

    def no_h5py(name, *args, **kwargs):
        return None if name == "h5py" else real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", no_h5py)
    with pytest.raises(ContainerError, match=r"listing HDF5 files needs the h5py package, which "
                       r"is not installed \(pip install 'tensor-inspector\[hdf5\]' \(or pip "
                       r"install h5py\)\)"):
        list_file(str(h5))


# -- issue 30 ---------------------------------------------------------------------------------
def test_a_never_written_dataset_reads_as_its_fill_value(tmp_path):
    """Item 8: created, never written: no space allocated; h5py reads the fill value."""
    from core.files.sources import open_source
    from core.formats.values import entry_values

    path = tmp_path / "empty.h5"
    with h5py.File(path, "w") as out:
        out.create_dataset("empty", shape=(2, 3), dtype="<i4", fillvalue=7)
        out.create_dataset("zeros", shape=(4,), dtype="<f8")
    with h5py.File(path, "r") as check:
        expected = check["empty"][()]
    listing = list_file(str(path))
    empty = find_entry(listing, "empty")
    assert (empty.storage, empty.readable, empty.problem) == (Storage.COMPUTED, True, None)
    assert dict(empty.extras) == {"layout": "not allocated", "fill value": "7"}
    with open_source(str(path)) as source:
        values = entry_values(source, listing, empty)
        assert values.array.tolist() == expected.tolist() == [[7, 7, 7], [7, 7, 7]]
        assert values.note == ("'empty' has no data in the file yet (never written): these are its "
                               "fill value 7 as h5py reads them, a copy of 24 bytes in memory (their "
                               "byte offsets are not file offsets)")
        assert entry_values(source, listing, find_entry(listing, "zeros")).array.tolist() == [0.0] * 4


def test_a_virtual_dataset_is_read_or_says_which_source_is_missing(tmp_path):
    """Item 23: a virtual dataset is not "no space allocated yet"."""
    from core.files.sources import open_source
    from core.formats.values import entry_values

    with h5py.File(tmp_path / "part.h5", "w") as part:
        part.create_dataset("x", data=np.arange(5, dtype="<i2"))
    layout = h5py.VirtualLayout(shape=(5,), dtype="<i2")
    layout[:] = h5py.VirtualSource("part.h5", "x", shape=(5,))
    path = tmp_path / "vds.h5"
    with h5py.File(path, "w") as out:
        out.create_virtual_dataset("v", layout, fillvalue=-1)
    listing = list_file(str(path))
    entry = find_entry(listing, "v")
    assert (entry.storage, entry.problem) == (Storage.COPY, None)
    assert dict(entry.extras) == {"layout": "virtual", "sources": "part.h5"}
    with open_source(str(path)) as source:
        assert entry_values(source, listing, entry).array.tolist() == [0, 1, 2, 3, 4]
    (tmp_path / "part.h5").unlink()
    entry = find_entry(list_file(str(path)), "v")
    assert entry.problem == (f"HDF5 dataset 'v': it is a virtual dataset whose source file 'part.h5' "
                             f"is not in the folder of this file ({tmp_path}) (put the source files "
                             "next to it to read it)")


def test_a_dataset_name_that_is_not_utf8_is_text_and_opens(tmp_path, shown):
    """Item 14: h5py gives such a name as bytes (main listed a bytes name, and the window and
    CLI then failed with 'a bytes-like object is required'); it is text with its bytes kept."""
    from core.files.sources import open_source
    from core.formats.values import entry_values

    path = tmp_path / "names.h5"
    with h5py.File(path, "w") as out:
        out.create_dataset(b"bad\xff", data=np.arange(4, dtype="<i2"))
        out.create_dataset(b"chunked\xfe", data=np.arange(3, dtype="<i2"), chunks=(3,))
    listing = list_file(str(path))
    assert [e.name for e in listing.entries] == ["bad\udcff", "chunked\udcfe"]
    assert all(isinstance(e.name, str) for e in listing.entries)
    assert shown(path, "bad\udcff")[0].tolist() == [0, 1, 2, 3]
    with open_source(str(path)) as source:
        assert entry_values(source, listing, listing.entries[1]).array.tolist() == [0, 1, 2]


def test_the_listing_reads_the_opened_file_not_what_its_path_names_later(tmp_path):
    """Item 18: main reopened the path: a FIFO put there blocked libhdf5 forever, another file
    put there was listed. The file is read through the descriptor opened and checked first."""
    import os

    from core.files.sources import open_source
    from core.formats.hdf5 import list_hdf5
    from core.formats.reader import HeaderReader
    from core.formats.values import entry_values

    path, other = tmp_path / "a.h5", tmp_path / "b.h5"
    with h5py.File(path, "w") as out:
        out.create_dataset("mine", data=np.arange(3, dtype="<i2"), chunks=(3,))
    with h5py.File(other, "w") as out:
        out.create_dataset("other", data=np.arange(5))
    with open_source(str(path)) as source:
        os.rename(path, tmp_path / "moved.h5")
        os.rename(other, path)  # another file under the path
        listing = list_hdf5(HeaderReader(source, 0, "hdf5"))
        assert [e.name for e in listing.entries] == ["mine"]
        assert entry_values(source, listing, listing.entries[0]).array.tolist() == [0, 1, 2]
        path.unlink()
        os.mkfifo(path)  # a FIFO under the path: opening it would block
        assert [e.name for e in list_hdf5(HeaderReader(source, 0, "hdf5")).entries] == ["mine"]
        assert entry_values(source, listing, listing.entries[0]).array.tolist() == [0, 1, 2]
