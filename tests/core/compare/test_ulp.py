"""core.compare.ulp: hand-checked distances, across zero, at infinity, in float16 and bfloat16."""

import ml_dtypes
import numpy as np
import pytest

from core.compare.ulp import NO_DISTANCE, ulp_distance
from core.errors import CoreError

BF16 = ml_dtypes.bfloat16


def one(a, b, dtype) -> int:
    return int(ulp_distance(np.array([a], dtype), np.array([b], dtype))[0])


@pytest.mark.parametrize("dtype", [np.float16, BF16, np.float32, np.float64])
def test_zero_signs_and_neighbours(dtype):
    tiny = float(ml_dtypes.finfo(dtype).smallest_subnormal)
    assert one(0.0, -0.0, dtype) == 0  # -0 == 0
    assert one(0.0, tiny, dtype) == 1
    assert one(-tiny, tiny, dtype) == 2  # across zero: -tiny, 0, tiny
    assert one(-0.0, tiny, dtype) == 1
    big = float(ml_dtypes.finfo(dtype).max)
    assert one(big, np.inf, dtype) == 1  # the largest finite value is next to +Inf
    assert one(np.inf, np.inf, dtype) == 0
    assert one(np.nan, 1.0, dtype) == NO_DISTANCE
    assert one(np.nan, np.nan, dtype) == NO_DISTANCE


def test_hand_checked_distances():
    assert one(1.0, 1.0009765625, np.float16) == 1  # float16 spacing at 1 is 2**-10
    assert one(1.0, 2.0, np.float16) == 1024  # 10 mantissa bits
    assert one(1.0, 1.0078125, BF16) == 1  # bfloat16 spacing at 1 is 2**-7
    assert one(-1.0, 1.0, BF16) == 2 * 0x3F80  # magnitude bits of 1.0 on each side of zero
    assert one(1.0, 2.0, np.float32) == 1 << 23
    assert one(1.0, float(np.nextafter(np.float32(1), np.float32(0))), np.float32) == 1
    assert one(-np.finfo(np.float64).max, np.finfo(np.float64).max, np.float64) == 2 * 0x7FEFFFFFFFFFFFFF
    assert one(-np.inf, np.inf, np.float32) == 2 * 0x7F800000


def test_distance_is_symmetric_and_elementwise():
    a = np.array([1.0, -2.0, 0.0], np.float32)
    b = np.array([1.5, -2.0, -1e-45], np.float32)
    assert ulp_distance(a, b).tolist() == ulp_distance(b, a).tolist() == [1 << 22, 0, 1]


def test_types_must_match_and_be_floats():
    with pytest.raises(CoreError, match="one type"):
        ulp_distance(np.zeros(1, np.float32), np.zeros(1, np.float64))
    with pytest.raises(CoreError, match="needs float16, bfloat16, float32 or float64"):
        ulp_distance(np.zeros(1, np.int32), np.zeros(1, np.int32))
