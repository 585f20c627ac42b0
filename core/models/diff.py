"""Compare two whole models tensor by tensor: which pairs differ, how much, and the first one that
goes wrong.

Rules
-----
- The pairs are :func:`core.models.matching.match_tensors`'; each side's tensors open as
  ``--tensor`` opens them (:class:`core.models.opening.TensorOpener`).
- A pair of equal shapes is compared by :func:`core.compare.scanner.compare_sides` with the
  agreement figures (cosine, Pearson, SNR, PSNR, error quantiles; :mod:`core.compare.agreement`)
  and the ``top`` worst elements with their indices, in one pass over both tensors. The rule
  (tolerances, ULP, NaN policy) is :func:`core.compare.rules.resolve_rules`' for the pair's
  types, with the options given; different types are compared in their common type.
- Quantized against float: when one side's tensor is quantized (its entry has a
  quantization) and the other's is a float type, the quantized side's *dequantized* entry
  (``NAME (dequantized)``, :mod:`core.formats.quantization`) is compared, and the pair's
  reason says so; a dequantized entry whose quantized tensor is paired is not a pair of its own.
- Shapes that differ: the pair is ``shape differs``; when both hold as many elements, their
  values are still compared in flat C order (a reshape in the conversion), else not at all
  (shapes that only broadcast are *not* broadcast: a bias against a matrix is no match).
- Status of a pair (:data:`STATUSES`, worst first): ``error`` (a side could not be opened or
  read: the message), ``differs`` (elements over tolerance), ``shape differs``, ``only in A``,
  ``only in B``, ``dtype differs`` (values within tolerance but stored as different types, or
  types that cannot be compared), ``close`` (within tolerance, not identical), ``equal`` (same
  type and shape, every element matches with no difference).
- *Within tolerance* means ``dtype differs`` (with figures), ``close`` or ``equal``; the exit
  status of the command is 0 when every pair is. The *first divergent* pair is the first, in the
  pairs' order, that is ``differs`` or ``shape differs``.
- Ranking (:func:`ranked`): by status as above; among ``differs``, the larger share of elements
  over tolerance first, then the lower SNR.
- Work: the element pairs of all compared tensors are counted before anything is read
  (:func:`diff_work`) and refused above ``work_limit`` (default :data:`MODEL_WORK_LIMIT`).
  Pairs whose larger side holds fewer than :data:`BIG_PAIR` values are compared ``workers`` at
  a time, one core each (opened in the calling thread, compared on a pool); bigger ones alone,
  on every core. Results come back in the pairs' order; ``progress(done, total)`` (element
  pairs) runs in the calling thread after each pair and after each block of a big pair;
  ``cancelled()`` is checked between pairs and (in any thread) between blocks. Memory: at most
  :data:`IN_FLIGHT` pairs open, a few blocks each.
"""

from __future__ import annotations

import dataclasses
import math
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np

from core.compare.blockstats import ScratchPool
from core.compare.result import CompareResult
from core.compare.rules import resolve_rules
from core.compare.scanner import Side, compare_sides, flat_view
from core.errors import BudgetError, Cancelled, CoreError
from core.formats.quantization import DEQUANTIZED_SUFFIX, dequantized_of, is_dequantized
from core.models.matching import Matching, TensorPair
from core.models.opening import OpenedTensor, TensorOpener, open_error, tensor_from_ref, tensor_ref
from core.scan.cluster import TASK_BYTES, Cluster, ordered_results

__all__ = ["BIG_PAIR", "IN_FLIGHT", "MODEL_WORK_LIMIT", "STATUSES", "WITHIN", "PairDiff", "diff_pairs", "diff_work",
           "first_divergent", "rank_key", "ranked"]

#: Pair statuses, worst first.
STATUSES = ("error", "differs", "shape differs", "only in A", "only in B", "dtype differs", "close", "equal")
#: The statuses that are within tolerance.
WITHIN = ("dtype differs", "close", "equal")
#: Most element pairs one model diff compares unless asked for more (2**34: 64 GiB of float32 a side).
MODEL_WORK_LIMIT = 1 << 34
#: Pairs whose larger side holds at least this many values are compared alone, on every core.
BIG_PAIR = 1 << 22
#: Most pairs open at once (compared or waiting to be).
IN_FLIGHT = 4


