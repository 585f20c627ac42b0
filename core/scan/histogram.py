"""Equal-width histogram bin indices, bit for bit those of ``np.histogram``, without its overhead.

``np.histogram(values, bins, range=(first, last))`` computes, for values inside the range,
``index = int((value - first) / (last - first) * bins)``, then moves the index down one bin when
the value is below its bin's left edge and up one when it is at or above the next edge (except
in the last bin, which includes its right edge); the edges are
``np.linspace(first, last, bins + 1)``. :class:`BinIndexer` does exactly that, in place in
scratch buffers (one allocation per thread, not per call), on values that are all inside the
range (the callers pass the finite values between the extremes they measured). Values of a
narrower float type are worked on in float64, as numpy converts them.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["BinIndexer", "FastBins"]


class BinIndexer:
    """Bin indices of ``bins`` equal bins over ``[first, last]`` (numpy's rule, module docstring).

    Parameters
    ----------
    first, last
        The range (``first < last``, both finite).
    bins
        Number of bins (>= 1).
    """

    def __init__(self, first: float, last: float, bins: int) -> None:
        self.first, self.bins = float(first), int(bins)
        self.denominator = float(last) - float(first)
        self.edges = np.linspace(first, last, bins + 1, endpoint=True, dtype=np.float64)
        # The right edge of each bin, +inf for the last one: "at or above the next edge moves
        # up one bin, except in the last bin" becomes one comparison.
        self.next_edges = np.append(self.edges[1:bins], np.inf)

    def indices(self, values: np.ndarray, scratch: np.ndarray | None = None,
                out: np.ndarray | None = None) -> np.ndarray:
        """Bin index (intp) of each of the float ``values`` (all inside the range).

        ``scratch`` (float64) and ``out`` (intp), when given, are buffers at least as long as
        ``values``; the result is then a view of ``out``.
        """
        n = values.size
        work = np.empty(n, np.float64) if scratch is None else scratch[:n]
        index = np.empty(n, np.intp) if out is None else out[:n]
        np.subtract(values, self.first, out=work, dtype=np.float64)
        work /= self.denominator
        work *= self.bins
        np.copyto(index, work, casting="unsafe")  # truncation, as numpy's astype(intp)
        np.minimum(index, self.bins - 1, out=index)  # the right edge belongs to the last bin
        np.take(self.edges, index, out=work, mode="clip")  # "clip": no buffered bounds check
        index -= np.less(values, work)
        np.take(self.next_edges, index, out=work, mode="clip")
        index += np.greater_equal(values, work)
        return index

    def counts(self, values: np.ndarray, scratch: np.ndarray | None = None,
               out: np.ndarray | None = None) -> np.ndarray:
        """The histogram (int64 counts per bin) of the float ``values``."""
        return np.bincount(self.indices(values, scratch, out), minlength=self.bins).astype(np.int64, copy=False)


class FastBins:
    """The bins of a :class:`BinIndexer` computed in the values' own float type, in fewer steps.

    ``t = value * scale - offset`` is computed in ``work`` (float32 for float32 values, else
    float64), once biased down and once up by ``bias`` bins, where ``bias`` bounds the rounding
    error of ``t`` plus that of numpy's edges; so the lower truncation is the value's bin or the
    one below, the upper one the bin or the one above. Where both agree (all values but those
    within ``2 * bias`` of an edge, and the maximum) that is the bin; elsewhere one comparison
    with the bin's upper threshold (the smallest ``work`` value at or above the next edge, +inf
    for the last bin) decides. The result is exactly :meth:`BinIndexer.indices`: numpy's bin,
    with the values compared to the float64 edges. Use :meth:`for_range`, which declines
    (None) when the error bound is not well below one bin (a range narrow next to its
    magnitude, or huge values).

    Non-finite values are not dropped first (that copy costs more than the binning): NaN and
    -Inf land in bin 0, +Inf in the last bin; the caller removes them from the counts.
    """

    #: Largest bias (in bins) accepted: the truncations must be within one bin of the bin.
    MAX_BIAS = 0.25
    #: Values near an edge checked at a time at most (memory of their index arrays).
    PIECE = 1 << 14

    def __init__(self, indexer: BinIndexer, work: np.dtype, scale: float, first: float, bias: float) -> None:
        self.bins = indexer.bins
        self.work = np.dtype(work)
        self.scale = self.work.type(scale)
        self.offset = self.work.type(first * scale + bias)
        self.width = self.work.type(2 * bias)
        upper = indexer.edges[1:].astype(self.work)
        below = upper < indexer.edges[1:]  # rounded down: the next value up is the threshold
        upper[below] = np.nextafter(upper[below], self.work.type(np.inf))
        upper[-1] = np.inf  # the last bin includes the right edge
        self.upper = upper

    @classmethod
    def for_range(cls, indexer: BinIndexer, dtype: np.dtype) -> FastBins | None:
        """A :class:`FastBins` for values of ``dtype`` (float32 works in float32, any other in
        float64), or None when the rounding errors could move a value by a bin or more."""
        work = np.dtype(np.float32 if np.dtype(dtype) == np.float32 else np.float64)
        unit = float(np.finfo(work).eps) / 2
        first, last, bins = indexer.first, indexer.first + indexer.denominator, indexer.bins
        scale = bins / indexer.denominator
        reach = max(abs(first), abs(last)) * scale  # the largest |value| in bins
        info = np.finfo(work)
        # The scale itself must be a normal number of the work type (a range of float32
        # subnormals is narrower than 64 / float32 max).
        if not math.isfinite(reach) or not float(info.smallest_normal) <= scale <= float(info.max) / 2:
            return None
        # Rounding of t (scale, product, offset, difference, the bias added) and of the edges
        # (linspace, float64), doubled.
        bias = 2 * (3 * reach * unit + 2 * (bins + 2) * unit + 4 * reach * 2.0**-53)
        if bias > cls.MAX_BIAS or reach * (1 + unit) > float(np.finfo(work).max) / 4:
            return None
        return cls(indexer, work, scale, first, bias)

    def counts(self, values: np.ndarray, work: np.ndarray, low: np.ndarray, high: np.ndarray,
               flags: np.ndarray, nan: bool, infinite: bool) -> np.ndarray:
        """Counts (int64, ``bins``) of ``values`` per bin (class docstring); ``work`` (of the
        work type), ``low`` and ``high`` (int32 or intp) and ``flags`` (bool) are buffers at least as
        long; ``nan`` / ``infinite`` say whether the values may hold NaN / +-Inf."""
        n = values.size
        t, low, high, flags = work[:n], low[:n], high[:n], flags[:n]
        if values.dtype == self.work:
            np.multiply(values, self.scale, out=t)
        else:
            np.multiply(values, self.scale, out=t, dtype=self.work, casting="unsafe")
        t -= self.offset
        if infinite:  # -Inf to bin 0, +Inf to the last bin
            np.clip(t, 0, self.bins - 1, out=t)
        if nan:  # NaN to bin 0
            np.copyto(t, 0, where=np.isnan(t, out=flags))
        np.copyto(low, t, casting="unsafe")  # truncation: the bin or the one below
        t += self.width
        np.copyto(high, t, casting="unsafe")  # the bin or the one above
        near_count = int(np.count_nonzero(np.not_equal(low, high, out=flags)))
        # The values near an edge, a piece at a time when there are many (data on the edges):
        # their index arrays stay small.
        piece = n if near_count <= self.PIECE else self.PIECE
        for start in range(0, n if near_count else 0, piece):
            near = np.flatnonzero(flags[start:start + piece])
            if near.size:
                near += start
                index = low[near]
                index += values[near] >= self.upper[index]
                low[near] = index
        return np.bincount(low, minlength=self.bins)
