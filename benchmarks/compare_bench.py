"""Comparing two float32 files versus the straightforward numpy script computing the same figures."""

from __future__ import annotations

import numpy as np

from benchmarks.harness import Row, median_time, run_probe, temp_dir

MiB = 1 << 20
RTOL, ATOL = 1.3e-6, 1e-5
LIST = 100

_MEMORY_PROBE = """
from core.compare.scanner import compare_results
from core.pipeline.pipeline import DecodeParams, Pipeline

def status(field):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(field + ":"))

with Pipeline([{a!r}]) as pa, Pipeline([{b!r}]) as pb:
    ra, rb = pa.run(DecodeParams(dtype="float32")), pb.run(DecodeParams(dtype="float32"))
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset the peak (VmHWM) to the current size
    before = status("VmRSS")
    result = compare_results(ra, rb)
RESULT = dict(added=status("VmHWM") - before, mismatched=result.mismatched)
"""
# The probe reads the peak from /proc/self/status: ru_maxrss of a child process also counts the
# memory of the benchmark process that started it (Linux keeps the pre-exec peak).


def numpy_script(a: np.ndarray, b: np.ndarray) -> tuple:
    """The same figures the straightforward way: whole-array isclose, abs, argmax, histogram."""
    mismatch = ~np.isclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True)
    count = int(np.count_nonzero(mismatch))
    error = np.abs(a - b)
    worst_abs = int(np.argmax(error))
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = error / np.abs(b)
    worst_rel = int(np.argmax(relative))
    mean, rms = float(error.mean(dtype=np.float64)), float(np.sqrt(np.mean(np.square(error, dtype=np.float64))))
    histogram = np.histogram(error, bins=64)
    first = np.flatnonzero(mismatch)[:LIST]
    worst = np.argpartition(error, -LIST)[-LIST:]
    return count, worst_abs, worst_rel, mean, rms, histogram, first, worst


def _write_pair(tmp: str, nbytes: int) -> tuple[str, str]:
    """A: standard normal float32; B: A with relative noise ~1e-7 and one value in 1000 off by 1e-3."""
    paths = (f"{tmp}/a.bin", f"{tmp}/b.bin")
    rng = np.random.default_rng(5)
    n, chunk = nbytes // 4, 1 << 24
    with open(paths[0], "wb") as fa, open(paths[1], "wb") as fb:
        for start in range(0, n, chunk):
            a = rng.standard_normal(min(chunk, n - start), dtype=np.float32)
            b = a * (1 + np.float32(1e-7) * rng.standard_normal(a.size, dtype=np.float32))
            b[::1000] += np.float32(1e-3)
            fa.write(a.tobytes())
            fb.write(b.tobytes())
    return paths


def rows(*, tiny: bool, quick: bool, repeats: int) -> list[Row]:
    from core.compare.scanner import compare_results
    from core.pipeline.pipeline import DecodeParams, Pipeline

    nbytes = 4 * MiB if tiny else (256 * MiB if quick else 1024 * MiB)
    label = f"{nbytes // MiB} MiB"
    with temp_dir() as tmp:
        path_a, path_b = _write_pair(tmp, nbytes)
        reps = max(1, repeats // 2)
        with Pipeline([path_a]) as pa, Pipeline([path_b]) as pb:
            ra, rb = pa.run(DecodeParams(dtype="float32")), pb.run(DecodeParams(dtype="float32"))
            ours = median_time(lambda: compare_results(ra, rb), repeats=reps)
            expected = compare_results(ra, rb).mismatched
        a, b = np.memmap(path_a, dtype=np.float32, mode="r"), np.memmap(path_b, dtype=np.float32, mode="r")
        if numpy_script(a, b)[0] != expected:
            raise RuntimeError("the numpy script and the comparison disagree on the mismatch count")
        baseline = median_time(lambda: numpy_script(a, b), repeats=reps)
        del a, b
        probe = run_probe(_MEMORY_PROBE.format(a=path_a, b=path_b))
    return [
        Row(f"compare two {label} float32 files (summary, histogram, worst list)", ours, baseline,
            "numpy: isclose, abs, argmax, histogram, argpartition on whole arrays", "<= 0.25x numpy",
            ours * 4 <= baseline),
        Row(f"compare added peak memory, two {label} files", probe["added"], None, "", "< 200 MiB",
            probe["added"] < 200 * MiB, unit="B"),
    ]