@dataclass(frozen=True)
class PairDiff:
    """What one pair came to (module rules). ``index``: its place in the pairs' order;
    ``result``: the comparison (None when not compared); ``reason``: why not compared, or the
    error."""

    pair: TensorPair
    index: int
    status: str
    dtype_a: str | None = None
    dtype_b: str | None = None
    shape_a: tuple[int, ...] | None = None
    shape_b: tuple[int, ...] | None = None
    result: CompareResult | None = None
    reason: str | None = None

    @property
    def within(self) -> bool:
        return self.status in WITHIN

    @property
    def divergent(self) -> bool:
        return self.status in ("differs", "shape differs")


def _entry_size(tensor) -> int:
    if tensor is None or tensor.entry is None:
        return 0
    return math.prod(tensor.entry.shape)


def diff_work(matching: Matching) -> int:
    """Element pairs the diff will compare, from the listings (raw files, whose size is known
    only once opened, count 0 here)."""
    return sum(min(_entry_size(p.a), _entry_size(p.b)) for p in matching.pairs if p.a is not None and p.b is not None)


def diff_pairs(matching: Matching, *, rtol: float | None = None, atol: float | None = None, ulp: int | None = None,
               bitwise: bool = False, nan_policy: str = "equal", top: int = 5,
               progress: Callable[[int, int], None] | None = None, cancelled: Callable[[], bool] | None = None,
               work_limit: int | None = MODEL_WORK_LIMIT, workers: int = 2,
               cluster: Cluster | None = None) -> Iterator[PairDiff]:
    """Yield the :class:`PairDiff` of every pair of ``matching``, in its order (module rules);
    on ``cluster``, its pairs in tasks of about :data:`core.scan.cluster.TASK_BYTES`, each
    worker listing and opening both sides itself (each pair compared there as here).

    Raises
    ------
    BudgetError
        More element pairs than ``work_limit`` (before anything is read).
    CoreError
        Bad tolerances (before anything is read).
    Cancelled
        ``cancelled()`` returned True.
    """
    matching = _fold_dequantized(matching)
    total = diff_work(matching)
    if work_limit is not None and total > work_limit:
        raise BudgetError(f"comparing these models is {total:,} element pairs, above the limit of {work_limit:,} "
                          "of one model diff (compare fewer tensors: name files or folders of each side, or give "
                          "--no-limit)", field="compare")
    resolve_rules(np.dtype(np.float32), np.dtype(np.float32), rtol=rtol, atol=atol, ulp=ulp, bitwise=False,
                  nan_policy=nan_policy)  # bad tolerances are refused before anything is read
    options = {"rtol": rtol, "atol": atol, "ulp": ulp, "bitwise": bitwise, "nan_policy": nan_policy}
    if cluster is not None:
        yield from _diff_on(cluster, matching, options, top, progress, cancelled, total)
        return
    opener = TensorOpener()
    options["scratches"] = ScratchPool()
    done = 0
    # (index, pair, future of its PairDiff, its opened tensors), in the pairs' order
    pending: deque[tuple[int, TensorPair, Future, list[OpenedTensor]]] = deque()

    def finished() -> PairDiff:
        nonlocal done
        _index, pair, future, opened = pending.popleft()
        try:
            result = future.result()
        finally:
            for item in opened:
                opener.close(item)
        done += min(_entry_size(pair.a), _entry_size(pair.b))
        if progress is not None:
            progress(min(done, total), total)
        return result

    try:
        with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="diff") as pool:
            try:
                for index, pair in enumerate(matching.pairs):
                    if cancelled is not None and cancelled():
                        raise Cancelled("model comparison cancelled")
                    while len(pending) >= IN_FLIGHT:
                        yield finished()
                    future: Future = Future()
                    opened: list[OpenedTensor] = []
                    known = _open_pair(pair, index, opener, opened)
                    if known is not None:  # one side only, or a side that cannot be opened
                        future.set_result(known)
                    elif max(opened[0].view.size, opened[1].view.size) >= BIG_PAIR or workers <= 1:
                        try:
                            while pending:  # alone, on every core, with progress after each block
                                yield finished()
                        except BaseException:  # closed or failed meanwhile: this pair is not pending yet
                            for item in opened:
                                opener.close(item)
                            raise
                        base = done

                        def step(pairs_done: int, _total: int, base=base) -> None:
                            if progress is not None:
                                progress(min(total, base + pairs_done), total)

                        try:
                            future.set_result(_compare(pair, index, opened[0], opened[1], options, top, step,
                                                       cancelled, workers))
                        except BaseException:
                            for item in opened:
                                opener.close(item)
                            raise
                    else:  # small pairs side by side, one core each
                        future = pool.submit(_compare, pair, index, opened[0], opened[1], options, top, None,
                                             cancelled, 1)
                    pending.append((index, pair, future, opened))
                while pending:
                    yield finished()
            finally:
                for _index, _pair, future, _opened in pending:
                    future.cancel()
    finally:
        opener.close_all()


