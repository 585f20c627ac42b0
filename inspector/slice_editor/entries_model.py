"""Table model of a :class:`core.slicing.spec.SliceSpec`: one row per entry, editable in place.

The model is a *view* of a spec, never its owner (as napari's Qt widgets only read their
model): an edit builds the new spec and announces it with :attr:`SliceEntriesModel.specEdited`;
the owner (the :class:`inspector.slice_editor.editor.SliceEditor`) decides what to do with it and
calls :meth:`SliceEntriesModel.set_spec`. Values the engine refuses (not an integer, outside
int64) are announced with :attr:`SliceEntriesModel.editRejected` and leave the spec unchanged.

A value typed into *begin* (or *end*) is meant to be used: while bit ``i`` of ``begin_mask``
(``end_mask``) is set TensorFlow ignores ``begin[i]`` (``end[i]``), so typing it clears that bit
too, and :attr:`SliceEntriesModel.maskBitCleared` says so.

Edits are the engine's spec algebra (:mod:`core.slicing.editing`): this module maps cells and
check boxes to those calls.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, QRect, Qt, Signal
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionButton

from core.errors import SliceError, describe_error
from core.slicing.editing import parse_entry_value, with_bit, with_value
from core.slicing.expr import format_item
from core.slicing.spec import SliceSpec
from core.slicing.validate import bit

__all__ = ["CENTERED_CHECK_COLUMNS", "CheckBoxDelegate", "SliceEntriesModel"]

#: (header, SliceSpec field) of the integer columns.
VALUE_COLUMNS = (("begin", "begin"), ("end", "end"), ("stride", "strides"))
#: The mask whose bit makes TensorFlow ignore a value column (stride has none).
_MASK_OF_VALUE = {"begin": "begin_mask", "end": "end_mask"}
#: (header, SliceSpec mask) of the check-box columns.
MASK_COLUMNS = (
    ("begin mask", "begin_mask"),
    ("end mask", "end_mask"),
    ("ellipsis", "ellipsis_mask"),
    ("new axis", "new_axis_mask"),
    ("shrink", "shrink_axis_mask"),
)
KIND_COLUMN = 0
_FIRST_VALUE = 1
_FIRST_MASK = _FIRST_VALUE + len(VALUE_COLUMNS)
#: Columns drawn by :class:`CheckBoxDelegate`.
CENTERED_CHECK_COLUMNS = tuple(range(_FIRST_MASK, _FIRST_MASK + len(MASK_COLUMNS)))
_KIND_TEXT = {"range": "range", "index": "index", "ellipsis": "ellipsis", "new_axis": "new axis"}


# ------------------------------------------------------------------------- the model


class SliceEntriesModel(QAbstractTableModel):
    """Rows are the spec's entries; columns: kind, begin, end, stride and the five mask bits.

    - *kind* is read-only and is what :meth:`SliceSpec.entry_kind` says after TensorFlow's
      precedence (``range``, ``index``, ``ellipsis``, ``new axis``); its tool tip shows the
      item as an index expression would write it, when one can.
    - begin / end / stride are edited as text (``Qt.EditRole`` is a ``str``), so the default
      delegate gives a line edit and any int64 is reachable (a spin box stops at 2**31 - 1).
      Typing a begin (end) clears bit ``row`` of begin_mask (end_mask) when it is set, so the
      typed value is the one used.
    - The mask columns are check boxes (``Qt.CheckStateRole``).

    Signals
    -------
    specEdited(object)
        A user edit produced this new :class:`SliceSpec` (the model itself is unchanged until
        :meth:`set_spec`).
    editRejected(str)
        A user edit was refused; the argument is the reason.
    maskBitCleared(str)
        Emitted just before :attr:`specEdited` when a typed begin / end also cleared its mask
        bit; the argument explains it (``"begin of entry 0 is now 1: begin_mask bit 0 was
        cleared ..."``).
    """

    specEdited = Signal(object)
    editRejected = Signal(str)
    maskBitCleared = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._spec = SliceSpec.full()

    def spec(self) -> SliceSpec:
        """The spec shown."""
        return self._spec

    def set_spec(self, spec: SliceSpec) -> None:
        """Show ``spec``; keeps the view's scroll position when only values change."""
        old = self._spec
        self._spec = spec
        if len(old) != len(spec):
            self.beginResetModel()
            self.endResetModel()
        elif len(spec):
            self.dataChanged.emit(
                self.index(0, 0), self.index(len(spec) - 1, self.columnCount() - 1)
            )

    # ------------------------------------------------------------------ Qt overrides

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008 (Qt API)
        return 0 if parent.isValid() else len(self._spec)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 1 + len(VALUE_COLUMNS) + len(MASK_COLUMNS)

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Vertical:
            return str(section)
        if section == KIND_COLUMN:
            return "kind"
        if section < _FIRST_MASK:
            return VALUE_COLUMNS[section - _FIRST_VALUE][0]
        return MASK_COLUMNS[section - _FIRST_MASK][0]

    def flags(self, index: QModelIndex) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() == KIND_COLUMN:
            return base
        if index.column() < _FIRST_MASK:
            return base | Qt.ItemFlag.ItemIsEditable
        return base | Qt.ItemFlag.ItemIsUserCheckable

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if column == KIND_COLUMN:
            if role == Qt.ItemDataRole.DisplayRole:
                return _KIND_TEXT[self._spec.entry_kind(row)]
            if role == Qt.ItemDataRole.ToolTipRole:
                item = format_item(self._spec, row)
                if item is None:
                    return "no index-expression item produces this entry (masks only)"
                return f"as an item: {item}"
            return None
        if column < _FIRST_MASK:
            field = VALUE_COLUMNS[column - _FIRST_VALUE][1]
            if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
                return str(getattr(self._spec, field)[row])
            if role == Qt.ItemDataRole.TextAlignmentRole:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if role == Qt.ItemDataRole.ToolTipRole and field in _MASK_OF_VALUE:
                mask = _MASK_OF_VALUE[field]
                if bit(getattr(self._spec, mask), row):
                    return (f"ignored while {mask} bit {row} is set; typing a value clears "
                            "the bit")
            return None
        mask = MASK_COLUMNS[column - _FIRST_MASK][1]
        if role == Qt.ItemDataRole.CheckStateRole:
            on = bit(getattr(self._spec, mask), row)
            return Qt.CheckState.Checked if on else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"bit {row} of {mask}"
        return None

    def setData(self, index: QModelIndex, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid():
            return False
        row, column = index.row(), index.column()
        note = ""
        try:
            if _FIRST_VALUE <= column < _FIRST_MASK and role == Qt.ItemDataRole.EditRole:
                header, field = VALUE_COLUMNS[column - _FIRST_VALUE]
                number = parse_entry_value(value, f"{header} of entry {row}")
                new = with_value(self._spec, field, row, number)
                mask = _MASK_OF_VALUE.get(field)
                if mask is not None and bit(getattr(new, mask), row):
                    new = with_bit(new, mask, row, False)  # the typed value is meant to be used
                    note = (f"{header} of entry {row} is now {number}: {mask} bit {row} was "
                            f"cleared (while it is set, TensorFlow ignores the {header} value)")
            elif column >= _FIRST_MASK and role == Qt.ItemDataRole.CheckStateRole:
                on = Qt.CheckState(value) == Qt.CheckState.Checked
                new = with_bit(self._spec, MASK_COLUMNS[column - _FIRST_MASK][1], row, on)
            else:
                return False
        except SliceError as error:
            self.editRejected.emit(describe_error(error).message)
            return False
        if note:
            self.maskBitCleared.emit(note)
        if new != self._spec:
            self.specEdited.emit(new)
        return True


class CheckBoxDelegate(QStyledItemDelegate):
    """Draws a check state centred in its cell and toggles it on a click anywhere in the cell
    (a bigger target than the style's small indicator) or on Space."""

    def paint(self, painter, option, index) -> None:
        state = index.data(Qt.ItemDataRole.CheckStateRole)
        if state is None:
            super().paint(painter, option, index)
            return
        style = option.widget.style() if option.widget else QApplication.style()
        # Background and selection as for any item, without text or indicator.
        self.initStyleOption(option, index)
        option.features &= ~option.ViewItemFeature.HasCheckIndicator
        option.text = ""
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, option.widget)
        box = QStyleOptionButton()
        size = style.pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth, None, option.widget)
        box.rect = QRect(0, 0, size, size)
        box.rect.moveCenter(option.rect.center())
        box.state = QStyle.StateFlag.State_Enabled | (
            QStyle.StateFlag.State_On
            if Qt.CheckState(state) == Qt.CheckState.Checked
            else QStyle.StateFlag.State_Off
        )
        style.drawPrimitive(QStyle.PrimitiveElement.PE_IndicatorCheckBox, box, painter)

    def editorEvent(self, event, model, option, index) -> bool:
        state = index.data(Qt.ItemDataRole.CheckStateRole)
        if state is None or not index.flags() & Qt.ItemFlag.ItemIsUserCheckable:
            return False
        kind = event.type()
        if kind == QEvent.Type.MouseButtonRelease:
            if event.button() != Qt.MouseButton.LeftButton:
                return False
        elif kind == QEvent.Type.MouseButtonDblClick:
            return True  # swallow: a double click must not open an editor or toggle twice
        elif kind == QEvent.Type.KeyPress:
            if event.key() not in (Qt.Key.Key_Space, Qt.Key.Key_Select):
                return False
        else:
            return False
        checked = Qt.CheckState(state) == Qt.CheckState.Checked
        new = Qt.CheckState.Unchecked if checked else Qt.CheckState.Checked
        return model.setData(index, new.value, Qt.ItemDataRole.CheckStateRole)
