"""The values of an ONNX model's copy entries: tensors stored in TensorProto's typed fields
(``int32_data``, ``int64_data``, ``float_data``...) or an attribute's ``f``/``floats``/``i``/
``ints``, decoded from their varints or little-endian runs, several runs joined, int4/uint4
unpacked; and the integers of a dequantized entry. The listing (:mod:`core.formats.onnx`)
says which field holds each entry and where.

Every decode is a copy checked against the copy budget first; stored values that no longer
parse, or are not the count the dims say, are a :class:`~core.errors.ContainerError`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

import core.budget as budget
from core.dtypes.table import type_row
from core.errors import ContainerError
from core.files.sources import Source, open_source
from core.formats.entry import EntryValues, TensorEntry, entry_file
from core.formats.quantization import dequantized_values, is_dequantized, view_array
from core.formats.tfrecord_wire import WireError, decode_varints, fields
from core.text.names import printable_name

__all__ = ["FIELD_NUMBERS", "VARINT_FIELDS", "integers_or_values", "onnx_values", "stored_bytes"]

#: Field numbers of the fields whose values an entry can be stored in (TensorProto's typed
#: fields, AttributeProto's f/floats/i/ints), by the name the entry's "stored in" extra says.
FIELD_NUMBERS = {"float_data": 4, "int32_data": 5, "int64_data": 7, "double_data": 10,
                  "uint64_data": 11, "f": 2, "floats": 7, "i": 3, "ints": 8}
VARINT_FIELDS = {"int32_data", "int64_data", "uint64_data", "i", "ints"}


def integers_or_values(data: bytes, entry: TensorEntry) -> np.ndarray:
    """The elements a view entry's stored bytes hold (int4/uint4 unpacked)."""
    if entry.dtype in ("int4", "uint4"):
        return _unpack4(np.frombuffer(data, np.uint8), entry.element_count, entry.dtype == "int4").reshape(entry.shape)
    return view_array(data, str(entry.dtype), True, entry.shape, None, entry.name)


def stored_bytes(source: Source, entry: TensorEntry) -> bytes:
    """An entry's stored bytes (a ``pread`` copy), from the model or its external data file."""
    if entry.file is None:
        return source.read_exact(0, entry.offset, entry.nbytes, f"the data of '{entry.name}'")
    with open_source(entry_file(source.paths[0], entry)) as other:
        return other.read_exact(0, entry.offset, entry.nbytes, f"the data of '{entry.name}'")


def _field_values(data: bytes, base: int, field_name: str, runs: bool) -> bytes:
    """The concatenated payload of ``field_name`` in ``data``: ``data`` itself (one packed run,
    or one value), or when ``runs`` the values of its fields in a span of whole fields."""
    if not runs:
        return data
    number = FIELD_NUMBERS[field_name]
    return b"".join(data[vs:ve] for n, _, vs, ve in fields(data, 0, len(data), base) if n == number)


def _unpack4(packed: np.ndarray, count: int, signed: bool) -> np.ndarray:
    out = np.empty(packed.size * 2, np.uint8)
    out[0::2] = packed & 0x0F
    out[1::2] = packed >> 4
    out = out[:count]
    if signed:
        return ((out.astype(np.int8) ^ 8) - 8).astype(np.int8)
    return out


def _decode(entry: TensorEntry, payload: bytes, field_name: str) -> np.ndarray:
    row = type_row(entry.dtype)
    count = entry.element_count
    if field_name in ("raw_data", "external data"):  # an odd count of int4/uint4
        return _unpack4(np.frombuffer(payload, np.uint8), count, entry.dtype == "int4")
    if field_name not in VARINT_FIELDS:
        width = "<f4" if field_name in ("float_data", "f", "floats") else "<f8"
        values = np.frombuffer(payload, width)
        return values.view(row.dtype.newbyteorder("<")) if entry.dtype.startswith("complex") else values
    numbers = decode_varints(np.frombuffer(payload, np.uint8))
    if field_name in ("uint64_data",):
        return numbers.astype(row.dtype)
    signed = numbers.view(np.int64)
    if entry.dtype in ("int4", "uint4"):
        return _unpack4(signed.astype(np.uint8), count, entry.dtype == "int4")
    if row.kind == "float" or entry.dtype == "bfloat16":  # bit patterns in the low bits (ONNX's rule)
        bits = np.uint16 if row.itemsize == 2 else np.uint8
        return signed.astype(bits).view(row.dtype)
    if entry.dtype == "bool":
        return signed != 0
    return signed.astype(row.dtype)


def onnx_values(source: Source, entry: TensorEntry) -> EntryValues:
    """The format's ``values`` hook: the values of a copy entry (varints decoded, several runs
    joined, int4/uint4 unpacked), a copy after a budget check; for a dequantized entry, the
    float32 values of its integers so decoded
    (:func:`~core.formats.quantization.dequantized_values`).

    Raises
    ------
    ContainerError
        ``field="tensor"``: the stored values are not the count the dims say, or no longer parse
        (the file changed).
    BudgetError
        The stored bytes or the decoded copy would exceed the copy budget.
    """
    if is_dequantized(entry):
        return dequantized_values(source, entry, _stored_integers)
    field_name = str(entry.extras.get("stored in", ""))
    row = type_row(entry.dtype)
    budget.check_copy_budget(entry.nbytes + entry.element_count * row.itemsize,
                             f"decoding '{entry.name}'", "open a smaller model", field="tensor")
    where = f"the onnx file '{printable_name(source.paths[0])}': "
    values = _decoded(stored_bytes(source, entry), entry, field_name, where, f"values in {field_name}")
    if field_name in ("raw_data", "external data"):
        what = f"'{entry.name}' is {entry.stored_type} of an odd count: these are its unpacked values"
        return EntryValues.stored_copy(values, "unpacked", what)
    what = f"'{entry.name}' is stored in {field_name} of the model: these are its decoded values"
    return EntryValues.stored_copy(values, f"{field_name} decoded", what)


def _stored_integers(source: Source, entry: TensorEntry) -> np.ndarray:
    """The integers of a dequantized entry (``source``: the file they are in): a view's bytes, or
    its typed field decoded."""
    assert entry.quantization is not None
    integers = replace(entry, dtype=entry.quantization.stored_dtype)
    data = source.read_exact(0, entry.offset, entry.nbytes, f"the integers of '{printable_name(entry.name)}'")
    field_name = str(entry.extras.get("stored in", ""))
    if field_name in ("raw_data", "external data"):
        return integers_or_values(data, integers)
    return _decoded(data, integers, field_name, "", "integers")


def _decoded(data: bytes, entry: TensorEntry, field_name: str, where: str, what: str) -> np.ndarray:
    """The values of ``field_name`` in an entry's stored bytes, in its shape.

    Raises
    ------
    ContainerError
        They no longer parse (the file changed), or are not the count its dims say.
    """
    try:
        payload = _field_values(data, entry.offset, field_name, "fields" in entry.extras)
        values = _decode(entry, payload, field_name)
    except (WireError, ValueError) as error:
        raise ContainerError(f"{where}tensor '{printable_name(entry.name)}': {error} (the file changed: "
                             "list it again)", field="tensor") from None
    if values.size != entry.element_count:
        raise ContainerError(f"{where}tensor '{printable_name(entry.name)}' holds {values.size} {what}, but its "
                             f"dims {entry.shape} need {entry.element_count} (the model is damaged)", field="tensor")
    return values.reshape(entry.shape)
