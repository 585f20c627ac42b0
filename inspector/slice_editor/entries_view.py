"""The slice editor's grid: one row per spec entry, with add / remove / move buttons.

A :class:`SliceEntriesView` shows a spec through a :class:`SliceEntriesModel` and reports every
edit -- a cell, a check box, a button -- as the new spec it would make
(:attr:`SliceEntriesView.specEdited`); its owner records the change and hands the spec back with
:meth:`SliceEntriesView.set_spec`. It never keeps a spec of its own making.
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.slicing.editing import insert_entry, remove_entry, swap_entries
from core.slicing.spec import SliceSpec
from core.slicing.validate import MAX_ENTRIES
from inspector.slice_editor.entries_model import (
    CENTERED_CHECK_COLUMNS,
    CheckBoxDelegate,
    SliceEntriesModel,
)

__all__ = ["SliceEntriesView"]


class SliceEntriesView(QWidget):
    """Entry table (kind, begin, end, stride, five mask check boxes) and entry buttons.

    Rules
    -----
    - Add inserts a full-range entry (``:``) after the selected row, or at the end.
    - Remove / Up / Down act on the selected row and are disabled without one (Up on the
      first row and Down on the last too); Add is disabled at 31 entries (32-bit masks).
    - The selection follows a moved, added or removed row.

    Signals
    -------
    specEdited(object, str)
        The new spec and a short description for the undo history (``"add entry"``...).
    editRejected(str)
        A typed value was refused; the argument is the reason.
    maskBitCleared(str)
        A typed begin / end also cleared its mask bit (see :class:`SliceEntriesModel`); the
        argument explains it. Emitted just before the :attr:`specEdited` of that edit.

    Attributes
    ----------
    table : QTableView
    add_button, remove_button, up_button, down_button : QPushButton
    """

    specEdited = Signal(object, str)
    editRejected = Signal(str)
    maskBitCleared = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model = SliceEntriesModel(self)
        self._model.specEdited.connect(self._on_cell_edited)
        self._model.editRejected.connect(self.editRejected)
        self._model.maskBitCleared.connect(self.maskBitCleared)
        self.table = QTableView(self, objectName="slice.entries")
        self.table.setModel(self._model)
        self._check_delegate = CheckBoxDelegate(self.table)
        for column in CENTERED_CHECK_COLUMNS:
            self.table.setItemDelegateForColumn(column, self._check_delegate)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        to_contents = QHeaderView.ResizeMode.ResizeToContents
        self.table.horizontalHeader().setSectionResizeMode(to_contents)
        self.table.verticalHeader().setSectionResizeMode(to_contents)
        selection = self.table.selectionModel()
        selection.currentRowChanged.connect(self._on_selection_changed)
        selection.selectionChanged.connect(self._on_selection_changed)
        self._model.modelReset.connect(self._on_selection_changed)

        self.add_button = QPushButton("Add", self, objectName="slice.addEntry")
        self.add_button.setToolTip("Insert a full-range entry (:) after the selected one")
        self.add_button.clicked.connect(self._on_add)
        self.remove_button = QPushButton("Remove", self, objectName="slice.removeEntry")
        self.remove_button.setToolTip("Remove the selected entry")
        self.remove_button.clicked.connect(self._on_remove)
        self.up_button = QPushButton("Up", self, objectName="slice.moveUp")
        self.up_button.setToolTip("Move the selected entry up")
        self.up_button.clicked.connect(partial(self._on_move, -1))
        self.down_button = QPushButton("Down", self, objectName="slice.moveDown")
        self.down_button.setToolTip("Move the selected entry down")
        self.down_button.clicked.connect(partial(self._on_move, 1))
        buttons = QVBoxLayout()
        for button in (self.add_button, self.remove_button, self.up_button, self.down_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self._update_buttons()

    def model(self) -> SliceEntriesModel:
        """The table model (read it to see what the grid shows)."""
        return self._model

    def set_spec(self, spec: SliceSpec) -> None:
        """Show ``spec`` (the selection survives when the number of entries is unchanged)."""
        self._model.set_spec(spec)
        self._update_buttons()

    # ------------------------------------------------------------------ handlers

    def _on_cell_edited(self, spec: SliceSpec) -> None:
        self.specEdited.emit(spec, "edit entry")

    def _on_selection_changed(self, *_args) -> None:
        self._update_buttons()

    def _on_add(self) -> None:
        spec, row = self._model.spec(), self._current_row()
        row = len(spec) if row is None else row + 1
        self.specEdited.emit(insert_entry(spec, row), "add entry")
        self._select_row(row)

    def _on_remove(self) -> None:
        row = self._current_row()
        if row is None:
            return
        self.specEdited.emit(remove_entry(self._model.spec(), row), f"remove entry {row}")
        self._select_row(min(row, len(self._model.spec()) - 1))

    def _on_move(self, delta: int) -> None:
        spec, row = self._model.spec(), self._current_row()
        if row is None or not 0 <= row + delta < len(spec):
            return
        direction = "up" if delta < 0 else "down"
        self.specEdited.emit(swap_entries(spec, row, row + delta), f"move entry {row} {direction}")
        self._select_row(row + delta)

    # ------------------------------------------------------------------ helpers

    def _current_row(self) -> int | None:
        selection = self.table.selectionModel()
        index = selection.currentIndex()
        return index.row() if index.isValid() and selection.hasSelection() else None

    def _select_row(self, row: int) -> None:
        # The owner has shown the new spec by now (signals are direct); a refused edit
        # leaves the old one, and the row is then simply re-selected.
        if 0 <= row < len(self._model.spec()):
            self.table.setCurrentIndex(self._model.index(row, 0))
            self.table.selectRow(row)
        self._update_buttons()

    def _update_buttons(self) -> None:
        row, n = self._current_row(), len(self._model.spec())
        self.add_button.setEnabled(n < MAX_ENTRIES)
        self.remove_button.setEnabled(row is not None)
        self.up_button.setEnabled(row is not None and row > 0)
        self.down_button.setEnabled(row is not None and row < n - 1)
