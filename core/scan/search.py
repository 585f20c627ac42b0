"""Find the next element of a view that matches a query, in bounded memory.

The table's find bar (Ctrl+F, F3) asks for "the next 7", "the next NaN", "the next value above
1e3"; the view may be a strided view of a map larger than RAM, so the search reads it in blocks
through :class:`core.scan.blocks.BlockReader` (``pread`` into one bounded buffer: a file that
shrinks mid-search raises ``SourceError``, never ``SIGBUS``) and stops at the first match.

Rules
-----
- Order is the view's C order (row by row, as the table pages through it). The search starts at
  the element *after* ``start`` (the current element) and wraps around once, so repeating a
  search visits every match in turn; ``backward=True`` walks the reverse order. ``start=None``
  starts at the first element (the last one backward) and includes it.
- Queries (:func:`parse_query`): a number (``7``, ``-1.5e3``, ``0x1f``, ``= 7``), ``nan``, ``inf``
  (either sign; ``+inf`` / ``-inf`` for one), ``> x``, ``>= x``, ``< x``, ``<= x``.
- Equality compares with the query *rounded to the view's type*, so ``0.1`` finds the float32
  value shown as 0.1; a non-integer query never equals an integer element. Integers compare
  exactly (int64 / uint64 included); bool counts as 0 / 1.
- Complex elements: ``= z`` compares both parts (the query is real: imaginary part 0); ``nan`` /
  ``inf`` match when either part is; ``>`` / ``<`` compare the magnitude ``|z|``.
- NaN never matches a comparison, as in numpy; integers and bool are never NaN or Inf.
- Memory: one block of at most ``chunk_elements`` elements (and its float64 / boolean copies)
  at a time, within the copy budget (:func:`core.budget.elements_per_chunk`).
"""

from __future__ import annotations

import functools
import math
import operator
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from core.budget import elements_per_chunk
from core.errors import Cancelled, CoreError
from core.scan.blocks import BlockReader, iter_blocks

if TYPE_CHECKING:
    from core.scan.cluster import BlockRunner

__all__ = ["SearchQuery", "find_next", "parse_query"]

#: Memory one element of a block costs at most while tested (float64 / complex128 copy, mask).
_BYTES_PER_VALUE = 24
_COMPARISONS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le, "=": operator.eq}
_QUERY = re.compile(r"^\s*(>=|<=|==|=|>|<)?\s*(.*?)\s*$")


@dataclass(frozen=True)
class SearchQuery:
    """What to look for: ``kind`` is ``"nan"``, ``"inf"`` (``sign`` 0 for either, +1, -1) or a
    comparison ``"="``, ``">"``, ``">="``, ``"<"``, ``"<="`` with ``value``."""

    kind: str
    value: float | int = 0
    sign: int = 0

    def describe(self) -> str:
        """The query as the user would type it, e.g. ``"> 2.5"``, ``"NaN"``, ``"-Inf"``."""
        if self.kind == "nan":
            return "NaN"
        if self.kind == "inf":
            return {0: "±Inf", 1: "+Inf", -1: "-Inf"}[self.sign]
        return f"{self.kind} {self.value}" if self.kind != "=" else f"{self.value}"


def parse_query(text: str) -> SearchQuery:
    """Parse what the user typed in the find bar (forms: module docstring).

    Raises
    ------
    CoreError
        (``field="find"``) the text is empty or not one of the forms; the message lists them.
    """
    match = _QUERY.match(text)
    op, body = (match.group(1) or "=", match.group(2)) if match else ("=", "")
    op = "=" if op == "==" else op
    word = body.lower().replace(" ", "")
    if op == "=" and word in ("nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"):
        if word == "nan":
            return SearchQuery("nan")
        return SearchQuery("inf", sign=-1 if word.startswith("-") else 1 if word.startswith("+") else 0)
    value = _number(body)
    if value is None:
        raise CoreError(
            f"cannot search for {text.strip()!r}: type a number (7, -1.5e3, 0x1f), nan, inf, "
            "or a comparison such as > 100 or <= -2",
            field="find",
        )
    return SearchQuery(op, value)


def _number(text: str) -> float | int | None:
    body = text.replace("_", "")
    try:
        return int(body, 0)
    except ValueError:
        pass
    try:
        value = float(body)
    except ValueError:
        return None
    return None if math.isnan(value) else value  # "> nan" would never match anything


