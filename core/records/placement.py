"""Where records lie in a file: how many there are after a header, and which field a byte is.

Rules
-----
- Records follow the header back to back: record ``r`` is the bytes ``header + r * itemsize``
  onward. They are counted from the file's size (:func:`count_records`); the bytes after the
  last whole record are trailing bytes. A header past the end of the file, or a record larger
  than the bytes after the header, is refused.
- A byte at or after the header, inside the last whole record, belongs to record
  ``(byte - header) // itemsize`` and to the leaves covering its place in the record
  (:func:`fields_at`): a leaf covers its bytes (a bit field its storage unit, so several bit
  fields share a byte). Padding belongs to none.
"""

from __future__ import annotations

from core.errors import CoreError
from core.records.layout import Field, RecordLayout

__all__ = ["count_records", "field_spans", "fields_at", "leaf_spans"]


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
