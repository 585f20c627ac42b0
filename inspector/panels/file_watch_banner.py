"""A banner that says when an open file changed on disk, with *Reload* and *Dismiss*.

A view of the document's one change detector (:mod:`inspector.state.file_monitor`): it shows the
message of each :class:`core.files.file_change.ChangeReport` the document emits (the wording
and the rule of what clears the views live in :mod:`core.files.file_change`), hides when the
document opens files again, and its *Reload* button reloads the document. *Dismiss* hides it
until the next report (the same files changing again, or another change).
"""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from core.files.file_change import ChangeReport
from inspector.state.document import Document
from inspector.widgets import palette
from inspector.widgets.elided_label import let_long_words_overflow
from inspector.widgets.plain_text import make_plain, tooltip_text

__all__ = ["FileWatchBanner"]


class FileWatchBanner(QFrame):
    """Hidden until the document reports a change on disk; then a message, *Reload*, *Dismiss*.

    Parameters
    ----------
    document
        The document whose ``filesChangedOnDisk`` and ``filesChanged`` signals it follows.
    parent
        Optional parent widget.
    """

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fileWatch.banner")
        self._document = document
        self._message = ""
        self._build()
        document.filesChangedOnDisk.connect(self._on_files_changed_on_disk)
        document.filesChanged.connect(self._on_files_changed)

    def message(self) -> str:
        """The text the banner shows (or last showed); '' when nothing changed."""
        return self._message

    # ------------------------------------------------------------------ construction
    def _build(self) -> None:
        self.setFrameShape(QFrame.StyledPanel)
        self.setStyleSheet(palette.frame_style("fileWatch.banner", "warning"))
        self.label = QLabel()
        self.label.setObjectName("fileWatch.message")
        make_plain(self.label)
        self.label.setWordWrap(True)
        let_long_words_overflow(self.label)  # a long file name must not widen the window
        self.reload_button = QPushButton("Reload")
        self.reload_button.setObjectName("fileWatch.reload")
        self.reload_button.clicked.connect(self._on_reload_clicked)
        self.dismiss_button = QPushButton("Dismiss")
        self.dismiss_button.setObjectName("fileWatch.dismiss")
        self.dismiss_button.clicked.connect(self._on_dismiss_clicked)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.reload_button)
        layout.addWidget(self.dismiss_button)
        self.hide()

    # ------------------------------------------------------------------ events
    def _on_files_changed_on_disk(self, report: ChangeReport) -> None:
        self._message = report.message
        self.label.setText(report.message)
        self.label.setToolTip(tooltip_text(report.message))  # the whole name, if cut
        self.show()

    def _on_files_changed(self) -> None:
        self._message = ""
        self.hide()

    def _on_reload_clicked(self) -> None:
        self._document.reload()

    def _on_dismiss_clicked(self) -> None:
        self.hide()
