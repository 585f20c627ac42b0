"""Export the current view to ``.npy``, raw ``.bin`` or ``.csv``.

Two layers:

* :class:`ExportController` runs :func:`core.export.arrays.export_view` on a worker
  (:class:`~inspector.state.background_task.BackgroundTask`) for the document's current view, with
  progress and cancel, and reports ``finished`` / ``failed`` / ``cancelled``. It has no widget, so
  tests and other front ends drive it directly.
* :class:`ExportDialog` (open it with :func:`export_current_view`) chooses the destination,
  format, type and byte order, asks before a very large CSV, shows the progress bar, and cancels.

Rules (the engine's, see :mod:`core.export.arrays`): the file is written to a temporary file next to
the destination and renamed only when complete, so a cancelled or failed export leaves nothing
behind and never a half-written file; exporting onto one of the document's own files is refused;
``source.check_unchanged`` runs before every block, so a file that changed on disk stops the
export with a message (the hazard: ``core/files/shrink_guard.py``). The view exported is the one shown when the export
*starts*; later changes of settings do not affect a running export.

Only the view of the *current* settings is exported (as copy-as-code describes only them): while
the settings are invalid and the window keeps the last good view
(:attr:`Document.result_is_current` is False), an export is refused with the engine's message,
and the dialog says so and disables *Export* until the settings are valid again.
"""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.dtypes.data_type import DataType
from core.errors import CoreError, describe_error
from core.export.arrays import CSV_WARNING_VALUES, FILE_FORMATS, csv_size_warning, export_view
from core.text.byte_sizes import format_bytes
from inspector.panels.status_bar import byte_order_name
from inspector.state.background_task import BackgroundTask
from inspector.state.document import Document
from inspector.widgets import palette
from inspector.widgets.plain_text import make_plain

__all__ = ["ExportController", "ExportDialog", "export_current_view"]

_FORMAT_TITLES = {"npy": "NumPy array (.npy)", "bin": "Raw bytes (.bin)", "csv": "CSV text (.csv)"}
_TYPES = tuple(t.value for t in DataType if t is not DataType.STRING)


