"""A record layout: named fields at byte offsets inside a record of a fixed size.

Rules
-----
- A layout is its leaves: every field of a scalar type (or an array of one), nested structs and
  arrays of structs flattened into dotted names (``imu.acc.x``, ``pts[1].y``), each with its byte
  offset in the record, its engine type, its array shape and its byte order. At most
  :data:`MAX_FIELDS` leaves (a C array of a million structs would otherwise be a million columns).
- **Columns** are what a table shows: one per element of each leaf (``ch[0]`` ... ``ch[3]``).
- A **bit field** is read from its storage unit (the bytes at its offset, of its declared
  type's size): ``width`` bits from bit ``bit`` counted from the unit's least significant bit in
  a little-endian layout, from its most significant bit in a big-endian one; a signed one is
  sign-extended. An **enum** field is an integer with names for its values.
- **Values**: records are a numpy structured view of the bytes (no copy): every leaf but the
  bit fields is a field of the structured dtype (offsets and the record size as the layout
  says); a bit field's values are computed from its unit, per visible cell, in the narrowest
  integer type of 1, 2, 4 or 8 bytes that holds them (:meth:`Field.value_dtype`: ``uint8`` for
  ``flags:3``, ``int8`` for a signed ``delta:5``).
- Where records lie in a file (how many, a field across them as a strided view of the file's
  bytes, which field a byte is): :mod:`core.records.placement`.
- A field chosen as *the* tensor is plain decode parameters: its type, the header offset plus
  its offset, the record size as the record length (:meth:`RecordLayout.field_params`), so
  every view of today works on it unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from core.dtypes.table import resolve_dtype
from core.errors import CoreError

__all__ = ["MAX_FIELDS", "MAX_RECORD_BYTES", "Column", "Field", "RecordLayout"]

#: Most leaves of one layout.
MAX_FIELDS = 4096
#: Largest record.
MAX_RECORD_BYTES = 1 << 30


@dataclass(frozen=True)
class Field:
    """One leaf of a layout (module rules)."""

    name: str
    offset: int
    dtype: str                       # engine type name (for a bit field: its unit's unsigned type)
    shape: tuple[int, ...] = ()
    little_endian: bool = True
    bit: int | None = None           # a bit field: its first bit in the unit
    width: int | None = None         # a bit field: its width in bits
    signed: bool = False             # a bit field of a signed type (sign-extended)
    enum: Mapping[int, str] | None = field(default=None, compare=False)
    ctype: str = ""                  # the type as written (uint32_t, enum mode, u32...)

    @property
    def itemsize(self) -> int:
        return np.dtype(resolve_dtype(self.dtype, extended_types=True)).itemsize

    @property
    def nbytes(self) -> int:
        return self.itemsize * math.prod(self.shape)

    @property
    def is_bits(self) -> bool:
        return self.width is not None

    def numpy_dtype(self) -> np.dtype:
        """The element type with the field's byte order."""
        dtype = np.dtype(resolve_dtype(self.dtype, extended_types=True))
        return dtype.newbyteorder("<" if self.little_endian else ">") if dtype.itemsize > 1 else dtype

    def value_dtype(self) -> np.dtype:
        """The type of the field's values: :meth:`numpy_dtype` (its byte order kept), or for a bit
        field the narrowest integer type of 1, 2, 4 or 8 bytes holding ``width`` bits (signed for a
        signed field), in native order."""
        if not self.is_bits:
            return self.numpy_dtype()
        size = next(n for n in (1, 2, 4, 8) if self.width <= 8 * n)
        return np.dtype(f"{'i' if self.signed else 'u'}{size}")

    def bits_of(self, units: np.ndarray) -> np.ndarray:
        """A bit field's values (module rules) from its storage units' values (``units``: the
        unit type in the field's byte order, as read; any shape), in :meth:`value_dtype`; a new
        array."""
        bits = self.itemsize * 8
        shift = self.bit if self.little_endian else bits - self.bit - self.width
        unsigned, signed = np.dtype(f"u{self.itemsize}"), np.dtype(f"i{self.itemsize}")
        # One working copy of the unit's width (native order), shifted and masked in place.
        out = np.asarray(units).astype(unsigned)
        out >>= unsigned.type(shift)
        out &= unsigned.type((1 << self.width) - 1)
        if self.signed:  # sign-extended by an arithmetic shift of the unit's signed type
            out <<= unsigned.type(bits - self.width)
            out = out.view(signed)
            out >>= signed.type(bits - self.width)
        return out.astype(self.value_dtype(), copy=False)

    def columns(self) -> list[Column]:
        """The field's columns: the field itself when it is scalar, else one per element
        (``ch[0]`` ... ``ch[3]``, C order)."""
        if not self.shape:
            return [Column(self.name, self)]
        return [Column(self.name + "".join(f"[{i}]" for i in index), self, tuple(int(i) for i in index))
                for index in np.ndindex(*self.shape)]

    def type_text(self) -> str:
        """``uint32``, ``int16[4]``, ``uint8:3 @ bit 2``: what a column header says."""
        text = self.ctype or self.dtype
        if self.shape:
            text += "".join(f"[{n}]" for n in self.shape)
        if self.is_bits:
            text += f":{self.width} @ bit {self.bit}"
        return text


@dataclass(frozen=True)
class Column:
    """One column of a records table: a leaf and, for an array leaf, one element of it."""

    name: str
    field: Field
    index: tuple[int, ...] = ()

    @property
    def offset(self) -> int:
        """Byte offset of this element in the record."""
        if not self.index:
            return self.field.offset
        flat = int(np.ravel_multi_index(self.index, self.field.shape))
        return self.field.offset + flat * self.field.itemsize


