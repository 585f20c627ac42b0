"""number_format: golden strings per format and dtype, round-trip of "auto", special values."""

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.text.number_format import (
    FORMATS,
    SPECIAL_KINDS,
    classify_value,
    describe_special,
    format_value,
)

BF16 = np.dtype(ml_dtypes.bfloat16)


def f32_from_bits(bits: int, order: str = "<") -> np.float32:
    return np.array([bits], dtype=f"{order}u4").view(f"{order}f4")[0]


# (value, dtype, fmt, decimals, expected)
GOLDEN = [
    # auto: shortest round-trip, as numpy prints; integers plain
    (1.5, "f4", "auto", 6, "1.5"),
    (0.1, "f4", "auto", 6, "0.1"),
    (0.1, "f8", "auto", 6, "0.1"),
    (0.1, "f2", "auto", 6, "0.1"),
    (1e-40, "f4", "auto", 6, "1e-40"),
    (-0.0, "f4", "auto", 6, "-0.0"),
    (np.inf, "f8", "auto", 6, "inf"),
    (-np.inf, "f4", "auto", 6, "-inf"),
    (np.nan, "f4", "auto", 6, "nan"),
    (0.1, BF16, "auto", 6, "0.1"),  # ml_dtypes' own str gives "0.100098"
    (1.5, BF16, "auto", 6, "1.5"),
    (3.0e38, BF16, "auto", 6, "3e+38"),
    (-1, "i2", "auto", 6, "-1"),
    (2**64 - 1, "u8", "auto", 6, "18446744073709551615"),
    (-(2**63), "i8", "auto", 6, "-9223372036854775808"),
    (True, "?", "auto", 6, "True"),
    (1.5 - 2j, "c8", "auto", 6, "1.5-2.0j"),
    (0.1 + 0.2j, "c16", "auto", 6, "0.1+0.2j"),
    # fixed / scientific
    (1.5, "f4", "fixed", 3, "1.500"),
    (-0.0, "f8", "fixed", 2, "-0.00"),
    (2.0 / 3.0, "f8", "fixed", 0, "1"),
    (7, "i4", "fixed", 3, "7"),
    (1.5, "f4", "scientific", 3, "1.500e+00"),
    (12345, "u2", "scientific", 2, "1.23e+04"),
    (1.5 + 2j, "c8", "fixed", 1, "1.5+2.0j"),
    (False, "?", "fixed", 2, "False"),
    # hex: the bits, zero-padded to the dtype width
    (1.5, "f4", "hex", 6, "0x3fc00000"),
    (1.5, ">f4", "hex", 6, "0x3fc00000"),
    (1.0, "f8", "hex", 6, "0x3ff0000000000000"),
    (1.0, "f2", "hex", 6, "0x3c00"),
    (1.0, BF16, "hex", 6, "0x3f80"),
    (-1, "i2", "hex", 6, "0xffff"),
    (-1, ">i2", "hex", 6, "0xffff"),
    (5, "u1", "hex", 6, "0x05"),
    (258, ">u4", "hex", 6, "0x00000102"),
    (True, "?", "hex", 6, "0x01"),
    (1.5 + 2j, "c8", "hex", 6, "0x3fc00000 | 0x40000000"),
    # raw bits: MSB first; floats split sign / exponent / mantissa, integers per byte
    (1.5, "f4", "raw bits", 6, "0 01111111 10000000000000000000000"),
    (1.5, ">f4", "raw bits", 6, "0 01111111 10000000000000000000000"),
    (-2.0, "f2", "raw bits", 6, "1 10000 0000000000"),
    (1.0, BF16, "raw bits", 6, "0 01111111 0000000"),
    (-1, "i2", "raw bits", 6, "11111111 11111111"),
    (258, ">u2", "raw bits", 6, "00000001 00000010"),
    (5, "i1", "raw bits", 6, "00000101"),
    (False, "?", "raw bits", 6, "00000000"),
]


@pytest.mark.parametrize("value, dtype, fmt, decimals, expected", GOLDEN)
def test_golden_strings(value, dtype, fmt, decimals, expected):
    dtype = np.dtype(dtype)
    element = np.array(value, dtype=dtype)[()]  # as indexing an array returns it
    assert format_value(element, dtype, fmt, decimals) == expected


