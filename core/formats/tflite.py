"""TFLite models (flatbuffers, file identifier ``TFL3``): the weights and constants by name.

Rule: every tensor of every subgraph whose buffer holds data is an entry: its name (prefixed by
the subgraph's name for subgraphs after the first), the engine type of its ``TensorType``, its
shape, and the file offset and length of its buffer's bytes. A buffer stores its bytes either
inside the flatbuffer (``Buffer.data``, a ``[ubyte]`` vector) or, in models over 2 GB, after it
(``Buffer.offset`` / ``Buffer.size``, offset from the start of the file, valid when > 1); both
are listed the same way. Extras: the operators using the tensor, the shape signature, the
subgraph and buffer numbers. TFLite stores data little-endian.

A quantized integer tensor (a scale in its ``QuantizationParameters``) has its
:attr:`~core.formats.entry.TensorEntry.quantization`: ``scale``, ``zero_point`` and, for more
than one scale, ``quantized_dimension`` as the axis. It is followed by a *computed* entry
``NAME (dequantized)``: its float32 values ``scale * (q - zero_point)``, per channel along the
quantized dimension (:mod:`core.formats.quantization`), from the format's ``values`` hook
(:func:`tflite_values`), which reads its integers with ``pread`` (a budget-checked copy); its
offset and length are the integers' bytes. Parameters that do not fit the tensor are said by the
``quantization`` extra instead (no dequantized entry).

Tensors without data (activations, inputs, outputs: computed at run time) are not entries; the
listing's metadata counts them (``tensors without stored data``), so the list holds only
tensors that have numbers to show. Types the engine cannot decode (STRING, INT4, RESOURCE,
VARIANT...) and buffers whose size does not match the shape are listed with a ``problem``.

Reading: the flatbuffer's tables are copied with ``pread`` through the
:class:`~core.formats.reader.HeaderReader`, 16 KiB pages at a time (only the pages holding the
tables read; weights are never read, and the map is never touched, so a file cut meanwhile is
"changed on disk", not ``SIGBUS``), by the small reader below, which checks every offset and
length against the file size before using it. The generated ``tflite`` package
(``Model.GetRootAs``...) was not used for listing because its accessors do no bounds checks: a
lying offset reads other bytes silently (``struct.unpack_from`` counts negative offsets from the
end) and a lying vector length makes it loop over garbage. Offsets are unsigned and forward and
the schema fixes the nesting depth (model > subgraph > tensor > quantization), so no structure
can loop; but tables may be shared (a DAG), so the walk is bounded by the file's size: every
table read and vector element walked is a step, and more than a quarter of the file's size in
steps stops it with a problem (a file whose tables are not shared never gets there). A tensor's
users keep the first 8 names and a count; at most :func:`~core.formats.reader.entry_limit`
entries are listed (the memory budget), the rest counted in a problem ("N more tensors not
listed"). Operator names come from the ``tflite``
package when it is installed (``BuiltinOperator``), else they are shown as numbers.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import os
import struct
from dataclasses import replace

import numpy as np

from core.dtypes.table import resolve_dtype
from core.files.sources import FileSource
from core.formats import listing_control
from core.formats.entry import ContainerFormat, ContainerListing, EntryValues, Quantization, TensorEntry
from core.formats.quantization import checked_quantization, dequantized_entry, dequantized_values
from core.formats.reader import HeaderReader, entry_limit, not_listed

__all__ = ["FORMAT", "MAX_ITEMS", "TENSOR_TYPES", "list_tflite", "sniff", "tflite_values"]

#: Upper bound of any vector walked (tensors of a subgraph, subgraphs, operators, operator
#: inputs): a larger count is refused as a corrupt model instead of a long walk.
MAX_ITEMS = 2_000_000

#: TFLite ``TensorType`` code -> (schema name, engine type or None when not decodable).
TENSOR_TYPES: dict[int, tuple[str, str | None]] = {
    0: ("FLOAT32", "float32"), 1: ("FLOAT16", "float16"), 2: ("INT32", "int32"),
    3: ("UINT8", "uint8"), 4: ("INT64", "int64"), 5: ("STRING", None), 6: ("BOOL", "bool"),
    7: ("INT16", "int16"), 8: ("COMPLEX64", "complex64"), 9: ("INT8", "int8"),
    10: ("FLOAT64", "float64"), 11: ("COMPLEX128", "complex128"), 12: ("UINT64", "uint64"),
    13: ("RESOURCE", None), 14: ("VARIANT", None), 15: ("UINT32", "uint32"),
    16: ("UINT16", "uint16"), 17: ("INT4", None), 18: ("BFLOAT16", "bfloat16"),
    19: ("INT2", None),
}
_WHY_NOT = {
    "STRING": "TFLite strings are stored as a count, offsets and bytes",
    "INT4": "INT4 packs two values per byte (low nibble first)",
    "INT2": "INT2 packs four values per byte",
}

# Field slots of the TFLite schema (tensorflow/compiler/mlir/lite/schema/schema.fbs).
_MODEL_VERSION, _MODEL_OPCODES, _MODEL_SUBGRAPHS, _MODEL_DESCRIPTION, _MODEL_BUFFERS = 0, 1, 2, 3, 4
_SUBGRAPH_TENSORS, _SUBGRAPH_OPERATORS, _SUBGRAPH_NAME = 0, 3, 4
_TENSOR_SHAPE, _TENSOR_TYPE, _TENSOR_BUFFER, _TENSOR_NAME = 0, 1, 2, 3
_TENSOR_QUANTIZATION, _TENSOR_IS_VARIABLE, _TENSOR_SPARSITY, _TENSOR_SIGNATURE = 4, 5, 6, 7
_QUANT_SCALE, _QUANT_ZERO_POINT, _QUANT_DIMENSION = 2, 3, 6
_BUFFER_DATA, _BUFFER_OFFSET, _BUFFER_SIZE = 0, 1, 2
_OPERATOR_OPCODE, _OPERATOR_INPUTS = 0, 1
_OPCODE_DEPRECATED, _OPCODE_CUSTOM, _OPCODE_BUILTIN = 0, 1, 3


def sniff(head: bytes, size: int) -> bool:
    """A flatbuffer with TFLite's file identifier ``TFL3`` at bytes 4 to 8."""
    return size >= 8 and head[4:8] == b"TFL3"


