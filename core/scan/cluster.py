"""Whole-data work on a Dask cluster: the same blocks as the local scanner, the same answers.

Rules
-----
- **Where it runs.** A :class:`ClusterSpec` names the cluster: the address of an existing
  scheduler (``tcp://host:8786``; ``--scheduler``), a number of worker processes for a local
  cluster that the tool starts and stops (``--workers N``), or, when neither is given, the
  ``DASK_SCHEDULER_ADDRESS`` environment variable. No cluster named: the local two-thread
  scanner (:mod:`core.scan.parallel`), the default. ``dask[distributed]`` is an optional extra
  (``pip install 'tensor-inspector[dask]'``); without it, asking for a cluster says so.
- **Tasks.** Work is split into tasks that each run whole blocks of the local scanner
  (:func:`block_ranges`): a task holds about :data:`TASK_BYTES` of input (never fewer than one
  block, never more than :data:`MAX_TASK_BYTES`, and at least :data:`TASKS_PER_WORKER` tasks per
  worker when there is enough work), so a task is neither tiny (the scheduler's overhead, a few
  milliseconds a task) nor larger than a worker's memory (a task holds one block at a time).
  Each worker opens its own read-only source from a picklable *target* (files by path or URL,
  decode parameters, slice): nothing but the target, the block range and the work function is
  sent, and summaries come back.
- **Same answers.** Results are merged in the calling process in task order, each task's
  block summaries in block order: the order the local scanner merges them in. So counts,
  extremes, NaN / Inf counts and histograms are identical, and so are mean and std (the same
  per-block moments merged by the same formula in the same order).
- **Streaming, cancel, faults.** Results are taken as tasks finish and merged as soon as every
  task before them is merged (progress grows with them). ``cancelled()`` is checked while
  waiting: the futures are cancelled and :class:`~core.errors.Cancelled` is raised. A worker
  that dies mid-task has its tasks run again elsewhere by the scheduler (tasks are pure reads,
  run again with the same result). A scheduler that goes away, a task that fails on a worker,
  or a worker that cannot open the files raises :class:`~core.errors.CoreError` naming the
  cluster: no partial result is ever returned as complete.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.errors import Cancelled, CoreError
from core.scan.blocks import iter_blocks

__all__ = ["ENVIRONMENT_VARIABLE", "MAX_TASK_BYTES", "TASK_BYTES", "TASKS_PER_WORKER", "BlockRunner", "Cluster",
           "ClusterSpec", "block_ranges", "connect", "ordered_results", "run_ordered"]

#: Input bytes a task aims at.
TASK_BYTES = 256 << 20
#: Most input bytes of one task.
MAX_TASK_BYTES = 1 << 30
#: Tasks per worker a run aims at, at least (when it has that many blocks).
TASKS_PER_WORKER = 4
#: Seconds between two checks of ``cancelled()`` while waiting for results.
POLL_SECONDS = 0.1
_INSTALL = "pip install 'tensor-inspector[dask]' (or pip install 'dask[distributed]')"
ENVIRONMENT_VARIABLE = "DASK_SCHEDULER_ADDRESS"


@dataclass(frozen=True)
class ClusterSpec:
    """Which cluster to run on (module rules): a scheduler's address, or a local cluster of
    ``workers`` processes."""

    scheduler: str | None = None
    workers: int | None = None

    @classmethod
    def from_options(cls, scheduler: str | None = None, workers: int | None = None,
                     environ: dict | None = None) -> ClusterSpec | None:
        """The cluster the options (or ``DASK_SCHEDULER_ADDRESS``) name, or None: run locally.

        Raises
        ------
        CoreError
            Both options given, or a worker count below 1.
        """
        if scheduler and workers is not None:
            raise CoreError("give --scheduler or --workers, not both (an existing cluster, or a local one "
                            "the tool starts)", field="cluster")
        if workers is not None:
            if workers < 1:
                raise CoreError(f"--workers {workers}: a local cluster needs at least 1 worker", field="cluster")
            return cls(workers=int(workers))
        if scheduler:
            return cls(scheduler=scheduler.strip())
        address = (environ if environ is not None else os.environ).get(ENVIRONMENT_VARIABLE, "").strip()
        return cls(scheduler=address) if address else None

    def describe(self) -> str:
        return self.scheduler if self.scheduler else f"a local cluster of {self.workers} worker processes"


class Cluster:
    """A client of a running cluster (:func:`connect`); close it when done (a local cluster
    the tool started stops with it)."""

    def __init__(self, client: Any, spec: ClusterSpec, local: Any = None) -> None:
        self.client = client
        self.spec = spec
        self._local = local

    @property
    def dashboard_link(self) -> str | None:
        """The scheduler's dashboard URL (None when it has none)."""
        try:
            return self.client.dashboard_link or None
        except Exception:  # no dashboard (bokeh missing): not an error of the work
            return None

    @property
    def name(self) -> str:
        return self.spec.describe()

    def workers(self) -> int:
        """Workers connected now."""
        try:
            return len(self.client.scheduler_info().get("workers", {}))
        except Exception:
            return 0

    def worker_pids(self) -> list[int]:
        """The process ids of the workers connected now."""
        return sorted(int(pid) for pid in self.client.run(os.getpid).values())

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self._local is not None:
                self._local.close()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def connect(spec: ClusterSpec, *, timeout: float = 30.0) -> Cluster:
    """A client of the cluster ``spec`` names: the scheduler at its address, or a local cluster
    of its worker processes started now (one thread each, memory limit shared out).

    Raises
    ------
    CoreError
        ``field="cluster"``: dask is not installed (the extra to install), or the scheduler
        cannot be reached within ``timeout`` seconds.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise CoreError(f"running on a Dask cluster needs dask.distributed: {_INSTALL}", field="cluster") from None
    local = None
    try:
        if spec.workers is not None:
            import dask

            # glibc's own allocation thresholds: dask's MALLOC_TRIM_THRESHOLD_ (any value) turns off
            # glibc's adaptive mmap threshold, so every large temporary of a block's work is a
            # fresh mmap and its page faults (the histogram pass ran 2-3x slower in the workers).
            environ = {k: v for k, v in dask.config.get("distributed.nanny.pre-spawn-environ", {}).items()
                       if k != "MALLOC_TRIM_THRESHOLD_"}
            with dask.config.set({"distributed.nanny.pre-spawn-environ": environ}):
                local = LocalCluster(n_workers=spec.workers, threads_per_worker=1, processes=True,
                                     dashboard_address=":0", silence_logs=40)
            client = Client(local, timeout=timeout)
        else:
            client = Client(spec.scheduler, timeout=timeout)
    except Exception as error:
        if local is not None:
            local.close()
        raise CoreError(f"cannot reach the Dask scheduler {spec.describe()} ({type(error).__name__}: "
                        f"{str(error)[:200]}); check the address and that the scheduler is running",
                        field="cluster") from None
    return Cluster(client, spec, local)


def block_ranges(block_sizes: Sequence[int], itemsize: int, workers: int) -> list[tuple[int, int]]:
    """``[first, last)`` block indices of each task (module rules): consecutive blocks of about
    :data:`TASK_BYTES` together, at least :data:`TASKS_PER_WORKER` tasks per worker when there
    are enough blocks, at most :data:`MAX_TASK_BYTES` each."""
    count = len(block_sizes)
    if count == 0:
        return []
    total = sum(block_sizes) * itemsize
    aim = min(TASK_BYTES, max(1, total // max(1, workers * TASKS_PER_WORKER)))
    aim = min(max(aim, 1), MAX_TASK_BYTES)
    ranges, first, held = [], 0, 0
    for index, size in enumerate(block_sizes):
        held += size * itemsize
        if held >= aim:
            ranges.append((first, index + 1))
            first, held = index + 1, 0
    if first < count:
        ranges.append((first, count))
    return ranges


def run_ordered(cluster: Cluster, function: Callable, arguments: Sequence[tuple], merge: Callable[[Any], None], *,
                cancelled: Callable[[], bool] | None = None, what: str = "the work") -> int:
    """Run ``function(*args)`` for each of ``arguments`` on the cluster and ``merge`` the
    results in that order (module rules). Returns the tasks run.

    Raises
    ------
    As :func:`ordered_results`.
    """
    count = 0
    for result in ordered_results(cluster, function, arguments, cancelled=cancelled, what=what):
        merge(result)
        count += 1
    return count


def ordered_results(cluster: Cluster, function: Callable, arguments: Sequence[tuple], *,
                    cancelled: Callable[[], bool] | None = None, what: str = "the work") -> Iterator[Any]:
    """The results of ``function(*args)`` for each of ``arguments``, run on the cluster, in the
    order of ``arguments``, each as soon as it and every one before it are done (module rules).
    Closing the iterator early cancels the tasks not yet done.

    Raises
    ------
    Cancelled
        ``cancelled()`` returned True (the futures are cancelled).
    CoreError
        ``field="cluster"``: the scheduler went away, or a task failed (its error named).
    """
    if not arguments:
        return
    client = cluster.client
    try:
        futures = [client.submit(function, *args, pure=False, retries=2) for args in arguments]
    except Exception as error:
        raise _lost(cluster, error, what) from None
    results: dict[int, Any] = {}
    index_of = {future.key: i for i, future in enumerate(futures)}
    given = 0
    try:
        for future in _as_completed(client, futures, cancelled, cluster, what):
            i = index_of[future.key]
            try:
                results[i] = future.result()
            except CoreError:
                raise
            except Exception as error:
                if _cancelled(error) or not _connected(client):
                    raise _lost(cluster, None, what) from None  # cancelled by a scheduler that closed
                raise _failed(cluster, error, what) from None
            while given in results:
                yield results.pop(given)
                given += 1
    finally:
        pending = [f for f in futures if not f.done()]
        if pending:
            try:
                client.cancel(pending)
            except Exception:
                pass  # the scheduler is gone: nothing to cancel
    if given != len(futures):
        raise CoreError(f"{what} on {cluster.name} ended with {given} of {len(futures)} tasks done; the "
                        "result is not complete (run it again)", field="cluster")


def _as_completed(client, futures, cancelled, cluster: Cluster, what: str) -> Iterator:
    """The futures as they finish: waits for the first of those left, waking every
    :data:`POLL_SECONDS` to check ``cancelled()`` and the scheduler."""
    from distributed import wait

    left = list(futures)
    while left:
        if cancelled is not None and cancelled():
            raise Cancelled(f"{what} cancelled")
        try:
            done, _ = wait(left, timeout=POLL_SECONDS, return_when="FIRST_COMPLETED")
        except TimeoutError:
            if client.status in ("closed", "closing") or not _connected(client):
                raise _lost(cluster, None, what) from None
            continue
        except Exception as error:  # the futures were cancelled: by a scheduler that closed
            if _cancelled(error) or not _connected(client):
                raise _lost(cluster, None, what) from None
            raise _failed(cluster, error, what) from None
        left = [f for f in left if f not in done]
        yield from (f for f in futures if f in done)  # in submission order among those done


def _cancelled(error: BaseException) -> bool:
    return type(error).__name__ in ("FutureCancelledError", "FuturesCancelledError", "CancelledError")


def _connected(client) -> bool:
    try:
        return client.scheduler_comm is not None and not client.scheduler_comm.comm.closed()
    except Exception:
        return False


def _lost(cluster: Cluster, error: BaseException | None, what: str) -> CoreError:
    said = f" ({type(error).__name__}: {str(error)[:160]})" if error is not None else ""
    return CoreError(f"the Dask scheduler {cluster.name} went away during {what}{said}; the result so far is "
                     "not complete and is not shown (check the cluster, then run it again)", field="cluster")


def _failed(cluster: Cluster, error: BaseException, what: str) -> CoreError:
    message = getattr(error, "message", None) or str(error)
    return CoreError(f"{what} failed on {cluster.name}: {type(error).__name__}: {str(message)[:300]}",
                     field="cluster")


class BlockRunner:
    """Runs the blocks of one view's scan on a cluster, as the local scanner would run them
    (module rules). ``target`` is picklable and gives the same view in a worker:
    ``target.open() -> (view, block reader)`` (:class:`core.pipeline.view_target.ViewTarget`)."""

    def __init__(self, cluster: Cluster, target: Any) -> None:
        self.cluster = cluster
        self.target = target
        self.tasks = 0

    def plan(self, view: np.ndarray, transform: Callable[[np.ndarray], np.ndarray],
             chunk_elements: int) -> tuple[list[int], list[tuple[int, int]]]:
        """The blocks' sizes and each task's ``[first, last)`` blocks (no data read)."""
        sizes = [block.size for block in iter_blocks(transform(view), chunk_elements)]
        return sizes, block_ranges(sizes, view.dtype.itemsize, max(1, self.cluster.workers()))

    def results(self, ranges: Sequence[tuple[int, int]], transform: Callable[[np.ndarray], np.ndarray],
                chunk_elements: int, work: Callable, state_of: Callable, *,
                cancelled: Callable[[], bool] | None = None, what: str = "the scan") -> Iterator[list]:
        """Each task's ``[(summary, size)]`` of its blocks, tasks in the order of ``ranges``
        (:func:`ordered_results`: closing it early cancels the rest)."""
        self.tasks += len(ranges)
        yield from ordered_results(self.cluster, _run_blocks,
                                   [(self.target, transform, chunk_elements, first, last, work, state_of)
                                    for first, last in ranges], cancelled=cancelled, what=what)

    def scan(self, view: np.ndarray, transform: Callable[[np.ndarray], np.ndarray], chunk_elements: int,
             work: Callable, merge: Callable[[Any], None], state_of: Callable, *,
             cancelled: Callable[[], bool] | None = None, progress: Callable[[int, int], None] | None = None,
             total: int = 0, done: int = 0, weight: int = 1, what: str = "the scan") -> int:
        """``work(start, block, state)`` over the blocks of ``transform(view)`` cut by
        ``chunk_elements``, ``state = state_of(reader)`` once per task; ``merge`` each block's
        summary here, in block order. Returns the final ``done`` (``done`` grows by ``weight``
        per element)."""
        _sizes, ranges = self.plan(view, transform, chunk_elements)
        reached = done
        for summaries in self.results(ranges, transform, chunk_elements, work, state_of, cancelled=cancelled,
                                      what=what):
            for summary, size in summaries:
                merge(summary)
                reached += size * weight
            if progress is not None:
                progress(reached, total)
        return reached


def _run_blocks(target, transform, chunk_elements: int, first: int, last: int, work, state_of) -> list:
    """On a worker: ``[(summary, size)]`` of blocks ``first`` to ``last - 1`` of the target's
    view, ``summary = work(flat start, block, state)``."""
    view, reader = target.open()
    state = state_of(reader)
    out, start = [], 0
    for index, block in enumerate(iter_blocks(transform(view), chunk_elements)):
        if index >= last:
            break
        if index >= first:
            out.append((work(start, block, state), block.size))
        start += block.size
    return out
