"""The whole comparison of two views, in bounded memory, with progress and cancellation.

Rules
-----
- Pairing: the views must have the same shape or broadcast as numpy broadcasts (trailing axes
  equal or 1; the compared shape is ``np.broadcast_shapes``), else :class:`CoreError`. In shift
  mode (``shift != 0``, :mod:`core.compare.shift`) both views are read flat in C order and
  ``A[k]`` is compared with ``B[k + shift]`` for every ``k`` where both exist.
- Reading: the compared shape is cut into blocks of at most ``chunk_elements`` elements
  (:func:`core.scan.blocks.iter_blocks`); block *i* of A and block *i* of B cover the same C-order
  element range. Each side's block is read with ``pread`` by a :class:`BlockReader` of that side
  (one per worker thread), so a file that shrinks during the comparison raises
  :class:`~core.errors.SourceError` and never faults. Memory: a few copies of one block per
  worker, whatever the file sizes.
- Work: blocks run on a small thread pool (:func:`core.scan.parallel.scan_blocks`, the scheduler
  statistics use too; numpy and ``pread`` release the GIL); partial results
  are merged in any order, and ties (equal maxima, equal errors in the worst list) go to the
  lower C-order index, so the result does not depend on the number of workers or the block size.
- A fast path covers two sides of the same float32 or float64 type with the tolerance test and
  only finite values in the block; every other block goes through
  :func:`core.compare.elementwise.element_differences`. Both give identical figures.
- Bound: before anything is read, the work is counted (:func:`compare_work`: pairs, and bytes
  read from each side) and refused with :class:`~core.errors.BudgetError` when it exceeds
  ``work_limit`` pairs (default :data:`WORK_LIMIT`, 2**31 = 2,147,483,648 pairs; None: no limit);
  the mismatch lists hold at most ``2 * list_limit`` entries of about :data:`LIST_ENTRY_BYTES`
  each, checked against the copy budget (:func:`core.budget.check_copy_budget`) as well. The
  message names both and how to lower them (``limit_fix``: the caller's words, e.g. a command
  line option).
- ``progress(done, total)`` after each block (``total`` pairs); ``cancelled()`` is checked
  before each block is started and raises :class:`~core.errors.Cancelled`; each side's
  ``check()`` (e.g. ``FileSource.check_unchanged``) runs before each block.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from core.budget import check_copy_budget, elements_per_chunk
from core.compare.agreement import AgreementSums
from core.compare.blockstats import BlockSummary, ScratchPool, Shared, summarise_block
from core.compare.elementwise import ElementDifferences, element_differences, native_values
from core.compare.result import Categories, CompareResult, ErrorHistogram, Extreme, Mismatch
from core.compare.rules import CompareRules, resolve_rules
from core.errors import BudgetError, CoreError
from core.scan.blocks import BlockReader
from core.scan.parallel import default_workers, read_whole, scan_blocks
from core.text.byte_sizes import format_bytes

__all__ = [
    "LIST_ENTRY_BYTES", "WORK_LIMIT", "CompareWork", "Pairing", "Side", "Window", "check_compare_work",
    "compare_results", "compare_sides", "compare_work", "flat_view", "read_window", "window_differences",
]

#: Elements per block: a block's copies (about 10 of 4-8 bytes) stay in the CPU caches.
DEFAULT_CHUNK = 1 << 18
#: Memory one element of a block costs in a worker (both sides' reads and the temporaries).
_BYTES_PER_VALUE = 96
#: Most element pairs one comparison compares unless asked for more (module rules, "Bound").
WORK_LIMIT = 1 << 31
#: Memory one entry of a mismatch list costs (its tuple, its Mismatch, its indices, its text).
LIST_ENTRY_BYTES = 1024
#: Largest window :func:`read_window` reads (what a screen shows is far smaller).
WINDOW_LIMIT = 1 << 22


@dataclass(frozen=True)
class Side:
    """One side of a comparison: its view and how to read it.

    Attributes
    ----------
    view
        The values (any shape; a view of a memory map or an array in memory).
    new_reader
        Makes a :class:`BlockReader` over the view's maps (one per thread); None for a view in
        memory, which is read directly.
    check
        Called before each block (raises when the files changed), or None.
    """

    view: np.ndarray
    new_reader: Callable[[], BlockReader] | None = None
    check: Callable[[], None] | None = None

    @classmethod
    def of(cls, result, check: Callable[[], None] | None = None) -> Side:
        """The side of a :class:`core.pipeline.pipeline.PipelineResult` (its view, read with its
        :meth:`~core.pipeline.pipeline.PipelineResult.block_reader`)."""
        return cls(result.view, result.block_reader, check)


class Pairing:
    """Which element of A meets which element of B (module rules): the two compared views and
    the index of each compared position in A and in B.

    Raises
    ------
    CoreError
        The shapes neither match nor broadcast; a shift on a view that cannot be read flat.
    """

    def __init__(self, view_a: np.ndarray, view_b: np.ndarray, shift: int = 0) -> None:
        self.shape_a, self.shape_b, self.shift = tuple(view_a.shape), tuple(view_b.shape), int(shift)
        if self.shift:
            flat_a, flat_b = flat_view(view_a, "A"), flat_view(view_b, "B")
            self.start_a = max(0, -self.shift)
            count = max(0, min(flat_a.size, flat_b.size - self.shift) - self.start_a)
            self.a = flat_a[self.start_a:self.start_a + count]
            self.b = flat_b[self.start_a + self.shift:self.start_a + self.shift + count]
            self.shape = (count,)
            return
        try:
            self.shape = tuple(np.broadcast_shapes(self.shape_a, self.shape_b))
        except ValueError:
            raise CoreError(
                f"A has shape {self.shape_a} and B has shape {self.shape_b}: they neither match nor broadcast "
                "(numpy's rule: aligned from the last axis, each pair of lengths equal or one of them 1); "
                "give both sides the same shape (--shape, --b-shape), or compare the flat values with a shift (--shift N or --shift auto)",
                field="shape") from None
        self.a = np.broadcast_to(view_a, self.shape)
        self.b = np.broadcast_to(view_b, self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def index_a(self, flat: int) -> tuple[int, ...]:
        """A's index of compared position ``flat`` (C order of the compared shape)."""
        if self.shift:
            return _unravel(flat + self.start_a, self.shape_a)
        return _broadcast_index(_unravel(flat, self.shape), self.shape_a)

    def index_b(self, flat: int) -> tuple[int, ...]:
        """B's index of compared position ``flat``."""
        if self.shift:
            return _unravel(flat + self.start_a + self.shift, self.shape_b)
        return _broadcast_index(_unravel(flat, self.shape), self.shape_b)


