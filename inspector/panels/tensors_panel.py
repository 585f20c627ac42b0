"""The Tensors dock: the tensors inside the open container file, to choose one by name.

A view of :attr:`Document.container` (listed by :mod:`core.formats` when a file is opened): a
tree with the container at the root and one row per tensor (name, type, shape, kind, offset,
bytes, sharing, quantization, notes), a filter box that keeps the rows whose name contains its text
(case-insensitive), and the entry the decode parameters show selected. The kind says how the
values are had (``view``, ``copy``, ``computed``: :class:`core.formats.entry.Storage`); sharing
says the file it lives in when not the open one and the entries on the same bytes
(:func:`core.formats.report.sharing_text`); quantization the scale and zero point or the
per-channel axis (:func:`core.formats.report.quantization_text`). A quantized tensor's row is
followed by its ``NAME (dequantized)`` row, a computed entry opened like the others.

One path for every entry: choosing the row of a view of the open file is
:meth:`Document.choose_tensor` (undoable); any other entry (a compressed npz member, a chunked
HDF5 dataset, a quantized GGUF tensor, a TFRecord int64_list, a view of another file) is opened
by *Open in a new window* (enabled while one is the current row; Enter or a double click on its
row too): :meth:`Document.entry_values` gives its values (its format's one ``values`` hook, a
budget-checked copy), shown in a new window named after the tensor (``q8 (Q8_0,
dequantized)``); the file's window stays as it is. A refusal (package missing, over budget, a
corrupt member) is shown under the tree. A tensor that cannot be had at all (an unsupported
type, a truncated entry) is greyed, and its note says why.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QAbstractItemModel, QItemSelectionModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from core.errors import ContainerError, CoreError, describe_error
from core.formats.entry import ContainerListing, TensorEntry, find_entry
from core.formats.report import quantization_text, sharing_text
from core.text.byte_sizes import format_bytes
from core.text.names import printable_name
from inspector.state.document import Document
from inspector.widgets import palette

__all__ = ["TensorsModel", "TensorsPanel"]

#: The invisible root (Qt's default "parent" argument).
_ROOT = QModelIndex()

COLUMNS = ("name", "type", "shape", "kind", "offset", "bytes", "sharing", "quantization", "notes")

#: Rows whose cells size the columns (the first ones): sizing a column from all of a listing of
#: 400,000 tensors would take the GUI thread seconds.
SIZED_ROWS = 200

#: Rows the tree is given at a time (Qt's ``fetchMore``: more as it scrolls to the end), so
#: showing a listing never lays out 400,000 rows on the GUI thread.
FETCH_ROWS = 1000

_SELECTABLE = Qt.ItemIsEnabled | Qt.ItemIsSelectable
_GREYED = Qt.ItemIsEnabled


def entry_notes(entry: TensorEntry) -> str:
    """The problem that keeps an entry from being shown, else its extras as ``key=value``."""
    if entry.problem:
        return entry.problem
    return ", ".join(f"{key}={value}" for key, value in entry.extras.items())


def _cell(entry: TensorEntry, column: int) -> str:
    if column == 0:
        return printable_name(entry.name)
    if column == 1:
        if entry.dtype is None:
            return f"{entry.stored_type} (not decodable)"
        if entry.stored_type and entry.stored_type.lower().rpartition(".")[2] != entry.dtype:
            return f"{entry.dtype} ({entry.stored_type})"  # the stored name when it says more
        return entry.dtype
    if column == 2:
        return "(" + ", ".join(str(n) for n in entry.shape) + ("," if len(entry.shape) == 1 else "") + ")"
    if column == 3:
        return entry.storage.value
    if column == 4:
        return str(entry.offset)
    if column == 5:
        return format_bytes(entry.nbytes)
    if column == 6:
        return sharing_text(entry)
    if column == 7:
        return quantization_text(entry)
    return entry_notes(entry)


def opens_in_new_window(entry: TensorEntry | None) -> bool:
    """Whether ``entry``'s values open in a window of their own (readable, not a view of the
    open file)."""
    return entry is not None and entry.readable and not entry.local_view


class TensorsModel(QAbstractItemModel):
    """Root row: the container (format and file); its children: the entries that match the filter.

    An index's internal id is 0 for the root row and ``i + 1`` for entry ``i`` of the listing.
    The tree gets the matching rows :data:`FETCH_ROWS` at a time (``canFetchMore`` /
    ``fetchMore``); the root row counts them all.
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._listing: ContainerListing | None = None
        self._rows: list[int] = []  # listing indices shown, in order
        self._loaded = 0  # how many of them the tree has been given
        self._readable: list[bool] = []  # per listing index (flags() is asked for every row)
        self.any_opens_in_new_window = False  # an entry is readable, not a view of the open file
        self._filter = ""
        self.partial = False  # the listing still runs: its entries so far

    # -- content ------------------------------------------------------------------------
    def set_listing(self, listing: ContainerListing | None, *, partial: bool = False) -> None:
        """Show ``listing``; ``partial``: the entries a running listing has found so far."""
        self.beginResetModel()
        self._listing, self.partial = listing, partial
        self._readable = [] if listing is None else [e.readable for e in listing.entries]
        self.any_opens_in_new_window = listing is not None and any(
            readable and not e.local_view for readable, e in zip(self._readable, listing.entries))
        self._rows = self._matching()
        self._loaded = min(len(self._rows), FETCH_ROWS)
        self.endResetModel()

    def set_filter(self, text: str) -> None:
        self.beginResetModel()
        self._filter = text.strip().lower()
        self._rows = self._matching()
        self._loaded = min(len(self._rows), FETCH_ROWS)
        self.endResetModel()

    def _matching(self) -> list[int]:
        if self._listing is None:
            return []
        return [i for i, e in enumerate(self._listing.entries) if self._filter in e.name.lower()]

    def entry(self, index: QModelIndex) -> TensorEntry | None:
        if not index.isValid() or index.internalId() == 0 or self._listing is None:
            return None
        return self._listing.entries[index.internalId() - 1]

    def index_of(self, entry: TensorEntry) -> QModelIndex:
        """The index of ``entry``'s row (invalid when the filter hides it)."""
        if self._listing is None:
            return QModelIndex()
        for row, i in enumerate(self._rows):
            if self._listing.entries[i] is entry:
                self._load_through(row)
                return self.index(row, 0, self.index(0, 0))
        return QModelIndex()

    def _load_through(self, row: int) -> None:
        """Give the tree the rows up to ``row`` (a row chosen beyond those it has)."""
        if row >= self._loaded:
            last = min(len(self._rows), (row // FETCH_ROWS + 1) * FETCH_ROWS) - 1
            self.beginInsertRows(self.index(0, 0), self._loaded, last)
            self._loaded = last + 1
            self.endInsertRows()

    def canFetchMore(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> bool:
        return parent.isValid() and parent.internalId() == 0 and self._loaded < len(self._rows)

    def fetchMore(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> None:
        if self.canFetchMore(parent):
            self._load_through(self._loaded)

    # -- QAbstractItemModel -------------------------------------------------------------
    def index(self, row: int, column: int, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> QModelIndex:
        if self._listing is None or not 0 <= column < len(COLUMNS):
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, 0) if row == 0 else QModelIndex()
        if parent.internalId() == 0 and 0 <= row < self._loaded:
            return self.createIndex(row, column, self._rows[row] + 1)
        return QModelIndex()

    def parent(self, index: QModelIndex | QPersistentModelIndex = _ROOT) -> QModelIndex:  # type: ignore[override]
        if not index.isValid() or index.internalId() == 0:
            return QModelIndex()
        return self.createIndex(0, 0, 0)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        if self._listing is None:
            return 0
        if not parent.isValid():
            return 1
        if parent.internalId() == 0 and parent.column() == 0:
            return self._loaded
        return 0

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.DisplayRole):
        if orientation == Qt.Horizontal and role == Qt.DisplayRole:
            return COLUMNS[section]
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        i = index.internalId() if index.isValid() else 0
        if i and not self._readable[i - 1]:
            return _GREYED  # listed, not selectable: its note says why
        return _SELECTABLE

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.DisplayRole):
        if not index.isValid() or self._listing is None:
            return None
        entry = self.entry(index)
        if entry is None:  # the container row
            if role == Qt.DisplayRole and index.column() == 0:
                total = len(self._listing.entries)
                shown = f"{len(self._rows)} of {total}" if len(self._rows) != total else str(total)
                name = printable_name(os.path.basename(self._listing.path))
                noun = "tensor" if len(self._rows) == total == 1 else "tensors"
                if self.partial:
                    return f"{self._listing.format}: {name} (listing... {shown} {noun} so far)"
                return f"{self._listing.format}: {name} ({shown} {noun})"
            if role == Qt.ToolTipRole:
                facts = [printable_name(self._listing.path)]
                facts += [f"{k}: {v}" for k, v in self._listing.metadata.items()]
                return "\n".join(facts)
            return None
        if role in (Qt.DisplayRole, Qt.ToolTipRole):
            return _cell(entry, index.column())
        if role == Qt.ForegroundRole and not entry.readable:
            return QColor(palette.MUTED)
        return None


class TensorsPanel(QWidget):
    """Filter box, the tree of tensors, and the problems met while listing.

    Parameters
    ----------
    document
        The document whose container it lists and whose tensor it chooses.

    Signals
    -------
    valuesComputed(values, name, record_layout)
        *Open in a new window* got an entry's ``values`` (a numpy array: a copy, a computed
        value, or a view of another file; or the :class:`~inspector.state.document.EntryFileView`
        of a remote file) to show under ``name``; ``record_layout``: the entry's records' numpy
        description (its values are their bytes, one row each), or "".
    """

    valuesComputed = Signal(object, str, str)

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._shown_count = -1  # entries of the running listing shown
        self.filter_edit = QLineEdit(self, objectName="tensors.filter")
        self.filter_edit.setPlaceholderText("Filter tensors by name")
        self.filter_edit.setClearButtonEnabled(True)
        self.model = TensorsModel(self)
        self.tree = QTreeView(self, objectName="tensors.tree")
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)  # 100,000 rows stay instant
        self.tree.setTextElideMode(Qt.ElideMiddle)  # a long name keeps its end (".mlp.down.weight")
        self.tree.setSelectionMode(QAbstractItemView.SingleSelection)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.problems = QLabel(self, objectName="tensors.problems")
        self.problems.setWordWrap(True)
        self.problems.setTextFormat(Qt.PlainText)
        self.problems.setStyleSheet(palette.banner_style("warning"))
        self.problems.hide()
        self.open_button = QPushButton("Open in a new window", self, objectName="tensors.openValues")
        self.open_button.setToolTip("Open the chosen tensor's values in a new window: a copy in memory "
                                    "(decompressed, read by h5py, dequantized, "
                                    "decoded from varints) or a view of the file it lives in")
        self.open_button.clicked.connect(self.open_current)
        self.open_button.hide()
        self.values_error = QLabel(self, objectName="tensors.valuesError")
        self.values_error.setWordWrap(True)
        self.values_error.setTextFormat(Qt.PlainText)
        self.values_error.setStyleSheet(palette.banner_style("error"))
        self.values_error.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.open_button)
        layout.addWidget(self.values_error)
        layout.addWidget(self.problems)
        self.filter_edit.textChanged.connect(self._on_filter)
        self.tree.selectionModel().currentRowChanged.connect(self._on_current)
        self.tree.activated.connect(self._on_activated)
        document.containerChanged.connect(self._on_container)
        document.listingChanged.connect(self._on_listing_progress)
        document.paramsChanged.connect(self._show_current)
        self._on_container(document.container)

    def _on_container(self, listing: ContainerListing | None) -> None:
        self.model.set_listing(listing)
        self.tree.expand(self.model.index(0, 0))  # the container row only: expandAll asks every row for children
        self._size_columns()
        # Names first: wide enough for most of them, never the whole dock (the tool tip has it all).
        self.tree.setColumnWidth(0, min(self.tree.columnWidth(0), 260))
        problems = list(listing.problems) if listing is not None else []
        self.problems.setText("\n".join(problems[:20]) + (f"\n... and {len(problems) - 20} more"
                                                            if len(problems) > 20 else ""))
        self.problems.setVisible(bool(problems))
        self.open_button.setVisible(self.model.any_opens_in_new_window)
        self.values_error.hide()
        self._show_current()

    def _on_listing_progress(self) -> None:
        """Entries appear as the background listing finds them (the final listing replaces them)."""
        found = self._document.listing_found
        if found is None or (self.model.partial and self._shown_count == len(found.entries)):
            return
        current = self._current_entry()
        self._shown_count = len(found.entries)
        self.model.set_listing(found, partial=True)
        self.tree.expand(self.model.index(0, 0))
        if current is not None:
            index = self.model.index_of(current)
            if index.isValid():
                self.tree.selectionModel().blockSignals(True)
                self.tree.selectionModel().setCurrentIndex(
                    index, QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows)
                self.tree.selectionModel().blockSignals(False)

    def _size_columns(self) -> None:
        """Columns as wide as the header and the first :data:`SIZED_ROWS` rows need."""
        metrics = self.tree.fontMetrics()
        root = self.model.index(0, 0)
        rows = min(self.model.rowCount(root), SIZED_ROWS)
        padding = 2 * metrics.horizontalAdvance("M")
        for column in range(len(COLUMNS) - 1):
            texts = [COLUMNS[column]] + [str(self.model.data(self.model.index(r, column, root)) or "")
                                         for r in range(rows)]
            width = max(metrics.horizontalAdvance(t) for t in texts) + padding
            if column == 0:
                width += self.tree.indentation()
                width = max(width, metrics.horizontalAdvance(str(self.model.data(root) or "")) + padding)
            self.tree.setColumnWidth(column, width)

    def _on_filter(self, text: str) -> None:
        self.model.set_filter(text)
        self.tree.expand(self.model.index(0, 0))  # the container row only: expandAll asks every row for children
        self._show_current()

    def resizeEvent(self, event) -> None:
        """The chosen row stays in sight when the dock is resized (first shown with a container)."""
        super().resizeEvent(event)
        current = self.tree.selectionModel().currentIndex()
        if current.isValid():
            self.tree.scrollTo(current)

    def _show_current(self, *_args: object) -> None:
        """Select the row of the entry the decode parameters show (without choosing it again)."""
        entry = self._document.current_entry
        if entry is None:  # the file shown as bytes: offer the first tensor of a new window
            entry = self._first_other_entry()
        index = self.model.index_of(entry) if entry is not None else None
        selection = self.tree.selectionModel()
        selection.blockSignals(True)
        try:
            if index is not None and index.isValid():
                selection.setCurrentIndex(index, QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows)
                self.tree.scrollTo(index)
            else:
                selection.clearSelection()
        finally:
            selection.blockSignals(False)
        self._enable_computing_buttons()
        self.tree.viewport().update()

    def _enable_computing_buttons(self) -> None:
        self.open_button.setEnabled(opens_in_new_window(self._current_entry()))

    def _first_other_entry(self) -> TensorEntry | None:
        """With no tensor a view of the file (a savez_compressed archive, an HDF5 file of
        chunked datasets), the first one whose values open in a new window; else None."""
        listing = self._document.container
        if listing is None or any(entry.local_view for entry in listing.entries):
            return None
        return next((entry for entry in listing.entries if opens_in_new_window(entry)), None)

    def _current_entry(self) -> TensorEntry | None:
        return self.model.entry(self.tree.selectionModel().currentIndex())

    def show_tensor(self, name: str) -> None:
        """Show the tensor called ``name`` as choosing its row would: a view of the open file in
        this window (:meth:`Document.choose_tensor`), any other readable entry in a new window; a
        name the listing lacks, or an entry that cannot be had, is said under the tree."""
        listing = self._document.container
        try:
            if listing is None:
                raise ContainerError(f"there is no tensor named '{printable_name(name)}': the open "
                                     "file is not a container", field="tensor")
            entry = find_entry(listing, name)
        except CoreError as error:
            self.values_error.setText(describe_error(error).message)
            self.values_error.show()
            return
        if entry.local_view:
            self._document.choose_tensor(entry.name)
        else:
            self._open_values(entry)

    def open_current(self) -> None:
        """Open the current row's values in a new window (the button): :meth:`Document.entry_values`,
        then :attr:`valuesComputed`; a refusal is shown under the tree."""
        self._open_values(self._current_entry())

    def _on_activated(self, index: QModelIndex) -> None:  # Enter or a double click on a row
        self._open_values(self.model.entry(index))

    def _open_values(self, entry: TensorEntry | None) -> None:
        if entry is not None and not entry.readable:  # never a silent no-op: say why not
            self.values_error.setText(entry.problem or f"'{entry.name}' cannot be opened "
                                      f"(its type {entry.stored_type} is not decoded)")
            self.values_error.show()
            return
        if not opens_in_new_window(entry):
            return
        QApplication.setOverrideCursor(Qt.WaitCursor)
        try:
            values, name = self._document.entry_values(entry)
        except CoreError as error:
            self.values_error.setText(describe_error(error).message)
            self.values_error.show()
            return
        finally:
            QApplication.restoreOverrideCursor()
        self.values_error.hide()
        self.valuesComputed.emit(values, name, entry.record_layout or "")

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._enable_computing_buttons()
        entry = self.model.entry(current)
        if entry is not None and entry.local_view and entry is not self._document.current_entry:
            self._document.choose_tensor(entry.name)
