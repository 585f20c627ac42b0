"""Timing, memory and reporting helpers shared by the benchmark modules.

Each figure is the median of several runs after a warm-up. Memory is the peak RSS of a fresh
subprocess (``resource.getrusage``), never an estimate. Baselines run in the same process, on
the same data, right next to what they are compared with, because absolute times drift on
shared machines.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Row:
    """One line of the results table."""

    figure: str
    ours: float | None          # seconds, bytes, ratio... per ``unit``
    baseline: float | None
    baseline_name: str
    target: str                 # human text, e.g. "< 20 ms"
    met: bool | None            # None when not applicable / skipped
    unit: str = "s"
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.ours is None or not self.baseline:
            return None
        return self.ours / self.baseline


def median_time(fn: Callable[[], object], repeats: int = 5, warmup: int = 1) -> float:
    """Median wall time of ``fn()`` in seconds over ``repeats`` runs after ``warmup`` runs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_probe(code: str, *, env: dict[str, str] | None = None, timeout: float = 300) -> dict:
    """Run ``code`` in a fresh Python; it must print one JSON object on its last stdout line.

    The probe's peak RSS (bytes) is added as ``peak_rss`` and its wall time as ``wall``.
    """
    wrapper = (
        "import resource, json, sys\n"
        + code
        + "\nimport resource as _r\n"
        "_peak = _r.getrusage(_r.RUSAGE_SELF).ru_maxrss * 1024\n"
        "print(json.dumps(dict(RESULT, peak_rss=_peak)))\n"
    )
    full_env = dict(os.environ)
    full_env.setdefault("QT_QPA_PLATFORM", "offscreen")
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    if env:
        full_env.update(env)
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", wrapper], cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=timeout
    )
    wall = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(f"probe failed ({out.returncode}): {out.stderr.strip()[-2000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["wall"] = wall
    return result


def sparse_file(directory: str | os.PathLike, name: str, size: int, header: bytes = b"") -> Path:
    """A file of ``size`` bytes that occupies no disk blocks beyond ``header`` (``truncate``)."""
    path = Path(directory) / name
    with open(path, "wb") as f:
        f.write(header)
        f.truncate(size)
    return path


def temp_dir() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="ti-bench-")


# ------------------------------------------------------------------------------ formatting
def format_value(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit == "s":
        if value < 1e-3:
            return f"{value * 1e6:.1f} µs"
        if value < 1:
            return f"{value * 1e3:.2f} ms"
        return f"{value:.2f} s"
    if unit == "B":
        for name, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
            if abs(value) >= scale:
                return f"{value / scale:.1f} {name}"
        return f"{value:.0f} B"
    if unit == "B/s":
        return f"{value / (1 << 30):.2f} GiB/s"
    return f"{value:.3g} {unit}".strip()


def format_table(rows: list[Row]) -> str:
    """A Markdown table: figure, ours, baseline, ratio, target, met."""
    lines = [
        "| figure | ours | baseline | ratio | target | met |",
        "| --- | ---: | --- | ---: | --- | --- |",
    ]
    for row in rows:
        base = f"{format_value(row.baseline, row.unit)} ({row.baseline_name})" if row.baseline_name else "—"
        ratio = "—" if row.ratio is None else f"{row.ratio:.3g}x"
        met = {True: "yes", False: "**no**", None: "—"}[row.met]
        ours = format_value(row.ours, row.unit) if row.ours is not None else (row.note or "—")
        note = f" {row.note}" if row.note and row.ours is not None else ""
        lines.append(f"| {row.figure}{note} | {ours} | {base} | {ratio} | {row.target} | {met} |")
    return "\n".join(lines)


def write_random(path: Path, nbytes: int, seed: int) -> None:
    """``nbytes`` of random float32 values (standard normal, seeded) at ``path``, written 64 MiB at a time."""
    import numpy as np

    rng = np.random.default_rng(seed)
    with open(path, "wb") as out:
        left = nbytes
        while left:
            count = min(left, 64 << 20) // 4
            out.write(rng.standard_normal(count, dtype=np.float32).tobytes())
            left -= count * 4