def find_next(
    view: np.ndarray,
    query: SearchQuery,
    start: tuple[int, ...] | None = None,
    *,
    backward: bool = False,
    reader: BlockReader | None = None,
    chunk_elements: int = 1 << 20,
    cancelled: Callable[[], bool] | None = None,
    progress: Callable[[int, int], None] | None = None,
    runner: BlockRunner | None = None,
) -> tuple[int, ...] | None:
    """The index of the next element of ``view`` that matches ``query``, or None (rules: module).

    Parameters
    ----------
    view
        Any numeric array, typically a strided view of a memory map; never copied whole.
    query
        From :func:`parse_query`.
    start
        Index of the current element (the search starts after it), or None.
    backward
        Search in reverse C order.
    reader
        Reads blocks of a mapped view with ``pread``
        (:meth:`core.pipeline.pipeline.PipelineResult.block_reader`); without one the view's
        memory is read directly (in-memory arrays).
    chunk_elements
        Elements per block.
    cancelled
        Checked before each block; when it returns True, :class:`core.errors.Cancelled` is raised.
    progress
        ``progress(done, total)`` after each block, in elements (``total = view.size``).
    runner
        Search on a Dask cluster (:class:`core.scan.cluster.BlockRunner`, whose target gives
        this same view in each worker): the tasks run in search order from ``start``, the first
        match in that order is the answer (the tasks after it are cancelled). Forward only
        (``backward`` searches here).

    Raises
    ------
    CoreError
        ``view`` is not numeric, or ``start`` is not an index of it.
    SourceError
        The file behind the view shrank during the search.
    Cancelled
        ``cancelled()`` returned True.
    """
    view = np.asarray(view)
    if view.dtype.kind not in "biufc" and view.dtype.name != "bfloat16":
        raise CoreError(f"cannot search a view of {view.dtype} values: only numbers can be searched", field="find")
    if view.size == 0:
        return None
    shape = view.shape
    flat_start = 0 if start is None else _flat_index(start, shape) + 1
    if backward:
        view = view[(slice(None, None, -1),) * view.ndim]
        if start is not None:
            flat_start = view.size - flat_start + 1
    chunk = elements_per_chunk(chunk_elements, _BYTES_PER_VALUE + view.dtype.itemsize)
    test = _tester(query, view.dtype)
    flat_start %= view.size  # past the last element: wrap to the first
    if runner is not None and not backward:
        flat = _find_on(runner, view, test, chunk, flat_start, cancelled, progress)
        return None if flat is None else tuple(int(i) for i in np.unravel_index(flat, shape))
    done = 0
    for first, piece in _pieces_from(view, flat_start):
        position = first
        for block in _blocks(piece, chunk, reader):
            if cancelled is not None and cancelled():
                raise Cancelled()
            hits = np.flatnonzero(test(block))
            if hits.size:
                flat = position + int(hits[0])
                if backward:
                    flat = view.size - 1 - flat
                return tuple(int(i) for i in np.unravel_index(flat, shape))
            position += block.size
            done += block.size
            if progress is not None:
                progress(done, view.size)
    return None


def _find_on(runner: BlockRunner, view: np.ndarray, test, chunk: int, flat_start: int, cancelled,
             progress) -> int | None:
    """The flat index of the first match at or after ``flat_start`` in C order, wrapping to 0
    (module rules), found by the cluster's tasks run in that order: the task holding the start,
    the tasks after it, then those before it (the wrap), then the start task's head."""
    sizes, ranges = runner.plan(view, _flat_order, chunk)
    starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    at = next(i for i, (_first, last) in enumerate(ranges) if starts[last] > flat_start)
    order = ranges[at:] + ranges[:at]
    work = functools.partial(_first_hits, test=test, after=flat_start)
    results = runner.results(order, _flat_order, chunk, work, _own_reader, cancelled=cancelled, what="the search")
    done, start_head = 0, None
    try:
        for turn, hits in enumerate(results):
            wrapped = turn >= len(ranges) - at  # a task before the start: its matches come after the wrap
            for (after, before), _size in hits:
                if not wrapped and after is not None:
                    return after
                if wrapped and before is not None:
                    return before
                if turn == 0 and before is not None and start_head is None:
                    start_head = before
            done = min(view.size, done + sum(size for _hits, size in hits))
            if progress is not None:
                progress(done, view.size)
    finally:
        results.close()
    return start_head


def _flat_order(view: np.ndarray) -> np.ndarray:
    """The view as the search walks it (C order: the view itself)."""
    return view


