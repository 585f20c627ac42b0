"""Container figures: listing a large safetensors header, and one tensor of a huge container.

Goals (issue 16): listing a safetensors file with 10,000 tensors well under 100 ms, reading
only headers; opening one tensor of a 4 GiB sparse container costs the same time and memory
as opening a raw file of that size.
"""

from __future__ import annotations

import json
import struct

import numpy as np

from benchmarks.harness import Row, median_time, run_probe, sparse_file, temp_dir

MiB = 1 << 20
GiB = 1 << 30

_IMPORT_PROBE = """
import numpy as np
from core import DecodeParams, Pipeline
from core.formats.registry import list_file
RESULT = {}
"""
_CONTAINER_PROBE = """
import time, numpy as np
from core import Pipeline
from core.formats.entry import find_entry
from core.formats.reader import HeaderReader
from core.formats.registry import list_container
t0 = time.perf_counter()
with Pipeline({path!r}) as p:
    entry = find_entry(list_container(HeaderReader(p.source, 0)), "big")
    r = p.run(entry.params())
    row = np.array(r.view[r.view.shape[0] // 2])
RESULT = dict(elapsed=time.perf_counter() - t0, zero_copy=r.zero_copy)
"""
_RAW_PROBE = """
import time, numpy as np
from core import DecodeParams, Pipeline
t0 = time.perf_counter()
with Pipeline({path!r}) as p:
    r = p.run(DecodeParams(dtype="float32", shape=(-1, 1024)))
    row = np.array(r.view[r.view.shape[0] // 2])
RESULT = dict(elapsed=time.perf_counter() - t0, zero_copy=r.zero_copy)
"""


def safetensors_header(tensors: dict[str, tuple[str, list[int], int]]) -> tuple[bytes, int]:
    """The 8-byte length and JSON header of a safetensors file (name -> dtype, shape, nbytes)
    with the tensors laid out one after another, as the format's writer does; and the data size."""
    header, offset = {}, 0
    for name, (dtype, shape, nbytes) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text, offset


def listing_rows(count: int, repeats: int) -> list[Row]:
    """List a safetensors file of ``count`` tensors (4 KiB each, data sparse): time and bytes read."""
    from core.files.sources import open_source
    from core.formats.reader import HeaderReader
    from core.formats.registry import list_container

    tensors = {f"model.layers.{i // 10}.block.{i % 10}.weight": ("F32", [32, 32], 4096)
               for i in range(count)}
    head, data_size = safetensors_header(tensors)
    with temp_dir() as tmp:
        path = sparse_file(tmp, "many.safetensors", len(head) + data_size, header=head)
        consumed = []

        def list_it() -> None:
            with open_source(str(path)) as source:
                reader = HeaderReader(source, 0)
                listing = list_container(reader)
                consumed.append(reader.consumed)
                assert len(listing.entries) == count

        seconds = median_time(list_it, repeats=repeats)
    text = head[8:]
    parse_only = median_time(lambda: json.loads(text), repeats=repeats)  # the floor, same load
    note = f"(reads {consumed[-1]:,} header bytes of {len(head) + data_size:,})"
    return [Row(f"list a safetensors file with {count:,} tensors", seconds, parse_only,
                "json.loads of its header alone", "< 100 ms", seconds < 0.100, note=note)]


def open_tensor_rows(size: int, repeats: int) -> list[Row]:
    """One float32 tensor filling a sparse safetensors file of ``size`` bytes versus a raw file of
    the same size: open (listing included), decode, read one row of 1024 values."""
    from core import DecodeParams, Pipeline
    from core.formats.entry import find_entry
    from core.formats.reader import HeaderReader
    from core.formats.registry import list_container

    nbytes = size // 4096 * 4096
    head, _ = safetensors_header({"big": ("F32", [nbytes // 4096, 1024], nbytes)})
    with temp_dir() as tmp:
        container = sparse_file(tmp, "big.safetensors", len(head) + nbytes, header=head)
        raw = sparse_file(tmp, "big.bin", nbytes)

        def open_container(path=str(container)) -> None:  # as the command does: one open
            with Pipeline(path) as p:
                entry = find_entry(list_container(HeaderReader(p.source, 0)), "big")
                r = p.run(entry.params())
                np.array(r.view[r.view.shape[0] // 2])

        def open_raw(path=str(raw)) -> None:
            with Pipeline(path) as p:
                r = p.run(DecodeParams(dtype="float32", shape=(-1, 1024)))
                np.array(r.view[r.view.shape[0] // 2])

        ours = median_time(open_container, repeats=repeats)
        baseline = median_time(open_raw, repeats=repeats)
        base_rss = run_probe(_IMPORT_PROBE)["peak_rss"]
        container_rss = run_probe(_CONTAINER_PROBE.format(path=str(container)))["peak_rss"] - base_rss
        raw_rss = run_probe(_RAW_PROBE.format(path=str(raw)))["peak_rss"] - base_rss
    label = f"{size / GiB:g} GiB" if size >= GiB else f"{size / MiB:g} MiB"
    return [
        Row(f"open one tensor of a {label} sparse safetensors file (listing included)", ours,
            baseline, "the same on a raw file", "<= 1.5x raw", ours <= 1.5 * baseline),
        Row(f"added peak memory, one tensor of a {label} sparse safetensors file", container_rss,
            raw_rss, "raw file", "raw + 5 MiB", container_rss <= raw_rss + 5 * MiB, unit="B"),
    ]


def rows(tiny: bool, quick: bool, repeats: int) -> list[Row]:
    count = 100 if tiny else 10_000
    size = 4 * MiB if tiny else 4 * GiB
    return listing_rows(count, repeats) + open_tensor_rows(size, repeats)