@dataclass(frozen=True)
class RecordLayout:
    """Fields of a record of ``itemsize`` bytes (module rules); ``source``: the text it was read
    from, ``kind`` its form (``c``, ``fields``, ``numpy``), ``abi`` the ABI of a C layout."""

    fields: tuple[Field, ...]
    itemsize: int
    source: str = ""
    kind: str = "fields"
    abi: str = ""
    name: str = ""
    notes: tuple[str, ...] = ()      # what reading the source left out (an #include not followed...)

    def __post_init__(self) -> None:
        if not self.fields:
            raise CoreError("the record layout has no fields (name at least one)", field="fields")
        if len(self.fields) > MAX_FIELDS:
            raise CoreError(f"the record layout has {len(self.fields):,} fields, more than the {MAX_FIELDS:,} "
                            "a table can show (choose a smaller struct)", field="fields")
        if not 0 < self.itemsize <= MAX_RECORD_BYTES:
            raise CoreError(f"a record of {self.itemsize:,} bytes is not between 1 byte and 1 GiB", field="fields")
        for leaf in self.fields:
            end = leaf.offset + (leaf.itemsize if leaf.is_bits else leaf.nbytes)
            if leaf.offset < 0 or end > self.itemsize:
                raise CoreError(f"the field {leaf.name!r} (bytes {leaf.offset} to {end - 1}) is not inside the "
                                f"{self.itemsize}-byte record", field="fields")

    def field_named(self, name: str) -> Field:
        """The leaf called ``name``.

        Raises
        ------
        CoreError
            ``field="field"``: no such field (the names are listed, the first few).
        """
        for leaf in self.fields:
            if leaf.name == name:
                return leaf
        names = ", ".join(f.name for f in self.fields[:12]) + (", ..." if len(self.fields) > 12 else "")
        raise CoreError(f"the record has no field {name!r} (its fields: {names})", field="field")

    def columns(self) -> list[Column]:
        """One column per element of each leaf, in field order."""
        return [column for leaf in self.fields for column in leaf.columns()]

    def numpy_dtype(self) -> np.dtype:
        """The structured dtype of a record: every leaf that is not a bit field, at its offset."""
        names, formats, offsets = [], [], []
        for leaf in self.fields:
            if leaf.is_bits:
                continue
            names.append(leaf.name)
            formats.append((leaf.numpy_dtype(), leaf.shape) if leaf.shape else leaf.numpy_dtype())
            offsets.append(leaf.offset)
        return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": self.itemsize})

    def records(self, data: np.ndarray) -> np.ndarray:
        """The records of ``data`` (uint8, whole records only) as a structured view (no copy)."""
        data = np.asarray(data)
        if data.dtype != np.uint8 or data.ndim != 1:
            raise CoreError("records are read from bytes (a 1-d uint8 array)", field="fields")
        count = data.size // self.itemsize
        return data[: count * self.itemsize].view(self.numpy_dtype()) if count else \
            np.zeros(0, self.numpy_dtype())

    def values(self, records: np.ndarray, column: Column) -> np.ndarray:
        """The values of one column for ``records`` (a structured view of this layout); a bit
        field computed from its unit's bytes, an enum as its integers. A column of an array
        field with no ``index`` (``Column("ch", leaf)``) gives the whole field, ``(records,) +
        shape``."""
        leaf = column.field
        if not leaf.is_bits:
            values = records[leaf.name]
            return values[(slice(None),) + column.index] if column.index else values
        raw = np.ndarray(records.shape, leaf.numpy_dtype(), records, leaf.offset, (records.strides[0],)) \
            if records.size else np.zeros(0, leaf.numpy_dtype())
        return leaf.bits_of(raw)

    def unit_params(self, name: str, header: int = 0) -> dict:
        """Decode options that show a field's storage (for a bit field: its unit, one per
        record; for any other field the same as :meth:`field_params`)."""
        leaf = self.field_named(name)
        if not leaf.is_bits:
            return self.field_params(name, header)
        return {"dtype": leaf.dtype, "little_endian": leaf.little_endian, "offset": header + leaf.offset,
                "record_size": self.itemsize, "fixed_length": leaf.itemsize, "shape": (-1,)}

    def field_params(self, name: str, header: int = 0) -> dict:
        """Decode options that show the field ``name`` alone as *the* tensor: one element of it per
        record (module rules). A bit field has no such view (its values are computed).

        Raises
        ------
        CoreError
            ``field="field"``: no such field, or a bit field.
        """
        leaf = self.field_named(name)
        if leaf.is_bits:
            raise CoreError(f"the field {name!r} is a bit field: its values are computed, not a view of the "
                            "bytes (show the records, or choose its unit's bytes)", field="field")
        shape = (-1,) + leaf.shape
        return {"dtype": leaf.dtype, "little_endian": leaf.little_endian, "offset": header + leaf.offset,
                "record_size": self.itemsize, "fixed_length": leaf.nbytes, "shape": shape}

    def describe(self) -> list[dict]:
        """``[{name, type, offset, shape, bits}]``: what ``--json`` says of the fields."""
        out = []
        for leaf in self.fields:
            entry = {"name": leaf.name, "type": leaf.dtype, "c_type": leaf.ctype or leaf.dtype, "offset": leaf.offset,
                     "shape": list(leaf.shape), "byte_order": "little" if leaf.little_endian else "big"}
            if leaf.is_bits:
                entry["bits"] = {"first": leaf.bit, "width": leaf.width, "signed": leaf.signed}
            if leaf.enum:
                entry["enum"] = {str(k): v for k, v in leaf.enum.items()}
            out.append(entry)
        return out
