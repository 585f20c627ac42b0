"""Where a number comes from: the Bytes panel and the data inspector follow the document.

:class:`BytesLink` connects one :class:`inspector.state.document.Document` to a
:class:`~inspector.widgets.hex_view.HexView` and a
:class:`~inspector.bytes.data_inspector.DataInspector`; the main window only creates it.

Rules
-----
- The selected element's bytes are highlighted and decoded after *every* new selection and
  every new result: a new type, byte order, offset or slice moves the bytes of the same index,
  so both panels follow the result, not only the index.
- Bytes are read only through the document (:meth:`Document.bytes_at`); when the files changed
  on disk in a way that invalidates the views, both panels are cleared until a reload, together
  with the table and the plot; when the document closes its files (``closing``), both let go of
  them before the maps close.
- A byte clicked in the hex view selects the element it belongs to (through the document); a
  byte outside the view is decoded in the inspector only. A byte chosen as header offset
  (:meth:`BytesLink.use_as_header_offset`) becomes the document's offset (one undoable edit). A type chosen in the inspector
  becomes the document's decode type and byte order (one undoable edit).
- While the first file is shown as records (:attr:`Document.records`), the data inspector names
  the record and field of the bytes it decodes (:func:`core.records.placement.describe_byte`,
  with the field's value), and a cell chosen in the records table marks its bytes in the hex
  view and decodes them.
- Problems (a byte outside the view, a read that failed) are reported through
  :attr:`BytesLink.message`, never raised out of a slot.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from core.decode.shape_suggestions import shape_for_new_type
from core.dtypes.table import type_row
from core.errors import describe_error
from core.records.placement import describe_byte
from inspector.bytes.data_inspector import DataInspector
from inspector.state.document import Document
from inspector.widgets.hex_view import HexView

__all__ = ["BytesLink", "INSPECTED_BYTES"]

#: How many bytes from the element's first byte the data inspector decodes.
INSPECTED_BYTES = 16


class BytesLink(QObject):
    """Keeps the hex view and the data inspector on the document's selected element.

    Signals
    -------
    message(str)
        A one-line note for the status bar.
    """

    message = Signal(str)

    def __init__(self, document: Document, hex_view: HexView, inspector: DataInspector,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._hex_view = hex_view
        self._inspector = inspector
        document.filesChanged.connect(self._on_files_changed)
        document.resultChanged.connect(self._show_selection)
        document.selectionChanged.connect(self._show_selection)
        document.filesChangedOnDisk.connect(self._on_files_changed_on_disk)
        document.closing.connect(self._on_document_closing)
        hex_view.bytesSelected.connect(self._on_byte_clicked)
        inspector.typeChosen.connect(self._on_type_chosen)
        document.records.cursorChanged.connect(self._show_record_cursor)
        document.records.changed.connect(self._name_field)
        self._inspected: tuple[int, int] | None = None  # (file, offset) the inspector decodes
        self._on_files_changed()

    def _on_files_changed(self) -> None:
        self._hex_view.set_reader(self._document if self._document.paths else None)

    def _on_files_changed_on_disk(self, report) -> None:
        if report.invalidates_view:
            self._hex_view.set_reader(None, report.message)
            self._inspector.set_bytes(b"")

    def _on_document_closing(self) -> None:
        self._hex_view.set_reader(None)
        self._inspector.set_bytes(b"")
        self._inspected = None
        self._inspector.set_field("")

    def _views_invalid(self) -> bool:
        report = self._document.changes_on_disk()
        if report is None or not report.invalidates_view:
            return False
        self.message.emit(report.message)
        return True

    def _show_selection(self, *_args) -> None:
        document = self._document
        result, index = document.result, document.selection
        if index is None or result is None or self._views_invalid():
            return
        try:
            file_index, offset, nbytes = result.byte_offset(index)
            self._hex_view.highlight(file_index, offset, max(nbytes, 1))
            self._inspect(file_index, offset)
        except Exception as error:  # shown, never raised out of a slot
            self.message.emit(describe_error(error).message)

    def _inspect(self, file_index: int, offset: int) -> None:
        self._inspector.set_bytes(self._document.bytes_at(file_index, offset, INSPECTED_BYTES), offset)
        self._inspected = (file_index, offset)
        self._name_field()

    def _name_field(self) -> None:
        """The data inspector's line naming the record field at its bytes (module rules)."""
        records, inspected = self._document.records, self._inspected
        layout = records.layout
        if layout is None or inspected is None or inspected[0] != 0:
            self._inspector.set_field("")
            return
        offset = inspected[1]
        found = records.fields_at(offset)
        record_bytes = None
        if found is not None:
            start = records.header + found[0] * layout.itemsize
            record_bytes = self._document.bytes_at(0, start, layout.itemsize)
        self._inspector.set_field(describe_byte(layout, records.header, records.count, offset, record_bytes))

    def _show_record_cursor(self) -> None:
        place = self._document.records.cursor_bytes()
        if place is None or self._views_invalid():
            return
        offset, nbytes = place
        try:
            self._hex_view.highlight(0, offset, max(nbytes, 1))
            self._inspect(0, offset)
        except Exception as error:  # shown, never raised out of a slot
            self.message.emit(describe_error(error).message)

    def _on_byte_clicked(self, file_index: int, offset: int) -> None:
        document = self._document
        result = document.result
        if result is None or self._views_invalid():
            return
        index = result.element_at_byte(file_index, offset)
        if index is None:
            self.message.emit(f"byte {offset} is not part of any element of the view")
            self._inspect(file_index, offset)
            return
        document.select(index)

    def use_as_header_offset(self, offset: int) -> None:
        """Make byte ``offset`` the header offset of the document (undoable)."""
        self._document.update_params(offset=int(offset))
        self.message.emit(f"header offset set to {int(offset):,} (Edit > Undo to go back)")

    def _on_type_chosen(self, dtype: str, little_endian: bool) -> None:
        """The data inspector's choice of type and byte order, as one undoable edit. A target
        shape the user set is kept for the same bytes: its last axis is scaled to the new type
        (:func:`core.decode.shape_suggestions.shape_for_new_type`), so the view stays usable."""
        document = self._document
        changes: dict[str, object] = {"dtype": dtype, "little_endian": little_endian}
        params, result = document.params, document.result
        if params.shape is not None and result is not None:
            fitted = shape_for_new_type(tuple(params.shape), type_row(result.params.dtype).stored_bits,
                                        type_row(dtype).stored_bits)
            if fitted is not None:
                changes["shape"] = fitted
        document.update_params(**changes)
