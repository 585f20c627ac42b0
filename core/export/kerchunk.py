"""The current decode as kerchunk references: a JSON file that xarray, zarr and napari open as a
Zarr v2 array reading the same bytes of the same files, lazily.

What is written (kerchunk's version-1 reference format, read by fsspec's
``ReferenceFileSystem``): ``{"version": 1, "refs": {...}}`` whose ``refs`` hold a Zarr v2
group: ``.zgroup``, ``NAME/.zarray`` (uncompressed, no filters, C order, the dtype with its
byte order: ``"<f4"``, ``">i2"``, ``"|u1"``), ``NAME/.zattrs`` (``_ARRAY_DIMENSIONS``
``dim_0``... for xarray, and ``tensor_inspector``: the decode that was described), and one
``NAME/<chunk key>: [path, offset, length]`` per chunk, each chunk one byte range of one file.

Rules
-----
- **What is described** is the tensor the decode gives: the files (absolute paths), offset,
  length, records, dtype, byte order, ``fixed_length`` when it truncates, the target shape. The
  slice and the "view as" conversion are not part of it: the references describe the unsliced
  tensor, the slice is recorded in ``.zattrs`` (``tensor_inspector.slice``) and said in the
  result's notes (apply it after opening: ``z[...]``).
- **Runs.** The decoded values lie in runs of contiguous bytes: one per file (no records, or
  records back to back), one per record when records are padded (a record size larger than the
  bytes each element uses, or a ``fixed_length`` that truncates), one per element of a batch of
  explicit byte ranges; adjacent runs of one file are merged when every merged run has the same
  length. Several files (a batch) are runs of their own.
- **Chunks** are ``(1, ..., 1, d, shape[j+1:])``: the outermost axis ``j`` whose rows
  (``prod(shape[j+1:])`` values) divide the run length, with ``d`` the largest divisor of both
  ``shape[j]`` and the run's rows that keeps a chunk within :data:`CHUNK_BYTES` (32 MiB; one row
  of up to :data:`MAX_CHUNK_BYTES` is one chunk), so every chunk lies inside one run and no edge
  chunk is partial. At most :data:`MAX_REFERENCES` chunks: a layout needing more (tiny records,
  rows that do not line up with the runs) is refused.
- **Refused** (:class:`~core.errors.ExportError`, naming the problem and the fix): values that
  are not bytes of files (an object in memory, a container's copy or computed entry:
  decompressed, dequantized), a ``fixed_length`` that pads, a strided view (an entry not in C
  order), and types zarr v2 has no name for: bfloat16 and the float8 types (decode as uint16 or
  uint8, the same bytes, and view them as ``ml_dtypes`` types after reading), int4/uint4 and
  int24/uint24 (decoded into wider integers: not the stored bytes). ``bool`` is ``"|b1"``: zarr
  reads each byte as numpy's bool (the tool shows a byte above 1 as True, and so does numpy).
- **Safety**: written through :mod:`core.files.output` (never onto an inspected file, through any
  link; atomically); the references are streamed to the file, never built whole in memory.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO

import numpy as np

from core.dtypes.table import engine_name, packed_row, resolve_dtype
from core.errors import ExportError
from core.files.output import write_atomically
from core.files.sources import Source
from core.pipeline.result import PipelineResult
from core.slicing.expr import format_slice
from core.slicing.spec import SliceSpec

__all__ = ["CHUNK_BYTES", "MAX_CHUNK_BYTES", "MAX_REFERENCES", "KerchunkPlan", "export_kerchunk", "kerchunk_plan",
           "write_kerchunk"]

#: Bytes a chunk aims at (at most).
CHUNK_BYTES = 32 * 1024 * 1024
#: Largest chunk written: one row of the outermost axis that lines up with the runs.
MAX_CHUNK_BYTES = 64 * 1024 * 1024
#: Most chunk references one file holds (about 100 bytes of JSON each).
MAX_REFERENCES = 1_000_000
#: Engine types zarr v2 names, by their numpy typestr.
_ZARR_TYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float16", "float32", "float64", "complex64", "complex128")
_TRIAL_DIVISION = 1_000_000


@dataclass(frozen=True)
class KerchunkPlan:
    """The references of one decode, before they are written.

    Attributes
    ----------
    name
        The array's name in the group.
    dtype
        The zarr v2 dtype string (``"<f4"``).
    shape, chunks
        The array's shape and chunk shape.
    runs
        Per run: (file path, first byte, values); every run has ``run_values`` values.
    run_values
        Values per run.
    itemsize
        Bytes per value.
    attributes
        The array's ``.zattrs``.
    notes
        What the references do not describe (the slice, the view-as type), one sentence each.
    """

    name: str
    dtype: str
    shape: tuple[int, ...]
    chunks: tuple[int, ...]
    runs: tuple[tuple[str, int], ...]
    run_values: int
    itemsize: int
    attributes: dict
    notes: tuple[str, ...]

    @property
    def chunk_count(self) -> int:
        return math.prod(-(-n // c) for n, c in zip(self.shape, self.chunks)) if 0 not in self.shape else 0

    def references(self) -> Iterator[tuple[str, list]]:
        """``(chunk key, [path, offset, length])`` of every chunk, in C order of the chunk grid."""
        if 0 in self.shape:
            return
        grid = tuple(-(-n // c) for n, c in zip(self.shape, self.chunks))
        values = math.prod(self.chunks)
        nbytes = values * self.itemsize
        for number in range(math.prod(grid)):
            coords, rest = [], number
            for size in reversed(grid):
                coords.append(rest % size)
                rest //= size
            key = ".".join(str(i) for i in reversed(coords)) if grid else "0"
            start = number * values
            path, first = self.runs[start // self.run_values]
            yield f"{self.name}/{key}", [path, first + (start % self.run_values) * self.itemsize, nbytes]


def kerchunk_plan(source: Source, result: PipelineResult, name: str = "data", *,
                  chunk_bytes: int = CHUNK_BYTES) -> KerchunkPlan:
    """The references that describe ``result``'s tensor over ``source``'s files (module rules).

    Raises
    ------
    ExportError
        The decode cannot be described by references (module rules: the message says why and
        what to do instead).
    """
    _check_name(name)
    params = result.params
    if not source.on_disk:
        raise ExportError(
            f"kerchunk references name bytes of files, and the tensor is values in memory "
            f"({source.paths[0]}: a container's copy or computed entry, decompressed, dequantized or read "
            "by a library; or an object from Python): export the values as .npy instead", field="format")
    if params.strides is not None:
        raise ExportError("kerchunk references describe C-order chunks, and this tensor is a strided "
                          "view of its bytes (an entry not in C order): export the values as .npy "
                          "instead", field="format")
    packed = packed_row(params.dtype)
    dtype_name = packed.name if packed is not None else engine_name(
        resolve_dtype(params.dtype, extended_types=params.extended_types))
    if dtype_name not in _ZARR_TYPES:
        raise ExportError(_type_refusal(dtype_name), field="dtype")
    dtype = np.dtype(dtype_name)
    itemsize = dtype.itemsize
    little = bool(params.little_endian) if params.little_endian is not None else True
    typestr = "|" + dtype.str[1:] if itemsize == 1 else ("<" if little else ">") + dtype.str[1:]
    layout = result.layout
    if layout is None:
        raise ExportError("this result has no layout of its files (run the decode again)", field="format")
    values_per_element = int(result.decoded.shape[-1]) if result.decoded.ndim else 1
    used = values_per_element * itemsize
    runs = _runs(source, layout, used, params.fixed_length)
    runs, run_values = _merged(runs, used, itemsize)
    shape = tuple(int(n) for n in params.shape)
    if math.prod(shape) != len(runs) * run_values:
        raise ExportError(f"the shape {shape} does not hold the {len(runs) * run_values} decoded values "
                          "(run the decode again)", field="shape")
    chunks = _chunk_shape(shape, run_values, itemsize, chunk_bytes)
    count = math.prod(-(-n // c) for n, c in zip(shape, chunks)) if 0 not in shape else 0
    if count > MAX_REFERENCES:
        raise ExportError(
            f"the references would need {count:,} chunks of {math.prod(chunks) * itemsize:,} bytes, more "
            f"than {MAX_REFERENCES:,}: the tensor's bytes lie in {len(runs):,} runs of {run_values * itemsize:,} "
            "bytes (records with padding, or rows that do not line up with the runs) (choose a shape "
            "whose last axes are whole records, drop the padding with a record size equal to the "
            "element bytes, or export the values as .npy)", field="format")
    notes, described = [], {
        "files": [os.path.abspath(p) for p in source.paths], "dtype": dtype_name,
        "byte_order": "little" if little else "big", "offset": list(layout.starts),
        "record_size": layout.record_size, "fixed_length": params.fixed_length, "shape": list(shape)}
    spec = result.slice_spec
    if isinstance(spec, SliceSpec) and not spec.is_full:
        text = format_slice(spec)
        described["slice"] = text
        notes.append(f"the slice {text} is not part of the references: they describe the whole tensor "
                     f"{shape} (apply it after opening: z{text})")
    if params.view_as is not None:
        notes.append(f"the view as {params.view_as} is not part of the references: they describe the "
                     f"decoded {dtype_name} values")
    attributes = {"_ARRAY_DIMENSIONS": [f"dim_{i}" for i in range(len(shape))],
                  "tensor_inspector": described}
    return KerchunkPlan(name, typestr, shape, chunks, tuple(runs), run_values, itemsize, attributes,
                        tuple(notes))


def write_kerchunk(plan: KerchunkPlan, path: str | os.PathLike,
                   source_paths: Iterable[str | os.PathLike] = ()) -> int:
    """Write ``plan``'s references to ``path`` as kerchunk version-1 JSON; return the bytes
    written.

    Raises
    ------
    ExportError
        ``path`` is one of ``source_paths`` (through any link), a directory, FIFO or device, or
        the write failed (:mod:`core.files.output`).
    """
    zarray = {"zarr_format": 2, "shape": list(plan.shape), "chunks": list(plan.chunks),
              "dtype": plan.dtype, "compressor": None, "filters": None, "fill_value": None,
              "order": "C", "dimension_separator": "."}
    head = {".zgroup": json.dumps({"zarr_format": 2}), ".zattrs": json.dumps({}),
            f"{plan.name}/.zarray": json.dumps(zarray), f"{plan.name}/.zattrs": json.dumps(plan.attributes)}

    def write(out: IO[bytes]) -> None:
        out.write(b'{"version": 1, "refs": {')
        first = True
        for key, value in list(head.items()) + list(plan.references()):
            out.write(("" if first else ",\n").encode() + json.dumps(key).encode() + b": "
                      + json.dumps(value).encode())
            first = False
        out.write(b"}}\n")

    return write_atomically(path, write, source_paths)


# -- helpers ---------------------------------------------------------------------------------
def _check_name(name: str) -> None:
    if not isinstance(name, str) or not name or name.startswith(".") or any(c in name for c in "/\\\x00"):
        raise ExportError(f"the array name {name!r} cannot be a zarr array's name in the references "
                          "(use a non-empty name without '/', '\\' and a leading '.', e.g. data)", field="name")


def _type_refusal(name: str) -> str:
    if name == "bfloat16" or name.startswith("float8"):
        raw = "uint16" if name == "bfloat16" else "uint8"
        return (f"zarr v2 has no {name} type, so kerchunk references cannot describe {name} values "
                f"(decode as {raw}: the same bytes; after reading, view them with "
                f".view(ml_dtypes.{name}))")
    return (f"{name} values are decoded into wider integers, not the stored bytes, so kerchunk "
            f"references cannot describe them (decode the bytes as uint8, or export the values as .npy)")


def _runs(source: Source, layout, used: int, fixed_length: int | None) -> list[tuple[str, int]]:
    """(path, first byte) of every element's ``used`` bytes, in the decode's order."""
    runs = []
    for index, (path, start, length) in enumerate(zip(source.paths, layout.starts, layout.element_lengths)):
        if used > length:
            raise ExportError(
                f"the decode pads each element of {length} bytes to fixed_length {fixed_length}: the zero "
                "padding is a copy, not bytes of the file (choose a fixed_length of at most the element "
                "length, or export the values as .npy)", field="fixed_length")
        path = os.path.abspath(path)
        if layout.elements is not None:
            short = min(size for _offset, size in layout.elements)
            if used > short:
                raise ExportError(
                    f"the decode pads elements of {short} bytes to fixed_length {fixed_length}: the zero "
                    "padding is a copy, not bytes of the file (choose a fixed_length of at most the "
                    "shortest element, or export the values as .npy)", field="fixed_length")
            runs.extend((path, offset) for offset, _size in layout.elements)
        elif layout.record_size is not None:
            records = int(layout.arrays[index].shape[0])
            runs.extend((path, start + r * layout.record_size) for r in range(records))
        else:
            runs.append((path, start))
    return runs


def _merged(runs: list[tuple[str, int]], used: int, itemsize: int) -> tuple[list[tuple[str, int]], int]:
    """Adjacent runs of one file merged, when every merged run gets the same length; else the
    runs as they are. Returns the runs and the values in each."""
    merged: list[list] = []
    for path, start in runs:
        last = merged[-1] if merged else None
        if last is not None and last[0] == path and last[1] + last[2] == start:
            last[2] += used
        else:
            merged.append([path, start, used])
    if len({length for _, _, length in merged}) == 1:
        return [(p, s) for p, s, _ in merged], merged[0][2] // itemsize
    return runs, used // itemsize


def _chunk_shape(shape: tuple[int, ...], run_values: int, itemsize: int, chunk_bytes: int) -> tuple[int, ...]:
    """The chunk shape of the module rules."""
    if 0 in shape:
        return tuple(max(1, n) for n in shape)
    for axis in range(len(shape)):
        row = math.prod(shape[axis + 1:])
        if run_values % row or row * itemsize > MAX_CHUNK_BYTES:
            continue
        limit = max(1, chunk_bytes // (row * itemsize))
        d = _largest_divisor(math.gcd(shape[axis], run_values // row), limit)
        return (1,) * axis + (d,) + shape[axis + 1:]
    return shape  # 0-d


def _largest_divisor(number: int, limit: int) -> int:
    """The largest divisor of ``number`` that is at most ``limit`` (factors found by trial
    division up to 10**6; a larger cofactor counts as prime, which can only give a smaller one)."""
    if number <= limit:
        return number
    factors: list[tuple[int, int]] = []
    rest, p = number, 2
    while p * p <= rest and p <= _TRIAL_DIVISION:
        if rest % p == 0:
            count = 0
            while rest % p == 0:
                rest //= p
                count += 1
            factors.append((p, count))
        p += 1 if p == 2 else 2
    if rest > 1:
        factors.append((rest, 1))
    divisors = [1]
    for prime, count in factors:
        divisors = [d * prime**k for d in divisors for k in range(count + 1) if d * prime**k <= limit]
    return max(divisors)


def export_kerchunk(pipeline: object, result: PipelineResult, path: str | os.PathLike, name: str = "data", *,
                    chunk_bytes: int = CHUNK_BYTES,
                    source_paths: Iterable[str | os.PathLike] = ()) -> KerchunkPlan:
    """Write kerchunk references to ``result``'s tensor (a run of ``pipeline``: a
    :class:`~core.pipeline.pipeline.Pipeline` or its :class:`~core.files.sources.Source`) to
    ``path``, as the array ``name``; return the plan written (its ``notes`` say what the
    references leave out: the slice, the view-as type). ``path`` may not be one of the files
    read, nor of ``source_paths`` (more inspected files: a container whose entry this is).

    Raises
    ------
    ExportError
        The decode cannot be described (module rules), or ``path`` is refused or cannot be
        written (one of the inspected files, a directory, a failed write).
    """
    source = getattr(pipeline, "source", pipeline)
    if not isinstance(source, Source):
        raise ExportError(f"export_kerchunk needs the pipeline the result came from (or its source), "
                          f"not {type(pipeline).__name__}", field="format")
    plan = kerchunk_plan(source, result, name, chunk_bytes=chunk_bytes)
    write_kerchunk(plan, path, [*source.paths, *source_paths])
    return plan
