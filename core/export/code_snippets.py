"""Copy as code: numpy and TensorFlow source that reproduces the current view.

Both functions write out a :class:`~core.pipeline.result.PipelineResult` the caller already has
(the document's, the command's), so a snippet exists only for a state the app could show, and
every default is the one the run resolved: dtype and byte order from a ``.npy`` header or
uint8 / little-endian, each file's data offset and length (the run's layout), the record count,
the target shape, and the run's slice spec. Nothing is decoded, parsed or run again. The snippets then hard-code those numbers: they reproduce *these* files as they
are now. They are self-contained (imports included, paths written with ``repr``) and nothing
here runs them.

numpy (:func:`numpy_snippet`)
    A small ``read_bytes`` helper memory-maps each file's data read-only (``np.memmap``, so
    files larger than RAM work); records are a ``reshape(n_records, record_size)`` of the
    ``n_records * record_size`` whole-record bytes (trailing bytes are left out, and a comment
    counts them); ``fixed_length`` truncates (a view) or zero-pads (a copy) the bytes of each
    element; several files are ``np.stack``-ed. Decoding is ``.view(np.dtype('>f4'))`` on the
    bytes, bool is ``bytes != 0`` (TF: any nonzero byte is True). numpy has no big-endian
    bfloat16 that prints sanely, so those bytes are viewed as ``>u2`` and turned into native
    ``ml_dtypes.bfloat16`` after slicing (one copy, of the view only). Then
    ``x = x.reshape(shape)`` when the target shape differs, and the slice as ``x[...]``
    (:func:`core.slicing.source_code.to_numpy`), or, for a spec no index expression writes (mask-only specs),
    the equivalent basic index resolved for the tensor's shape, after a comment with the
    ``tf.strided_slice`` call. numpy gives a scalar where the app shows a 0-d array.

TensorFlow (:func:`tensorflow_snippet`)
    The literal route the app models: ``tf.io.read_file``, then ``tf.strings.substr`` for each
    element (one per file, or one per record: positions ``start + record_size * tf.range(n)``),
    ``tf.stack`` for several files, then ``tf.io.decode_raw(elements, tf.float32,
    little_endian=..., fixed_length=...)``, ``tf.reshape`` and ``tf.strided_slice`` with every
    mask (:func:`core.slicing.source_code.to_tf`). Two deviations, commented in the snippet: uint32 / uint64
    (beyond TF) decode as int32 / int64 and ``tf.bitcast``; float16 with ``fixed_length`` (TF 2.21
    has no CPU kernel for it) decodes as uint16 and ``tf.bitcast``. ``tf.io.read_file`` reads
    whole files into memory.

The "view as" type of ``DecodeParams`` (a TensorBuffer conversion) is not code: it is noted in
a comment.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.dtypes.data_type import DataType
from core.dtypes.table import engine_name, resolve_dtype, type_row
from core.errors import ExportError
from core.files.sources import Source
from core.pipeline.result import PipelineResult
from core.slicing.expr import format_slice, is_expressible
from core.slicing.source_code import to_numpy, to_tf
from core.slicing.spec import SliceSpec

__all__ = ["numpy_snippet", "tensorflow_snippet"]

@dataclass(frozen=True)
class _Plan:
    """Everything a snippet needs, resolved by one pipeline run."""

    files: tuple[tuple[str, int, int], ...]  # (path, data start, data bytes used)
    record_size: int | None
    records: int | None
    trailing: tuple[int, ...]
    dtype: np.dtype  # native order
    little_endian: bool
    fixed_length: int | None
    decoded_shape: tuple[int, ...]
    shape: tuple[int, ...]
    spec: SliceSpec | None
    view_as: str | None

    @property
    def swapped(self) -> bool:
        return self.dtype.itemsize > 1 and self.little_endian != (np.little_endian)

    def summary(self) -> str:
        order = "" if self.dtype.itemsize == 1 else (
            ", little-endian" if self.little_endian else ", big-endian")
        parts = [f"{engine_name(self.dtype)}{order}"]
        starts = sorted({start for _path, start, _n in self.files})
        if starts != [0]:
            parts.append("offset " + "/".join(str(s) for s in starts))
        if self.record_size is not None:
            parts.append(f"records of {self.record_size} bytes")
        if self.fixed_length is not None:
            parts.append(f"fixed_length {self.fixed_length}")
        parts.append(f"shape {self.shape}")
        if self.spec is not None:
            parts.append(f"slice {format_slice(self.spec)}")
        return ", ".join(parts)


def _plan(source: Source, result: PipelineResult) -> _Plan:
    params = result.params
    if params.elements is not None:
        raise ExportError("code snippets for a batch of explicit element byte ranges (a TFRecord "
                          "feature) are not written yet (export the values instead)", field="format")
    if not source.on_disk:  # the snippets read files: an object in memory has no path
        raise ExportError(
            f"code snippets read files, and {source.paths[0]} is an object in memory (save it "
            "first, e.g. with core.export_values(values, 'values.npy'), or use the values "
            "themselves: inspector.show's handle.view or core.read_values)", field="format")
    spec = result.slice_spec
    if spec is not None and not isinstance(spec, SliceSpec):
        raise ExportError(f"code snippets write slices given as a SliceSpec, not {type(spec).__name__}",
                          field="slice")
    if spec is not None and len(spec) == 0:
        spec = None  # "[]": the whole tensor
    layout = result.layout
    records = layout.arrays[0].shape[0] if layout.record_size is not None else None
    return _Plan(
        files=tuple((name, start, int(array.size))
                    for name, start, array in zip(source.paths, layout.starts, layout.arrays)),
        record_size=layout.record_size,
        records=records,
        trailing=layout.trailing_bytes,
        dtype=resolve_dtype(params.dtype, extended_types=params.extended_types),
        little_endian=bool(params.little_endian),
        fixed_length=params.fixed_length,
        decoded_shape=tuple(result.decoded.shape),
        shape=tuple(result.tensor_shape),
        spec=spec,
        view_as=params.view_as,
    )


def _header(plan: _Plan, tool: str) -> list[str]:
    lines = [f"# tensor-inspector's view, reproduced with {tool}: {plan.summary()}."]
    for (path, _start, _n), extra in zip(plan.files, plan.trailing):
        if extra:
            lines.append(f"# {extra} trailing bytes of {os.path.basename(path)!r} are not decoded.")
    return lines


def _view_as_note(plan: _Plan) -> list[str]:
    if plan.view_as is None:
        return []
    return [f"# The app also views these values as {plan.view_as} (a TensorBuffer conversion: "
            "integer targets clamp, floats truncate toward zero, NaN -> 0); not done here."]


# ----------------------------------------------------------------------------- numpy
def numpy_snippet(source: Source, result: PipelineResult) -> str:
    """Python source, using numpy, that computes ``result``'s view (rules: module doc).

    Parameters
    ----------
    source
        The source ``result`` was computed from (its paths go into the snippet).
    result
        A :meth:`Pipeline.run <core.pipeline.pipeline.Pipeline.run>` result: its resolved
        parameters, layout and slice spec are written out; nothing is run again.

    Returns
    -------
    str
        Runnable source that leaves the view in the variable ``x``.

    Raises
    ------
    ExportError
        A state no snippet writes: explicit element byte ranges, an object in memory.
    """
    plan = _plan(source, result)
    bf16 = plan.dtype.name == "bfloat16" or (
        plan.view_as is not None and DataType.parse(plan.view_as) is DataType.BFLOAT16)
    lines = _header(plan, "numpy") + ["import numpy as np"]
    if bf16:
        lines.append("import ml_dtypes")
    lines += [
        "",
        "",
        "def read_bytes(path, offset, length):",
        '    """`length` bytes of `path` from `offset`, memory-mapped read-only (no copy)."""',
        "    if length == 0:",
        "        return np.zeros(0, dtype=np.uint8)",
        "    return np.memmap(path, dtype=np.uint8, mode='r', offset=offset, shape=(length,))",
        "",
    ]
    if plan.fixed_length is not None:
        lines += [
            "",
            "def fit(elements, length):",
            '    """Truncate (a view) or zero-pad (a copy) the bytes of each element to `length`,',
            "    as decode_raw's fixed_length does (before any byte swapping).\"\"\"",
            "    if elements.shape[-1] >= length:",
            "        return elements[..., :length]",
            "    missing = length - elements.shape[-1]",
            "    padding = np.zeros(elements.shape[:-1] + (missing,), dtype=np.uint8)",
            "    return np.concatenate([elements, padding], axis=-1)",
            "",
        ]
    lines.append("")
    element = "read_bytes(path, start, length)"
    if plan.record_size is not None:
        element += f".reshape({plan.records}, {plan.record_size})"
    if plan.fixed_length is not None:
        element = f"fit({element}, {plan.fixed_length})"
    what = (f"{plan.records} records of {plan.record_size} bytes"
            if plan.record_size is not None else "one element")
    if len(plan.files) == 1:
        path, start, length = plan.files[0]
        lines += [f"path, start, length = {path!r}, {start}, {length}  # {what}",
                  f"raw = {element}"]
    else:
        lines.append(f"files = [  # (path, data offset, data bytes): {what} per file")
        lines += [f"    ({path!r}, {start}, {length})," for path, start, length in plan.files]
        lines += ["]", f"raw = np.stack([{element} for path, start, length in files])"]
    lines += _numpy_decode(plan)
    if plan.shape != plan.decoded_shape:
        lines.append(f"x = x.reshape({plan.shape})")
    lines += _numpy_slice(plan)
    if bf16 and plan.swapped:
        lines.append("x = np.asarray(x).astype(np.uint16).view(ml_dtypes.bfloat16)"
                     "  # native order: a copy of the view")
    lines += _numpy_view_as(plan)
    return "\n".join(lines) + "\n"


