"""ULP distance: how many representable values of a floating type lie between two values.

Rule: each value's bit pattern is mapped to an integer that counts representable values from
zero (``+0.0`` and ``-0.0`` both map to 0, the smallest positive subnormal to 1, its negative to
-1, ..., the largest finite value to N, +Inf to N + 1); the distance is the absolute difference of
the two integers. So adjacent values are 1 apart, ``-0.0`` and ``0.0`` are 0 apart, the smallest
subnormals of opposite sign are 2 apart (across zero), and the largest finite value is 1 from
+Inf. A pair with a NaN has no distance: it is returned as :data:`NO_DISTANCE`.

Types: float16, bfloat16 (``ml_dtypes``), float32, float64; both arrays have the same type (the
comparison's common type). For integers the distance is ``|a - b|`` (one unit per integer),
computed by :func:`core.compare.elementwise.integer_distance`.
"""

from __future__ import annotations

import numpy as np

from core.errors import CoreError

__all__ = ["NO_DISTANCE", "ordered_integers", "ulp_distance"]

#: Stand-in distance of a pair with a NaN (the largest uint64).
NO_DISTANCE = np.uint64(np.iinfo(np.uint64).max)

_BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def ordered_integers(values: np.ndarray) -> np.ndarray:
    """int64 values that count representable values from zero (rule: module docstring).

    Raises
    ------
    CoreError
        ``values`` is not a 2-, 4- or 8-byte float array.
    """
    values = np.asarray(values)
    if values.dtype.itemsize not in _BITS or values.dtype.kind not in "fV":
        raise CoreError(f"ULP distance needs float16, bfloat16, float32 or float64 values, not {values.dtype}")
    unsigned = _BITS[values.dtype.itemsize]
    bits = np.ascontiguousarray(values).view(unsigned)
    sign_bit = unsigned(1) << unsigned(8 * values.dtype.itemsize - 1)
    magnitude = (bits & ~sign_bit).astype(np.int64)  # < 2**63: the sign bit is cleared
    return np.where(bits & sign_bit, -magnitude, magnitude)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ULP distance of each pair of ``a`` and ``b`` (same float type, same shape) as uint64;
    pairs with a NaN give :data:`NO_DISTANCE`.

    Raises
    ------
    CoreError
        Different types, or not a float type.
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype:
        raise CoreError(f"ULP distance needs one type, got {a.dtype} and {b.dtype}")
    oa, ob = ordered_integers(a), ordered_integers(b)
    # The difference can reach 2**64 - 2: take it modulo 2**64 as uint64, negated where negative.
    wrapped = oa.view(np.uint64) - ob.view(np.uint64)
    distance = np.where(oa >= ob, wrapped, -wrapped)
    with np.errstate(invalid="ignore"):
        nan = np.isnan(a.astype(np.float64)) | np.isnan(b.astype(np.float64))
    distance[nan] = NO_DISTANCE
    return distance
