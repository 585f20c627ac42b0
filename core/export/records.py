"""Export the records of a file under a record layout to ``.csv`` or a structured ``.npy``, in
bounded memory (docs/records.md, "Export").

Rules
-----
- **Which records**: the whole records after the header (:func:`core.records.placement.count_records`),
  or some of them (``records``: a ``range`` of record indices; a ``slice`` read as Python reads
  it against the record count, ``slice(10, None, 3)``, ``slice(None, None, -1)``; or the
  :class:`~core.records.choice.RecordRows` a records window shows).
- **Which values**: ``columns`` names fields (an array field with all its elements) or single
  columns (``ch[2]``), in the order given; default every field. Bit fields are their computed
  values, enums their integers (:meth:`RecordLayout.values`: what the records table shows).
- **CSV**: a header row of column names (``ts,ch[0],ch[1],...,flags``; a name is quoted by the
  csv module's rule when it holds a comma or a quote), then one line per record of its values
  as the table writes them (:func:`core.export.streaming.csv_texts`: the table's digits, bools
  1 / 0, complex in parentheses; ``csv_decimals`` fixed decimals instead). ``enum_names=True``
  writes an enum's name instead of its integer where the enum names the value (``FAULT``;
  a value it does not name stays an integer). At most :data:`MAX_CSV_COLUMNS` columns.
- **npy**: a 1-d structured array of one record per exported record, fields packed in the order
  chosen (no padding), that ``np.load`` reads back: one named field per field chosen (an array
  field keeps its shape, ``ch`` of ``(4,)``; a single column is a scalar field named as the
  column, ``ch[2]``), each of its type and byte order (``'>i2'`` stays big-endian); a bit field
  is its computed values in :meth:`Field.value_dtype` (``u1`` for ``flags:3``); a ``bool`` field
  is written 0 / 1 (any nonzero byte is True); ``bfloat16`` and float8 fields, for which ``.npy``
  has no type, are written as ``float32`` in their byte order (exact for every value). So
  ``np.load(path)[name]`` equals the values the table shows. A layout of hundreds of fields may
  need ``np.load(path, max_header_size=...)``: numpy refuses headers over 10,000 bytes by default.
- **Streaming**: records are read ``pread`` by ``pread`` (:class:`core.scan.blocks.BlockReader`:
  records far apart are read one by one, by its sparse rule, not the bytes between) in blocks of at most
  ``chunk_bytes`` bytes of records and :data:`CSV_VALUES_PER_BLOCK` CSV values, so the memory
  used is a few blocks whatever the number of records (10^8 records stream). One record must
  fit in the copy budget (:mod:`core.budget`).
- **Safety**: :mod:`core.files.output`: never onto an inspected file (the source's, through any
  link), a folder, FIFO or device; written to a temporary file renamed onto ``path`` when
  complete, so a cancellation or an error leaves ``path`` as it was (no partial file).
- ``progress(done, total)`` after each block (records written of ``total`` records);
  ``cancelled()`` before each block raises :class:`~core.errors.Cancelled`; the source is checked
  before each block (a file that changed raises its ``SourceError``).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO

import numpy as np

from core.budget import check_copy_budget
from core.errors import CoreError, ExportError
from core.export.streaming import checked_blocks, csv_texts, npy_header
from core.files.output import check_destination, write_atomically
from core.files.source import Source
from core.records.choice import RecordRows
from core.records.layout import Column, Field, RecordLayout
from core.records.placement import count_records, record_bytes
from core.scan.blocks import DEFAULT_MAX_SPAN, BlockReader

__all__ = ["CSV_VALUES_PER_BLOCK", "MAX_CSV_COLUMNS", "RECORD_FORMATS", "export_records", "read_records",
           "records_range"]

#: The file formats :func:`export_records` writes.
RECORD_FORMATS = ("csv", "npy")
#: Most CSV values formatted at once (their texts cost about 100 bytes each).
CSV_VALUES_PER_BLOCK = 1 << 18
#: Most columns of a CSV export (a wider record: export .npy, where an array field is one field).
MAX_CSV_COLUMNS = 1 << 16
#: Bytes of records read at once by default.
DEFAULT_CHUNK_BYTES = 8 << 20


def records_range(records: range | slice | RecordRows | None, count: int) -> range:
    """The record indices ``records`` stands for among ``count`` records (module rules).

    Raises
    ------
    CoreError
        ``field="records"``: a range reaching outside the records, a step of 0, not a range or
        slice.
    """
    if records is None:
        return range(count)
    if isinstance(records, RecordRows):
        records = range(records.start, records.start + records.count * records.step, records.step)
    if isinstance(records, slice):
        if records.step == 0:
            raise CoreError("a records range cannot have a step of 0 (use 1 for every record)", field="records")
        return range(*records.indices(count))
    if not isinstance(records, range):
        raise CoreError(f"records are chosen by a range, a slice or RecordRows, not {type(records).__name__}",
                        field="records")
    if len(records) and not (0 <= records[0] < count and 0 <= records[-1] < count):
        raise CoreError(f"records {records.start}:{records.stop}:{records.step} are not all among the {count:,} "
                        f"records (0 to {count - 1})", field="records")
    return records


def read_records(source: Source, layout: RecordLayout, *, header: int = 0,
                 records: range | slice | RecordRows | None = None,
                 chunk_bytes: int = DEFAULT_CHUNK_BYTES) -> Iterator[np.ndarray]:
    """Yield the records ``records`` of ``source``'s first file after ``header`` bytes, in order,
    as structured arrays of ``layout`` (:meth:`RecordLayout.records`) of at most about
    ``chunk_bytes`` bytes (at least one record each), read with ``pread`` (module rules). Each
    array may be a view of the reader's buffer, valid until the next one is asked for.

    Raises
    ------
    CoreError
        The errors of :func:`~core.records.placement.count_records` and :func:`records_range`, raised when
        the first block is asked for.
    SourceError
        The file shrank while being read.
    """
    data = source.data(0)
    chosen = records_range(records, count_records(layout, header, data.size)[0])
    view = record_bytes(layout, data, chosen, header)
    per_block = max(1, int(chunk_bytes) // layout.itemsize)
    reader = BlockReader(source.mapped_ranges(), max(DEFAULT_MAX_SPAN, per_block * layout.itemsize))
    for block in reader.blocks(view, per_block * layout.itemsize):
        yield layout.records(np.ascontiguousarray(block).reshape(-1))


@dataclass(frozen=True)
class _Item:
    """One thing exported: a whole field (``whole``: ``column`` has no index, and gives the whole
    field) or one column of an array field."""

    column: Column
    whole: bool

    @property
    def name(self) -> str:
        return self.column.name

    @property
    def field(self) -> Field:
        return self.column.field


def export_records(
    source: Source,
    layout: RecordLayout,
    path: str | os.PathLike,
    fmt: str,
    *,
    header: int = 0,
    records: range | slice | RecordRows | None = None,
    columns: Sequence[str] | None = None,
    enum_names: bool = False,
    csv_decimals: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
) -> int:
    """Write the records of ``source``'s first file under ``layout`` to ``path`` as ``fmt``
    (``"csv"`` or ``"npy"``); rules: module docstring.

    Parameters
    ----------
    source
        The open file (``core.files.sources.open_source``); read, never written.
    layout
        The record layout.
    path
        The file to write; replaced atomically once complete.
    fmt
        ``"csv"`` or ``"npy"``.
    header
        Bytes before the first record.
    records
        The records to write (a ``range`` of indices, a ``slice`` or ``RecordRows``); None: every
        one.
    columns
        Names of fields or columns to write, in that order; None: every field.
    enum_names
        CSV: an enum's name instead of its integer.
    csv_decimals
        CSV: that many decimals for floats (None: the table's shortest exact digits).
    progress, cancelled
        ``progress(records done, records total)`` after each block; ``cancelled()`` before each.
    chunk_bytes
        Bytes of records read at once.

    Returns
    -------
    int
        The bytes written (the size of the file at ``path``).

    Raises
    ------
    ExportError
        An unknown ``fmt``; ``path`` is an inspected file, a folder, a FIFO or device, in a folder
        that does not exist or cannot be written; the system refused the write (``field="path"``);
        ``csv_decimals < 0``; more than :data:`MAX_CSV_COLUMNS` CSV columns.
    CoreError
        ``field="field"``: a name that is neither a field nor a column, or named twice; the
        errors of :func:`~core.records.placement.count_records` and :func:`records_range` (a header past the
        end of the file, a record larger than the bytes after it, a range outside the records);
        ``BudgetError``: one record does not fit in the copy budget. All raised before anything
        is written.
    Cancelled
        ``cancelled()`` returned True; nothing was left behind.
    SourceError
        The file changed or shrank during the export; nothing was left behind.
    """
    if fmt not in RECORD_FORMATS:
        raise ExportError(f"Unknown records export format {fmt!r} (use one of {', '.join(RECORD_FORMATS)})",
                          field="format")
    if csv_decimals is not None and csv_decimals < 0:
        raise ExportError(f"csv_decimals must be >= 0, got {csv_decimals} (use None or 0..17)", field="csv_decimals")
    items = _chosen_items(layout, columns)
    data = source.data(0)
    chosen = records_range(records, count_records(layout, header, data.size)[0])
    check_destination(path, source.paths)
    if fmt == "npy":
        out_dtype = np.dtype([(item.name, _npy_type(item)) + _npy_shape(item) for item in items])
        check_copy_budget(layout.itemsize + out_dtype.itemsize, "one record", "export fewer fields", field="fields")
        per_block = max(1, chunk_bytes // max(layout.itemsize, out_dtype.itemsize))
    else:
        csv_columns = [c for item in items for c in _csv_columns(item)]
        if len(csv_columns) > MAX_CSV_COLUMNS:
            raise ExportError(f"the records have {len(csv_columns):,} columns, more than the {MAX_CSV_COLUMNS:,} a CSV "
                              "export writes (export .npy, or fewer fields)", field="fields")
        check_copy_budget(layout.itemsize + 128 * len(csv_columns), "one record", "export fewer fields",
                          field="fields")
        per_block = max(1, min(chunk_bytes // layout.itemsize, CSV_VALUES_PER_BLOCK // max(1, len(csv_columns))))
    blocks = checked_blocks(
        read_records(source, layout, header=header, records=chosen, chunk_bytes=per_block * layout.itemsize),
        len(chosen), len, progress=progress, cancelled=cancelled, check=source.check_unchanged)

    def write(out: IO[bytes]) -> None:
        if fmt == "npy":
            _write_npy(out, layout, items, out_dtype, len(chosen), blocks)
        else:
            _write_csv(out, layout, csv_columns, enum_names, csv_decimals, blocks)

    return write_atomically(path, write, source.paths)


# ----------------------------------------------------------------------------- choice
def _chosen_items(layout: RecordLayout, names: Sequence[str] | None) -> list[_Item]:
    """What ``names`` chooses (module rules): a field by its name, else a column by its name."""
    if names is None:
        return [_Item(Column(leaf.name, leaf), True) for leaf in layout.fields]
    if isinstance(names, str):
        names = [names]
    fields = {leaf.name: leaf for leaf in layout.fields}
    columns: dict[str, Column] | None = None
    items = []
    for name in names:
        if name in fields:
            items.append(_Item(Column(name, fields[name]), True))
            continue
        if columns is None:
            columns = {c.name: c for c in layout.columns()}
        if name not in columns:
            layout.field_named(name)  # raises, listing the fields
        items.append(_Item(columns[name], False))
    seen = [item.name for item in items]
    twice = sorted({n for n in seen if seen.count(n) > 1})
    if twice:
        raise CoreError(f"{twice[0]!r} is named twice (name each field or column once)", field="field")
    return items


def _csv_columns(item: _Item) -> list[Column]:
    return item.field.columns() if item.whole else [item.column]


def _npy_type(item: _Item) -> np.dtype:
    """The type of ``item``'s field in the ``.npy`` (module rules)."""
    leaf = item.field
    if leaf.dtype == "bfloat16" or leaf.dtype.startswith("float8"):
        return np.dtype(np.float32).newbyteorder("<" if leaf.little_endian else ">")
    return leaf.value_dtype()


def _npy_shape(item: _Item) -> tuple:
    return (item.field.shape,) if item.whole and item.field.shape else ()


# ----------------------------------------------------------------------------- npy
def _write_npy(out: IO[bytes], layout: RecordLayout, items: list[_Item], out_dtype: np.dtype, count: int,
               blocks: Iterator[np.ndarray]) -> None:
    out.write(npy_header((count,), np.lib.format.dtype_to_descr(out_dtype)))
    for block in blocks:
        rows = np.empty(len(block), out_dtype)
        for item in items:
            values = layout.values(block, item.column)
            if values.dtype.kind == "b":
                values = values.view(np.uint8) != 0  # any nonzero byte is True, written as 1
            rows[item.name] = values
        out.write(rows.view(np.uint8).data)


# ----------------------------------------------------------------------------- csv
def _write_csv(out: IO[bytes], layout: RecordLayout, columns: list[Column], enum_names: bool,
               decimals: int | None, blocks: Iterator[np.ndarray]) -> None:
    head = io.StringIO()
    csv.writer(head, lineterminator="\n").writerow([c.name for c in columns])
    out.write(head.getvalue().encode("utf-8"))
    texts: dict[str, Callable[[np.ndarray], list[str]]] = {}
    for block in blocks:
        cells = []
        for column in columns:
            values = layout.values(block, column)
            to_text = texts.get(column.name)
            if to_text is None:
                to_text = texts[column.name] = _column_texts(column, values.dtype, enum_names, decimals)
            cells.append(to_text(values))
        out.write("".join(",".join(row) + "\n" for row in zip(*cells)).encode("utf-8"))


def _column_texts(column: Column, dtype: np.dtype, enum_names: bool,
                  decimals: int | None) -> Callable[[np.ndarray], list[str]]:
    numbers = csv_texts(dtype, decimals)
    enum = column.field.enum
    if not (enum_names and enum):
        return numbers
    names = {int(k): v for k, v in enum.items()}
    return lambda values: [names.get(v, text) for v, text in zip(values.tolist(), numbers(values))]
