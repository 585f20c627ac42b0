"""Data inspector: the bytes at the cursor read as every engine type, in both byte orders.

One row per type of :data:`core.dtypes.table.ENGINE_TYPES`, one column per byte order. Every value
comes from :func:`core.decode.decode_raw.decode_raw` (``extended_types=True``) applied to the first
``itemsize`` bytes at the cursor: this module decides no decoding rule, it only lays out and
formats the engine's answers (with :func:`core.text.number_format.format_value`, so the text
matches the table view). Clicking a value cell, or Return / Enter / Space on it, emits
:attr:`DataInspector.typeChosen`.

The ml_dtypes rows (bfloat16, float8) wait for ml_dtypes, whose import takes about half a second
(:mod:`core.dtypes.ml_types`): until something has imported it they show :data:`LOADING`, and the
inspector imports it itself right after its first paint, then fills them. So the window's first
frame does not wait for it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.decode.decode_raw import decode_raw
from core.dtypes.ml_types import loaded_ml_dtypes, ml_dtypes_module
from core.dtypes.table import ENGINE_TYPES, is_tf_decode_type, packed_row, resolve_dtype, tf_name, type_row
from core.errors import CoreError, describe_error
from core.text.number_format import classify_value, describe_special, format_value
from inspector.state.busy import ML_DTYPES_MESSAGE, BusyState
from inspector.widgets import palette

MAX_BYTES = 16
"""Bytes the inspector keeps from :meth:`DataInspector.set_bytes` (the widest type is 16)."""

MISSING = "\u2014"
"""Cell text of a type wider than the bytes available (an em dash)."""

LOADING = "\u2026"
"""Cell text of an ml_dtypes type (bfloat16, float8) until ml_dtypes is imported (an ellipsis)."""

BEYOND_TF = " (beyond TF)"

_TYPE_COL, _SIZE_COL, _LE_COL, _BE_COL = range(4)
_SPECIAL_COLOUR = QColor(palette.SPECIAL)  # NaN, Inf, subnormal, -0: worth a second look
_BEYOND_COLOUR = QColor(palette.MUTED)


def _hex(data: bytes) -> str:
    return " ".join(f"{b:02x}" for b in data)


def _binary_lines(data: bytes, per_line: int = 4) -> list[str]:
    groups = [f"{b:08b}" for b in data]
    return [" ".join(groups[i:i + per_line]) for i in range(0, len(groups), per_line)]


class DataInspector(QWidget):
    """Table of the cursor's bytes decoded as every engine type, little- and big-endian.

    Signals
    -------
    typeChosen(str, bool)
        ``(dtype name as in ENGINE_TYPES, little_endian)`` when the user clicks a value cell.

    Attributes
    ----------
    table : QTableWidget
        Columns: type, size in bytes, little-endian value, big-endian value.
    bytes_label : QLabel
        The offset and the bytes in hex and binary.
    """

    typeChosen = Signal(str, bool)

    def __init__(self, parent: QWidget | None = None, busy: BusyState | None = None) -> None:
        super().__init__(parent)
        self._busy = busy  # the window's busy state: the ml_dtypes import blocks for ~0.5 s
        self._data = b""
        self._offset: int | None = None
        self._waiting_for_ml_dtypes = False  # some cell shows LOADING
        self._ml_dtypes_load_scheduled = False
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)

        self.bytes_label = QLabel()
        self.bytes_label.setFont(mono)
        self.bytes_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.bytes_label.setObjectName("inspector.bytes")
        self.field_label = QLabel()
        self.field_label.setObjectName("inspector.field")
        self.field_label.setTextFormat(Qt.TextFormat.PlainText)
        self.field_label.setWordWrap(True)
        self.field_label.setToolTip("The record and field of the byte at the cursor (Tools > Records…)")
        self.field_label.setContentsMargins(4, 0, 4, 2)
        self.field_label.hide()
        self.table = QTableWidget(len(ENGINE_TYPES), 4)
        self.table.setObjectName("inspector.table")
        self.table.setHorizontalHeaderLabels(["type", "bytes", "little-endian", "big-endian"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(_TYPE_COL, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(_SIZE_COL, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(_LE_COL, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(_BE_COL, QHeaderView.ResizeMode.Stretch)
        for row, name in enumerate(ENGINE_TYPES):
            self._init_type_row(row, name, mono)
        self.table.cellClicked.connect(self._on_cell_clicked)
        self.table.viewport().installEventFilter(self)
        self.table.installEventFilter(self)  # Return, Enter and Space choose the current cell

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.bytes_label.setContentsMargins(4, 4, 4, 2)
        layout.addWidget(self.bytes_label)
        layout.addWidget(self.field_label)
        layout.addWidget(self.table)
        self.set_bytes(b"")

    def _init_type_row(self, row: int, name: str, mono: QFont) -> None:
        tf = tf_name(name)
        label = name if tf == name else f"{name} ({tf})"
        type_item = QTableWidgetItem(label)
        size_item = QTableWidgetItem(_stored_size_text(name))
        size_item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        if is_tf_decode_type(name):
            type_item.setToolTip(f"tf.io.decode_raw out_type {tf}")
        else:
            type_item.setText(label + BEYOND_TF)
            type_item.setToolTip("Not a tf.io.decode_raw type: TensorFlow would refuse it")
            italic = type_item.font()
            italic.setItalic(True)
            type_item.setFont(italic)
            type_item.setForeground(QBrush(_BEYOND_COLOUR))
        for item in (type_item, size_item):
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        self.table.setItem(row, _TYPE_COL, type_item)
        self.table.setItem(row, _SIZE_COL, size_item)
        for col in (_LE_COL, _BE_COL):
            item = QTableWidgetItem()
            item.setFont(mono)
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            self.table.setItem(row, col, item)

    # --------------------------------------------------------------------- API
    def set_bytes(self, data: bytes, offset: int | None = None) -> None:
        """Show ``data`` (the bytes at the cursor) decoded as every type, in both byte orders.

        Parameters
        ----------
        data : bytes-like
            The bytes starting at the cursor; only the first :data:`MAX_BYTES` are kept. A type
            wider than ``len(data)`` shows :data:`MISSING` with the tooltip ``"needs 8 bytes"``.
        offset : int, optional
            The cursor's byte offset in its file, shown above the table (``None``: not shown).
        """
        self._data = bytes(data[:MAX_BYTES])
        self._offset = offset
        self._waiting_for_ml_dtypes = False
        self._update_bytes_label()
        for row, name in enumerate(ENGINE_TYPES):
            for col, little_endian in ((_LE_COL, True), (_BE_COL, False)):
                self._fill_cell(self.table.item(row, col), name, little_endian)

    def set_field(self, text: str) -> None:
        """Name the record field of the bytes at the cursor ("": no records shown, the line hides)."""
        self.field_label.setText(text)
        self.field_label.setVisible(bool(text))

    def field_text(self) -> str:
        return self.field_label.text() if self.field_label.isVisibleTo(self) else ""

    def data(self) -> bytes:
        """The bytes on display (at most :data:`MAX_BYTES`)."""
        return self._data

    def value_item(self, name: str, little_endian: bool) -> QTableWidgetItem:
        """The table item holding type ``name``'s value in that byte order.

        Raises
        ------
        ValueError
            ``name`` is not in ``ENGINE_TYPES``.
        """
        row = ENGINE_TYPES.index(name)
        return self.table.item(row, _LE_COL if little_endian else _BE_COL)

    def value_text(self, name: str, little_endian: bool) -> str:
        """Cell text of type ``name`` in that byte order (``"1.0"``, ``"nan"``, ``"—"``...)."""
        return self.value_item(name, little_endian).text()

    def cell_rect(self, name: str, little_endian: bool) -> QRect:
        """Rectangle of that value cell in ``table.viewport()`` coordinates (for clicks)."""
        return self.table.visualItemRect(self.value_item(name, little_endian))

    # --------------------------------------------------------------- internals
    def _update_bytes_label(self) -> None:
        if not self._data:
            where = "" if self._offset is None else f"offset 0x{self._offset:x} ({self._offset}): "
            self.bytes_label.setText(where + "no bytes at the cursor")
            return
        lines = []
        if self._offset is not None:
            lines.append(f"offset 0x{self._offset:x} ({self._offset:,}), {len(self._data)} bytes")
        lines.append(f"hex  {_hex(self._data)}")
        binary = _binary_lines(self._data)
        lines.append(f"bin  {binary[0]}")
        lines.extend(f"     {line}" for line in binary[1:])
        self.bytes_label.setText("\n".join(lines))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Return, Enter or Space on a value cell chooses it, as a click does; after the table's
        first paint with :data:`LOADING` cells, import ml_dtypes (queued)."""
        if (watched is self.table and event.type() == QEvent.Type.KeyPress
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)):
            current = self.table.currentIndex()
            if current.isValid() and current.column() in (_LE_COL, _BE_COL):
                self._on_cell_clicked(current.row(), current.column())
                return True
        if (event.type() == QEvent.Type.Paint and self._waiting_for_ml_dtypes
                and not self._ml_dtypes_load_scheduled):
            self._ml_dtypes_load_scheduled = True
            QTimer.singleShot(0, self._load_ml_dtypes)
        return super().eventFilter(watched, event)

    def _load_ml_dtypes(self) -> None:
        if loaded_ml_dtypes() is None and self._busy is not None:
            # A C extension's import holds the GIL throughout: a worker thread would freeze
            # the window just the same, so it runs here and says so.
            with self._busy.during(ML_DTYPES_MESSAGE):
                ml_dtypes_module()
        else:
            ml_dtypes_module()
        if self._waiting_for_ml_dtypes:
            self.set_bytes(self._data, self._offset)

    def _fill_cell(self, item: QTableWidgetItem, name: str, little_endian: bool) -> None:
        packed = packed_row(name)  # int4: the first byte's low nibble; int24: 3 bytes
        row = type_row(name)
        size = row.stored_size
        item.setForeground(QBrush())
        if len(self._data) < size:
            item.setText(MISSING)
            item.setToolTip(f"needs {size} bytes")
            return
        if row.from_ml_dtypes and loaded_ml_dtypes() is None:
            self._waiting_for_ml_dtypes = True
            item.setText(LOADING)
            item.setToolTip(f"{name} values appear in a moment (loading ml_dtypes)")
            return
        native = resolve_dtype(name, extended_types=True)
        raw = self._data[:size]
        try:
            values = decode_raw(raw, name, little_endian=little_endian, extended_types=True)
        except CoreError as exc:  # not expected for whole items; shown rather than raised
            item.setText("error")
            item.setToolTip(describe_error(exc).message)
            return
        # Native order for formatting: ml_dtypes prints a big-endian bfloat16 view as raw bytes.
        value = values.astype(native)[0]
        text = format_value(value, native)
        item.setText(text)
        order = "little-endian" if little_endian else "big-endian"
        tip = f"{text}\n{name}, {order}, from bytes {_hex(raw)}"  # full text if elided
        if packed is not None and packed.stored_bits == 4:
            tip += " (its low nibble: two values per byte, low nibble first)"
        special = describe_special(value, native)
        if special is not None:
            tip += f"\n{special}"
            if classify_value(value, native) in ("nan", "inf", "-inf"):
                item.setForeground(QBrush(_SPECIAL_COLOUR))
        item.setToolTip(tip)

    def _on_cell_clicked(self, row: int, col: int) -> None:
        if col in (_LE_COL, _BE_COL):
            self.typeChosen.emit(ENGINE_TYPES[row], col == _LE_COL)


def _stored_size_text(name: str) -> str:
    """Bytes one value occupies in the file: ``"½"`` for int4/uint4 (low nibble first)."""
    row = type_row(name)
    return "½" if row.stored_bits == 4 else str(row.stored_size)
