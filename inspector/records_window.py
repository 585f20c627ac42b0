"""Tools > Records…: the open file as records with named fields, in a window of its own.

The layout is typed or pasted: a C struct (with the struct's name, or the text's last struct,
and the ABI), a field list or a numpy dtype description (docs/records.md), its byte order, the
header's bytes and which records (a slice such as ``[1000:2000:10]``). *Show* makes it the
document's :attr:`~inspector.state.document.Document.records` (the one owner; the parsing and
counting rules are :mod:`core.records`'); the window shows whatever that holds, so a session or
a structured ``.npy`` that sets it opens this window filled in. Text that is refused says why
under the field and the last good table stays. The window is not modal; closing it ends the
records view (the hex view's field colours go with it).

From the table: the current cell's field and record are the document's records cursor (the hex
view marks its bytes, the data inspector decodes and names them); *Field as the tensor* makes
the current column's field the window's tensor (undoable); *Plot fields* draws the selected
columns across the records shown, overlaid (:mod:`inspector.plot.records_plot`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.errors import CoreError, describe_error
from core.pipeline.params import DecodeParams
from core.records.abi import ABIS, DEFAULT_ABI
from core.records.choice import RecordsChoice
from inspector.panels.records_tools import RecordsTools
from inspector.plot.records_plot import RecordsPlot
from inspector.state.document import Document
from inspector.table.records_model import PAGE_ROWS, RecordsModel
from inspector.widgets import palette

__all__ = ["KINDS", "RecordsDialog"]

#: The forms a layout is written in, as the kind box lists them, and their codes.
KINDS = {"C struct": "c", "field list": "fields", "numpy dtype": "numpy"}
_NAMES = {code: name for name, code in KINDS.items()}
_ORDERS = ("little-endian", "big-endian")


class RecordsDialog(QDialog):
    """The layout's text, its options, the records table and the plot of fields (module docstring)."""

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("records")
        self.setWindowTitle("Records")
        self.resize(980, 640)
        self._document = document
        self.kind = QComboBox(self, objectName="records.kind")
        self.kind.addItems(list(KINDS))
        self.text = QPlainTextEdit(self, objectName="records.source")
        self.text.setPlaceholderText("struct sample { uint32_t ts; int16_t ch[4]; float gain; uint8_t flags:3; };\n"
                                     "or: ts:u32, ch:i16[4], gain:f32, pad:4, flags:u8")
        self.text.setMaximumHeight(118)
        self.struct = QLineEdit(self, objectName="records.struct")
        self.struct.setPlaceholderText("the text's last struct")
        self.abi = QComboBox(self, objectName="records.abi")
        self.abi.addItems(list(ABIS))
        self.abi.setCurrentText(DEFAULT_ABI)
        self.byte_order = QComboBox(self, objectName="records.byteOrder")
        self.byte_order.addItems(list(_ORDERS))
        self.byte_order.setCurrentIndex(0 if document.params.little_endian is not False else 1)
        self.header = QSpinBox(self, objectName="records.header")
        self.header.setRange(0, 2**31 - 1)
        self.header.setSuffix(" bytes")
        self.header_struct = QLineEdit(self, objectName="records.headerStruct")
        self.header_struct.setPlaceholderText("none (C: a struct before the records)")
        self.header_struct.setToolTip("A struct of the same C text at the header offset: the records follow it, "
                                      "and its fields' values are shown")
        self.rows = QLineEdit(self, objectName="records.rows")
        self.rows.setPlaceholderText("every record, or [1000:2000:10]")
        self.rows.setToolTip("Which records the table and the plot show: a slice of the records, as for any "
                             "tensor ([a:b:c], [::-1], [i])")
        self.rows.returnPressed.connect(self.apply)
        self.show_button = QPushButton("Show", self, objectName="records.show")
        self.show_button.setDefault(True)
        self.show_button.clicked.connect(self.apply)
        self.field_button = QPushButton("Field as the tensor", self, objectName="records.showField")
        self.field_button.setToolTip("Show the selected column's field across all records in the window (its "
                                     "type, offset and the record size as decode options; undoable): plot, "
                                     "statistics, find, compare and export then work on it")
        self.field_button.clicked.connect(self.show_field)
        self.field_button.setEnabled(False)
        self.plot_button = QPushButton("Plot fields", self, objectName="records.plotFields")
        self.plot_button.setToolTip("Plot the selected columns across the records shown, overlaid (select "
                                    "several columns with Ctrl or Shift)")
        self.plot_button.clicked.connect(self.plot_fields)
        self.plot_button.setEnabled(False)
        self.error = QLabel(self, objectName="records.error")
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setWordWrap(True)
        self.error.setStyleSheet(palette.inline_style("error"))
        self.error.hide()
        self.summary = QLabel(self, objectName="records.summary")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.header_values = QLabel(self, objectName="records.headerValues")
        self.header_values.setTextFormat(Qt.TextFormat.PlainText)
        self.header_values.setWordWrap(True)
        self.header_values.hide()
        self.model = RecordsModel(self)
        self.table = QTableView(self, objectName="records.table")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectItems)
        self.table.selectionModel().currentChanged.connect(self._on_current)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._enable_buttons())
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # 10^8 rows: no per-row sizes
        self.table.horizontalHeader().setResizeContentsPrecision(40)  # size columns from the first rows only
        self.page_label = QLabel(self, objectName="records.page")
        self.page_label.setTextFormat(Qt.TextFormat.PlainText)
        self.page_previous = QPushButton("◀", self, objectName="records.pagePrevious")
        self.page_previous.setToolTip(f"The previous {PAGE_ROWS:,} rows")
        self.page_previous.clicked.connect(lambda: self._turn_page(-1))
        self.page_next = QPushButton("▶", self, objectName="records.pageNext")
        self.page_next.setToolTip(f"The next {PAGE_ROWS:,} rows")
        self.page_next.clicked.connect(lambda: self._turn_page(1))
        self.go_to = QLineEdit(self, objectName="records.goTo")
        self.go_to.setPlaceholderText("go to record")
        self.go_to.setMaximumWidth(140)
        self.go_to.returnPressed.connect(lambda: self.go_to_record(self.go_to.text()))
        self.plot = RecordsPlot(document, self)
        self.plot.hide()
        self.tools = RecordsTools(document, self)
        self.tools.resultsShown.connect(self._on_results)
        self.tools.export_columns_from(lambda: self.selected_columns() if self._several_selected() else [])
        form = QFormLayout()
        form.addRow("Layout", self.kind)
        form.addRow("Struct", self.struct)
        form.addRow("ABI", self.abi)
        form.addRow("Byte order", self.byte_order)
        form.addRow("Header", self.header)
        form.addRow("Header struct", self.header_struct)
        form.addRow("Records", self.rows)
        top = QHBoxLayout()
        top.addWidget(self.text, 1)
        top.addLayout(form)
        self.buttons = QHBoxLayout()
        for button in (self.show_button, self.field_button, self.plot_button, *self.tools.buttons):
            self.buttons.addWidget(button)
        self.buttons.addWidget(self.summary, 1)
        for widget in (self.go_to, self.page_previous, self.page_label, self.page_next):
            self.buttons.addWidget(widget)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self, objectName="records.splitter")
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.plot)
        self.splitter.addWidget(self.tools.results)
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(self.buttons)
        layout.addWidget(self.error)
        layout.addWidget(self.tools.status)
        layout.addWidget(self.header_values)
        layout.addWidget(self.splitter, 1)
        self.kind.currentIndexChanged.connect(self._on_kind)
        self._on_kind()
        document.records.changed.connect(self._on_records)
        self.finished.connect(lambda _result: document.records.choose(None))
        if document.records.choice is not None:
            self._on_records()

    # ------------------------------------------------------------------ editing
    def choice_of_text(self) -> RecordsChoice:
        """The choice the fields describe.

        Raises
        ------
        CoreError
            An empty text or a field out of range (its message names it).
        """
        c_struct = self.kind.currentText() == "C struct"
        return RecordsChoice(KINDS[self.kind.currentText()], self.text.toPlainText(), self.struct.text().strip(),
                             self.abi.currentText(), self.header.value(), self.byte_order.currentIndex() == 0,
                             self.rows.text().strip(), self.header_struct.text().strip() if c_struct else "")

    def apply(self) -> bool:
        """Make the fields the document's records (False, with the reason shown, when refused)."""
        if self._document.pipeline is None:
            return self._refuse("open a file first")
        try:
            self._document.records.choose(self.choice_of_text())
        except CoreError as error:
            return self._refuse(describe_error(error).message)
        self.error.hide()
        return True

    def show_layout(self, kind: str, text: str, header: int = 0) -> bool:
        """Fill in a layout (``kind``: a key of :data:`KINDS`) and show its records."""
        self.kind.setCurrentText(kind)
        self.text.setPlainText(text)
        self.header.setValue(header)
        return self.apply()

    # ------------------------------------------------------------------ actions
    def show_field(self) -> bool:
        """Make the current column's field the window's tensor (one undoable edit of the decode
        parameters: :meth:`core.records.layout.RecordLayout.field_params`; the records slice
        becomes the slice of its first axis); False, with the reason shown, for a bit field or
        no column."""
        index = self.table.currentIndex()
        records = self._document.records
        if records.layout is None or not index.isValid():
            return self._refuse("choose a column of the table first")
        leaf = self.model.column(index.column()).field
        try:
            options = records.layout.field_params(leaf.name, records.header)
        except CoreError as error:
            return self._refuse(describe_error(error).message)
        self.error.hide()
        params = DecodeParams(**options, extended_types=True)
        rows = records.choice.rows
        if rows:
            self._document.set_view(params, rows)
        else:
            self._document.set_params(params)
        return True

    def plot_fields(self) -> bool:
        """Plot the selected columns (the current one when none is selected) across the records
        shown, overlaid; False, with the reason shown, when a column cannot be plotted."""
        columns = self.selected_columns()
        if not columns:
            return self._refuse("choose one or more columns of the table first")
        try:
            self.plot.show_columns(columns)
        except CoreError as error:
            return self._refuse(describe_error(error).message)
        self.error.hide()
        if self.plot.isHidden():  # the first plot: half the height each
            self.plot.show()
            half = max(self.splitter.height() // 2, 120)
            self.splitter.setSizes([half, half])
        return True

    def select_columns(self, numbers: list[int]) -> None:
        """Select the columns ``numbers`` (in the first row; the first one current)."""
        selection = self.table.selectionModel()
        self.table.setCurrentIndex(self.model.index(0, numbers[0]))
        for number in numbers[1:]:
            selection.select(self.model.index(0, number), selection.SelectionFlag.Select)

    def go_to_record(self, text: str) -> bool:
        """Show and select record ``text`` (a whole number; negative counts from the end) in the
        table, turning the page; False, with the reason shown, when it is not one shown."""
        rows = self.model.rows
        try:
            record = int(text.strip().replace(",", "").replace("_", ""))
        except ValueError:
            return self._refuse(f"{text.strip()!r:.40} is not a record number (write a whole number)")
        if record < 0:
            record += self._document.records.count
        if rows.count == 0 or (record - rows.start) % rows.step or not 0 <= (record - rows.start) // rows.step < rows.count:
            return self._refuse(f"record {record:,} is not one of the records shown ({self._document.records.choice.rows or 'all'})")
        row = self.model.set_page((record - rows.start) // rows.step)
        self._show_page()
        column = max(self.table.currentIndex().column(), 0)
        index = self.model.index(row, column)
        self.table.setCurrentIndex(index)
        self.table.scrollTo(index)
        self.error.hide()
        return True

    def _turn_page(self, step: int) -> None:
        self.model.set_page(self.model.page_first + step * PAGE_ROWS)
        self._show_page()

    def _show_page(self) -> None:
        total, first = self.model.rows.count, self.model.page_first
        paged = total > PAGE_ROWS
        for widget in (self.page_previous, self.page_label, self.page_next):
            widget.setVisible(paged)
        if paged:
            self.page_label.setText(f"rows {first:,}–{first + self.model.rowCount() - 1:,} of {total:,}")
            self.page_previous.setEnabled(first > 0)
            self.page_next.setEnabled(first + PAGE_ROWS < total)
        self._enable_buttons()

    def _several_selected(self) -> bool:
        """Whether columns were chosen by selecting cells (more than the current cell alone)."""
        return len({index.column() for index in self.table.selectionModel().selectedIndexes()}) > 1

    def selected_columns(self) -> list:
        """The columns of the selected cells, in table order (else the current cell's)."""
        numbers = sorted({index.column() for index in self.table.selectionModel().selectedIndexes()})
        if not numbers and self.table.currentIndex().isValid():
            numbers = [self.table.currentIndex().column()]
        return [self.model.column(n) for n in numbers]

    # ------------------------------------------------------------------ following the document
    def _on_records(self) -> None:
        records = self._document.records
        choice, layout = records.choice, records.layout
        pipeline = self._document.pipeline
        if choice is None or layout is None or pipeline is None:
            self.model.show(None, None)
            self._show_page()
            self.plot.clear()
            self.summary.setText(records.dropped and f"records not shown: {records.dropped}")
            self.header_values.hide()
            self._enable_buttons()
            return
        self._fill(choice)
        self.model.show(pipeline.source, layout, records.header, records.rows)
        self._show_page()
        self._show_header_values()
        if self.model.columnCount() <= 256:  # headers (name, type, offset) readable; wider layouts keep their width
            self.table.resizeColumnsToContents()
        self.plot.follow()
        rows = records.rows
        shown = "" if rows.every_record else f", {rows.count:,} shown ({choice.rows})"
        self.summary.setText(f"{records.count:,} records of {layout.itemsize:,} bytes{shown}, "
                             f"{len(layout.fields)} fields"
                             + (f"; {records.trailing:,} trailing bytes" if records.trailing else "")
                             + "".join(f"; {note}" for note in layout.notes))
        self._enable_buttons()

    def _fill(self, choice: RecordsChoice) -> None:
        """The fields show ``choice`` (a session's, a structured .npy's)."""
        self.kind.setCurrentText(_NAMES[choice.kind])
        if self.text.toPlainText() != choice.text:
            self.text.setPlainText(choice.text)
        self.struct.setText(choice.struct)
        self.abi.setCurrentText(choice.abi)
        self.byte_order.setCurrentIndex(0 if choice.little_endian else 1)
        self.header.setValue(choice.header)
        self.header_struct.setText(choice.header_struct)
        self.rows.setText(choice.rows)

    def _show_header_values(self) -> None:
        records = self._document.records
        header = records.header_layout
        if header is None:
            self.header_values.hide()
            return
        values = records.header_values(lambda offset, n: self._document.bytes_at(0, offset, n))
        self.header_values.setText(f"header struct {header.name or records.choice.header_struct} "
                                   f"({header.itemsize} bytes at {records.choice.header}): "
                                   + ", ".join(f"{name} = {text}" for name, text in values))
        self.header_values.show()

    def _on_current(self, current, _previous) -> None:
        self._enable_buttons()
        records = self._document.records
        if current.isValid() and records.layout is not None:
            records.point_at(self.model.record_of(current.row()), self.model.column(current.column()))

    def _on_results(self) -> None:
        sizes = self.splitter.sizes()
        if sizes[2] < 120:  # the results' first show: a third of the height
            third = max(sum(sizes) // 3, 120)
            self.splitter.setSizes([sizes[0] - third // 2, max(sizes[1] - third // 2, 0), third])

    def _enable_buttons(self) -> None:
        self.tools.set_enabled(self.model.layout is not None)
        index = self.table.currentIndex()
        shown = self.model.layout is not None and index.isValid()
        self.field_button.setEnabled(shown and not self.model.column(index.column()).field.is_bits)
        self.plot_button.setEnabled(shown)

    def _refuse(self, message: str) -> bool:
        self.error.setText(message)
        self.error.show()
        return False

    def _on_kind(self) -> None:
        c_struct = self.kind.currentText() == "C struct"
        self.struct.setEnabled(c_struct)
        self.abi.setEnabled(c_struct)
        self.header_struct.setEnabled(c_struct)
