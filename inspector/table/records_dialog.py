"""Tools > Records…: the open file as records with named fields, in a table of its own.

The layout is typed or pasted: a C struct (with the struct's name, or the text's last struct,
and the ABI), a field list or a numpy dtype description (docs/records.md); *Show* reads it with
:mod:`core.records` (the one owner of the rules) and shows the records after the header offset
in a :class:`~inspector.table.records_model.RecordsModel` (rows read when shown). Text that is
refused says why under the field and the last good table stays. The dialog is not modal and
follows the document: other files open, it shows them with the same layout.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.errors import CoreError, describe_error
from core.pipeline.params import DecodeParams
from core.records.abi import ABIS, DEFAULT_ABI
from core.records.c_decl import parse_c_layout
from core.records.field_list import parse_field_list, parse_numpy_layout
from core.records.layout import RecordLayout
from inspector.state.document import Document
from inspector.table.records_model import RecordsModel
from inspector.widgets import palette

__all__ = ["KINDS", "RecordsDialog"]

#: The forms a layout is written in, as the kind box lists them.
KINDS = ("C struct", "field list", "numpy dtype")


class RecordsDialog(QDialog):
    """The layout's text, its options and the records table (module docstring)."""

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("records")
        self.setWindowTitle("Records")
        self.resize(900, 560)
        self._document = document
        self.kind = QComboBox(self, objectName="records.kind")
        self.kind.addItems(KINDS)
        self.text = QPlainTextEdit(self, objectName="records.source")
        self.text.setPlaceholderText("struct sample { uint32_t ts; int16_t ch[4]; float gain; uint8_t flags:3; };\n"
                                     "or: ts:u32, ch:i16[4], gain:f32, pad:4, flags:u8")
        self.text.setMaximumHeight(110)
        self.struct = QLineEdit(self, objectName="records.struct")
        self.struct.setPlaceholderText("the text's last struct")
        self.abi = QComboBox(self, objectName="records.abi")
        self.abi.addItems(list(ABIS))
        self.abi.setCurrentText(DEFAULT_ABI)
        self.header = QSpinBox(self, objectName="records.header")
        self.header.setRange(0, 2**31 - 1)
        self.header.setSuffix(" bytes")
        self.show_button = QPushButton("Show", self, objectName="records.show")
        self.show_button.clicked.connect(self.apply)
        self.field_button = QPushButton("Field as the tensor", self, objectName="records.showField")
        self.field_button.setToolTip("Show the selected column's field across all records in the window (its "
                                     "type, offset and the record size as decode options; undoable): plot, "
                                     "statistics, find, compare and export then work on it")
        self.field_button.clicked.connect(self.show_field)
        self.field_button.setEnabled(False)
        self.error = QLabel(self, objectName="records.error")
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setWordWrap(True)
        self.error.setStyleSheet(palette.inline_style("error"))
        self.error.hide()
        self.summary = QLabel(self, objectName="records.summary")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.model = RecordsModel(self)
        self.table = QTableView(self, objectName="records.table")
        self.table.setModel(self.model)
        self.table.selectionModel().currentChanged.connect(lambda *_: self._enable_field())
        self._header_bytes = 0
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setResizeContentsPrecision(40)  # size columns from the first rows only
        form = QFormLayout()
        form.addRow("Layout", self.kind)
        form.addRow("Struct", self.struct)
        form.addRow("ABI", self.abi)
        form.addRow("Header", self.header)
        row = QHBoxLayout()
        row.addWidget(self.text, 1)
        row.addLayout(form)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        buttons = QHBoxLayout()
        buttons.addWidget(self.show_button)
        buttons.addWidget(self.field_button)
        buttons.addWidget(self.summary, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.error)
        layout.addWidget(self.table, 1)
        self.kind.currentIndexChanged.connect(self._on_kind)
        self._on_kind()
        document.filesChanged.connect(self._on_files)

    def layout_of_text(self) -> RecordLayout:
        """The layout the fields describe.

        Raises
        ------
        CoreError
            The layout's refusal (its message names the problem).
        """
        text = self.text.toPlainText()
        little = self._document.params.little_endian is not False
        kind = self.kind.currentText()
        if kind == "C struct":
            return parse_c_layout(text, self.struct.text().strip() or None, abi=self.abi.currentText(),
                                  little_endian=little)
        if kind == "field list":
            return parse_field_list(text, little_endian=little)
        return parse_numpy_layout(text)

    def apply(self) -> bool:
        """Read the layout and show the records (False, with the reason shown, when refused)."""
        pipeline = self._document.pipeline
        if pipeline is None:
            return self._refuse("open a file first")
        try:
            layout = self.layout_of_text()
        except CoreError as error:
            return self._refuse(describe_error(error).message)
        source = pipeline.source
        size = source.files[0].size
        header = self.header.value()
        if header > size:
            return self._refuse(f"the header ({header:,} bytes) is longer than the file ({size:,} bytes)")
        count = (size - header) // layout.itemsize
        trailing = size - header - count * layout.itemsize
        self.error.hide()
        self.model.show(source, layout, header, count)
        self._header_bytes = header
        if self.model.columnCount() <= 256:  # headers (name, type, offset) readable; wider layouts keep their width
            self.table.resizeColumnsToContents()
        self._enable_field()
        self.summary.setText(f"{count:,} records of {layout.itemsize:,} bytes, {len(self.model.layout.fields)} fields"
                             + (f"; {trailing:,} trailing bytes" if trailing else "")
                             + ("".join(f"; {note}" for note in layout.notes)))
        return True

    def show_layout(self, kind: str, text: str, header: int = 0) -> bool:
        """Fill in a layout (``kind``: one of :data:`KINDS`) and show its records."""
        self.kind.setCurrentText(kind)
        self.text.setPlainText(text)
        self.header.setValue(header)
        return self.apply()

    def show_field(self) -> bool:
        """Make the current column's field the window's tensor (one undoable edit of the decode
        parameters: :meth:`core.records.layout.RecordLayout.field_params`); False, with the
        reason shown, for a bit field or no column."""
        index = self.table.currentIndex()
        if self.model.layout is None or not index.isValid():
            return self._refuse("choose a column of the table first")
        leaf = self.model.column(index.column()).field
        try:
            options = self.model.layout.field_params(leaf.name, self._header_bytes)
        except CoreError as error:
            return self._refuse(describe_error(error).message)
        self.error.hide()
        self._document.set_params(DecodeParams(**options, extended_types=True))
        return True

    def _enable_field(self) -> None:
        index = self.table.currentIndex()
        self.field_button.setEnabled(self.model.layout is not None and index.isValid()
                                     and not self.model.column(index.column()).field.is_bits)

    def _refuse(self, message: str) -> bool:
        self.error.setText(message)
        self.error.show()
        return False

    def _on_kind(self) -> None:
        c_struct = self.kind.currentText() == "C struct"
        self.struct.setEnabled(c_struct)
        self.abi.setEnabled(c_struct)

    def _on_files(self) -> None:
        if self.model.layout is not None:
            if not self.apply():
                self.model.show(None, None)