def flat_view(view: np.ndarray, name: str) -> np.ndarray:
    """``view`` as a flat view in C order (no copy).

    Raises
    ------
    CoreError
        The view cannot be flattened without a copy (``field="slice"``).
    """
    try:
        return np.reshape(view, -1, copy=False)
    except ValueError:
        raise CoreError(f"a shift compares flat values, but {name}'s view cannot be read flat without a copy "
                        "(its slice reorders or skips elements): remove the slice of that side", field="slice") from None


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    index = []
    for length in reversed(shape):
        flat, i = divmod(flat, length) if length else (flat, 0)
        index.append(i)
    return tuple(reversed(index))


def _broadcast_index(index: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, ...]:
    tail = index[len(index) - len(shape):] if shape else ()
    return tuple(0 if length == 1 else i for i, length in zip(tail, shape))


def _read(reader: BlockReader | None, block: np.ndarray) -> np.ndarray:
    """``block``'s values, flat, native, read with ``reader`` (valid until its next read)."""
    return native_values(read_whole(reader, block).reshape(-1))


# ----------------------------------------------------------------------------- the bound
@dataclass(frozen=True)
class CompareWork:
    """How much a comparison will do: element ``pairs`` compared, and bytes read from each side
    (a broadcast side is read once per pair it is in)."""

    pairs: int
    bytes_a: int
    bytes_b: int

    def describe(self) -> str:
        """``"1,048,576 element pairs (4.0 MiB read from A, 4.0 MiB from B)"``."""
        return (f"{self.pairs:,} element pairs ({format_bytes(self.bytes_a)} read from A, "
                f"{format_bytes(self.bytes_b)} from B)")


