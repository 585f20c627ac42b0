"""Whole models (issue 33): scanning every tensor of a container and comparing two containers
tensor by tensor, against the single-tensor statistics and compare of the same bytes.

Goals: the scan of a 4 GiB safetensors file of 256 tensors >= 0.8x the throughput of the
statistics (without histogram, the scan's figures) of one tensor over the same bytes, with
< 100 MiB added memory; the model diff of two 2 GiB files (every figure: agreement included)
>= 0.8x the throughput of one compare of the same bytes, < 200 MiB added memory. The files are
sparse (their data reads as zeros, so they cost no disk); each probe runs in a fresh process
and its memory is its peak RSS less that of a process that only imports the engine.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

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


def _sparse_safetensors(path: Path, tensors: int, tensor_bytes: int) -> int:
    """A safetensors file of ``tensors`` float32 tensors of ``tensor_bytes`` each, data sparse;
    returns the data's offset in the file."""
    header, offset = {}, 0
    for i in range(tensors):
        header[f"layers.{i}.weight"] = {"dtype": "F32", "shape": [tensor_bytes // 4],
                                        "data_offsets": [offset, offset + tensor_bytes]}
        offset += tensor_bytes
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as file:
        file.write(struct.pack("<Q", len(text)) + text)
        file.truncate(8 + len(text) + offset)
    return 8 + len(text)


def rows(*, tiny: bool = False, quick: bool = False, repeats: int = 3) -> list[Row]:
    scan_bytes = 16 * MiB if tiny else (1 * GiB if quick else 4 * GiB)
    diff_bytes = 8 * MiB if tiny else (512 * MiB if quick else 2 * GiB)
    count = 256
    out: list[Row] = []
    with temp_dir() as folder:
        folder = Path(folder)
        base = run_probe(_IMPORTS + "\nRESULT = {}\n")["peak_rss"]
        model = folder / "model.safetensors"
        offset = _sparse_safetensors(model, count, scan_bytes // count)
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
        a, b = folder / "a.safetensors", folder / "b.safetensors"
        offset = _sparse_safetensors(a, count, diff_bytes // count)
        _sparse_safetensors(b, count, diff_bytes // count)
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
