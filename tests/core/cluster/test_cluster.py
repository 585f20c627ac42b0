"""Whole-data work on a real Dask cluster (a LocalCluster of worker processes started here, no
mocks): statistics, find, scan and diff give the local answers, bit for bit; a worker killed
mid-run leaves the result complete; a scheduler that cannot be reached or goes away says so."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

try:
    import distributed  # noqa: F401 (the [dask] extra: part of the test extra)
except ImportError:
    if os.environ.get("CI"):
        raise  # CI installs every extra: a missing one is a failure there
    pytest.skip("needs dask[distributed]: .venv/bin/pip install 'dask[distributed]'", allow_module_level=True)

from core.cli import main
from core.errors import CoreError
from core.models.diff import diff_pairs
from core.models.inventory import inventory
from core.models.matching import match_tensors
from core.models.scan import scan_tensors
from core.pipeline.params import DecodeParams
from core.pipeline.pipeline import Pipeline
from core.pipeline.view_target import ViewTarget
from core.scan.cluster import ClusterSpec, block_ranges, connect
from core.scan.search import find_next, parse_query
from core.scan.statistics import compute_statistics

safetensors_numpy = pytest.importorskip("safetensors.numpy")


@pytest.fixture(scope="module")
def cluster():
    with connect(ClusterSpec(workers=2)) as running:
        yield running


def _runner(cluster, target):
    from core.scan.cluster import BlockRunner
    return BlockRunner(cluster, target)


def _both(cluster, path, params, slice_text="", **options):
    """(local statistics, cluster statistics, tasks run) of the same view."""
    from core.slicing.expr import parse_slice
    spec = parse_slice(slice_text)
    with Pipeline([path]) as pipeline:
        result = pipeline.run(params, spec)
        local = compute_statistics(result.view, reader=result.block_reader(), **options)
        runner = _runner(cluster, ViewTarget((path,), params, spec))
        remote = compute_statistics(result.view, runner=runner, **options)
    return local, remote, runner.tasks


def _floats(n: int, seed: int = 0) -> np.ndarray:
    values = np.random.default_rng(seed).standard_normal(n).astype(np.float32) * 1e3
    values[[3, 77, 5000]] = [np.nan, np.inf, -np.inf]
    values[10:20] = 0.0
    values[30] = 1e-42  # a float32 subnormal
    return values


@pytest.mark.parametrize(("dtype", "slice_text"), [("float32", ""), ("float32", "7::3"), ("int16", ""),
                                                   ("float64", "::-1"), ("complex64", "")])
def test_statistics_on_the_cluster_are_the_local_ones_bit_for_bit(cluster, tmp_path, dtype, slice_text):
    path = str(tmp_path / "values.bin")
    data = _floats(300_000)
    if dtype == "int16":
        data = np.nan_to_num(data, posinf=0, neginf=0).astype(np.int16)
    elif dtype == "complex64":
        data = data[:200_000].view(np.complex64)
    data.astype(dtype).tofile(path)
    local, remote, tasks = _both(cluster, path, DecodeParams(dtype=dtype), slice_text, chunk_elements=1 << 13)
    assert remote == local  # every field, mean and std included
    assert tasks > 4  # many blocks, several tasks on each worker
    assert local.count == (data.size if not slice_text else len(range(data.size)[7::3]) if slice_text == "7::3"
                           else data.size)


def test_nan_only_and_empty_views_on_the_cluster(cluster, tmp_path):
    nan_path, empty_path = str(tmp_path / "nan.bin"), str(tmp_path / "empty.bin")
    np.full(5000, np.nan, np.float32).tofile(nan_path)
    open(empty_path, "wb").close()
    local, remote, _ = _both(cluster, nan_path, DecodeParams(dtype="float32"), chunk_elements=1 << 10)
    assert remote == local and remote.nan_count == 5000 and remote.mean is None
    local, remote, tasks = _both(cluster, empty_path, DecodeParams(dtype="float32"))
    assert remote == local and remote.count == 0 and tasks == 0


def test_find_on_the_cluster_finds_what_the_local_search_finds(cluster, tmp_path):
    path = str(tmp_path / "find.bin")
    data = np.zeros((600, 500), np.float32)
    for index in ((2, 7), (250, 3), (599, 499)):
        data[index] = np.nan
    data.tofile(path)
    params = DecodeParams(dtype="float32", shape=(600, 500))
    query = parse_query("nan")
    with Pipeline([path]) as pipeline:
        result = pipeline.run(params)
        runner = _runner(cluster, ViewTarget((path,), params))
        for start in (None, (2, 7), (100, 0), (250, 3), (599, 499), (599, 0)):
            local = find_next(result.view, query, start, reader=result.block_reader(), chunk_elements=1 << 12)
            remote = find_next(result.view, query, start, runner=runner, chunk_elements=1 << 12)
            assert remote == local, start
        assert find_next(result.view, parse_query("> 5"), None, runner=runner) is None


def _model(path, seed):
    rng = np.random.default_rng(seed)
    weights = {f"layer{i}.weight": rng.standard_normal((64, 32)).astype(np.float32) for i in range(12)}
    weights["layer3.weight"][0, 0] = np.nan
    weights["zeros"] = np.zeros((3, 3), np.float16)
    weights["empty"] = np.zeros((0, 4), np.float32)
    safetensors_numpy.save_file(weights, str(path))
    return weights


def test_a_model_scan_on_the_cluster_gives_the_local_rows(cluster, tmp_path):
    _model(tmp_path / "model.safetensors", 1)
    found = inventory([str(tmp_path / "model.safetensors")])
    local = list(scan_tensors(found))
    remote = list(scan_tensors(found, cluster=cluster))
    assert [r.tensor for r in remote] == [r.tensor for r in local]
    assert [(r.statistics, r.flags, r.error, r.dtype, r.shape, r.storage) for r in remote] == \
        [(r.statistics, r.flags, r.error, r.dtype, r.shape, r.storage) for r in local]
    assert {r.tensor.name: r.flags for r in remote}["layer3.weight"] == ("nan",)


def test_a_model_diff_on_the_cluster_gives_the_local_pairs(cluster, tmp_path):
    a = _model(tmp_path / "a.safetensors", 1)
    b = dict(a)
    b["layer5.weight"] = a["layer5.weight"] + 0.5
    safetensors_numpy.save_file(b, str(tmp_path / "b.safetensors"))
    matching = match_tensors(inventory([str(tmp_path / "a.safetensors")]).tensors,
                             inventory([str(tmp_path / "b.safetensors")]).tensors)
    local = list(diff_pairs(matching))
    remote = list(diff_pairs(matching, cluster=cluster))
    assert [(d.index, d.status, d.reason) for d in remote] == [(d.index, d.status, d.reason) for d in local]
    assert [d.result.max_absolute if d.result else None for d in remote] == \
        [d.result.max_absolute if d.result else None for d in local]
    assert {d.pair.key: d.status for d in remote}["layer5.weight"] == "differs"


def test_the_scan_command_runs_on_a_local_cluster(tmp_path, capsys):
    _model(tmp_path / "model.safetensors", 2)
    assert main(["scan", str(tmp_path / "model.safetensors"), "--json"]) == 1  # a NaN
    here = capsys.readouterr().out
    assert main(["scan", str(tmp_path / "model.safetensors"), "--json", "--workers", "2"]) == 1
    captured = capsys.readouterr()
    assert captured.out == here
    assert "running on a local cluster of 2 worker processes" in captured.err


def test_a_worker_killed_mid_run_leaves_a_complete_and_equal_result(tmp_path):
    path = str(tmp_path / "big.bin")
    _floats(40_000_000, seed=3).tofile(path)  # 160 MB: tasks of ~20 MB, several per worker
    params = DecodeParams(dtype="float32")
    with connect(ClusterSpec(workers=2)) as running, Pipeline([path]) as pipeline:
        result = pipeline.run(params)
        local = compute_statistics(result.view, reader=result.block_reader(), histogram=False)
        victim = running.worker_pids()[0]
        killed = []

        def progress(done: int, total: int) -> None:
            if not killed and done > 0:
                os.kill(victim, signal.SIGKILL)  # by its pid, once the first task is merged
                killed.append(victim)

        remote = compute_statistics(result.view, runner=_runner(running, ViewTarget((path,), params)),
                                    histogram=False, progress=progress)
    assert killed == [victim]
    assert remote == local


def test_a_scheduler_that_cannot_be_reached_or_goes_away_says_so(tmp_path):
    with pytest.raises(CoreError, match=r"cannot reach the Dask scheduler tcp://127\.0\.0\.1:9 .*check the address"):
        connect(ClusterSpec(scheduler="tcp://127.0.0.1:9"), timeout=2)
    path = str(tmp_path / "gone.bin")
    _floats(20_000_000, seed=4).tofile(path)
    params = DecodeParams(dtype="float32")
    running = connect(ClusterSpec(workers=1))
    closed = []

    def progress(done: int, total: int) -> None:
        if not closed:  # the scheduler (and its worker) stop once the first task is merged
            closed.append(done)
            running._local.close()

    try:
        with Pipeline([path]) as pipeline:
            result = pipeline.run(params)
            with pytest.raises(CoreError, match="went away during statistics; the result so far is not complete"):
                compute_statistics(result.view, runner=_runner(running, ViewTarget((path,), params)),
                                   chunk_elements=1 << 16, progress=progress)
    finally:
        running.close()
    assert closed


def test_the_options_and_the_environment_name_the_cluster():
    assert ClusterSpec.from_options(None, None, environ={}) is None
    assert ClusterSpec.from_options(None, None, environ={"DASK_SCHEDULER_ADDRESS": "tcp://h:8786"}) == \
        ClusterSpec(scheduler="tcp://h:8786")
    assert ClusterSpec.from_options("tcp://a:1", None, environ={"DASK_SCHEDULER_ADDRESS": "tcp://h:8786"}) == \
        ClusterSpec(scheduler="tcp://a:1")
    assert ClusterSpec.from_options(None, 3, environ={}) == ClusterSpec(workers=3)
    with pytest.raises(CoreError, match="at least 1 worker"):
        ClusterSpec.from_options(None, 0, environ={})


def test_without_dask_the_options_say_how_to_install_it(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(CoreError, match=r"pip install 'tensor-inspector\[dask\]'"):
        connect(ClusterSpec(workers=1))


def test_tasks_are_neither_tiny_nor_larger_than_their_budget():
    blocks = [1 << 22] * 1000  # 1000 blocks of 16 MiB (float32): 16 GB
    ranges = block_ranges(blocks, 4, workers=2)
    sizes = [(last - first) * (16 << 20) for first, last in ranges]
    assert ranges[0][0] == 0 and ranges[-1][1] == 1000
    assert all(b == c for (_a, b), (c, _d) in zip(ranges, ranges[1:]))  # consecutive, no gap
    assert max(sizes) <= 256 << 20 and min(sizes[:-1]) >= 256 << 20
    small = block_ranges([1000] * 40, 4, workers=2)  # 160 KB: still 4 tasks a worker, never empty
    assert len(small) == 8 and all(last > first for first, last in small)


def test_the_api_computes_statistics_of_files_on_a_cluster(cluster, tmp_path):
    from core import statistics
    path = str(tmp_path / "api.bin")
    _floats(100_000, seed=5).tofile(path)
    here = statistics(path, dtype="float32", slice="::2")
    assert statistics(path, dtype="float32", slice="::2", cluster=cluster) == here
    assert here.count == 50_000 and here.nan_count == 0  # index 3 and 77 are odd: sliced away; -Inf at 5000 stays
    assert here.neginf_count == 1
    with pytest.raises(CoreError, match="take files"):
        statistics(np.zeros(3), cluster=cluster)


def test_cancel_stops_a_cluster_run_and_cancels_its_tasks(cluster, tmp_path):
    from core.errors import Cancelled
    path = str(tmp_path / "cancel.bin")
    _floats(2_000_000, seed=6).tofile(path)
    params = DecodeParams(dtype="float32")
    merged = []
    with Pipeline([path]) as pipeline:
        view = pipeline.run(params).view
        with pytest.raises(Cancelled, match="statistics cancelled"):
            compute_statistics(view, runner=_runner(cluster, ViewTarget((path,), params)), chunk_elements=1 << 12,
                               progress=lambda done, total: merged.append(done), cancelled=lambda: bool(merged))
    assert merged and merged[-1] < 2 * 2_000_000  # stopped before the end