def compare_work(side_a: Side, side_b: Side, shift: int = 0) -> CompareWork:
    """The work of comparing ``side_a`` with ``side_b`` (nothing is read).

    Raises
    ------
    CoreError
        The sides do not pair (:class:`Pairing`).
    """
    pairing = Pairing(side_a.view, side_b.view, shift)
    pairs = pairing.size
    return CompareWork(pairs, pairs * side_a.view.dtype.itemsize, pairs * side_b.view.dtype.itemsize)


def check_compare_work(work: CompareWork, list_limit: int, *, work_limit: int | None = WORK_LIMIT,
                       limit_fix: str = "compare a slice of each side") -> None:
    """Refuse a comparison above ``work_limit`` pairs, or whose mismatch lists would not fit
    the copy budget (module rules, "Bound").

    Raises
    ------
    BudgetError
        ``field="compare"`` (too many pairs) or ``field="list_limit"`` (lists too long).
    """
    if work_limit is not None and work.pairs > work_limit:
        raise BudgetError(f"comparing {work.describe()} is above the limit of {work_limit:,} pairs "
                          f"of one comparison ({limit_fix})", field="compare")
    listed = 2 * min(max(list_limit, 0), work.pairs)
    check_copy_budget(listed * LIST_ENTRY_BYTES, f"listing up to {listed:,} first and worst mismatches",
                      "list fewer mismatches", field="list_limit")


# ----------------------------------------------------------------------------- merging
class _Merged:
    """The running totals of all blocks merged so far (main thread only)."""

    def __init__(self, pairing: Pairing, rules: CompareRules, limit: int, shared: Shared,
                 want_agreement: bool = False) -> None:
        self.pairing, self.rules, self.limit, self.shared = pairing, rules, limit, shared
        self.want_agreement = want_agreement
        self.mismatched = self.finite = 0
        self.sum_abs = self.sum_sq = 0.0  # scaled by 2**-scale (squares: 2**(-2 * scale))
        self.scale = 0
        self.max_abs = self.max_rel = self.max_ulp = None
        self.categories = np.zeros(6, np.int64)
        self.exact = self.below = 0
        self.exponents = None
        self.first: list = []
        self.worst: list = []
        self.agreement: AgreementSums | None = None

    def add(self, s: BlockSummary) -> None:
        self.mismatched += s.mismatched
        self.finite += s.finite
        scale = max(self.scale, s.scale)
        self.sum_abs = math.ldexp(self.sum_abs, self.scale - scale) + math.ldexp(s.sum_abs, s.scale - scale)
        self.sum_sq = math.ldexp(self.sum_sq, 2 * (self.scale - scale)) + math.ldexp(s.sum_sq, 2 * (s.scale - scale))
        self.scale = scale
        self.max_abs = _better(self.max_abs, s.max_abs)
        self.max_rel = _better(self.max_rel, s.max_rel)
        self.max_ulp = _better(self.max_ulp, s.max_ulp)
        self.categories += s.categories
        if s.agreement is not None:
            if self.agreement is None:
                self.agreement = AgreementSums()
            self.agreement.add(s.agreement)
        self.exact += s.exact
        self.below += s.below
        if s.exponents is not None:
            self.exponents = s.exponents.copy() if self.exponents is None else self.exponents + s.exponents
        if s.first:  # both lists are sorted: merge them (linear, not a sort)
            self.first = list(itertools.islice(heapq.merge(self.first, s.first, key=lambda e: e[0]), self.limit))
            if len(self.first) == self.limit:
                self.shared.first_bound = self.first[-1][0]
        if s.worst:
            ranked = sorted(s.worst, key=_worst_key)
            self.worst = list(itertools.islice(heapq.merge(self.worst, ranked, key=_worst_key), self.limit))
            if len(self.worst) == self.limit:
                self.shared.worst_threshold = self.worst[-1][1]

    def result(self, notes: tuple[str, ...]) -> CompareResult:
        p, rules = self.pairing, self.rules

        def extreme(best):
            if best is None:
                return None
            value, flat = best
            return Extreme(value, flat, p.index_a(flat), p.index_b(flat))

        def entry(e) -> Mismatch:
            flat, _key, a, b, absolute, relative, ulp = e
            return Mismatch(flat, p.index_a(flat), p.index_b(flat), a, b, absolute, relative, ulp)

        histogram = ErrorHistogram(exact=self.exact, below_normal=self.below,
                                   smallest_normal=float(np.finfo(rules.work).smallest_normal))
        if self.exponents is not None:
            present = np.flatnonzero(self.exponents)
            if present.size:
                low, high = present[0], present[-1] + 1
                histogram = ErrorHistogram(self.exact, self.below, histogram.smallest_normal,
                                           tuple(int(i) - Shared.EXPONENT_OFFSET for i in range(low, high)),
                                           tuple(int(c) for c in self.exponents[low:high]))
        finite = self.finite
        agreement = None
        if self.agreement is not None or self.want_agreement:
            sum_sq = math.ldexp(self.sum_sq, 2 * self.scale) if finite else None
            agreement = (self.agreement or AgreementSums()).result(sum_sq, rules.work)
        return CompareResult(
            rules=rules, shape=p.shape, shape_a=p.shape_a, shape_b=p.shape_b, shift=p.shift,
            compared=p.size, mismatched=self.mismatched, finite_pairs=finite,
            max_absolute=extreme(self.max_abs), max_relative=extreme(self.max_rel), max_ulp=extreme(self.max_ulp),
            mean_absolute=math.ldexp(self.sum_abs / finite, self.scale) if finite else None,
            rms=math.ldexp(math.sqrt(self.sum_sq / finite), self.scale) if finite else None,
            categories_a=Categories(*(int(c) for c in self.categories[:3])),
            categories_b=Categories(*(int(c) for c in self.categories[3:])),
            first=tuple(entry(e) for e in self.first), worst=tuple(entry(e) for e in self.worst),
            histogram=histogram, list_limit=self.limit, notes=notes, agreement=agreement,
        )