def _is_float(tensor) -> bool:
    entry = tensor.entry
    if entry is None:
        return tensor.params is not None and str(tensor.params.dtype or "").startswith(("float", "bfloat", "half"))
    return entry.quantization is None and _known(entry.dtype) and np.dtype(entry.dtype).kind == "f"


def _known(dtype: str) -> bool:
    try:
        np.dtype(dtype)
    except TypeError:
        return False
    return True


def _dequantized(tensor):
    """The ModelTensor of ``tensor``'s dequantized entry, or None."""
    entry = tensor.entry
    if entry is None or entry.quantization is None or tensor.listing is None:
        return None
    found = dequantized_of(tensor.listing, entry)
    if found is None:
        return None
    name = found.name
    label = tensor.label[: len(tensor.label) - len(tensor.name)] + name
    return replace(tensor, name=name, label=label, entry=found)


def _fold_dequantized(matching: Matching) -> Matching:
    """Quantized against float compares the dequantized values (module rules)."""
    pairs = []
    used: set[str] = set()
    for pair in matching.pairs:
        if pair.a is not None and pair.b is not None:
            for side, other in (("a", "b"), ("b", "a")):
                mine, theirs = getattr(pair, side), getattr(pair, other)
                dequantized = _dequantized(mine) if _is_float(theirs) else None
                if dequantized is not None:
                    used.add(f"{side}:{dequantized.name}")
                    pair = replace(pair, **{side: dequantized})
        pairs.append(pair)
    kept = [p for p in pairs if not ((p.a is None and p.b is not None and f"b:{p.b.name}" in used)
                                     or (p.b is None and p.a is not None and f"a:{p.a.name}" in used))]
    return replace(matching, pairs=tuple(kept))


def _diff_on(cluster: Cluster, matching: Matching, options: dict, top: int, progress, cancelled,
             total: int) -> Iterator[PairDiff]:
    groups: list[list[tuple[int, TensorPair]]] = [[]]
    held = 0
    for index, pair in enumerate(matching.pairs):
        size = min(_entry_size(pair.a), _entry_size(pair.b)) if pair.a is not None and pair.b is not None else 0
        if groups[-1] and held + size > TASK_BYTES:
            groups.append([])
            held = 0
        groups[-1].append((index, pair))
        held += size
    tasks = [([(index, pair.key, None if pair.a is None else tensor_ref(pair.a),
                None if pair.b is None else tensor_ref(pair.b)) for index, pair in group], options, top)
             for group in groups if group]
    done = 0
    for group, found in zip(groups, ordered_results(cluster, _diff_refs, tasks, cancelled=cancelled,
                                                    what="the model comparison")):
        for (index, pair), fields in zip(group, found):
            done += min(_entry_size(pair.a), _entry_size(pair.b)) if pair.a is not None and pair.b is not None else 0
            if progress is not None:
                progress(min(done, total), total)
            yield PairDiff(pair, index, **fields)


def _diff_refs(items: list[tuple], options: dict, top: int) -> list[dict]:
    """On a cluster worker: each pair's :class:`PairDiff` fields but the pair (the caller has it)."""
    opener = TensorOpener()
    options = {**options, "scratches": ScratchPool()}
    listings: dict = {}
    out = []
    try:
        for index, key, ref_a, ref_b in items:
            try:
                a = None if ref_a is None else tensor_from_ref(ref_a, listings)
                b = None if ref_b is None else tensor_from_ref(ref_b, listings)
            except CoreError as error:
                out.append({"status": "error", "reason": open_error(error)})
                continue
            pair = TensorPair(key, a, b)
            opened: list[OpenedTensor] = []
            diff = _open_pair(pair, index, opener, opened)
            if diff is None:
                try:
                    diff = _compare(pair, index, opened[0], opened[1], options, top, None, None, 1)
                finally:
                    for item in opened:
                        opener.close(item)
            out.append({f.name: getattr(diff, f.name) for f in dataclasses.fields(diff) if f.name not in ("pair", "index")})
    finally:
        opener.close_all()
    return out