_STRUCTS = {fmt: struct.Struct(fmt) for fmt in ("<b", "<B", "<H", "<i", "<I", "<q", "<Q", "<f")}


class _StructureError(Exception):
    """A structure that does not fit the file; ``offset`` is the file byte where it was read."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


class _WalkLimitError(Exception):
    """The walk took more steps than the file's size allows: its tables are shared (a DAG)."""


class _Flat:
    """Bounds-checked little-endian reads of the file's bytes, copied with ``pread`` through the
    :class:`HeaderReader` a page at a time (the map is never read: a file cut meanwhile is
    "changed on disk", not ``SIGBUS``), and a walk budget bounded by the file's size.

    Budget: every table read and every element of a vector walked is a step; a file whose
    structures are not shared holds at most one 4-byte item per 4 bytes, so more than
    ``size // 4 + 1024`` steps means shared tables walked again and again: :class:`_WalkLimitError`.
    """

    PAGE = 16 << 10

    def __init__(self, reader: HeaderReader) -> None:
        self.reader = reader
        self.size = reader.size
        self._pages: dict[int, bytes] = {}
        self.steps = 0
        self.max_steps = self.size // 4 + 1024

    def step(self, count: int = 1) -> None:
        self.steps += count
        if self.steps > self.max_steps:
            raise _WalkLimitError()

    def _page(self, number: int) -> bytes:
        page = self._pages.get(number)
        if page is None:
            start = number * self.PAGE
            page = self.reader.read(start, min(self.PAGE, self.size - start), "model tables")
            self._pages[number] = page
        return page

    def bytes(self, pos: int, count: int) -> bytes:
        """``count`` bytes from ``pos`` (inside the file: checked by the callers)."""
        first, last = pos // self.PAGE, (pos + count - 1) // self.PAGE
        if count <= 0:
            return b""
        if first == last:
            page = self._page(first)
            begin = pos - first * self.PAGE
            return page[begin:begin + count]
        if last - first > 4:  # a long vector: one read, not cached
            return self.reader.read(pos, count, "model vector")
        joined = b"".join(self._page(n) for n in range(first, last + 1))
        begin = pos - first * self.PAGE
        return joined[begin:begin + count]

    def unpack(self, fmt: str, pos: int, what: str) -> int | float:
        packer = _STRUCTS[fmt]
        if pos < 0 or pos + packer.size > self.size:
            raise _StructureError(f"{what} at byte {pos} lies outside the file ({self.size} bytes)", max(pos, 0))
        number = pos // self.PAGE
        begin = pos - number * self.PAGE
        if begin + packer.size <= self.PAGE:
            return packer.unpack_from(self._page(number), begin)[0]
        return packer.unpack_from(self.bytes(pos, packer.size))[0]

    def table(self, pos: int, what: str) -> _Table:
        """The table at ``pos``, its vtable checked."""
        self.step()
        soffset = self.unpack("<i", pos, what)
        vtable = pos - soffset
        if not 0 <= vtable <= self.size - 4:
            raise _StructureError(f"{what} points to its vtable at byte {vtable}, outside the file "
                       f"({self.size} bytes)", pos)
        vsize = self.unpack("<H", vtable, f"the vtable of {what}")
        if vsize < 4 or vsize % 2 or vtable + vsize > self.size:
            raise _StructureError(f"{what} has a bad vtable (at byte {vtable}, {vsize} bytes): a corrupt or "
                       "self-referencing table", pos)
        tsize = self.unpack("<H", vtable + 2, f"the vtable of {what}")
        if tsize < 4 or pos + tsize > self.size:
            raise _StructureError(f"{what} ({tsize} bytes) reaches past the end of the file", pos)
        return _Table(self, pos, vtable, vsize, tsize, what)


