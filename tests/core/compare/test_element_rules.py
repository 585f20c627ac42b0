"""core.compare.elementwise: every rule on hand-checked pairs (NaN, Inf, -0, bitwise, integers)."""

import ml_dtypes
import numpy as np

from core.compare.elementwise import element_differences, integer_distance
from core.compare.rules import resolve_rules
from core.compare.ulp import NO_DISTANCE

I64, U64 = np.iinfo(np.int64), np.iinfo(np.uint64)


def verdict(a, b, dtype=np.float32, dtype_b=None, **rules):
    a = np.array(a, dtype)
    b = np.array(b, dtype if dtype_b is None else dtype_b)
    return element_differences(a, b, resolve_rules(a.dtype, b.dtype, **rules)).mismatch.tolist()


def test_nan_policy():
    assert verdict([np.nan], [np.nan]) == [False]  # equal NaNs match by default
    assert verdict([np.nan], [np.nan], nan_policy="mismatch") == [True]
    assert verdict([np.nan, 1.0], [1.0, np.nan]) == [True, True]  # NaN against a number: always
    assert verdict([np.nan], [1.0], nan_policy="mismatch") == [True]


def test_infinities_match_only_the_same_sign():
    inf = np.inf
    assert verdict([inf, -inf, inf, -inf], [inf, -inf, -inf, inf]) == [False, False, True, True]
    big = float(np.finfo(np.float32).max)
    assert verdict([inf], [big], atol=1e30) == [True]  # no tolerance makes Inf finite
    assert verdict([inf], [big], ulp=5) == [True]  # one ULP apart, still not the same Inf
    assert verdict([big], [inf], rtol=1.0, atol=1.0) == [True]


def test_negative_zero_matches_zero_except_bitwise():
    assert verdict([-0.0, 0.0], [0.0, -0.0]) == [False, False]
    assert verdict([-0.0, 0.0], [0.0, -0.0], ulp=0) == [False, False]
    assert verdict([-0.0, 0.0, 0.0], [0.0, -0.0, 0.0], bitwise=True) == [True, True, False]


def test_bitwise_tells_nan_payloads_apart():
    a = np.array([0x7FC00000, 0x7FC00001], np.uint32).view(np.float32)
    b = np.array([0x7FC00000, 0x7FC00000], np.uint32).view(np.float32)
    rules = resolve_rules(a.dtype, b.dtype, bitwise=True)
    assert element_differences(a, b, rules).mismatch.tolist() == [False, True]


def test_tolerance_is_numpys_isclose_with_b_as_reference():
    # float32 defaults: |a - b| <= 1e-5 + 1.3e-6 * |b|
    assert verdict([1.0 + 1e-5], [1.0]) == [False]
    assert verdict([1.0 + 2e-5], [1.0]) == [True]
    # asymmetric: the tolerance scales with |b| only
    assert verdict([100.0], [110.0], rtol=0.095, atol=0.0) == [False]  # 10 <= 10.45
    assert verdict([110.0], [100.0], rtol=0.095, atol=0.0) == [True]  # 10 > 9.5


def test_figures_absolute_relative_ulp():
    a = np.array([1.5, 0.0, 2.0, np.nan], np.float32)
    b = np.array([1.0, 0.0, 0.0, 1.0], np.float32)
    d = element_differences(a, b, resolve_rules(a.dtype, b.dtype))
    assert d.absolute[:3].tolist() == [0.5, 0.0, 2.0] and np.isnan(d.absolute[3])
    assert d.relative[:3].tolist() == [0.5, 0.0, np.inf]  # 0 / 0 = 0, x / 0 = Inf
    assert d.ulp.tolist() == [1 << 22, 0, 0x40000000, int(NO_DISTANCE)]
    assert d.finite.tolist() == [True, True, True, False]


def test_ulp_tolerance():
    one = np.float32(1)
    after = float(np.nextafter(one, np.float32(2)))
    assert verdict([1.0], [after], ulp=1) == [False]
    assert verdict([1.0], [after], ulp=0) == [True]
    assert verdict([-1e-45], [1e-45], ulp=2) == [False]  # across zero
    assert verdict([-1e-45], [1e-45], ulp=1) == [True]


def test_float16_and_bfloat16_are_compared_with_their_own_ulps():
    bf = ml_dtypes.bfloat16
    assert verdict([1.0], [1.0078125], dtype=bf, ulp=1) == [False]
    assert verdict([1.0], [1.0078125], dtype=bf) == [False]  # bfloat16 rtol 1.6e-2
    assert verdict([1.0], [1.0078125], dtype=bf, rtol=1e-3, atol=0) == [True]
    assert verdict([1.0], [1.0009765625], dtype=np.float16, ulp=1) == [False]
    # float16 against float32: compared as float32 with float16's (looser) default tolerances
    assert verdict([1.0], [1.0005], dtype=np.float16, dtype_b=np.float32) == [False]


def test_integers_are_exact_at_the_extremes():
    a = np.array([I64.min, I64.max, I64.max - 1], np.int64)
    b = np.array([I64.max, I64.max, I64.max], np.int64)
    d = element_differences(a, b, resolve_rules(a.dtype, b.dtype))
    assert d.mismatch.tolist() == [True, False, True]
    assert d.ulp.tolist() == [U64.max, 0, 1]  # |min - max| = 2**64 - 1, exact


def test_uint64_against_int64_is_exact_where_float64_would_round():
    a = np.array([2**63, U64.max, 5, 0], np.uint64)
    b = np.array([2**63 - 1, -1, 5, I64.min], np.int64)
    assert np.float64(2**63) == np.float64(2**63 - 1)  # what a float64 common type would lose
    d = element_differences(a, b, resolve_rules(a.dtype, b.dtype))
    assert d.mismatch.tolist() == [True, True, False, True]
    assert d.ulp.tolist() == [1, U64.max, 0, 2**63]  # 2**64 saturates to 2**64 - 1
    assert integer_distance(b, a).tolist() == [1, U64.max, 0, 2**63]


def test_integer_tolerance():
    assert verdict([10, 12], [11, 11], dtype=np.int16) == [True, True]
    assert verdict([10, 13], [11, 11], dtype=np.int16, atol=1) == [False, True]
    assert verdict([10, 13], [11, 11], dtype=np.int16, ulp=2) == [False, False]
    assert verdict([True, False], [True, True], dtype=bool) == [False, True]


def test_zero_dimensional_pairs():
    d = element_differences(np.array(2.0, np.float64), np.array(1.0, np.float64),
                            resolve_rules(np.dtype(np.float64), np.dtype(np.float64)))
    assert d.mismatch.shape == () and bool(d.mismatch) and float(d.absolute) == 1.0


def test_big_endian_values_compare_by_value():
    a = np.array([1.5, -2.0], ">f4")
    b = np.array([1.5, -2.0], "<f4")
    assert verdict(a, b, dtype=">f4", dtype_b="<f4", bitwise=True) == [False, False]
