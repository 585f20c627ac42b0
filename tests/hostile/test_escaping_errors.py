"""Inputs that used to escape as ValueError / OverflowError / IndexError: each is a CoreError
with a message naming the problem, and one ``error:`` line from the command."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.decode.decode_raw import decode_raw
from core.errors import DecodeError, SliceError, SourceError
from core.pipeline.pipeline import DecodeParams, Pipeline
from core.slicing.expr import parse_slice
from core.text.byte_sizes import format_bytes

ROOT = Path(__file__).resolve().parents[2]


def _npy(tmp_path, shape_text: str, descr: str = "<f4") -> str:
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}"
    header += " " * (118 - len(header) % 64) + "\n"
    path = tmp_path / "bad.npy"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + bytes(64))
    return str(path)


@pytest.mark.parametrize("shape_text, message", [
    (f"(0, {2**63})", r"\(0, 9223372036854775808\) has a dimension of 2\*\*63 or more"),
    (f"(0, {10**30})", r"\(0, <100-bit number>\) has a dimension of 2\*\*63 or more"),
    (f"(0, {2**62}, 4)", "spans 2\\*\\*63 bytes or more"),
])
def test_npy_shapes_no_array_can_have_are_source_errors(tmp_path, shape_text, message):
    path = _npy(tmp_path, shape_text)
    with pytest.raises(SourceError, match=message) as info:
        Pipeline([path]).run(DecodeParams())
    assert "read its bytes as a raw file with --offset" in str(info.value)


def test_npy_descr_with_digits_of_another_script_is_refused(tmp_path):
    path = _npy(tmp_path, "(2,)", descr="<i\u0668")  # ARABIC-INDIC DIGIT EIGHT
    with Pipeline([path]) as pipeline, pytest.raises(SourceError, match="is not a supported numeric type"):
        pipeline.run(DecodeParams())


def test_a_slice_integer_of_4301_zeros_is_zero_and_4301_ones_a_syntax_error():
    assert parse_slice("0" * 4301).begin == (0,)
    with pytest.raises(SliceError, match="integer does not fit in int64 at column 1"):
        parse_slice("1" * 4301)


def test_a_slice_with_more_than_64_result_dimensions_is_a_slice_error(tmp_path):
    path = tmp_path / "one.bin"
    path.write_bytes(b"\x07")
    spec = parse_slice("[" + ", ".join(["tf.newaxis"] * 30) + "]")
    with pytest.raises(SliceError, match="the result would have 70 dimensions, more than 64") as info:
        Pipeline([str(path)]).run(DecodeParams(dtype="uint8", shape=(1,) * 40), spec)
    assert info.value.field == "slice"


def test_a_300_digit_fixed_length_is_a_decode_error_not_an_overflow():
    with pytest.raises(DecodeError, match=r"fixed_length \(a 310-digit number\) does not fit") as info:
        decode_raw(b"ab", "uint8", fixed_length=10**309)
    assert info.value.field == "fixed_length"
    assert format_bytes(10**309) == "about 2**1026 bytes"


def test_the_command_prints_one_error_line_for_each(tmp_path):
    data = tmp_path / "d.bin"
    data.write_bytes(bytes(16))
    cases = [
        [str(data), "--dtype", "uint8", "--fixed-length", "1" + "0" * 309],
        [str(data), "--dtype", "uint8", "--slice", "1" * 4301],
        [_npy(tmp_path, f"(0, {10**30})")],
    ]
    for args in cases:
        out = subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert out.returncode == 2, out.stderr
        lines = out.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in out.stderr
