"""*Guess layout…*: the ranked candidates of :func:`core.guess.guess_report` for the open files,
with the reasons of the one selected; *Apply* (or a double click) adopts it as one undoable edit
(:meth:`Document.set_params`).

The dialog is not modal: the window stays usable while it is open. The guess runs on a worker
(:class:`inspector.state.background_task.BackgroundTask`), so even a slow disk never blocks the
GUI; the dialog guesses again when the document opens other files.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.errors import describe_error
from core.guess import Candidate, GuessReport, guess_report
from core.text.figures import format_score
from inspector.state.background_task import BackgroundTask
from inspector.state.document import Document
from inspector.widgets.plain_text import display_name, make_plain

__all__ = ["GuessDialog"]


class GuessDialog(QDialog):
    """Ranked layout candidates for the document's files, with reasons; *Apply* adopts one.

    Parameters
    ----------
    document
        The document whose files are guessed and whose parameters *Apply* sets.
    parent
        Optional parent widget (the main window).
    """

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("guess.dialog")
        self.setWindowTitle("Guess layout")
        self.setModal(False)
        self._document = document
        self._report: GuessReport | None = None
        self._task: BackgroundTask | None = None
        self._build()
        document.filesChanged.connect(self._on_files_changed)
        self.resize(640, 460)

    # ------------------------------------------------------------------ construction
    def _build(self) -> None:
        self.status_label = QLabel()
        self.status_label.setObjectName("guess.status")
        self.status_label.setWordWrap(True)
        make_plain(self.status_label)
        self.candidate_list = QListWidget()
        self.candidate_list.setObjectName("guess.candidates")
        self.candidate_list.currentRowChanged.connect(self._on_current_row_changed)
        self.candidate_list.itemDoubleClicked.connect(lambda _item: self.apply_current())
        self.reasons_view = QPlainTextEdit()
        self.reasons_view.setObjectName("guess.reasons")
        self.reasons_view.setReadOnly(True)
        self.apply_button = QPushButton("Apply")
        self.apply_button.setObjectName("guess.apply")
        self.apply_button.setEnabled(False)
        self.apply_button.clicked.connect(self.apply_current)
        self.close_button = QPushButton("Close")
        self.close_button.setObjectName("guess.close")
        self.close_button.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.apply_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status_label)
        layout.addWidget(self.candidate_list, 2)
        layout.addWidget(QLabel("Why:"))
        layout.addWidget(self.reasons_view, 3)
        layout.addLayout(buttons)

    # ------------------------------------------------------------------ guessing
    @property
    def report(self) -> GuessReport | None:
        """The last report shown (None while guessing or after a failure)."""
        return self._report

    @property
    def task(self) -> BackgroundTask | None:
        """The running guess, if any (for tests: wait for its ``finished`` signal)."""
        return self._task

    def start(self) -> None:
        """Guess the document's files on a worker; the list fills when it is done."""
        if self._task is not None:
            self._task.cancel()
        self._report = None
        self.candidate_list.clear()
        self.reasons_view.clear()
        self.apply_button.setEnabled(False)
        paths = self._document.paths
        if not paths:
            self.status_label.setText("Open a file first: there is nothing to guess.")
            self._task = None
            return
        if not self._document.by_name:
            self.status_label.setText("Guessing reads files: the bytes shown come from a Python object. "
                                      "Write them to a file and open it to guess their layout.")
            self._task = None
            return
        self.status_label.setText(f"Guessing the layout of {display_name(paths[0])}…")
        task = BackgroundTask(lambda _progress, _cancelled: guess_report(list(paths)), self)
        task.succeeded.connect(lambda report, t=task: self._on_guessed(t, report))
        task.failed.connect(lambda error, t=task: self._on_failed(t, error))
        self._task = task
        task.start()
        self._document.busy.follow(task, f"Guessing the layout of {display_name(paths[0])}…")

    def _on_guessed(self, task: BackgroundTask, report: GuessReport) -> None:
        if task is not self._task:
            return  # an older guess (the files changed meanwhile)
        self._task = None
        self._report = report
        self.status_label.setText(report.verdict[:1].upper() + report.verdict[1:] + ".")
        for rank, candidate in enumerate(report.candidates, 1):
            item = QListWidgetItem(f"{rank}. {candidate.summary}   (score {format_score(candidate.score)})")
            if not report.convincing:
                item.setToolTip("not convincing: the values do not support it")
            self.candidate_list.addItem(item)
        if report.candidates:
            self.candidate_list.setCurrentRow(0)
        else:
            self.reasons_view.setPlainText("\n".join(report.reasons))

    def _on_failed(self, task: BackgroundTask, error: BaseException) -> None:
        if task is not self._task:
            return
        self._task = None
        self.status_label.setText(f"The guess failed: {describe_error(error).message}")

    # ------------------------------------------------------------------ choosing
    def current_candidate(self) -> Candidate | None:
        """The candidate selected in the list."""
        row = self.candidate_list.currentRow()
        if self._report is None or not 0 <= row < len(self._report.candidates):
            return None
        return self._report.candidates[row]

    def apply_current(self) -> None:
        """Adopt the selected candidate's parameters (one undoable edit; "view as" is kept)."""
        candidate = self.current_candidate()
        if candidate is None:
            return
        self._document.set_params(replace(candidate.params, view_as=self._document.params.view_as))

    def _on_current_row_changed(self, _row: int) -> None:
        candidate = self.current_candidate()
        self.apply_button.setEnabled(candidate is not None)
        if candidate is None or self._report is None:
            return
        lines = [f"• {reason}" for reason in candidate.reasons]
        lines += ["", "About the file:"] + [f"• {reason}" for reason in self._report.reasons]
        self.reasons_view.setPlainText("\n".join(lines))

    def _on_files_changed(self) -> None:
        if self.isVisible():
            self.start()

    def closeEvent(self, event) -> None:
        if self._task is not None:
            self._task.cancel()
        super().closeEvent(event)
