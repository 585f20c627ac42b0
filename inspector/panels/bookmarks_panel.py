"""The Bookmarks dock: the named elements, regions and byte ranges of the open files.

A view of :attr:`Document.bookmarks <inspector.state.document.Document.bookmarks>`
(:class:`inspector.state.bookmarks.Bookmarks`, the one owner of the list): a list (name with its
colour swatch, kind, where, note) filtered by a text box (name, where or note contain the text,
case-insensitive), buttons that bookmark the selected element (Ctrl+D, as a browser's
bookmark key), the current slice as a region, or the hex view's selected bytes, and fields that
edit the current bookmark's name, note and colour. Every change is an undoable edit of the
document. Double-click or Enter chooses a bookmark (restores its decode parameters and slice and
selects it); Del removes it.

The panel does not read the hex view: the window hands it a function that returns the hex view's
selection (:meth:`BookmarksPanel.set_byte_selection_source`).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QAction, QColor, QIcon, QKeySequence, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.session.bookmark import Bookmark
from core.session.placement import plain_slice_text
from core.text.names import printable_name
from inspector.state.document import Document
from inspector.widgets import palette
from inspector.widgets.actions import command_action

__all__ = ["BookmarksModel", "BookmarksPanel", "where_text"]

_ROOT = QModelIndex()
COLUMNS = ("name", "kind", "where", "note")


def where_text(bookmark: Bookmark) -> str:
    """What a bookmark points at, in a few words: ``"[1, 2] of x[0:3]"``, ``"x[1:3, :]"``,
    ``"file 1, bytes 0x10..0x1f (16)"``; prefixed by its container tensor's name."""
    slice_text = plain_slice_text(bookmark.slice_text)
    if bookmark.kind == "bytes":
        start, length = bookmark.byte_range
        text = f"file {bookmark.file_index}, bytes {start:#x}..{start + length - 1:#x} ({length:,})"
    elif bookmark.kind == "element":
        where = "[" + ", ".join(str(i) for i in bookmark.index) + "]"
        text = f"{where} of x{slice_text}" if slice_text else where
    else:
        text = f"x{slice_text}" if slice_text else "the whole tensor"
    return f"{printable_name(bookmark.tensor)}: {text}" if bookmark.tensor else text


def swatch(colour: str, size: int = 12) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor(colour))
    return QIcon(pixmap)


class BookmarksModel(QAbstractTableModel):
    """One row per bookmark of the document, in the list's order."""

    def __init__(self, document: Document, parent=None) -> None:
        super().__init__(parent)
        self._bookmarks = document.bookmarks
        self._bookmarks.changed.connect(self._on_changed)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._bookmarks)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self._bookmarks):
            return None
        bookmark = self._bookmarks.items[index.row()]
        column = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            text = (printable_name(bookmark.name), bookmark.kind, where_text(bookmark), bookmark.note)[column]
            return text.replace("\n", " ") if role == Qt.ItemDataRole.DisplayRole else text or None
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return swatch(bookmark.colour)
        return None

    def _on_changed(self) -> None:
        self.beginResetModel()
        self.endResetModel()


