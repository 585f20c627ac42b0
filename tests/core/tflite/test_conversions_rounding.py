"""Round-to-nearest and truncation rules checked against exact rational arithmetic (docs/semantics.md §6).

The oracle rounds a Python ``Fraction`` to a binary format by the book (ties to even, gradual
underflow, overflow to infinity), so it is independent of numpy and ml_dtypes, whose
int64/float64 -> bfloat16 casts round twice.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.dtypes.data_type import DataType
from core.tflite.conversions import convert_to, round_to_odd_float32

# significand bits (with the implicit one), minimum normal exponent, maximum exponent
FORMATS = {
    DataType.FLOAT16: (11, -14, 15),
    DataType.BFLOAT16: (8, -126, 127),
    DataType.FLOAT32: (24, -126, 127),
    DataType.FLOAT64: (53, -1022, 1023),
}


def round_exact(value: float | int, target: DataType) -> float:
    """Round ``value`` to ``target`` (ties to even); the result as a Python float.

    A float argument is taken at its exact value; its sign survives rounding to zero.
    """
    precision, emin, emax = FORMATS[target]
    negative = math.copysign(1, value) < 0
    value = Fraction(value)
    if value == 0:
        return -0.0 if negative else 0.0
    magnitude = abs(value)
    exponent = math.floor(math.log2(magnitude))
    while Fraction(2) ** exponent > magnitude:
        exponent -= 1
    while Fraction(2) ** (exponent + 1) <= magnitude:
        exponent += 1
    ulp = Fraction(2) ** (max(exponent, emin) - precision + 1)
    quotient = magnitude / ulp
    units = math.floor(quotient)
    rest = quotient - units
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and units % 2 == 1):
        units += 1
    rounded = units * ulp
    largest = (2 - Fraction(2) ** (1 - precision)) * Fraction(2) ** emax
    result = math.inf if rounded > largest else float(rounded)
    return -result if negative else result


def check_rounding(values: np.ndarray, exact: list, target: DataType) -> None:
    got = convert_to(values, target).astype(np.float64)
    for value, result in zip(exact, got.tolist()):
        expected = round_exact(value, target)
        assert result == expected and math.copysign(1, result) == math.copysign(1, expected), (
            value,
            result,
            expected,
        )


# Integers with long runs of bits near rounding boundaries, plus uniform ones.
def near_boundary_ints(low: int, high: int) -> st.SearchStrategy[int]:
    shaped = st.builds(
        lambda k, j, d, sign: sign * (2**k + 2**j + d),
        st.integers(1, 62), st.integers(0, 61), st.integers(-3, 3), st.sampled_from([1, -1]),
    )  # fmt: skip
    return st.one_of(shaped, st.integers(low, high)).filter(lambda v: low <= v <= high)


@settings(max_examples=60, deadline=None)
@given(st.lists(near_boundary_ints(-(2**63), 2**63 - 1), min_size=1, max_size=40))
@pytest.mark.parametrize("target", list(FORMATS), ids=str)
def test_int64_rounds_once_to_every_float_type(target, ints):
    check_rounding(np.array(ints, dtype=np.int64), ints, target)


@settings(max_examples=60, deadline=None)
@given(st.lists(near_boundary_ints(0, 2**64 - 1), min_size=1, max_size=40))
@pytest.mark.parametrize("target", list(FORMATS), ids=str)
def test_uint64_rounds_once_to_every_float_type(target, ints):
    check_rounding(np.array(ints, dtype=np.uint64), ints, target)


def float64_near_boundaries() -> st.SearchStrategy[float]:
    # float32 / bfloat16 / half midpoints plus or minus a few float64 ulps, and anything finite.
    def build(mantissa: int, exponent: int, nudge: int) -> float:
        value = math.ldexp(mantissa + 0.5, exponent)
        for _ in range(abs(nudge)):
            value = math.nextafter(value, math.inf if nudge > 0 else -math.inf)
        return value

    midpoints = st.builds(build, st.integers(1, 2**24), st.integers(-170, 110),
                          st.integers(-2, 2))  # fmt: skip
    return st.one_of(midpoints, st.floats(allow_nan=False, allow_infinity=False))


@settings(max_examples=60, deadline=None)
@given(st.lists(float64_near_boundaries(), min_size=1, max_size=40))
@pytest.mark.parametrize("target", [DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT32],
                         ids=str)  # fmt: skip
def test_float64_rounds_once_to_narrower_floats(target, floats):
    values = np.array(floats, dtype=np.float64)
    check_rounding(values, floats, target)
    check_rounding(-values, [-v for v in floats], target)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(width=32), min_size=1, max_size=40))
@pytest.mark.parametrize("target", [DataType.INT8, DataType.UINT8, DataType.INT32, DataType.INT64,
                                    DataType.UINT64, DataType.BOOL], ids=str)  # fmt: skip
def test_float_to_integer_truncates_and_clamps(target, floats):
    low, high = target.int_range
    values = np.array(floats, dtype=np.float32)
    got = convert_to(values, target).tolist()
    for value, result in zip(values.tolist(), got):
        if math.isnan(value):
            expected = 0
        elif math.isinf(value):
            expected = high if value > 0 else low
        else:
            expected = min(max(math.trunc(value), low), high)
        assert int(result) == expected, (value, result)


def test_round_to_odd_literals():
    # 1 + 2**-24 is a float32 midpoint: nearest-even gives 1.0, to-odd gives 1 + 2**-23.
    values = np.array([1 + 2.0**-24, 1.0, -(1 + 2.0**-30), 1e39, np.inf, np.nan, 1e-50])
    result = round_to_odd_float32(values)
    assert result.dtype == np.float32
    assert result[0] == np.float32(1 + 2.0**-23)
    assert result[1] == 1.0
    assert result[2] == -np.float32(1 + 2.0**-23)
    assert result[3] == np.finfo(np.float32).max
    assert result[4] == np.inf and np.isnan(result[5])
    assert result[6].view(np.uint32) == 1  # smallest subnormal, not zero


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (2**24 + 2**16 + 1, 16908288),  # just above a midpoint: up (a double rounding gives 2**24)
        (2**24 + 2**16, 16777216),  # exact midpoint: ties to even
        (2**24 + 3 * 2**16, 17039360),  # exact midpoint: ties to even (up)
        (2**40 + 2**32 + 1, 1108101562368),  # above a midpoint, beyond float32's 24 bits
    ],
)
def test_bfloat16_literals(value, expected):
    assert float(convert_to(np.array([value], dtype=np.int64), DataType.BFLOAT16)[0]) == expected
    assert float(convert_to(np.array([float(value)]), DataType.BFLOAT16)[0]) == expected