@pytest.mark.parametrize("dtype", ["f2", "f4", "f8"])
@pytest.mark.parametrize("value", [0.1, 1 / 3, 1e-5, 123456.789, 1e20, 6.5e4, -2.5e-7, 0.0])
def test_auto_matches_numpy_str(dtype, value):
    with np.errstate(over="ignore"):  # 1e20 is inf in float16: also worth checking
        element = np.array(value, dtype=dtype)[()]
    assert format_value(element, np.dtype(dtype), "auto") == str(element)


@settings(max_examples=300, deadline=None)
@given(bits=st.integers(0, 2**32 - 1))
def test_auto_round_trips_float32(bits):
    value = f32_from_bits(bits)
    text = format_value(value, np.dtype("f4"), "auto")
    back = np.float32(text)
    assert (math.isnan(value) and math.isnan(back)) or back.tobytes() == value.tobytes()


@settings(max_examples=300, deadline=None)
@given(bits=st.integers(0, 2**16 - 1))
def test_auto_round_trips_bfloat16_with_shortest_text(bits):
    value = np.array([bits], dtype="u2").view(BF16)[0]
    text = format_value(value, BF16, "auto")
    back = np.array(float(text), dtype=BF16)
    if math.isnan(float(value)):
        assert text == "nan"
        return
    assert back.tobytes() == value.tobytes()
    digits = len(text.split("e")[0].replace("-", "").replace(".", "").strip("0"))
    assert digits <= 4  # bfloat16 never needs more than 4 significant digits


@pytest.mark.parametrize("fmt", FORMATS)
def test_byte_order_does_not_change_text(fmt):
    value = np.array([-3.25], dtype=">f8")[0]
    assert format_value(value, np.dtype(">f8"), fmt, 3) == format_value(
        np.float64(-3.25), np.dtype("<f8"), fmt, 3)


@pytest.mark.parametrize(
    "value, dtype, expected",
    [
        (np.nan, "f4", "nan"),
        (f32_from_bits(0xFFC00001), "f4", "nan"),  # negative NaN with payload
        (np.inf, "f4", "inf"),
        (-np.inf, "f8", "-inf"),
        (1e-40, "f4", "subnormal"),
        (-1e-40, "f4", "subnormal"),
        (1e-40, "f8", None),  # normal in float64
        (1e-5, "f2", "subnormal"),
        (1e-39, BF16, "subnormal"),
        (-0.0, "f4", "-0"),
        (-0.0, BF16, "-0"),
        (0.0, "f4", None),
        (1.5, ">f4", None),
        (-1, "i4", None),
        (True, "?", None),
        (complex(1.0, np.nan), "c8", "nan"),
        (complex(-np.inf, 1e-45), "c8", "-inf"),  # infinity outranks subnormal
        (complex(2.0, -0.0), "c16", "-0"),
        (1 + 1j, "c16", None),
    ],
)
def test_classify_value(value, dtype, expected):
    dtype = np.dtype(dtype)
    assert classify_value(np.array(value, dtype=dtype)[()], dtype) == expected
    assert expected is None or expected in SPECIAL_KINDS


def test_describe_special_sentences():
    assert describe_special(f32_from_bits(0x7FC00001), np.dtype("f4")) == (
        "NaN (bits 0x7fc00001, quiet, payload 0x1)")
    assert describe_special(f32_from_bits(0x7F800001, ">"), np.dtype(">f4")) == (
        "NaN (bits 0x7f800001, signalling, payload 0x1)")
    assert describe_special(np.float32(1e-40), np.dtype("f4")) == (
        "subnormal (smaller than the smallest normal 1.1754944e-38)")
    assert describe_special(np.float64(-0.0), np.dtype("f8")) == "negative zero"
    assert describe_special(np.float16(np.inf), np.dtype("f2")) == "positive infinity"
    assert describe_special(np.complex64(complex(-np.inf, 1.0)), np.dtype("c8")) == (
        "real part: negative infinity")
    assert describe_special(np.float32(1.0), np.dtype("f4")) is None
    assert describe_special(np.int8(0), np.dtype("i1")) is None


def test_bad_arguments_raise_with_the_fix_in_the_message():
    with pytest.raises(ValueError, match="expected one of auto, fixed, scientific, hex, raw bits"):
        format_value(1.0, np.dtype("f4"), "octal")
    with pytest.raises(ValueError, match="decimals must be >= 0"):
        format_value(1.0, np.dtype("f4"), "fixed", -1)


def test_module_has_no_qt():
    import subprocess
    import sys

    code = "import core.text.number_format, sys; assert 'PySide6' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(
        __import__("pathlib").Path(__file__).resolve().parents[3]))
