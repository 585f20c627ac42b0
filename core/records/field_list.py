"""Record layouts from a compact field list or a numpy dtype description.

Rules
-----
- **Field list**: fields separated by commas, each ``name:type``, ``name:type[4]`` or
  ``name:type[2][3]`` (an array), ``name@OFFSET:type`` (at that byte offset), or ``pad:N`` /
  ``_:N`` (N bytes skipped). Fields follow each other with no padding unless an offset says so
  (the record as the bytes are, packed); the record is as long as its last field reaches, or
  ``size:N`` at the end says its size. Types: ``u8`` ``u16`` ``u32`` ``u64`` ``i8`` ... ``i64``
  ``f16`` ``f32`` ``f64`` ``bf16`` ``bool``, or any type name of the engine (``uint32``,
  ``float``, ``half``...); a ``>`` or ``<`` before the type gives that field's byte order
  (else the layout's).
- **numpy dtype description**: the text of a list of ``(name, format[, shape])`` tuples, or a
  dict with ``names``, ``formats`` and optionally ``offsets`` and ``itemsize``, read as Python
  literals (``ast.literal_eval``: literals only, never code), then made a numpy dtype; nested
  fields flatten to dotted names, sub-arrays of structures expand (``pts[1].x``). In a list, an
  unnamed void field (``('', '|V4')``, how numpy writes a padded dtype into an ``.npy``
  header) is padding, as ``numpy.load`` reads it. Object, string, void and datetime fields are
  refused by name.
"""

from __future__ import annotations

import ast
import re

import numpy as np

from core.dtypes.table import resolve_dtype
from core.errors import CoreError, DecodeError
from core.records.layout import MAX_FIELDS, MAX_RECORD_BYTES, Field, RecordLayout

__all__ = ["numpy_description_dtype", "parse_field_list", "parse_numpy_layout"]

_SHORT = {"u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "i8": "int8", "i16": "int16",
          "i32": "int32", "i64": "int64", "f16": "float16", "f32": "float32", "f64": "float64", "bf16": "bfloat16",
          "c64": "complex64", "c128": "complex128", "char": "int8", "byte": "uint8"}
_ITEM = re.compile(r"\s*(?P<name>[A-Za-z_][\w.]*)\s*(?:@\s*(?P<at>\d+))?\s*:\s*(?P<order>[<>])?\s*"
                   r"(?P<type>[A-Za-z_]\w*|\d+)\s*(?P<dims>(?:\[\s*\d+\s*\]\s*)*)\s*$")


def parse_field_list(text: str, *, little_endian: bool = True) -> RecordLayout:
    """The layout a compact field list describes (module rules).

    Raises
    ------
    CoreError
        ``field="fields"``: an item that is not ``name:type``, an unknown type, a field that
        overlaps the one before, or a record size smaller than its fields.
    """
    items = [item for item in text.split(",") if item.strip()]
    if not items:
        raise CoreError("the field list is empty (write fields like 'ts:u32, ch:i16[4], gain:f32')", field="fields")
    leaves: list[Field] = []
    offset, size = 0, None
    for number, item in enumerate(items, start=1):
        match = _ITEM.match(item)
        if match is None:
            raise CoreError(f"field {number} of the list, {item.strip()!r}, is not name:type (e.g. 'ch:i16[4]', "
                            "'pad:4', 'x@12:f32')", field="fields")
        name, at, order, kind, dims = match["name"], match["at"], match["order"], match["type"], match["dims"]
        if at is not None:
            if int(at) < offset and leaves:
                raise CoreError(f"the field {name!r} at byte {at} overlaps the field before it (which ends at byte "
                                f"{offset})", field="fields")
            offset = int(at)
        if name in ("pad", "_") and kind.isdigit():
            offset += int(kind)
            continue
        if name == "size" and kind.isdigit() and number == len(items):
            size = int(kind)
            continue
        if kind.isdigit():
            raise CoreError(f"the field {name!r} has the type {kind!r}: a number is a padding ('pad:{kind}')",
                            field="fields")
        dtype = _type_named(kind, name)
        shape = tuple(int(d) for d in re.findall(r"\d+", dims))
        if any(n == 0 for n in shape):
            raise CoreError(f"the field {name!r} is an array with a dimension of 0 (give it at least one element)",
                            field="fields")
        leaf = Field(name, offset, dtype, shape, little_endian if order is None else order == "<", ctype=kind)
        if leaf.nbytes > MAX_RECORD_BYTES:
            raise CoreError(f"the field {name!r} is {leaf.nbytes:,} bytes, more than a record may hold (1 GiB)",
                            field="fields")
        leaves.append(leaf)
        offset += leaf.nbytes
        if len(leaves) > MAX_FIELDS:
            raise CoreError(f"the field list has more than {MAX_FIELDS:,} fields", field="fields")
    if not leaves:
        raise CoreError("the field list has only padding (name at least one field)", field="fields")
    if size is not None and size < offset:
        raise CoreError(f"size:{size} is smaller than the fields ({offset} bytes)", field="fields")
    names = [leaf.name for leaf in leaves]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise CoreError(f"the field list names {', '.join(twice)} twice (each field needs its own name)",
                        field="fields")
    return RecordLayout(tuple(leaves), size or offset, source=text, kind="fields")


