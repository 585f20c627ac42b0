"""Records inside containers: HDF5 compound datasets written by h5py and structured npz members
written by numpy list as rows of bytes with a record layout, and print as records; every value
printed is the writer's own reader's (h5py, np.load)."""

from __future__ import annotations

import json
import re
import struct
import zipfile

import numpy as np
import pytest

from core.budget import BudgetError
from core.cli import main
from core.errors import ContainerError, CoreError, SourceError
from core.files.sources import open_source
from core.formats.entry import Storage, find_entry
from core.formats.entry_records import entry_records, file_records
from core.formats.registry import list_file
from core.records.field_list import parse_field_list, parse_numpy_layout

h5py = pytest.importorskip("h5py")

#: A logger's record: padding after ts and after ch, a big-endian float (40 bytes).
LOG = np.dtype({"names": ["ts", "ch", "gain"], "formats": ["<u4", ("<i2", (4,)), ">f8"],
                "offsets": [0, 8, 24], "itemsize": 40})
BIG = np.dtype([("a", ">i4"), ("b", ">f4"), ("c", ">u2")])
NESTED = np.dtype([("id", "<u2"), ("imu", [("acc", ">f4", (3,)), ("t", "<i8")]),
                   ("pts", [("x", "<i2"), ("y", "<i2")], (2,))])
NAMED = np.dtype([("n", "<i4"), ("label", "S6")])


def log_records(count: int = 5) -> np.ndarray:
    data = np.zeros(count, LOG)
    data["ts"] = np.arange(count) * 1000 + 7
    data["ch"] = np.arange(count * 4).reshape(count, 4) - 9
    data["gain"] = np.arange(count) / 4 - 0.5
    return data


def big_records() -> np.ndarray:
    return np.array([(1, 0.5, 65535), (-70000, -2.25, 3), (1 << 30, 1e-3, 0)], BIG)


def nested_records() -> np.ndarray:
    data = np.zeros(3, NESTED)
    data["id"] = [11, 12, 13]
    data["imu"]["acc"] = np.arange(9, dtype=np.float32).reshape(3, 3) / 8
    data["imu"]["t"] = [-1, 1 << 40, 5]
    data["pts"]["x"] = [[1, 2], [3, 4], [5, 6]]
    data["pts"]["y"] = [[-1, -2], [-3, -4], [-5, -6]]
    return data


@pytest.fixture(scope="module")
def h5(tmp_path_factory):
    path = tmp_path_factory.mktemp("records") / "records.h5"
    with h5py.File(path, "w") as out:
        out.create_dataset("log", data=log_records())
        out.create_dataset("log_gzip", data=log_records(), chunks=(2,), compression="gzip")
        out.create_dataset("big", data=big_records())
        out.create_dataset("nested", data=nested_records())
        out.create_dataset("named", data=np.array([(1, b"alpha"), (-2, b"beta!!")], NAMED))
        out.create_dataset("grid", data=log_records(6).reshape(2, 3))
        text = np.zeros(2, [("n", "<i4"), ("s", h5py.string_dtype())])
        text["s"] = ["x", "yy"]
        out.create_dataset("vlen", data=text)
        out.create_dataset("z", data=(np.arange(3) * (1 + 2j)).astype(np.complex64))
    return path


def expected_columns(array: np.ndarray, prefix: str = "") -> dict[str, np.ndarray]:
    """Each column's values, taken from the reader's structured array by numpy's own indexing
    (a string member: its bytes, one column per byte)."""
    flat = array.reshape(-1)
    out: dict[str, np.ndarray] = {}
    for name in flat.dtype.names:
        member = flat.dtype.fields[name][0]
        element = member.base if member.shape else member
        for index in np.ndindex(*member.shape) if member.shape else [()]:
            values = flat[name][(slice(None),) + index]
            label = prefix + name + "".join(f"[{i}]" for i in index)
            if element.names is not None:
                out.update(expected_columns(values, label + "."))
            elif element.kind in "SV":
                raw = np.frombuffer(values.tobytes(), np.uint8).reshape(-1, element.itemsize)
                out.update({f"{label}[{k}]": raw[:, k] for k in range(element.itemsize)})
            else:
                out[label] = values
    return out


