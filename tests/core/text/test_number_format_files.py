"""The one formatter's screen, CSV and JSON texts: the same digits for one value, everywhere.

Awkward values per engine type, with hand-checked expected strings: a bfloat16 1/3 (numpy's own
``str`` gives ``0.333984``, which is not the shortest text of that bfloat16), -0.0, NaN, a
subnormal, the extremes of int64/uint64, complex values with special parts.
"""

import json
import math

import ml_dtypes
import numpy as np
import pytest

from core.dtypes.table import ENGINE_TYPES, resolve_dtype
from core.text.number_format import (
    csv_formatter,
    format_csv,
    format_value,
    json_value,
    value_formatter,
)

BF16 = np.dtype(ml_dtypes.bfloat16)
NAN = float("nan")



def _f8(name):
    return np.dtype(getattr(ml_dtypes, name))


# (value, dtype, screen "auto" text, CSV text, JSON value)
AWKWARD = [
    # float8 (beyond TF): the shortest text that reads back as the same float8 value.
    # e4m3fn 1/3 is 0.34375 = 1.375 * 2**-2; "0.3" would read back as 0.3125.
    (1 / 3, _f8("float8_e4m3fn"), "0.34", "0.34", 0.34),
    (NAN, _f8("float8_e4m3fn"), "nan", "nan", "nan"),
    # the smallest e5m2 subnormal is 2**-16 = 1.52587890625e-05 (e5m2 has numpy kind "f")
    (1e-5, _f8("float8_e5m2"), "2e-05", "2e-05", 2e-05),
    (-np.inf, _f8("float8_e5m2"), "-inf", "-inf", "-inf"),
    (-0.0, _f8("float8_e4m3fnuz"), "0.0", "0.0", 0.0),  # fnuz: no negative zero
    (100, _f8("float8_e5m2fnuz"), "100.0", "100.0", 100.0),  # stored 96; the next value is 112
    (0.1, _f8("float8_e4m3b11fnuz"), "0.1", "0.1", 0.1),  # stored 0.1015625 = 1.625 * 2**-4
    (1 / 3, _f8("float8_e3m4"), "0.33", "0.33", 0.33),  # 0.328125; "0.3" reads as 0.296875
    (240, _f8("float8_e4m3"), "240.0", "240.0", 240.0),  # its largest finite value
    (0.25, _f8("float8_e8m0fnu"), "0.2", "0.2", 0.2),  # 2**-2; 0.2 is nearer 0.25 than 0.125
    # e5m3fnu (unsigned) stores 1/3 as 0.34375 = 1.375 * 2**-2; "0.3" would read back as 0.3125
    (1 / 3, _f8("float8_e5m3fnu"), "0.34", "0.34", 0.34),
    (1 / 3, BF16, "0.334", "0.334", 0.334),
    (-0.0, BF16, "-0.0", "-0.0", -0.0),
    (NAN, BF16, "nan", "nan", "nan"),
    (1e-40, BF16, "9e-41", "9e-41", 9e-41),  # subnormal: 9.18355e-41, shortest bfloat16 text
    (3e38, BF16, "3e+38", "3e+38", 3e38),
    (1 / 3, "float16", "0.3333", "0.3333", 0.3333),
    (6e-08, "float16", "6e-08", "6e-08", 6e-08),  # the smallest float16 subnormal
    (65504, "float16", "6.55e+04", "6.55e+04", 65500.0),
    (1 / 3, "float32", "0.33333334", "0.33333334", 0.33333334),
    (1e-40, "float32", "1e-40", "1e-40", 1e-40),
    (-np.inf, "float32", "-inf", "-inf", "-inf"),
    (16777217, "float32", "1.6777216e+07", "1.6777216e+07", 16777216.0),
    (1 / 3, "float64", "0.3333333333333333", "0.3333333333333333", 1 / 3),
    (5e-324, "float64", "5e-324", "5e-324", 5e-324),
    (-2**63, "int64", "-9223372036854775808", "-9223372036854775808", -2**63),
    (2**63 - 1, "int64", "9223372036854775807", "9223372036854775807", 2**63 - 1),
    (2**64 - 1, "uint64", "18446744073709551615", "18446744073709551615", 2**64 - 1),
    (2**32 - 1, "uint32", "4294967295", "4294967295", 2**32 - 1),
    (-128, "int8", "-128", "-128", -128),
    (255, "uint8", "255", "255", 255),
    (-32768, "int16", "-32768", "-32768", -32768),
    (65535, "uint16", "65535", "65535", 65535),
    (-2**31, "int32", "-2147483648", "-2147483648", -2**31),
    (True, "bool", "True", "1", True),
    (False, "bool", "False", "0", False),
    (complex(1 / 3, -1 / 3), "complex64", "0.33333334-0.33333334j", "(0.33333334-0.33333334j)",
     [0.33333334, -0.33333334]),
    (complex(0, 1e-40), "complex64", "0.0+1e-40j", "(0.0+1e-40j)", [0.0, 1e-40]),
    (complex(-0.0, NAN), "complex128", "-0.0+nanj", "(-0.0+nanj)", [-0.0, "nan"]),
    (complex(1, 2), "complex128", "1.0+2.0j", "(1.0+2.0j)", [1.0, 2.0]),
]


