"""Statistics of the current view, computed in bounded memory.

:func:`compute_statistics` scans a view of any size (typically a strided view of a read-only
memory map larger than RAM) in *blocks* of at most ``chunk_elements`` elements, on the thread pool
of :func:`core.scan.parallel.scan_blocks` (two threads: numpy releases the GIL). Each block is
worked on in sub-blocks of :data:`SUB_BLOCK` values whose float64 copies stay in the CPU caches,
so the memory used is a few blocks' worth whatever the view size, and the data is read at close
to memory speed.

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
* Complex: every statistic is of one real quantity of ``z`` (computed in float64), chosen with
  ``quantity`` (:data:`COMPLEX_QUANTITIES`) and reported as ``Statistics.quantity``: the
  magnitude ``|z|`` by default (``np.abs``, C99 rules: an infinite component gives +Inf, else a
  NaN component gives NaN), the real or imaginary part, the phase ``np.angle(z)`` in radians, or
  ``20*log10|z|`` in dB (``-inf`` for 0). The subnormal threshold is that of the component type.
  Real data ignores ``quantity`` and reports ``"value"``.
* Empty view: counts 0, ``min`` / ``max`` / ``mean`` / ``std`` ``None``, empty histogram.
* Pass 1 gives the counts, the extremes and the moments (each block's mean and sum of squared
  deviations, merged in block order, so the figures do not depend on the number of threads);
  pass 2 the histogram, whose bin indices are numpy's (:class:`core.scan.histogram.BinIndexer`;
  computed in the values' own float type by :class:`core.scan.histogram.FastBins` whenever its
  error bound allows, with the same result).
  Integers of one or two bytes (and bool) take one pass: the exact count of every possible value,
  from which every figure follows (histogram included, as numpy bins those values).
* **First figures first.** A real view of more than ``extremes_first_above`` values
  (:data:`EXTREMES_FIRST_ABOVE`, 2**24) whose bytes span at most twice its size (one more read
  costs about its bytes) is first read once for its extremes only (:mod:`core.scan.extremes`:
  at memory speed, the ``min`` / ``max`` pass 1 finds, bit for bit). ``partial(statistics)``,
  when given, receives each stage's figures as soon as they are known, every one exact and
  equal to the final figure: (1) after that first read, ``count``, ``min``, ``max`` and the
  counts the extremes prove (no NaN when no maximum was NaN, no -Inf above a finite minimum, no
  zero or subnormal when every value is a normal number away from 0; integers have no NaN,
  infinity or subnormal); (2) after pass 1, every figure but the histogram (not given when one
  pass gives everything). Each has ``complete=False`` and names in ``pending`` the fields it
  does not know yet (they are None; ``"histogram"`` for the histogram tuples). A view found all
  NaN by the first read is done (nothing else to compute). Complex views skip the first read
  (computing ``|z|`` costs as much as pass 1), as do smaller and sparse views (their pass 1
  ends about as soon) and views of a remote object (its first read waits for the network, which
  pass 1 then computes behind). Pass 1 takes each sub-block's extremes from the first read (kept for up
  to :data:`KEEP_EXTREMES_UP_TO` sub-blocks) instead of finding them again, which repays part
  of that read: the whole computation of a 1 GiB float32 map takes about 5% longer (0.06-0.08 s
  for the first read, 0.03 s saved by pass 1).
* ``progress(done, total)`` runs up to ``total = 2 * view.size`` and never goes back; with the
  first read, that read fills the first eighth and the passes share the rest.
* A view of a remote object (:mod:`core.files.remote`) is read from the network once: the block
  cache holds the view's bytes for the scan (:meth:`core.scan.blocks.BlockReader.holding`, up to
  the copy budget), so the passes after the first read the cache. A bigger remote view is
  fetched again by each pass.
* Memory: a block read per thread plus scratch buffers of a sub-block, whatever the view size
  (with a ``reader``, each thread's buffer holds a whole dense block: one ``pread`` per block);
  blocks shrink to stay within the copy budget of :mod:`core.budget`, and a histogram too big
  for it is refused.
* **Computed values** (``compute``): the figures are of ``compute(values)`` for the values of
  each block as read (flat), not of the values themselves: how a bit field's values come from
  the view of its storage units (:meth:`core.records.layout.Field.bits_of`), block by block,
  never the whole view at once. ``compute`` works element by element (where a block ends does
  not matter) and its type, that of ``compute`` of no values, is the type of the figures; the
  result equals the statistics of the computed array itself. Scanned here only (no ``runner``).
* Cancellation raises :class:`Cancelled` (deliberately *not* a :class:`~core.errors.CoreError`:
  nothing is wrong with the data). ``check()``, when given, is called before each block is read
  (the pipeline's ``FileSource.check_unchanged``), so a file that changed raises its
  ``SourceError`` (why this matters: :mod:`core.files.shrink_guard`).
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from core.budget import check_copy_budget, elements_per_chunk
from core.dtypes.ml_types import loaded_ml_dtypes
from core.errors import CoreError
from core.files.safe_open import sequential_access
from core.scan.block_summaries import (
    Part,
    Scratch,
    histogram_of_block,
    scale_exponent,
    summarise_block,
    table_values,
)
from core.scan.blocks import DEFAULT_MAX_SPAN, BlockReader, byte_span, memory_order
from core.scan.extremes import COUNT_FIELDS, Extremes, extremes_of_block, known_counts
from core.scan.histogram import BinIndexer, FastBins
from core.scan.parallel import scan_blocks

if TYPE_CHECKING:
    from core.scan.cluster import BlockRunner

__all__ = ["COMPLEX_QUANTITIES", "Statistics", "compute_statistics"]

#: What the statistics of complex data are of (``compute_statistics(quantity=...)``).
COMPLEX_QUANTITIES = ("magnitude", "real", "imaginary", "phase", "dB")

Progress = Callable[[int, int], None]
#: Views of more values than this get their extremes first (:mod:`core.scan.extremes`); pass 1
#: of smaller ones ends in well under 0.3 s anyway (2**24 float64 values: 0.1 s).
EXTREMES_FIRST_ABOVE = 1 << 24
#: The first read keeps the extremes of up to this many sub-blocks for pass 1 (2**33 values in
#: blocks of 2**22; about 8 MB); a view of more sub-blocks has pass 1 find them again.
KEEP_EXTREMES_UP_TO = 1 << 16
#: Memory one value of a block costs at most while scanned (the block read by each thread, the
#: bincount copy of a small-integer block; the sub-block buffers are a constant on top).
_BYTES_PER_VALUE = 40


@dataclass(frozen=True)
class Statistics:
    """Summary of a view; see the module docstring for the rules.

    ``min`` / ``max`` are Python ints for integer and bool views, floats otherwise, ``None``
    when there is no non-NaN value; ``mean`` / ``std`` are floats, ``None`` without finite values.
    ``histogram_edges`` has ``len(histogram_counts) + 1`` entries (both empty without finite
    values). ``complete`` is False only for the figures given to ``partial`` before the
    histogram is computed (then both histogram tuples are empty); ``pending`` names the fields
    such figures do not know yet (they are None there; ``"histogram"`` for both histogram
    tuples), and is empty when ``complete``.
    """

    dtype: str
    quantity: str
    count: int
    finite_count: int | None
    nan_count: int | None
    posinf_count: int | None
    neginf_count: int | None
    zero_count: int | None
    subnormal_count: int | None
    min: int | float | None
    max: int | float | None
    mean: float | None
    std: float | None
    histogram_edges: tuple[float, ...]
    histogram_counts: tuple[int, ...]
    complete: bool = True
    pending: tuple[str, ...] = ()


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
        ml_dtypes = loaded_ml_dtypes()  # none of its types exists before it is imported
        return None if ml_dtypes is None else ml_dtypes.finfo(dtype.newbyteorder("="))
    except (TypeError, ValueError, KeyError):
        return None


def _smallest_normal(dtype: np.dtype) -> float:
    if dtype.kind == "c":
        dtype = np.dtype(f"f{dtype.itemsize // 2}")
    info = _ml_finfo(dtype)
    return float(info.smallest_normal if info is not None else np.finfo(dtype).smallest_normal)


# ----------------------------------------------------------------------------- the scan
def compute_statistics(
    view: np.ndarray,
    *,
    bins: int = 64,
    chunk_elements: int = 1 << 22,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
    check: Callable[[], None] | None = None,
    reader: BlockReader | None = None,
    partial: Callable[[Statistics], None] | None = None,
    workers: int | None = None,
    quantity: str = "magnitude",
    extremes_first_above: int = EXTREMES_FIRST_ABOVE,
    histogram: bool = True,
    runner: BlockRunner | None = None,
    compute: Callable[[np.ndarray], np.ndarray] | None = None,
) -> Statistics:
    """Compute :class:`Statistics` of ``view`` in bounded memory (rules: module docstring).

    Parameters
    ----------
    view
        Any numeric array, typically a strided view of a memory map; it is never copied whole:
        each block copies at most ``chunk_elements`` elements.
    bins
        Number of histogram bins (>= 1).
    chunk_elements
        Elements per block.
    progress
        ``progress(done, total)`` after each block, ``total = 2 * view.size`` (module rules).
    cancelled
        Checked before each block; when it returns True, :class:`Cancelled` is raised.
    check
        Called before each block is read; it raises (e.g. ``SourceError``) when the file behind
        the view changed (see :mod:`core.files.shrink_guard`).
    reader
        Reads the blocks of a memory-mapped view with ``pread`` (:mod:`core.scan.blocks`), so a
        file truncated during the scan raises ``SourceError`` instead of faulting. Give one
        whenever the view comes from files (:meth:`core.pipeline.pipeline.PipelineResult.block_reader`).
        Each thread reads with a twin of it (:meth:`BlockReader.twin`).
    partial
        Called (in the calling thread) with the figures known so far, ``complete=False``, their
        ``pending`` fields None: after the first read of a big view (its extremes) and after
        pass 1 (all but the histogram; not when one pass gives everything). Module rules.
    workers
        Threads (default: 2, or 1 on a single-core machine).
    quantity
        For complex data, what the statistics are of: one of :data:`COMPLEX_QUANTITIES`
        (module rules). Ignored for real data.
    extremes_first_above
        Real views of more values are read once for their extremes first (module rules).
    histogram
        False: no histogram (both tuples empty, ``complete`` still True), so no second pass:
        one read of the view gives every other figure (what a whole-model scan needs).
    runner
        Run the passes' blocks on a Dask cluster (:class:`core.scan.cluster.BlockRunner`, whose
        target gives this same view in each worker) instead of the local threads: the same
        blocks merged in the same order, so the same figures. No first read of the extremes
        (module rules: like a remote view's); ``check`` and ``reader`` stay unused.
    compute
        The figures are of ``compute`` of each block's values (module rules: computed values,
        a bit field's from its storage units); None: of the values themselves.

    Returns
    -------
    Statistics

    Raises
    ------
    CoreError
        ``view`` is not numeric (bytes, structured, object...), ``bins < 1``, or ``quantity``
        is not one of :data:`COMPLEX_QUANTITIES`; ``compute`` with a ``runner``.
    Cancelled
        ``cancelled()`` returned True.
    SourceError
        ``check()`` or the reader found that the file changed.
    """
    view = np.asarray(view)
    if runner is not None:
        if compute is not None:
            raise CoreError("computed values (a bit field's) are scanned on this machine, not on a cluster "
                            "(scan them without the cluster)", field="cluster")
        return _statistics(view, bins=bins, chunk_elements=chunk_elements, progress=progress, cancelled=cancelled,
                           check=None, reader=None, partial=partial, workers=workers, quantity=quantity,
                           extremes_first_above=1 << 62, histogram=histogram, runner=runner, compute=None)
    # A remote view's passes after the first are read from the cache it holds for the scan.
    with reader.holding(view) if reader is not None else contextlib.nullcontext():
        return _statistics(view, bins=bins, chunk_elements=chunk_elements, progress=progress, cancelled=cancelled,
                           check=check, reader=reader, partial=partial, workers=workers, quantity=quantity,
                           extremes_first_above=extremes_first_above, histogram=histogram, runner=None,
                           compute=compute)


def _statistics(view: np.ndarray, *, bins: int, chunk_elements: int, progress: Progress | None,
                cancelled: Callable[[], bool] | None, check: Callable[[], None] | None, reader: BlockReader | None,
                partial: Callable[[Statistics], None] | None, workers: int | None, quantity: str,
                extremes_first_above: int, histogram: bool, runner: BlockRunner | None,
                compute: Callable[[np.ndarray], np.ndarray] | None) -> Statistics:
    # The type of the values the figures are of: the view's, or what compute makes of it.
    dtype = view.dtype if compute is None else compute(np.zeros(0, view.dtype)).dtype
    kind = _kind(dtype)
    if bins < 1:
        raise CoreError(f"bins must be at least 1, got {bins} (ask for 64 bins)")
    # The histogram (counts and edges) is allocated whole; the blocks are sized to the budget.
    check_copy_budget(16 * (bins + 1), f"a histogram of {bins} bins", "ask for fewer bins")
    chunk_elements = elements_per_chunk(chunk_elements, _BYTES_PER_VALUE)
    if quantity not in COMPLEX_QUANTITIES:
        raise CoreError(f"quantity must be one of {', '.join(COMPLEX_QUANTITIES)}, got {quantity!r}")
    part_of = quantity  # the complex quantity the blocks compute
    quantity = quantity if kind == "complex" else "value"
    scan_view = memory_order(view)
    n = int(view.size)
    one_pass = kind == "bool" or (kind == "int" and dtype.itemsize <= 2)
    block_kind = "table" if one_pass else kind
    smallest_normal = _smallest_normal(dtype) if kind in ("float", "complex") else 0.0

    # Each thread's reader holds a whole dense block: one pread into its buffer, never a second
    # copy into a new array (a block in two pieces is copied whole by read_whole).
    span = max(DEFAULT_MAX_SPAN, chunk_elements * view.dtype.itemsize)

    def scan(work, merge, done: int, weight: int, report: Progress | None) -> int:
        if runner is not None:
            return runner.scan(view, memory_order, chunk_elements, work, merge,
                               functools.partial(_scratch_of, span=span), cancelled=cancelled, progress=report,
                               total=2 * n, done=done, weight=weight, what="statistics")
        with sequential_access(scan_view):  # a pass reads the view whole: read ahead
            return scan_blocks(
                (scan_view,), chunk_elements, lambda start, blocks, scratch: work(start, blocks[0], scratch),
                merge, new_state=lambda: Scratch(reader.twin(span) if reader is not None else None, compute),
                before_block=check, cancelled=cancelled, cancel_message="statistics cancelled",
                progress=report, total=2 * n, done=done, weight=weight, workers=workers)

    report, known = progress, None
    if kind != "complex" and n > extremes_first_above and _cheap_to_read(scan_view) \
            and not (reader is not None and reader.fetches(scan_view)):
        # The extremes first: an eighth of the progress, the passes share the rest.
        head = n // 4
        extremes, known = _read_extremes(
            scan, kind, keep=not one_pass,
            progress=None if progress is None else lambda done, total: progress(done * head // total, total))
        if progress is not None:
            report = lambda done, total: progress(head + done * (total - head) // total, total)  # noqa: E731
        figures = _first_figures(dtype.name, quantity, n, extremes, known_counts(extremes, kind, n, smallest_normal))
        if figures.complete:  # every value is NaN: nothing else to compute
            if report is not None:
                report(2 * n, 2 * n)
            return figures
        if partial is not None:
            partial(figures)

    first = Part()
    scan(lambda start, block, scratch: summarise_block(start, block, block_kind, smallest_normal, scratch, part_of,
                                                       None if known is None else known[start]),
         first.merge, 0, 2 if one_pass else 1, report)

    def statistics(mean, std, edges=(), counts=(), complete=True) -> Statistics:
        finite_count = n - first.nan - first.posinf - first.neginf
        return Statistics(
            dtype=dtype.name, quantity=quantity, count=n, finite_count=finite_count,
            nan_count=first.nan, posinf_count=first.posinf, neginf_count=first.neginf,
            zero_count=first.zero, subnormal_count=first.subnormal, min=first.lo, max=first.hi,
            mean=mean, std=std, histogram_edges=edges, histogram_counts=counts, complete=complete,
            pending=() if complete else ("histogram",),
        )

    if first.table is not None:
        return _from_value_counts(first, table_values(dtype), bins if histogram else 0, statistics)
    if first.finite_lo is None:
        if n and report is not None:
            report(2 * n, 2 * n)  # nothing finite: the second pass has nothing to read
        return statistics(None, None)
    mean, std = first.mean_std()
    if not histogram:
        if report is not None:
            report(2 * n, 2 * n)  # the histogram pass is not needed
        return statistics(mean, std)
    if partial is not None:
        partial(statistics(mean, std, complete=False))
    indexer, exponent = _bins(float(first.finite_lo), float(first.finite_hi), bins)
    non_finite = (bool(first.nan), bool(first.posinf or first.neginf))
    fast = None if exponent else FastBins.for_range(indexer, _binned_dtype(dtype, kind))
    hist = np.zeros(bins, np.int64)

    def add(counts: np.ndarray) -> None:
        hist.__iadd__(counts)

    scan(lambda start, block, scratch: histogram_of_block(block, kind, exponent, indexer, non_finite, scratch,
                                                          part_of, fast),
         add, n, 1, report)
    if fast is not None:  # FastBins counts NaN and -Inf in the first bin, +Inf in the last
        hist[0] -= first.nan + first.neginf
        hist[-1] -= first.posinf
    return statistics(mean, std, _edges(indexer, exponent), tuple(int(c) for c in hist))


def _scratch_of(reader: BlockReader | None, span: int) -> Scratch:
    """A task's scratch on a cluster worker: its reader's twin with a whole block's buffer."""
    return Scratch(reader.twin(span) if reader is not None else None)


def _read_extremes(scan, kind: str, keep: bool, progress: Progress | None) -> tuple[Extremes, dict | None]:
    """The first read (module rules): the view's :class:`Extremes`, and its sub-blocks'
    ``(lo, hi, has_nan)`` by block start for pass 1 (None: not kept)."""
    extremes = Extremes()
    known: dict[int, list] | None = {} if keep else None
    kept = 0

    def merge(found: tuple[int, Extremes]) -> None:
        nonlocal known, kept
        start, block = found
        extremes.merge(block)
        if known is not None:
            kept += len(block.sub_blocks)
            known = None if kept > KEEP_EXTREMES_UP_TO else known  # too many to keep
        if known is not None:
            known[start] = block.sub_blocks

    scan(lambda start, block, scratch: (start, extremes_of_block(block, kind, scratch)), merge, 0, 2, progress)
    return extremes, known


def _first_figures(dtype: str, quantity: str, n: int, extremes: Extremes, counts: dict[str, int]) -> Statistics:
    """The figures of the first read; complete when every value is NaN (nothing else to find)."""
    if extremes.lo is None:
        return Statistics(dtype=dtype, quantity=quantity, count=n, min=None, max=None, mean=None, std=None,
                          histogram_edges=(), histogram_counts=(), **counts)
    pending = tuple(name for name in COUNT_FIELDS if name not in counts) + ("mean", "std", "histogram")
    return Statistics(dtype=dtype, quantity=quantity, count=n, min=extremes.lo, max=extremes.hi, mean=None,
                      std=None, histogram_edges=(), histogram_counts=(), complete=False, pending=pending,
                      **{name: counts.get(name) for name in COUNT_FIELDS})


def _cheap_to_read(view: np.ndarray) -> bool:
    """Whether one more read of ``view`` costs about its bytes: they span at most twice as many
    (a sparse view is read in many small pieces, and its extremes would not come much sooner)."""
    low, high = byte_span(view)
    return high - low <= 2 * view.nbytes


def _binned_dtype(dtype: np.dtype, kind: str) -> np.dtype:
    """The type of the values the histogram pass bins (:func:`float_values` of a block)."""
    if kind == "float" and dtype.itemsize <= 4:
        return np.dtype(np.float32)  # float16 and bfloat16 widen to float32, float32 stays
    return np.dtype(np.float64) if kind != "int" else dtype


def _bins(lo: float, hi: float, bins: int) -> tuple[BinIndexer, int]:
    """The bins over ``[lo, hi]`` of values scaled by ``2**-exponent``, and that exponent."""
    if lo == hi:
        # numpy's rule for a zero-width range (value +- 0.5), widened where 0.5 is below the
        # resolution of the value.
        half = max(0.5, abs(lo) * 2.0**-20)
        lo, hi = lo - half, hi + half
    # Extreme values are scaled by a power of two (exact) that brings the largest magnitude near
    # 1: the histogram range never becomes infinite (hi - lo > float max). Scaling commutes with
    # every rounding of the bin computation, so unscaled values elsewhere bin identically.
    exponent = scale_exponent(lo, hi)
    scale = math.ldexp(1.0, -exponent)
    return BinIndexer(lo * scale, hi * scale, bins), exponent


def _edges(indexer: BinIndexer, exponent: int) -> tuple[float, ...]:
    return tuple(math.ldexp(float(edge), exponent) for edge in indexer.edges)


def _from_value_counts(first: Part, values: np.ndarray, bins: int, statistics) -> Statistics:
    """Every figure of a bool or small-integer view from the count of each of its values."""
    present = np.flatnonzero(first.table)
    if not present.size:
        return statistics(None, None)
    counts, values = first.table[present], values[present]
    first.lo, first.hi = int(values.min()), int(values.max())
    zero = np.flatnonzero(values == 0)
    first.zero = int(counts[zero[0]]) if zero.size else 0
    count = int(counts.sum())
    total = sum(int(v) * int(c) for v, c in zip(values.tolist(), counts.tolist()))
    mean = total / count  # exact integers, one rounding
    deviations = values - mean
    std = math.sqrt(float(np.dot(counts.astype(np.float64), deviations * deviations)) / count)
    if not bins:  # no histogram asked for
        return statistics(mean, std)
    indexer, exponent = _bins(float(first.lo), float(first.hi), bins)
    scaled = values.astype(np.float64) * math.ldexp(1.0, -exponent)
    hist = np.zeros(bins, np.int64)
    np.add.at(hist, indexer.indices(scaled), counts)
    return statistics(mean, std, _edges(indexer, exponent), tuple(int(c) for c in hist))