def printed(capsys, path, name: str, *options: str) -> dict:
    assert main([str(path), "--tensor", name, "--json", "--limit", "100000", *options]) == 0
    return json.loads(capsys.readouterr().out)


def assert_same_records(document: dict, array: np.ndarray) -> None:
    """Every value of the command's JSON equals the reader's, column by column."""
    expected = expected_columns(array)
    assert document["records"] == array.size and not document["truncated"]
    assert list(document["values"][0]) == list(expected)
    for column, values in expected.items():
        got = np.array([record[column] for record in document["values"]], dtype=values.dtype.newbyteorder("="))
        np.testing.assert_array_equal(got, values, err_msg=column)


def h5_read(path, name: str) -> np.ndarray:
    with h5py.File(path, "r") as handle:
        return handle[name][()]


@pytest.mark.parametrize("name", ["log", "log_gzip", "big", "nested", "named", "grid"])
def test_every_printed_value_is_what_h5py_reads(h5, capsys, name):
    assert_same_records(printed(capsys, h5, name), h5_read(h5, name))


def test_the_layout_is_the_file_types_offsets_and_byte_orders(h5):
    listing = list_file(str(h5))
    log = find_entry(listing, "log")
    assert (log.dtype, log.shape, log.storage, log.stored_type) == ("uint8", (5, 40), Storage.VIEW, "compound")
    assert dict(log.extras) == {"record size": 40, "fields": 3}
    layout = parse_numpy_layout(log.record_layout)
    assert [(f.name, f.offset, f.dtype, f.shape, f.little_endian) for f in layout.fields] == [
        ("ts", 0, "uint32", (), True), ("ch", 8, "int16", (4,), True), ("gain", 24, "float64", (), False)]
    nested = parse_numpy_layout(find_entry(listing, "nested").record_layout)
    assert [(f.name, f.offset) for f in nested.fields] == [
        ("id", 0), ("imu.acc", 2), ("imu.t", 14), ("pts[0].x", 22), ("pts[0].y", 24), ("pts[1].x", 26),
        ("pts[1].y", 28)]
    assert nested.itemsize == 30 and nested.field_named("imu.acc").little_endian is False
    assert find_entry(listing, "grid").shape == (2, 3, 40)


@pytest.mark.parametrize("name", ["log", "big", "nested", "named"])
def test_a_contiguous_dataset_is_a_view_whose_bytes_decode_to_h5pys_values(h5, name):
    listing = list_file(str(h5))
    entry = find_entry(listing, name)
    assert entry.storage is Storage.VIEW and entry.mappable
    stored = h5_read(h5, name)
    raw = np.frombuffer(h5.read_bytes()[entry.offset:entry.offset + entry.nbytes], np.uint8)
    assert raw.size == stored.size * stored.dtype.itemsize
    layout = parse_numpy_layout(entry.record_layout)
    records = layout.records(raw)
    for column in layout.columns():
        np.testing.assert_array_equal(layout.values(records, column), expected_columns(stored)[column.name])
    with open_source(str(h5)) as source:  # the one reader: pread of the listed file
        read = entry_records(source, listing, entry)
        assert (read.count, read.itemsize, read.note) == (stored.size, stored.dtype.itemsize, None)
        assert read.read(1, 2) == raw[layout.itemsize:3 * layout.itemsize].tobytes()
        assert read.read(stored.size - 1, 10) == raw[-layout.itemsize:].tobytes()  # fewer at the end


