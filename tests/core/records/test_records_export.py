"""core.export.records.export_records: records to CSV (a header row, the table's values) and to a
structured .npy (a field per field, byte orders kept, bit fields computed), streamed, atomic,
never onto the inspected file. Expected values come from the writers' own readers: gcc's fread
of its struct, numpy's view of the array it wrote with tofile."""

from __future__ import annotations

import csv
import os
import tracemalloc

import numpy as np
import pytest

from core.errors import BudgetError, Cancelled, CoreError, ExportError, SourceError
from core.export.records import export_records, read_records, records_range
from core.files.sources import open_source
from core.records.c_decl import parse_c_layout
from core.records.choice import RecordRows
from core.records.field_list import parse_field_list, parse_numpy_layout

# A record of every kind of leaf numpy can write: big-endian fields, an array, bool, float16,
# complex, a uint64 beyond 2**53, padding between fields.
DESCRIPTION = {"names": ["ts", "ch", "t", "ok", "h", "z", "big"],
               "formats": ["<u4", (">i2", (2, 2)), ">f8", "?", "<f2", "<c8", ">u8"],
               "offsets": [0, 4, 12, 20, 22, 24, 32], "itemsize": 48}
DTYPE = np.dtype(DESCRIPTION)


def _numpy_layout():
    return parse_numpy_layout(repr(DESCRIPTION))  # the text --numpy-fields takes


@pytest.fixture
def numpy_file(tmp_path):
    """A 16-byte header, 100 records written by numpy's tofile, 5 trailing bytes."""
    data = np.zeros(100, DTYPE)
    i = np.arange(100)
    data["ts"] = i * 3
    data["ch"] = (i[:, None, None] * np.array([[1, -1], [100, -100]])).astype(np.int16)
    data["t"] = i / 7
    data["t"][5], data["t"][6] = np.nan, -np.inf
    data["ok"] = i % 3 == 0
    data["h"] = (i / 3).astype(np.float16)
    data["z"] = i + 1j * -i
    data["big"] = np.uint64(2**63 + 12345) + i.astype(np.uint64)
    path = tmp_path / "log.bin"
    with open(path, "wb") as out:
        out.write(b"HEADER-16-BYTES!")
        data.tofile(out)
        out.write(b"\xee" * 5)
    return path, np.fromfile(path, DTYPE, offset=16, count=100)  # numpy's own reading of its bytes


