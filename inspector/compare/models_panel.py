"""The Compare models dock: the pair table of two whole models
(:class:`inspector.state.model_comparison.ModelComparison`), worst first, filterable, problems
highlighted, the first divergent pair named; choosing a pair opens it in the element-level
compare.

Controls: *Cancel* and a progress bar while comparing, *First divergent* (selects and opens
that pair), a name filter, *Over tolerance only*, *Close*; a line for A and B (their paths and
tensor counts), the matching's notes, a summary (pairs by status, first divergent and how many
follow it), and what each side skipped. Enter or a double click on a pair opens it
(:meth:`ModelComparison.open_pair`).
"""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import QItemSelectionModel
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.models.diff import STATUSES, PairDiff
from core.models.rows import PAIR_COLUMNS, pair_cells, pair_severity, pair_sort_key
from core.text.names import printable_name
from inspector.state.model_comparison import ModelComparison
from inspector.widgets import palette
from inspector.widgets.rows_table import RowsModel, RowsView, name_filter, note_label, progress_bar

__all__ = ["ModelComparePanel"]

#: Problems listed under the table (the rest are counted).
SHOWN_PROBLEMS = 12
_STATUS = PAIR_COLUMNS.index("status")


class ModelComparePanel(QWidget):
    """The Compare models dock's widget over a :class:`ModelComparison`."""

    def __init__(self, models: ModelComparison, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.models = models
        self.sides = note_label(self, "modelCompare.sides")
        self.cancel_button = QPushButton("Cancel", self, objectName="modelCompare.cancel")
        self.progress = progress_bar(self, "modelCompare.progress")
        self.first_button = QPushButton("First divergent", self, objectName="modelCompare.firstDivergent")
        self.first_button.setToolTip("Open the first pair, in order, that is over tolerance")
        self.filter_edit = name_filter(self, "modelCompare.filter", "Filter pairs by name")
        self.over_only = QCheckBox("Over tolerance only", self, objectName="modelCompare.overOnly")
        self.over_only.setToolTip("Show only pairs that differ, whose shapes differ, that are on one side only "
                                  "or could not be compared")
        self.close_button = QPushButton("Close", self, objectName="modelCompare.close")
        self.model = RowsModel(PAIR_COLUMNS, pair_cells, pair_sort_key, pair_severity, PAIR_COLUMNS.index("name"), self)
        self.table = RowsView(self.model, "modelCompare.table", self, sort_column=_STATUS)  # worst first
        self._size_columns()
        self.summary = note_label(self, "modelCompare.summary")
        self.problems = note_label(self, "modelCompare.problems", banner="warning")
        controls = QHBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        for widget in (self.cancel_button, self.progress, self.first_button):
            controls.addWidget(widget)
        controls.addWidget(self.filter_edit, 1)
        controls.addWidget(self.over_only)
        controls.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.sides)
        layout.addLayout(controls)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.problems)
        self.cancel_button.clicked.connect(models.cancel)
        self.close_button.clicked.connect(models.close)
        self.first_button.clicked.connect(self.open_first_divergent)
        self.filter_edit.textChanged.connect(self._on_filter)
        self.over_only.toggled.connect(self._on_filter)
        self.table.activated.connect(self._on_activated)
        models.reset.connect(self.model.clear)
        models.rowsAdded.connect(self._on_rows)
        models.stateChanged.connect(self._show_state)
        models.progressChanged.connect(self._on_progress)
        models.pairOpened.connect(self._select)
        self._show_state()

    def _size_columns(self) -> None:
        self.table.size_columns(PAIR_COLUMNS, {"status": "shape differs", "name": "layers.10.mlp.down_proj.weight",
                                               "dtype": "float16/float32", "shape": "(4096, 11008)",
                                               "over tol": "1,234 (12.5%)", "cosine": "0.9999999"}, "1.2345e-05")

    def _on_filter(self, *_args: object) -> None:
        self.model.set_filter(self.filter_edit.text(), self.over_only.isChecked())
        self._show_state()

    def _on_rows(self, rows: list) -> None:
        self.model.add_rows(rows)
        self._show_state()

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setValue(1000 if total <= 0 else int(1000 * done // total))

    def _on_activated(self, index) -> None:
        row = self.model.row_at(index.row())
        if row is not None:
            self.models.open_pair(row)

    def open_first_divergent(self) -> None:
        """Open the first divergent pair (the button)."""
        first = self.models.first_divergent
        if first is not None:
            self.models.open_pair(first)

    def _select(self, diff: PairDiff) -> None:
        row = self.model.shown_row_of(diff)
        if row < 0:
            return
        index = self.model.index(row, 0)
        self.table.selectionModel().setCurrentIndex(index, QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows)
        self.table.scrollTo(index)

    def _show_state(self) -> None:
        models = self.models
        running = models.running
        self.cancel_button.setVisible(running)
        self.progress.setVisible(running)
        if not running:
            self.progress.setValue(0)
        self.first_button.setEnabled(models.first_divergent is not None)
        self.sides.setText(self.sides_text())
        self.summary.setText(self.summary_text())
        self.summary.setStyleSheet(palette.inline_style("error" if models.status == "failed" else None))
        lines = [f"skipped ({side}): " + printable_name(p.path) + (f" '{printable_name(p.name)}'" if p.name else "")
                 + f": {p.message}" for side, p in models.problems[:SHOWN_PROBLEMS]]
        if len(models.problems) > SHOWN_PROBLEMS:
            lines.append(f"... and {len(models.problems) - SHOWN_PROBLEMS:,} more")
        self.problems.setText("\n".join(lines))
        self.problems.setVisible(bool(lines))

    def sides_text(self) -> str:
        """``A: path (N tensors)  B: path (M tensors)``, then the matching's notes."""
        models = self.models
        if models.paths is None:
            return "Compare models: File > Compare models… pairs the tensors of two models or dump folders."
        counts = ("", "") if models.sides is None else tuple(f" ({len(s.tensors):,} tensors)" for s in models.sides)
        text = f"A: {printable_name(models.paths[0])}{counts[0]}    B: {printable_name(models.paths[1])}{counts[1]}"
        return "\n".join([text, *(f"note: {note}" for note in models.notes)])

    def summary_text(self) -> str:
        """Pairs by status, the first divergent pair and how many follow it, and whether the
        comparison is still running or stopped short."""
        models = self.models
        rows = models.rows
        if models.status == "idle":
            return ""
        counts = Counter(d.status for d in rows)
        text = f"{len(rows):,} pairs: " + (", ".join(f"{counts[s]:,} {s}" for s in STATUSES if counts[s]) or "none")
        first = models.first_divergent
        if first is not None:
            after = sum(1 for d in rows if d.index > first.index and d.divergent)
            text += (f"; first divergent: {printable_name(first.pair.key)} (pair {first.index + 1:,} in order), "
                     f"{after:,} more over tolerance after it")
        elif models.status == "done":
            text += "; every pair in order is within tolerance or on one side only"
        if self.model.shown_count != len(rows):
            text += f"; {self.model.shown_count:,} shown"
        ending = {"running": " (comparing...)", "cancelled": " (cancelled: incomplete)",
                  "failed": f" (failed: {models.error})"}.get(models.status, "")
        if models.error and models.status != "failed":
            ending += f" ({models.error})"
        return text + ending
