"""The comparison rule applied element by element to arrays already in memory.

:func:`element_differences` is the reference implementation of the rules of
:mod:`core.compare.rules`: the block scanner uses it for every block that its float fast path does
not cover, for the entries of its mismatch lists, and a table or plot uses it for the elements on
screen (:func:`core.compare.scanner.window_differences` reads them first). Its cost is a few
copies of its input: give it small blocks.

Figures per pair (``a`` and ``b`` in the work type of the rules):

- ``absolute``: ``|a - b|``; NaN when a side is NaN; Inf when a side is infinite (NaN for two
  infinities of the same sign: their difference is undefined). Integers: exact, as float64.
- ``relative``: ``|a - b| / |b|``, with ``0 / 0 = 0`` and ``x / 0 = Inf`` for ``x > 0``.
- ``ulp``: :func:`core.compare.ulp.ulp_distance` in the common type (integers: ``|a - b|``,
  exact, saturated at ``2**64 - 1``); :data:`~core.compare.ulp.NO_DISTANCE` with a NaN.
- ``mismatch``: the rule's verdict; ``finite``: both values finite (the pairs the error figures
  summarise).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.compare.rules import CompareRules, native_dtype
from core.compare.ulp import ulp_distance

__all__ = ["ElementDifferences", "element_differences", "integer_distance", "native_values"]

_UINT64_MAX = np.uint64(np.iinfo(np.uint64).max)


@dataclass(frozen=True)
class ElementDifferences:
    """Per-element figures of a block (module docstring); every array has the block's shape."""

    absolute: np.ndarray
    relative: np.ndarray
    ulp: np.ndarray
    mismatch: np.ndarray
    finite: np.ndarray


def native_values(values: np.ndarray) -> np.ndarray:
    """``values`` in native byte order (a copy only when they are not)."""
    values = np.asarray(values)
    native = native_dtype(values.dtype)
    if values.dtype == native:
        return values
    if native.kind == "V":  # big-endian bfloat16: swap the 16-bit words
        return values.view(">u2").astype("=u2").view(native)
    return values.astype(native)


def integer_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``|a - b|`` of integer (or bool) arrays, exact, as uint64 (saturated at ``2**64 - 1``,
    reached only by a negative int64 against a uint64 above ``2**63``)."""
    a, b = native_values(a), native_values(b)
    a_unsigned, b_unsigned = a.dtype == np.uint64, b.dtype == np.uint64
    if not a_unsigned and not b_unsigned:
        a64, b64 = a.astype(np.int64), b.astype(np.int64)
        wrapped = a64.view(np.uint64) - b64.view(np.uint64)  # exact modulo 2**64; |a - b| < 2**64
        return np.where(a64 >= b64, wrapped, -wrapped)
    if a_unsigned and b_unsigned:
        return np.where(a >= b, a - b, b - a)
    unsigned, signed = (a, b.astype(np.int64)) if a_unsigned else (b, a.astype(np.int64))
    negative = signed < 0
    magnitude = np.where(negative, -(signed + 1), signed).astype(np.uint64)  # |s| - 1 when negative
    same_sign = np.where(unsigned >= magnitude, unsigned - magnitude, magnitude - unsigned)
    # unsigned - signed = unsigned + |signed| = unsigned + magnitude + 1, saturated.
    total = unsigned + magnitude
    overflow = (total < unsigned) | (total == _UINT64_MAX)
    across = np.where(overflow, _UINT64_MAX, total + np.uint64(1))
    return np.where(negative, across, same_sign)


def _integer_differences(a: np.ndarray, b: np.ndarray, rules: CompareRules) -> ElementDifferences:
    distance = integer_distance(a, b)
    absolute = distance.astype(np.float64)
    magnitude_b = np.abs(b.astype(np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = np.where(absolute == 0, 0.0, absolute / magnitude_b)
    if rules.bitwise or rules.exact:
        mismatch = distance != 0
    elif rules.ulp is not None:
        mismatch = distance > np.uint64(rules.ulp)
    else:
        mismatch = absolute > rules.atol + rules.rtol * magnitude_b
    return ElementDifferences(absolute, relative, distance, mismatch, np.ones(distance.shape, bool))


def element_differences(a: np.ndarray, b: np.ndarray, rules: CompareRules) -> ElementDifferences:
    """Apply ``rules`` to each pair of ``a`` and ``b`` (same shape; the types of the rules).

    Returns
    -------
    ElementDifferences
        Absolute, relative and ULP differences, the mismatch verdict and the finite mask.
    """
    a, b = native_values(a), native_values(b)
    if rules.exact_integers:
        return _integer_differences(a, b, rules)
    common, work = rules.common, rules.work
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        a_common, b_common = a.astype(common), b.astype(common)
        a_work, b_work = a_common.astype(work), b_common.astype(work)
        absolute = np.abs(a_work - b_work)
        magnitude_b = np.abs(b_work)
        relative = np.where(absolute == 0, work.type(0), absolute / magnitude_b)
        finite = np.isfinite(a_work) & np.isfinite(b_work)
        both_nan = np.isnan(a_work) & np.isnan(b_work)
        distance = ulp_distance(a_common, b_common)
        if rules.bitwise:
            unsigned = np.dtype(f"u{a.dtype.itemsize}")
            mismatch = np.ascontiguousarray(a).view(unsigned) != np.ascontiguousarray(b).view(unsigned)
            return ElementDifferences(absolute, relative, distance, mismatch, finite)
        if rules.ulp is not None:
            close = distance <= np.uint64(rules.ulp)
        else:
            # numpy's isclose, in the work type: atol + rtol * |b|.
            close = absolute <= work.type(rules.atol) + work.type(rules.rtol) * magnitude_b
        close = np.where(finite, close, a_work == b_work)  # +-Inf only against the same Inf
        if rules.nan_equal:
            close |= both_nan
    return ElementDifferences(absolute, relative, distance, ~close, finite)