def test_a_chunked_compressed_dataset_is_a_copy_of_its_records_bytes(h5, monkeypatch):
    listing = list_file(str(h5))
    entry = find_entry(listing, "log_gzip")
    assert entry.storage is Storage.COPY and entry.extras["chunks"] == (2,) and entry.extras["filters"] == "deflate"
    assert entry.extras["record size"] == 40
    with open_source(str(h5)) as source:
        read = entry_records(source, listing, entry)
        assert "in chunks of (2,)" in read.note and "a copy of 200 bytes" in read.note
        records = read.records(0, read.count)
        np.testing.assert_array_equal(records["gain"], log_records()["gain"])
        np.testing.assert_array_equal(records["ch"], log_records()["ch"])
        monkeypatch.setattr("core.budget.COPY_BUDGET_BYTES", 199)
        with pytest.raises(BudgetError, match="copy budget"):
            entry_records(source, listing, entry)


def test_a_string_member_is_shown_as_its_bytes_and_said(h5, capsys):
    entry = find_entry(list_file(str(h5)), "named")
    assert entry.extras["as bytes"] == "label"
    document = printed(capsys, h5, "named", "--field", "label")
    assert document["values"] == [list(b"alpha\0"), list(b"beta!!")]


def test_a_variable_length_member_keeps_a_problem_naming_it(h5, capsys):
    entry = find_entry(list_file(str(h5)), "vlen")
    assert entry.dtype is None and "the member 's' holds objects" in entry.problem
    assert main([str(h5), "--tensor", "vlen"]) == 2
    assert "the member 's' holds objects" in capsys.readouterr().err
    # its bytes (heap references) still show when asked for
    assert printed(capsys, h5, "vlen", "--dtype", "uint8")["size"] == entry.nbytes


def test_h5py_complex_data_stays_a_complex_tensor(h5, capsys):
    entry = find_entry(list_file(str(h5)), "z")
    assert (entry.dtype, entry.record_layout) == ("complex64", None)
    assert printed(capsys, h5, "z")["values"] == [[0.0, 0.0], [1.0, 2.0], [2.0, 4.0]]


def test_matlab_complex_arrays_are_records_of_real_and_imag(tmp_path, capsys):
    path = tmp_path / "v73.mat"  # MATLAB 7.3: HDF5 after a 512-byte user block, complex as {real, imag}
    values = np.zeros((3, 2), [("real", "<f8"), ("imag", "<f8")])
    values["real"] = [[1, 2], [3, 4], [5, 6]]
    values["imag"] = [[-0.5, 0], [0.25, 1], [9, -9]]
    with h5py.File(path, "w", userblock_size=512) as out:
        out.create_dataset("z", data=values).attrs["MATLAB_class"] = np.bytes_("double")
    entry = find_entry(list_file(str(path)), "z")
    assert entry.offset >= 512 and entry.shape == (3, 2, 16) and dict(entry.extras) == {"record size": 16,
                                                                                           "fields": 2}
    document = printed(capsys, path, "z")
    assert [f["name"] for f in document["fields"]] == ["real", "imag"]
    assert_same_records(document, h5_read(path, "z"))


