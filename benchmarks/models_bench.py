"""Whole models (issue 33): scanning every tensor of a container and comparing two containers
tensor by tensor, against the single-tensor statistics and compare of the same bytes.

Goals: the scan of a 4 GiB safetensors file of 256 tensors >= 0.8x the throughput of the
statistics (without histogram, the scan's figures) of one tensor over the same bytes, with
< 100 MiB added memory; the model diff of two 2 GiB files (every figure: agreement included)
>= 0.8x the throughput of one compare of the same bytes, < 200 MiB added memory.

The files hold real values, not zeros (a sparse file would read as zeros, which no checkpoint
holds and which takes other paths through the arithmetic): float32 weights drawn from
N(0, 0.02) as a trained layer's are, written in chunks with a fixed seed. B is A plus noise:
rounding-sized (N(0, 2e-6): within float32's default tolerance) for most tensors, and larger
(N(0, 1e-4): many elements over tolerance, so the mismatch lists fill) for every eighth, as a
conversion with a few broken layers looks. The baselines read the same bytes as one tensor, so
they see the same values. Each probe runs in a fresh process and its memory is its peak RSS
less that of a process that only imports the engine (the files are in the page cache, which
RSS does not count).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

from benchmarks.harness import Row, run_probe, temp_dir

MiB = 1 << 20
GiB = 1 << 30

_IMPORTS = """
import numpy as np
from core.models.inventory import inventory
from core.models.scan import scan_tensors
from core.models.matching import match_tensors
from core.models.diff import diff_pairs
from core.scan.statistics import compute_statistics
from core.compare.scanner import Side, compare_sides
from core import DecodeParams, Pipeline
import time
"""
_SCAN = _IMPORTS + """
start = time.perf_counter()
rows = list(scan_tensors(inventory([{path!r}])))
RESULT = dict(seconds=time.perf_counter() - start, tensors=len(rows), errors=sum(1 for r in rows if r.error))
"""
_STATS = _IMPORTS + """
with Pipeline({path!r}) as p:
    r = p.run(DecodeParams(dtype="float32", offset={offset}))
    start = time.perf_counter()
    compute_statistics(r.view, histogram=False, reader=r.block_reader(), check=p.source.check_unchanged)
    RESULT = dict(seconds=time.perf_counter() - start)
"""
_DIFF = _IMPORTS + """
start = time.perf_counter()
a, b = inventory([{a!r}]), inventory([{b!r}])
diffs = list(diff_pairs(match_tensors(a.tensors, b.tensors)))
RESULT = dict(seconds=time.perf_counter() - start, pairs=len(diffs),
              with_agreement=sum(1 for d in diffs if d.result is not None and d.result.agreement is not None))
"""
_COMPARE = _IMPORTS + """
with Pipeline({a!r}) as pa, Pipeline({b!r}) as pb:
    ra = pa.run(DecodeParams(dtype="float32", offset={offset}))
    rb = pb.run(DecodeParams(dtype="float32", offset={offset}))
    start = time.perf_counter()
    compare_sides(Side(ra.view, ra.block_reader, pa.source.check_unchanged),
                  Side(rb.view, rb.block_reader, pb.source.check_unchanged), work_limit=None)
    RESULT = dict(seconds=time.perf_counter() - start)
"""


def _safetensors(path: Path, tensors: int, tensor_bytes: int, values) -> int:
    """A safetensors file of ``tensors`` float32 tensors of ``tensor_bytes`` each, tensor ``i``'s
    values ``values(i, count)`` (written a tensor at a time); returns the data's offset."""
    header, offset = {}, 0
    for i in range(tensors):
        header[f"layers.{i}.weight"] = {"dtype": "F32", "shape": [tensor_bytes // 4],
                                        "data_offsets": [offset, offset + tensor_bytes]}
        offset += tensor_bytes
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as file:
        file.write(struct.pack("<Q", len(text)) + text)
        for i in range(tensors):
            file.write(np.ascontiguousarray(values(i, tensor_bytes // 4), "<f4").tobytes())
    return 8 + len(text)


def _weights(seed: int):
    """Tensor ``i`` of model ``seed``: N(0, 0.02) float32, the same for a seed and index."""
    def values(i: int, count: int) -> np.ndarray:
        return np.random.default_rng((seed, i)).normal(0, 0.02, count).astype(np.float32)
    return values


def _converted(seed: int):
    """Tensor ``i`` of the other side: model ``seed``'s plus noise (module docstring)."""
    weights = _weights(seed)

    def values(i: int, count: int) -> np.ndarray:
        noise = np.random.default_rng((seed, i, 1)).normal(0, 1e-4 if i % 8 == 7 else 2e-6, count)
        return (weights(i, count) + noise).astype(np.float32)
    return values


def rows(*, tiny: bool = False, quick: bool = False, repeats: int = 3) -> list[Row]:
    scan_bytes = 16 * MiB if tiny else (1 * GiB if quick else 4 * GiB)
    diff_bytes = 8 * MiB if tiny else (512 * MiB if quick else 2 * GiB)
    count = 256
    out: list[Row] = []
    with temp_dir() as folder:
        folder = Path(folder)
        base = run_probe(_IMPORTS + "\nRESULT = {}\n")["peak_rss"]
        model = folder / "model.safetensors"
        offset = _safetensors(model, count, scan_bytes // count, _weights(1))
        scan = min((run_probe(_SCAN.format(path=str(model))) for _ in range(repeats)), key=lambda r: r["seconds"])
        stats = min((run_probe(_STATS.format(path=str(model), offset=offset)) for _ in range(repeats)),
                    key=lambda r: r["seconds"])
        ratio = stats["seconds"] / scan["seconds"]
        size = f"{scan_bytes // MiB:,} MiB, {count} tensors"
        out.append(Row(f"scan every tensor ({size}): throughput vs one tensor's statistics", ratio, None,
                       "statistics of the same bytes as one tensor", ">= 0.8x", ratio >= 0.8, unit="x",
                       note=f"scan {scan['seconds']:.2f} s, statistics {stats['seconds']:.2f} s"))
        added = max(0, scan["peak_rss"] - base)
        out.append(Row(f"scan every tensor ({size}): added memory", added, None, "", "< 100 MiB",
                       added < 100 * MiB, unit="B"))
        model.unlink()  # disk and page cache: the scan's file is done with
        a, b = folder / "a.safetensors", folder / "b.safetensors"
        offset = _safetensors(a, count, diff_bytes // count, _weights(2))
        _safetensors(b, count, diff_bytes // count, _converted(2))
        diff = min((run_probe(_DIFF.format(a=str(a), b=str(b))) for _ in range(repeats)), key=lambda r: r["seconds"])
        compare = min((run_probe(_COMPARE.format(a=str(a), b=str(b), offset=offset)) for _ in range(repeats)),
                      key=lambda r: r["seconds"])
        ratio = compare["seconds"] / diff["seconds"]
        size = f"2 x {diff_bytes // MiB:,} MiB, {count} pairs"
        out.append(Row(f"model diff, every figure ({size}): throughput vs one compare", ratio, None,
                       "compare of the same bytes as one tensor pair", ">= 0.8x", ratio >= 0.8, unit="x",
                       note=f"diff {diff['seconds']:.2f} s, compare {compare['seconds']:.2f} s"))
        added = max(0, diff["peak_rss"] - base)
        out.append(Row(f"model diff ({size}): added memory", added, None, "", "< 200 MiB", added < 200 * MiB, unit="B"))
    return out
