"""Labels that never force their window wider: long text is elided, long words overflow.

A ``QLabel``'s minimum width is the width of its whole text, so one 300-character file name in
the status bar made the window at least 2,300 px wide. :class:`ElidedLabel` keeps the whole
text (``text()`` returns it) but paints only what fits, cut in the middle as title bars cut a
long title (``long_na…me.bin``): the start and the extension both stay readable. Its minimum
width is a few characters; the layout gives it its full width whenever there is room.

A word-wrapped label (a banner, an error message) is as wide as its longest word at least: a
message quoting a long path made the window 2,300 px wide. :func:`let_long_words_overflow`
makes such a label take the width its layout gives it; a word longer than that line is cut at
the edge (the caller puts the whole message in the tool tip).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QFontMetrics, QPainter
from PySide6.QtWidgets import QLabel, QSizePolicy, QStyleOption, QToolTip, QWidget

from inspector.widgets.plain_text import tooltip_text

__all__ = ["ElidedLabel", "MIN_CHARS", "let_long_words_overflow"]

MIN_CHARS = 8
"""The label's minimum width, in average character widths."""


class ElidedLabel(QLabel):
    """Plain-text, single-line label whose text is elided to fit its width.

    ``text()`` is the whole text; :meth:`shown_text` is what is painted. While the text is
    elided and no tool tip was set, hovering shows the whole text.

    Parameters
    ----------
    text : str
    parent : QWidget, optional
    mode : Qt.TextElideMode
        Where the text is cut: in the middle (the default, for names: start and extension
        stay), or at the end (a sentence whose start matters most).
    preferred_chars : int, optional
        Cap on the preferred width, in average character widths: a label beside another that
        also shows long text asks for no more than this, and the other gets the rest.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None, *,
                 mode: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle,
                 preferred_chars: int | None = None) -> None:
        super().__init__(text, parent)
        self._mode = mode
        self._preferred_chars = preferred_chars
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(False)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        if self._preferred_chars is None:
            return hint
        return QSize(min(hint.width(), self._chars_width(self._preferred_chars)), hint.height())

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), self._chars_width(MIN_CHARS)), hint.height())

    def _chars_width(self, chars: int) -> int:
        margins = self.contentsMargins()
        return QFontMetrics(self.font()).averageCharWidth() * chars + margins.left() + margins.right()

    def shown_text(self) -> str:
        """The text as painted at the current width (``text()`` when it fits)."""
        rect = self.contentsRect()
        indent = max(self.indent(), 0) + self.margin() * 2
        return QFontMetrics(self.font()).elidedText(self.text(), self._mode,
                                                    max(rect.width() - indent, 0))

    def is_elided(self) -> bool:
        """Whether the painted text is shorter than :meth:`text`."""
        return self.shown_text() != self.text()

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        rect = self.contentsRect().adjusted(self.margin(), self.margin(), -self.margin(), -self.margin())
        self.style().drawItemText(painter, rect, int(self.alignment()), option.palette,
                                  self.isEnabled(), self.shown_text(), self.foregroundRole())
        painter.end()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and not self.toolTip() and self.is_elided():
            QToolTip.showText(event.globalPos(), tooltip_text(self.text()), self)
            return True
        return super().event(event)


def let_long_words_overflow(label: QLabel) -> None:
    """Let the word-wrapped ``label`` be narrower than its longest word.

    Its horizontal size policy becomes ``Ignored`` (so its minimum width is not that of its
    longest word); height-for-width is kept, so wrapped lines still get their height.
    """
    policy = label.sizePolicy()
    policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
    policy.setHeightForWidth(label.wordWrap())
    label.setSizePolicy(policy)