def _numpy_view_as(plan: _Plan) -> list[str]:
    """numpy lines applying TensorBuffer.create_from's rules (docs/semantics.md §6) for "view as"."""
    if plan.view_as is None:
        return []
    target = DataType.parse(plan.view_as)
    source = DataType.parse(plan.dtype)
    lines = [f"# View as {target} (TensorBuffer.create_from rules: integer targets clamp to their "
             "range, floats truncate toward zero, NaN -> 0)"]
    if source.is_complex and not target.is_complex:
        lines.append("x = np.real(x)  # complex sources give their real part")
    name = _numpy_type_name(target.numpy_dtype)
    if target.is_floating or target.is_complex:
        return lines + [f"x = np.asarray(x).astype({name})"]
    lo, hi = target.int_range
    if source.is_floating or source.is_complex:
        lines += [
            "f = np.nan_to_num(np.asarray(x, dtype=np.float64), nan=0.0)",
            f"x = np.trunc(np.clip(f, {float(lo)!r}, {float(hi)!r})).astype({name})",
        ]
        if target.numpy_dtype.itemsize == 8:  # 2**63 / 2**64 do not fit: saturate explicitly
            lines.append(f"x[f >= {float(hi)!r}] = {hi}")
        return lines
    src_lo, src_hi = source.int_range
    lines.append(f"x = np.clip(np.asarray(x), {max(lo, src_lo)}, {min(hi, src_hi)}).astype({name})")
    return lines