class BookmarksPanel(QWidget):
    """The list, the add / remove buttons and the current bookmark's fields.

    Signals
    -------
    message(str)
        A one-line note for the status bar (e.g. "select bytes in the hex view first").
    """

    message = Signal(str)

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._bookmarks = document.bookmarks
        self._byte_selection: Callable[[], tuple[int, int, int] | None] = lambda: None
        self._row = -1  # the bookmark the fields edit
        self._typing_in: QLineEdit | None = None  # the field whose keystroke is being applied
        self.model = BookmarksModel(document, self)
        self._proxy = QSortFilterProxyModel(self)
        self._proxy.setSourceModel(self.model)
        self._proxy.setFilterKeyColumn(-1)
        self._proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self._build()
        self._bookmarks.changed.connect(self._on_bookmarks_changed)
        self._on_bookmarks_changed()

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        self.filter_edit = QLineEdit(self, objectName="bookmarks.filter", placeholderText="filter bookmarks")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self._proxy.setFilterFixedString)
        self.view = QTableView(self, objectName="bookmarks.list")
        self.view.setModel(self._proxy)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.view.doubleClicked.connect(lambda _index: self.choose_current())
        self.view.activated.connect(lambda _index: self.choose_current())  # Enter
        self.view.selectionModel().currentRowChanged.connect(self._on_current_row_changed)
        self.view.setMinimumHeight(60)

        self.add_element_action = self._action("Bookmark the selected &element", "Ctrl+D", self.add_element)
        self.add_region_action = self._action("Bookmark the slice as a &region", None, self.add_region)
        self.add_bytes_action = self._action("Bookmark the selected &bytes", None, self.add_bytes)
        remove = self._action("&Remove bookmark", QKeySequence.StandardKey.Delete, self.remove_current)
        remove.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)  # Del in the list only
        self.view.addAction(remove)
        buttons = QHBoxLayout()  # the filter and the buttons share a row: the list gets the height
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.filter_edit, 1)
        for name, text, tip, slot in (
            ("addElement", "+ element", "Bookmark the selected element (Ctrl+D)", self.add_element),
            ("addRegion", "+ region", "Bookmark the current slice as a region", self.add_region),
            ("addBytes", "+ bytes", "Bookmark the bytes selected in the Bytes panel", self.add_bytes),
            ("remove", "remove", "Remove the current bookmark (Del)", self.remove_current),
        ):
            button = QPushButton(text, self, objectName=f"bookmarks.{name}", toolTip=tip, autoDefault=False)
            button.clicked.connect(slot)
            buttons.addWidget(button)
            setattr(self, f"{name}_button", button)

        self.name_edit = QLineEdit(self, objectName="bookmarks.name")
        self.note_edit = QLineEdit(self, objectName="bookmarks.note", placeholderText="a note")
        self.colour_combo = QComboBox(self, objectName="bookmarks.colour")
        for colour in palette.BOOKMARK_COLOURS:
            self.colour_combo.addItem(swatch(colour), colour, colour)
        self.name_edit.textEdited.connect(lambda text: self._edit(self.name_edit, name=text))
        self.note_edit.textEdited.connect(lambda text: self._edit(self.note_edit, note=text))
        for edit in (self.name_edit, self.note_edit):
            edit.editingFinished.connect(self._on_editing_finished)
        self.colour_combo.activated.connect(lambda i: self._edit(None, colour=self.colour_combo.itemData(i)))
        fields = QGridLayout()  # name and colour on one row, the note under them
        fields.setContentsMargins(0, 0, 0, 0)
        fields.addWidget(QLabel("name"), 0, 0)
        fields.addWidget(self.name_edit, 0, 1)
        fields.addWidget(self.colour_combo, 0, 2)
        fields.addWidget(QLabel("note"), 1, 0)
        fields.addWidget(self.note_edit, 1, 1, 1, 2)
        fields.setColumnStretch(1, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(buttons)
        layout.addWidget(self.view, 1)
        layout.addLayout(fields)
        self.hint = QLabel(self, objectName="bookmarks.hint", wordWrap=True)
        self.hint.setStyleSheet(palette.inline_style(None))
        layout.addWidget(self.hint)

    def _action(self, text: str, key, slot) -> QAction:
        action = command_action(text, self, slot)
        if key is not None:
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        return action

    def set_byte_selection_source(self, source: Callable[[], tuple[int, int, int] | None]) -> None:
        """``source()`` gives the hex view's selected bytes ``(file index, first, last)`` or None."""
        self._byte_selection = source

    # ------------------------------------------------------------------ actions
    def _colour(self) -> str:
        return palette.BOOKMARK_COLOURS[len(self._bookmarks) % len(palette.BOOKMARK_COLOURS)]

    def _add(self, bookmark: Bookmark | None, missing: str) -> Bookmark | None:
        if bookmark is None:
            self.message.emit(missing)
            return None
        added = self._bookmarks.add(bookmark)
        self.select_row(len(self._bookmarks) - 1)
        self.message.emit(f"bookmarked {printable_name(added.name)} (Edit > Undo to take it back)")
        return added

    def add_element(self) -> Bookmark | None:
        """Bookmark the selected element (Ctrl+D)."""
        return self._add(self._bookmarks.element_bookmark(colour=self._colour()),
                         "nothing to bookmark: select an element in the table first")

    def add_region(self) -> Bookmark | None:
        """Bookmark the current slice as a region."""
        return self._add(self._bookmarks.region_bookmark(colour=self._colour()),
                         "nothing to bookmark: open a file first")

    def add_bytes(self) -> Bookmark | None:
        """Bookmark the bytes selected in the hex view."""
        selection = self._byte_selection()
        if selection is None:
            return self._add(None, "no bytes are selected: drag over bytes in the Bytes panel first")
        file_index, first, last = selection
        return self._add(self._bookmarks.bytes_bookmark(file_index, first, last, colour=self._colour()), "")

    def remove_current(self) -> None:
        if 0 <= self._row < len(self._bookmarks):
            row = self._row
            self._bookmarks.remove(row)
            if len(self._bookmarks):
                self.select_row(min(row, len(self._bookmarks) - 1))

    def choose_current(self) -> bool:
        """Go to the current bookmark (double-click, Enter)."""
        if not 0 <= self._row < len(self._bookmarks):
            return False
        return self._bookmarks.choose(self._bookmarks.items[self._row].name)

    def select_row(self, row: int) -> None:
        """Make bookmark ``row`` (of the whole list) the current one, clearing a filter that hides it."""
        source = self.model.index(row, 0)
        proxy = self._proxy.mapFromSource(source)
        if not proxy.isValid():
            self.filter_edit.clear()
            proxy = self._proxy.mapFromSource(source)
        self.view.setCurrentIndex(proxy)

    @property
    def current_row(self) -> int:
        """Row (in the whole list) of the bookmark the fields edit, -1 for none."""
        return self._row

    # ------------------------------------------------------------------ handlers
    def _edit(self, field: QLineEdit | None, **change) -> None:
        if 0 <= self._row < len(self._bookmarks):
            self._typing_in = field
            try:
                self._bookmarks.edit(self._row, **change)
            finally:
                self._typing_in = None

    def _on_editing_finished(self) -> None:
        self._document.end_typing()
        self._show_fields()  # e.g. the name made unique while it was typed

    def _on_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._row = self._proxy.mapToSource(current).row() if current.isValid() else -1
        self._show_fields()

    def _on_bookmarks_changed(self) -> None:
        # The model was reset: keep the same row current (an edit must not lose the fields' focus).
        count = len(self._bookmarks)
        row = self._row if self._row < count else count - 1
        if row >= 0:
            self.view.selectionModel().blockSignals(True)
            self.view.setCurrentIndex(self._proxy.mapFromSource(self.model.index(row, 0)))
            self.view.selectionModel().blockSignals(False)
        self._row = row
        self._show_fields()
        self.hint.setVisible(count == 0)
        self.hint.setText("No bookmarks yet: select an element and press Ctrl+D, or use the buttons above.")
        self.view.resizeColumnToContents(0)
        self.view.resizeColumnToContents(1)

    def _show_fields(self) -> None:
        """Show the current bookmark in the fields, except in the field whose keystroke is being
        applied (a name made unique meanwhile shows when typing ends; an undo shows at once)."""
        bookmark = self._bookmarks.items[self._row] if 0 <= self._row < len(self._bookmarks) else None
        for widget in (self.name_edit, self.note_edit, self.colour_combo, self.remove_button):
            widget.setEnabled(bookmark is not None)
        name, note = (bookmark.name, bookmark.note) if bookmark is not None else ("", "")
        for edit, text in ((self.name_edit, name), (self.note_edit, note)):
            if edit.text() != text and edit is not self._typing_in:
                edit.setText(text)
        if bookmark is not None:
            i = self.colour_combo.findData(bookmark.colour)
            if i < 0:  # a colour from a session: offered too
                self.colour_combo.addItem(swatch(bookmark.colour), bookmark.colour, bookmark.colour)
                i = self.colour_combo.count() - 1
            self.colour_combo.setCurrentIndex(i)
