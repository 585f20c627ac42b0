"""Whole-data work on a Dask cluster (issue 35): a LocalCluster of 2 worker processes on this
2-core machine against the local two-thread scanner, in the same run.

Goals: statistics of a 1 GiB float32 file on the 2-process cluster >= 0.8x the local scanner's
throughput; the per-task overhead reported; planning a 10,000-shard dataset (sparse files) < 2 s;
the scan of 1,000 small files on the cluster and locally, side by side. The measured per-worker
throughput and overheads feed the estimate in docs/cluster.md.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from benchmarks.harness import Row, median_time, temp_dir, write_random

MiB = 1 << 20
GiB = 1 << 30


def _statistics_rows(cluster, tmp: Path, nbytes: int, repeats: int) -> list[Row]:
    from core.pipeline.params import DecodeParams
    from core.pipeline.pipeline import Pipeline
    from core.pipeline.view_target import ViewTarget
    from core.scan.cluster import BlockRunner
    from core.scan.statistics import compute_statistics

    path = tmp / "stats.bin"
    write_random(path, nbytes, 1)
    params = DecodeParams(dtype="float32")
    label = f"{nbytes // MiB} MiB" if nbytes < GiB else f"{nbytes // GiB} GiB"
    with Pipeline([str(path)]) as pipeline:
        result = pipeline.run(params)
        view = result.view
        local_s = median_time(lambda: compute_statistics(view, reader=result.block_reader()), repeats)
        runner = BlockRunner(cluster, ViewTarget((str(path),), params))
        cluster_s = median_time(lambda: compute_statistics(view, runner=runner), repeats)
        tasks_per_run = runner.tasks / (repeats + 1)
        assert compute_statistics(view, runner=runner) == compute_statistics(view, reader=result.block_reader())
    ratio = local_s / cluster_s
    # per-task overhead: tasks that do nothing but open the (cached) target and return
    from core.scan.cluster import run_ordered

    count = 200
    start = time.perf_counter()
    run_ordered(cluster, _nothing, [(i,) for i in range(count)], lambda _r: None)
    per_task = (time.perf_counter() - start) / count
    per_worker = nbytes / cluster_s / max(1, cluster.workers())
    return [
        Row(f"statistics of a {label} float32 file on a 2-process local Dask cluster: throughput vs the local "
            "scanner", ratio, None, "the local two-thread scanner", ">= 0.8x", ratio >= 0.8, unit="x",
            note=f"cluster {cluster_s:.2f} s ({tasks_per_run:.0f} tasks), local {local_s:.2f} s; "
                 f"{per_worker / GiB:.2f} GiB/s per worker"),
        Row("Dask per-task overhead (an empty task, submitted and gathered in order)", per_task, None, "",
            "reported", None, note=f"{count} tasks on {cluster.workers()} workers"),
    ]


def _nothing(i: int) -> int:
    return i


def _planning_rows(cluster, tmp: Path, shards: int, small_files: int) -> list[Row]:
    from core.models.inventory import inventory
    from core.models.scan import scan_tensors
    from core.pipeline.params import DecodeParams

    folder = tmp / "shards"
    folder.mkdir()
    for i in range(shards):
        with open(folder / f"shard_{i:05d}.bin", "wb") as out:
            out.truncate(MiB)  # sparse: nothing on disk
    params = DecodeParams(dtype="float32")
    start = time.perf_counter()
    found = inventory([str(folder)], params)
    from core.models.scan import _task_bytes
    from core.scan.cluster import TASK_BYTES
    groups, held = 1, 0
    for tensor in found.tensors:  # the tasks the cluster scan submits (no data read)
        size = _task_bytes(tensor)
        if held and held + size > TASK_BYTES:
            groups, held = groups + 1, 0
        held += size
    plan_s = time.perf_counter() - start
    small = tmp / "small"
    small.mkdir()
    rng = np.random.default_rng(2)
    for i in range(small_files):
        rng.standard_normal(16 * 1024, dtype=np.float32).tofile(small / f"dump_{i:04d}.bin")
    listed = inventory([str(small)], params)
    start = time.perf_counter()
    local_rows = list(scan_tensors(listed))
    local_s = time.perf_counter() - start
    start = time.perf_counter()
    cluster_rows = list(scan_tensors(listed, cluster=cluster))
    cluster_s = time.perf_counter() - start
    assert [r.statistics for r in cluster_rows] == [r.statistics for r in local_rows]
    return [
        Row(f"planning a {shards:,}-shard dataset (sparse 1 MiB files): inventory and tasks, no data read", plan_s,
            None, "", "< 2 s", plan_s < 2.0, note=f"{len(found.tensors):,} files in {groups} tasks"),
        Row(f"scan of {small_files:,} small files (64 KiB each) on the 2-process cluster vs locally", cluster_s,
            local_s, "the local scan", "reported", None),
    ]


def rows(*, tiny: bool, quick: bool, repeats: int) -> list[Row]:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return [Row("Dask cluster (needs pip install 'tensor-inspector[dask]')", None, None, "", "", None)]
    from core.scan.cluster import ClusterSpec, connect

    nbytes = 64 * MiB if tiny else (256 * MiB if quick else GiB)
    shards = 1000 if tiny else 10_000
    small_files = 100 if tiny else 1000
    old = os.environ.pop("DASK_SCHEDULER_ADDRESS", None)
    try:
        with temp_dir() as tmp, connect(ClusterSpec(workers=2)) as cluster:
            tmp = Path(tmp)
            return _statistics_rows(cluster, tmp, nbytes, repeats) + _planning_rows(cluster, tmp, shards, small_files)
    finally:
        if old is not None:
            os.environ["DASK_SCHEDULER_ADDRESS"] = old
