"""The banner "Layout unknown: Guess…" shown over the table when a raw file is opened with no
decode settings remembered for it.

Unobtrusive by design: one line, never a dialog on open. *Guess…* opens the *Guess layout*
dialog, *Dismiss* hides the banner until the next such file, *Don't show again* turns it off
(stored in the settings; the *Tools > Guess layout…* action stays). It hides whenever the
document opens files, and as soon as the user does something with the layout (a decode edit, a
bookmark, a comparison: :meth:`hide_on`): the offer is for a file nobody has looked into yet.
The main window offers it again after an open that qualifies. A long file name never widens
the window: the text wraps, a word longer than the line is cut at the edge, and the tool tip
holds the whole text.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from inspector.state.document import Document
from inspector.widgets import palette
from inspector.widgets.elided_label import let_long_words_overflow
from inspector.widgets.plain_text import display_name, make_plain, tooltip_text

__all__ = ["GuessBanner"]


class GuessBanner(QFrame):
    """Hidden until :meth:`offer`; then "Layout unknown…", *Guess…*, *Dismiss*, *Don't show again*.

    Signals
    -------
    guessRequested()
        *Guess…* was clicked.
    turnedOff()
        *Don't show again* was clicked (the owner stores the choice).
    """

    guessRequested = Signal()
    turnedOff = Signal()

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("guess.banner")
        self.setFrameShape(QFrame.StyledPanel)
        self.setStyleSheet(palette.frame_style("guess\\.banner", "info"))
        self.label = QLabel()
        self.label.setObjectName("guess.bannerText")
        make_plain(self.label)
        self.label.setWordWrap(True)
        let_long_words_overflow(self.label)
        self.guess_button = QPushButton("Guess…")
        self.guess_button.setObjectName("guess.open")
        self.guess_button.clicked.connect(self._on_guess_clicked)
        self.dismiss_button = QPushButton("Dismiss")
        self.dismiss_button.setObjectName("guess.dismiss")
        self.dismiss_button.clicked.connect(self.hide)
        self.off_button = QPushButton("Don't show again")
        self.off_button.setObjectName("guess.turnOff")
        self.off_button.clicked.connect(self._on_off_clicked)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.label, 1)
        for button in (self.guess_button, self.dismiss_button, self.off_button):
            layout.addWidget(button)
        self.hide()
        self.hide_on(document.filesChanged, document.paramsChanged, document.bookmarks.changed)

    def hide_on(self, *signals) -> None:
        """Hide the banner whenever one of ``signals`` is emitted (whatever it carries)."""
        for signal in signals:
            signal.connect(lambda *_args: self.hide())

    def offer(self, path: str) -> None:
        """Show the banner for ``path`` (a raw file opened with no remembered settings)."""
        text = (f"Layout unknown: {display_name(path)} is shown as raw bytes; no decode settings are "
                "remembered for it.")
        self.label.setText(text)
        self.label.setToolTip(tooltip_text(text))
        self.show()

    def _on_guess_clicked(self) -> None:
        self.hide()
        self.guessRequested.emit()

    def _on_off_clicked(self) -> None:
        self.hide()
        self.turnedOff.emit()