class _Table:
    """One flatbuffer table; fields by schema slot, every read checked against the table."""

    def __init__(self, flat: _Flat, pos: int, vtable: int, vsize: int, tsize: int, what: str) -> None:
        self.flat, self.pos, self.vtable, self.vsize, self.tsize, self.what = flat, pos, vtable, vsize, tsize, what

    def _field(self, slot: int, width: int) -> int:
        """File position of a field, 0 when absent."""
        entry = 4 + 2 * slot
        if entry + 2 > self.vsize:
            return 0
        offset = self.flat.unpack("<H", self.vtable + entry, f"the vtable of {self.what}")
        if offset == 0:
            return 0
        if offset + width > self.tsize:
            raise _StructureError(f"field {slot} of {self.what} lies outside its table", self.pos)
        return self.pos + offset

    def scalar(self, slot: int, fmt: str, default: int | float = 0) -> int | float:
        pos = self._field(slot, _STRUCTS[fmt].size)
        return default if pos == 0 else self.flat.unpack(fmt, pos, f"field {slot} of {self.what}")

    def _target(self, slot: int) -> int:
        pos = self._field(slot, 4)
        if pos == 0:
            return 0
        return pos + self.flat.unpack("<I", pos, f"field {slot} of {self.what}")

    def table(self, slot: int, what: str) -> _Table | None:
        target = self._target(slot)
        return None if target == 0 else self.flat.table(target, what)

    def vector(self, slot: int, width: int, what: str) -> tuple[int, int]:
        """(first element's file position, count); (0, 0) when absent."""
        target = self._target(slot)
        if target == 0:
            return 0, 0
        count = self.flat.unpack("<I", target, what)
        start = target + 4
        if start + count * width > self.flat.size:
            raise _StructureError(f"{what} claims {count} elements of {width} bytes, past the end of the "
                       f"file ({self.flat.size} bytes)", target)
        return start, count

    def numbers(self, slot: int, fmt: str, what: str, limit: int = MAX_ITEMS) -> list:
        start, count = self.vector(slot, _STRUCTS[fmt].size, what)
        if count > limit:
            raise _StructureError(f"{what} has {count} elements (more than {limit}): a corrupt model", start - 4)
        if count == 0:
            return []
        self.flat.step(count)
        return list(struct.unpack_from(f"<{count}{fmt[-1]}", self.flat.bytes(start, count * _STRUCTS[fmt].size)))

    def tables(self, slot: int, what: str) -> list[int]:
        """File positions of the tables of a vector of tables (checked when read)."""
        start, count = self.vector(slot, 4, what)
        if count > MAX_ITEMS:
            raise _StructureError(f"{what} has {count} elements (more than {MAX_ITEMS}): a corrupt model", start - 4)
        if not count:
            return []
        self.flat.step(count)
        offsets = np.frombuffer(self.flat.bytes(start, 4 * count), "<u4").astype(np.int64)
        return (offsets + (start + 4 * np.arange(count, dtype=np.int64))).tolist()

    def string(self, slot: int, what: str, limit: int = 4096) -> str:
        start, count = self.vector(slot, 1, what)
        raw = self.flat.bytes(start, min(count, limit))
        text = raw.decode("utf-8", errors="replace")
        return text + ("..." if count > limit else "")


