"""Scan every tensor of a model, several files or a folder: the figures that say which tensors
went wrong.

Rules
-----
- The tensors are those of :func:`core.models.inventory.inventory`; each is opened as the
  command's ``--tensor`` opens it (:func:`core.formats.values.open_entry`: a view of its file,
  or its format's budget-checked copy or computed values; a raw file with its decode options).
- Its figures are :func:`core.scan.statistics.compute_statistics`'s without the histogram (one
  read of its bytes, in blocks, through ``pread``: bounded memory, a file truncated meanwhile is
  an error of that tensor): count, min, max, mean, std over the finite values, NaN / +Inf / -Inf
  / zero / subnormal counts. Complex tensors: of their magnitude.
- Flags (:data:`FLAGS`), each a fact of those figures: ``nan`` (a NaN), ``inf`` (an infinity),
  ``zeros`` (every value is zero; an empty tensor is not), ``constant`` (more than one value, all
  equal and finite: a zero tensor is both), ``subnormal`` (a subnormal value), ``saturated``
  (a quantized integer tensor with values at its type's limits: :attr:`TensorScan.saturated`
  counts them), ``empty`` (no values).
- Work: tensors of at least :data:`BIG_TENSOR` values are scanned one at a time on both cores;
  smaller ones two at a time, one core each. At most :data:`IN_FLIGHT` tensors are open at
  once, so memory is a few blocks plus at most that many copies (each within the copy budget).
  Results come back in the inventory's order; ``progress(done, total)`` counts the tensors'
  bytes; ``cancelled()`` is checked between blocks and tensors (then :class:`~core.errors.Cancelled`).
- A tensor that cannot be opened or read is a :class:`TensorScan` with its ``error``; the
  others are still scanned.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from core.errors import Cancelled, CoreError, describe_error
from core.files.locations import file_size
from core.formats.entry import TensorEntry
from core.models.inventory import Inventory, ModelTensor
from core.models.opening import OpenedTensor, TensorOpener, open_error, storage_of, tensor_from_ref, tensor_ref
from core.scan.blocks import iter_blocks
from core.scan.cluster import TASK_BYTES, Cluster, ordered_results
from core.scan.statistics import Statistics, compute_statistics

__all__ = ["BIG_TENSOR", "FLAGS", "IN_FLIGHT", "TensorScan", "scan_tensors"]

#: Tensors of at least this many values are scanned alone, on every core: two blocks of
#: compute_statistics (2**22 values each), so that both cores have one; a tensor of one block
#: would leave a core idle, and is better scanned beside another.
BIG_TENSOR = 1 << 23
#: Most tensors open at once (scanned or waiting to be).
IN_FLIGHT = 4
#: The flags a scan can raise, in the order they are shown.
FLAGS = ("nan", "inf", "zeros", "constant", "subnormal", "saturated", "empty")

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class TensorScan:
    """The figures of one tensor (module rules); ``statistics`` None with ``error`` set when it
    could not be read. ``saturated``: for a quantized integer tensor, how many values are at
    its type's limits (None otherwise). ``storage``: how its values were had (``view``,
    ``copy``, ``computed``, or ``raw`` for a raw file)."""

    tensor: ModelTensor
    dtype: str | None
    shape: tuple[int, ...] | None
    storage: str
    statistics: Statistics | None = None
    saturated: int | None = None
    error: str | None = None

    @property
    def flags(self) -> tuple[str, ...]:
        s = self.statistics
        if s is None:
            return ()
        found = {
            "nan": bool(s.nan_count),
            "inf": bool(s.posinf_count or s.neginf_count),
            "zeros": s.count > 0 and s.zero_count == s.count,
            "constant": s.count > 1 and s.min is not None and s.min == s.max and s.finite_count == s.count,
            "subnormal": bool(s.subnormal_count),
            "saturated": bool(self.saturated),
            "empty": s.count == 0,
        }
        return tuple(flag for flag in FLAGS if found[flag])


def scan_tensors(inventory: Inventory, *, progress: Progress | None = None,
                 cancelled: Callable[[], bool] | None = None, workers: int = 2,
                 cluster: Cluster | None = None) -> Iterator[TensorScan]:
    """Yield the :class:`TensorScan` of every tensor of ``inventory``, in its order (module rules);
    on ``cluster``, its tensors in tasks of about :data:`core.scan.cluster.TASK_BYTES`, each
    worker listing and opening the files itself (the same figures: each tensor is scanned there
    as it is here).

    Raises
    ------
    Cancelled
        ``cancelled()`` returned True (between tensors or blocks).
    CoreError
        ``field="cluster"``: the cluster went away or a task failed.
    """
    if cluster is not None:
        yield from _scan_on(cluster, inventory, progress, cancelled)
        return
    tensors = inventory.tensors
    total = sum(_size_of(t) for t in tensors)
    done = 0
    opener = TensorOpener()
    pending: deque[tuple[ModelTensor, Future, OpenedTensor | None]] = deque()
    try:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:

            def finished() -> TensorScan:
                nonlocal done
                tensor, future, opened = pending.popleft()
                try:
                    result = future.result()
                finally:
                    if opened is not None:
                        opener.close(opened)
                done += _size_of(tensor)
                if progress is not None:
                    progress(done, total)
                return result

            for tensor in tensors:
                if cancelled is not None and cancelled():
                    raise Cancelled("scan cancelled")
                while len(pending) >= IN_FLIGHT:
                    yield finished()
                future: Future = Future()
                try:
                    opened = opener.open(tensor)
                except CoreError as error:  # could not be opened (nothing held)
                    entry = tensor.entry
                    future.set_result(TensorScan(tensor, None if entry is None else entry.dtype,
                                                 None if entry is None else entry.shape, storage_of(tensor),
                                                 error=open_error(error)))
                    pending.append((tensor, future, None))
                    continue
                record = TensorScan(tensor, opened.dtype, opened.shape, storage_of(tensor))
                if opened.view.size >= BIG_TENSOR:  # alone, on every core
                    while pending:
                        yield finished()
                    try:
                        future.set_result(_figures(record, opened, cancelled, workers))
                    except BaseException:
                        opener.close(opened)
                        raise
                    pending.append((tensor, future, opened))
                else:
                    pending.append((tensor, pool.submit(_figures, record, opened, cancelled, 1), opened))
            while pending:
                yield finished()
    finally:
        for _tensor, future, _opened in pending:
            future.cancel()
        opener.close_all()


def _scan_on(cluster: Cluster, inventory: Inventory, progress: Progress | None,
             cancelled: Callable[[], bool] | None) -> Iterator[TensorScan]:
    tensors = inventory.tensors
    total = sum(_size_of(t) for t in tensors)
    groups: list[list[ModelTensor]] = [[]]
    held = 0
    for tensor in tensors:
        size = _task_bytes(tensor)
        if groups[-1] and held + size > TASK_BYTES:
            groups.append([])
            held = 0
        groups[-1].append(tensor)
        held += size
    refs = [([tensor_ref(t) for t in group],) for group in groups if group]
    done = 0
    for group, figures in zip(groups, ordered_results(cluster, _scan_refs, refs, cancelled=cancelled,
                                                      what="the scan")):
        for tensor, (dtype, shape, storage, statistics, saturated, error) in zip(group, figures):
            done += _size_of(tensor)
            if progress is not None:
                progress(done, total)
            yield TensorScan(tensor, dtype, shape, storage, statistics, saturated, error)


def _scan_refs(refs: list[tuple]) -> list[tuple]:
    """On a cluster worker: the figures of the tensors ``refs`` names (:func:`tensor_ref`),
    each as :func:`scan_tensors` finds them here."""
    opener = TensorOpener()
    out = []
    listings: dict = {}
    try:
        for ref in refs:
            try:
                tensor = tensor_from_ref(ref, listings)
                opened = opener.open(tensor)
            except CoreError as error:
                out.append((None, None, "view" if ref[4] else "raw", None, None, open_error(error)))
                continue
            try:
                found = _figures(TensorScan(tensor, opened.dtype, opened.shape, storage_of(tensor)), opened, None, 1)
            finally:
                opener.close(opened)
            out.append((found.dtype, found.shape, found.storage, found.statistics, found.saturated, found.error))
    finally:
        opener.close_all()
    return out


def _figures(record: TensorScan, opened: OpenedTensor, cancelled, workers: int) -> TensorScan:
    view, reader, check = opened.view, opened.reader, opened.check
    try:
        statistics = compute_statistics(view, histogram=False, reader=reader, check=check, cancelled=cancelled,
                                        workers=workers, extremes_first_above=1 << 62)
    except Cancelled:
        raise
    except CoreError as error:
        return TensorScan(record.tensor, record.dtype, record.shape, record.storage,
                          error=describe_error(error).message)
    saturated = _saturated(record.tensor.entry, view, statistics, reader)
    return TensorScan(record.tensor, record.dtype, record.shape, record.storage, statistics, saturated)


def _quantized(entry: TensorEntry | None) -> bool:
    return entry is not None and entry.quantization is not None


def _saturated(entry: TensorEntry | None, view: np.ndarray, statistics: Statistics, reader) -> int | None:
    """How many values of a quantized integer tensor are at its type's limits (None when it is
    not one)."""
    if not _quantized(entry) or view.dtype.kind not in "iu":
        return None
    info = np.iinfo(view.dtype)
    low, high = int(info.min), int(info.max)
    if statistics.count == 0 or (statistics.min != low and statistics.max != high):
        return 0
    count = 0
    for block in iter_blocks(view, 1 << 20):
        values = reader.read(block) if reader is not None else block
        count += int(np.count_nonzero(values == low)) + int(np.count_nonzero(values == high))
    return count


def _task_bytes(tensor: ModelTensor) -> int:
    """The bytes a task reads for ``tensor``: its entry's, or a raw file's size (no data read)."""
    if tensor.entry is None:
        return file_size(tensor.path) or 1
    return _size_of(tensor)


def _size_of(tensor: ModelTensor) -> int:
    entry = tensor.entry
    if entry is None:
        return 1
    return max(1, int(entry.nbytes) if entry.nbytes else math.prod(entry.shape))
