"""Where records lie in a file: how many there are after a header, a field across them as a view of
the file's bytes, and which field a byte is.

Rules
-----
- Records follow the header back to back: record ``r`` is the bytes ``header + r * itemsize``
  onward. They are counted from the file's size (:func:`count_records`); the bytes after the
  last whole record are trailing bytes. A header past the end of the file, or a record larger
  than the bytes after the header, is refused.
- A field across every whole record is a strided view of the file's bytes
  (:func:`field_view`: shape ``(records,) + field shape``, the field's type and byte order, the
  record size as the first stride; a bit field: the view of its storage units), and a range of
  records a ``(len, itemsize)`` view of their bytes (:func:`record_bytes`); neither copies or
  reads a byte.
- A byte at or after the header, inside the last whole record, belongs to record
  ``(byte - header) // itemsize`` and to the leaves covering its place in the record
  (:func:`fields_at`): a leaf covers its bytes (a bit field its storage unit, so several bit
  fields share a byte). Padding belongs to none.
"""

from __future__ import annotations

import numpy as np

from core.errors import CoreError
from core.records.layout import Field, RecordLayout

__all__ = ["count_records", "describe_byte", "describe_record", "field_spans", "field_view", "fields_at", "leaf_spans",
           "record_bytes"]


def count_records(layout: RecordLayout, header: int, size: int) -> tuple[int, int]:
    """``(whole records, trailing bytes)`` of a file of ``size`` bytes (module rules).

    Raises
    ------
    CoreError
        ``field="offset"``: the header is past the end; ``field="fields"``: not one record fits.
    """
    if header > size:
        raise CoreError(f"the header ({header:,} bytes) is longer than the file ({size:,} bytes)", field="offset")
    count = (size - header) // layout.itemsize
    if count == 0 and size > header:
        raise CoreError(f"a record is {layout.itemsize:,} bytes, more than the {size - header:,} bytes after the "
                        "header (check the layout and the header offset)", field="fields")
    return count, size - header - count * layout.itemsize


def field_view(layout: RecordLayout, data: np.ndarray, name: str, header: int = 0) -> np.ndarray:
    """The field ``name`` across every whole record of ``data`` (the file's bytes: a 1-d ``uint8``
    array, its memory map) after ``header`` bytes (module rules): a view of ``data``, no copy; a
    bit field's is the view of its storage units (its values: :meth:`Field.bits_of` of them). No
    records: an empty array.

    Raises
    ------
    CoreError
        No such field (``field="field"``); the errors of :func:`count_records`.
    """
    leaf = layout.field_named(name)
    count, _trailing = count_records(layout, header, data.size)
    element = leaf.numpy_dtype()
    shape = () if leaf.is_bits else leaf.shape
    if not count:
        return np.zeros((0,) + shape, element)
    inner = [element.itemsize] * len(shape)
    for axis in range(len(shape) - 2, -1, -1):
        inner[axis] = inner[axis + 1] * shape[axis + 1]
    return np.ndarray((count,) + shape, element, buffer=data, offset=header + leaf.offset,
                      strides=(layout.itemsize, *inner))


def record_bytes(layout: RecordLayout, data: np.ndarray, records: range, header: int = 0) -> np.ndarray:
    """The bytes of the records ``records`` (indices of whole records, any step) of ``data`` after
    ``header`` bytes: a ``(len(records), itemsize)`` ``uint8`` view (module rules).

    Raises
    ------
    CoreError
        ``field="records"``: an index of ``records`` is not a whole record of ``data``; the errors
        of :func:`count_records`.
    """
    count, _trailing = count_records(layout, header, data.size)
    if not len(records):
        return np.zeros((0, layout.itemsize), np.uint8)
    low, high = min(records[0], records[-1]), max(records[0], records[-1])
    if low < 0 or high >= count:
        raise CoreError(f"records {records.start}:{records.stop}:{records.step} are not all among the {count:,} "
                        f"records (0 to {count - 1})", field="records")
    return np.ndarray((len(records), layout.itemsize), np.uint8, buffer=data,
                      offset=header + records[0] * layout.itemsize, strides=(records.step * layout.itemsize, 1))


def leaf_spans(layout: RecordLayout) -> tuple[tuple[int, int, int], ...]:
    """``(first byte, end byte, leaf number)`` of every leaf inside one record."""
    return tuple((leaf.offset, leaf.offset + (leaf.itemsize if leaf.is_bits else leaf.nbytes), number)
                 for number, leaf in enumerate(layout.fields))