# ----------------------------------------------------------------------------- gcc's struct
def test_csv_of_gccs_records_reads_back_as_gccs_values(gcc_records, tmp_path):
    folder, expected = gcc_records.folder, gcc_records.values
    layout = parse_c_layout(gcc_records.header, "rec")
    out = tmp_path / "rec.csv"
    with open_source(folder / "rec.bin") as source:
        written = export_records(source, layout, out, "csv", chunk_bytes=4096)
    assert written == out.stat().st_size
    with open(out, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["ts", "ch[0]", "ch[1]", "ch[2]", "gain", "flags", "level", "delta", "m", "when"]
    assert len(rows) == gcc_records.count + 1
    body = rows[1:]
    assert [int(r[0]) for r in body] == expected["ts"].tolist()
    assert [[int(v) for v in r[1:4]] for r in body] == expected["ch"].tolist()
    gains = np.array([np.float32(r[4]) for r in body])  # the table's digits read back as float32
    np.testing.assert_array_equal(gains, expected["gain"])  # NaN where gcc wrote NaN
    assert [int(r[5]) for r in body] == expected["flags"].tolist()
    assert [int(r[6]) for r in body] == expected["level"].tolist()
    assert [int(r[7]) for r in body] == expected["delta"].tolist()  # signed 5-bit field, sign-extended
    assert [int(r[8]) for r in body] == expected["m"].tolist()  # enums as their integers
    assert [float(r[9]) for r in body] == expected["when"].tolist()
    assert body[97][4] == "nan" and body[1][4] == "-0.75" and body[4][9] == "0.004"


def test_csv_enum_names_and_columns_in_the_order_given(gcc_records, tmp_path):
    folder, expected = gcc_records.folder, gcc_records.values
    layout = parse_c_layout(gcc_records.header, "rec")
    out = tmp_path / "m.csv"
    with open_source(folder / "rec.bin") as source:
        export_records(source, layout, out, "csv", columns=["m", "ch[2]", "delta"], enum_names=True,
                       records=range(0, 6))
    assert out.read_text().splitlines() == [
        "m,ch[2],delta", "FAULT,-32768,-16", "RUN,32767,-15", "IDLE,-32768,-14", "FAULT,32767,-13",
        "RUN,-32768,-12", "IDLE,32767,-11"]
    assert expected["m"][:6].tolist() == [7, 1, 0, 7, 1, 0]


def test_npy_of_gccs_records_loads_field_by_field(gcc_records, tmp_path):
    folder, expected = gcc_records.folder, gcc_records.values
    layout = parse_c_layout(gcc_records.header, "rec")
    out = tmp_path / "rec.npy"
    with open_source(folder / "rec.bin") as source:
        export_records(source, layout, out, "npy", chunk_bytes=1000)
    loaded = np.load(out)
    assert loaded.dtype == np.dtype([("ts", "<u4"), ("ch", "<i2", (3,)), ("gain", "<f4"), ("flags", "u1"),
                                     ("level", "u1"), ("delta", "i1"), ("m", "<i4"), ("when", "<f8")])
    assert loaded.shape == (gcc_records.count,)
    for name in ("ts", "ch", "gain", "flags", "level", "delta", "m", "when"):
        np.testing.assert_array_equal(loaded[name], expected[name], err_msg=name)


# ----------------------------------------------------------------------------- numpy's array
def test_npy_keeps_each_fields_type_and_byte_order(numpy_file, tmp_path):
    path, data = numpy_file
    out = tmp_path / "r.npy"
    with open_source(path) as source:
        export_records(source, _numpy_layout(), out, "npy", header=16)
    loaded = np.load(out)
    assert loaded.dtype == np.dtype([("ts", "<u4"), ("ch", ">i2", (2, 2)), ("t", ">f8"), ("ok", "?"),
                                     ("h", "<f2"), ("z", "<c8"), ("big", ">u8")])  # packed, orders kept
    for name in DTYPE.names:
        np.testing.assert_array_equal(loaded[name], data[name], err_msg=name)
    assert loaded["big"][99] == 2**63 + 12345 + 99


def test_csv_of_numpy_records(numpy_file, tmp_path):
    path, data = numpy_file
    out = tmp_path / "r.csv"
    with open_source(path) as source:
        export_records(source, _numpy_layout(), out, "csv", header=16, records=slice(4, 8))
    lines = out.read_text().splitlines()
    assert lines[0] == "ts,ch[0][0],ch[0][1],ch[1][0],ch[1][1],t,ok,h,z,big"
    assert lines[1:] == [
        "12,4,-4,400,-400,0.5714285714285714,0,1.333,(4.0-4.0j),9223372036854788157",
        "15,5,-5,500,-500,nan,0,1.667,(5.0-5.0j),9223372036854788158",
        "18,6,-6,600,-600,-inf,1,2.0,(6.0-6.0j),9223372036854788159",
        "21,7,-7,700,-700,1.0,0,2.334,(7.0-7.0j),9223372036854788160"]
    assert int(lines[1].split(",")[9]) == int(data["big"][4]) == 2**63 + 12345 + 4
    assert float(lines[1].split(",")[5]) == data["t"][4]
    assert np.float16(lines[4].split(",")[7]) == data["h"][7]  # the shortest float16 text
    assert complex(lines[2].split(",")[8]) == data["z"][5]


def test_one_column_of_an_array_field_is_a_scalar_field(numpy_file, tmp_path):
    path, data = numpy_file
    out = tmp_path / "c.npy"
    with open_source(path) as source:
        export_records(source, _numpy_layout(), out, "npy", header=16, columns=["ch[1][0]", "ts"],
                       records=range(99, -1, -33))
    loaded = np.load(out)
    assert loaded.dtype == np.dtype([("ch[1][0]", ">i2"), ("ts", "<u4")])
    assert loaded["ch[1][0]"].tolist() == data["ch"][[99, 66, 33, 0], 1, 0].tolist() == [9900, 6600, 3300, 0]
    assert loaded["ts"].tolist() == [297, 198, 99, 0]


def test_bool_bytes_above_one_are_written_as_one(tmp_path):
    path = tmp_path / "b.bin"
    path.write_bytes(bytes([0, 1, 2, 255]))
    layout = parse_field_list("ok:bool")
    with open_source(path) as source:
        export_records(source, layout, tmp_path / "b.npy", "npy")
        export_records(source, layout, tmp_path / "b.csv", "csv")
    assert np.load(tmp_path / "b.npy").view(np.uint8).tolist() == [0, 1, 1, 1]
    assert (tmp_path / "b.csv").read_text() == "ok\n0\n1\n1\n1\n"


def test_bfloat16_fields_are_written_as_float32(tmp_path):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    values = np.array([1 / 3, -2.5, np.inf, 3e38], ml_dtypes.bfloat16)
    path = tmp_path / "bf.bin"
    path.write_bytes(values.astype(values.dtype.newbyteorder(">")).tobytes())
    with open_source(path) as source:
        export_records(source, parse_field_list("x:>bf16"), tmp_path / "bf.npy", "npy")
    loaded = np.load(tmp_path / "bf.npy")
    assert loaded.dtype == np.dtype([("x", ">f4")])
    assert loaded["x"].tolist() == values.astype(np.float32).tolist()  # exact: every bfloat16 is a float32


def test_no_records_give_a_header_only(tmp_path):
    path = tmp_path / "h.bin"
    path.write_bytes(b"12345678")
    layout = parse_field_list("a:u32, b:f32")
    with open_source(path) as source:
        export_records(source, layout, tmp_path / "e.csv", "csv", header=8)
        export_records(source, layout, tmp_path / "e.npy", "npy", header=8)
        export_records(source, layout, tmp_path / "s.csv", "csv", records=slice(5, 1))
    assert (tmp_path / "e.csv").read_text() == "a,b\n"
    assert np.load(tmp_path / "e.npy").shape == (0,)
    assert (tmp_path / "s.csv").read_text() == "a,b\n"


def test_progress_counts_records_and_reads_back_in_order(numpy_file, tmp_path):
    path, data = numpy_file
    seen = []
    with open_source(path) as source:
        export_records(source, _numpy_layout(), tmp_path / "p.npy", "npy", header=16, chunk_bytes=48 * 30,
                       progress=lambda done, total: seen.append((done, total)))
        blocks = [b.copy() for b in read_records(source, _numpy_layout(), header=16, records=range(1, 100, 2),
                                                 chunk_bytes=48 * 7)]
    assert seen == [(30, 100), (60, 100), (90, 100), (100, 100)]
    assert np.concatenate(blocks)["ts"].tolist() == data["ts"][1::2].tolist()


def test_records_range_rules():
    assert records_range(None, 5) == range(5)
    assert records_range(slice(None, None, -2), 5) == range(4, -1, -2)
    assert records_range(slice(-2, None), 5) == range(3, 5)
    assert records_range(range(1, 5, 3), 5) == range(1, 5, 3)
    assert records_range(RecordRows(4, -2, 3), 5) == range(4, -2, -2)  # a records window's rows: 4, 2, 0
    with pytest.raises(CoreError, match="step of 0") as caught:
        records_range(slice(None, None, 0), 5)
    assert caught.value.field == "records"
    with pytest.raises(CoreError, match=r"records 3:9:1 are not all among the 5 records \(0 to 4\)"):
        records_range(range(3, 9), 5)


# ----------------------------------------------------------------------------- hostile
def test_onto_the_inspected_file_is_refused_and_it_stays_as_it_was(numpy_file, tmp_path):
    path, _data = numpy_file
    before = path.read_bytes()
    link = tmp_path / "link.csv"
    link.symlink_to(path)
    with open_source(path) as source:
        for target in (path, link):
            with pytest.raises(ExportError, match="is the file being inspected") as caught:
                export_records(source, _numpy_layout(), target, "csv", header=16)
            assert caught.value.field == "path"
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "log.bin"]