class ExportController(QObject):
    """Export ``document.result.view`` on a worker thread.

    Parameters
    ----------
    document
        The document whose current view is exported.
    parent
        Optional Qt parent.
    chunk_elements
        Elements per block (smaller: finer progress and quicker cancel).

    Signals
    -------
    finished(str, int)
        Destination path and bytes written (a 64-bit count).
    failed(str)
        What went wrong and how to fix it (nothing was written).
    cancelled()
        The export stopped on :meth:`cancel` (nothing was written).
    progressChanged(int, int)
        Values written so far and in total.
    """

    finished = Signal(str, "qlonglong")
    failed = Signal(str)
    cancelled = Signal()
    progressChanged = Signal("qlonglong", "qlonglong")

    def __init__(self, document: Document, parent: QObject | None = None, *,
                 chunk_elements: int = 1 << 22) -> None:
        super().__init__(parent)
        self._document = document
        self._chunk_elements = chunk_elements
        self._task: BackgroundTask | None = None

    def start(self, path: str | os.PathLike, fmt: str, dtype: str | None = None,
              little_endian: bool | None = None, *,
              csv_decimals: int | None = None) -> BackgroundTask | None:
        """Start exporting the current view to ``path``.

        Parameters
        ----------
        path
            Destination file (replaced when the export completes).
        fmt
            ``"npy"``, ``"bin"`` or ``"csv"``.
        dtype
            Target type name (``"float64"``...), None to keep the view's.
        little_endian
            Byte order of ``npy`` / ``bin`` output; None keeps the view's.
        csv_decimals
            Fixed decimals for CSV floats; None writes the shortest exact text.

        Returns
        -------
        BackgroundTask or None
            The running task, or None when the export was refused at once (no file open,
            invalid settings, an export already running, the file changed on disk):
            :attr:`failed` was emitted.
            Errors found by the engine (bad type, the destination is the source file, disk
            full...) arrive later through :attr:`failed`.
        """
        problem = self._problem()
        if problem:
            self.failed.emit(problem)
            return None
        result, source = self._document.result, self._document.pipeline.source
        view, sources, check = result.view, self._document.paths, source.check_unchanged
        destination, chunk = os.fspath(path), self._chunk_elements

        def work(progress, cancelled):
            return export_view(view, destination, fmt, dtype=dtype, little_endian=little_endian,
                               progress=progress, cancelled=cancelled, csv_decimals=csv_decimals,
                               source_paths=sources, check=check, chunk_elements=chunk,
                               reader=result.block_reader())

        task = BackgroundTask(work)
        task.setProperty("destination", destination)
        task.progressChanged.connect(self._on_task_progress)
        task.succeeded.connect(self._on_task_succeeded)
        task.failed.connect(self._on_task_failed)
        task.cancelled.connect(self._on_task_cancelled)
        self._task = task
        return task.start()

    def cancel(self) -> None:
        """Stop the running export; :attr:`cancelled` follows and no file is left."""
        if self._task is not None:
            self._task.cancel()

    def is_running(self) -> bool:
        return self._task is not None and self._task.is_running()

    def settings_problem(self) -> str | None:
        """Why the document's current view cannot be exported now, or None.

        ``"No file is open (...)"``, or ``"Cannot export: the current settings are invalid
        ...: <the engine's message>"`` while the window keeps the last good view.
        """
        document = self._document
        if document.pipeline is None or (document.result is None and document.error is None):
            return "No file is open (open a file before exporting)"
        if not document.result_is_current:
            error = document.error
            why = error.message if error is not None else "the view is not computed yet"
            return ("Cannot export: the current settings are invalid, and the view on screen is "
                    f"the last good one, not theirs: {why}")
        return None

    def _problem(self) -> str | None:
        if self.is_running():
            return "An export is already running (wait for it to finish, or cancel it)"
        problem = self.settings_problem()
        if problem:
            return problem
        try:
            self._document.pipeline.source.check_unchanged()
        except CoreError as error:
            return describe_error(error).message
        return None

    # ------------------------------------------------------------------ task events
    def _on_task_progress(self, done: int, total: int) -> None:
        self.progressChanged.emit(done, total)

    def _on_task_succeeded(self, nbytes: int) -> None:
        task = self.sender()
        self._task = None
        self.finished.emit(task.property("destination"), int(nbytes))

    def _on_task_failed(self, error: BaseException) -> None:
        self._task = None
        self.failed.emit(describe_error(error).message)

    def _on_task_cancelled(self) -> None:
        self._task = None
        self.cancelled.emit()


