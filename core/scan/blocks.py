"""Iterate views in blocks, and read blocks of memory-mapped files with ``pread`` so a shrinking file cannot fault.

Why
---
A view of a read-only map reads the file through page faults. If the file is truncated while a
long scan (statistics, export, a plot overview, a type conversion) walks the view, the next
fault past the new end kills the process with ``SIGBUS``; no check done before the scan can
close that window, because the window is the whole scan. ``pread`` has no such hazard: reading
past the end of a file returns fewer bytes, which is reported as a changed file.

Rules
-----
- :class:`BlockReader` knows the maps of a source (:class:`MappedRange`: descriptor, address and
  length of the map, file offset of its first byte). A block of a view that lies inside one of
  them is read with ``os.preadv`` (or the map's ``reader``: a remote object's bytes come from
  its source) into a reusable buffer of at most ``max_span`` bytes and
  returned as an array with the block's dtype, shape and strides over that buffer; the map's
  pages are never touched. A block of a view that is not backed by a map (an in-memory copy)
  is returned as it is.
- Blocks come from :func:`iter_blocks` (C order, at most
  ``chunk_elements`` elements). A block whose byte span exceeds ``max_span``, or is more than
  :data:`SPARSE_FACTOR` times the bytes it uses and larger than :data:`DENSE_SPAN` (a sparse
  stride, e.g. 4 bytes kept from every 1 MiB record), is split until it fits, down to single
  elements: memory stays bounded whatever the strides, and the bytes read stay within
  ``SPARSE_FACTOR`` times the bytes used (plus ``DENSE_SPAN`` per read), so 4 bytes from every
  record of a 1 TiB file read megabytes, not the terabyte. The cost of a very sparse view is
  one system call per element.
- An array yielded by :meth:`BlockReader.blocks` is valid until the next one is requested (the
  buffer is reused); copy it to keep it.
- A short read means the file shrank: :class:`core.errors.SourceError` (``field="files"``) names
  the file and the fix (reload), and the scan stops.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from core.errors import SourceError
from core.files.source import MappedRange
from core.text.names import printable_name

__all__ = ["BlockReader", "MappedRange", "byte_span", "iter_blocks", "memory_order"]

#: Largest buffer a reader allocates (and reuses) for one block.
DEFAULT_MAX_SPAN = 8 << 20
#: A span at most this long is read in one call even when most of it is gaps (cheaper than
#: several calls).
DENSE_SPAN = 64 << 10
#: A span longer than ``DENSE_SPAN`` is read in one call only when at most this many times
#: the bytes the block uses.
SPARSE_FACTOR = 8


def iter_blocks(view: np.ndarray, chunk_elements: int) -> Iterator[np.ndarray]:
    """Yield views of ``view`` that cover it exactly once, in C order, none copied.

    Each block is ``view[i:j]``, or a slice of the last axis under fixed leading indices, and
    holds at most ``chunk_elements`` elements (at least ``chunk_elements // 2`` except at the end
    of a row). A 0-d view is yielded as a 1-element 1-d view; a zero-size view yields nothing.

    Raises
    ------
    ValueError
        ``chunk_elements < 1``.
    """
    if chunk_elements < 1:
        raise ValueError(f"chunk_elements must be >= 1, got {chunk_elements}")
    view = np.asarray(view)
    if view.size == 0:
        return
    if view.ndim == 0:
        yield view.reshape(1)
        return
    yield from _blocks(view, chunk_elements)


def _blocks(view: np.ndarray, chunk: int) -> Iterator[np.ndarray]:
    if view.ndim == 1:
        for start in range(0, view.shape[0], chunk):
            yield view[start:start + chunk]
        return
    row = math.prod(view.shape[1:])
    if row <= chunk:
        rows = chunk // row
        for start in range(0, view.shape[0], rows):
            yield view[start:start + rows]
        return
    for i in range(view.shape[0]):
        yield from _blocks(view[i], chunk)


def memory_order(view: np.ndarray) -> np.ndarray:
    """Return a view of ``view`` whose C order follows memory (axes by decreasing |stride|,
    negative strides flipped), so that :func:`iter_blocks` reads a file sequentially.

    Only for order-independent reductions: the elements are the same, their order is not.
    """
    view = np.asarray(view)
    if view.ndim == 0:
        return view
    flips = tuple(slice(None, None, -1) if s < 0 else slice(None) for s in view.strides)
    view = view[flips]
    order = sorted(range(view.ndim), key=lambda axis: -view.strides[axis])
    return view.transpose(order)


def byte_span(view: np.ndarray) -> tuple[int, int]:
    """Addresses ``[low, high)`` of the bytes ``view`` can read (empty views: ``(a, a)``)."""
    start = view.__array_interface__["data"][0]
    if view.size == 0:
        return start, start
    low = high = start
    for size, stride in zip(view.shape, view.strides):
        reach = (size - 1) * stride
        if reach < 0:
            low += reach
        else:
            high += reach
    return low, high + view.dtype.itemsize


class BlockReader:
    """Blocks of views read with ``pread`` from the files behind ``ranges`` (see module rules).

    Parameters
    ----------
    ranges
        The maps that views may point into.
    max_span
        Largest number of bytes read (and buffered) for one block.
    """

    def __init__(self, ranges: Sequence[MappedRange], max_span: int = DEFAULT_MAX_SPAN) -> None:
        self._ranges = tuple(ranges)
        self._max_span = max(1, int(max_span))
        self._buffer: bytearray | None = None

    def twin(self, max_span: int | None = None) -> BlockReader:
        """A reader of the same maps with a buffer of its own (one per thread of a parallel scan),
        of at most ``max_span`` bytes (default: this reader's)."""
        return BlockReader(self._ranges, self._max_span if max_span is None else max_span)

    def range_of(self, view: np.ndarray) -> MappedRange | None:
        """The map that holds all bytes of ``view``, or None (memory not backed by a map)."""
        low, high = byte_span(view)
        for mapped in self._ranges:
            if mapped.address <= low and high <= mapped.address + mapped.length:
                return mapped
        return None

    def blocks(self, view: np.ndarray, chunk_elements: int) -> Iterator[np.ndarray]:
        """Yield ``view``'s values in C order as arrays of at most ``chunk_elements`` elements.

        Raises
        ------
        SourceError
            A file shrank during the scan.
        """
        view = np.asarray(view)
        mapped = self.range_of(view) if view.size else None
        for block in iter_blocks(view, chunk_elements):
            if mapped is None:
                yield block
                continue
            if mapped.fetch_spans is not None:
                spans = list(self._spans(block, mapped))
                if len(spans) > 1:  # a sparse block: its pieces fetched in parallel first
                    mapped.fetch_spans(spans, None)
            yield from self._read_split(block, mapped)

    def read(self, view: np.ndarray) -> np.ndarray:
        """A copy of ``view`` (C order), read safely; for small views (what a screen shows).

        Raises
        ------
        SourceError
            The file shrank below the bytes the view needs.
        """
        view = np.asarray(view)
        out = np.empty(view.shape, view.dtype)
        flat = out.reshape(-1)
        done = 0
        for block in self.blocks(view, max(1, self._max_span // max(1, view.dtype.itemsize))):
            flat[done:done + block.size] = block.reshape(-1)
            done += block.size
        return out

    def fetches(self, view: np.ndarray) -> bool:
        """Whether ``view``'s bytes come over the network (a remote object's map)."""
        view = np.asarray(view)
        mapped = self.range_of(view) if view.size else None
        return mapped is not None and mapped.reader is not None

    def holding(self, view: np.ndarray):
        """A context in which a fetched map (a remote object) keeps the bytes of ``view`` in its
        cache (a scan of several passes then fetches them once; up to the copy budget); for
        other maps, nothing."""
        view = np.asarray(view)
        mapped = self.range_of(view) if view.size else None
        if mapped is None or mapped.hold is None:
            return contextlib.nullcontext()
        low, high = byte_span(view)
        return mapped.hold(min(high - low, 2 * view.nbytes + DENSE_SPAN))

    def fetch_later(self, view: np.ndarray, done: Callable[[BaseException | None], None]) -> bool:
        """For maps whose bytes are fetched (remote objects): whether reading ``view`` now would
        wait for the network; if so, the missing bytes are fetched in the background and
        ``done(error or None)`` is called from another thread once they are in (or failed).
        False (nothing started) when every byte is at hand or the view is not a fetched map's."""
        view = np.asarray(view)
        mapped = self.range_of(view) if view.size else None
        if mapped is None or mapped.cached is None or mapped.fetch_spans is None:
            return False
        missing = [span for span in self._view_spans(view, mapped) if not mapped.cached(*span)]
        if not missing:
            return False
        mapped.fetch_spans(missing, done)
        return True

    def _view_spans(self, view: np.ndarray, mapped: MappedRange) -> list[tuple[int, int]]:
        """The file byte ranges reading ``view`` reads."""
        return [span for block in iter_blocks(view, max(1, self._max_span // max(1, view.dtype.itemsize)))
                for span in self._spans(block, mapped)]

    def _pieces(self, block: np.ndarray) -> Iterator[tuple[np.ndarray, int, int]]:
        """``(piece, low, high)``: the pieces of ``block`` read one span each (module rules: a
        block too long or too sparse for one span is split along its first axis longer than
        one, down to single elements), with each piece's byte addresses ``[low, high)``."""
        low, high = byte_span(block)
        span = high - low
        dense = span <= DENSE_SPAN or span <= SPARSE_FACTOR * block.nbytes
        if (span <= self._max_span and dense) or block.size == 1:
            yield block, low, high
            return
        axis = next(i for i, n in enumerate(block.shape) if n > 1)
        half = block.shape[axis] // 2
        index = [slice(None)] * block.ndim
        for part in (slice(0, half), slice(half, None)):
            index[axis] = part
            yield from self._pieces(block[tuple(index)])

    def _spans(self, block: np.ndarray, mapped: MappedRange) -> Iterator[tuple[int, int]]:
        """The file byte ranges :meth:`_read_split` reads for ``block``."""
        for _piece, low, high in self._pieces(block):
            position = mapped.file_offset + (low - mapped.address)
            yield position, position + (high - low)

    def _read_split(self, block: np.ndarray, mapped: MappedRange) -> Iterator[np.ndarray]:
        for piece, low, high in self._pieces(block):
            yield self._read_block(piece, mapped, low, high)

    def _read_block(self, block: np.ndarray, mapped: MappedRange, low: int, high: int) -> np.ndarray:
        nbytes = high - low
        if self._buffer is None or len(self._buffer) < nbytes:
            self._buffer = bytearray(max(nbytes, min(self._max_span, 1 << 20)))
        target = memoryview(self._buffer)[:nbytes]
        position = mapped.file_offset + (low - mapped.address)
        got = 0
        if mapped.reader is not None:  # a map without data: the source fetches the bytes
            got = mapped.reader(target, position)
            if got < nbytes:
                raise SourceError(f"'{printable_name(mapped.path)}' ended at byte {position + got:,} while being "
                                  "read (it changed since it was opened: reload it)", field="files")
        while got < nbytes:
            count = os.preadv(mapped.fd, [target[got:]], position + got)
            if count == 0:
                break
            got += count
        if got < nbytes:
            size = os.fstat(mapped.fd).st_size
            raise SourceError(
                f"'{printable_name(mapped.path)}' changed on disk while being read: it is now {size:,} "
                f"bytes, and byte {position + got:,} is gone (reload the file: File > Reload, or run again)",
                field="files",
            )
        start = block.__array_interface__["data"][0]
        return np.ndarray(block.shape, block.dtype, buffer=self._buffer, offset=start - low, strides=block.strides)