@functools.cache
def _operator_names() -> dict[int, str]:
    """``BuiltinOperator`` code -> name, from the ``tflite`` package's generated enum.

    The enum's module is loaded on its own: importing it through the package would first run
    ``tflite/__init__.py``, which imports all 188 generated modules (a quarter of a second).
    Without the package (an optional extra), operators are shown by number.
    """
    try:
        spec = importlib.util.find_spec("tflite")
    except (ImportError, ValueError):  # pragma: no cover - depends on the environment
        return {}
    if spec is None or not spec.submodule_search_locations:  # pragma: no cover
        return {}
    path = os.path.join(next(iter(spec.submodule_search_locations)), "BuiltinOperator.py")
    enum_spec = importlib.util.spec_from_file_location("_tflite_builtin_operator", path)
    if enum_spec is None or enum_spec.loader is None or not os.path.exists(path):  # pragma: no cover
        return {}
    module = importlib.util.module_from_spec(enum_spec)
    enum_spec.loader.exec_module(module)
    members = vars(module.BuiltinOperator)
    return {v: k for k, v in members.items() if isinstance(v, int) and not k.startswith("_")}


def list_tflite(reader: HeaderReader) -> ContainerListing:
    """List the weights and constants of a TFLite model (see the module docstring).

    Raises
    ------
    ContainerError
        The model's root, buffers or subgraphs cannot be read (message names the structure and
        the byte). A damaged tensor or operator goes in ``problems``; the others stay usable.
    """
    flat = _Flat(reader)
    try:
        model = flat.table(flat.unpack("<I", 0, "the root offset"), "the model table")
        buffers = model.tables(_MODEL_BUFFERS, "the buffers vector")
        subgraphs = model.tables(_MODEL_SUBGRAPHS, "the subgraphs vector")
        opcodes = _opcode_names(flat, model)
        metadata = {"version": str(model.scalar(_MODEL_VERSION, "<I")),
                    "description": model.string(_MODEL_DESCRIPTION, "the description"),
                    "subgraphs": str(len(subgraphs))}
    except _StructureError as bad:
        raise reader.error(str(bad), bad.offset, "the file is not a valid TFLite model; open it "
                           "as raw bytes with an explicit offset and dtype") from None
    except _WalkLimitError:
        raise reader.error(_walk_message(flat), 0, "the file is not a valid TFLite model; open "
                           "it as raw bytes with an explicit offset and dtype") from None
    entries: list[TensorEntry] = listing_control.collecting("tflite")
    problems: list[str] = []
    without_data = 0
    names: set[str] = set()
    limit, left_out = entry_limit(), 0
    try:
        for number, position in enumerate(subgraphs):
            where = f"subgraph {number}"
            try:
                subgraph = flat.table(position, where)
                prefix = "" if number == 0 else (subgraph.string(_SUBGRAPH_NAME, f"{where} name") or where) + "/"
                tensors = subgraph.tables(_SUBGRAPH_TENSORS, f"the tensors of {where}")
                users = _users(flat, subgraph, opcodes, where, problems, reader)
            except _StructureError as bad:
                problems.append(_problem(reader, where, bad))
                continue
            for index, tensor_position in enumerate(tensors):
                if len(entries) >= limit:
                    left_out += len(tensors) - index  # counted, not read (with data or not)
                    break
                what = f"{where} tensor {index}"
                try:
                    entry = _tensor_entry(flat, tensor_position, what, buffers, prefix,
                                          {"subgraph": number, "tensor index": index}, users.get(index))
                except _StructureError as bad:
                    problems.append(_problem(reader, what, bad))
                    continue
                if entry is None:
                    without_data += 1
                    continue
                if entry.name in names:
                    entry = _renamed(entry, f"{entry.name} (tensor {index})")
                names.add(entry.name)
                entries.append(entry)
                if entry.problem is None and entry.quantization is not None:
                    entries.append(dequantized_entry(entry))
    except _WalkLimitError:
        problems.append(reader.error(_walk_message(flat) + f"; {len(entries)} tensors listed, "
                                     "the rest not").message)
    if left_out:
        problems.append(not_listed(left_out, "tensors"))
    metadata["tensors without stored data"] = (
        f"{without_data} (activations, inputs and outputs: computed at run time, not listed)")
    return ContainerListing("tflite", reader.path, tuple(entries), metadata, tuple(problems))


