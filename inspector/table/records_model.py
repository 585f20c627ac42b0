"""A Qt table model of records: one row per record, one column per field element
(:class:`core.records.layout.RecordLayout`).

Rules: rows are read from the source on demand (``read_exact``: ``pread`` for files, the block
cache for URLs), :data:`ROWS_PER_READ` records at a time around the row asked for, the last
:data:`KEPT_READS` reads kept; nothing else of the file is read. Cells use the table's number
formatter of the field's type; an enum shows its name and value (``FAULT (7)``), a bit field its
computed value. Column headers name the field, its type and its offset; row headers the record
index. A read that fails shows ``—`` and the error in the cell's tooltip.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt

from core.errors import CoreError, describe_error
from core.records.layout import RecordLayout
from core.text.number_format import format_value

__all__ = ["KEPT_READS", "ROWS_PER_READ", "RecordsModel"]

#: Records read at once.
ROWS_PER_READ = 256
#: Reads of ROWS_PER_READ records kept.
KEPT_READS = 16


class RecordsModel(QAbstractTableModel):
    """The records of one source under one layout (module rules)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._source = None
        self._layout: RecordLayout | None = None
        self._columns: list = []
        self._header = 0
        self._count = 0
        self._reads: OrderedDict[int, object] = OrderedDict()

    def show(self, source, layout: RecordLayout | None, header: int = 0, count: int = 0) -> None:
        """Show ``count`` records of ``layout`` from byte ``header`` of ``source``'s first file."""
        self.beginResetModel()
        self._source, self._layout, self._header, self._count = source, layout, header, count
        self._columns = layout.columns() if layout is not None else []
        self._reads.clear()
        self.endResetModel()

    @property
    def layout(self) -> RecordLayout | None:
        return self._layout

    def column(self, index: int):
        return self._columns[index]

    def rowCount(self, parent: QModelIndex | None = None) -> int:
        return 0 if parent is not None and parent.isValid() else self._count

    def columnCount(self, parent: QModelIndex | None = None) -> int:
        return 0 if parent is not None and parent.isValid() else len(self._columns)

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Vertical:
            return str(section) if role == Qt.ItemDataRole.DisplayRole else None
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
        if not index.isValid() or role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole,
                                               Qt.ItemDataRole.TextAlignmentRole):
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        block = self._block(index.row() // ROWS_PER_READ)
        if isinstance(block, str):
            return "—" if role == Qt.ItemDataRole.DisplayRole else block
        column = self._columns[index.column()]
        values = self._layout.values(block, column)
        value = values[index.row() % ROWS_PER_READ]
        text = format_value(value, np.asarray(values).dtype)
        if column.field.enum:
            name = column.field.enum.get(int(value))
            text = f"{name} ({text})" if name else text
        return text if role == Qt.ItemDataRole.DisplayRole else f"record {index.row()}, {column.name} = {text}"

    def _block(self, number: int):
        """Records ``number * ROWS_PER_READ`` onward (a structured array), or the error's text."""
        found = self._reads.get(number)
        if found is not None:
            self._reads.move_to_end(number)
            return found
        first = number * ROWS_PER_READ
        count = min(ROWS_PER_READ, self._count - first)
        size = self._layout.itemsize
        try:
            data = self._source.read_exact(0, self._header + first * size, count * size, "records")
            found = self._layout.records(np.frombuffer(data, np.uint8))
        except CoreError as error:
            found = describe_error(error).message
        self._reads[number] = found
        while len(self._reads) > KEPT_READS:
            self._reads.popitem(last=False)
        return found