class ExportDialog(QDialog):
    """Choose where and how to export the current view, then run the export with progress.

    Parameters
    ----------
    document
        The document whose current view is exported.
    parent
        Optional parent widget.
    assume_yes
        Answer "yes" to the large-CSV question without asking (tests, scripts).
    csv_warning_limit
        Value count above which a CSV export asks first (:data:`core.export.arrays.CSV_WARNING_VALUES`).
    chunk_elements
        Elements per block of the export.

    The dialog is not modal: the rest of the window stays usable while an export runs. It closes
    itself when an export succeeds; a failure is shown in it, and closing it cancels a running
    export.
    """

    def __init__(self, document: Document, parent: QWidget | None = None, *,
                 assume_yes: bool = False, csv_warning_limit: int = CSV_WARNING_VALUES,
                 chunk_elements: int = 1 << 22) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export view")
        self._document = document
        self._refused = False  # the message line shows why the settings cannot be exported
        self._assume_yes = assume_yes
        self._csv_warning_limit = csv_warning_limit
        self.controller = ExportController(document, self, chunk_elements=chunk_elements)
        self.controller.progressChanged.connect(self._on_export_progress)
        self.controller.finished.connect(self._on_export_finished)
        self.controller.failed.connect(self._on_export_failed)
        self.controller.cancelled.connect(self._on_export_cancelled)
        self.setObjectName("export.dialog")
        self._build()
        document.resultChanged.connect(self._on_result_changed)
        document.errorChanged.connect(self._on_result_changed)
        self.path_edit.setText(self._default_path())
        self._on_result_changed()

    # ------------------------------------------------------------------ public API
    def set_path(self, path: str | os.PathLike) -> None:
        self.path_edit.setText(os.fspath(path))

    def set_format(self, fmt: str) -> None:
        self.format_combo.setCurrentIndex(self.format_combo.findData(fmt))

    def set_dtype(self, dtype: str | None) -> None:
        """Target type name, or None for the view's own type."""
        self.dtype_combo.setCurrentIndex(self.dtype_combo.findData(dtype))

    def set_byte_order(self, little_endian: bool | None) -> None:
        """True little-endian, False big-endian, None the view's byte order."""
        self.byte_order_combo.setCurrentIndex(0 if little_endian is None else
                                              1 if little_endian else 2)

    def message(self) -> str:
        """The message line (an error, a cancellation, the result)."""
        return self.message_label.text()

    def export(self) -> BackgroundTask | None:
        """Start the export chosen in the dialog (the *Export* button).

        Returns
        -------
        BackgroundTask or None
            None when nothing started: no path, a large CSV declined, or a refusal (shown).
        """
        path = self.path_edit.text().strip()
        if not path:
            self._set_message("Choose a destination file first", error=True)
            return None
        fmt = self.format_combo.currentData()
        result = self._document.result
        if fmt == "csv" and result is not None:
            warning = csv_size_warning(result.view, self._csv_warning_limit)
            if warning and not self._assume_yes and not self._confirm_csv(warning):
                self._set_message("CSV export not started", error=False)
                return None
        self._set_message("")
        little = self.byte_order_combo.currentData() if fmt != "csv" else None
        task = self.controller.start(path, fmt, self.dtype_combo.currentData(), little)
        if task is not None:
            self.progress_bar.setValue(0)
            self._set_running(True)
        return task

    # ------------------------------------------------------------------ construction
    def _build(self) -> None:
        self.path_edit = QLineEdit()
        self.path_edit.setObjectName("export.path")
        browse = QPushButton("Browse…")
        browse.setObjectName("export.browse")
        browse.clicked.connect(self._on_browse_clicked)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path_edit, 1)
        path_row.addWidget(browse)

        self.format_combo = QComboBox()
        self.format_combo.setObjectName("export.format")
        for fmt in FILE_FORMATS:
            self.format_combo.addItem(_FORMAT_TITLES[fmt], fmt)
        self.format_combo.currentIndexChanged.connect(self._on_format_changed)
        self.dtype_combo = QComboBox()
        self.dtype_combo.setObjectName("export.type")
        self.dtype_combo.addItem("same as the view", None)
        for name in _TYPES:
            self.dtype_combo.addItem(name, name)
        self.byte_order_combo = QComboBox()
        self.byte_order_combo.setObjectName("export.byteOrder")
        native = sys.byteorder == "little"
        for title, value in (("same as the view", None), ("little-endian", True),
                             ("big-endian", False), (f"native ({sys.byteorder}-endian)", native)):
            self.byte_order_combo.addItem(title, value)

        form = QFormLayout()
        form.addRow("File:", path_row)
        form.addRow("Format:", self.format_combo)
        form.addRow("Type:", self.dtype_combo)
        form.addRow("Byte order:", self.byte_order_combo)

        self.summary_label = QLabel()
        self.summary_label.setObjectName("export.summary")
        self.summary_label.setWordWrap(True)
        self.message_label = QLabel()
        make_plain(self.summary_label, self.message_label)
        self.message_label.setObjectName("export.message")
        self.message_label.setWordWrap(True)
        self.message_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("export.progress")
        self.progress_bar.setRange(0, 1000)
        self.export_button = QPushButton("Export")
        self.export_button.setObjectName("export.start")
        self.export_button.setDefault(True)
        self.export_button.clicked.connect(self.export)
        self.close_button = QPushButton("Close")
        self.close_button.setObjectName("export.close")
        self.close_button.clicked.connect(self._on_close_clicked)
        buttons = QHBoxLayout()
        buttons.addWidget(self.progress_bar, 1)
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.close_button)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.message_label)
        layout.addLayout(buttons)
        self._set_running(False)
        self.resize(520, self.sizeHint().height())

    # ------------------------------------------------------------------ events
    def _on_result_changed(self, *_args: object) -> None:
        """A new view or a new error: summary, and whether (and why not) Export is possible."""
        self._set_running(self.controller.is_running())
        problem = self.controller.settings_problem()
        if problem:
            self._set_message(problem, error=True)
        elif self._refused:
            self._set_message("")  # the settings are valid again: the refusal no longer holds
        self._refused = bool(problem)
        result = self._document.result
        if result is None:
            self.summary_label.setText("No file is open." if self._document.pipeline is None
                                       else "No view yet.")
            return
        view = result.view
        order = byte_order_name(view.dtype)
        self.dtype_combo.setItemText(0, f"same as the view ({_type_name(view.dtype)})")
        self.byte_order_combo.setItemText(0, f"same as the view ({order})")
        self.summary_label.setText(f"View: shape {tuple(view.shape)}, {view.size:,} values of "
                                   f"{_type_name(view.dtype)} ({format_bytes(view.nbytes)})")

    def _on_format_changed(self) -> None:
        fmt = self.format_combo.currentData()
        self.byte_order_combo.setEnabled(fmt != "csv")
        stem, ext = os.path.splitext(self.path_edit.text())
        if ext.lower() in (".npy", ".bin", ".csv"):
            self.path_edit.setText(f"{stem}.{fmt}")

    def _on_browse_clicked(self) -> None:
        fmt = self.format_combo.currentData()
        filters = f"{_FORMAT_TITLES[fmt]} (*.{fmt});;All files (*)"
        path, _ = QFileDialog.getSaveFileName(self, "Export view", self.path_edit.text(), filters)
        if path:
            self.path_edit.setText(path)

    def _on_close_clicked(self) -> None:
        if self.controller.is_running():
            self.controller.cancel()
            self._set_message("Cancelling…")
        else:
            self.reject()

    def _on_export_progress(self, done: int, total: int) -> None:
        self.progress_bar.setValue(1000 if total <= 0 else int(done * 1000 // total))

    def _on_export_finished(self, path: str, nbytes: int) -> None:
        self._set_running(False)
        self._set_message(f"Wrote {nbytes:,} bytes to {path}")
        self.accept()

    def _on_export_failed(self, message: str) -> None:
        self._set_running(False)
        self._set_message(message, error=True)

    def _on_export_cancelled(self) -> None:
        self._set_running(False)
        self._set_message("Export cancelled; no file was written")

    def reject(self) -> None:  # Qt override: Esc / window close cancel a running export
        self.controller.cancel()
        super().reject()

    # ------------------------------------------------------------------ helpers
    def _confirm_csv(self, warning: str) -> bool:
        answer = QMessageBox.question(
            self, "Large CSV export", f"{warning}.\n\nExport as CSV anyway?",
            QMessageBox.Yes | QMessageBox.No, QMessageBox.No)
        return answer == QMessageBox.Yes

    def _default_path(self) -> str:
        paths = self._document.paths
        if not paths:
            return ""
        stem = os.path.splitext(os.path.basename(paths[0]))[0]
        return os.path.join(os.path.dirname(os.path.abspath(paths[0])), f"{stem}_view.npy")

    def _set_running(self, running: bool) -> None:
        self.progress_bar.setVisible(running)
        self.export_button.setEnabled(not running and self.controller.settings_problem() is None)
        self.close_button.setText("Cancel" if running else "Close")
        for widget in (self.path_edit, self.format_combo, self.dtype_combo):
            widget.setEnabled(not running)
        self.byte_order_combo.setEnabled(not running and self.format_combo.currentData() != "csv")

    def _set_message(self, text: str, error: bool = False) -> None:
        self.message_label.setText(text)
        self.message_label.setStyleSheet(palette.inline_style("error" if error else None))


def _type_name(dtype) -> str:
    try:
        return DataType.parse(dtype).value
    except CoreError:
        return str(dtype)


def export_current_view(document: Document, parent: QWidget | None = None, *,
                        assume_yes: bool = False) -> ExportDialog:
    """Open a non-modal :class:`ExportDialog` for the document's current view.

    The dialog deletes itself when closed; connect to ``dialog.controller.finished`` to learn
    about a completed export (e.g. to show it in the status bar).
    """
    dialog = ExportDialog(document, parent, assume_yes=assume_yes)
    dialog.setAttribute(Qt.WA_DeleteOnClose)
    dialog.show()
    dialog.raise_()
    return dialog
