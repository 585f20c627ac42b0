"""The records window's whole-file tools: check the layout against the file, statistics of every
field, export the records. Each runs off the GUI thread (:class:`~inspector.state.background_task.BackgroundTask`)
on the document's records (:attr:`~inspector.state.document.Document.records`), with the rules
of :mod:`core`: :func:`core.guess.record_check.check_layout` (a bounded sample, the header
offsets ranked), :func:`core.scan.field_statistics.field_statistics` and
:func:`core.export.records.export_records`. Results go to :attr:`RecordsTools.results`, a tab
per tool; a refusal or failure is said in :attr:`RecordsTools.status`. A new layout, header or
file makes the shown results stale: they are cleared.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QPushButton, QTabWidget, QWidget

from core.errors import describe_error
from core.guess.record_check import check_layout, check_lines
from inspector.state.background_task import BackgroundTask
from inspector.state.document import Document

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
        self.status = QLabel(parent, objectName="records.toolStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.results = QTabWidget(parent, objectName="records.results")
        self.check_text = QPlainTextEdit(objectName="records.checkResult")
        self.check_text.setReadOnly(True)
        self.check_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.results.addTab(self.check_text, "Check")
        self.results.hide()
        self._proposed: int | None = None
        document.records.changed.connect(self._clear)

    @property
    def buttons(self) -> tuple[QPushButton, ...]:
        """The tools' buttons, in the order the window lays them out."""
        return (self.check_button, self.use_header)

    @property
    def running(self) -> bool:
        return self._task is not None

    def set_enabled(self, shown: bool) -> None:
        """Tools work on records shown (and one at a time)."""
        self.check_button.setEnabled(shown and self._task is None)

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

    # ------------------------------------------------------------------ running
    def _start(self, work, done, what: str) -> None:
        task = BackgroundTask(work, self)
        task.succeeded.connect(done)
        task.failed.connect(lambda error: self.status.setText(describe_error(error).message))
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
        self.results.hide()
        self.use_header.hide()
        self._proposed = None
        self.status.clear()
        self.set_enabled(self._document.records.layout is not None)