def tflite_values(source: FileSource, entry: TensorEntry) -> EntryValues:
    """The format's ``values`` hook: a dequantized entry's float32 values
    (:func:`~core.formats.quantization.dequantized_values` of its stored integers).

    Raises
    ------
    ContainerError
        ``field="tensor"``: not a dequantized entry, or its quantization does not fit.
    BudgetError
        The integers and the values exceed the copy budget.
    """
    return dequantized_values(source, entry)


def _walk_message(flat: _Flat) -> str:
    return (f"its tables are walked more than {flat.max_steps} times (a quarter of its "
            f"{flat.size} bytes): they reference each other over and over (shared tables, a "
            "corrupt or hostile model), so the walk stopped")


def _problem(reader: HeaderReader, where: str, bad: _StructureError) -> str:
    """A problem line naming the container, the structure and the byte."""
    text = str(bad) if str(bad).startswith(where) else f"{where}: {bad}"
    return reader.error(text, bad.offset).message


def _renamed(entry: TensorEntry, name: str) -> TensorEntry:
    return replace(entry, name=name)


def _opcode_names(flat: _Flat, model: _Table) -> list[str]:
    builtin = _operator_names()
    names = []
    for i, position in enumerate(model.tables(_MODEL_OPCODES, "the operator codes")):
        code = flat.table(position, f"operator code {i}")
        number = max(int(code.scalar(_OPCODE_DEPRECATED, "<b")), int(code.scalar(_OPCODE_BUILTIN, "<i")))
        custom = code.string(_OPCODE_CUSTOM, f"operator code {i} custom name")
        names.append(custom if custom else builtin.get(number, f"builtin operator {number}"))
    return names


def _users(flat: _Flat, subgraph: _Table, opcodes: list[str], where: str, problems: list[str],
           reader: HeaderReader) -> dict[int, tuple[int, list[str]]]:
    """Tensor index -> the operators of the subgraph that take it as an input (the first 8 by
    name, then "and N more": memory stays bounded however many references there are)."""
    found: dict[int, list] = {}  # tensor -> [count, first 8 (name, operator number)]
    for number, position in enumerate(subgraph.tables(_SUBGRAPH_OPERATORS, f"the operators of {where}")):
        try:
            operator = flat.table(position, f"{where} operator {number}")
            code = int(operator.scalar(_OPERATOR_OPCODE, "<I"))
            name = opcodes[code] if code < len(opcodes) else f"unknown operator code {code}"
            for tensor in operator.numbers(_OPERATOR_INPUTS, "<i", f"{where} operator {number} inputs"):
                held = found.get(tensor)
                if held is None:
                    found[tensor] = held = [0, []]
                held[0] += 1
                if len(held[1]) < 8:
                    held[1].append((name, number))
        except _StructureError as bad:
            problems.append(_problem(reader, f"{where} operator {number}", bad))
    return {tensor: (count, [f"{name} (operator {n})" for name, n in first])
            for tensor, (count, first) in found.items()}


