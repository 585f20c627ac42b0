"""File > Export kerchunk references…: the document's decode as a kerchunk reference file.

Thin glue over :mod:`core.export.kerchunk`: the document's source and current result (files,
offset, records, dtype, byte order, shape) are described as a Zarr v2 array over the same bytes;
the plan and the file are made on a worker (:class:`~inspector.state.background_task.BackgroundTask`:
a decode of a million padded records is a million references). The dialog is not modal. The
engine's rules hold: never onto an inspected file, atomically; a decode references cannot
describe (a copy, padding, bfloat16...) is refused with the engine's message; only the current
settings are described (while they are invalid, *Write* is disabled and the message says why).
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.errors import CoreError, describe_error
from core.export.kerchunk import export_kerchunk
from inspector.state.background_task import BackgroundTask
from inspector.state.document import Document
from inspector.widgets import palette
from inspector.widgets.plain_text import make_plain

__all__ = ["KerchunkDialog", "open_kerchunk_dialog"]


class KerchunkDialog(QDialog):
    """Choose the references file and the array's name, then write them (module docstring)."""

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export kerchunk references")
        self.setObjectName("kerchunk.dialog")
        self._document = document
        self._task: BackgroundTask | None = None
        self.path_edit = QLineEdit(self._default_path())
        self.path_edit.setObjectName("kerchunk.path")
        self.name_edit = QLineEdit("data")
        self.name_edit.setObjectName("kerchunk.name")
        form = QFormLayout()
        form.addRow("File:", self.path_edit)
        form.addRow("Array name:", self.name_edit)
        self.summary_label = QLabel()
        self.summary_label.setObjectName("kerchunk.summary")
        self.message_label = QLabel()
        self.message_label.setObjectName("kerchunk.message")
        make_plain(self.summary_label, self.message_label)
        for label in (self.summary_label, self.message_label):
            label.setWordWrap(True)
        self.message_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.write_button = QPushButton("Write")
        self.write_button.setObjectName("kerchunk.start")
        self.write_button.setDefault(True)
        self.write_button.clicked.connect(self.write)
        self.close_button = QPushButton("Close")
        self.close_button.setObjectName("kerchunk.close")
        self.close_button.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.write_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.message_label)
        layout.addLayout(buttons)
        document.resultChanged.connect(self._on_result_changed)
        document.errorChanged.connect(self._on_result_changed)
        self._on_result_changed()
        self.resize(560, self.sizeHint().height())

    def message(self) -> str:
        """The message line (a refusal, a failure, or what was written)."""
        return self.message_label.text()

    def write(self) -> BackgroundTask | None:
        """Write the references of the current decode (the *Write* button); None when refused at once."""
        path, name = self.path_edit.text().strip(), self.name_edit.text().strip()
        if not path:
            self._set_message("Choose a file to write first", error=True)
            return None
        try:
            result = self._document.check_result_is_current()
            source = self._document.pipeline.source
        except CoreError as error:
            self._set_message(describe_error(error).message, error=True)
            return None
        inspected = tuple(self._document.paths)

        def work(progress, cancelled):
            return export_kerchunk(source, result, path, name, source_paths=inspected)

        task = BackgroundTask(work)
        task.succeeded.connect(lambda plan: self._on_written(path, plan))
        task.failed.connect(lambda error: self._on_failed(error))
        self._task = task
        self.write_button.setEnabled(False)
        self._set_message("Writing…")
        return task.start()

    # ------------------------------------------------------------------ events
    def _on_result_changed(self, *_args: object) -> None:
        try:
            result = self._document.check_result_is_current()
        except CoreError as error:
            self.summary_label.setText("")
            self._set_message(describe_error(error).message, error=True)
            self.write_button.setEnabled(False)
            return
        shape = tuple(result.params.shape)
        self.summary_label.setText(f"The decoded tensor {shape} of {result.params.dtype}, read in place from "
                                   f"{len(self._document.paths)} file(s) (a slice is not part of it)")
        self.write_button.setEnabled(self._task is None)
        if self.message_label.styleSheet():
            self._set_message("")

    def _on_written(self, path: str, plan) -> None:
        self._task = None
        self.write_button.setEnabled(True)
        notes = "".join(f"\n{note}" for note in plan.notes)
        plural = "" if plan.chunk_count == 1 else "s"
        self._set_message(f"Wrote {plan.chunk_count:,} chunk reference{plural} to {path}{notes}")

    def _on_failed(self, error: BaseException) -> None:
        self._task = None
        self.write_button.setEnabled(True)
        self._set_message(describe_error(error).message, error=True)

    # ------------------------------------------------------------------ helpers
    def _default_path(self) -> str:
        paths = self._document.paths
        if not paths:
            return ""
        stem = os.path.splitext(os.path.basename(paths[0]))[0]
        return os.path.join(os.path.dirname(os.path.abspath(paths[0])), f"{stem}.refs.json")

    def _set_message(self, text: str, error: bool = False) -> None:
        self.message_label.setText(text)
        self.message_label.setStyleSheet(palette.inline_style("error") if error else "")


def open_kerchunk_dialog(document: Document, parent: QWidget | None = None) -> KerchunkDialog:
    """Open a non-modal :class:`KerchunkDialog` for the document (it deletes itself when closed)."""
    dialog = KerchunkDialog(document, parent)
    dialog.setAttribute(Qt.WA_DeleteOnClose)
    dialog.show()
    dialog.raise_()
    return dialog
