"""``tensor-inspect --guess FILE --fields/--struct/--numpy-fields``: the layout check as text and
JSON; a refused layout or header is one error line; without a layout --guess is unchanged."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest

from core.cli import main

DTYPE = np.dtype({"names": ["ts", "ch", "gain", "flags"], "formats": ["<u4", ("<i2", (2,)), "<f4", "u1"],
                  "offsets": [0, 4, 8, 12], "itemsize": 16})
FIELDS = "ts:u32, ch:i16[2], gain:f32, flags:u8, pad:3"


@pytest.fixture
def log(tmp_path):
    """5,000 records of 16 bytes after a 12-byte header: a clock of steps 10, two sine channels,
    a gain between 0.5 and 1.5, and flags of 4 values."""
    t = np.arange(5000)
    data = np.zeros(5000, DTYPE)
    data["ts"] = 100 + 10 * t
    data["ch"][:, 0] = np.round(800 * np.sin(2 * np.pi * t / 50))
    data["ch"][:, 1] = np.round(800 * np.cos(2 * np.pi * t / 50))
    data["gain"] = 1.0 + 0.5 * np.sin(2 * np.pi * t / 200)
    data["flags"] = t % 4
    path = tmp_path / "log.bin"
    path.write_bytes(b"LOG1" + struct.pack("<II", 1, 5000) + data.tobytes())
    return str(path)


#: The right layout's score: the weighted mean of ts, ch, gain (1 each, weight 1), flags (codes:
#: 0.9, weight 0.5) and the padding (1, weight 0.5), (3 + 0.45 + 0.5) / 4 = 0.9875.
RIGHT_SCORE = "0.99"


def test_text_report_of_a_field_list(log, capsys):
    assert main(["--guess", log, "--fields", FIELDS, "--offset", "12"]) == 0
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    assert out[0] == f"{log}: the layout is plausible from byte 12 (score {RIGHT_SCORE})"
    assert out[1].startswith(f"  records start at byte 12 as given (score {RIGHT_SCORE}; next best at ")
    assert out[2] == "  80,012 bytes: 5,000 records of 16 bytes after a 12-byte header"
    assert out[3] == "  sampled 5,000 records from 1 place (80,012 bytes read)"  # a small file is read whole
    assert out[4] == "  the bytes repeat every 16 bytes, as the layout's records"
    start = out.index("fields:")
    assert out[start + 1:start + 3] == ["  ts  (score 1.00, counter)",
                                        "   - ts never decreases over 5,000 records (steps of 10 to 10): a counter or "
                                        "timestamp"]
    assert out[start + 4].startswith("   - ch: values from -800 to 800 (about 11 of 16 bits used); neighbouring "
                                     "records are close")
    assert "  gain  (score 1.00, float)" in out
    assert "   - gain: plausible floats from 0.5 to 1.5 (exponents span 2 of 256 values)" in out
    assert "  flags  (score 0.90, codes)" in out and "   - flags takes 4 distinct values (0, 1, 2, 3)" in out
    assert "  (padding @13)  (score 1.00, padding)" in out
    assert "   - the 3 bytes of padding @13 are 0x00 in every one of the 5,000 records" in out
    headers = out.index("headers (best first):")
    assert out[headers + 1] == f"  at 12: {RIGHT_SCORE}"
    assert len(out) == headers + 2 + 4  # the best five offsets
    assert captured.err == ""


def test_json_report_finds_the_header(log, capsys):
    description = str({"names": list(DTYPE.names), "formats": ["<u4", ("<i2", (2,)), "<f4", "u1"],
                       "offsets": [0, 4, 8, 12], "itemsize": 16})
    assert main(["--guess", log, "--json", "--numpy-fields", description]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"file", "layout", "header", "plausible", "score", "verdict", "proposal", "reasons",
                           "records", "trailing_bytes", "sampled_records", "bytes_read", "fields", "headers"}
    assert report["file"] == log and report["header"] == 0
    assert report["layout"]["kind"] == "numpy" and report["layout"]["record_size"] == 16
    assert [f["name"] for f in report["layout"]["fields"]] == ["ts", "ch", "gain", "flags"]
    assert report["plausible"] is False and report["score"] < 0.3
    assert report["records"] == 5000 and report["trailing_bytes"] == 12  # 80,012 = 5,000 x 16 + 12
    assert [f["name"] for f in report["fields"]] == ["ts", "ch", "gain", "flags", "(padding @13)"]
    assert set(report["fields"][0]) == {"name", "kind", "score", "reasons"}
    best = report["headers"][0]
    assert best == {"offset": 12, "score": float(RIGHT_SCORE), "records": 5000, "trailing_bytes": 0, "note": ""}
    assert report["proposal"] == f"records start at byte 12 (score {RIGHT_SCORE}; at 0: {report['score']:.2f})"
    assert any(h["offset"] == 0 and h["trailing_bytes"] == 12 for h in report["headers"])


def test_a_c_struct_with_its_abi(log, capsys):
    text = "struct s { uint32_t ts; int16_t ch[2]; float gain; uint8_t flags; };"
    assert main(["--guess", log, "--struct", text, "--abi", "x86-64", "--offset", "12", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["layout"]["abi"] == "x86-64" and report["layout"]["record_size"] == 16
    assert report["plausible"] is True and report["score"] == float(RIGHT_SCORE)
    assert report["fields"][-1]["name"] == "(padding @13)"


@pytest.mark.parametrize("words, message", [
    (["--fields", "pad:8"], "error: the field list has only padding (name at least one field)"),
    (["--fields", FIELDS, "--offset", "90000"], "error: --offset 90000 is past the end of the file (80,012 bytes)"),
    (["--struct", "struct s { uint8_t pad[4]; };"],
     "error: the layout has only padding (pad): there are no values to check (name the fields that hold data)"),
    (["--struct", "struct s { uint32_t ts; };", "--abi", "vax"],
     "error: --abi 'vax' is not an ABI this tool knows (one of: x86-64, aarch64, arm-eabi, packed)"),
])
def test_refusals_are_one_error_line(log, capsys, words, message):
    status = main(["--guess", log, *words])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert captured.err == message + "\n"


def test_two_files_are_refused(log, capsys):
    assert main(["--guess", log, log, "--fields", FIELDS]) == 2
    assert capsys.readouterr().err == "error: a layout is checked against one file, not 2 (name one file)\n"


def test_without_a_layout_guess_is_the_raw_guess(log, capsys):
    assert main(["--guess", "--json", log]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"file", "convincing", "verdict", "reasons", "bytes_read", "candidates"}
