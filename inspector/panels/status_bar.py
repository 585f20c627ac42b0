"""Status bar: file name and size, dtype and byte order, shape, and the selected element.

For the selection it shows the element's index in the view, its value, and the byte offset(s) of
its bytes in its file, as computed by the engine (``PipelineResult.byte_offset``).

It describes what the table shows: file name and size, type and shape change with a new view
(``resultChanged``), not when files are opened that cannot be decoded yet (the table still
shows the previous view; the window's banner says so). When the files changed on disk and the
views were cleared, type, shape and selection are cleared too. Closing the files shows
``no file``.

While the open file's listing runs in the background (:attr:`Document.listing_running
<inspector.state.document.Document.listing_running>`), ``status.listing`` says so with the
header bytes read and ``status.listingCancel`` stops it; a cancelled listing leaves ``listing
cancelled`` there (the file stays shown as raw bytes) until other files are opened.

The window's busy state (:mod:`inspector.state.busy`, :attr:`Document.busy
<inspector.state.document.Document.busy>`) is shown here and nowhere else: ``status.busy`` says
what the window is busy with, and the application's override cursor is the busy cursor while a
worker's result is awaited (the wait cursor while the GUI thread itself is blocked); both go
when the work ends. A blocking reason is painted at once, before the work starts.

While remote files are open (:mod:`core.files.remote`), ``status.remote`` says what has been
fetched: bytes and requests since the app started (the one block cache's counters), checked
every :data:`REMOTE_POLL_MS`.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCursor, QGuiApplication
from PySide6.QtWidgets import QLabel, QStatusBar, QToolButton, QWidget

from core.errors import describe_error
from core.pipeline.pipeline import PipelineResult
from core.text.byte_sizes import format_bytes
from core.text.names import printable_name
from core.text.number_format import format_value
from inspector.state.document import Document
from inspector.widgets.elided_label import ElidedLabel
from inspector.widgets.plain_text import display_name, make_plain, tooltip_text


def byte_order_name(dtype: np.dtype) -> str:
    """'little-endian', 'big-endian' or 'single byte' for a numpy dtype."""
    if dtype.itemsize == 1 or dtype.byteorder == "|":
        return "single byte"
    order = dtype.byteorder
    if order == "=":
        order = "<" if np.little_endian else ">"
    return "little-endian" if order == "<" else "big-endian"


#: How often ``status.remote`` reads the block cache's counters while remote files are open.
REMOTE_POLL_MS = 500


class StatusBar(QStatusBar):
    """Permanent labels kept current from the document's signals."""

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        # File name and selection (which names the file) elide: a long name never widens the window.
        self.file_label = ElidedLabel(preferred_chars=40)
        self.type_label = QLabel()
        self.shape_label = QLabel()
        self.selection_label = ElidedLabel(mode=Qt.TextElideMode.ElideRight)  # the name is last
        self.busy_label = ElidedLabel(preferred_chars=40)  # a long file name never widens the window
        self.busy_label.setObjectName("status.busy")
        self.busy_label.setVisible(False)
        self._cursor_set = False  # this bar's override cursor is on the application's stack
        self.listing_label = QLabel(objectName="status.listing")
        self.listing_cancel = QToolButton(objectName="status.listingCancel", text="Cancel")
        self.listing_cancel.setToolTip("Stop listing the tensors of this file (it stays shown as raw bytes)")
        self.listing_cancel.clicked.connect(document.cancel_listing)
        self.remote_label = QLabel(objectName="status.remote")
        self.remote_label.setToolTip("Bytes fetched from remote files and the requests made (only the bytes "
                                     "shown or scanned are fetched)")
        self.remote_label.setVisible(False)
        self.cluster_label = QLabel(objectName="status.cluster")
        self.cluster_label.setTextFormat(Qt.TextFormat.RichText)
        self.cluster_label.setOpenExternalLinks(True)
        self.cluster_label.setToolTip("The Dask cluster statistics, the model scan and the model comparison run on "
                                      "(Tools > Dask cluster…)")
        self.cluster_label.setVisible(False)
        document.cluster.changed.connect(self._on_cluster_changed)
        self._remote_poll = QTimer(self, interval=REMOTE_POLL_MS)
        self._remote_poll.timeout.connect(self._show_transfer)
        make_plain(self.file_label, self.type_label, self.shape_label, self.selection_label, self.listing_label,
                   self.busy_label, self.remote_label)
        for widget in (self.busy_label, self.listing_label, self.listing_cancel, self.remote_label, self.cluster_label,
                       self.file_label,
                       self.type_label, self.shape_label):
            self.addPermanentWidget(widget)
        self.addWidget(self.selection_label, 1)
        document.listingChanged.connect(self._on_listing_changed)
        self._on_listing_changed()
        document.busy.changed.connect(self._on_busy_changed)
        document.filesChanged.connect(self._on_files_changed)
        document.resultChanged.connect(self._on_result_changed)
        document.selectionChanged.connect(self._on_selection_changed)
        document.filesChangedOnDisk.connect(self._on_files_changed_on_disk)
        self._stale = False  # the files changed on disk: show no value until a reload
        self._on_files_changed()

    def _on_listing_changed(self) -> None:
        document = self._document
        if document.listing_running:
            self.listing_label.setText(f"Listing tensors… {format_bytes(document.listing_bytes)} of header read")
        else:
            self.listing_label.setText(document.listing_status)
        self.listing_label.setVisible(document.listing_running or bool(document.listing_status))
        self.listing_cancel.setVisible(document.listing_running)

    def _on_busy_changed(self, message: str, blocking: bool) -> None:
        self.busy_label.setText(message)
        self.busy_label.setVisible(bool(message))
        if message:
            cursor = QCursor(Qt.CursorShape.WaitCursor if blocking else Qt.CursorShape.BusyCursor)
            if self._cursor_set:
                QGuiApplication.changeOverrideCursor(cursor)
            else:
                QGuiApplication.setOverrideCursor(cursor)
                self._cursor_set = True
            if blocking:  # the event loop stops until the work ends: paint the message now
                if self.layout() is not None:
                    self.layout().activate()
                self.repaint()
        elif self._cursor_set:
            QGuiApplication.restoreOverrideCursor()
            self._cursor_set = False

    def _on_cluster_changed(self) -> None:
        connection = self._document.cluster
        text = connection.status_text() or (f"cluster: {connection.error}" if connection.error else "")
        link = connection.dashboard_link()
        escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        self.cluster_label.setText(escaped + (f' — <a href="{link}">dashboard</a>' if link else ""))
        self.cluster_label.setVisible(bool(text))

    def _show_transfer(self) -> None:
        transfer = self._document.remote_transfer()
        if transfer is None:
            self._remote_poll.stop()
            self.remote_label.setVisible(False)
            return
        text = (f"remote: {format_bytes(transfer.bytes_fetched)} fetched in {transfer.requests:,} "
                f"request{'' if transfer.requests == 1 else 's'}")
        if self.remote_label.text() != text:
            self.remote_label.setText(text)
        self.remote_label.setVisible(True)

    def _on_files_changed(self) -> None:
        if self._document.remote_transfer() is not None:
            self._show_transfer()
            self._remote_poll.start()
        else:
            self._show_transfer()
        if not self._document.paths:
            self.file_label.setText("no file")
            self.file_label.setToolTip("")

    def _show_files(self) -> None:
        """Name and size of the files of the view just shown (the document's, at that moment)."""
        paths = self._document.paths
        sizes = [self._document.file_size(i) for i in range(len(paths))]
        name = display_name(paths[0]) + (f" + {len(paths) - 1} more" if len(paths) > 1 else "")
        self.file_label.setText(f"{name} ({format_bytes(sum(sizes))})")
        self.file_label.setToolTip(tooltip_text("\n".join(printable_name(p) for p in paths)))

    def _show_sizes_on_disk(self, report) -> None:
        """After a change on disk the size shown is the files' size now, with the size they had
        when opened (``data.bin (2.0 KiB now, was 4.0 KiB)``), as the banner says; a deleted
        file says so."""
        paths = self._document.paths
        if not paths:
            return
        old = [self._document.file_size(i) for i in range(len(paths))]
        new = list(old)
        deleted = False
        for change in report.changes:
            if change.path in paths:
                index = paths.index(change.path)
                new[index] = change.new_size
                deleted = deleted or change.kind == "deleted"
        name = display_name(paths[0]) + (f" + {len(paths) - 1} more" if len(paths) > 1 else "")
        if deleted:
            self.file_label.setText(f"{name} (deleted on disk)")
        elif sum(new) != sum(old):
            self.file_label.setText(f"{name} ({format_bytes(sum(new))} now, was {format_bytes(sum(old))})")

    def _on_result_changed(self, result: PipelineResult) -> None:
        self._stale = False
        self._show_files()
        view = result.view
        self.type_label.setText(f"{view.dtype.name} {byte_order_name(view.dtype)}")
        self.shape_label.setText("shape (" + ", ".join(str(d) for d in view.shape) + ")")
        self._on_selection_changed(self._document.selection)

    def _on_files_changed_on_disk(self, report) -> None:
        self._show_sizes_on_disk(report)
        if report.invalidates_view:  # the views were cleared: no type, shape or value to describe
            self._stale = True
            for label in (self.type_label, self.shape_label, self.selection_label):
                label.setText("")

    def _on_selection_changed(self, index: tuple[int, ...] | None) -> None:
        result = self._document.result
        if result is None or index is None or self._stale:
            self.selection_label.setText("")
            return
        self.selection_label.setText(selection_text(result, index, self._document.paths))


def selection_text(result: PipelineResult, index: tuple[int, ...], paths: tuple[str, ...] = ()) -> str:
    """``[1, 2] = 0.25 at byte 72 of waves.bin`` for the element ``index`` of ``result.view``."""
    try:
        value = result.value_at(index)
        file_index, offset, nbytes = result.byte_offset(index)
    except (IndexError, ValueError) as error:
        return f"[{', '.join(map(str, index))}]: {describe_error(error).message}"
    name = display_name(paths[file_index]) if file_index < len(paths) else f"file {file_index}"
    text = format_value(value, result.view.dtype, "auto")
    where = f"bytes {offset}..{offset + nbytes - 1}" if nbytes > 1 else f"byte {offset}"
    nibble = result.nibble(index) if result.byte_map is not None else None
    if nibble is not None:  # int4: two values per byte (docs/semantics.md §2a)
        where += f" {nibble} nibble"
    return f"[{', '.join(map(str, index))}] = {text}   {where} (0x{offset:x}) of {name}"