def _numpy_type_name(dtype: np.dtype) -> str:
    return type_row(engine_name(dtype)).numpy_code


def _numpy_decode(plan: _Plan) -> list[str]:
    order = "<" if plan.little_endian else ">"
    if plan.dtype.kind == "b":
        return ["x = raw != 0  # decode_raw bool: any nonzero byte is True"]
    if plan.dtype.name == "bfloat16":
        if plan.swapped:
            return [f"x = raw.view({order + 'u2'!r})  # big-endian bfloat16 bits; made "
                    "bfloat16 after slicing"]
        return ["x = raw.view(ml_dtypes.bfloat16)"]
    text = plan.dtype.newbyteorder(order).str if plan.dtype.itemsize > 1 else plan.dtype.str
    return [f"x = raw.view(np.dtype({text!r}))  # decode_raw: {engine_name(plan.dtype)}"]


def _numpy_slice(plan: _Plan) -> list[str]:
    spec = plan.spec
    if spec is None:
        return []
    if is_expressible(spec):
        return [f"x = {to_numpy(spec, 'x')}"]
    index = spec.analyze(plan.shape).plan.index
    return [
        f"# {to_tf(spec, 'x')}",
        f"# has no index expression; for shape {plan.shape} it selects:",
        f"x = x[{_index_text(index)}]",
    ]


