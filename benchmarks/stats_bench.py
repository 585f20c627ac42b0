"""Statistics throughput versus numpy computing the same figures on the same data."""

from __future__ import annotations

import numpy as np

from benchmarks.harness import Row, median_time, temp_dir

MiB = 1 << 20


def numpy_equivalent(x: np.ndarray) -> None:
    """What compute_statistics reports, the numpy way: one call (one pass) per figure."""
    finite = x[np.isfinite(x)]
    np.nanmin(x), np.nanmax(x), np.isnan(x).sum(), np.isposinf(x).sum(), np.isneginf(x).sum()
    np.count_nonzero(x == 0)
    finite.mean(), finite.std()
    np.histogram(finite, bins=64)


def rows(*, tiny: bool, quick: bool, repeats: int) -> list[Row]:
    from core.scan.statistics import compute_statistics

    nbytes = 4 * MiB if tiny else (256 * MiB if quick else 1024 * MiB)
    with temp_dir() as tmp:
        path = f"{tmp}/stats.bin"
        rng = np.random.default_rng(3)
        n = nbytes // 4
        chunk = 1 << 24
        with open(path, "wb") as f:
            for start in range(0, n, chunk):
                block = rng.standard_normal(min(chunk, n - start), dtype=np.float32)
                block[::1000] = np.nan
                f.write(block.tobytes())
        view = np.memmap(path, dtype=np.float32, mode="r")
        reps = max(1, repeats // 2)
        ours = median_time(lambda: compute_statistics(view), repeats=reps)
        baseline = median_time(lambda: numpy_equivalent(view), repeats=reps)
        del view
    label = f"{nbytes // MiB} MiB"
    ours_tp, base_tp = nbytes / ours, nbytes / baseline
    return [Row(f"statistics throughput, {label} float32 map", ours_tp, base_tp,
                "numpy: nanmin, nanmax, counts, mean, std, histogram", ">= 0.8x numpy",
                ours_tp >= 0.8 * base_tp, unit="B/s")]
