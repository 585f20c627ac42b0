"""Engine figures: open+decode latency and memory versus file size, padding throughput, slicing."""

from __future__ import annotations

import math

import numpy as np

from benchmarks.harness import Row, median_time, run_probe, sparse_file, temp_dir

MiB = 1 << 20
GiB = 1 << 30

_OPEN_PROBE = """
import time, numpy as np
from core import DecodeParams, Pipeline
t0 = time.perf_counter()
with Pipeline({path!r}) as p:
    r = p.run(DecodeParams(dtype="float32", little_endian=False, record_size=4096))
    record = np.array(r.view[r.view.shape[0] // 2])
elapsed = time.perf_counter() - t0
RESULT = dict(elapsed=elapsed, shape=list(r.view.shape), zero_copy=r.zero_copy)
"""
_IMPORT_PROBE = """
import numpy as np
from core import DecodeParams, Pipeline
RESULT = {}
"""


def open_latency_rows(sizes: list[int], repeats: int) -> list[Row]:
    """Open an N-byte sparse file, decode it as big-endian float32 records of 4096 bytes, read
    one record: in-process median time, and peak RSS added over a probe that only imports."""
    rows = []
    with temp_dir() as tmp:
        base_rss = run_probe(_IMPORT_PROBE)["peak_rss"]
        for size in sizes:
            path = sparse_file(tmp, f"sparse_{size}.bin", size)

            def open_decode_read(path=path):
                from core import DecodeParams, Pipeline

                with Pipeline(path) as p:
                    r = p.run(DecodeParams(dtype="float32", little_endian=False, record_size=4096))
                    np.array(r.view[r.view.shape[0] // 2])

            seconds = median_time(open_decode_read, repeats=repeats)
            probe = run_probe(_OPEN_PROBE.format(path=str(path)))
            added = probe["peak_rss"] - base_rss
            label = _size(size)
            rows.append(Row(f"open+decode+read 1 record, {label} sparse", seconds, None, "", "< 20 ms",
                            seconds < 0.020))
            rows.append(Row(f"added peak memory, {label} sparse", added, None, "", "< 20 MiB",
                            added < 20 * MiB, unit="B"))
    return rows


def copy_baselines(nbytes: int, repeats: int) -> tuple[float, float, float, object]:
    """np.fromfile, memcpy into a reused buffer, and memcpy into a new buffer (``np.copy``,
    which pays the page faults of a fresh allocation, as any copy that returns a new array
    must), for ``nbytes`` of real data; plus the temp dir."""
    tmp = temp_dir()
    path = f"{tmp.name}/real.bin"
    rng = np.random.default_rng(0)
    data = rng.integers(0, 255, nbytes, dtype=np.uint8)
    data.tofile(path)
    fromfile = median_time(lambda: np.fromfile(path, dtype=np.uint8), repeats=repeats)
    target = np.empty_like(data)
    memcpy = median_time(lambda: np.copyto(target, data), repeats=repeats)
    fresh = median_time(lambda: np.copy(data), repeats=repeats)
    return fromfile, memcpy, fresh, tmp


def baseline_rows(nbytes: int, repeats: int) -> tuple[list[Row], tuple[float, float]]:
    fromfile, memcpy, fresh, tmp = copy_baselines(nbytes, repeats)
    tmp.cleanup()
    label = _size(nbytes)
    rows = [
        Row(f"baseline: np.fromfile {label}", fromfile, None, "", "reference", None),
        Row(f"baseline: memcpy {label} into a reused buffer", memcpy, None, "", "reference", None),
        Row(f"baseline: memcpy {label} into a new buffer (np.copy)", fresh, None, "", "reference", None),
    ]
    return rows, (memcpy, fresh)


def padding_rows(nbytes: int, repeats: int) -> list[Row]:
    """Decode with fixed_length > record size (one padding copy) versus a memcpy of the output."""
    from core import DecodeParams, Pipeline

    record = 4000
    fixed = 4096
    records = nbytes // fixed
    with temp_dir() as tmp:
        path = f"{tmp}/records.bin"
        np.random.default_rng(1).integers(0, 255, records * record, dtype=np.uint8).tofile(path)
        out_bytes = records * fixed
        source = np.random.default_rng(0).integers(0, 255, out_bytes, dtype=np.uint8)
        target = np.empty_like(source)
        reused = fresh = seconds = math.inf
        with Pipeline(path) as p:
            params = DecodeParams(dtype="float32", record_size=record, fixed_length=fixed)
            # Interleaved with memcpys of the output's size, best of each: on a shared machine
            # the load of one moment hits all three alike.
            for _ in range(3):
                seconds = min(seconds, median_time(lambda: p.run(params), repeats=repeats))
                reused = min(reused, median_time(lambda: np.copyto(target, source), repeats=repeats))
                fresh = min(fresh, median_time(lambda: np.copy(source), repeats=repeats))
        del source, target
    label = f"padded decode (fixed_length {fixed} > record {record}), {_size(out_bytes)} out"
    return [
        Row(label, seconds, fresh, "memcpy into a new buffer", "<= 1.5x memcpy", seconds <= 1.5 * fresh),
        Row(label, seconds, reused, "memcpy into a reused buffer", "<= 1.3x memcpy", seconds <= 1.3 * reused,
            note="(stricter: the baseline skips allocation)"),
    ]


def slice_rows(size: int, repeats: int) -> list[Row]:
    """Apply a spec to a view of a large memory map, and analyse a spec from a shape alone."""
    from core import DecodeParams, Pipeline, parse_slice

    spec = parse_slice("[1::3, ..., 100:4000:7, tf.newaxis]")
    with temp_dir() as tmp:
        path = sparse_file(tmp, "slice.bin", size)
        with Pipeline(path) as p:
            tensor = p.run(DecodeParams(dtype="float32", record_size=4096)).tensor
            apply_s = median_time(lambda: spec.apply(tensor), repeats=repeats * 20)
            analyze_s = median_time(lambda: spec.analyze(tensor.shape), repeats=repeats * 20)
            small = parse_slice("[::4096, 100:356]")
            copy_s = median_time(lambda: np.copy(small.apply(tensor)), repeats=repeats)
            view_s = median_time(lambda: small.apply(tensor), repeats=repeats * 20)
    label = _size(size)
    return [
        Row(f"slice apply, {label} map", apply_s, None, "", "microseconds", apply_s < 1e-3),
        Row(f"slice analyze from shape, {label}", analyze_s, None, "", "microseconds", analyze_s < 1e-3),
        Row(f"slice [::4096, 100:356] view, {label} map", view_s, copy_s, "np.copy of the result (tf cost)",
            "< copy", view_s < copy_s),
    ]


def tensorflow_rows(nbytes: int, repeats: int) -> list[Row]:
    """tf.io.decode_raw on the same bytes (plain and padded), when TensorFlow is installed."""
    try:
        import tensorflow as tf
    except ImportError:
        return [Row("tf.io.decode_raw (plain and padded)", None, None, "", "baseline", None,
                    note="skipped, TensorFlow not installed")]
    data = np.random.default_rng(2).integers(0, 255, nbytes, dtype=np.uint8).tobytes()
    decode_tf = median_time(lambda: tf.io.decode_raw(data, tf.float32, little_endian=False), repeats=repeats)
    from core import decode_raw

    ours = median_time(lambda: decode_raw(data, "float32", little_endian=False), repeats=repeats)
    rows = [Row(f"decode_raw {_size(nbytes)} bytes object", ours, decode_tf, "tf.io.decode_raw", "<= tf",
                ours <= decode_tf)]
    # Padded decode: records of 4,000 bytes to fixed_length 4,096, both sides on prepared inputs.
    records = np.frombuffer(data[: (nbytes // 4096) * 4000], np.uint8).reshape(-1, 4000)
    tensor = tf.constant([row.tobytes() for row in records])
    padded_tf = median_time(lambda: tf.io.decode_raw(tensor, tf.float32, fixed_length=4096), repeats=repeats)
    padded = median_time(lambda: decode_raw(records, "float32", fixed_length=4096), repeats=repeats)
    rows.append(Row(f"padded decode_raw ({len(records):,} records of 4000 bytes to 4096)", padded, padded_tf,
                    "tf.io.decode_raw", "<= 0.8x tf", padded <= 0.8 * padded_tf))
    return rows


def _size(nbytes: int) -> str:
    for unit, scale in (("GiB", GiB), ("MiB", MiB), ("KiB", 1024)):
        if nbytes >= scale:
            return f"{nbytes / scale:g} {unit}"
    return f"{nbytes} B"
