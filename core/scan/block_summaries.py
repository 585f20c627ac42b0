"""What one block contributes to the statistics of a view (:mod:`core.scan.statistics`).

Each worker thread of the scan owns a :class:`Scratch` (its block reader and buffers of
:data:`SUB_BLOCK` values) and turns each block into a :class:`Part` (pass 1: counts, extremes,
moments, or the exact value counts of a small integer type) or a histogram (pass 2). Parts are
merged in the calling thread; the rules of the figures are those of :mod:`core.scan.statistics`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from core.scan.blocks import BlockReader
from core.scan.histogram import BinIndexer, FastBins
from core.scan.parallel import read_whole

__all__ = ["SUB_BLOCK", "Part", "Scratch", "finite_values", "float_values", "histogram_of_block",
           "summarise_block", "table_values"]

#: Values worked on at a time inside a block: their copies (a float64 one, a few narrower) stay
#: in the CPU caches, so the numpy passes over them cost about one read of memory. Measured on a
#: 64 MiB float32 array (one thread): 2**15 values 219 ms, 2**16 158 ms, 2**17 111-127 ms,
#: 2**18 137 ms, 2**20 188 ms; below 2**17 the Python work between numpy calls dominates.
SUB_BLOCK = 1 << 17
#: Values counted at a time by ``np.bincount`` (it copies them to intp first).
TABLE_SUB_BLOCK = 1 << 20


class Scratch:
    """A worker thread's reader and reusable buffers (allocating per sub-block costs page faults);
    ``compute``: what turns the values read into the values summarised (None: they are), see
    ``compute_statistics(compute=...)``."""

    def __init__(self, reader: BlockReader | None, compute: Callable[[np.ndarray], np.ndarray] | None = None) -> None:
        self.reader = reader
        self.compute = compute
        self._buffers: dict[tuple[str, int], np.ndarray] = {}

    def buffer(self, dtype, slot: int = 0, size: int = SUB_BLOCK) -> np.ndarray:
        """A buffer of at least ``min(size, SUB_BLOCK)`` values (small blocks, small buffers)."""
        key = (np.dtype(dtype).str, slot)
        buffer = self._buffers.get(key)
        if buffer is None or buffer.size < min(size, SUB_BLOCK):
            buffer = self._buffers[key] = np.empty(min(size, SUB_BLOCK), dtype)
        return buffer

    def read(self, block: np.ndarray) -> np.ndarray:
        """The block's values, flat (a view of the reader's buffer, or of the view itself), or
        ``compute`` of them (a new array)."""
        values = read_whole(self.reader, block).reshape(-1)
        return values if self.compute is None else self.compute(values)


class Part:
    """Pass-1 figures of some values; ``moments`` are ``(start, count, mean, m2, exponent)`` of
    values scaled by ``2**-exponent``, one per block, merged in block order at the end."""

    def __init__(self) -> None:
        self.nan = self.posinf = self.neginf = self.zero = self.subnormal = 0
        self.lo = self.hi = self.finite_lo = self.finite_hi = None
        self.moments: list[tuple[int, int, float, float, int]] = []
        self.table: np.ndarray | None = None
        self._count = 0
        self._mean = self._m2 = 0.0
        self._exponent = 0

    # ------------------------------------------------------------------ accumulation
    def extremes(self, lo, hi, finite: bool) -> None:
        self.lo = lo if self.lo is None else min(self.lo, lo)
        self.hi = hi if self.hi is None else max(self.hi, hi)
        if finite:
            self.finite_lo = lo if self.finite_lo is None else min(self.finite_lo, lo)
            self.finite_hi = hi if self.finite_hi is None else max(self.finite_hi, hi)

    def add_values(self, values: np.ndarray, lo: float, hi: float, scratch: Scratch) -> None:
        """Add the moments of finite ``values`` whose extremes are ``lo`` and ``hi``."""
        count = values.size
        if not count:
            return
        exponent = scale_exponent(lo, hi)
        deviations = scratch.buffer(np.float64, 1, count)[:count]
        if exponent:
            # Scaled by a power of two (exact): squares never overflow, sums stay finite.
            np.multiply(values, math.ldexp(1.0, -exponent), out=deviations, dtype=np.float64, casting="unsafe")
            mean = float(np.add.reduce(deviations)) / count
            deviations -= mean
        else:
            mean = float(np.add.reduce(values, dtype=np.float64)) / count
            np.subtract(values, mean, out=deviations, dtype=np.float64, casting="unsafe")
        # Not np.dot: OpenBLAS wakes its threads for each call, which costs more than squaring.
        self._merge(count, mean, float(np.add.reduce(np.square(deviations, out=deviations))), exponent)

    def _merge(self, count: int, mean: float, m2: float, exponent: int) -> None:
        if not self._count:
            self._count, self._mean, self._m2, self._exponent = count, mean, m2, exponent
            return
        self._count, self._mean, self._m2, self._exponent = merge_moments(
            (self._count, self._mean, self._m2, self._exponent), (count, mean, m2, exponent))

    def close_block(self, start: int) -> Part:
        """End of a block: its moments become one entry of ``moments``."""
        if self._count:
            self.moments.append((start, self._count, self._mean, self._m2, self._exponent))
        return self

    # ------------------------------------------------------------------ merging
    def merge(self, other: Part) -> None:
        self.nan += other.nan
        self.posinf += other.posinf
        self.neginf += other.neginf
        self.zero += other.zero
        self.subnormal += other.subnormal
        if other.lo is not None:
            self.extremes(other.lo, other.hi, False)
        if other.finite_lo is not None:
            self.extremes(other.finite_lo, other.finite_hi, True)
        self.moments += other.moments
        if other.table is not None:
            self.table = other.table.copy() if self.table is None else self.table + other.table

    def mean_std(self) -> tuple[float | None, float | None]:
        """Mean and population standard deviation of every finite value added (block order)."""
        total = None
        for _start, *summary in sorted(self.moments):
            total = tuple(summary) if total is None else merge_moments(total, tuple(summary))
        if total is None:
            return None, None
        count, mean, m2, exponent = total
        return math.ldexp(mean, exponent), math.ldexp(math.sqrt(m2 / count), exponent)


#: Magnitudes between ``2**-SAFE_EXPONENT`` and ``2**SAFE_EXPONENT`` are worked on unscaled: their
#: squares and sums neither overflow nor lose bits to underflow.
SAFE_EXPONENT = 500


def scale_exponent(lo: float, hi: float) -> int:
    """0 when values between ``lo`` and ``hi`` are safe to square unscaled, else the exponent
    ``e`` such that ``2**-e`` brings the largest magnitude into [0.5, 1), or -1023 at least:
    ``2**1023`` is the largest power of two a float64 holds (float64 subnormals scale to
    magnitudes above ``2**-52``, still safe)."""
    exponent = math.frexp(max(abs(float(lo)), abs(float(hi))))[1]
    return 0 if -SAFE_EXPONENT < exponent < SAFE_EXPONENT else max(exponent, -1023)


def merge_moments(a: tuple, b: tuple) -> tuple:
    """Merge two ``(count, mean, m2, exponent)`` summaries of scaled values (Chan, Golub,
    LeVeque), at the larger exponent."""
    exponent = max(a[3], b[3])
    n_a, n_b = a[0], b[0]
    mean_a, m2_a = math.ldexp(a[1], a[3] - exponent), math.ldexp(a[2], 2 * (a[3] - exponent))
    mean_b, m2_b = math.ldexp(b[1], b[3] - exponent), math.ldexp(b[2], 2 * (b[3] - exponent))
    n = n_a + n_b
    delta = mean_b - mean_a
    mean = mean_a + delta * (n_b / n)
    m2 = m2_a + m2_b + delta * delta * (n_a * n_b / n)
    return n, mean, m2, exponent


# ----------------------------------------------------------------------------- values
def float_values(values: np.ndarray, kind: str, quantity: str = "magnitude") -> np.ndarray:
    """Native float32 / float64 values of a flat block or sub-block; for complex values, the
    float64 ``quantity`` of them (``core.scan.statistics.COMPLEX_QUANTITIES``).

    float16 and bfloat16 widen to float32 exactly; native float32 / float64 are not copied.
    """
    if kind == "complex":
        z = values.astype(np.complex128, copy=False)
        with np.errstate(divide="ignore", invalid="ignore"):
            if quantity == "real":
                return np.array(z.real, dtype=np.float64)
            if quantity == "imaginary":
                return np.array(z.imag, dtype=np.float64)
            if quantity == "phase":
                return np.angle(z)
            if quantity == "dB":
                return 20 * np.log10(np.abs(z))
        return np.abs(z)
    if values.dtype.kind == "f" and values.dtype.isnative and values.dtype.itemsize >= 4:
        return values
    if values.dtype.itemsize >= 8:
        return values.astype(np.float64)
    return values.astype(np.float32)


def finite_values(values: np.ndarray) -> np.ndarray:
    return values[np.isfinite(values)]


def table_values(dtype: np.dtype) -> np.ndarray:
    """The value (int64) of each bit pattern of a bool or 1- or 2-byte integer type, in the
    order of ``np.bincount`` of the unsigned patterns."""
    if dtype.kind == "b":
        return np.arange(2, dtype=np.int64)
    patterns = np.arange(1 << (8 * dtype.itemsize), dtype=np.int64)
    if dtype.kind == "u":
        return patterns
    return patterns.astype(f"u{dtype.itemsize}").view(f"i{dtype.itemsize}").astype(np.int64)


# ----------------------------------------------------------------------------- pass 1
def summarise_block(start: int, block: np.ndarray, kind: str, smallest_normal: float,
                    scratch: Scratch, quantity: str = "magnitude", known=None) -> Part:
    """Pass-1 :class:`Part` of one block of the view; ``known``: the ``(lo, hi, has_nan)`` of
    each of its sub-blocks when a first read found them (:mod:`core.scan.extremes`), or None."""
    values = scratch.read(block)
    part = Part()
    if kind == "table":
        _count_patterns(values, part)
        return part
    # Arithmetic on the masked-out NaNs of a sub-block raises the invalid flag for signalling ones.
    with np.errstate(invalid="ignore"):
        for index, low in enumerate(range(0, values.size, SUB_BLOCK)):
            sub = values[low:low + SUB_BLOCK]
            extremes = None if known is None else known[index]
            if kind == "int":
                _integer_sub_block(sub, part, scratch, extremes)
            else:
                _float_sub_block(float_values(sub, kind, quantity), part, smallest_normal, scratch, extremes)
    return part.close_block(start)


def _count_patterns(values: np.ndarray, part: Part) -> None:
    if values.dtype.kind == "b":
        ones = int(np.count_nonzero(values.view(np.uint8)))  # any nonzero byte is True
        part.table = np.array([values.size - ones, ones], np.int64)
        return
    size = 1 << (8 * values.dtype.itemsize)
    unsigned = values.view(np.dtype(f"u{values.dtype.itemsize}").newbyteorder(values.dtype.byteorder))
    table = np.zeros(size, np.int64)
    for low in range(0, unsigned.size, TABLE_SUB_BLOCK):
        table += np.bincount(unsigned[low:low + TABLE_SUB_BLOCK], minlength=size)
    part.table = table


def _integer_sub_block(sub: np.ndarray, part: Part, scratch: Scratch, known=None) -> None:
    lo, hi = (int(sub.min()), int(sub.max())) if known is None else known[:2]
    part.extremes(lo, hi, True)
    part.zero += sub.size - int(np.count_nonzero(sub))
    part.add_values(sub, lo, hi, scratch)


def _float_sub_block(v: np.ndarray, part: Part, smallest_normal: float, scratch: Scratch,
                     known=None) -> None:
    size = v.size
    lo = None
    if known is not None:  # the extremes (NaN ignored) a first read found, as they are found here
        lo, top, has_nan = known
        top = math.nan if has_nan else top
    else:
        top = np.maximum.reduce(v)
    if math.isnan(top):  # np.maximum propagates NaN: some value is NaN
        # Dropped with one boolean index (cheaper than masked reductions, and np.fmin / np.fmax
        # do not skip signalling NaNs: they return a wrong extreme).
        keep = np.equal(v, v, out=scratch.buffer(np.bool_, 0, size)[:size])  # False exactly at NaN
        v = v[keep]
        part.nan += size - v.size
        if not v.size:
            return
        _nan_free_sub_block(v, part, smallest_normal, scratch, *(() if known is None else known[:2]))
        return
    _nan_free_sub_block(v, part, smallest_normal, scratch, lo, float(top))


def _nan_free_sub_block(v: np.ndarray, part: Part, smallest_normal: float, scratch: Scratch,
                        lo: float | None = None, hi: float | None = None) -> None:
    """Pass-1 figures of values without NaN (``lo`` / ``hi``: their extremes, when known)."""
    lo = float(np.minimum.reduce(v)) if lo is None else lo
    hi = float(np.maximum.reduce(v)) if hi is None else hi
    part.extremes(lo, hi, False)
    _count_near_zero(v, lo, hi, part, smallest_normal, scratch)
    if hi == math.inf or lo == -math.inf:
        v = _count_infinities(v, lo, hi, part)
        if not v.size:
            return
        lo, hi = float(np.minimum.reduce(v)), float(np.maximum.reduce(v))
    part.extremes(lo, hi, True)
    part.add_values(v, lo, hi, scratch)


def _count_near_zero(v: np.ndarray, lo: float, hi: float, part: Part, smallest_normal: float,
                     scratch: Scratch) -> None:
    """Zeros and subnormals of ``v`` (NaN ignored), counted only when some |v| is that small."""
    if lo >= smallest_normal or hi <= -smallest_normal:
        return
    magnitudes = np.abs(v, out=scratch.buffer(v.dtype, 4, v.size)[:v.size])
    if not np.fmin.reduce(magnitudes) < smallest_normal:  # fmin: NaN skipped
        return
    flags = scratch.buffer(np.bool_, 1, v.size)[:v.size]
    near_zero = int(np.count_nonzero(np.less(magnitudes, smallest_normal, out=flags)))
    zero = int(np.count_nonzero(np.equal(v, 0, out=flags)))
    part.zero += zero
    part.subnormal += near_zero - zero


def _count_infinities(v: np.ndarray, lo: float, hi: float, part: Part) -> np.ndarray:
    """Count the +-Inf of ``v`` (no NaN in it); its finite values."""
    if hi == math.inf:
        part.posinf += int(np.count_nonzero(v == math.inf))
    if lo == -math.inf:
        part.neginf += int(np.count_nonzero(v == -math.inf))
    return finite_values(v)


# ----------------------------------------------------------------------------- pass 2
def histogram_of_block(block: np.ndarray, kind: str, exponent: int, indexer: BinIndexer,
                       non_finite: tuple[bool, bool], scratch: Scratch, quantity: str = "magnitude",
                       fast: FastBins | None = None) -> np.ndarray:
    """Histogram counts of one block's finite values, scaled by ``2**-exponent`` (pass 2).

    ``non_finite`` says whether the view holds NaN and whether it holds +-Inf. With ``fast``
    (values unscaled), the bins come from :meth:`FastBins.counts`: the block's NaN and -Inf are
    then counted in bin 0 and its +Inf in the last bin, which the caller corrects.
    """
    values = scratch.read(block)
    has_nan, has_infinite = non_finite
    has_non_finite = has_nan or has_infinite
    counts = np.zeros(indexer.bins, np.int64)
    if fast is not None:
        work, flags = scratch.buffer(fast.work, 2, values.size), scratch.buffer(np.bool_, 0, values.size)
        # int32 indices: casting to them and comparing them costs half as much as intp.
        index_type = np.int32 if indexer.bins < 2**31 - 1 else np.intp
        lower, upper = scratch.buffer(index_type, 0, values.size), scratch.buffer(index_type, 1, values.size)
        with np.errstate(invalid="ignore"):  # NaNs are binned, then removed (signalling ones raise)
            for low in range(0, values.size, SUB_BLOCK):
                sub = values[low:low + SUB_BLOCK]
                if kind != "int":
                    sub = float_values(sub, kind, quantity)
                counts += fast.counts(sub, work, lower, upper, flags, has_nan, has_infinite)
        return counts
    work, index = scratch.buffer(np.float64, 1, values.size), scratch.buffer(np.intp, 0, values.size)
    scaled_buffer = scratch.buffer(np.float64, 2, values.size) if exponent else None
    for low in range(0, values.size, SUB_BLOCK):
        sub = values[low:low + SUB_BLOCK]
        if kind != "int":
            sub = float_values(sub, kind, quantity)
            if has_non_finite:
                sub = finite_values(sub)
        if exponent:
            scaled = scaled_buffer[:sub.size]
            np.multiply(sub, math.ldexp(1.0, -exponent), out=scaled, dtype=np.float64, casting="unsafe")
            sub = scaled
        counts += indexer.counts(sub, work, index)
    return counts
