"""Statistics throughput versus numpy computing the same figures on the same data."""

from __future__ import annotations

import math
import time

import numpy as np

from benchmarks.harness import Row, median_time, temp_dir

MiB = 1 << 20


def numpy_equivalent(x: np.ndarray) -> None:
    """What compute_statistics reports, the numpy way: one call (one pass) per figure."""
    if x.dtype.kind in "iu":
        np.min(x), np.max(x), np.count_nonzero(x == 0), x.mean(), x.std(), np.histogram(x, bins=64)
        return
    finite = x[np.isfinite(x)]
    np.nanmin(x), np.nanmax(x), np.isnan(x).sum(), np.isposinf(x).sum(), np.isneginf(x).sum()
    np.count_nonzero(x == 0)
    finite.mean(), finite.std()
    np.histogram(finite, bins=64)


def rows(*, tiny: bool, quick: bool, repeats: int) -> list[Row]:
    from core.scan.statistics import compute_statistics

    nbytes = 4 * MiB if tiny else (256 * MiB if quick else 1024 * MiB)
    out = []
    with temp_dir() as tmp:
        for dtype in ("float32", "int16"):
            path = f"{tmp}/stats-{dtype}.bin"
            _write(path, dtype, nbytes)
            view = np.memmap(path, dtype=dtype, mode="r")
            reps = max(1, repeats // 2)
            ours = baseline = None
            for _ in range(2):  # interleaved: the machine's load hits both alike
                ours_s = median_time(lambda v=view: compute_statistics(v), repeats=reps)
                base_s = median_time(lambda v=view: numpy_equivalent(v), repeats=reps)
                ours = ours_s if ours is None else min(ours, ours_s)
                baseline = base_s if baseline is None else min(baseline, base_s)
            ours_tp, base_tp = nbytes / ours, nbytes / baseline
            out.append(Row(f"statistics throughput, {nbytes // MiB} MiB {dtype} map", ours_tp, base_tp,
                           "numpy: nanmin, nanmax, counts, mean, std, histogram", ">= 4x numpy",
                           ours_tp >= 4 * base_tp, unit="B/s"))
            if dtype == "float32":
                out += _first_figures_rows(path, view, nbytes, reps)
            del view
    return out


def first_figures_seconds(view: np.ndarray, reader=None, check=None) -> float:
    """Seconds from the call of compute_statistics to its first ``partial`` (what a window
    shows first); the rest of the computation is cancelled."""
    from core.errors import Cancelled
    from core.scan.statistics import compute_statistics

    start = time.perf_counter()
    seen: list[float] = []

    def partial(_statistics) -> None:
        seen.append(time.perf_counter() - start)

    try:
        compute_statistics(view, reader=reader, check=check, partial=partial, cancelled=lambda: bool(seen))
    except Cancelled:
        pass
    return seen[0]


def _first_figures_rows(path: str, view: np.ndarray, nbytes: int, reps: int) -> list[Row]:
    """Time to the first figures, of the map and as the window reads it (``pread`` blocks and
    the file check of the pipeline), next to numpy's nanmin + nanmax of the same map."""
    from core.pipeline.pipeline import DecodeParams, Pipeline

    pipeline = Pipeline([path])
    try:
        result = pipeline.run(DecodeParams(dtype="float32"))
        ways = {"": (None, None), " read as the window does": (result.block_reader(),
                                                               pipeline.source.check_unchanged)}
        ours = dict.fromkeys(ways, math.inf)
        baseline = math.inf
        for _ in range(2 * reps + 1):  # interleaved, best of several (the machine is shared)
            for way, (reader, check) in ways.items():
                ours[way] = min(ours[way], first_figures_seconds(
                    view if reader is None else result.view, reader, check))
            start = time.perf_counter()
            np.nanmin(view), np.nanmax(view)
            baseline = min(baseline, time.perf_counter() - start)
        del result
    finally:
        pipeline.close()
    return [Row(f"statistics: first figures shown, {nbytes // MiB} MiB float32 map{way}", seconds, baseline,
                "numpy: nanmin + nanmax", "<= 0.3 s", seconds <= 0.3) for way, seconds in ours.items()]


def _write(path: str, dtype: str, nbytes: int) -> None:
    """Normal values (float32: a NaN every 1000; int16: scaled by 3000) in 64 MiB writes."""
    rng = np.random.default_rng(3)
    n = nbytes // np.dtype(dtype).itemsize
    chunk = 1 << 24
    with open(path, "wb") as f:
        for start in range(0, n, chunk):
            count = min(chunk, n - start)
            if dtype == "float32":
                block = rng.standard_normal(count, dtype=np.float32)
                block[::1000] = np.nan
            else:
                block = (rng.standard_normal(count) * 3000).astype(np.int16)
            f.write(block.tobytes())
