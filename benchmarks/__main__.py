"""``python -m benchmarks [--quick] [--tiny] [--write]``: measure every performance goal.

``--quick`` runs a subset in under a minute; ``--tiny`` shrinks every size (for the smoke test
that proves the harness works; its numbers mean nothing); ``--write`` stores the table in
``benchmarks/README.md`` and the main README's summary.
"""

from __future__ import annotations

import argparse
import sys
import time

from benchmarks import checkpoint_bench, core_bench, formats_bench, guess_bench, models_bench, tflite_gguf_bench
from benchmarks.harness import Row, format_table
from benchmarks.report import machine_description, write_reports

GiB = 1 << 30
MiB = 1 << 20


def collect(quick: bool, tiny: bool) -> list[Row]:
    repeats = 3 if (quick or tiny) else 7
    if tiny:
        sizes, copy_bytes, big = [1 * MiB, 4 * MiB], 1 * MiB, 4 * MiB
    elif quick:
        sizes, copy_bytes, big = [1 * MiB, 8 * GiB], 64 * MiB, 8 * GiB
    else:
        sizes, copy_bytes, big = [1 * MiB, 256 * MiB, 1 * GiB, 8 * GiB], 256 * MiB, 8 * GiB
    rows: list[Row] = []
    baselines, _memcpys = core_bench.baseline_rows(copy_bytes, repeats)
    rows += baselines
    rows += core_bench.open_latency_rows(sizes, repeats)
    rows += core_bench.padding_rows(copy_bytes, repeats)
    rows += core_bench.slice_rows(big, repeats)
    rows += core_bench.tensorflow_rows(copy_bytes if not tiny else MiB, repeats)
    rows += tflite_gguf_bench.rows(tiny=tiny, quick=quick, repeats=repeats)
    rows += guess_bench.rows(tiny=tiny, quick=quick, repeats=repeats)
    rows += formats_bench.rows(tiny=tiny, quick=quick, repeats=repeats)
    rows += checkpoint_bench.rows(tiny=tiny, quick=quick, repeats=repeats)
    rows += models_bench.rows(tiny=tiny, quick=quick, repeats=repeats)
    try:
        from benchmarks import stats_bench
    except ImportError:
        stats_bench = None
    if stats_bench is not None:
        rows += stats_bench.rows(tiny=tiny, quick=quick, repeats=repeats)
    from benchmarks import compare_bench

    rows += compare_bench.rows(tiny=tiny, quick=quick, repeats=repeats)
    try:
        from benchmarks import remote_bench  # needs the [remote] extra and nginx
    except ImportError:
        remote_bench = None
    if remote_bench is not None:
        rows += remote_bench.rows(tiny=tiny, quick=quick, repeats=repeats)
    try:
        from benchmarks import cluster_bench  # the [dask] extra
    except ImportError:
        cluster_bench = None
    if cluster_bench is not None:
        rows += cluster_bench.rows(tiny=tiny, quick=quick, repeats=repeats)
    from benchmarks import records_bench

    rows += records_bench.rows(tiny=tiny, quick=quick, repeats=repeats)
    try:
        from benchmarks import gui_bench
    except ImportError:
        gui_bench = None
    if gui_bench is not None:
        rows += gui_bench.rows(tiny=tiny, quick=quick, repeats=repeats)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a subset, under a minute")
    parser.add_argument("--tiny", action="store_true", help="tiny sizes (smoke test of the harness)")
    parser.add_argument("--write", action="store_true", help="write benchmarks/README.md and the README summary")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = collect(args.quick, args.tiny)
    table = format_table(rows)
    print(machine_description())
    print()
    print(table)
    print(f"\n({time.perf_counter() - start:.1f} s)")
    if args.write:
        write_reports(table, rows, quick=args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
