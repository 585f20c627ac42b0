"""tensor-inspect FILE --fields ... --export OUT and tensor-inspect scan FILE --fields ...: the
records written as CSV or .npy, and a scan row per field with the figures of that field as the
tensor; exit codes as for tensors."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from core.cli import main
from core.files.sources import open_source
from core.records.c_decl import parse_c_layout
from core.records.field_list import parse_field_list
from core.scan.field_statistics import field_statistics

FIELDS = "ts:u32, ch:i16[2], gain:>f32"
DTYPE = np.dtype([("ts", "<u4"), ("ch", "<i2", (2,)), ("gain", ">f4")])


@pytest.fixture
def log(tmp_path):
    """A 4-byte header and 50 records written by numpy (gain NaN in record 10), 3 trailing bytes."""
    data = np.zeros(50, DTYPE)
    data["ts"] = np.arange(50) * 10
    data["ch"] = np.stack([np.arange(50), -np.arange(50)], axis=1)
    data["gain"] = np.arange(50) / 4
    data["gain"][10] = np.nan
    path = tmp_path / "log.bin"
    path.write_bytes(b"HDR!" + data.tobytes() + b"\x00" * 3)
    return path, np.frombuffer(path.read_bytes()[4:-3], DTYPE)


def test_export_csv_of_a_slice_of_records(log, tmp_path, capsys):
    path, data = log
    out = tmp_path / "out.csv"
    assert main([str(path), "--fields", FIELDS, "--offset", "4", "--slice", "10:20:3", "--export", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}: 4 records as csv ({out.stat().st_size:,} bytes)\n"
    rows = list(csv.DictReader(out.open(newline="")))
    assert [int(r["ts"]) for r in rows] == data["ts"][10:20:3].tolist() == [100, 130, 160, 190]
    assert [int(r["ch[1]"]) for r in rows] == [-10, -13, -16, -19]
    assert [r["gain"] for r in rows] == ["nan", "3.25", "4.0", "4.75"]


def test_export_npy_of_one_field_and_json(log, tmp_path, capsys):
    path, data = log
    out = tmp_path / "ch.npy"
    assert main([str(path), "--fields", FIELDS, "--offset", "4", "--field", "ch", "--export", str(out),
                 "--slice", "::-1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"export": str(out), "format": "npy", "records": 50,
                                                   "bytes": out.stat().st_size}
    loaded = np.load(out)
    assert loaded.dtype == np.dtype([("ch", "<i2", (2,))])
    np.testing.assert_array_equal(loaded["ch"], data["ch"][::-1])


def test_export_of_a_structured_npy_file(tmp_path, capsys):
    data = np.array([(1, 2.5), (2, -1.0)], [("id", ">u2"), ("v", "<f8")])
    path = tmp_path / "rec.npy"
    np.save(path, data)
    out = tmp_path / "copy.npy"
    assert main([str(path), "--export", str(out)]) == 0
    capsys.readouterr()
    loaded = np.load(out)
    assert loaded.dtype == data.dtype and loaded.tolist() == data.tolist()


def test_enum_names_in_a_csv_of_a_c_struct(tmp_path, capsys):
    header = tmp_path / "s.h"
    header.write_text("enum mode { OFF, ON, FAULT = 7 };\nstruct s { unsigned char id; enum mode m; };\n")
    data = np.zeros(3, {"names": ["id", "m"], "formats": ["u1", "<i4"], "offsets": [0, 4], "itemsize": 8})
    data["id"], data["m"] = [1, 2, 3], [0, 7, 5]  # what gcc lays out on x86-64: the enum at byte 4
    (tmp_path / "s.bin").write_bytes(data.tobytes())
    out = tmp_path / "s.csv"
    assert main([str(tmp_path / "s.bin"), "--struct", f"{header}:s", "--export", str(out), "--enum-names"]) == 0
    capsys.readouterr()
    assert out.read_text() == "id,m\n1,OFF\n2,FAULT\n3,5\n"  # 5 has no name: its integer


def test_printing_follows_the_slice(log, capsys):
    path, _data = log
    assert main([str(path), "--fields", FIELDS, "--offset", "4", "--slice", "-2:", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["records"] == 50 and shown["selected"] == 2 and shown["indices"] == [48, 49]
    assert [v["ts"] for v in shown["values"]] == [480, 490]
    assert main([str(path), "--fields", FIELDS, "--offset", "4", "--slice", "7"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["7", "70", "7", "-7", "1.75"]  # the record's own index


@pytest.mark.parametrize(("words", "message"), [
    (["--export", "OUT"], "records are exported to a .csv or a .npy file, not a file without a suffix"),
    (["--export", "SELF"], "is the file being inspected"),
    (["--export", "MISSING/o.csv"], "Cannot write in"),
    (["--slice", "None, 1:", "--export", "o.csv"], "adds an axis: one axis is sliced here"),
    (["--slice", "60", "--export", "o.csv"], "out of bounds"),
    (["--field", "nope", "--export", "o.csv"], "the record has no field 'nope'"),
])
def test_export_errors_are_one_line(log, tmp_path, capsys, words, message):
    path, _data = log
    before = path.read_bytes()
    (tmp_path / "self.csv").symlink_to(path)  # the inspected file under another name
    words = [w.replace("SELF", str(tmp_path / "self.csv")).replace("OUT", str(tmp_path / "out")).replace("MISSING", str(tmp_path / "m"))
             .replace("o.csv", str(tmp_path / "o.csv")) for w in words]
    assert main([str(path), "--fields", FIELDS, "--offset", "4", *words]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.bin", "self.csv"]


def test_export_needs_a_layout(log, tmp_path, capsys):
    path, _data = log
    assert main([str(path), "--export", str(tmp_path / "o.csv")]) == 2
    assert "--export writes the records of a file: give their layout" in capsys.readouterr().err


# ----------------------------------------------------------------------------- scan --fields
def test_scan_json_rows_are_the_fields_figures(log, capsys):
    path, _data = log
    assert main(["scan", str(path), "--fields", FIELDS, "--offset", "4", "--json"]) == 1  # gain has a NaN
    shown = json.loads(capsys.readouterr().out)
    rows = shown["tensors"]
    assert [r["name"] for r in rows] == ["ts", "ch", "gain"]
    layout = parse_field_list(FIELDS)
    with open_source(path) as source:
        expected = {f.name: f.statistics for f in field_statistics(source, layout, header=4, histogram=False)}
    for row in rows:
        s = expected[row["name"]]
        assert row["file"] == str(path) and row["storage"] == "view" and row["error"] is None
        assert (row["count"], row["nan"], row["posinf"], row["neginf"], row["zeros"], row["subnormal"]) == \
            (s.count, s.nan_count, s.posinf_count, s.neginf_count, s.zero_count, s.subnormal_count)
        assert (row["min"], row["max"], row["mean"], row["std"]) == (s.min, s.max, s.mean, s.std)
    assert rows[0]["dtype"] == "uint32" and rows[0]["shape"] == [50] and rows[0]["max"] == 490
    assert rows[1]["shape"] == [50, 2] and rows[1]["min"] == -49 and rows[1]["mean"] == 0.0
    assert rows[2]["nan"] == 1 and rows[2]["flags"] == ["nan"]
    assert rows[2]["mean"] == pytest.approx(float(np.mean([i / 4 for i in range(50) if i != 10])), rel=1e-12)
    assert shown["summary"] == {"tensors": 3, "flagged": 1, "errors": 0, "skipped": 0, "fail_on": ["nan", "inf"]}


def test_scan_table_and_exit_codes(log, capsys):
    path, _data = log
    assert main(["scan", str(path), "--fields", FIELDS, "--offset", "4", "--fail-on", "none"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["name", "dtype", "shape", "min", "max", "mean", "std", "nan", "inf", "zeros", "flags"]
    assert lines[1].split()[:5] == ["ts", "uint32", "(50,)", "0", "490"]
    assert lines[2].split()[:4] == ["ch", "int16", "(50,", "2)"]
    assert lines[3].split()[-4:] == ["1", "0", "1", "nan"]  # a NaN, no Inf, one zero (record 0)
    assert lines[-1] == "3 fields scanned: 0 flagged (none), 0 errors, 0 skipped"
    assert main(["scan", str(path), "--fields", FIELDS, "--offset", "4", "--field", "ts", "--fail-on", "zeros"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("1 fields scanned")
    assert main(["scan", str(path), "--fields", "a:u8[100000]"]) == 2
    assert "more than the" in capsys.readouterr().err
    assert main(["scan", str(path), str(path), "--fields", FIELDS]) == 2
    assert "records are read from one file, not 2" in capsys.readouterr().err


def test_scan_of_a_c_struct_with_bit_fields(gcc_records, capsys):
    rec = gcc_records.folder / "rec.bin"
    assert main(["scan", str(rec), "--struct", f"{gcc_records.folder / 'rec.h'}:rec", "--json", "--fail-on", "none"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["tensors"]}
    assert list(rows) == ["ts", "ch", "gain", "flags", "level", "delta", "m", "when"]
    values = gcc_records.values
    assert rows["flags"]["storage"] == "computed" and rows["flags"]["dtype"] == "uint8"
    assert (rows["delta"]["min"], rows["delta"]["max"]) == (int(values["delta"].min()), int(values["delta"].max()))
    assert rows["delta"]["mean"] == pytest.approx(float(values["delta"].mean()), rel=1e-12)
    assert rows["level"]["zeros"] == int(np.count_nonzero(values["level"] == 0))
    assert rows["gain"]["nan"] == int(np.count_nonzero(np.isnan(values["gain"])))
    assert rows["m"]["storage"] == "view" and rows["m"]["max"] == 7
    layout = parse_c_layout(gcc_records.header, "rec")
    assert rows["ch"]["shape"] == [gcc_records.count, 3] and layout.itemsize == gcc_records.size
