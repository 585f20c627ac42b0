"""The first figures of the statistics of a big view: its extremes, read at memory speed.

:func:`core.scan.statistics.compute_statistics` runs this stage before its pass 1 on a big real
view, so that a window shows numbers long before the moments and the histogram are known.

Rules
-----
* Each block is read once and cut into the sub-blocks of pass 1 (:data:`SUB_BLOCK` values, in
  the CPU caches). A sub-block's extremes are computed with the very operations pass 1 uses
  (``np.maximum.reduce`` / ``np.minimum.reduce`` on the values of :func:`float_values`) and
  merged in block order with the same Python ``min`` / ``max``, so ``min`` and ``max`` are those
  pass 1 finds, bit for bit (the sign of a zero extreme included).
* A float sub-block whose maximum is NaN holds NaN: its extremes are ``np.fmin.reduce`` /
  ``np.fmax.reduce`` (NaN skipped, at memory speed) of ``v + 0``, a copy in the caches. The sum
  quiets signalling NaNs, which ``fmin`` / ``fmax`` do not skip (a signalling NaN makes them
  drop the values before it), and changes no value but ``-0.0``. A nonzero extreme is the same
  whichever way it is found; a zero extreme could be either zero, so then (and when the
  sub-block is all NaN) the NaNs are dropped and the extremes taken as pass 1 takes them.
* Integers: ``min`` / ``max`` as exact Python ints; ``bool`` as 0 / 1 (any nonzero byte is 1).
* Each block also gives its sub-blocks' ``(lo, hi, has_nan)`` (not for ``bool``), which pass 1
  uses instead of its own reductions (:func:`core.scan.block_summaries.summarise_block`).
* What the extremes prove about the counts is known at once (:func:`known_counts`): integers
  have no NaN, infinity or subnormal; a float view whose maximum was never NaN has no NaN; no
  ``+Inf`` below an extreme that is finite, no zero or subnormal when every value is at least the
  smallest normal away from 0. Every other count waits for pass 1.
"""

from __future__ import annotations

import math

import numpy as np

from core.scan.block_summaries import SUB_BLOCK, Scratch, float_values

__all__ = ["Extremes", "extremes_of_block", "known_counts"]

#: Count fields of :class:`core.scan.statistics.Statistics`, in order.
COUNT_FIELDS = ("finite_count", "nan_count", "posinf_count", "neginf_count", "zero_count", "subnormal_count")


class Extremes:
    """``lo`` / ``hi`` (NaN ignored; None while no value is seen), whether some value is NaN, and
    ``sub_blocks``: the ``(lo, hi, has_nan)`` of each sub-block of a block (kept for pass 1)."""

    def __init__(self) -> None:
        self.lo = self.hi = None
        self.has_nan = False
        self.sub_blocks: list[tuple] = []

    def add(self, lo, hi) -> None:
        # The merge of core.scan.block_summaries.Part.extremes: of equal values the first stays.
        self.lo = lo if self.lo is None else min(self.lo, lo)
        self.hi = hi if self.hi is None else max(self.hi, hi)

    def merge(self, other: Extremes) -> None:
        if other.lo is not None:
            self.add(other.lo, other.hi)
        self.has_nan = self.has_nan or other.has_nan


def extremes_of_block(block: np.ndarray, kind: str, scratch: Scratch) -> Extremes:
    """The :class:`Extremes` of one block (``kind``: ``"bool"``, ``"int"`` or ``"float"``), with
    its sub-blocks' (but for ``"bool"``, whose pass counts values)."""
    values = scratch.read(block)
    if kind == "bool":
        values = values.view(np.uint8)  # any nonzero byte is True
    out = Extremes()
    # Comparisons with the NaNs of a sub-block raise the invalid flag for signalling ones.
    with np.errstate(invalid="ignore"):
        for low in range(0, values.size, SUB_BLOCK):
            sub = values[low:low + SUB_BLOCK]
            if kind == "bool":
                out.add(int(np.minimum.reduce(sub) != 0), int(np.maximum.reduce(sub) != 0))
                continue
            if kind == "int":
                lo, hi, has_nan = int(np.minimum.reduce(sub)), int(np.maximum.reduce(sub)), False
            else:
                lo, hi, has_nan = _float_extremes(float_values(sub, kind), scratch)
            out.sub_blocks.append((lo, hi, has_nan))
            out.has_nan = out.has_nan or has_nan
            if lo is not None:
                out.add(lo, hi)
    return out


def _float_extremes(v: np.ndarray, scratch: Scratch) -> tuple:
    """``(lo, hi, has_nan)`` of float values (``lo`` / ``hi`` None when all are NaN)."""
    top = np.maximum.reduce(v)
    if not math.isnan(top):
        return float(np.minimum.reduce(v)), float(top), False  # pass 1's two reductions
    # v + 0 quiets every signalling NaN (IEEE 754 arithmetic delivers quiet NaNs) and changes
    # no other value but -0.0; fmin / fmax then skip every NaN.
    quiet = np.add(v, v.dtype.type(0), out=scratch.buffer(v.dtype, 3, v.size)[:v.size])
    lo, hi = float(np.fmin.reduce(quiet)), float(np.fmax.reduce(quiet))
    if lo != 0 and hi != 0 and not math.isnan(lo):  # NaN only when every value is NaN
        return lo, hi, True  # unique values: the extremes pass 1 finds
    kept = v[np.equal(v, v, out=scratch.buffer(np.bool_, 0, v.size)[:v.size])]  # pass 1's way
    if not kept.size:
        return None, None, True
    return float(np.minimum.reduce(kept)), float(np.maximum.reduce(kept)), True


def known_counts(extremes: Extremes, kind: str, count: int, smallest_normal: float) -> dict[str, int]:
    """The counts the extremes of ``count`` values prove (module rules), by field name."""
    lo, hi = extremes.lo, extremes.hi
    if kind != "float":
        known = dict(finite_count=count, nan_count=0, posinf_count=0, neginf_count=0, subnormal_count=0)
        if lo > 0 or hi < 0:
            known["zero_count"] = 0
        elif lo == hi:  # every value is 0
            known["zero_count"] = count
        return known
    if lo is None:  # every value is NaN
        return dict(finite_count=0, nan_count=count, posinf_count=0, neginf_count=0, zero_count=0,
                    subnormal_count=0)
    known = {}
    if not extremes.has_nan:
        known["nan_count"] = 0
    if hi < math.inf:
        known["posinf_count"] = 0
    if lo > -math.inf:
        known["neginf_count"] = 0
    if len(known) == 3:
        known["finite_count"] = count
    if lo >= smallest_normal or hi <= -smallest_normal:
        known["zero_count"] = known["subnormal_count"] = 0
    return known
