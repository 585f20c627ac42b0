"""tensor-inspect FILE --fields / --struct / --numpy-fields: records printed as a table or JSON,
one field alone with --field; only the records printed are read."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.cli import main

DTYPE = np.dtype({"names": ["ts", "ch", "gain"], "formats": ["<u4", ("<i2", (4,)), "<f4"], "offsets": [0, 4, 12],
                  "itemsize": 16})


@pytest.fixture
def dump(tmp_path):
    data = np.zeros(1000, DTYPE)
    data["ts"] = np.arange(1000) * 3
    data["ch"][:, 1] = -np.arange(1000)
    data["gain"] = 0.25
    path = tmp_path / "log.bin"
    path.write_bytes(b"HDR!" + data.tobytes() + b"\xff" * 5)
    return path, data


def test_json_records_of_a_field_list(dump, capsys):
    path, _data = dump
    assert main([str(path), "--fields", "ts:u32, ch:i16[4], gain:f32", "--offset", "4", "--json", "--limit", "2"]) == 0
    captured = capsys.readouterr()
    shown = json.loads(captured.out)
    assert shown["layout"]["record_size"] == 16 and shown["records"] == 1000 and shown["trailing_bytes"] == 5
    assert shown["truncated"] is True
    assert [f["name"] for f in shown["fields"]] == ["ts", "ch", "gain"]
    assert shown["values"] == [{"ts": 0, "ch[0]": 0, "ch[1]": 0, "ch[2]": 0, "ch[3]": 0, "gain": 0.25},
                               {"ts": 3, "ch[0]": 0, "ch[1]": -1, "ch[2]": 0, "ch[3]": 0, "gain": 0.25}]
    assert "5 trailing bytes" in captured.err


def test_one_field_and_the_table(dump, capsys):
    path, data = dump
    assert main([str(path), "--struct", "struct r { uint32_t ts; int16_t ch[4]; float gain; };", "--offset", "4",
                 "--field", "ch", "--json", "--limit", "3"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == [[0, 0, 0, 0], [0, -1, 0, 0], [0, -2, 0, 0]]
    assert main([str(path), "--numpy-fields", "[('ts', '<u4'), ('ch', '<i2', (4,)), ('gain', '<f4')]",
                 "--offset", "4", "--limit", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["#", "ts", "ch[0]", "ch[1]", "ch[2]", "ch[3]", "gain"]
    assert lines[2].split() == ["1", "3", "0", "-1", "0", "0", "0.25"]


def test_a_header_file_and_its_struct(tmp_path, capsys):
    header = tmp_path / "sensors.h"
    header.write_text("#include <stdint.h>\nenum mode { OFF, ON };\nstruct sample { uint16_t id; enum mode m; };\n")
    data = np.array([(7, 0, 1), (8, 0, 0)], np.dtype([("id", "<u2"), ("pad", "<u2"), ("m", "<i4")]))
    (tmp_path / "s.bin").write_bytes(data.tobytes())
    assert main([str(tmp_path / "s.bin"), "--struct", f"{header}:sample"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[1].split() == ["0", "7", "ON", "(1)"]
    assert "not followed" in captured.err


@pytest.mark.parametrize(("options", "said"), [
    (["--fields", "a:u32", "--field", "b"], "has no field 'b'"),
    (["--struct", "missing.h:s"], "is not a file"),
    (["--fields", "a:u8[2000000]"], "more than the 16009 bytes after the header"),
    (["--struct", "struct s { int a; };", "--abi", "vax"], "not an ABI this tool knows"),
])
def test_bad_record_options_say_why(dump, capsys, options, said):
    path, _data = dump
    assert main([str(path), *options]) == 2
    assert said in capsys.readouterr().err
