"""core.compare.rules: default tolerances (torch.testing's table), common types, refused rules."""

import ml_dtypes
import numpy as np
import pytest

from core.compare.rules import common_type, default_tolerances, resolve_rules
from core.errors import CoreError

BF16 = np.dtype(ml_dtypes.bfloat16)
F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)


@pytest.mark.parametrize("dtype, expected", [
    (F16, (1e-3, 1e-5)), (BF16, (1.6e-2, 1e-5)), (F32, (1.3e-6, 1e-5)), (F64, (1e-7, 1e-7)),
    (np.dtype(np.int32), (0.0, 0.0)), (np.dtype(np.uint8), (0.0, 0.0)), (np.dtype(bool), (0.0, 0.0)),
])
def test_default_tolerances_per_type_are_torch_testing_table(dtype, expected):
    assert default_tolerances(dtype, dtype) == expected


def test_default_tolerances_of_two_types_are_the_loosest():
    assert default_tolerances(F32, F16) == (1e-3, 1e-5)
    assert default_tolerances(F64, F32) == (1.3e-6, 1e-5)  # float32's rtol is looser than float64's
    assert default_tolerances(np.dtype(np.int8), F64) == (1e-7, 1e-7)
    assert default_tolerances(np.dtype(">f4"), np.dtype("<f4")) == (1.3e-6, 1e-5)  # byte order does not matter


@pytest.mark.parametrize("a, b, expected", [
    (F16, F32, F32), (BF16, BF16, BF16), (BF16, F16, F32), (BF16, F64, F64), (F16, F16, F16),
    (np.dtype(np.int8), F32, F32), (np.dtype(np.int32), F32, F64), (np.dtype(">f8"), F32, F64),
])
def test_common_type_follows_numpy_promotion_with_bfloat16_as_float32(a, b, expected):
    assert common_type(a, b) == expected


@pytest.mark.parametrize("a, b", [(np.int64, np.uint64), (np.int8, np.uint8), (bool, np.int16)])
def test_two_integer_types_have_no_common_type_they_are_compared_exactly(a, b):
    assert common_type(np.dtype(a), np.dtype(b)) is None
    rules = resolve_rules(np.dtype(a), np.dtype(b))
    assert rules.exact_integers and rules.exact and rules.common_name == "exact integers"


def test_given_tolerances_and_one_given_keeps_the_other_default():
    rules = resolve_rules(F32, F32, rtol=0.5, atol=0.25)
    assert (rules.rtol, rules.atol, rules.tolerance_source) == (0.5, 0.25, "given")
    rules = resolve_rules(F32, F32, rtol=0.5)
    assert (rules.rtol, rules.atol) == (0.5, 1e-5)
    assert rules.tolerance_source == "given rtol, other from float32 defaults"


def test_describe_states_the_rule_its_numbers_and_the_common_type():
    assert resolve_rules(F32, F16).describe() == (
        "|a - b| <= atol + rtol * |b| with rtol=0.001, atol=1e-05 (float16 defaults); NaN matches NaN; "
        "compared as float32")
    assert resolve_rules(F32, F32, ulp=4, nan_policy="mismatch").describe() == (
        "ULP distance <= 4; NaN never matches; compared as float32")
    assert resolve_rules(F64, F64, bitwise=True).describe() == "bitwise: equal bits; NaN matches NaN; compared as float64"


@pytest.mark.parametrize("kwargs, text, field", [
    (dict(rtol=-1.0), "rtol must be a finite number >= 0", "rtol"),
    (dict(atol=float("nan")), "atol must be a finite number >= 0", "atol"),
    (dict(ulp=-1), "ulp must be a whole number >= 0", "ulp"),
    (dict(ulp=2, rtol=1e-3), "either a ULP tolerance or rtol/atol", "ulp"),
    (dict(bitwise=True, atol=1.0), "bitwise mode has no tolerance", "bitwise"),
    (dict(nan_policy="ignore"), "unknown NaN policy 'ignore' (use one of: equal, mismatch)", "nan_policy"),
])
def test_bad_rules_are_refused_with_the_fix(kwargs, text, field):
    with pytest.raises(CoreError, match=text.replace("(", r"\(").replace(")", r"\)")) as caught:
        resolve_rules(F32, F32, **kwargs)
    assert caught.value.field == field


def test_bitwise_needs_one_type():
    with pytest.raises(CoreError, match="A is float32 and B is float16") as caught:
        resolve_rules(F32, F16, bitwise=True)
    assert caught.value.field == "bitwise"


@pytest.mark.parametrize("dtype", [np.complex64, "S4", [("x", "<f4")]])
def test_types_without_an_order_are_refused(dtype):
    with pytest.raises(CoreError, match="cannot compare") as caught:
        resolve_rules(np.dtype(dtype), F32)
    assert caught.value.field == "dtype"
