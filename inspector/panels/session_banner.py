"""A banner about the session just opened: files that changed since it was saved, or why it could
not be opened, with *Dismiss*; while the content of its files is checked (SHA-256, on a worker
thread), the progress and *Stop checking* (``session.stopChecking``).

It is shown by :class:`inspector.session_actions.SessionActions` and hides itself when other
files are opened (what it says is about the session's files only).
"""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from inspector.state.document import Document
from inspector.widgets import palette
from inspector.widgets.elided_label import let_long_words_overflow
from inspector.widgets.plain_text import make_plain, tooltip_text

__all__ = ["SessionBanner"]


class SessionBanner(QFrame):
    """Hidden until :meth:`show_message`; then a message and *Dismiss*."""

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("session.banner")
        self.setFrameShape(QFrame.StyledPanel)
        self._document = document
        self._paths: tuple[str, ...] | None = None
        self.label = QLabel(objectName="session.message")
        make_plain(self.label)
        self.label.setWordWrap(True)
        let_long_words_overflow(self.label)  # a long file name must not widen the window
        self.dismiss_button = QPushButton("Dismiss", objectName="session.dismiss")
        self.dismiss_button.clicked.connect(self.hide)
        self.stop_button = QPushButton("Stop checking", objectName="session.stopChecking")
        self.stop_button.setToolTip("Stop comparing the files' content with the SHA-256 the session recorded")
        self.stop_button.hide()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.stop_button)
        layout.addWidget(self.dismiss_button)
        self.hide()
        document.filesChanged.connect(self._on_files_changed)

    def message(self) -> str:
        """The text shown ('' while hidden)."""
        return self.label.text() if not self.isHidden() else ""

    def show_message(self, text: str, severity: str = "warning", stoppable: bool = False) -> None:
        """Show ``text`` in the colours of ``severity`` (``"error"``, ``"warning"``, ``"info"``)
        until dismissed or until files other than the open ones are opened; ``stoppable``:
        with *Stop checking* (a check runs)."""
        self.stop_button.setVisible(stoppable)
        self.setStyleSheet(palette.frame_style("session.banner", severity))
        self.label.setText(text)
        self.label.setToolTip(tooltip_text(text))
        self._paths = self._document.paths
        self.show()

    def _on_files_changed(self) -> None:
        if self._paths is not None and self._document.paths != self._paths:
            self._paths = None
            self.hide()
