"""``.npz`` files written by numpy: stored members map to their data, compressed ones say why not."""

from __future__ import annotations

import dataclasses
import struct
import zipfile

import numpy as np
import pytest

from core.errors import BudgetError, ContainerError
from core.files.sources import open_source
from core.formats.entry import Storage, find_entry
from core.formats.npz import decompressed_values, list_npz
from core.formats.reader import HeaderReader
from core.formats.registry import list_file
from core.pipeline.pipeline import DecodeParams

ARRAYS = {
    "weights": np.arange(12, dtype="<f4").reshape(3, 4) / 7,
    "big_endian": np.array([1, -2, 300], dtype=">i2"),
    "flags": np.array([True, False, True]),
    "complex": np.array([1 + 1j, -2.5j], dtype="<c16"),
    "bytes": np.arange(10, dtype=np.uint8),
    "scalar": np.array(-7, dtype="<i8"),
}


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    path = tmp_path_factory.mktemp("npz") / "arrays.npz"
    np.savez(path, **ARRAYS)
    return path


def test_listing_follows_np_load(stored):
    listing = list_file(str(stored))
    assert listing.format == "npz"
    with np.load(stored) as loaded:
        assert [e.name for e in listing.entries] == list(loaded.keys())
        for entry in listing.entries:
            assert entry.mappable, entry.problem
            assert entry.shape == loaded[entry.name].shape
            assert entry.nbytes == loaded[entry.name].nbytes
    assert find_entry(listing, "big_endian").little_endian is False


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_every_member_shows_the_saved_values_as_a_view(stored, shown, name):
    values, result = shown(stored, name)
    np.testing.assert_array_equal(values, ARRAYS[name])
    assert values.dtype == ARRAYS[name].dtype  # the byte order as stored: a view of the file
    assert result.zero_copy


def test_member_offset_is_inside_the_local_entry(stored):
    """The data offset: local header + name + extra (numpy writes zip64 extras) + .npy header."""
    content = stored.read_bytes()
    entry = find_entry(list_file(str(stored)), "bytes")
    assert content[entry.offset:entry.offset + 10] == bytes(range(10))
    with zipfile.ZipFile(stored) as archive:
        info = archive.getinfo("bytes.npy")
    local = content[info.header_offset:info.header_offset + 30]
    name_length, extra_length = struct.unpack("<HH", local[26:30])
    assert local[18:26] == b"\xff" * 8  # numpy.savez writes zip64: sizes in the extra field
    assert extra_length == 20
    npy_start = info.header_offset + 30 + name_length + extra_length
    assert content[npy_start:npy_start + 6] == b"\x93NUMPY"
    header_length = struct.unpack("<H", content[npy_start + 8:npy_start + 10])[0]
    assert entry.offset == npy_start + 10 + header_length


def test_fortran_order_member_is_shown_transposed(tmp_path, shown):
    path = tmp_path / "f.npz"
    array = np.asfortranarray(np.arange(6, dtype="<i4").reshape(2, 3))
    np.savez(path, f=array)
    entry = find_entry(list_file(str(path)), "f")
    assert entry.shape == (3, 2)
    assert entry.extras == {"member": "f.npy", "fortran_order": True}
    assert entry.stored_type == "<i4"
    values, _ = shown(path, "f")
    np.testing.assert_array_equal(values, array.T)


def test_compressed_members_are_copies_not_views(tmp_path):
    path = tmp_path / "c.npz"
    np.savez_compressed(path, a=np.zeros(1000), b=np.ones(3))
    listing = list_file(str(path))
    assert [e.name for e in listing.entries] == ["a", "b"]
    entry = listing.entries[0]
    assert entry.storage is Storage.COPY and not entry.mappable and entry.readable
    assert entry.problem is None
    with pytest.raises(ContainerError, match="tensor 'a' holds copy values, not a view of the file"):
        entry.params()
    # dtype and shape come from the member's decompressed .npy header alone
    assert (entry.dtype, entry.little_endian, entry.shape) == ("float64", True, (1000,))
    assert entry.extras == {"member": "a.npy", "compressed": "deflate", "decompressed bytes": 8000}