def test_a_folder_that_does_not_exist(numpy_file, tmp_path):
    path, _data = numpy_file
    with open_source(path) as source, pytest.raises(ExportError, match="Cannot write in .*missing.*choose a folder"):
        export_records(source, _numpy_layout(), tmp_path / "missing" / "r.npy", "npy", header=16)
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("fmt", ["csv", "npy"])
def test_cancel_in_the_middle_leaves_no_file(numpy_file, tmp_path, fmt):
    path, _data = numpy_file
    out = tmp_path / f"r.{fmt}"
    seen = []
    with open_source(path) as source, pytest.raises(Cancelled):
        export_records(source, _numpy_layout(), out, fmt, header=16, chunk_bytes=48 * 10,
                       progress=lambda done, total: seen.append(done), cancelled=lambda: len(seen) >= 3)
    assert seen == [10, 20, 30]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.bin"]  # no partial file, no .part


def test_cancel_keeps_an_existing_destination(numpy_file, tmp_path):
    path, _data = numpy_file
    out = tmp_path / "keep.csv"
    out.write_text("old\n")
    with open_source(path) as source, pytest.raises(Cancelled):
        export_records(source, _numpy_layout(), out, "csv", header=16, cancelled=lambda: True)
    assert out.read_text() == "old\n"


