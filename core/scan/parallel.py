"""The one block scheduler: run a function over the blocks of views on a small thread pool.

Statistics and the comparison of two views both read large views block by block and reduce each
block to a small summary; this module owns how those blocks are cut, read, scheduled and merged.

Rules
-----
- The views (one or more, all of the same shape) are cut by :func:`core.scan.blocks.iter_blocks`
  into blocks of at most ``chunk_elements`` elements; block *i* of every view covers the same
  C-order element range, which starts at flat index ``start``.
- ``work(start, blocks, state)`` runs on a pool of ``workers`` threads (numpy and ``pread``
  release the GIL, so two cores are used); with one worker, in the calling thread (a caller
  that runs many small scans side by side on its own threads starts no pool for each). ``state`` is made once per thread by ``new_state()``
  (typically that thread's :class:`~core.scan.blocks.BlockReader` and scratch buffers), so no
  two threads share a reader buffer. The work reads its blocks itself (:func:`read_whole`).
- ``merge(summary)`` runs in the calling thread, in block order (so figures that depend on the
  order of a floating-point merge do not depend on the number of threads), while later blocks
  are being worked on.
- Before each block is submitted, ``cancelled()`` is checked (:class:`~core.errors.Cancelled`,
  raised once the blocks in flight are merged, so ``progress`` has reported them) and ``before_block()`` runs (e.g. the check that the files did not change, which raises
  ``SourceError``). At most ``2 * workers`` blocks are in flight, so memory stays a few blocks
  per worker whatever the view size.
- ``progress(done, total)`` after each merged block, ``done`` growing by the block's size times
  ``weight``. An exception of a worker is raised in the calling thread; blocks not yet started
  are dropped.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from core.errors import Cancelled
from core.scan.blocks import BlockReader, iter_blocks

__all__ = ["default_workers", "read_whole", "scan_blocks"]


def default_workers() -> int:
    """Threads a scan uses by default: 2, or 1 on a single-core machine."""
    return min(2, os.cpu_count() or 1)


def read_whole(reader: BlockReader | None, block: np.ndarray) -> np.ndarray:
    """``block``'s values as one array read with ``reader`` (a view of its buffer, valid until
    its next read), or ``block`` itself without a reader (memory not backed by a file).

    Raises
    ------
    SourceError
        The file shrank.
    """
    if reader is None:
        return block
    parts = reader.blocks(block, block.size)
    first = next(parts)
    parts.close()
    # A very sparse block is split by the reader; read it into one array instead.
    return first if first.size == block.size else reader.read(block)


def scan_blocks(
    views: Sequence[np.ndarray],
    chunk_elements: int,
    work: Callable[[int, tuple[np.ndarray, ...], Any], Any],
    merge: Callable[[Any], None],
    *,
    new_state: Callable[[], Any] | None = None,
    before_block: Callable[[], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    cancel_message: str = "scan cancelled",
    progress: Callable[[int, int], None] | None = None,
    total: int | None = None,
    done: int = 0,
    weight: int = 1,
    workers: int | None = None,
) -> int:
    """Run ``work`` over the blocks of ``views`` and ``merge`` the summaries (module rules).

    Parameters
    ----------
    views
        Views of one shape, cut into the same blocks.
    chunk_elements
        Elements per block.
    work
        ``work(start, blocks, state) -> summary``, run on a worker thread.
    merge
        ``merge(summary)``, run in the calling thread.
    new_state
        Makes the per-thread state given to ``work`` (None: ``state`` is None).
    before_block, cancelled, cancel_message
        Checks before each block; ``cancelled()`` True raises ``Cancelled(cancel_message)``.
    progress, total, done, weight
        ``progress(done, total)`` after each block; ``done`` starts at ``done`` and grows by
        ``weight`` per element; ``total`` defaults to the elements of one view.
    workers
        Threads (default :func:`default_workers`).

    Returns
    -------
    int
        The final ``done``.

    Raises
    ------
    Cancelled
        ``cancelled()`` returned True.
    Exception
        Whatever ``work``, ``merge`` or ``before_block`` raised.
    """
    workers = max(1, min(workers or default_workers(), 8))
    total = int(views[0].size) if total is None else total
    local = threading.local()

    def run(start: int, blocks: tuple[np.ndarray, ...]):
        if not hasattr(local, "state"):
            local.state = new_state() if new_state is not None else None
        return work(start, blocks, local.state), blocks[0].size

    if workers == 1:  # one thread: the calling one (no pool to start and join for each view)
        return _scan_inline(views, chunk_elements, work, merge, new_state, before_block, cancelled, cancel_message,
                            progress, total, done, weight)
    pending: deque[Future] = deque()

    def collect(done: int) -> int:
        summary, size = pending.popleft().result()  # re-raises a worker's exception
        merge(summary)
        done += size * weight
        if progress is not None:
            progress(done, total)
        return done

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="scan") as pool:
        try:
            start = 0
            for blocks in zip(*(iter_blocks(view, chunk_elements) for view in views)):
                if cancelled is not None and cancelled():
                    while pending:  # the blocks in flight finish: progress tells what was done
                        done = collect(done)
                    raise Cancelled(cancel_message)
                if before_block is not None:
                    before_block()
                pending.append(pool.submit(run, start, blocks))
                start += blocks[0].size
                while len(pending) >= 2 * workers:
                    done = collect(done)
            while pending:
                done = collect(done)
        finally:
            for future in pending:
                future.cancel()
    return done


def _scan_inline(views, chunk_elements, work, merge, new_state, before_block, cancelled, cancel_message, progress,
                 total, done, weight) -> int:
    """:func:`scan_blocks` with one worker, run in the calling thread (same order, same figures)."""
    state = new_state() if new_state is not None else None
    start = 0
    for blocks in zip(*(iter_blocks(view, chunk_elements) for view in views)):
        if cancelled is not None and cancelled():
            raise Cancelled(cancel_message)
        if before_block is not None:
            before_block()
        merge(work(start, blocks, state))
        size = blocks[0].size
        start += size
        done += size * weight
        if progress is not None:
            progress(done, total)
    return done
