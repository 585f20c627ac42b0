"""The Model dock: every tensor of the open container with the figures that say which went
wrong (:class:`inspector.state.model_scan.ModelScan`), sortable, filterable, problems
highlighted; choosing a row shows that tensor.

Controls: *Scan* (again), *Cancel*, a progress bar while scanning, a name filter and *Problems
only*; a summary line (tensors, flagged ones by flag, errors, skipped) and the skipped entries
and errors below the table. Enter or a double click on a row of the open container emits
:attr:`ModelPanel.tensorChosen` with the tensor's name (the window shows it as the Tensors dock
would); a row of a scanned folder is shown in the window (:meth:`ModelScan.open_row`), and
*Scan the open file* goes back to following the window's file.
"""

from __future__ import annotations

import os
from collections import Counter

from PySide6.QtCore import QItemSelectionModel, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.models.rows import SCAN_COLUMNS, scan_cells, scan_severity, scan_sort_key
from core.models.scan import FLAGS
from core.text.names import printable_name
from inspector.state.model_scan import ModelScan
from inspector.widgets import palette
from inspector.widgets.rows_table import RowsModel, RowsView, name_filter, note_label, progress_bar

__all__ = ["ModelPanel"]

#: Problems listed under the table (the rest are counted).
SHOWN_PROBLEMS = 20
#: Names that size the name column (the first ones), and the most of the table it takes.
SIZED_ROWS = 200
NAME_WIDTH_SHARE = 0.45