def test_the_table_the_list_and_the_bytes(h5, capsys):
    assert main([str(h5), "--tensor", "log", "--limit", "2"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].split() == ["#", "ts", "ch[0]", "ch[1]", "ch[2]", "ch[3]", "gain"]
    assert lines[1].split() == ["0", "7", "-9", "-8", "-7", "-6", "-0.5"]
    assert "2 of 5 records shown" in captured.err
    assert main([str(h5), "--list"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("log "))
    assert row.split()[:4] == ["log", "uint8", "(5,", "40)"] and "record size 40; fields 3" in row
    assert main([str(h5), "--list", "--json"]) == 0
    listed = {t["name"]: t for t in json.loads(capsys.readouterr().out)["tensors"]}
    assert parse_numpy_layout(listed["log"]["record_layout"]).itemsize == 40 and listed["z"]["record_layout"] is None
    entry = find_entry(list_file(str(h5)), "log")
    raw = list(h5.read_bytes()[entry.offset:entry.offset + entry.nbytes])
    shown = printed(capsys, h5, "log", "--dtype", "uint8")
    assert shown["shape"] == [5, 40] and sum(shown["values"], []) == raw


def test_records_ignore_tensor_options_and_say_so(h5, capsys):
    assert main([str(h5), "--tensor", "log", "--shape", "5,8", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["records"] == 5 and "--shape apply to a tensor, not to records" in captured.err


def test_slice_chooses_an_entrys_records(h5, capsys):
    assert main([str(h5), "--tensor", "log", "--slice", "[::-2]", "--json"]) == 0
    captured = capsys.readouterr()
    shown = json.loads(captured.out)
    assert (shown["records"], shown["selected"], shown["indices"]) == (5, 3, [4, 2, 0])
    expected = h5_read(h5, "log")[::-2]  # h5py's records 4, 2, 0
    assert [r["ts"] for r in shown["values"]] == expected["ts"].tolist() == [4007, 2007, 7]
    assert [r["gain"] for r in shown["values"]] == expected["gain"].tolist()
    assert "not to records" not in captured.err


# ---------------------------------------------------------------------- npz
@pytest.fixture
def npz(tmp_path):
    grid = log_records(6).reshape(2, 3)
    named = np.array([(1, b"alpha"), (-2, b"beta!!")], NAMED)
    path = tmp_path / "stored.npz"
    np.savez(path, log=grid, big=big_records(), nested=nested_records(), named=named,
             fortran=np.asfortranarray(grid), plain=np.arange(3))
    packed = tmp_path / "packed.npz"
    np.savez_compressed(packed, log=grid, nested=nested_records())
    return path, packed


@pytest.mark.parametrize("name", ["log", "big", "nested", "named"])
def test_every_printed_value_of_a_stored_member_is_what_np_load_reads(npz, capsys, name):
    path, _ = npz
    entry = find_entry(list_file(str(path)), name)
    with np.load(path) as loaded:
        stored = loaded[name]
    assert entry.storage is Storage.VIEW and entry.shape == stored.shape + (stored.dtype.itemsize,)
    assert path.read_bytes()[entry.offset:entry.offset + entry.nbytes] == stored.tobytes()
    assert_same_records(printed(capsys, path, name), stored)


@pytest.mark.parametrize("name", ["log", "nested"])
def test_a_compressed_member_prints_its_decompressed_records(npz, capsys, name):
    _, packed = npz
    entry = find_entry(list_file(str(packed)), name)
    assert entry.storage is Storage.COPY and entry.extras["compressed"] == "deflate"
    with np.load(packed) as loaded:
        stored = loaded[name]
    assert_same_records(printed(capsys, packed, name), stored)


def test_a_fortran_order_member_prints_its_records_in_file_order(npz, capsys):
    path, _ = npz
    entry = find_entry(list_file(str(path)), "fortran")
    assert entry.shape == (3, 2, 40) and entry.extras["fortran_order"] is True
    with np.load(path) as loaded:
        stored = loaded["fortran"]
    assert printed(capsys, path, "fortran", "--field", "ts")["values"] == stored["ts"].ravel(order="F").tolist()


def test_a_padded_member_reads_its_padding_as_numpy_does(npz):
    path, _ = npz
    layout = parse_numpy_layout(find_entry(list_file(str(path)), "log").record_layout)
    assert [f.name for f in layout.fields] == ["ts", "ch", "gain"] and layout.itemsize == 40


def test_an_object_member_stays_refused(tmp_path, capsys):
    path = tmp_path / "objects.npz"
    np.savez(path, rows=np.array([(1, "x")], dtype=[("a", "<i4"), ("o", "O")]))
    entry = find_entry(list_file(str(path)), "rows")
    assert entry.dtype is None and entry.record_layout is None and "Python objects" in entry.problem
    assert main([str(path), "--tensor", "rows"]) == 2
    assert "never loaded" in capsys.readouterr().err


def test_a_member_promising_more_records_than_it_holds_is_refused(tmp_path, capsys):
    header = "{'descr': [('a', '<u4'), ('b', '<f4')], 'fortran_order': False, 'shape': (1000,), }"
    header += " " * (64 - 10 - len(header) - 1) + "\n"
    member = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + bytes(16)
    path = tmp_path / "short.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("rows.npy", member)
    entry = find_entry(list_file(str(path)), "rows")
    assert entry.record_layout is None and "promises 8000 bytes of records" in entry.problem
    assert main([str(path), "--tensor", "rows"]) == 2
    assert "promises 8000 bytes" in capsys.readouterr().err


def test_a_compressed_member_over_the_budget_is_refused(npz, monkeypatch):
    _, packed = npz
    listing = list_file(str(packed))
    monkeypatch.setattr("core.budget.COPY_BUDGET_BYTES", 100)
    with open_source(str(packed)) as source, pytest.raises(BudgetError, match="copy budget"):
        entry_records(source, listing, find_entry(listing, "log"))


# ---------------------------------------------------------------------- hostile HDF5
def _patched(path, tmp_path, find: bytes, at: int, value: bytes):
    data = bytearray(path.read_bytes())
    where = [m.start() for m in re.finditer(re.escape(find), bytes(data))]
    assert len(where) == 1  # the patch hits the one field meant
    data[where[0] + at:where[0] + at + len(value)] = value
    out = tmp_path / "patched.h5"
    out.write_bytes(bytes(data))
    return out


@pytest.fixture
def one_log(tmp_path):
    path = tmp_path / "one.h5"
    with h5py.File(path, "w") as out:
        out.create_dataset("log", data=log_records())
    with h5py.File(path, "r") as handle:
        return path, handle["log"].id.get_offset(), handle["log"].id.get_storage_size()


def test_a_compound_declaring_records_larger_than_the_file_is_a_listing_problem(one_log, tmp_path, capsys):
    path, _, _ = one_log
    # the datatype message: version 2, class 6 (compound), 3 members, then its size (40)
    patched = _patched(path, tmp_path, b"\x26\x03\x00\x00\x28\x00\x00\x00", 4, struct.pack("<I", 10_000))
    listing = list_file(str(patched))
    assert listing.entries == () and "invalid dataset size" in listing.problems[0]
    assert main([str(patched), "--tensor", "log"]) == 2
    assert "has no tensor named 'log'" in capsys.readouterr().err


def test_a_compound_declaring_smaller_records_reads_what_h5py_reads(one_log, tmp_path, capsys):
    path, _, _ = one_log
    patched = _patched(path, tmp_path, b"\x26\x03\x00\x00\x28\x00\x00\x00", 4, struct.pack("<I", 32))
    assert find_entry(list_file(str(patched)), "log").shape == (5, 32)
    assert_same_records(printed(capsys, patched, "log"), h5_read(patched, "log"))


def test_data_moved_past_the_end_of_the_file_is_a_listing_problem(one_log, tmp_path):
    path, offset, size = one_log
    patched = _patched(path, tmp_path, struct.pack("<QQ", offset, size), 0,
                       struct.pack("<Q", path.stat().st_size - 16))
    listing = list_file(str(patched))
    assert listing.entries == () and "invalid dataset size" in listing.problems[0]


def test_a_truncated_file_is_refused_in_one_line(one_log, tmp_path, capsys):
    path, offset, _ = one_log
    cut = tmp_path / "cut.h5"
    cut.write_bytes(path.read_bytes()[:offset + 50])
    assert main([str(cut), "--tensor", "log"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: ") and error.count("\n") == 1 and "Traceback" not in error


def test_a_file_cut_after_its_listing_is_changed_on_disk_not_zeros(one_log):
    path, offset, _ = one_log
    listing = list_file(str(path))
    with open_source(str(path)) as source:
        read = entry_records(source, listing, find_entry(listing, "log"))
        with open(path, "r+b") as handle:
            handle.truncate(offset + 50)
        assert read.read(0, 1) == log_records()[:1].tobytes()
        with pytest.raises(SourceError, match="changed on disk|shorter"):
            read.read(0, 5)


# ---------------------------------------------------------------------- the reader itself
def test_file_records_count_from_the_size_and_keep_the_trailing_bytes(tmp_path):
    data = log_records(3)
    path = tmp_path / "log.bin"
    path.write_bytes(b"HDR" + data.tobytes() + b"xy")
    layout = parse_field_list("ts:u32, pad:4, ch:i16[4], pad:8, gain:>f64, size:40")
    with open_source(str(path)) as source:
        read = file_records(source, layout, header=3)
        assert (read.count, read.trailing_bytes, read.itemsize) == (3, 2, 40)
        assert read.read(2, 5) == data[2:].tobytes() and read.read(3, 1) == b""
        np.testing.assert_array_equal(read.records(0, 3)["gain"], data["gain"])
        with pytest.raises(CoreError, match="not among the 3 records"):
            read.read(4, 1)
        with pytest.raises(CoreError, match="not inside the file"):
            file_records(source, layout, header=1000)


def test_an_entry_without_records_is_refused(h5):
    listing = list_file(str(h5))
    with open_source(str(h5)) as source, pytest.raises(ContainerError, match="holds no records"):
        entry_records(source, listing, find_entry(listing, "z"))


def test_a_structured_npy_reads_padding_and_strings_by_the_same_rules(tmp_path, capsys):
    path = tmp_path / "rec.npy"
    np.save(path, log_records(3))  # padded: numpy writes ('', '|V4') fields into the header
    assert_same_records(printed_npy(capsys, path), log_records(3))
    named = np.array([(1, b"alpha"), (-2, b"beta!!")], NAMED)
    np.save(path, named)
    assert_same_records(printed_npy(capsys, path), named)


def printed_npy(capsys, path) -> dict:
    assert main([str(path), "--json", "--limit", "100000"]) == 0
    return json.loads(capsys.readouterr().out)


def test_scalar_unwritten_empty_and_null_compounds(tmp_path, capsys):
    pair = np.dtype([("a", "<i4"), ("b", ">f8")])
    path = tmp_path / "edges.h5"
    with h5py.File(path, "w") as out:
        out.create_dataset("scalar", data=np.array((5, 2.5), pair))
        out.create_dataset("unwritten", shape=(3,), dtype=pair, fillvalue=np.array((7, 1.5), pair))
        out.create_dataset("empty", shape=(0,), dtype=pair)
        out.create_dataset("null", data=h5py.Empty(pair))
    listing = list_file(str(path))
    assert find_entry(listing, "scalar").shape == (12,) and find_entry(listing, "null").shape == (0, 12)
    assert find_entry(listing, "unwritten").storage is Storage.COMPUTED
    assert printed(capsys, path, "scalar")["values"] == [{"a": 5, "b": 2.5}]
    assert_same_records(printed(capsys, path, "unwritten"), h5_read(path, "unwritten"))  # the fill value
    for name in ("empty", "null"):  # h5py reads no element of either
        assert printed(capsys, path, name)["records"] == 0


def test_a_compound_of_more_fields_than_a_table_shows_keeps_a_problem(tmp_path, capsys):
    path = tmp_path / "wide.h5"
    with h5py.File(path, "w") as out:
        out.create_dataset("wide", data=np.zeros(2, [("n", "<i2"), ("pts", [("x", "u1")], (5000,))]))
    entry = find_entry(list_file(str(path)), "wide")
    assert entry.dtype is None and "more than 4,096 fields" in entry.problem
    assert printed(capsys, path, "wide", "--dtype", "uint8")["size"] == 2 * 5002