def _worst_key(entry) -> tuple:
    return (-entry[1], entry[0])


def _better(best, candidate):
    """The larger ``(value, flat)``; equal values: the lower flat index."""
    if candidate is None:
        return best
    if best is None or candidate[0] > best[0] or (candidate[0] == best[0] and candidate[1] < best[1]):
        return candidate
    return best


# ----------------------------------------------------------------------------- the scan
def compare_sides(side_a: Side, side_b: Side, rules: CompareRules | None = None, *, shift: int = 0,
                  list_limit: int = 100, chunk_elements: int = DEFAULT_CHUNK, workers: int | None = None,
                  progress: Callable[[int, int], None] | None = None,
                  cancelled: Callable[[], bool] | None = None, work_limit: int | None = WORK_LIMIT,
                  limit_fix: str = "compare a slice of each side", agreement: bool = False,
                  scratches: ScratchPool | None = None, **tolerances) -> CompareResult:
    """Compare ``side_a`` with ``side_b`` (rules: module docstring and :mod:`core.compare.rules`).

    Parameters
    ----------
    side_a, side_b
        The two sides; B is the reference of the tolerance test.
    rules
        Resolved rules, or None to resolve them from the views' types and ``tolerances``
        (``rtol``, ``atol``, ``ulp``, ``bitwise``, ``nan_policy`` of
        :func:`core.compare.rules.resolve_rules`).
    shift
        Compare ``A[k]`` with ``B[k + shift]`` in flat C order (0: element by element).
    list_limit
        Length of the first-mismatch and worst-mismatch lists.
    chunk_elements
        Elements per block (fewer when the copy budget requires it).
    workers
        Threads (default: up to 2, the CPU count).
    progress, cancelled
        ``progress(done, total)`` after each block; ``cancelled()`` before each block.
    work_limit, limit_fix
        Most pairs compared (None: no limit) and how the caller's user lowers the work
        (:func:`check_compare_work`).
    agreement
        Also the whole-tensor figures of :mod:`core.compare.agreement` (cosine, correlation,
        SNR, PSNR, error quantiles) in the same pass: :attr:`CompareResult.agreement`.
    scratches
        Where the worker threads' buffers come from and go back to (a caller comparing many
        tensors keeps one); None: fresh buffers.

    Returns
    -------
    CompareResult

    Raises
    ------
    CoreError
        Shapes that do not pair, types that cannot be compared, bad tolerances.
    BudgetError
        More pairs than ``work_limit``, or mismatch lists that do not fit the copy budget
        (:func:`check_compare_work`), before anything is read.
    SourceError
        A file changed or shrank during the comparison.
    Cancelled
        ``cancelled()`` returned True.
    """
    if rules is None:
        rules = resolve_rules(side_a.view.dtype, side_b.view.dtype, **tolerances)
    elif tolerances:
        raise TypeError("give either rules or tolerances")
    if list_limit < 0:
        raise CoreError(f"the mismatch list length must be >= 0, got {list_limit}")
    pairing = Pairing(side_a.view, side_b.view, shift)
    check_compare_work(CompareWork(pairing.size, pairing.size * side_a.view.dtype.itemsize,
                                   pairing.size * side_b.view.dtype.itemsize),
                       list_limit, work_limit=work_limit, limit_fix=limit_fix)
    notes = ()
    if not shift and (pairing.shape != pairing.shape_a or pairing.shape != pairing.shape_b):
        notes = (f"broadcast: A {pairing.shape_a} and B {pairing.shape_b} compared as {pairing.shape} (numpy's rule)",)
    workers = max(1, min(workers or default_workers(), 8))
    chunk = elements_per_chunk(chunk_elements, _BYTES_PER_VALUE * workers)
    shared = Shared(list_limit)
    merged = _Merged(pairing, rules, list_limit, shared, agreement)

    pool = scratches if scratches is not None else ScratchPool()
    taken = []

    def new_state():
        readers = tuple(s.new_reader() if s.new_reader is not None else None for s in (side_a, side_b))
        scratch = pool.take()
        taken.append(scratch)
        return readers, scratch

    def run(start: int, blocks: tuple[np.ndarray, np.ndarray], state) -> BlockSummary:
        (reader_a, reader_b), scratch = state
        a = _read(reader_a, blocks[0])  # in reader A's buffer, untouched by reader B
        b = _read(reader_b, blocks[1])
        return summarise_block(start, a, b, rules, shared, scratch, agreement)

    def before_block() -> None:
        for side in (side_a, side_b):
            if side.check is not None:
                side.check()

    try:
        scan_blocks((pairing.a, pairing.b), chunk, run, merged.add, new_state=new_state,
                    before_block=before_block, cancelled=cancelled, cancel_message="comparison cancelled",
                    progress=progress, total=pairing.size, workers=workers)
    finally:
        for scratch in taken:
            pool.give(scratch)
    return merged.result(notes)


