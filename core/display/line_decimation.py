"""Min/max (peak) decimation of 1-d data, and a multi-resolution min/max pyramid.

Pure numpy, no Qt: the line plot runs :meth:`MinMaxPyramid.build` on a worker thread and asks
:meth:`MinMaxPyramid.query` for what the screen can show.

Rules shared by every function here:

- Buckets are aligned to *absolute* element indices: with bucket size ``b`` the bucket edges are
  the multiples of ``b`` (so panning never changes what a bucket contains); the first and last
  bucket of a range may be partial.
- A bucket's minimum and maximum ignore NaN (as :func:`numpy.nanmin`), an all-NaN bucket gives
  NaN for both, and ``+-inf`` are ordinary values (a bucket holding ``inf`` has maximum ``inf``).
  No RuntimeWarning is issued for all-NaN buckets.
- Complex data is reduced to one real component first (:func:`real_values`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: The real number of complex data that is plotted; see :func:`real_values`.
COMPLEX_PARTS = ("abs", "re", "im", "phase", "dB")


def real_values(values: np.ndarray, part: str = "abs") -> np.ndarray:
    """Plottable real numbers of ``values``, exactly, in native byte order.

    Parameters
    ----------
    values : ndarray
        Any numeric array: ints, uint64, bool, float16/32/64, bfloat16 and other ml_dtypes
        types, complex; any byte order.
    part : {"abs", "re", "im", "phase", "dB"}
        For complex data, which real number to plot: the magnitude ``|z|``, the real or the
        imaginary part, the phase ``np.angle(z)`` in radians (``-pi..pi``) or the power in
        decibels ``20*log10|z|`` (``-inf`` for ``z == 0``, no warning). Ignored for real data.

    Returns
    -------
    ndarray
        Same shape. Returns ``values`` itself (a view) when it is already a native real array
        of a plottable dtype; otherwise a copy: bool -> uint8, non-native byte order -> native,
        float16 / bfloat16 / float8 -> float32 (exact), complex -> its float component, any other
        dtype -> float64 (int64/uint64 beyond 2**53 are not affected: ints stay ints).

    Raises
    ------
    ValueError
        If ``part`` is not one of :data:`COMPLEX_PARTS`.
    TypeError
        If the dtype has no numeric meaning (strings, structured, object).
    """
    if part not in COMPLEX_PARTS:
        raise ValueError(f"complex part must be one of {COMPLEX_PARTS}, got {part!r}")
    values = np.asarray(values)
    dtype = values.dtype
    if dtype.kind == "c":
        if part == "re":
            values = values.real
        elif part == "im":
            values = values.imag
        elif part == "phase":
            return np.angle(values).astype(values.real.dtype.newbyteorder("="), copy=False)
        elif part == "dB":
            with np.errstate(divide="ignore"):
                db = 20 * np.log10(np.abs(values))
            return db.astype(values.real.dtype.newbyteorder("="), copy=False)
        else:
            return np.abs(values).astype(values.real.dtype.newbyteorder("="), copy=False)
        dtype = values.dtype
    if dtype.kind == "b":
        return values.astype(np.uint8)
    if dtype.kind in "iu":
        return values if dtype.isnative else values.astype(dtype.newbyteorder("="))
    if dtype.kind == "f":
        if dtype.itemsize < 4:
            return values.astype(np.float32)
        if dtype.itemsize > 8:
            return values.astype(np.float64)
        return values if dtype.isnative else values.astype(dtype.newbyteorder("="))
    if dtype.kind == "V" and dtype.fields is None and dtype.itemsize <= 2:
        # ml_dtypes (bfloat16, float8_*, int4) register as kind "V"; all fit float32 exactly.
        try:
            return values.astype(np.float32)
        except (TypeError, ValueError):
            pass
    if dtype.kind in "OSUVMm":
        raise TypeError(f"cannot plot dtype {dtype}: expected a numeric dtype")
    return values.astype(np.float64)


@dataclass(frozen=True)
class BucketPeaks:
    """Per-bucket extrema of a range ``[starts[0], stops[-1])`` of a 1-d array.

    Attributes
    ----------
    starts, stops : ndarray of int64
        Absolute element range ``[starts[k], stops[k])`` of bucket ``k``.
    mins, maxs : ndarray of float64
        NaN-ignoring minimum and maximum of each bucket (NaN for an all-NaN bucket).
    """

    starts: np.ndarray
    stops: np.ndarray
    mins: np.ndarray
    maxs: np.ndarray

    def __len__(self) -> int:
        return len(self.starts)

    def curve(self) -> tuple[np.ndarray, np.ndarray]:
        """The ``(x, y)`` polyline drawing these peaks, two points per bucket.

        Each bucket becomes a vertical segment from its minimum to its maximum at the bucket's
        centre ``(start + stop - 1) / 2``, so every bucket's true min and max are in ``y``.
        """
        centres = (self.starts + self.stops - 1) / 2.0
        x = np.repeat(centres, 2)
        y = np.empty(2 * len(self), dtype=np.float64)
        y[0::2] = self.mins
        y[1::2] = self.maxs
        return x, y


def bucket_edges(start: int, stop: int, bucket: int) -> np.ndarray:
    """Edges of the absolute-aligned buckets covering ``[start, stop)``.

    Returns ``[start, m1, m2, ..., stop]`` where ``m_i`` are the multiples of ``bucket`` strictly
    inside the range; an empty range gives ``[start]`` (no bucket).

    Raises
    ------
    ValueError
        If ``bucket < 1`` or ``stop < start``.
    """
    if bucket < 1:
        raise ValueError(f"bucket size must be >= 1, got {bucket}")
    if stop < start:
        raise ValueError(f"empty range: stop {stop} < start {start}")
    if stop == start:
        return np.array([start], dtype=np.int64)
    first = (start // bucket + 1) * bucket
    inner = np.arange(first, stop, bucket, dtype=np.int64)
    return np.concatenate(([start], inner, [stop])).astype(np.int64)


def peak_decimate(values: np.ndarray, bucket: int, offset: int = 0, part: str = "abs") -> BucketPeaks:
    """Min and max of every bucket of ``values`` (peak decimation).

    Parameters
    ----------
    values : ndarray, 1-d
        The elements ``[offset, offset + len(values))`` of some longer array (read by the
        caller; this function reads all of it).
    bucket : int
        Bucket size in elements, >= 1. Buckets are aligned to absolute indices (multiples of
        ``bucket``), so the first and last bucket may be partial.
    offset : int
        Absolute index of ``values[0]``.
    part : str
        Complex component, see :func:`real_values`.

    Returns
    -------
    BucketPeaks
        Empty when ``values`` is empty.

    Raises
    ------
    ValueError
        If ``values`` is not 1-d or ``bucket < 1``.
    """
    values = np.asarray(values)
    if values.ndim != 1:
        raise ValueError(f"peak decimation needs 1-d data, got shape {values.shape}")
    edges = bucket_edges(offset, offset + len(values), bucket)
    mins, maxs = _reduce_at(real_values(values, part), edges[:-1] - offset)
    return BucketPeaks(edges[:-1], edges[1:], mins, maxs)


def _reduce_at(values: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """NaN-ignoring min/max of ``values[starts[k]:starts[k+1]]`` (last one to the end), float64."""
    if len(starts) == 0 or len(values) == 0:
        return np.empty(0), np.empty(0)
    # fmin/fmax skip NaN unless both operands are NaN: exactly nanmin semantics, with no warning.
    mins = np.fmin.reduceat(values, starts).astype(np.float64)
    maxs = np.fmax.reduceat(values, starts).astype(np.float64)
    return mins, maxs


#: Memory cap of one overview's level 0 (the other levels add 1/(factor - 1) of it).
PYRAMID_MEMORY_BYTES = 64 << 20


class MinMaxPyramid:
    """Per-bucket min/max of a 1-d array at several resolutions.

    Level ``L`` holds the extrema of the absolute-aligned buckets of size
    ``base_bucket * factor**L`` (the last bucket of a level may be partial). Levels are built
    until one has at most ``factor`` buckets. Memory is about ``16 * n / base_bucket * 8 / 7``
    bytes (14 MB for 10**8 elements with the default base bucket 128 and factor 8).

    Use :meth:`build` to make one (chunked, cancellable), :meth:`choose_bucket` to pick a bucket
    size for a visible range and :meth:`query` to get :class:`BucketPeaks` that equal
    ``peak_decimate(source[start:stop], bucket, offset=start)`` exactly while reading at most
    ``2 * (base_bucket - 1)`` elements of ``source``.
    """

    def __init__(
        self,
        source: np.ndarray,
        levels: list[tuple[np.ndarray, np.ndarray]],
        base_bucket: int,
        factor: int,
        part: str = "abs",
    ) -> None:
        self._source = source
        self._levels = levels
        self.base_bucket = int(base_bucket)
        self.factor = int(factor)
        self.part = part

    # ----------------------------------------------------------------------------- building
    @classmethod
    def build(
        cls,
        source: np.ndarray,
        *,
        base_bucket: int = 128,
        factor: int = 8,
        chunk: int = 1 << 20,
        part: str = "abs",
        should_stop: Callable[[], bool] | None = None,
        progress: Callable[[float], None] | None = None,
        read: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> MinMaxPyramid | None:
        """Read ``source`` once, in chunks, and build all levels, in bounded memory at any length.

        Level 0 holds at most :data:`PYRAMID_MEMORY_BYTES`: the base bucket grows (by whole
        factors) with the length. At most ``chunk`` elements are read at a time; a base bucket
        longer than that is reduced from several reads.

        Parameters
        ----------
        source : ndarray, 1-d
            Held by reference (may be a read-only memmap); read ``chunk`` elements at a time.
        base_bucket, factor : int
            Smallest bucket size of level 0 (>= 1) and ratio between levels (>= 2).
        chunk : int
            Elements read per step (rounded up to a multiple of ``base_bucket`` when that is
            smaller).
        part : str
            Complex component, see :func:`real_values`.
        should_stop : callable, optional
            Polled between reads; when it returns True the build stops and returns None.
        progress : callable, optional
            Called with the fraction read so far (0..1) after each read.
        read : callable, optional
            Returns a copy of a slice of ``source`` (e.g.
            :meth:`core.scan.blocks.BlockReader.read`, which reads a memory map with ``pread``
            so a file truncated during the build raises instead of faulting). Without it the
            slices of ``source`` are read directly.

        Returns
        -------
        MinMaxPyramid or None
            None when cancelled by ``should_stop``.

        Raises
        ------
        ValueError
            If ``source`` is not 1-d or the sizes are out of range.
        Exception
            Whatever ``read`` raises (``SourceError`` for a file that shrank).
        """
        if np.ndim(source) != 1:
            raise ValueError(f"a min/max pyramid needs 1-d data, got shape {np.shape(source)}")
        if base_bucket < 1 or factor < 2:
            raise ValueError(f"need base_bucket >= 1 and factor >= 2, got {base_bucket}, {factor}")
        n = len(source)
        # 16 bytes (a float64 min and max) per level-0 bucket: grow the buckets (by whole
        # factors) until the overview fits its memory cap, whatever the length.
        while 16 * -(-n // base_bucket) > PYRAMID_MEMORY_BYTES:
            base_bucket *= factor
        chunk = max(1, int(chunk))
        # A step is whole buckets read at once, or one bucket longer than a read, reduced from
        # several reads of ``chunk`` elements (each read then reduces to one entry).
        one_bucket_per_step = base_bucket > chunk
        step = base_bucket if one_bucket_per_step else -(-chunk // base_bucket) * base_bucket
        read_length = chunk if one_bucket_per_step else step
        mins_parts, maxs_parts = [], []
        for start in range(0, n, step):
            stop = min(start + step, n)
            pieces = []  # (mins, maxs) per read of this step
            for low in range(start, stop, read_length):
                if should_stop is not None and should_stop():
                    return None
                high = min(low + read_length, stop)
                block = real_values(source[low:high] if read is None else read(source[low:high]), part)
                starts = np.zeros(1, np.int64) if one_bucket_per_step else np.arange(0, len(block), base_bucket)
                pieces.append(_reduce_at(block, starts))
                if progress is not None:
                    progress(high / n)
            if len(pieces) == 1:
                lo, hi = pieces[0]
            else:
                lo = np.fmin.reduce(np.concatenate([p[0] for p in pieces]), keepdims=True)
                hi = np.fmax.reduce(np.concatenate([p[1] for p in pieces]), keepdims=True)
            mins_parts.append(lo)
            maxs_parts.append(hi)
        mins = np.concatenate(mins_parts) if mins_parts else np.empty(0)
        maxs = np.concatenate(maxs_parts) if maxs_parts else np.empty(0)
        levels = [(mins, maxs)]
        while len(levels[-1][0]) > factor:
            lo, hi = levels[-1]
            starts = np.arange(0, len(lo), factor)
            levels.append((np.fmin.reduceat(lo, starts), np.fmax.reduceat(hi, starts)))
        return cls(source, levels, base_bucket, factor, part)

    # ----------------------------------------------------------------------------- queries
    @property
    def size(self) -> int:
        """Number of elements of the source."""
        return len(self._source)

    @property
    def level_count(self) -> int:
        return len(self._levels)

    def level_bucket(self, level: int) -> int:
        """Bucket size of ``level``."""
        return self.base_bucket * self.factor**level

    def level(self, level: int) -> tuple[np.ndarray, np.ndarray]:
        """``(mins, maxs)`` of every bucket of ``level`` (NaN for all-NaN buckets)."""
        return self._levels[level]

    def choose_bucket(self, count: int, target: int) -> int | None:
        """A bucket size that shows ``count`` elements in at most ``target`` buckets.

        The smallest multiple of the coarsest level bucket ``<= ceil(count / target)`` that is
        ``>= ceil(count / target)``, so the answer uses at most ``factor * target`` pyramid
        entries. Returns None when even the base level is coarser than needed
        (``ceil(count / target) < base_bucket``): then read ``count`` elements directly.
        """
        desired = -(-int(count) // max(int(target), 1))
        if desired < self.base_bucket:
            return None
        level = 0
        while level + 1 < self.level_count and self.level_bucket(level + 1) <= desired:
            level += 1
        size = self.level_bucket(level)
        return -(-desired // size) * size

    def query(self, start: int, stop: int, bucket: int) -> BucketPeaks:
        """Peaks of ``source[start:stop]`` with absolute-aligned buckets of size ``bucket``.

        Equal to ``peak_decimate(source[start:stop], bucket, offset=start, part=self.part)``.
        Whole buckets come from the coarsest level whose bucket size divides ``bucket``; the
        partial buckets at both ends combine level-0 entries with at most ``base_bucket - 1``
        elements read from the source on each side.

        Raises
        ------
        ValueError
            If ``bucket`` is not a positive multiple of ``base_bucket`` or the range is outside
            ``[0, size]``.
        """
        if bucket < 1 or bucket % self.base_bucket:
            raise ValueError(f"bucket {bucket} is not a multiple of the base bucket {self.base_bucket}")
        if not 0 <= start <= stop <= self.size:
            raise ValueError(f"range [{start}, {stop}) outside [0, {self.size}]")
        edges = bucket_edges(start, stop, bucket)
        starts, stops = edges[:-1], edges[1:]
        mins = np.empty(len(starts))
        maxs = np.empty(len(starts))
        if len(starts) == 0:
            return BucketPeaks(starts, stops, mins, maxs)
        level = 0
        while level + 1 < self.level_count and bucket % self.level_bucket(level + 1) == 0:
            level += 1
        size = self.level_bucket(level)
        whole = (starts % size == 0) & ((stops % size == 0) | (stops == self.size))
        if whole.any():
            lo, hi = self._levels[level]
            first = starts[whole] // size
            # Whole buckets are consecutive; reduceat over their level entries in one go.
            last = -(-stops[whole][-1] // size)
            mins[whole], maxs[whole] = _reduce_at_levels(lo[: last], hi[: last], first)
        for k in np.flatnonzero(~whole):
            mins[k], maxs[k] = self._range_extrema(int(starts[k]), int(stops[k]))
        return BucketPeaks(starts, stops, mins, maxs)

    def _range_extrema(self, start: int, stop: int) -> tuple[float, float]:
        """NaN-ignoring min/max of ``source[start:stop]`` from level 0 plus the unaligned ends."""
        size = self.base_bucket
        inner_start = -(-start // size) * size
        inner_stop = stop if stop == self.size else (stop // size) * size
        pieces_lo, pieces_hi = [], []
        if inner_start >= inner_stop:
            inner_start = inner_stop = stop
        else:
            lo, hi = self._levels[0]
            pieces_lo.append(lo[inner_start // size : -(-inner_stop // size)])
            pieces_hi.append(hi[inner_start // size : -(-inner_stop // size)])
        for a, b in ((start, inner_start), (inner_stop, stop)):
            if b > a:
                block = real_values(self._source[a:b], self.part).astype(np.float64)
                pieces_lo.append(block)
                pieces_hi.append(block)
        lo = np.concatenate(pieces_lo)
        hi = np.concatenate(pieces_hi)
        return float(np.fmin.reduce(lo)), float(np.fmax.reduce(hi))


def _reduce_at_levels(
    lo: np.ndarray, hi: np.ndarray, starts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Combine level entries ``[starts[k], starts[k+1])`` (last one to the end)."""
    return np.fmin.reduceat(lo, starts), np.fmax.reduceat(hi, starts)
