"""The figures of one block of a comparison (the unit a worker thread computes and the scanner
merges): counts, sums, maxima with their positions, categories, histogram bins, and candidates
for the first and worst mismatch lists.

Two implementations give the same figures (tested against each other):

- the general path, :func:`core.compare.elementwise.element_differences` on the whole block;
- a fast path for two sides of the same float32 or float64 type under the tolerance test when
  the block holds only finite values (checked first: the largest ``|a - b|`` is finite), written
  to make few passes over a block that stays in the CPU caches: no NaN/Inf bookkeeping, ULP
  distances from the raw bits (same-sign pairs: difference of the bit patterns; opposite signs:
  sum of the magnitudes), histogram from the exponent bits of ``|a - b|``.

Candidates for the mismatch lists are filtered with values the merging thread publishes in a
:class:`Shared` (the K-th first index, the K-th worst error): a block offers only entries that
could still enter a list, so the lists cost nothing once they are full.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from core.compare.agreement import FINE_BITS, AgreementSums, block_sums, fine_histogram
from core.compare.elementwise import element_differences
from core.compare.rules import CompareRules
from core.compare.ulp import NO_DISTANCE

__all__ = ["BlockSummary", "Scratch", "ScratchPool", "Shared", "summarise_block"]


class Shared:
    """Bounds published by the merging thread, read by workers (a stale value only lets more
    candidates through)."""

    #: Histogram arrays are indexed by binary exponent + this offset (covers float64's range).
    EXPONENT_OFFSET = 1100
    EXPONENT_BINS = 2200

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.first_bound: int = 1 << 62
        self.worst_threshold: float | None = None


@dataclass
class BlockSummary:
    """Figures of one block; maxima are ``(value, flat index)``, list entries are tuples
    ``(flat, rank key, a, b, absolute, relative, ulp)``."""

    start: int
    size: int
    mismatched: int = 0
    finite: int = 0
    sum_abs: float = 0.0  # of the errors times 2**-scale
    sum_sq: float = 0.0  # of the squared errors times 2**(-2 * scale)
    scale: int = 0
    max_abs: tuple | None = None
    max_rel: tuple | None = None
    max_ulp: tuple | None = None
    categories: np.ndarray = None  # type: ignore[assignment]
    exact: int = 0
    below: int = 0
    exponents: np.ndarray | None = None
    first: list | None = None
    worst: list | None = None
    agreement: AgreementSums | None = None  # when the comparison asks for it (core.compare.agreement)


def _python(value, dtype: np.dtype) -> int | float:
    return int(value) if dtype.kind in "biu" else float(value)


def _entries(start: int, indices: np.ndarray, a: np.ndarray, b: np.ndarray, rules: CompareRules) -> list:
    if indices.size == 0:
        return []
    d = element_differences(a[indices], b[indices], rules)
    out = []
    for k, i in enumerate(indices.tolist()):
        absolute = float(d.absolute[k])
        ulp = d.ulp[k]
        out.append((start + i, float("inf") if absolute != absolute else absolute,
                    _python(a[i], a.dtype), _python(b[i], b.dtype), absolute, float(d.relative[k]),
                    None if ulp == NO_DISTANCE else int(ulp)))
    return out


def _worst_indices(key: np.ndarray, candidates: np.ndarray, limit: int) -> np.ndarray:
    """The ``limit`` candidates (increasing indices) with the largest keys, ties to lower indices."""
    if candidates.size <= limit:
        return candidates
    values = key[candidates]
    kth = np.partition(values, values.size - limit)[values.size - limit]
    above = candidates[values > kth]
    tied = candidates[values == kth][:limit - above.size]
    return np.sort(np.concatenate([above, tied]))


def _lists(summary: BlockSummary, mismatch: np.ndarray, key: np.ndarray, a, b, rules, shared: Shared) -> None:
    limit = shared.limit
    if summary.mismatched == 0 or limit == 0:
        return
    picked = []
    if summary.start < shared.first_bound:
        picked.append(np.flatnonzero(mismatch)[:limit])
    threshold = shared.worst_threshold
    if threshold is None:
        candidates = np.flatnonzero(mismatch)
    else:
        candidates = np.flatnonzero(key >= threshold)
        candidates = candidates[mismatch[candidates]]
    worst = _worst_indices(key, candidates, limit)
    picked.append(worst)
    chosen = np.unique(np.concatenate(picked))
    entries = {e[0]: e for e in _entries(summary.start, chosen, a, b, rules)}
    summary.first = [entries[summary.start + i] for i in picked[0].tolist()] if len(picked) == 2 else []
    summary.worst = [entries[summary.start + i] for i in worst.tolist()]


def _histogram_from_values(values: np.ndarray, work: np.dtype, summary: BlockSummary) -> None:
    tiny = np.finfo(work).smallest_normal
    summary.exact = int(np.count_nonzero(values == 0))
    summary.below = int(np.count_nonzero((values > 0) & (values < tiny)))
    normal = values[values >= tiny]
    exponents = np.frexp(normal.astype(np.float64))[1].astype(np.int64) + Shared.EXPONENT_OFFSET
    summary.exponents = np.bincount(exponents, minlength=Shared.EXPONENT_BINS).astype(np.int64)


def _general(start: int, a: np.ndarray, b: np.ndarray, rules: CompareRules, shared: Shared,
             scratch: Scratch | None = None, agreement: bool = False) -> BlockSummary:
    d = element_differences(a, b, rules)
    summary = BlockSummary(start, a.size, categories=np.zeros(6, np.int64))
    summary.mismatched = int(np.count_nonzero(d.mismatch))
    if not rules.exact_integers:
        with np.errstate(invalid="ignore"):
            for offset, side in ((0, a), (3, b)):
                wide = side.astype(np.float64)
                summary.categories[offset:offset + 3] = (np.count_nonzero(np.isnan(wide)),
                                                         np.count_nonzero(wide == np.inf),
                                                         np.count_nonzero(wide == -np.inf))
    positions = np.flatnonzero(d.finite)
    summary.finite = int(positions.size)
    if positions.size:
        absolute, relative, ulp = d.absolute[positions], d.relative[positions], d.ulp[positions]
        for name, values in (("max_abs", absolute), ("max_rel", relative), ("max_ulp", ulp)):
            i = int(np.argmax(values))
            value = int(values[i]) if values.dtype.kind == "u" else float(values[i])
            setattr(summary, name, (value, start + int(positions[i])))
        wide = absolute.astype(np.float64)
        if rules.work == np.float64 and summary.max_abs[0] > 0:
            # float64 errors may square (or sum) past the largest float64: scale them by a power
            # of two (exact) that brings the largest below 1.
            summary.scale = int(np.frexp(summary.max_abs[0])[1])
            wide = np.ldexp(wide, -summary.scale)
        summary.sum_abs = float(wide.sum())
        summary.sum_sq = float(np.square(wide).sum())
        _histogram_from_values(absolute, rules.work, summary)
        if agreement:
            work_absolute = absolute.astype(rules.work, copy=False)
            summary.agreement = block_sums(a[positions], b[positions], int(np.count_nonzero(work_absolute == 0)),
                                           fine_histogram(work_absolute), scratch if scratch is not None else Scratch())
    with np.errstate(invalid="ignore"):
        key = np.where(np.isnan(d.absolute), np.inf, d.absolute).astype(np.float64)
    _lists(summary, d.mismatch, key, a, b, rules, shared)
    return summary


_SIGNED = {4: np.int32, 8: np.int64}
_EXPONENT = {4: (23, 127, 256), 8: (52, 1023, 2048)}  # mantissa bits, bias, exponent values


class ScratchPool:
    """Scratch buffers kept from one comparison to the next (a model diff compares hundreds of
    tensors: fresh buffers would be page-faulted into memory again for each)."""

    def __init__(self) -> None:
        self._free: list[Scratch] = []
        self._lock = threading.Lock()

    def take(self) -> Scratch:
        with self._lock:
            return self._free.pop() if self._free else Scratch()

    def give(self, scratch: Scratch) -> None:
        with self._lock:
            self._free.append(scratch)


class Scratch:
    """Reusable buffers of one worker thread: a fresh array per operation would be page-faulted
    into memory again for every block, which costs more than the arithmetic."""

    def __init__(self) -> None:
        self._buffers: dict[tuple[str, np.dtype], np.ndarray] = {}

    def get(self, name: str, dtype, size: int) -> np.ndarray:
        key = (name, np.dtype(dtype))
        buffer = self._buffers.get(key)
        if buffer is None or buffer.size < size:
            buffer = self._buffers[key] = np.empty(size, dtype)
        return buffer[:size]


def _fast(start: int, a: np.ndarray, b: np.ndarray, rules: CompareRules, shared: Shared,
          scratch: Scratch, agreement: bool = False) -> BlockSummary | None:
    # Inf - Inf and overflowing differences are detected below (the largest |a - b| is not finite).
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        return _fast_figures(start, a, b, rules, shared, scratch, agreement)


def _fast_figures(start: int, a: np.ndarray, b: np.ndarray, rules: CompareRules, shared: Shared,
                  scratch: Scratch, agreement: bool = False) -> BlockSummary | None:
    work, n = a.dtype, a.size
    absolute = np.subtract(a, b, out=scratch.get("absolute", work, n))
    np.abs(absolute, out=absolute)
    i = int(np.argmax(absolute))
    if not np.isfinite(absolute[i]):
        return None  # a NaN or an infinity (or an overflowing difference): the general path
    summary = BlockSummary(start, n, categories=np.zeros(6, np.int64), finite=n)
    summary.max_abs = (float(absolute[i]), start + i)
    magnitude_b = np.abs(b, out=scratch.get("magnitude", work, n))
    if agreement:  # while A and B are still in the caches; its zeros and error histogram come below
        summary.agreement = block_sums(a, b, 0, None, scratch, float(magnitude_b.max()))
    tolerance = np.multiply(magnitude_b, work.type(rules.rtol), out=scratch.get("tolerance", work, n))
    tolerance += work.type(rules.atol)
    mismatch = np.greater(absolute, tolerance, out=scratch.get("mismatch", bool, n))
    summary.mismatched = int(np.count_nonzero(mismatch))
    relative = np.divide(absolute, magnitude_b, out=tolerance)
    j = int(np.argmax(relative))
    if np.isnan(relative[j]):  # 0 / 0: no difference, relative error 0
        relative[np.isnan(relative)] = 0
        j = int(np.argmax(relative))
    summary.max_rel = (float(relative[j]), start + j)
    summary.max_ulp = _fast_max_ulp(a, b, start, scratch)
    wide = scratch.get("wide", np.float64, n)
    np.copyto(wide, absolute)
    if work == np.float64 and summary.max_abs[0] > 0:  # as in _general: squares must not overflow
        summary.scale = int(np.frexp(summary.max_abs[0])[1])
        np.ldexp(wide, -summary.scale, out=wide)
    summary.sum_abs = float(wide.sum())
    np.square(wide, out=wide)  # not np.dot: BLAS threads would fight the worker threads
    summary.sum_sq = float(wide.sum())
    shift, bias, values = _EXPONENT[work.itemsize]
    # The error histogram by exponent and FINE_BITS mantissa bits (the agreement's quantiles),
    # summed into powers of two: one bincount serves both (and is faster than the coarse one).
    binned = np.right_shift(absolute.view(_SIGNED[work.itemsize]), shift - FINE_BITS,
                            out=scratch.get("biased", np.intp, n), casting="unsafe")
    fine = np.bincount(binned, minlength=values << FINE_BITS)
    counts = fine.reshape(values, 1 << FINE_BITS).sum(axis=1)
    if counts[0]:
        summary.exact = int(np.count_nonzero(absolute == 0))
        summary.below = int(counts[0]) - summary.exact
    exponents = np.zeros(Shared.EXPONENT_BINS, np.int64)
    # Biased exponent E >= 1 holds [2**(E - bias), 2**(E - bias + 1)): frexp exponent E - bias + 1.
    low = 1 - bias + 1 + Shared.EXPONENT_OFFSET
    exponents[low:low + values - 1] = counts[1:]
    summary.exponents = exponents
    if agreement:
        summary.agreement.zeros, summary.agreement.fine = summary.exact, fine
    _lists(summary, mismatch, absolute, a, b, rules, shared)
    return summary


def _fast_max_ulp(a: np.ndarray, b: np.ndarray, start: int, scratch: Scratch) -> tuple[int, int]:
    """Largest ULP distance of finite pairs of one float type, and its first position."""
    signed = _SIGNED[a.dtype.itemsize]
    bits_a, bits_b = a.view(signed), b.view(signed)
    # Same sign: the bit patterns are ordered like the values, their difference is the distance.
    distance = np.subtract(bits_a, bits_b, out=scratch.get("distance", signed, a.size))
    np.abs(distance, out=distance)
    signs = np.bitwise_xor(bits_a, bits_b, out=scratch.get("signs", signed, a.size))
    opposite = np.less(signs, 0, out=scratch.get("opposite", bool, a.size))
    if not opposite.any():
        k = int(np.argmax(distance))
        return int(distance[k]), start + k
    # Opposite signs: the distance crosses zero, the sum of both magnitudes (exact in uint64).
    where = np.flatnonzero(opposite)
    distance[where] = 0
    k = int(np.argmax(distance))
    best = (int(distance[k]), start + k)
    unsigned = np.dtype(f"u{a.dtype.itemsize}")
    mask = unsigned.type(np.iinfo(unsigned).max >> 1)
    across = (bits_a[where].view(unsigned) & mask).astype(np.uint64) + (bits_b[where].view(unsigned) & mask)
    m = int(np.argmax(across))
    value = int(across[m])
    if value > best[0] or (value == best[0] and start + int(where[m]) < best[1]):
        best = (value, start + int(where[m]))
    return best


def summarise_block(start: int, a: np.ndarray, b: np.ndarray, rules: CompareRules, shared: Shared,
                    scratch: Scratch | None = None, agreement: bool = False) -> BlockSummary:
    """The figures of the pairs ``a[i]``, ``b[i]`` (flat native arrays of equal length) at
    compared positions ``start + i`` (module docstring); ``scratch``: the calling thread's
    buffers (one per thread); ``agreement``: also the sums of :mod:`core.compare.agreement`."""
    if (not rules.bitwise and rules.ulp is None and rules.common is not None and a.dtype == b.dtype == rules.common
            and a.dtype in (np.float32, np.float64)):
        summary = _fast(start, a, b, rules, shared, scratch if scratch is not None else Scratch(), agreement)
        if summary is not None:
            return summary
    return _general(start, a, b, rules, shared, scratch, agreement)