def _open_pair(pair: TensorPair, index: int, opener: TensorOpener, opened: list[OpenedTensor]) -> PairDiff | None:
    """Open both sides of ``pair`` into ``opened``; the pair's :class:`PairDiff` when it has one
    side only or a side cannot be opened (then nothing stays open), else None."""
    if pair.a is None or pair.b is None:
        present = pair.a if pair.a is not None else pair.b
        entry = present.entry
        dtype = None if entry is None else entry.dtype
        shape = None if entry is None else tuple(entry.shape)
        if pair.a is None:
            return PairDiff(pair, index, "only in B", dtype_b=dtype, shape_b=shape)
        return PairDiff(pair, index, "only in A", dtype_a=dtype, shape_a=shape)
    try:
        for side, tensor in (("A", pair.a), ("B", pair.b)):
            try:
                opened.append(opener.open(tensor))
            except CoreError as error:
                for item in opened:
                    opener.close(item)
                opened.clear()
                return PairDiff(pair, index, "error", reason=f"{side}: {open_error(error)}")
    except BaseException:
        for item in opened:
            opener.close(item)
        opened.clear()
        raise
    return None


def _compare(pair, index, a: OpenedTensor, b: OpenedTensor, options, top, step, cancelled, workers) -> PairDiff:
    known = {"dtype_a": a.dtype, "dtype_b": b.dtype, "shape_a": a.shape, "shape_b": b.shape}
    tolerances = {k: v for k, v in options.items() if k != "scratches"}
    try:
        rules = resolve_rules(a.view.dtype, b.view.dtype, **tolerances)
    except CoreError as error:
        return PairDiff(pair, index, "dtype differs", **known, reason=error.message)
    view_a, view_b, reason = a.view, b.view, None
    if a.shape != b.shape:
        if a.view.size != b.view.size:
            return PairDiff(pair, index, "shape differs", **known,
                            reason=f"{a.view.size:,} elements against {b.view.size:,}: not compared")
        try:
            view_a, view_b = flat_view(a.view, "A"), flat_view(b.view, "B")
        except CoreError:
            return PairDiff(pair, index, "shape differs", **known, reason="not compared (a side cannot be read flat)")
        reason = "same element count: compared in flat C order"
    try:
        result = compare_sides(Side(view_a, a.new_reader, a.check), Side(view_b, b.new_reader, b.check),
                               rules, list_limit=top, agreement=True, work_limit=None, scratches=options["scratches"],
                               progress=step, cancelled=cancelled, workers=workers)
    except Cancelled:
        raise
    except CoreError as error:
        return PairDiff(pair, index, "error", **known, reason=open_error(error))
    shape_differs = a.shape != b.shape
    for side, opened in (("A", a), ("B", b)):
        if opened.tensor.entry is not None and is_dequantized(opened.tensor.entry) and \
                not pair.key.endswith(DEQUANTIZED_SUFFIX):
            reason = ((reason + "; ") if reason else "") + f"{side} is quantized: its dequantized values are compared"
    if shape_differs:
        status = "shape differs"
    elif result.mismatched:
        status = "differs"
    elif a.dtype != b.dtype:
        status = "dtype differs"
    elif result.max_absolute is not None and result.max_absolute.value != 0:
        status = "close"
    else:
        status = "equal"
    return PairDiff(pair, index, status, **known, result=result, reason=reason)


def first_divergent(diffs: Sequence[PairDiff]) -> PairDiff | None:
    """The first pair, in order, that differs or whose shape differs."""
    return next((d for d in sorted(diffs, key=lambda d: d.index) if d.divergent), None)


def rank_key(d: PairDiff) -> tuple:
    """What orders pairs worst first (module rules): status, then the larger share over
    tolerance, then the lower SNR, then the pairs' order."""
    share, snr = 0.0, math.inf
    if d.result is not None:
        share = -(d.result.mismatched / d.result.compared if d.result.compared else 0.0)
        agreement = d.result.agreement
        if agreement is not None and agreement.snr_db is not None:
            snr = agreement.snr_db
    return STATUSES.index(d.status), share, snr, d.index


def ranked(diffs: Sequence[PairDiff]) -> list[PairDiff]:
    """Worst first (module rules)."""
    return sorted(diffs, key=rank_key)