def _type_named(kind: str, name: str) -> str:
    engine = _SHORT.get(kind.lower(), kind)
    try:
        return np.dtype(resolve_dtype(engine, extended_types=True)).name if engine != "bfloat16" else "bfloat16"
    except DecodeError:
        raise CoreError(f"the field {name!r} has the type {kind!r}, which is not a type this tool decodes (u8..u64, "
                        "i8..i64, f16, f32, f64, bf16, bool, or an engine type name)", field="fields") from None


def parse_numpy_layout(text: str) -> RecordLayout:
    """The layout a numpy dtype description describes (module rules).

    Raises
    ------
    CoreError
        ``field="fields"``: text that is not a literal list or dict, numpy's refusal of it, or a
        field of a type that is no number.
    """
    dtype = numpy_description_dtype(text)
    leaves: list[Field] = []
    _flatten(dtype, 0, "", leaves)
    return RecordLayout(tuple(leaves), dtype.itemsize, source=text, kind="numpy")


def numpy_description_dtype(text: str) -> np.dtype:
    """The structured numpy dtype a description describes (module rules), as ``numpy.load`` reads
    an ``.npy`` header's: in a list, an unnamed void field (``('', '|V4')``) is padding
    (``numpy.lib.format.descr_to_dtype``).

    Raises
    ------
    CoreError
        ``field="fields"``: text that is not a literal list or dict, numpy's refusal of it, or a
        dtype without named fields.
    """
    try:
        spec = ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as error:
        raise CoreError(f"the numpy dtype description is not a list or dict of literals ({str(error)[:100]}): "
                        "write e.g. [('ts', '<u4'), ('ch', '<i2', (4,))]", field="fields") from None
    if not isinstance(spec, (list, dict)):
        raise CoreError("the numpy dtype description is neither a list of fields nor a dict of names and formats",
                        field="fields")
    try:
        dtype = np.lib.format.descr_to_dtype(spec) if isinstance(spec, list) else np.dtype(spec)
    except (TypeError, ValueError, KeyError, IndexError, RecursionError) as error:
        raise CoreError(f"numpy refuses the dtype description: {str(error)[:160]}", field="fields") from None
    if dtype.fields is None:
        raise CoreError("the numpy dtype description has no named fields", field="fields")
    return dtype


def _flatten(dtype: np.dtype, base: int, prefix: str, out: list[Field]) -> None:
    for name in dtype.names:
        inner, offset = dtype.fields[name][:2]
        full = f"{prefix}{name}"
        shape = inner.shape
        element = inner.base if shape else inner
        if element.fields is not None:
            if shape:
                for index in np.ndindex(*shape):
                    flat = int(np.ravel_multi_index(index, shape))
                    _flatten(element, base + offset + flat * element.itemsize,
                             full + "".join(f"[{i}]" for i in index) + ".", out)
            else:
                _flatten(element, base + offset, full + ".", out)
            continue
        if element.kind not in "biufc":
            raise CoreError(f"the field {full!r} is of numpy type {element.str!r}, which is not a number (objects, "
                            "strings, bytes and dates are not decoded)", field="fields")
        out.append(Field(full, base + offset, element.name, tuple(shape), element.byteorder != ">",
                         ctype=element.str))
        if len(out) > MAX_FIELDS:
            raise CoreError(f"the dtype has more than {MAX_FIELDS:,} fields once expanded", field="fields")