def _index_text(index: tuple[Any, ...]) -> str:
    items = []
    for item in index:
        if item is None:
            items.append("np.newaxis")
        elif item is Ellipsis:
            items.append("...")
        elif isinstance(item, slice):
            text = ("" if item.start is None else str(item.start)) + ":" + (
                "" if item.stop is None else str(item.stop))
            if item.step not in (None, 1):
                text += f":{item.step}"
            items.append(text)
        else:
            items.append(str(int(item)))
    return ", ".join(items)


# ----------------------------------------------------------------------------- tensorflow
def tensorflow_snippet(source: Source, result: PipelineResult) -> str:
    """Python source, using TensorFlow, that computes ``result``'s view (rules: module doc).

    Parameters and errors are those of :func:`numpy_snippet`; the result leaves the view, a
    ``tf.Tensor``, in the variable ``x``.
    """
    plan = _plan(source, result)
    name = engine_name(plan.dtype)
    lines = _header(plan, "TensorFlow") + ["import tensorflow as tf", "", ""]
    if plan.record_size is not None:
        lines += [
            "def read_elements(path, start, count, size):",
            '    """`count` records of `size` bytes of `path` from `start`, as strings."""',
            "    positions = start + size * tf.range(count, dtype=tf.int64)",
            "    return tf.strings.substr(tf.io.read_file(path), positions,",
            "                             tf.fill([count], tf.constant(size, tf.int64)))",
        ]
        call = f"read_elements({{path}}, {{start}}, {plan.records}, {plan.record_size})"
    else:
        lines += [
            "def read_elements(path, start, length):",
            '    """`length` bytes of `path` from `start`, as one string."""',
            "    return tf.strings.substr(tf.io.read_file(path), start, length)",
        ]
        call = "read_elements({path}, {start}, {length})"
    lines += ["", ""]
    if len(plan.files) == 1:
        path, start, length = plan.files[0]
        lines.append("elements = " + call.format(path=repr(path), start=start, length=length))
    else:
        lines.append("elements = tf.stack([")
        lines += ["    " + call.format(path=repr(path), start=start, length=length) + ","
                  for path, start, length in plan.files]
        lines.append("])")
    decode_type, bitcast = name, None
    if name in ("uint32", "uint64"):
        decode_type, bitcast = name[1:], name
        lines.append(f"# {name} is beyond decode_raw: decode as {decode_type}, then bitcast.")
    elif name == "float16" and plan.fixed_length is not None:
        decode_type, bitcast = "uint16", name
        lines.append("# TF 2.21 has no CPU kernel for half with fixed_length: decode as uint16, "
                     "then bitcast.")
    arguments = [f"elements, {type_row(decode_type).tf_code}"]
    if plan.dtype.itemsize > 1:
        arguments.append(f"little_endian={plan.little_endian}")
    if plan.fixed_length is not None:
        arguments.append(f"fixed_length={plan.fixed_length}")
    lines.append(f"x = tf.io.decode_raw({', '.join(arguments)})")
    if bitcast is not None:
        lines.append(f"x = tf.bitcast(x, {type_row(bitcast).tf_code})")
    if plan.shape != plan.decoded_shape:
        lines.append(f"x = tf.reshape(x, {list(plan.shape)})")
    if plan.spec is not None:
        lines.append(f"x = {to_tf(plan.spec, 'x')}")
    lines += _view_as_note(plan)
    return "\n".join(lines) + "\n"
