"""--header-struct NAME: a struct of the same C text at --offset, the records after it; its values
printed (JSON "header", a "header:" line in text); refused without --struct or when it does not fit."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.cli import main
from core.records.choice import RecordsChoice

HEADER_C = """struct log_header { char magic[4]; uint16_t version; uint16_t flags; uint32_t count; };
struct point { float x; float y; };"""
POINTS = np.array([(1.5, -2.0), (3.0, 4.25), (0.0, 7.0)], [("x", "<f4"), ("y", "<f4")])


@pytest.fixture
def log(tmp_path):
    header = tmp_path / "log.h"
    header.write_text(HEADER_C)
    path = tmp_path / "points.bin"
    path.write_bytes(b"\0" * 8 + b"PTS1" + (2).to_bytes(2, "little") + bytes(2) + (3).to_bytes(4, "little")
                     + POINTS.tobytes() + b"\x01")
    return path, header


def test_the_header_struct_is_printed_and_the_records_follow_it(log, capsys):
    path, header = log
    assert main([str(path), "--struct", f"{header}:point", "--header-struct", "log_header", "--offset", "8",
                 "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["header"] == {"struct": "log_header", "size": 12, "values": {
        "magic[0]": 80, "magic[1]": 84, "magic[2]": 83, "magic[3]": 49, "version": 2, "flags": 0, "count": 3}}
    assert shown["records"] == 3 and shown["trailing_bytes"] == 1
    assert shown["values"] == [{"x": 1.5, "y": -2.0}, {"x": 3.0, "y": 4.25}, {"x": 0.0, "y": 7.0}]
    assert main([str(path), "--struct", f"{header}:point", "--header-struct", "log_header", "--offset", "8"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[1].split() == ["0", "1.5", "-2.0"]
    assert "header: magic[0] = 80, magic[1] = 84, magic[2] = 83, magic[3] = 49, version = 2, flags = 0, count = 3" \
        in captured.err


@pytest.mark.parametrize("options, said", [
    (["--fields", "x:f32, y:f32", "--header-struct", "log_header"], "give --struct"),
    (["--struct", HEADER_C, "--header-struct", "nope"], "defines no struct 'nope'"),
    (["--struct", HEADER_C, "--header-struct", "log_header", "--offset", "40"], "does not fit in the file after byte 40"),
    (["--struct", HEADER_C, "--header-struct", "log_header", "--offset", "30"], "a record is 8 bytes, more than the 3"),
])
def test_a_header_struct_that_cannot_be_is_refused(log, capsys, options, said):
    path, _header = log
    assert main([str(path), *options]) == 2
    assert said in capsys.readouterr().err


def test_a_choice_starts_its_records_after_the_header_struct():
    choice = RecordsChoice("c", HEADER_C, "point", header=8, header_struct="log_header")
    assert choice.records_start() == 20 and choice.to_json()["header_struct"] == "log_header"
    with pytest.raises(Exception, match="a header struct is a struct of C text"):
        RecordsChoice("fields", "x:f32", header_struct="log_header")