def test_a_layout_larger_than_the_file(tmp_path):
    path = tmp_path / "small.bin"
    path.write_bytes(bytes(10))
    with open_source(path) as source:
        with pytest.raises(CoreError, match="a record is 16 bytes, more than the 10 bytes after the header") as caught:
            export_records(source, parse_field_list("a:u64, b:f64"), tmp_path / "out.csv", "csv")
        assert caught.value.field == "fields"
        with pytest.raises(CoreError, match=r"the header \(11 bytes\) is longer than the file \(10 bytes\)") as caught:
            export_records(source, parse_field_list("a:u8"), tmp_path / "out.csv", "csv", header=11)
        assert caught.value.field == "offset"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.bin"]


def test_a_file_cut_during_the_export_leaves_nothing(tmp_path):
    path = tmp_path / "cut.bin"
    path.write_bytes(np.arange(100_000, dtype="<u4").tobytes())
    out = tmp_path / "out.csv"

    def cut(done, total):
        if done == 1000:
            os.truncate(path, 8000)

    with open_source(path) as source, pytest.raises(SourceError, match="changed"):
        export_records(source, parse_field_list("v:u32"), out, "csv", chunk_bytes=4000, progress=cut)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.bin"]


def test_bad_arguments_say_what_to_do(numpy_file, tmp_path):
    path, _data = numpy_file
    out = tmp_path / "x.csv"
    layout = _numpy_layout()
    with open_source(path) as source:
        with pytest.raises(ExportError, match=r"Unknown records export format 'bin' \(use one of csv, npy\)"):
            export_records(source, layout, out, "bin", header=16)
        with pytest.raises(ExportError, match="csv_decimals must be >= 0"):
            export_records(source, layout, out, "csv", header=16, csv_decimals=-1)
        with pytest.raises(CoreError, match=r"the record has no field 'nope' \(its fields: ts, ch, t") as caught:
            export_records(source, layout, out, "csv", header=16, columns=["nope"])
        assert caught.value.field == "field"
        with pytest.raises(CoreError, match="'ts' is named twice"):
            export_records(source, layout, out, "csv", header=16, columns=["ts", "t", "ts"])
        with pytest.raises(CoreError, match="not all among the 100 records"):
            export_records(source, layout, out, "npy", header=16, records=range(90, 101))
    assert not out.exists()


def test_a_record_beyond_the_copy_budget_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "wide.bin"
    path.write_bytes(bytes(4096))
    monkeypatch.setattr("core.budget.COPY_BUDGET_BYTES", 1000)
    with open_source(path) as source, pytest.raises(BudgetError, match="one record would copy"):
        export_records(source, parse_field_list("a:u8[2048]"), tmp_path / "w.npy", "npy")


def test_too_many_csv_columns_are_refused(tmp_path):
    path = tmp_path / "wide.bin"
    path.write_bytes(bytes(70_000))
    with open_source(path) as source, pytest.raises(ExportError, match=r"70,000 columns, more than the 65,536"):
        export_records(source, parse_field_list("a:u8[70000]"), tmp_path / "w.csv", "csv")


@pytest.mark.parametrize("fmt", ["csv", "npy"])
def test_1e8_records_stream_in_bounded_memory(tmp_path, fmt):
    """10**8 records of 16 bytes (a sparse 1.6 GB file): the export reads and writes block by block
    (its peak memory is a few blocks), so it is stopped after a few blocks here."""
    path = tmp_path / "huge.bin"
    with open(path, "wb") as f:
        f.truncate(16 * 10**8)
    seen = []
    tracemalloc.start()
    try:
        with open_source(path) as source, pytest.raises(Cancelled):
            export_records(source, parse_field_list("ts:u32, ch:i16[4], gain:f32"), tmp_path / f"o.{fmt}", fmt,
                           progress=lambda done, total: seen.append((done, total)), cancelled=lambda: len(seen) >= 4)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert seen[-1][1] == 10**8 and len(seen) == 4
    assert peak < 64 << 20, peak
    assert sorted(p.name for p in tmp_path.iterdir()) == ["huge.bin"]