def fields_at(layout: RecordLayout, header: int, count: int, offset: int) -> tuple[int, list[Field]] | None:
    """``(record, leaves covering byte offset)``, or None outside the ``count`` records."""
    relative = offset - header
    if relative < 0 or relative >= count * layout.itemsize:
        return None
    record, place = divmod(relative, layout.itemsize)
    return record, [layout.fields[n] for lo, hi, n in leaf_spans(layout) if lo <= place < hi]


def field_spans(layout: RecordLayout, header: int, count: int, first: int, end: int) -> list[tuple[int, int, int]]:
    """``(first byte, end byte, leaf number)`` in the file of the leaves' bytes that overlap bytes
    ``first <= b < end`` (meant for what a screen shows: one entry per leaf per record)."""
    if end <= first or count == 0:
        return []
    itemsize = layout.itemsize
    spans = leaf_spans(layout)
    lo_record = max((first - header) // itemsize, 0)
    hi_record = min(max(-(-(end - header) // itemsize), 0), count)
    out = []
    for record in range(lo_record, hi_record):
        base = header + record * itemsize
        out.extend((base + lo, base + hi, n) for lo, hi, n in spans if base + hi > first and base + lo < end)
    return out


def describe_byte(layout: RecordLayout, header: int, count: int, offset: int, record_bytes: bytes | None = None) -> str:
    """What byte ``offset`` is in the records, in words: ``record 12, gain (float @8), byte 2 of
    4 = 1.5`` (the value when ``record_bytes``, that record's bytes, are given); ``record 12,
    padding (byte 13 of the 24-byte record)``; ``header (byte 3 of 16)``; ``trailing bytes``;
    "" before the header when there is none."""
    found = fields_at(layout, header, count, offset)
    if found is None:
        if offset < header:
            return f"header (byte {offset:,} of {header:,})"
        return "trailing bytes (after the last whole record)"
    record, leaves = found
    place = offset - header - record * layout.itemsize
    if not leaves:
        return f"record {record:,}, padding (byte {place} of the {layout.itemsize}-byte record)"
    parts = []
    for leaf in leaves:
        text = f"{leaf.name} ({leaf.type_text()} @{leaf.offset})"
        if not leaf.is_bits:
            index = (place - leaf.offset) // leaf.itemsize
            text += f", byte {(place - leaf.offset) % leaf.itemsize + 1} of {leaf.itemsize}"
            if leaf.shape:
                element = tuple(int(i) for i in np.unravel_index(index, leaf.shape))
                text = text.replace(f"{leaf.name} (", f"{leaf.name}{''.join(f'[{i}]' for i in element)} (", 1)
        if record_bytes is not None and len(record_bytes) == layout.itemsize:
            text += f" = {_value_text(layout, leaf, record_bytes, place)}"
        parts.append(text)
    return f"record {record:,}, " + "; ".join(parts)


def _value_text(layout: RecordLayout, leaf: Field, record_bytes: bytes, place: int) -> str:
    from core.records.layout import Column
    from core.text.number_format import format_value

    records = layout.records(np.frombuffer(record_bytes, np.uint8))
    index = ()
    if leaf.shape and not leaf.is_bits:
        index = tuple(int(i) for i in np.unravel_index((place - leaf.offset) // leaf.itemsize, leaf.shape))
    values = layout.values(records, Column(leaf.name, leaf, index))
    value = values[0]
    text = format_value(value, np.asarray(values).dtype)
    if leaf.enum:
        name = leaf.enum.get(int(value))
        text = f"{name} ({text})" if name else text
    return text


def describe_record(layout: RecordLayout, record_bytes: bytes) -> list[tuple[str, str]]:
    """``(column name, value text)`` of one record's bytes, every column in order (enums with
    their names), as the table shows them."""
    from core.text.number_format import format_value

    records = layout.records(np.frombuffer(record_bytes, np.uint8))
    out = []
    for column in layout.columns():
        values = layout.values(records, column)
        text = format_value(values[0], np.asarray(values).dtype)
        if column.field.enum:
            name = column.field.enum.get(int(values[0]))
            text = f"{name} ({text})" if name else text
        out.append((column.name, text))
    return out