def _buffer_range(flat: _Flat, buffers: list[int], index: int, what: str,
                  position: int) -> tuple[int, int] | None:
    """(file offset, bytes) of buffer ``index``'s data, None when it has none."""
    if index >= len(buffers):
        raise _StructureError(f"{what} names buffer {index} but the model has {len(buffers)}", position)
    if index == 0:
        return None  # buffer 0 is the schema's empty sentinel
    buffer = flat.table(buffers[index], f"buffer {index}")
    start, count = buffer.vector(_BUFFER_DATA, 1, f"buffer {index} data")
    if count:
        return start, count
    offset = int(buffer.scalar(_BUFFER_OFFSET, "<Q"))
    size = int(buffer.scalar(_BUFFER_SIZE, "<Q"))
    if offset <= 1:
        return None
    if offset + size > flat.size:
        raise _StructureError(f"buffer {index} ({size} bytes from byte {offset}, past the flatbuffer) reaches "
                   f"past the end of the file ({flat.size} bytes): a truncated model", offset)
    return offset, size


def _tensor_entry(flat: _Flat, position: int, what: str, buffers: list[int], prefix: str,
                  extras: dict[str, object], users: tuple[int, list[str]] | None) -> TensorEntry | None:
    tensor = flat.table(position, what)
    buffer_index = int(tensor.scalar(_TENSOR_BUFFER, "<I"))
    found = _buffer_range(flat, buffers, buffer_index, what, position)
    if found is None:
        return None
    offset, nbytes = found
    name = prefix + (tensor.string(_TENSOR_NAME, f"{what} name") or f"tensor {extras['tensor index']}")
    shape = tuple(tensor.numbers(_TENSOR_SHAPE, "<i", f"{what} shape", limit=64))
    code = int(tensor.scalar(_TENSOR_TYPE, "<b"))
    type_name, dtype = TENSOR_TYPES.get(code, (f"type {code}", None))
    extras = dict(extras, buffer=buffer_index)
    signature = tuple(tensor.numbers(_TENSOR_SIGNATURE, "<i", f"{what} shape signature", limit=64))
    if signature:
        extras["shape signature"] = signature
    if tensor.scalar(_TENSOR_IS_VARIABLE, "<B"):
        extras["variable"] = True
    quantization = _quantization(tensor, what, extras, dtype, shape)
    if users:
        count, first = users
        extras["used by"] = ", ".join(first) + (f" and {count - 8} more" if count > 8 else "")
    problem = None
    if dtype is None:
        why = _WHY_NOT.get(type_name, f"the engine has no {type_name} type")
        problem = (f"tensor '{name}' is {type_name}: {why} (open its bytes with dtype uint8, "
                   f"offset {offset} and length {nbytes})")
    elif tensor.table(_TENSOR_SPARSITY, f"{what} sparsity") is not None:
        problem = (f"tensor '{name}' is stored sparse (TFLite sparsity: compressed indices and "
                   "values); its bytes are not the dense tensor (open them with dtype uint8)")
    else:
        expected = math.prod(shape) * _itemsize(dtype)
        if any(d < 0 for d in shape) or expected != nbytes:
            problem = (f"tensor '{name}' has shape {shape} of {type_name} ({expected} bytes) but "
                       f"its buffer {buffer_index} holds {nbytes} bytes (open them with dtype "
                       "uint8 and a shape of your own)")
    return TensorEntry(name=name, dtype=dtype, little_endian=True, shape=shape, offset=offset,
                       nbytes=nbytes, stored_type=type_name, extras=extras, problem=problem,
                       quantization=quantization)


@functools.cache
def _itemsize(dtype: str) -> int:
    return resolve_dtype(dtype).itemsize


def _quantization(tensor: _Table, what: str, extras: dict[str, object], dtype: str | None,
                  shape: tuple[int, ...]) -> Quantization | None:
    """The tensor's quantization (scales, zero points, quantized dimension), or None; parameters
    that cannot be one are said by the ``quantization`` extra."""
    quant = tensor.table(_TENSOR_QUANTIZATION, f"{what} quantization")
    if quant is None:
        return None
    scale = quant.numbers(_QUANT_SCALE, "<f", f"{what} quantization scale")
    zero = quant.numbers(_QUANT_ZERO_POINT, "<q", f"{what} quantization zero point")
    if not scale or dtype is None:
        return None  # min/max only (a float tensor's calibration), or an undecodable type
    axis = int(quant.scalar(_QUANT_DIMENSION, "<i"))
    found = checked_quantization(scale, zero, axis, dtype, shape)
    if isinstance(found, str):
        extras["quantization not used"] = found
        return None
    return found


FORMAT = ContainerFormat("tflite", sniff, list_tflite, tflite_values)
