"""Statistics of the current view, computed in bounded memory.

:func:`compute_statistics` scans a view of any size (typically a strided view of a read-only
memory map larger than RAM) in *blocks*: :func:`core.scan.blocks.iter_blocks` cuts the array into views of at most
``chunk_elements`` elements without copying, and each block is converted to float64 (or read in
its native type) one at a time, so the memory used is a few blocks' worth whatever the view size.

Rules
-----
* ``min`` / ``max`` follow ``np.nanmin`` / ``np.nanmax``: NaN is ignored, +-Inf count.
* ``mean`` / ``std`` are over the *finite* values only (``finite_count`` of them); ``std`` is the
  population standard deviation (ddof=0), computed per block and merged with Chan et al.'s
  parallel algorithm, on values scaled by a power of two so that squares never overflow.
* The histogram has ``bins`` equal-width bins between the smallest and largest finite value
  (numpy's rule: the last bin includes its right edge; when all finite values are equal the
  range is value +- 0.5). Non-finite values are not in it.
* Integers: ``min`` / ``max`` are exact Python ints (int64/uint64 lose nothing); ``mean`` /
  ``std`` / histogram in float64. ``bool`` counts as 0 / 1.
* Floats (float16, bfloat16, float32, float64): a value is subnormal when
  ``0 < |x| < smallest_normal`` of *its own* type (``ml_dtypes.finfo`` for bfloat16); ``-0.0``
  counts as a zero.
* Complex: every statistic is of the magnitude ``|z|`` (``np.abs`` in float64, C99 rules: an
  infinite component gives +Inf, else a NaN component gives NaN); ``Statistics.quantity`` is then
  ``"magnitude"``. The subnormal threshold is that of the component type.
* Empty view: counts 0, ``min`` / ``max`` / ``mean`` / ``std`` ``None``, empty histogram.
* Two passes (pass 1: counts and extremes; pass 2: moments and histogram), so ``progress(done,
  total)`` runs up to ``total = 2 * view.size``. Memory: a few float64 blocks (about three, i.e.
  ~100 MiB at the default ``chunk_elements``), whatever the view size; blocks shrink to stay
  within the copy budget of :mod:`core.budget`, and a histogram too big for it is refused.
* Cancellation raises :class:`Cancelled` (deliberately *not* a :class:`~core.errors.CoreError`:
  nothing is wrong with the data). ``check()``, when given, is called before each block is read
  (the pipeline's ``FileSource.check_unchanged``), so a file that changed raises its
  ``SourceError`` (why this matters: :mod:`core.files.shrink_guard`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from core.budget import check_copy_budget, elements_per_chunk
from core.errors import Cancelled, CoreError
from core.files.safe_open import sequential_access
from core.scan.blocks import BlockReader, iter_blocks, memory_order

__all__ = ["Statistics", "compute_statistics"]

Progress = Callable[[int, int], None]
#: Memory one value of a block costs at most while scanned (float64 copies, masks, selections).
_BYTES_PER_VALUE = 40


@dataclass(frozen=True)
class Statistics:
    """Summary of a view; see the module docstring for the rules.

    ``min`` / ``max`` are Python ints for integer and bool views, floats otherwise, ``None``
    when there is no non-NaN value; ``mean`` / ``std`` are floats, ``None`` without finite values.
    ``histogram_edges`` has ``len(histogram_counts) + 1`` entries (both empty without finite
    values).
    """

    dtype: str
    quantity: str
    count: int
    finite_count: int
    nan_count: int
    posinf_count: int
    neginf_count: int
    zero_count: int
    subnormal_count: int
    min: int | float | None
    max: int | float | None
    mean: float | None
    std: float | None
    histogram_edges: tuple[float, ...]
    histogram_counts: tuple[int, ...]


# ----------------------------------------------------------------------------- kinds
def _kind(dtype: np.dtype) -> str:
    """``"bool"``, ``"int"``, ``"float"`` or ``"complex"``; CoreError for anything else."""
    if dtype.kind == "b":
        return "bool"
    if dtype.kind in "iu":
        return "int"
    if dtype.kind == "c":
        return "complex"
    if dtype.kind == "f" or _ml_finfo(dtype) is not None:
        return "float"
    raise CoreError(
        f"Statistics need numbers, not {dtype} (decode the data as a numeric type)", field="dtype"
    )


def _ml_finfo(dtype: np.dtype):
    # ml_dtypes types are kind "V", except float8_e5m2 which is kind "f" (np.finfo refuses it).
    if dtype.kind not in "Vf" or dtype.fields is not None:
        return None
    try:
        # A big-endian bfloat16 (what decode_raw gives for little_endian=False) prints as '>V2'
        # but keeps its name; ml_dtypes.finfo knows only the native one.
        return ml_dtypes.finfo(dtype.newbyteorder("="))
    except (TypeError, ValueError, KeyError):
        return None


def _smallest_normal(dtype: np.dtype) -> float:
    if dtype.kind == "c":
        dtype = np.dtype(f"f{dtype.itemsize // 2}")
    info = _ml_finfo(dtype)
    return float(info.smallest_normal if info is not None else np.finfo(dtype).smallest_normal)


# ----------------------------------------------------------------------------- passes
class _Scan:
    """Drives the blocks of one pass, with progress, cancellation and the source check."""

    def __init__(self, view, chunk, progress, cancelled, check, total, reader=None):
        self.view, self.chunk, self.total, self.reader = view, chunk, total, reader
        self.progress, self.cancelled, self.check = progress, cancelled, check
        self.done = 0

    def blocks(self) -> Iterator[np.ndarray]:
        if self.reader is not None:
            blocks = self.reader.blocks(self.view, self.chunk)
        else:
            blocks = iter_blocks(self.view, self.chunk)
        with sequential_access(self.view):  # a pass reads the view whole: read ahead
            for block in blocks:
                if self.cancelled is not None and self.cancelled():
                    raise Cancelled("statistics cancelled")
                if self.check is not None:
                    self.check()
                yield block
                self.done += block.size
                if self.progress is not None:
                    self.progress(self.done, self.total)


def _as_values(block: np.ndarray, kind: str) -> np.ndarray:
    """Float64 values of a block (at most one copy of it); magnitudes for complex."""
    # Widening a signalling NaN raises numpy's "invalid value" warning: NaN is counted anyway.
    with np.errstate(invalid="ignore", over="ignore"):
        if kind == "complex":
            return np.abs(block.astype(np.complex128, copy=False)).ravel()
        return np.asarray(block, dtype=np.float64).ravel()


def compute_statistics(
    view: np.ndarray,
    *,
    bins: int = 64,
    chunk_elements: int = 1 << 22,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
    check: Callable[[], None] | None = None,
    reader: BlockReader | None = None,
) -> Statistics:
    """Compute :class:`Statistics` of ``view`` in bounded memory (rules: module docstring).

    Parameters
    ----------
    view
        Any numeric array, typically a strided view of a memory map; it is never copied whole:
        each block copies at most ``chunk_elements`` elements (converted to float64 where needed).
    bins
        Number of histogram bins (>= 1).
    chunk_elements
        Elements per block.
    progress
        ``progress(done, total)`` after each block, ``total = 2 * view.size`` (two passes).
    cancelled
        Checked before each block; when it returns True, :class:`Cancelled` is raised.
    check
        Called before each block is read; it raises (e.g. ``SourceError``) when the file behind
        the view changed (see :mod:`core.files.shrink_guard`).
    reader
        Reads the blocks of a memory-mapped view with ``pread`` (:mod:`core.scan.blocks`), so a
        file truncated during the scan raises ``SourceError`` instead of faulting. Give one
        whenever the view comes from files (:meth:`core.pipeline.pipeline.PipelineResult.block_reader`).

    Returns
    -------
    Statistics

    Raises
    ------
    CoreError
        ``view`` is not numeric (bytes, structured, object...), or ``bins < 1``.
    Cancelled
        ``cancelled()`` returned True.
    """
    view = np.asarray(view)
    kind = _kind(view.dtype)
    if bins < 1:
        raise CoreError(f"bins must be at least 1, got {bins} (ask for 64 bins)")
    # The histogram (counts and edges) is allocated whole; the blocks are sized to the budget.
    check_copy_budget(16 * (bins + 1), f"a histogram of {bins} bins", "ask for fewer bins")
    chunk_elements = elements_per_chunk(chunk_elements, _BYTES_PER_VALUE)
    quantity = "magnitude" if kind == "complex" else "value"
    scan_view = memory_order(view)
    n = int(view.size)

    def scan() -> _Scan:
        return _Scan(scan_view, chunk_elements, progress, cancelled, check, 2 * n, reader)

    if kind in ("bool", "int"):
        first = _pass_integers(scan(), view.dtype, n)
    else:
        first = _pass_floats(scan(), kind, _smallest_normal(view.dtype), n)
    lo, hi = first["finite_min"], first["finite_max"]
    mean = std = None
    edges: tuple[float, ...] = ()
    counts: tuple[int, ...] = ()
    if first["finite_count"]:
        runner = scan()
        runner.done = n
        mean, std, edges, counts = _pass_moments(runner, kind, float(lo), float(hi), bins)
    elif n and progress is not None:
        progress(2 * n, 2 * n)  # nothing finite: the second pass has nothing to read
    return Statistics(
        dtype=view.dtype.name,
        quantity=quantity,
        count=n,
        finite_count=first["finite_count"],
        nan_count=first["nan"],
        posinf_count=first["posinf"],
        neginf_count=first["neginf"],
        zero_count=first["zero"],
        subnormal_count=first["subnormal"],
        min=first["min"],
        max=first["max"],
        mean=mean,
        std=std,
        histogram_edges=edges,
        histogram_counts=counts,
    )


def _pass_integers(runner: _Scan, dtype: np.dtype, n: int) -> dict:
    lo = hi = None
    zero = 0
    for block in runner.blocks():
        if dtype.kind == "b":
            block = block.view(np.uint8) != 0  # any nonzero byte is True (TF's bool rule)
        block_lo, block_hi = int(block.min()), int(block.max())
        lo = block_lo if lo is None else min(lo, block_lo)
        hi = block_hi if hi is None else max(hi, block_hi)
        zero += block.size - int(np.count_nonzero(block))
    return dict(min=lo, max=hi, finite_min=lo, finite_max=hi, finite_count=n, nan=0, posinf=0,
                neginf=0, zero=zero, subnormal=0)


def _pass_floats(runner: _Scan, kind: str, smallest_normal: float, n: int) -> dict:
    lo = hi = finite_lo = finite_hi = None
    nan = posinf = neginf = zero = subnormal = 0
    with np.errstate(invalid="ignore", over="ignore"):
        for block in runner.blocks():
            x = _as_values(block, kind)
            block_nan = int(np.count_nonzero(np.isnan(x)))
            nan += block_nan
            if block_nan == x.size:
                continue
            if block_nan:
                # fmin/fmax skip quiet NaNs but return NaN for a *signalling* one (raw bytes
                # decoded as float16/float64 keep them), which made the histogram range NaN.
                x = x[~np.isnan(x)]
            block_posinf = int(np.count_nonzero(x == np.inf))
            block_neginf = int(np.count_nonzero(x == -np.inf))
            posinf, neginf = posinf + block_posinf, neginf + block_neginf
            # fmin/fmax reductions skip NaN without a masked copy.
            block_lo, block_hi = float(np.fmin.reduce(x)), float(np.fmax.reduce(x))
            lo = block_lo if lo is None else min(lo, block_lo)
            hi = block_hi if hi is None else max(hi, block_hi)
            # The near-zero values are few: select them instead of taking |x| of the block.
            small = x[(x > -smallest_normal) & (x < smallest_normal)]
            block_zero = int(np.count_nonzero(small == 0))
            zero, subnormal = zero + block_zero, subnormal + small.size - block_zero
            if block_posinf or block_neginf:
                x = x[np.isfinite(x)]
                if x.size == 0:
                    continue
                block_lo, block_hi = float(np.fmin.reduce(x)), float(np.fmax.reduce(x))
            finite_lo = block_lo if finite_lo is None else min(finite_lo, block_lo)
            finite_hi = block_hi if finite_hi is None else max(finite_hi, block_hi)
    return dict(min=lo, max=hi, finite_min=finite_lo, finite_max=finite_hi,
                finite_count=n - nan - posinf - neginf, nan=nan, posinf=posinf, neginf=neginf,
                zero=zero, subnormal=subnormal)


def _pass_moments(runner: _Scan, kind: str, lo: float, hi: float, bins: int):
    if lo == hi:
        # numpy's rule for a zero-width range (value +- 0.5), widened where 0.5 is below the
        # resolution of the value.
        half = max(0.5, abs(lo) * 2.0**-20)
        lo, hi = lo - half, hi + half
    # Work on values scaled by a power of two (exact) that brings the largest magnitude near 1:
    # squared deviations then never overflow (data near 1e308) and the histogram range never
    # becomes infinite (hi - lo > float max).
    exponent = math.frexp(max(abs(lo), abs(hi)))[1]
    scale = math.ldexp(1.0, -exponent)
    scaled_range = (lo * scale, hi * scale)
    count, mean, m2 = 0, 0.0, 0.0
    hist = np.zeros(bins, dtype=np.int64)
    for block in runner.blocks():
        if block.dtype.kind == "b":
            block = block.view(np.uint8) != 0
        if kind in ("bool", "int"):
            x = np.array(block, dtype=np.float64).ravel()  # a copy: scaled in place below
        else:
            x = _as_values(block, kind)
            x = x[np.isfinite(x)]  # a copy, of the finite values only
        if x.size == 0:
            continue
        x *= scale
        hist += np.histogram(x, bins=bins, range=scaled_range)[0]
        block_mean = float(x.mean())
        x -= block_mean
        np.square(x, out=x)
        count, mean, m2 = _chan_merge(count, mean, m2, x.size, block_mean, float(x.sum()))
    edges = np.linspace(scaled_range[0], scaled_range[1], bins + 1)
    return (
        math.ldexp(mean, exponent),
        math.ldexp(math.sqrt(m2 / count), exponent),
        tuple(math.ldexp(float(edge), exponent) for edge in edges),
        tuple(int(c) for c in hist),
    )


def _chan_merge(n_a: int, mean_a: float, m2_a: float, n_b: int, mean_b: float, m2_b: float):
    """Merge two (count, mean, sum of squared deviations) summaries (Chan, Golub, LeVeque)."""
    n = n_a + n_b
    delta = mean_b - mean_a
    mean = mean_a + delta * (n_b / n)
    m2 = m2_a + m2_b + delta * delta * (n_a * n_b / n)
    return n, mean, m2