def compare_results(result_a, result_b, **options) -> CompareResult:
    """:func:`compare_sides` of two :class:`core.pipeline.pipeline.PipelineResult` views, each read
    with its own block readers."""
    return compare_sides(Side.of(result_a), Side.of(result_b), **options)


# ----------------------------------------------------------------------------- windows
@dataclass(frozen=True)
class Window:
    """The values of a small window of the compared shape, and their differences."""

    a: np.ndarray
    b: np.ndarray
    differences: ElementDifferences


def read_window(side_a: Side, side_b: Side, key: tuple, shift: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The values of both sides at ``key`` (basic index of the compared shape), read with
    ``pread``, as native arrays of the window's shape.

    Raises
    ------
    CoreError
        The window holds more than :data:`WINDOW_LIMIT` elements, or the sides do not pair.
    SourceError
        A file shrank.
    """
    pairing = Pairing(side_a.view, side_b.view, shift)
    window_a, window_b = pairing.a[key], pairing.b[key]
    if window_a.size > WINDOW_LIMIT:
        raise CoreError(f"a window of {window_a.size:,} elements is too large to show "
                        f"(at most {WINDOW_LIMIT:,}: compute the whole comparison instead)")
    check_copy_budget(window_a.size * 64, f"differences of {window_a.size:,} elements", "show fewer elements")
    out = []
    for side, window in ((side_a, window_a), (side_b, window_b)):
        reader = side.new_reader() if side.new_reader is not None else None
        values = reader.read(window) if reader is not None else np.array(window)
        out.append(native_values(values))
    return out[0], out[1]


def window_differences(side_a: Side, side_b: Side, rules: CompareRules, key: tuple, shift: int = 0) -> Window:
    """Absolute, relative and ULP differences (and the verdict) of the elements at ``key`` only,
    what a table or a plot shows, without computing the whole comparison.

    Raises
    ------
    CoreError, SourceError
        As :func:`read_window`.
    """
    a, b = read_window(side_a, side_b, key, shift)
    return Window(a, b, element_differences(a, b, rules))
