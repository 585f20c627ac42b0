"""The records window's whole-file tools: check the layout against the file, statistics of every
field (over all records), export the records shown (the selected columns, or all; CSV with a
header row or a structured ``.npy``). Each runs off the GUI thread (:class:`~inspector.state.background_task.BackgroundTask`)
on the document's records (:attr:`~inspector.state.document.Document.records`), with the rules
of :mod:`core`: :func:`core.guess.record_check.check_layout` (a bounded sample, the header
offsets ranked), :func:`core.scan.field_statistics.field_statistics` and
:func:`core.export.records.export_records`. Results go to :attr:`RecordsTools.results`, a tab
per tool; a refusal or failure is said in :attr:`RecordsTools.status`. A new layout, header or
file makes the shown results stale: they are cleared.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QWidget,
)

from core.errors import describe_error
from core.export.records import export_records
from core.guess.record_check import check_layout, check_lines
from core.scan.field_statistics import field_statistics
from core.text.byte_sizes import format_bytes
from inspector.panels.statistics_texts import field_texts
from inspector.state.background_task import BackgroundTask
from inspector.state.document import Document

#: The statistics table's columns: (figure of statistics_texts.field_texts, title).
STATISTICS_COLUMNS = (("dtype", "type"), ("count", "count"), ("min", "min"), ("max", "max"), ("mean", "mean"),
                      ("std", "std"), ("nan", "NaN"), ("posinf", "+Inf"), ("neginf", "−Inf"), ("zeros", "zeros"),
                      ("subnormal", "subnormal"))

__all__ = ["RecordsTools"]


class RecordsTools(QWidget):
    """Buttons and results of the whole-file tools of records (module docstring).

    Signals
    -------
    resultsShown()
        A tool's results are in :attr:`results` (the window shows that pane).
    """

    resultsShown = Signal()

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._task: BackgroundTask | None = None
        self.check_button = QPushButton("Check layout", parent, objectName="records.check")
        self.check_button.setToolTip("Do the fields' values look plausible in this file, and where do the records "
                                     "start? (a sample of records; header offsets ranked)")
        self.check_button.clicked.connect(self.check)
        self.use_header = QPushButton("Use the proposed header", parent, objectName="records.useHeader")
        self.use_header.setToolTip("Start the records where the check proposes (one edit of the header)")
        self.use_header.clicked.connect(self._use_proposed_header)
        self.use_header.hide()
        self.statistics_button = QPushButton("Statistics", parent, objectName="records.statistics")
        self.statistics_button.setToolTip("Min, max, mean, std, NaN, Inf, zero and subnormal counts of every field "
                                          "over all records (an array field's elements together; off the GUI thread)")
        self.statistics_button.clicked.connect(self.compute_statistics)
        self.export_button = QPushButton("Export…", parent, objectName="records.export")
        self.export_button.setToolTip("Write the records shown (the selected columns, or all) as CSV with a header "
                                      "row, or as a structured .npy")
        self.export_button.clicked.connect(self._choose_export_path)
        self.cancel_button = QPushButton("Cancel", parent, objectName="records.cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()
        self.status = QLabel(parent, objectName="records.toolStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.results = QTabWidget(parent, objectName="records.results")
        self.check_text = QPlainTextEdit(objectName="records.checkResult")
        self.check_text.setReadOnly(True)
        self.check_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.results.addTab(self.check_text, "Check")
        self.statistics_table = QTableWidget(0, len(STATISTICS_COLUMNS), objectName="records.statisticsTable")
        self.statistics_table.setHorizontalHeaderLabels([title for _key, title in STATISTICS_COLUMNS])
        self.statistics_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.statistics_table.verticalHeader().setDefaultSectionSize(22)
        self.results.addTab(self.statistics_table, "Statistics")
        self.results.hide()
        self._columns_for_export = lambda: []
        self._proposed: int | None = None
        document.records.changed.connect(self._clear)

    @property
    def buttons(self) -> tuple[QPushButton, ...]:
        """The tools' buttons, in the order the window lays them out."""
        return (self.check_button, self.use_header, self.statistics_button, self.export_button, self.cancel_button)

    def export_columns_from(self, columns) -> None:
        """``columns() -> list`` gives the columns an export writes ([]: all)."""
        self._columns_for_export = columns

    @property
    def running(self) -> bool:
        return self._task is not None

    def set_enabled(self, shown: bool) -> None:
        """Tools work on records shown (and one at a time)."""
        for button in (self.check_button, self.statistics_button, self.export_button):
            button.setEnabled(shown and self._task is None)
        self.cancel_button.setVisible(self._task is not None)

    def cancel(self) -> None:
        """Stop the running tool (an export leaves no file)."""
        if self._task is not None:
            self._task.cancel()

    # ------------------------------------------------------------------ the check
    def check(self) -> bool:
        """Check the records' layout against the file, off the GUI thread; False when no records
        are shown or a tool is running."""
        records, pipeline = self._document.records, self._document.pipeline
        if records.layout is None or pipeline is None or self._task is not None:
            return False
        layout, header, source = records.layout, records.header, pipeline.source
        name = pipeline.source.paths[0]

        def work(_progress, _cancelled):
            check = check_layout(source, layout, header)
            best = check.best_header
            return check_lines(name, check), None if best is None else best.offset

        self._start(work, self._on_checked, "Checking the layout…")
        return True

    def _on_checked(self, outcome) -> None:
        text, best = outcome
        self.check_text.setPlainText(text)
        self.results.setCurrentWidget(self.check_text)
        self._proposed = best if best is not None and best != self._document.records.header else None
        self.use_header.setVisible(self._proposed is not None)
        if self._proposed is not None:
            self.use_header.setText(f"Start the records at byte {self._proposed:,}")
        first = text.splitlines()[0] if text else ""
        self.status.setText(first.split(": ", 1)[-1])
        self._show_results()

    def _use_proposed_header(self) -> None:
        records = self._document.records
        if self._proposed is None or records.choice is None:
            return
        choice = records.choice
        start = self._proposed - (records.header - choice.header)  # a header struct keeps its size
        try:
            records.choose(replace(choice, header=max(start, 0)))
        except Exception as error:  # said, never raised out of a slot
            self.status.setText(describe_error(error).message)

    # ------------------------------------------------------------------ statistics
    def compute_statistics(self) -> bool:
        """The statistics of every field over all records, off the GUI thread (rows in layout
        order); False when no records are shown or a tool is running."""
        records, pipeline = self._document.records, self._document.pipeline
        if records.layout is None or pipeline is None or self._task is not None:
            return False
        layout, header, source, count = records.layout, records.header, pipeline.source, records.count

        def work(progress, cancelled):
            return list(field_statistics(source, layout, header=header, histogram=False, progress=progress,
                                         cancelled=cancelled, records=count))

        self._start(work, self._on_statistics, f"Statistics of {len(layout.fields)} fields over "
                                               f"{records.count:,} records…")
        return True

    def _on_statistics(self, found) -> None:
        table = self.statistics_table
        table.setRowCount(len(found))
        table.setVerticalHeaderLabels([f"{item.name}{' (computed)' if item.computed else ''}" for item in found])
        for row, item in enumerate(found):
            texts = field_texts(item.statistics, np.dtype(item.statistics.dtype)
                                if _numpy_type(item.statistics.dtype) else None)
            for column, (key, _title) in enumerate(STATISTICS_COLUMNS):
                cell = QTableWidgetItem(texts[key])
                cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(row, column, cell)
        table.resizeColumnsToContents()
        self.results.setCurrentWidget(table)
        self.status.setText(f"statistics of {len(found)} fields over {self._document.records.count:,} records")
        self._show_results()

    def statistics_text(self, field: str, figure: str) -> str:
        """The statistics table's text of ``figure`` (a key of :data:`STATISTICS_COLUMNS`) for ``field``."""
        table = self.statistics_table
        rows = [table.verticalHeaderItem(r).text().split(" (")[0] for r in range(table.rowCount())]
        keys = [key for key, _title in STATISTICS_COLUMNS]
        return table.item(rows.index(field), keys.index(figure)).text()

    # ------------------------------------------------------------------ export
    def _choose_export_path(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.parentWidget(), "Export records", "records.csv",
                                              "CSV with a header row (*.csv);;Structured numpy array (*.npy)")
        if path:
            self.export_to(path)

    def export_to(self, path: str) -> bool:
        """Write the records shown to ``path`` (``.npy``: a structured array, else CSV), the
        columns :meth:`export_columns_from` gives (all when none), off the GUI thread."""
        records, pipeline = self._document.records, self._document.pipeline
        if records.layout is None or pipeline is None or self._task is not None:
            return False
        fmt = "npy" if str(path).lower().endswith(".npy") else "csv"
        columns = [c.name for c in self._columns_for_export()] or None
        layout, header, source, rows = records.layout, records.header, pipeline.source, records.rows

        def work(progress, cancelled):
            return export_records(source, layout, path, fmt, header=header, records=rows, columns=columns,
                                  progress=progress, cancelled=cancelled)

        what = f"{len(columns)} columns" if columns else "every column"
        self._start(work, lambda nbytes: self.status.setText(f"wrote {format_bytes(nbytes)} to {path} ({what} of "
                                                             f"{rows.count:,} records)"),
                    f"Exporting {rows.count:,} records to {path}…")
        return True

    # ------------------------------------------------------------------ running
    def _start(self, work, done, what: str) -> None:
        task = BackgroundTask(work, self)
        task.succeeded.connect(done)
        task.failed.connect(lambda error: self.status.setText(describe_error(error).message))
        task.cancelled.connect(lambda: self.status.setText("cancelled"))
        task.finished.connect(self._ended)
        self._task = task
        self.status.setText(what)
        self.set_enabled(True)
        task.start()
        self._document.busy.follow(task, what)

    def _ended(self) -> None:
        self._task = None
        self.set_enabled(self._document.records.layout is not None)

    def _show_results(self) -> None:
        self.results.show()
        self.resultsShown.emit()

    def _clear(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self.check_text.clear()
        self.statistics_table.setRowCount(0)
        self.results.hide()
        self.use_header.hide()
        self._proposed = None
        self.status.clear()
        self.set_enabled(self._document.records.layout is not None)



def _numpy_type(name: str) -> bool:
    try:
        np.dtype(name)
    except TypeError:
        return False
    return True
