"""Container listing figures: a GGUF with 1,000 tensors and a 1 GiB TFLite model.

Both files are sparse: their tensor data are holes, so a listing that read data pages would
still be fast; the figure is the listing's time with headers only (the GGUF header through
HeaderReader, the TFLite flatbuffer in place in the map). The writers are the formats' own
(``gguf.GGUFWriter``; the flatbuffers Builder with the ``tflite`` schema); without them the
rows say "skipped".
"""

from __future__ import annotations

import os
from importlib import import_module

import numpy as np

from benchmarks.harness import Row, median_time, temp_dir

MiB = 1 << 20
GiB = 1 << 30


def rows(tiny: bool, quick: bool, repeats: int) -> list[Row]:
    del quick  # the same sizes: each listing takes milliseconds
    tensors = 20 if tiny else 1000
    model_size = 4 * MiB if tiny else GiB
    out: list[Row] = []
    with temp_dir() as tmp:
        out.append(_gguf_row(os.path.join(tmp, "model.gguf"), tensors, repeats))
        out.append(_tflite_row(os.path.join(tmp, "model.tflite"), model_size, repeats))
    return out


def _list_time(path: str, repeats: int, expected: int) -> float:
    from core.formats.registry import list_file

    listing = list_file(path)
    assert listing is not None and len(listing.entries) == expected, listing
    return median_time(lambda: list_file(path), repeats=repeats)


def _gguf_row(path: str, tensors: int, repeats: int) -> Row:
    label = f"list a GGUF with {tensors:,} tensors (sparse, headers only)"
    try:
        import gguf
    except ImportError:
        return Row(label, None, None, "", "< 100 ms", None, note="skipped: gguf not installed")
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_array("tokenizer.ggml.tokens", [f"token{i}" for i in range(1000)])
    shape = (1024, 1024)
    nbytes = 2 * shape[0] * shape[1]
    for i in range(tensors):
        writer.add_tensor_info(f"blk.{i // 10}.weight_{i % 10}", shape, np.dtype(np.float16), nbytes)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    writer.close()
    header = os.path.getsize(path)
    data_start = -(-header // 32) * 32
    os.truncate(path, data_start + tensors * nbytes)  # the data: one hole
    seconds = _list_time(path, repeats, tensors)
    return Row(label, seconds, None, "", "< 100 ms", seconds < 0.1)


def _tflite_row(path: str, size: int, repeats: int) -> Row:
    label = f"list a {size // MiB:,} MiB TFLite model (sparse; buffers past the flatbuffer)"
    try:
        import flatbuffers
        schema = {name: import_module(f"tflite.{name}") for name in ("Model", "SubGraph", "Tensor", "Buffer")}
    except ImportError:
        return Row(label, None, None, "", "< 100 ms", None, note="skipped: flatbuffers/tflite not installed")
    count = 200
    share = (size - MiB) // count // 64 * 64
    side = int((share // 4) ** 0.5)
    model = _tflite_model(flatbuffers, schema, count, MiB, share, side)
    with open(path, "wb") as f:
        f.write(model)
    os.truncate(path, size)  # the weights: one hole after the flatbuffer
    seconds = _list_time(path, repeats, count)
    return Row(label, seconds, None, "", "< 100 ms", seconds < 0.1)


def _tflite_model(flatbuffers, schema, count: int, base: int, share: int, side: int) -> bytes:
    """A one-subgraph model whose ``count`` float32 weights live past the flatbuffer."""
    buf, ten, sub, mod = schema["Buffer"], schema["Tensor"], schema["SubGraph"], schema["Model"]
    b = flatbuffers.Builder(1 << 16)
    buffers = []
    buf.BufferStart(b)
    buffers.append(buf.BufferEnd(b))  # buffer 0: the empty sentinel
    for i in range(count):
        buf.BufferStart(b)
        buf.BufferAddOffset(b, base + i * share)
        buf.BufferAddSize(b, side * side * 4)
        buffers.append(buf.BufferEnd(b))
    tensors = []
    for i in range(count):
        name = b.CreateString(f"layer_{i}/kernel")
        ten.TensorStartShapeVector(b, 2)
        b.PrependInt32(side)
        b.PrependInt32(side)
        shape = b.EndVector()
        ten.TensorStart(b)
        ten.TensorAddShape(b, shape)
        ten.TensorAddType(b, 0)
        ten.TensorAddBuffer(b, i + 1)
        ten.TensorAddName(b, name)
        tensors.append(ten.TensorEnd(b))
    sub.SubGraphStartTensorsVector(b, count)
    for t in reversed(tensors):
        b.PrependUOffsetTRelative(t)
    tensor_vector = b.EndVector()
    sub.SubGraphStart(b)
    sub.SubGraphAddTensors(b, tensor_vector)
    graph = sub.SubGraphEnd(b)
    mod.ModelStartBuffersVector(b, len(buffers))
    for o in reversed(buffers):
        b.PrependUOffsetTRelative(o)
    buffer_vector = b.EndVector()
    mod.ModelStartSubgraphsVector(b, 1)
    b.PrependUOffsetTRelative(graph)
    graphs = b.EndVector()
    mod.ModelStart(b)
    mod.ModelAddVersion(b, 3)
    mod.ModelAddBuffers(b, buffer_vector)
    mod.ModelAddSubgraphs(b, graphs)
    b.Finish(mod.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())
