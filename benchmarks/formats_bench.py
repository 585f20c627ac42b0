"""Container figures: listing a large safetensors header, and one tensor of a huge container.

Goals (issue 16): listing a safetensors file with 10,000 tensors well under 100 ms, reading
only headers; opening one tensor of a 4 GiB sparse container costs the same time and memory
as opening a raw file of that size. Issue 32: listing a model of 1,000 tensors / 4 GiB (sparse)
under 200 ms, here an ONNX model with its tensors in raw_data or in external data.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

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


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes(out + bytes([value]))


def _example(key: bytes, kind: int, body: bytes) -> bytes:
    """A serialized tf.train.Example of one feature: ``kind`` 1 bytes_list, 3 int64_list;
    ``body`` the list message's bytes (protobuf wire format, as TensorFlow writes it)."""
    feature = bytes([kind << 3 | 2]) + _varint(len(body)) + body
    entry = b"\x0a" + _varint(len(key)) + key + b"\x12" + _varint(len(feature)) + feature
    features = b"\x0a" + _varint(len(entry)) + entry
    return b"\x0a" + _varint(len(features)) + features


def _tfrecord(path, records) -> None:
    from core.formats.tfrecord import masked_crc32c

    with open(path, "wb") as out:
        for data in records:
            length = struct.pack("<Q", len(data))
            out.write(length + struct.pack("<I", masked_crc32c(length)) + data
                      + struct.pack("<I", masked_crc32c(data)))


def tfrecord_rows(records: int, per_record: int, repeats: int) -> list[Row]:
    """List TFRecord files of ``records`` Examples holding ``per_record`` varints (one packed
    int64_list), and of ``records * 2 // 3`` Examples of ``per_record // 10`` 8-byte strings:
    every record indexed, values counted (issue 30: 60 million varints took 45 s, 4 million
    strings 15 s)."""
    from core.formats.registry import list_file

    values = (np.arange(per_record, dtype=np.int64) % 100_000)
    packed = b"".join(_varint(int(v)) for v in values[:1000]) * (per_record // 1000) \
        if per_record >= 1000 else b"".join(_varint(int(v)) for v in values)
    varints = b"\x0a" + _varint(len(packed)) + packed
    strings = b"".join(b"\x0a\x08" + b"%08d" % i for i in range(max(1, per_record // 10)))
    out = []
    with temp_dir() as tmp:
        for name, kind, body, what, n, per in (
                ("varints", 3, varints, "varints", records, per_record),
                ("strings", 1, strings, "8-byte strings", max(1, records * 2 // 3), max(1, per_record // 10))):
            path = Path(tmp) / f"{name}.tfrecord"
            _tfrecord(path, (_example(b"v", kind, body) for _ in range(n)))
            count = n * per

            def list_it(path=str(path)) -> None:
                assert list_file(path).problems == ()

            seconds = median_time(list_it, repeats=repeats, warmup=0)
            size = path.stat().st_size
            reading = median_time(lambda path=path: path.read_bytes(), repeats=repeats)
            out.append(Row(f"list a TFRecord of {count:,} {what} ({n:,} records, {size / MiB:.0f} MiB)",
                           seconds, reading, "reading the file", "< 5 s", seconds < 5.0))
    return out


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _write_onnx(path: Path, count: int, nbytes: int, external: bool) -> None:
    """An ONNX model of ``count`` float32 initializers of ``nbytes`` each (protobuf wire format,
    fields in onnx's order): their raw_data left sparse (skipped with a seek), or their data in a
    sparse ``weights.bin`` beside it."""
    tensors = []
    for i in range(count):
        head = _varint(1 << 3) + _varint(nbytes // 4) + b"\x10\x01" + _field(8, b"layers.%d.weight" % i)
        if external:
            entries = [(b"location", b"weights.bin"), (b"offset", b"%d" % (i * nbytes)), (b"length", b"%d" % nbytes)]
            tensors.append((_field(5, head + b"".join(_field(13, _field(1, k) + _field(2, v)) for k, v in entries)
                                   + b"\x70\x01"), 0))
        else:
            head += _varint(9 << 3 | 2) + _varint(nbytes)
            tensors.append((_varint(5 << 3 | 2) + _varint(len(head) + nbytes) + head, nbytes))
    graph_len = sum(len(part) + skip for part, skip in tensors)
    with open(path, "wb") as out:
        out.write(b"\x08\x0a" + _varint(7 << 3 | 2) + _varint(graph_len))
        for part, skip in tensors:
            out.write(part)
            out.seek(skip, 1)
        out.truncate()
    if external:
        sparse_file(path.parent, "weights.bin", count * nbytes)


def onnx_rows(count: int, nbytes: int, repeats: int) -> list[Row]:
    """List ONNX models of ``count`` initializers of ``nbytes`` each, sparse: in raw_data (a model
    of ``count * nbytes`` bytes), and in external data (a ``weights.bin`` of that size)."""
    from core.files.sources import open_source
    from core.formats.reader import HeaderReader
    from core.formats.registry import list_container

    out = []
    with temp_dir() as tmp:
        for external in (False, True):
            path = Path(tmp) / ("external.onnx" if external else "raw.onnx")
            _write_onnx(path, count, nbytes, external)
            consumed = []

            def list_it(path=str(path), consumed=consumed) -> None:
                with open_source(path) as source:
                    reader = HeaderReader(source, 0)
                    listing = list_container(reader)
                    consumed.append(reader.consumed)
                    assert listing.format == "onnx" and listing.problems == () and len(listing.entries) == count

            seconds = median_time(list_it, repeats=repeats)
            where = "external data (a sparse weights.bin)" if external else "raw_data (sparse)"
            label = f"{count * nbytes / GiB:.1f} GiB" if count * nbytes >= GiB else f"{count * nbytes / MiB:.1f} MiB"
            out.append(Row(f"list an ONNX model of {count:,} tensors / {label} in {where}",
                           seconds, None, "", "< 200 ms", seconds < 0.200,
                           note=f"(reads {consumed[-1]:,} header bytes; the model file has {path.stat().st_size:,})"))
    return out


def rows(tiny: bool, quick: bool, repeats: int) -> list[Row]:
    count = 100 if tiny else 10_000
    size = 4 * MiB if tiny else 4 * GiB
    tf_records, tf_values = (10, 1000) if tiny else (600, 100_000)
    onnx_count, onnx_bytes = (100, 4096) if tiny else (1000, 4 * MiB)
    return (listing_rows(count, repeats) + open_tensor_rows(size, repeats)
            + tfrecord_rows(tf_records, tf_values, 1 if not tiny else repeats)
            + onnx_rows(onnx_count, onnx_bytes, repeats))