def _element(value, dtype):
    return np.array(value, dtype=np.dtype(dtype))[()]


@pytest.mark.parametrize("value, dtype, screen, csv, js", AWKWARD,
                         ids=lambda x: x if isinstance(x, str) else None)
def test_screen_csv_and_json_texts(value, dtype, screen, csv, js):
    element = _element(value, dtype)
    assert format_value(element, dtype) == screen
    assert value_formatter(dtype)(element) == screen
    assert format_csv(element, dtype) == csv
    assert csv_formatter(dtype)(element) == csv
    got = json_value(element, dtype)
    assert json.dumps(got) == json.dumps(js)  # same JSON text (and -0.0 keeps its sign)


def test_every_engine_type_is_covered():
    # int4/uint4/int24/uint24 decode into int8/uint8/int32/uint32, which are covered
    packed = {"int4", "uint4", "int24", "uint24"}
    assert {np.dtype(dtype).name for _v, dtype, *_ in AWKWARD} == set(ENGINE_TYPES) - packed


def test_packed_types_show_their_stored_bits_in_hex_and_binary():
    assert value_formatter(np.int8, "hex", stored_bits=4)(-8) == "0x8"
    assert value_formatter(np.int8, "raw bits", stored_bits=4)(-1) == "1111"
    assert value_formatter(np.uint8, "hex", stored_bits=4)(15) == "0xf"
    assert value_formatter(np.int32, "hex", stored_bits=24)(-1) == "0xffffff"
    assert value_formatter(np.int32, "raw bits", stored_bits=24)(-8388608) == (
        "10000000 00000000 00000000")
    assert value_formatter(np.int32, "auto", stored_bits=24)(-8388608) == "-8388608"
    assert value_formatter(np.int32, "hex")(-1) == "0xffffffff"  # without: the int32's bits


def test_csv_decimals_use_the_fixed_format():
    assert format_csv(_element(1 / 3, BF16), BF16, 3) == "0.334"
    assert format_csv(_element(1 / 3, "float64"), "float64", 2) == "0.33"
    assert format_csv(_element(complex(1.5, -2), "complex64"), "complex64", 1) == "(1.5-2.0j)"
    assert format_csv(_element(True, "bool"), "bool", 3) == "1"
    assert format_csv(_element(NAN, "float32"), "float32", 3) == "nan"
    with pytest.raises(ValueError, match="decimals must be >= 0"):
        csv_formatter("float32", -1)


@pytest.mark.parametrize("name", ["bfloat16", "float16", "float32", "float64"])
def test_file_text_reads_back_exactly_in_its_type(name):
    """Random bit patterns (subnormals, infinities, both zeros included): text -> float -> type."""
    dtype = resolve_dtype(name)
    unsigned = np.dtype(f"u{dtype.itemsize}")
    bits = np.random.default_rng(7).integers(0, np.iinfo(unsigned).max, 3000, dtype=unsigned,
                                             endpoint=True)
    infinity = int(np.array(np.inf, dtype).view(unsigned))
    magnitude = bits & unsigned.type((1 << (8 * dtype.itemsize - 1)) - 1)  # all bits but the sign
    values = bits[magnitude <= infinity].view(dtype)  # no NaN (signalling ones warn when cast)
    texts = [format_csv(v, dtype) for v in values]
    back = np.array([float(t) for t in texts]).astype(dtype)
    np.testing.assert_array_equal(back.view(unsigned), values.view(unsigned))
    numbers = [json_value(v, dtype) for v in values]
    assert [str(n) if isinstance(n, str) else repr(n) for n in numbers] == [
        t if t in ("inf", "-inf") else repr(float(t)) for t in texts]


def test_json_has_no_bare_nan():
    document = json.dumps([json_value(_element(v, "float32"), "float32") for v in (NAN, math.inf, 1.5)])
    assert document == '["nan", "inf", 1.5]'
    with pytest.raises(TypeError, match="no JSON form"):
        json_value("a", np.dtype("U1"))