def _own_reader(reader: BlockReader | None) -> BlockReader | None:
    """A search task's state: the reader its target opened (reads its blocks with ``pread``)."""
    return reader


def _first_hits(start: int, block: np.ndarray, reader: BlockReader | None, *, test, after: int) -> tuple:
    """The flat indices of the block's first match at or after ``after`` and of its first match
    before it (None where there is none); ``start``: the block's first flat index."""
    values = reader.read(block) if reader is not None else block
    hits = np.flatnonzero(test(values.reshape(-1))) + start
    later = hits[hits >= after]
    earlier = hits[hits < after]
    return (int(later[0]) if later.size else None, int(earlier[0]) if earlier.size else None)


def _flat_index(index: tuple[int, ...], shape: tuple[int, ...]) -> int:
    if len(index) != len(shape) or not all(0 <= i < n for i, n in zip(index, shape)):
        raise CoreError(f"search start {tuple(index)} is not an index of shape {shape}", field="find")
    return int(np.ravel_multi_index(tuple(index), shape)) if shape else 0


def _pieces_from(view: np.ndarray, flat_start: int) -> Iterator[tuple[int, np.ndarray]]:
    """``(first flat index, piece)``: views that cover ``view``'s C order from ``flat_start`` to
    the end, then from 0 to ``flat_start``, without copying (a tail and a head per axis)."""
    if view.ndim == 0:
        yield 0, view.reshape(1)
        return
    index = np.unravel_index(flat_start, view.shape)
    strides = [math.prod(view.shape[axis + 1:]) for axis in range(view.ndim)]
    # Tail: view[i0, ..., i_k:], then view[i0, ..., i_{k-1}+1:], ... up to view[i0+1:].
    for axis in range(view.ndim - 1, -1, -1):
        begin = int(index[axis]) + (0 if axis == view.ndim - 1 else 1)
        lead = tuple(int(i) for i in index[:axis])
        piece = view[lead + (slice(begin, None),)]
        first = sum(i * s for i, s in zip(lead, strides)) + begin * strides[axis]
        if piece.size:
            yield first, piece
    # Head: view[:i0], view[i0, :i1], ..., view[i0, ..., :i_k].
    for axis in range(view.ndim):
        lead = tuple(int(i) for i in index[:axis])
        piece = view[lead + (slice(0, int(index[axis])),)]
        first = sum(i * s for i, s in zip(lead, strides))
        if piece.size:
            yield first, piece


def _blocks(piece: np.ndarray, chunk: int, reader: BlockReader | None) -> Iterator[np.ndarray]:
    if reader is not None:
        yield from reader.blocks(piece, chunk)
    else:
        yield from iter_blocks(piece, chunk)


def _tester(query: SearchQuery, dtype: np.dtype) -> Callable[[np.ndarray], np.ndarray]:
    """A function block -> boolean mask of the matches (rules: module docstring)."""
    kind = dtype.kind if dtype.name != "bfloat16" else "f"
    if query.kind in ("nan", "inf"):
        if kind not in "fc":
            return lambda block: np.zeros(block.shape, bool)
        if query.kind == "nan":
            return lambda block: np.isnan(_as_float(block)) if kind == "f" else (
                np.isnan(block.real) | np.isnan(block.imag))
        sign = query.sign

        def infinite(values: np.ndarray) -> np.ndarray:
            return np.isinf(values) if sign == 0 else values == sign * np.inf

        if kind == "f":
            return lambda block: infinite(_as_float(block))
        return lambda block: infinite(block.real.astype(np.float64)) | infinite(block.imag.astype(np.float64))
    compare = _COMPARISONS[query.kind]
    value = query.value
    if kind in "biu":
        if query.kind == "=" and not float(value).is_integer():
            return lambda block: np.zeros(block.shape, bool)
        target = int(value) if float(value).is_integer() and abs(value) < 2**70 else value
        return lambda block: compare(block.astype(np.int64) if kind == "b" else block, target)
    if kind == "c":
        if query.kind == "=":
            rounded = complex(np.asarray(value, dtype).item())
            return lambda block: block == rounded
        return lambda block: compare(np.abs(block.astype(np.complex128)), float(value))
    if query.kind == "=":
        with np.errstate(over="ignore"):
            rounded = float(np.asarray(float(value)).astype(dtype).astype(np.float64))
        return lambda block: _as_float(block) == rounded
    return lambda block: compare(_as_float(block), float(value))


def _as_float(block: np.ndarray) -> np.ndarray:
    return block.astype(np.float64)
