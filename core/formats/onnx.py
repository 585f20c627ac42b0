"""ONNX models (``.onnx``): the initializers and ``Constant`` node tensors, by name.

The model is a protobuf ``ModelProto``, walked by the project's one wire-format walker
(:func:`core.formats.tfrecord_wire.fields`) over a :class:`~core.formats.tfrecord_wire.FileWindow`:
every byte read is a bounded ``pread`` of :class:`~core.formats.reader.HeaderReader` (never the
map), a length-delimited value the listing does not need (``raw_data``, ``doc_string``) is
skipped unread, and every length is checked against its enclosing message, whose end is checked
against the file's size. The ``onnx`` package is not used (it loads the whole model into memory
and stops at 2 GB). The schema walked (field numbers of ``onnx.proto``)::

    ModelProto       { int64 ir_version = 1; GraphProto graph = 7; ... }
    GraphProto       { repeated NodeProto node = 1; repeated TensorProto initializer = 5; }
    NodeProto        { repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4;
                       repeated AttributeProto attribute = 5; string domain = 7; }
    AttributeProto   { string name = 1; float f = 2; int64 i = 3; TensorProto t = 5;
                       GraphProto g = 6; repeated float floats = 7; repeated int64 ints = 8;
                       repeated GraphProto graphs = 11; }
    TensorProto      { repeated int64 dims = 1; int32 data_type = 2; float_data = 4;
                       int32_data = 5; string_data = 6; int64_data = 7; string name = 8;
                       bytes raw_data = 9; double_data = 10; uint64_data = 11;
                       repeated StringStringEntryProto external_data = 13; data_location = 14; }

Rules for the entries:

- An **initializer** is named as in the graph; a ``Constant`` node's tensor (its ``value``
  attribute; ``value_float``, ``value_floats``, ``value_int``, ``value_ints`` too) by the node's
  output. Tensors of a subgraph (a ``GRAPH`` attribute: ``If``'s branches, ``Loop``'s and
  ``Scan``'s bodies) are named ``<node>/<attribute>/<name>`` (``<node>`` is the node's name, else
  ``<op_type>_<index>``; a ``GRAPHS`` list adds the position), nested at most
  :data:`MAX_GRAPH_DEPTH` deep.
- The shape is ``dims`` (C order), the byte order little-endian (ONNX's rule for ``raw_data`` and
  external data).
- ``raw_data`` is a byte range of the file: a **view**. So is external data
  (``data_location`` EXTERNAL, ``external_data`` ``location``/``offset``/``length``): a view of the
  sibling file, whose path must be relative and stay in the model's folder, exist, and hold the
  range. So is a ``float_data``/``double_data`` written as one packed run (little-endian float32 /
  float64 elements back to back; complex values as real, imaginary pairs).
- The other typed fields store varints (``int32_data``, ``int64_data``, ``uint64_data``), or several
  runs: a **copy** entry, decoded by :func:`onnx_values` after a budget check. ``int32_data``
  holds float16 and bfloat16 values as their bit patterns in the low 16 bits, the float8 types'
  in the low 8 bits, and int4/uint4 as one byte of two values per element (ONNX's rules).
- int4/uint4 are packed two per byte, low nibble first (the engine's int4/uint4): a view when
  their count is even; an odd count's last high nibble is padding, so it is a copy (unpacked,
  trimmed).
- STRING tensors, FLOAT4E2M1, the 2- and 6-bit types and segmented tensors are listed with a
  problem (no engine type; ``--dtype uint8`` shows their bytes when they have a range).

- An initializer (or Constant) that is input ``x`` of a ``DequantizeLinear`` node is
  **quantized**: its :attr:`~core.formats.entry.TensorEntry.quantization` is the node's
  ``x_scale`` and ``x_zero_point`` tensors (read at listing, at most
  :data:`~core.formats.quantization.MAX_CHANNELS` values each; no zero point: 0) and its ``axis``
  attribute (default 1), and a computed ``NAME (dequantized)`` entry follows it
  (:mod:`core.formats.quantization`; its integers decoded as the entry's own, by
  :func:`onnx_values`). The first node of an ``x`` decides; a blocked node (``block_size``) or
  parameters that are not tensors of the model, or do not fit, are said by the ``quantization
  not used`` extra. The node fields read for it: ``input = 1`` and the ``i`` of its attributes.

Malformed structure (a length past its message or the file, a varint over 10 bytes, a group, a
field number 0, subgraphs nested deeper than :data:`MAX_GRAPH_DEPTH`) stops the listing with one
:class:`~core.errors.ContainerError` naming the file and the byte; a bad tensor (a type, dims or
data that disagree) is an entry with its problem, the others stay usable.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field, replace

import numpy as np

from core.dtypes.table import resolve_dtype, type_row
from core.errors import CoreError
from core.files.locations import exists, file_size, folder_of, inside
from core.formats.entry import (
    ContainerFormat,
    ContainerListing,
    Quantization,
    Storage,
    TensorEntry,
)
from core.formats.onnx_values import FIELD_NUMBERS, VARINT_FIELDS, integers_or_values, onnx_values, stored_bytes
from core.formats.quantization import (
    MAX_CHANNELS,
    checked_quantization,
    dequantized_entry,
)
from core.formats.reader import HeaderReader, entry_limit, not_listed
from core.formats.tfrecord_wire import FileWindow, WireError, fields, varint
from core.text.names import printable_name

__all__ = ["FORMAT", "MAX_GRAPH_DEPTH", "ONNX_TYPES", "list_onnx", "onnx_values", "sniff"]

#: Subgraphs (of If, Loop, Scan... nodes) nested deeper than this stop the listing.
MAX_GRAPH_DEPTH = 16
#: At most this many dims (numpy's limit).
_MAX_DIMS = 64
#: Strings of the structure (names, external_data values) longer than this are refused.
_MAX_TEXT = 65536
#: A message up to this size is read at once, then walked in memory.
_READ_WHOLE = 65536

#: ONNX ``TensorProto.DataType`` -> (ONNX name, engine type or None, typed field holding it).
ONNX_TYPES: dict[int, tuple[str, str | None, str]] = {
    1: ("FLOAT", "float32", "float_data"), 2: ("UINT8", "uint8", "int32_data"),
    3: ("INT8", "int8", "int32_data"), 4: ("UINT16", "uint16", "int32_data"),
    5: ("INT16", "int16", "int32_data"), 6: ("INT32", "int32", "int32_data"),
    7: ("INT64", "int64", "int64_data"), 8: ("STRING", None, "string_data"),
    9: ("BOOL", "bool", "int32_data"), 10: ("FLOAT16", "float16", "int32_data"),
    11: ("DOUBLE", "float64", "double_data"), 12: ("UINT32", "uint32", "uint64_data"),
    13: ("UINT64", "uint64", "uint64_data"), 14: ("COMPLEX64", "complex64", "float_data"),
    15: ("COMPLEX128", "complex128", "double_data"), 16: ("BFLOAT16", "bfloat16", "int32_data"),
    17: ("FLOAT8E4M3FN", "float8_e4m3fn", "int32_data"),
    18: ("FLOAT8E4M3FNUZ", "float8_e4m3fnuz", "int32_data"),
    19: ("FLOAT8E5M2", "float8_e5m2", "int32_data"),
    20: ("FLOAT8E5M2FNUZ", "float8_e5m2fnuz", "int32_data"),
    21: ("UINT4", "uint4", "int32_data"), 22: ("INT4", "int4", "int32_data"),
    23: ("FLOAT4E2M1", None, "int32_data"), 24: ("FLOAT8E8M0", "float8_e8m0fnu", "int32_data"),
    25: ("UINT2", None, "int32_data"), 26: ("INT2", None, "int32_data"),
    27: ("FLOAT6E2M3", None, "int32_data"), 28: ("FLOAT6E3M2", None, "int32_data"),
}

# ModelProto's fields and their wire types, for the sniff (writers emit them in number order)
_MODEL_WIRES = {1: 0, 2: 2, 3: 2, 4: 2, 5: 0, 6: 2, 7: 2, 8: 2, 14: 2, 20: 2, 25: 2}


class _TooDeepError(WireError):
    """Subgraphs nested deeper than :data:`MAX_GRAPH_DEPTH`."""


# -- sniff ----------------------------------------------------------------------------------------
def sniff(head: bytes, size: int) -> bool:
    """An ONNX model has no magic (the registry claims it only for a ``.onnx`` name): its first
    field is ``ir_version`` (field 1, a varint of 1 to 100), then only ModelProto fields with
    their wire types, up to ``graph`` (field 7) or up to a length-delimited field that reaches
    past the first bytes. A length past the end of the file is still claimed, so that a cut
    model is listed with the message that says so, not shown as raw bytes."""
    if len(head) < 4 or head[0] != 0x08:
        return False
    try:
        version, pos = varint(head, 1, len(head))
        if not 1 <= version <= 100:
            return False
        while pos < len(head):
            key, pos = varint(head, pos, len(head))
            number, wire = key >> 3, key & 7
            if _MODEL_WIRES.get(number) != wire:
                return False
            if wire == 0:
                _, pos = varint(head, pos, len(head))
                continue
            length, pos = varint(head, pos, len(head))
            if number == 7 or pos + length > len(head):
                return True  # a graph past the end of the file is claimed: listing says "truncated"
            pos += length
    except WireError:
        return False
    return False


# -- the structure walked ---------------------------------------------------------------------------
@dataclass
class _Tensor:
    """What the listing needs of one TensorProto (offsets are file offsets)."""

    start: int
    end: int
    name: str = ""
    data_type: int = 0
    dims: list[int] = field(default_factory=list)
    raw: tuple[int, int] | None = None
    runs: dict[int, list[tuple[int, int, int, int]]] = field(default_factory=dict)  # key, wire, start, end
    strings: int = 0
    external: dict[str, str] = field(default_factory=dict)
    location: int = 0
    segmented: bool = False
    problem: str | None = None


@dataclass(frozen=True)
class _Dequantize:
    """A DequantizeLinear node: its graph's prefix, its label and inputs, ``axis`` and
    ``block_size`` (0: not blocked)."""

    prefix: str
    label: str
    x: str
    scale: str
    zero_point: str
    axis: int
    block_size: int


class _Walker:
    """One listing: the reader, the window over the file, the entries found so far."""

    def __init__(self, reader: HeaderReader) -> None:
        self.reader = reader
        self.window = FileWindow(lambda offset, nbytes: reader.read(offset, nbytes, "protobuf field"),
                                 reader.size)
        self.entries: list[TensorEntry] = []
        self.names: dict[str, int] = {}
        self.limit = entry_limit()
        self.left_out = 0
        self.folder = folder_of(reader.path)
        self.files: dict[str, int | str] = {}  # external data files: size or problem, once each
        self.dequantize: list[_Dequantize] = []  # the DequantizeLinear nodes, in the walk's order

    # -- reading --------------------------------------------------------------------------------------
    def message(self, start: int, end: int) -> tuple[object, int]:
        """``(data, base)`` to walk the message at file bytes ``start:end``: its bytes when small
        (positions from ``start``), else the window (file positions)."""
        if end - start <= _READ_WHOLE:
            return self.window[start:end], start
        return self.window, 0

    def text(self, data, start: int, end: int, base: int, what: str) -> str:
        if end - start > _MAX_TEXT:
            raise WireError(f"{what} of {end - start} bytes (at most {_MAX_TEXT})", base + start)
        return bytes(data[start:end]).decode("utf-8", errors="replace")

    def add(self, entry: TensorEntry) -> None:
        if len(self.entries) >= self.limit:
            self.left_out += 1
            return
        if entry.name in self.names:
            entry = _with_problem(entry, f"another tensor of the model is named '{printable_name(entry.name)}' "
                                         f"(listed first, at byte {self.names[entry.name]}): "
                                         "the model is not valid ONNX; that one opens by this name")
        else:
            self.names[entry.name] = entry.offset
        self.entries.append(entry)

    # -- the walk ------------------------------------------------------------------------------------
    def model(self) -> dict[str, str]:
        metadata: dict[str, str] = {}
        opsets = []
        graphs: deque[tuple[int, int, str, int]] = deque()
        data, size = self.window, self.reader.size
        texts = {2: "producer", 3: "producer version", 4: "domain"}
        for number, wire, vs, ve in fields(data, 0, size):
            if number == 1 and wire == 0:
                metadata["ir_version"] = str(varint(data, vs, ve)[0])
            elif number in texts and wire == 2:
                metadata[texts[number]] = self.text(data, vs, ve, 0, texts[number])[:200]
            elif number == 5 and wire == 0:
                metadata["model version"] = str(varint(data, vs, ve)[0])
            elif number == 8 and wire == 2:
                opsets.append(self.opset(vs, ve))
            elif number == 7 and wire == 2:
                graphs.append((vs, ve, "", 0))
        if opsets:
            metadata["opsets"] = ", ".join(opsets)
        if not graphs:
            raise WireError("the model has no graph (field 7): not an ONNX model", 0)
        while graphs:
            self.graph(*graphs.popleft(), graphs)
        return metadata

    def opset(self, start: int, end: int) -> str:
        data, base = self.message(start, end)
        domain, version = "ai.onnx", 0
        for number, wire, vs, ve in fields(data, start - base, end - base, base):
            if number == 1 and wire == 2 and ve > vs:
                domain = self.text(data, vs, ve, base, "an opset domain")[:100]
            elif number == 2 and wire == 0:
                version = varint(data, vs, ve, base)[0]
        return f"{domain} {version}"

    def graph(self, start: int, end: int, prefix: str, depth: int, graphs: deque) -> None:
        window = self.window
        index = 0
        for number, wire, vs, ve in fields(window, start, end):
            if wire != 2:
                continue
            if number == 5:
                tensor = self.tensor(vs, ve)
                self.add(self.entry(prefix + tensor.name, tensor, "initializer"))
            elif number == 1:
                self.node(vs, ve, prefix, depth, index, graphs)
                index += 1
            elif number == 15:
                self.sparse(vs, ve, prefix)

    def node(self, start: int, end: int, prefix: str, depth: int, index: int, graphs: deque) -> None:
        data, base = self.message(start, end)
        s, e = start - base, end - base
        output = name = op_type = domain = ""
        attributes = []
        inputs: list[str] = []
        for number, wire, vs, ve in fields(data, s, e, base):
            if wire != 2:
                continue
            if number == 1 and len(inputs) < 3:
                inputs.append(self.text(data, vs, ve, base, "a node input name"))
            elif number == 2 and not output:
                output = self.text(data, vs, ve, base, "a node output name")
            elif number == 3:
                name = self.text(data, vs, ve, base, "a node name")
            elif number == 4:
                op_type = self.text(data, vs, ve, base, "an op_type")
            elif number == 7:
                domain = self.text(data, vs, ve, base, "a node domain")
            elif number == 5:
                attributes.append((vs, ve))
        label = name or f"{op_type}_{index}"
        if op_type == "DequantizeLinear" and domain in ("", "ai.onnx") and len(inputs) >= 2 and inputs[0]:
            numbers = self.int_attributes(data, attributes, base)
            self.dequantize.append(_Dequantize(prefix, label, inputs[0], inputs[1],
                                               inputs[2] if len(inputs) > 2 else "",
                                               numbers.get("axis", 1), numbers.get("block_size", 0)))
        constant = op_type == "Constant" and domain in ("", "ai.onnx")
        for vs, ve in attributes:
            self.attribute(data, vs, ve, base, constant, prefix, output or label, label, depth, graphs)

    def int_attributes(self, data, attributes: list, base: int) -> dict[str, int]:
        """The INT attributes of a node (name -> ``i``), for DequantizeLinear's ``axis``."""
        found: dict[str, int] = {}
        for start, end in attributes:
            name, value = "", None
            for number, wire, vs, ve in fields(data, start, end, base):
                if number == 1 and wire == 2:
                    name = self.text(data, vs, ve, base, "an attribute name")
                elif number == 3 and wire == 0:
                    value = varint(data, vs, ve, base)[0]
            if name and value is not None:
                found[name] = value - (1 << 64) if value >= 1 << 63 else value
        return found

    def attribute(self, data, start: int, end: int, base: int, constant: bool, prefix: str,
                  output: str, label: str, depth: int, graphs: deque) -> None:
        name = ""
        found = []  # (number, wire, value start, value end, key start), positions in data
        previous = start
        for number, wire, vs, ve in fields(data, start, end, base):
            if number == 1 and wire == 2:
                name = self.text(data, vs, ve, base, "an attribute name")
            else:
                found.append((number, wire, vs, ve, previous))
            previous = ve
        subgraphs = [(vs, ve) for number, wire, vs, ve, _ in found if number in (6, 11) and wire == 2]
        many = any(number == 11 for number, *_ in found)
        for k, (vs, ve) in enumerate(subgraphs):
            if depth + 1 > MAX_GRAPH_DEPTH:
                raise _TooDeepError(f"subgraphs are nested more than {MAX_GRAPH_DEPTH} deep", base + vs)
            inner = f"{prefix}{label}/{name}/" + (f"{k}/" if many else "")
            graphs.append((base + vs, base + ve, inner, depth + 1))
        if constant:
            self.constant(data, base, name, found, prefix + output, label)

    def constant(self, data, base: int, name: str, found: list, entry_name: str, label: str) -> None:
        where = {"in": f"Constant node '{printable_name(label)}'"}
        if name == "value":
            for number, wire, vs, ve, _ in found:
                if number == 5 and wire == 2:
                    self.add(self.entry(entry_name, self.tensor(base + vs, base + ve), where["in"]))
            return
        kinds = {"value_float": (2, "float32", "FLOAT", "f", ()), "value_floats": (7, "float32", "FLOAT", "floats", None),
                 "value_int": (3, "int64", "INT64", "i", ()), "value_ints": (8, "int64", "INT64", "ints", None)}
        if name not in kinds:
            if name in ("value_string", "value_strings", "sparse_value"):
                self.add(TensorEntry(entry_name, None, True, (), base, 0, name, where,
                                     problem=f"a Constant's {name} is not a dense numeric tensor: not shown"))
            return
        number, dtype, stored, field_name, shape = kinds[name]
        runs = [(base + key, wire, base + vs, base + ve) for n, wire, vs, ve, key in found if n == number]
        if not runs:
            return
        tensor = _Tensor(runs[0][2], runs[-1][3], data_type=1 if dtype == "float32" else 7)
        tensor.runs[number] = runs
        count = self.count(field_name, runs)
        tensor.dims = [count] if shape is None else []
        self.add(self.typed(entry_name, tensor, dict(where), field_name, dtype, stored))

    def count(self, field_name: str, runs) -> int:
        """Values of an attribute's f/floats/i/ints runs (varints are counted: attributes are
        small)."""
        if field_name in ("f", "floats"):
            return sum((e - s) // 4 for _, _, s, e in runs)
        total = 0
        for _, wire, s, e in runs:
            total += 1 if wire == 0 else len(self.window[s:e].translate(None, bytes(range(128, 256))))
        return total

    def sparse(self, start: int, end: int, prefix: str) -> None:
        """A sparse initializer: its ``values`` and ``indices`` tensors, named after the values."""
        parts = {}
        for number, wire, vs, ve in fields(self.window, start, end):
            if number in (1, 2) and wire == 2:
                parts[number] = self.tensor(vs, ve)
        values = parts.get(1)
        name = prefix + (values.name if values is not None else f"sparse@{start}")
        for number, tensor in sorted(parts.items()):
            part = "values" if number == 1 else "indices"
            self.add(self.entry(f"{name}/{part}", tensor, f"sparse initializer ({part})"))

    def tensor(self, start: int, end: int) -> _Tensor:
        """The TensorProto at file bytes ``start:end`` (its data skipped, unread)."""
        tensor = _Tensor(start, end)
        data, base = self.message(start, end)
        previous = start - base
        for number, wire, vs, ve in fields(data, start - base, end - base, base):
            key = previous
            previous = ve
            if number == 1:
                self.dims(tensor, data, wire, vs, ve, base)
            elif number == 2 and wire == 0:
                tensor.data_type = varint(data, vs, ve, base)[0]
            elif number == 3:
                tensor.segmented = True
            elif number in (4, 5, 7, 10, 11):
                tensor.runs.setdefault(number, []).append((base + key, wire, base + vs, base + ve))
            elif number == 6:
                tensor.strings += 1
                tensor.runs.setdefault(6, []).append((base + key, wire, base + vs, base + ve))
            elif number == 8 and wire == 2:
                tensor.name = self.text(data, vs, ve, base, "a tensor name")
            elif number == 9 and wire == 2:
                tensor.raw = (base + vs, base + ve)
            elif number == 13 and wire == 2:
                key_text = value_text = ""
                for n2, w2, s2, e2 in fields(data, vs, ve, base):
                    if n2 == 1 and w2 == 2:
                        key_text = self.text(data, s2, e2, base, "an external_data key")
                    elif n2 == 2 and w2 == 2:
                        value_text = self.text(data, s2, e2, base, "an external_data value")
                tensor.external[key_text] = value_text
            elif number == 14 and wire == 0:
                tensor.location = varint(data, vs, ve, base)[0]
        return tensor

    def dims(self, tensor: _Tensor, data, wire: int, start: int, end: int, base: int) -> None:
        if wire == 0:
            values = [varint(data, start, end, base)[0]]
        elif wire == 2:
            values, pos = [], start
            while pos < end and len(values) <= _MAX_DIMS:
                value, pos = varint(data, pos, end, base)
                values.append(value)
        else:
            tensor.problem = f"its dims have wire type {wire}"
            return
        for value in values:
            tensor.dims.append(value - (1 << 64) if value >= 1 << 63 else value)
        if len(tensor.dims) > _MAX_DIMS:
            tensor.problem = f"it has more than {_MAX_DIMS} dims"

    # -- entries -------------------------------------------------------------------------------------
    def entry(self, name: str, tensor: _Tensor, where: str) -> TensorEntry:
        extras: dict[str, object] = {"in": where}
        known = ONNX_TYPES.get(tensor.data_type)
        stored = known[0] if known else f"data type {tensor.data_type}"
        shape = tuple(d for d in tensor.dims if d >= 0)
        if tensor.problem or known is None or tensor.segmented or any(d < 0 for d in tensor.dims):
            why = tensor.problem or (f"its data type {tensor.data_type} is not an ONNX element type" if known is None
                                     else "it is segmented (the segment field), which ONNX no longer writes"
                                     if tensor.segmented else f"its dims {tuple(tensor.dims)} are negative")
            return TensorEntry(name, None, True, shape, tensor.start, 0, stored, extras,
                               problem=f"tensor '{printable_name(name)}': {why}")
        onnx_name, dtype, field_name = known
        count = math.prod(shape)
        if tensor.location == 1:
            return self.external(name, tensor, extras, dtype, onnx_name, count)
        if tensor.raw is not None:
            extras["stored in"] = "raw_data"
            start, end = tensor.raw
            return self.ranged(name, shape, dtype, onnx_name, extras, start, end - start, count, None)
        number = FIELD_NUMBERS.get(field_name, 6)
        if tensor.runs.get(number) or count:
            return self.typed(name, tensor, extras, field_name, dtype, onnx_name)
        extras["stored in"] = "nothing (no values)"
        return self.ranged(name, shape, dtype, onnx_name, extras, tensor.end, 0, 0, None)

    def ranged(self, name, shape, dtype, onnx_name, extras, offset: int, nbytes: int, count: int,
               file: str | None) -> TensorEntry:
        """A tensor whose elements are the ``nbytes`` from ``offset``: a view (or, for an odd
        count of int4/uint4, a copy), else an entry with the problem."""
        if dtype is None:
            return TensorEntry(name, None, True, shape, offset, nbytes, onnx_name, extras, file=file,
                               problem=f"tensor '{printable_name(name)}' is {onnx_name}, which the tool cannot "
                               "decode yet (--dtype uint8 shows its bytes)" if onnx_name != "STRING" else
                               f"tensor '{printable_name(name)}' is a STRING tensor: strings are not decoded")
        row = type_row(dtype)
        needed = (count * row.stored_bits + 7) // 8
        if nbytes != needed:
            return TensorEntry(name, dtype, True, shape, offset, nbytes, onnx_name, extras, file=file,
                               problem=f"tensor '{printable_name(name)}' holds {nbytes} bytes of data, but "
                               f"{onnx_name} dims {shape} need {needed} (the model is damaged; --dtype uint8 shows "
                               "the bytes)")
        odd = row.packed and count % 2
        return TensorEntry(name, dtype, True, shape, offset, nbytes, onnx_name, extras, file=file,
                           storage=Storage.COPY if odd else Storage.VIEW)

    def data_file(self, location: str) -> int | str:
        """The size of the external data file ``location``, or why it cannot be used (the
        words after the tensor's name in its problem)."""
        shown = printable_name(location)
        resolved = inside(self.folder, location)
        if resolved is None:
            return (f"names its external data file '{shown}', which is not inside the model's folder (an "
                    "ONNX model may name only files beside it or below it; copy the file there)")
        size = file_size(resolved)
        if size is None and exists(resolved):
            return f"is stored in '{shown}', which is not a regular file"
        if size is None:
            return f"is stored in '{shown}', which is missing beside the model (in '{printable_name(self.folder)}')"
        return size

    def external(self, name, tensor: _Tensor, extras, dtype, onnx_name, count) -> TensorEntry:
        info = tensor.external
        location = info.get("location", "")
        extras["stored in"] = "external data"
        shape = tuple(tensor.dims)

        def broken(why: str) -> TensorEntry:
            return TensorEntry(name, dtype, True, shape, 0, 0, onnx_name, extras, file=location or None,
                               problem=f"the onnx file '{printable_name(self.reader.path)}': tensor "
                               f"'{printable_name(name)}' {why}")

        if not location:
            return broken("is stored as external data but names no location")
        try:
            offset = int(info.get("offset", "0"))
            length = int(info["length"]) if "length" in info else None
        except ValueError:
            return broken("has an external_data offset or length that is not a number")
        found = self.files.get(location)
        if found is None:
            found = self.files[location] = self.data_file(location)
        if isinstance(found, str):
            return broken(found)
        size = found
        if dtype is None:
            return broken(f"is {onnx_name}, which the tool cannot decode")
        needed = (count * type_row(dtype).stored_bits + 7) // 8
        length = needed if length is None else length
        if offset < 0 or length < 0 or offset + length > size:
            return broken(f"has external data of {length} bytes from byte {offset} of "
                          f"'{printable_name(location)}', past its end ({size} bytes)")
        return self.ranged(name, shape, dtype, onnx_name, extras, offset, length, count, location)

    def typed(self, name, tensor: _Tensor, extras, field_name: str, dtype, onnx_name) -> TensorEntry:
        """A tensor stored in its typed field: a view for one packed run of fixed-width
        values, else a copy; a problem when the type cannot be shown."""
        shape = tuple(tensor.dims)
        number = FIELD_NUMBERS.get(field_name, 6)
        runs = tensor.runs.get(number, [])
        extras["stored in"] = field_name
        if not runs:
            return TensorEntry(name, dtype, True, shape, tensor.start, 0, onnx_name, extras,
                               problem=f"tensor '{printable_name(name)}' has no data (no raw_data, no "
                               f"{field_name}, no external data)")
        first, last = runs[0], runs[-1]
        if len(runs) == 1:  # one packed run, or one value: its bytes
            offset, nbytes = first[2], first[3] - first[2]
        else:
            offset, nbytes = first[0], last[3] - first[0]
            extras["fields"] = len(runs)
        if dtype is None:
            return TensorEntry(name, None, True, shape, offset, nbytes, onnx_name, extras,
                               problem=f"tensor '{printable_name(name)}' is a STRING tensor of "
                               f"{tensor.strings} strings: strings are not decoded" if onnx_name == "STRING"
                               else f"tensor '{printable_name(name)}' is {onnx_name}, which the tool cannot "
                               "decode yet (--dtype uint8 shows the bytes of its field)")
        count = math.prod(shape)
        if field_name not in VARINT_FIELDS:
            width = 4 if field_name in ("float_data", "f", "floats") else 8
            per = 2 if dtype.startswith("complex") else 1
            stored = sum((e - s) if w == 2 else width for _, w, s, e in runs)
            if stored != count * width * per or any(w not in (2, 1 if width == 8 else 5) for _, w, _, _ in runs):
                return TensorEntry(name, dtype, True, shape, offset, nbytes, onnx_name, extras,
                                   problem=f"tensor '{printable_name(name)}' holds {stored} bytes of "
                                   f"{field_name}, but {onnx_name} dims {shape} need {count * width * per}")
            if "fields" not in extras:
                return TensorEntry(name, dtype, True, shape, offset, nbytes, onnx_name, extras)
        budget_bytes = count * resolve_dtype(dtype, extended_types=True).itemsize
        extras["decoded bytes"] = budget_bytes
        return TensorEntry(name, dtype, True, shape, offset, nbytes, onnx_name, extras, storage=Storage.COPY)


def _with_problem(entry: TensorEntry, problem: str) -> TensorEntry:
    return TensorEntry(entry.name, entry.dtype, entry.little_endian, entry.shape, entry.offset,
                       entry.nbytes, entry.stored_type, entry.extras, problem=problem, file=entry.file)


def list_onnx(reader: HeaderReader) -> ContainerListing:
    """The tensors of an ONNX model (module rules).

    Raises
    ------
    ContainerError
        The protobuf structure is malformed (a length past its message or the file, a bad
        varint, a group, subgraphs nested too deep), or the listing would read more header
        bytes than the reader allows; the message names the file and the byte.
    """
    reader.format = "onnx"
    walker = _Walker(reader)
    try:
        metadata = walker.model()
    except WireError as error:
        fix = ("the tool lists models nested at most that deep; open a tensor as raw bytes with "
               "an explicit offset and dtype" if isinstance(error, _TooDeepError) else
               "the file is truncated or not an ONNX model; open it as raw bytes with an explicit "
               "offset and dtype")
        raise reader.error(f"not a well-formed ONNX model: {error}", error.offset, fix) from None
    entries = _with_quantization(walker)
    problems = (not_listed(walker.left_out, "tensors"),) if walker.left_out else ()
    return ContainerListing("onnx", reader.path, tuple(entries), metadata, problems)


# -- quantized initializers -----------------------------------------------------------------------
def _with_quantization(walker: _Walker) -> list[TensorEntry]:
    """The entries, each input ``x`` of a DequantizeLinear node with its quantization (its
    ``x_scale`` and ``x_zero_point`` tensors and ``axis``, default 1) and followed by its
    dequantized entry; the first node of an ``x`` decides. A node whose parameters are no
    tensors of the model, cannot be read or do not fit is said by ``x``'s ``quantization``
    extra."""
    if not walker.dequantize:
        return walker.entries
    by_name = {entry.name: entry for entry in walker.entries}
    found: dict[str, Quantization | str] = {}
    for node in walker.dequantize:
        name = node.prefix + node.x
        if name in found or name not in by_name:
            continue  # an activation (computed at run time), or an x met before
        found[name] = _quantization_of(walker, by_name, by_name[name], node)
    entries: list[TensorEntry] = []
    for entry in walker.entries:
        quantization = found.get(entry.name)
        if isinstance(quantization, str):
            entry = replace(entry, extras=dict(entry.extras, **{"quantization not used": quantization}))
        elif quantization is not None:
            entry = replace(entry, quantization=quantization)
        entries.append(entry)
        if entry.quantization is not None and entry.problem is None and entry.dtype is not None:
            if len(entries) >= walker.limit:
                walker.left_out += 1
                continue
            entries.append(dequantized_entry(entry))
    return entries


def _quantization_of(walker: _Walker, by_name: dict[str, TensorEntry], x: TensorEntry,
                     node: _Dequantize) -> Quantization | str:
    where = f"DequantizeLinear node '{printable_name(node.label)}'"
    if node.block_size:
        return f"{where} dequantizes it in blocks of {node.block_size} (blocked quantization is not shown)"
    if x.dtype is None:
        return f"its type {x.stored_type} is not decoded"
    parameters = []
    for role, name in (("x_scale", node.scale), ("x_zero_point", node.zero_point)):
        if not name and role == "x_zero_point":
            parameters.append(np.zeros(1, np.int64))
            continue
        entry = by_name.get(node.prefix + name, by_name.get(name))
        if entry is None:
            return f"the {role} '{printable_name(name)}' of {where} is not a tensor stored in the model"
        if role == "x_scale" and entry.dtype not in ("float32", "float16", "bfloat16", "float64"):
            return f"the x_scale '{printable_name(name)}' of {where} is {entry.stored_type}, not a float tensor"
        values = _parameter_values(walker, entry)
        if isinstance(values, str):
            return f"the {role} '{printable_name(name)}' of {where} {values}"
        parameters.append(values)
    scale, zero = parameters
    return checked_quantization(np.asarray(scale, np.float64).reshape(-1).tolist(),
                                np.asarray(zero, np.int64).reshape(-1).tolist(),
                                node.axis if scale.size > 1 or zero.size > 1 else None, x.dtype, x.shape)


def _parameter_values(walker: _Walker, entry: TensorEntry) -> np.ndarray | str:
    """The values of a scale or zero-point tensor (at most MAX_CHANNELS of them), or why not."""
    if not entry.readable:
        return f"cannot be read ({entry.problem})"
    if entry.element_count > MAX_CHANNELS:
        return f"has more than {MAX_CHANNELS} values"
    try:
        if entry.storage is Storage.VIEW:
            data = stored_bytes(walker.reader.source, entry)
            return integers_or_values(data, entry)
        return onnx_values(walker.reader.source, entry).array
    except CoreError as error:
        return f"cannot be read ({error})"


FORMAT = ContainerFormat("onnx", sniff, list_onnx, onnx_values, extensions=(".onnx",))