class ModelPanel(QWidget):
    """The Model dock's widget over a :class:`ModelScan`.

    Signals
    -------
    tensorChosen(str)
        The name of the tensor whose row was activated.
    """

    tensorChosen = Signal(str)

    def __init__(self, scan: ModelScan, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scan = scan
        self.scan_button = QPushButton("Scan", self, objectName="model.scan")
        self.scan_button.setToolTip("Read every tensor of the open file for NaN, Inf, zeros, "
                                    "constant and saturated values and their figures")
        self.cancel_button = QPushButton("Cancel", self, objectName="model.cancel")
        self.progress = progress_bar(self, "model.progress")
        self.filter_edit = name_filter(self, "model.filter", "Filter tensors by name")
        self.close_button = QPushButton("Scan the open file", self, objectName="model.close")
        self.close_button.setToolTip("Stop showing the folder's scan: scan the file open in the window instead")
        self.problems_only = QCheckBox("Problems only", self, objectName="model.problemsOnly")
        self.problems_only.setToolTip("Show only tensors with NaN, Inf, all zeros, constant, saturated or "
                                      "subnormal values, and those that could not be read")
        self.model = RowsModel(SCAN_COLUMNS, scan_cells, scan_sort_key, scan_severity, 0, self)
        self.table = RowsView(self.model, "model.table", self)
        self._size_columns()
        self.summary = note_label(self, "model.summary")
        self.open_error = note_label(self, "model.openError", banner="error")
        self.problems = note_label(self, "model.problems", banner="warning")
        controls = QHBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        for widget in (self.scan_button, self.cancel_button, self.progress):
            controls.addWidget(widget)
        controls.addWidget(self.filter_edit, 1)
        controls.addWidget(self.problems_only)
        controls.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(controls)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.open_error)
        layout.addWidget(self.problems)
        self.scan_button.clicked.connect(scan.start)
        self.cancel_button.clicked.connect(scan.cancel)
        self.close_button.clicked.connect(scan.follow_document)
        self.filter_edit.textChanged.connect(self._on_filter)
        self.problems_only.toggled.connect(self._on_filter)
        self.table.activated.connect(self._on_activated)
        scan.reset.connect(self.model.clear)
        scan.rowsAdded.connect(self._on_rows)
        scan.stateChanged.connect(self._show_state)
        scan.targetChanged.connect(self._show_state)
        scan.progressChanged.connect(self._on_progress)
        scan.document.paramsChanged.connect(self._select_current)
        self._show_state()

    def _size_columns(self) -> None:
        self.table.size_columns(SCAN_COLUMNS, {"name": "layers.10.mlp.down_proj.weight", "dtype": "bfloat16",
                                               "shape": "(4096, 11008)", "flags": "zeros constant",
                                               "min": "-1.2345678e+10", "max": "-1.2345678e+10",
                                               "mean": "-1.2345678e+10", "std": "-1.2345678e+10"}, "1,000,000")

    def _size_names(self, rows: list) -> None:
        """The name column as wide as the first :data:`SIZED_ROWS` names need, at most
        :data:`NAME_WIDTH_SHARE` of the table (the tool tip has the whole name)."""
        metrics = self.fontMetrics()
        widest = max((metrics.horizontalAdvance(scan_cells(row)[0]) for row in rows[:SIZED_ROWS]), default=0)
        limit = max(200, int(self.table.viewport().width() * NAME_WIDTH_SHARE))
        self.table.setColumnWidth(0, max(self.table.columnWidth(0),
                                         min(widest + 2 * metrics.horizontalAdvance("M"), limit)))

    def _on_filter(self, *_args: object) -> None:
        self.model.set_filter(self.filter_edit.text(), self.problems_only.isChecked())
        self._show_state()

    def _on_rows(self, rows: list) -> None:
        if len(self.model.rows) < SIZED_ROWS:  # the first rows of a scan: the names as wide as they need
            self._size_names(rows)
        self.model.add_rows(rows)
        self._show_state()
        self._select_current()

    def resizeEvent(self, event) -> None:
        """The current row stays in sight when the dock is resized (first shown with a model)."""
        super().resizeEvent(event)
        current = self.table.selectionModel().currentIndex()
        if current.isValid():
            self.table.scrollTo(current, QAbstractItemView.PositionAtCenter)

    def _select_current(self, *_args: object) -> None:
        """The row of the tensor the window shows is the current row (kept in sight)."""
        entry = self.scan.document.current_entry if self.scan.follows_document else None
        if entry is None:
            return
        row = next((r for r in self.model.rows if r.tensor.entry is not None and r.tensor.entry.name == entry.name), None)
        shown = -1 if row is None else self.model.shown_row_of(row)
        current = self.table.selectionModel().currentIndex()
        if shown < 0 or current.row() == shown:
            return
        index = self.model.index(shown, 0)
        self.table.selectionModel().setCurrentIndex(index, QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows)
        self.table.scrollTo(index, QAbstractItemView.PositionAtCenter)

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setValue(1000 if total <= 0 else int(1000 * done // total))

    def _on_activated(self, index) -> None:
        row = self.model.row_at(index.row())
        if row is None:
            return
        if self.scan.follows_document:
            self.tensorChosen.emit(row.tensor.name)
            return
        problem = self.scan.open_row(row)
        self.open_error.setText(problem or "")
        self.open_error.setVisible(problem is not None)

    def _show_state(self) -> None:
        scan = self.scan
        running = scan.running
        self.scan_button.setEnabled(scan.available and not running)
        self.scan_button.setText("Scan again" if scan.status in ("done", "cancelled", "failed") else "Scan")
        self.cancel_button.setVisible(running)
        self.close_button.setVisible(not scan.follows_document)
        self.progress.setVisible(running)
        if not running:
            self.progress.setValue(0)
        self.summary.setText(self.summary_text())
        self.summary.setStyleSheet(palette.inline_style("error" if scan.status == "failed" else None))
        lines = [printable_name(p.path if p.name is None else f"{p.name}") + f": {p.message}"
                 for p in scan.problems[:SHOWN_PROBLEMS]]
        if len(scan.problems) > SHOWN_PROBLEMS:
            lines.append(f"... and {len(scan.problems) - SHOWN_PROBLEMS:,} more")
        self.problems.setText("\n".join(lines))
        self.problems.setVisible(bool(lines))

    def summary_text(self) -> str:
        """``256 tensors: 3 flagged (nan 2, inf 1), 0 errors``, with what is still running or
        why it stopped."""
        scan = self.scan
        rows = scan.rows
        if scan.status == "idle":
            return "Scan reads every tensor of the open file." if scan.available else "Open a model file to scan it."
        where = "" if scan.follows_document else ", ".join(printable_name(os.path.basename(p) or p)
                                                           for p in scan.paths[:3]) + ": "
        flags = Counter(flag for row in rows for flag in row.flags)
        flagged = sum(1 for row in rows if scan_severity(row) in ("error", "warning"))
        errors = sum(1 for row in rows if row.error is not None)
        shown = ", ".join(f"{flag} {flags[flag]:,}" for flag in FLAGS if flags[flag])
        text = f"{where}{len(rows):,} tensors: {flagged:,} flagged" + (f" ({shown})" if shown else "") + f", {errors:,} errors"
        if self.model.shown_count != len(rows):
            text += f"; {self.model.shown_count:,} shown"
        ending = {"running": " (scanning...)", "cancelled": " (cancelled: incomplete)",
                  "failed": f" (failed: {scan.error})"}.get(scan.status, "")
        return text + ending
