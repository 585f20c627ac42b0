"""``tensor-inspect --guess``: text and JSON reports, errors as one line."""

from __future__ import annotations

import json

import numpy as np

from core.cli import main
from core.cli.guess import command_options
from core.pipeline.pipeline import DecodeParams


def _image(tmp_path):
    y, x = np.mgrid[0:50, 0:80]
    values = (np.sin(x / 7.0) + np.cos(y / 11.0)).astype(">f4")
    path = tmp_path / "scan.bin"
    path.write_bytes(b"\x01\x02\x03\x04" * 8 + values.tobytes())
    return str(path)


def test_text_report(tmp_path, capsys):
    path = _image(tmp_path)
    assert main(["--guess", path]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{path}: best guess: float32, big-endian, header 32 bytes, shape 50x80"
    assert out[1] == "  16,032 bytes"
    assert out[3] == "1. float32, big-endian, header 32 bytes, shape 50x80  (score 10.6)"
    assert "   - the first 32 bytes do not read like the rest: a header" in out
    assert "   options: --dtype float32 --big-endian --offset 32 --shape 50,80" in out
    assert sum(line[:3] in {f"{n}. " for n in range(1, 6)} for line in out) == 5


def test_json_report(tmp_path, capsys):
    path = _image(tmp_path)
    assert main(["--guess", "--json", path]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["convincing"] is True
    assert report["bytes_read"] == 16032
    first = report["candidates"][0]
    assert first["rank"] == 1
    assert first["params"] == {"dtype": "float32", "little_endian": False, "offset": 32, "length": None,
                               "record_size": None, "shape": [50, 80]}
    assert first["options"] == "--dtype float32 --big-endian --offset 32 --shape 50,80"
    assert len(report["candidates"]) == 5


def test_json_report_of_an_empty_file(tmp_path, capsys):
    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    assert main(["--guess", "--json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report == {"file": str(path), "convincing": False,
                      "verdict": "no convincing layout: the file is empty: there is nothing to guess from",
                      "reasons": ["0 bytes", "the file is empty: there is nothing to guess from"],
                      "bytes_read": 0, "candidates": []}


def test_missing_file_is_one_error_line(tmp_path, capsys):
    assert main(["--guess", str(tmp_path / "nope.bin")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("error: ")
    assert "does not exist" in captured.err


def test_command_options_round_trip():
    params = DecodeParams(dtype="int16", little_endian=False, offset=6, record_size=248, shape=(4, 5))
    assert command_options(params) == "--dtype int16 --big-endian --offset 6 --record-size 248 --shape 4,5"
    assert command_options(DecodeParams(dtype="uint8", little_endian=True)) == "--dtype uint8"
