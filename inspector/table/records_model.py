"""A Qt table model of records: one row per record, one column per field element
(:class:`core.records.layout.RecordLayout`).

Rules: the records shown (:class:`core.records.choice.RecordRows`: a slice of the records) are
paged: the model exposes at most :data:`PAGE_ROWS` of them at once (Qt's header lengths are
32-bit: 10^8 rows of 22 pixels would overflow), model row ``k`` being shown row
``page_first + k``, record ``rows.record(page_first + k)``; row headers are record numbers. Rows are read from the source on demand (``read_exact``: ``pread`` for files,
the block cache for URLs), :data:`ROWS_PER_READ` rows at a time around the row asked for: one
read of the bytes they span when that is at most :data:`MAX_SPAN_READ` bytes, else one read per
record; the last :data:`KEPT_READS` reads kept; nothing else of the file is read. Cells use the table's number
formatter of the field's type; an enum shows its name and value (``FAULT (7)``), a bit field its
computed value. Column headers name the field, its type and its offset; row headers the record
index. A read that fails shows ``—`` and the error in the cell's tooltip.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt

from core.errors import CoreError, describe_error
from core.records.choice import RecordRows
from core.records.layout import RecordLayout
from core.text.number_format import format_value

__all__ = ["KEPT_READS", "MAX_SPAN_READ", "PAGE_ROWS", "ROWS_PER_READ", "RecordsModel"]

#: Records read at once.
ROWS_PER_READ = 256
#: Reads of ROWS_PER_READ records kept.
KEPT_READS = 16
#: Most rows exposed to Qt at once (a page).
PAGE_ROWS = 1_000_000
#: Largest span of bytes read at once for the rows of a strided slice of records.
MAX_SPAN_READ = 1 << 20


_DISPLAY, _ALIGNMENT = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.TextAlignmentRole
_ROLES = frozenset((_DISPLAY, Qt.ItemDataRole.ToolTipRole, _ALIGNMENT))  # looked up once: data() is per cell
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class RecordsModel(QAbstractTableModel):
    """The records of one source under one layout (module rules)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._source = None
        self._layout: RecordLayout | None = None
        self._columns: list = []
        self._header = 0
        self._rows = RecordRows(0, 1, 0)
        self._page_first = 0
        self._values: dict[tuple[int, int], tuple] = {}  # (read, column) -> (values, dtype)
        self._reads: OrderedDict[int, object] = OrderedDict()

    def show(self, source, layout: RecordLayout | None, header: int = 0, rows: RecordRows | None = None) -> None:
        """Show the records ``rows`` of ``layout`` from byte ``header`` of ``source``'s first file."""
        self.beginResetModel()
        self._source, self._layout, self._header = source, layout, header
        self._rows = rows if rows is not None and layout is not None else RecordRows(0, 1, 0)
        self._page_first = 0
        self._columns = layout.columns() if layout is not None else []
        self._reads.clear()
        self._values.clear()
        self.endResetModel()

    @property
    def layout(self) -> RecordLayout | None:
        return self._layout

    def column(self, index: int):
        return self._columns[index]

    @property
    def rows(self) -> RecordRows:
        return self._rows

    @property
    def page_first(self) -> int:
        """The shown row of model row 0 (a multiple of :data:`PAGE_ROWS`)."""
        return self._page_first

    def record_of(self, row: int) -> int:
        """The record of model row ``row``."""
        return self._rows.record(self._page_first + row)

    def set_page(self, shown_row: int) -> int:
        """Expose the page holding shown row ``shown_row``; its model row."""
        shown_row = min(max(int(shown_row), 0), max(self._rows.count - 1, 0))
        first = shown_row - shown_row % PAGE_ROWS
        if first != self._page_first:
            self.beginResetModel()
            self._page_first = first
            self._reads.clear()
            self._values.clear()
            self.endResetModel()
        return shown_row - first

    def rowCount(self, parent: QModelIndex | None = None) -> int:
        return 0 if parent is not None and parent.isValid() else \
            max(min(PAGE_ROWS, self._rows.count - self._page_first), 0)

    def columnCount(self, parent: QModelIndex | None = None) -> int:
        return 0 if parent is not None and parent.isValid() else len(self._columns)

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Vertical:
            if role != Qt.ItemDataRole.DisplayRole or not 0 <= section < self.rowCount():
                return None
            return str(self.record_of(section))
        if not 0 <= section < len(self._columns):
            return None
        column = self._columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{column.name}\n{column.field.type_text()} @{column.offset}"
        if role == Qt.ItemDataRole.ToolTipRole:
            leaf = column.field
            text = f"{column.name}: {leaf.type_text()}, byte {column.offset} of the {self._layout.itemsize}-byte record"
            if leaf.enum:
                text += "; " + ", ".join(f"{v} = {k}" for k, v in list(leaf.enum.items())[:12])
            return text
        return None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if role not in _ROLES or not index.isValid():
            return None
        if role == _ALIGNMENT:
            return _RIGHT
        number = index.row() // ROWS_PER_READ
        block = self._block(number)
        if isinstance(block, str):
            return "—" if role == _DISPLAY else block
        column = self._columns[index.column()]
        found = self._values.get((number, index.column()))
        if found is None:  # a column of a block: computed once (a bit field's values, a field's view)
            values = self._layout.values(block, column)
            found = self._values[(number, index.column())] = (values, np.asarray(values).dtype)
            if len(self._values) > KEPT_READS * max(len(self._columns), 1):
                self._values.clear()
        values, dtype = found
        value = values[index.row() % ROWS_PER_READ]
        text = format_value(value, dtype)
        if column.field.enum:
            name = column.field.enum.get(int(value))
            text = f"{name} ({text})" if name else text
        if role == _DISPLAY:
            return text
        return f"record {self.record_of(index.row())}, {column.name} = {text}"

    def _block(self, number: int):
        """Rows ``number * ROWS_PER_READ`` onward (a structured array), or the error's text."""
        found = self._reads.get(number)
        if found is not None:
            self._reads.move_to_end(number)
            return found
        first = number * ROWS_PER_READ
        count = min(ROWS_PER_READ, self.rowCount() - first)
        try:
            found = self._layout.records(np.frombuffer(self._read_rows(first, count), np.uint8))
        except CoreError as error:
            found = describe_error(error).message
        self._reads[number] = found
        while len(self._reads) > KEPT_READS:
            dropped, _block = self._reads.popitem(last=False)
            for key in [k for k in self._values if k[0] == dropped]:
                del self._values[key]
        return found

    def _read_rows(self, first: int, count: int) -> bytes:
        """The bytes of rows ``first`` .. ``first + count - 1``, record after record (module rules)."""
        size, step = self._layout.itemsize, self._rows.step
        records = [self.record_of(first + k) for k in range(count)]
        lo, hi = min(records), max(records)
        span = (hi - lo + 1) * size
        if span <= MAX_SPAN_READ:
            data = np.frombuffer(self._source.read_exact(0, self._header + lo * size, span, "records"), np.uint8)
            if step == 1:
                return data.tobytes()
            whole = data.reshape(-1, size)
            return whole[np.array(records) - lo].tobytes()
        return b"".join(self._source.read_exact(0, self._header + r * size, size, "records") for r in records)
