"""A table of result rows (a scan's tensors, a model diff's pairs) that grows while they stream
in, sorts by any column and filters by name or by problem.

The text of a cell, its sort key and a row's severity come from the engine
(:mod:`core.models.rows`); this module only keeps them in order on screen.

Rules
-----
- Rows are kept in arrival order; what is shown is a list of their indices, filtered (the name
  column contains the filter text, case-insensitive; *problems only* keeps rows with a
  severity of error or warning) and sorted (a click on a header; stable, so rows that tie keep
  their arrival order; ``-1`` is the arrival order itself).
- Rows added while sorted take their place at once; the row under the cursor stays current
  (the view restores it through its persistent index).
- A row's cells are formatted once, when first painted.
- A row with a severity has its background in that severity's colour
  (:data:`inspector.widgets.palette.MESSAGE_COLORS`), its tool tip the whole row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QLineEdit, QProgressBar, QTableView, QWidget

from inspector.widgets import palette

__all__ = ["RowsModel", "RowsView", "name_filter", "note_label", "progress_bar"]

_ROOT = QModelIndex()


class RowsModel(QAbstractTableModel):
    """Rows with ``cells(row) -> list[str]`` (one per column), ``sort_key(row, column)``,
    ``severity(row)`` and ``name_column`` (what the filter reads)."""

    def __init__(self, columns: Sequence[str], cells: Callable[[object], list[str]],
                 sort_key: Callable[[object, int], tuple], severity: Callable[[object], str | None],
                 name_column: int, parent=None) -> None:
        super().__init__(parent)
        self._columns = tuple(columns)
        self._cells_of, self._sort_key, self._severity_of = cells, sort_key, severity
        self._name_column = name_column
        self._rows: list[object] = []
        self._cells: list[list[str] | None] = []
        self._severity: list[str | None] = []
        self._shown: list[int] = []
        self._filter = ""
        self._problems_only = False
        self._sort: tuple[int, Qt.SortOrder] = (-1, Qt.AscendingOrder)

    # -- content ------------------------------------------------------------------------
    @property
    def rows(self) -> list[object]:
        """Every row, in arrival order."""
        return self._rows

    def clear(self) -> None:
        self.beginResetModel()
        self._rows, self._cells, self._severity, self._shown = [], [], [], []
        self.endResetModel()

    def add_rows(self, rows: Sequence[object]) -> None:
        """Append rows (module rules: they take their place in the shown order)."""
        first = len(self._rows)
        self._rows.extend(rows)
        self._cells.extend([None] * len(rows))
        self._severity.extend(self._severity_of(row) for row in rows)
        new = [i for i in range(first, len(self._rows)) if self._passes(i)]
        if not new:
            return
        if self._sort[0] < 0:
            self.beginInsertRows(_ROOT, len(self._shown), len(self._shown) + len(new) - 1)
            self._shown.extend(new)
            self.endInsertRows()
            return
        self.layoutAboutToBeChanged.emit()
        before = self._shown
        self._shown = self._ordered(before + new)
        self._move_persistent(before)
        self.layoutChanged.emit()

    def row_at(self, shown_row: int) -> object | None:
        """The row shown at ``shown_row`` (None outside)."""
        return self._rows[self._shown[shown_row]] if 0 <= shown_row < len(self._shown) else None

    def shown_row_of(self, row: object) -> int:
        """Where ``row`` is shown (-1: filtered out or not there)."""
        for shown, i in enumerate(self._shown):
            if self._rows[i] is row:
                return shown
        return -1

    @property
    def shown_count(self) -> int:
        return len(self._shown)

    def set_filter(self, text: str, problems_only: bool) -> None:
        self.beginResetModel()
        self._filter, self._problems_only = text.strip().lower(), problems_only
        self._shown = self._ordered([i for i in range(len(self._rows)) if self._passes(i)])
        self.endResetModel()

    def _passes(self, i: int) -> bool:
        if self._problems_only and self._severity[i] not in ("error", "warning"):
            return False
        return not self._filter or self._filter in self._cell(i, self._name_column).lower()

    def _ordered(self, indices: list[int]) -> list[int]:
        column, order = self._sort
        if column < 0:
            return sorted(indices)
        rows = self._rows  # sorted() is stable both ways: ties keep their arrival order
        return sorted(sorted(indices), key=lambda i: self._sort_key(rows[i], column),
                      reverse=order == Qt.DescendingOrder)

    def _move_persistent(self, before: list[int]) -> None:
        where = {i: shown for shown, i in enumerate(self._shown)}
        old = self.persistentIndexList()
        new = [self.index(where.get(before[index.row()], -1), index.column()) if index.row() < len(before)
               else QModelIndex() for index in old]
        self.changePersistentIndexList(old, new)

    def _cell(self, i: int, column: int) -> str:
        cells = self._cells[i]
        if cells is None:
            cells = self._cells[i] = self._cells_of(self._rows[i])
        return cells[column]

    # -- QAbstractTableModel ------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._shown)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.DisplayRole):
        if role == Qt.DisplayRole:
            return self._columns[section] if orientation == Qt.Horizontal else str(section + 1)
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._shown):
            return None
        i = self._shown[index.row()]
        if role == Qt.DisplayRole:
            return self._cell(i, index.column())
        if role == Qt.ToolTipRole:
            return "\n".join(f"{name}: {self._cell(i, c)}" for c, name in enumerate(self._columns)
                             if self._cell(i, c))
        if role == Qt.BackgroundRole and self._severity[i] is not None:
            return QColor(palette.MESSAGE_COLORS[self._severity[i]].background)
        if role == Qt.TextAlignmentRole and index.column() != self._name_column:
            text = self._cell(i, index.column())
            if text[:1].isdigit() or text[:1] in "-+":
                return int(Qt.AlignRight | Qt.AlignVCenter)
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.AscendingOrder) -> None:
        self.layoutAboutToBeChanged.emit()
        before = self._shown
        self._sort = (column, order)
        self._shown = self._ordered(list(before))
        self._move_persistent(before)
        self.layoutChanged.emit()


class RowsView(QTableView):
    """The table of a :class:`RowsModel`: sorted by a click on a header, one row selected at a
    time, read-only, long names elided in the middle, compact rows; ``sort_column`` sorts at
    once (-1: arrival order)."""

    def __init__(self, model: RowsModel, name: str, parent: QWidget, sort_column: int = -1) -> None:
        super().__init__(parent, objectName=name)
        self.setModel(model)
        self.setSortingEnabled(True)
        if sort_column < 0:
            self.horizontalHeader().setSortIndicator(-1, Qt.AscendingOrder)
        else:
            self.sortByColumn(sort_column, Qt.AscendingOrder)
        self.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.setSelectionMode(QAbstractItemView.SingleSelection)
        self.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.setTextElideMode(Qt.ElideMiddle)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.Interactive)
        header.setStretchLastSection(True)

    def size_columns(self, columns: Sequence[str], samples: dict[str, str], default: str) -> None:
        """Each column as wide as its sample text (``default`` for the others) and a margin."""
        metrics = self.fontMetrics()
        margin = 2 * metrics.horizontalAdvance("M")
        for column, name in enumerate(columns):
            self.setColumnWidth(column, metrics.horizontalAdvance(samples.get(name, default)) + margin)


def note_label(parent: QWidget, name: str, banner: str | None = None) -> QLabel:
    """A word-wrapped plain-text label; ``banner``: a severity's banner style, hidden until it
    has something to say."""
    label = QLabel(parent, objectName=name)
    label.setTextFormat(Qt.PlainText)
    label.setWordWrap(True)
    if banner is not None:
        label.setStyleSheet(palette.banner_style(banner))
        label.hide()
    return label


def progress_bar(parent: QWidget, name: str) -> QProgressBar:
    """A small progress bar in thousandths, no text (beside a table's controls)."""
    bar = QProgressBar(parent, objectName=name)
    bar.setRange(0, 1000)
    bar.setTextVisible(False)
    bar.setMaximumWidth(160)
    return bar


def name_filter(parent: QWidget, name: str, placeholder: str) -> QLineEdit:
    """The filter box above a table of rows (with a clear button)."""
    edit = QLineEdit(parent, objectName=name)
    edit.setPlaceholderText(placeholder)
    edit.setClearButtonEnabled(True)
    return edit
