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

import numpy as np

__all__ = ["BinIndexer"]


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