def test_decompressed_values_are_a_copy_checked_against_the_header(tmp_path):
    path = tmp_path / "c.npz"
    fortran = np.asfortranarray(np.arange(6, dtype=">i2").reshape(2, 3))
    np.savez_compressed(path, a=np.arange(12, dtype="<f4").reshape(3, 4), f=fortran)
    with open_source(str(path)) as source:
        listing = list_npz(HeaderReader(source, 0, "npz"))
        a = decompressed_values(source, find_entry(listing, "a"))
        assert a.dtype == np.dtype("<f4") and a.tolist() == np.arange(12).reshape(3, 4).tolist()
        # a Fortran-order member: axes reversed, values in file order (as a stored one is shown)
        f = decompressed_values(source, find_entry(listing, "f"))
        assert f.dtype == np.dtype(">i2") and f.tolist() == [[0, 3], [1, 4], [2, 5]]
        with pytest.raises(ContainerError, match="'a' is not a compressed npz member"):
            decompressed_values(source, dataclasses.replace(find_entry(listing, "a"), extras={}))


def test_a_compressed_member_over_the_budget_or_lying_about_its_size_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "c.npz"
    np.savez_compressed(path, big=np.zeros((1000, 1000), np.uint8))
    with open_source(str(path)) as source:
        entry = list_file(str(path)).entries[0]
        assert entry.extras["decompressed bytes"] == 1_000_000
        monkeypatch.setattr("core.budget.COPY_BUDGET_BYTES", 500_000)
        with pytest.raises(BudgetError, match="decompressing npz member 'big.npy' would copy "
                           "976.6 KiB, above the 488.3 KiB copy budget"):
            decompressed_values(source, entry)
    # a member whose header promises more values than it holds: refused by the listing
    lying = tmp_path / "lying.npz"
    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (100,), }"
    header += b" " * (118 - len(header)) + b"\n"
    with zipfile.ZipFile(lying, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("x.npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header
                         + np.zeros(10).tobytes())
    entry = list_file(str(lying)).entries[0]
    assert "its header promises (100,) float64 values (800 bytes from byte 129) but the file has " \
        "only 80 bytes of data" in entry.problem and "compressed" not in entry.extras
    with open_source(str(lying)) as source, pytest.raises(ContainerError, match="not a compressed npz member"):
        decompressed_values(source, entry)


def test_compressed_bytes_can_still_be_seen_raw(tmp_path, shown):
    path = tmp_path / "c.npz"
    np.savez_compressed(path, a=np.zeros(1000))
    entry = list_file(str(path)).entries[0]
    values, _ = shown(path, "a", DecodeParams(dtype="uint8"))
    assert values.size == entry.nbytes and bytes(values) == path.read_bytes()[
        entry.offset:entry.offset + entry.nbytes]


def test_other_members_are_listed_with_a_problem(tmp_path):
    path = tmp_path / "mixed.npz"
    np.savez(path, x=np.arange(3))
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("README.txt", "not an array")
    listing = list_file(str(path))
    assert [e.mappable for e in listing.entries] == [True, False]
    assert listing.entries[1].problem == ("npz member 'README.txt': not a .npy member (np.load "
                                          "would not return it as an array)")


def test_listing_reads_headers_only(tmp_path):
    path = tmp_path / "big.npz"
    np.savez(path, a=np.zeros(2_000_000), b=np.ones(1_000_000))
    with open_source(str(path)) as source:
        reader = HeaderReader(source, 0, "npz")
        listing = list_npz(reader)
        assert len(listing.entries) == 2
        assert reader.consumed < 70_000  # 24 MB of data: only the directory and headers read


def test_bfloat16_member_asks_for_its_type(tmp_path, shown):
    import ml_dtypes

    path = tmp_path / "bf.npz"
    values = np.array([1.5, -2.0, 0.25], dtype=ml_dtypes.bfloat16)
    np.savez(path, w=values)
    entry = find_entry(list_file(str(path)), "w")
    assert entry.problem == ("npz member 'w.npy': its dtype '<V2' is numpy's name for a type "
                             "numpy does not know (ml_dtypes' bfloat16 is '<V2'): open it with an "
                             "explicit dtype, e.g. --dtype bfloat16")
    assert (entry.shape, entry.nbytes) == ((3,), 6)
    shown_values, _ = shown(path, "w", DecodeParams(dtype="bfloat16"))
    np.testing.assert_array_equal(shown_values.astype(np.float32), values.astype(np.float32))


def test_a_corrupt_compressed_member_is_refused_with_a_message(tmp_path):
    path = tmp_path / "c.npz"
    np.savez_compressed(path, a=np.arange(4000, dtype=np.int32))
    entry = list_file(str(path)).entries[0]
    data = bytearray(path.read_bytes())
    data[entry.offset + entry.nbytes // 2] ^= 0xFF  # inside the deflate stream, past the header
    path.write_bytes(bytes(data))
    with open_source(str(path)) as source:
        with pytest.raises(ContainerError, match=r"member 'a.npy': it does not decompress \(") as caught:
            decompressed_values(source, entry)
    assert caught.value.field == "tensor"


# -- issue 30 ---------------------------------------------------------------------------------
def test_three_thousand_compressed_members_are_all_listed(tmp_path):
    """Item 16: the zip directory is read once per listing, not once per compressed member
    (on main 2,593 members were "listing needs more than 64 MiB of header bytes")."""
    path = tmp_path / "many.npz"
    np.savez_compressed(path, **{f"a{i}": np.arange(i % 7 + 1, dtype=np.float32) + i
                                 for i in range(3000)})
    with open_source(str(path)) as source:
        reader = HeaderReader(source, 0, "npz")
        listing = list_npz(reader)
        assert reader.consumed < 2_000_000
        assert len(listing.entries) == 3000
        assert [e.name for e in listing.entries if not e.readable] == []
        last = find_entry(listing, "a2999")
        assert last.shape == (4,)  # 2999 % 7 + 1
        assert decompressed_values(source, last).tolist() == [2999.0, 3000.0, 3001.0, 3002.0]


def test_a_duplicated_compressed_member_is_the_last_one_as_np_load_gives(tmp_path, shown):
    """Item 14: a zip with two compressed members of one name; np.load returns the later."""
    import io
    import warnings

    path = tmp_path / "dup.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate name
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for value in (1, 2):
                member = io.BytesIO()
                np.save(member, np.full(3, value, np.int16))
                archive.writestr("a.npy", member.getvalue())
    entries = list_file(str(path)).entries
    assert [e.name for e in entries] == ["a", "a"]
    assert entries[0].problem == ("npz member 'a.npy': a later member of the zip has the same name, "
                                  "and np.load returns only that one (this copy is listed, not "
                                  "shown; the file was written twice under one name)")
    assert entries[1].readable and entries[1].problem is None
    with np.load(path) as loaded:
        assert loaded["a"].tolist() == [2, 2, 2]
    with open_source(str(path)) as source:
        assert decompressed_values(source, entries[1]).tolist() == [2, 2, 2]


def test_a_lying_directory_offset_quotes_the_field_not_a_negative_byte(tmp_path):
    """Item 23: the end record's directory offset moved by 2**31: zipfile shifts every member's
    offset by -2**31 (main quoted 'byte -2147483469'); the message gives the field's value."""
    path = tmp_path / "lie.npz"
    with zipfile.ZipFile(path, "w") as archive:
        with archive.open("x.npy", "w") as member:
            np.lib.format.write_array(member, np.arange(3, dtype="<i4"))
    content = bytearray(path.read_bytes())
    end = content.rfind(b"PK\x05\x06")
    directory = struct.unpack("<I", content[end + 16:end + 20])[0]
    content[end + 16:end + 20] = struct.pack("<I", directory + 2**31)
    path.write_bytes(bytes(content))
    (entry,) = list_file(str(path)).entries
    size = len(content)
    assert entry.problem == (
        "npz member 'x.npy': its directory entry's local header offset field is 0 (moved by "
        f"-2147483648 bytes because the end record places the directory at byte {directory + 2**31} "
        f"while it is at byte {directory}), so the local header would be at byte -2147483648; it "
        f"must be between 0 and {size - 30} (the file has {size} bytes): the zip directory is corrupt")
    assert entry.offset == 0 and "-2147483469" not in entry.problem
