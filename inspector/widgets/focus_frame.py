"""A visible frame around the widget that has the keyboard focus, whatever the widget style.

Many styles mark the focused widget faintly (a dotted line, a slightly darker border) or not at
all (a table, a plot, the hex view). :class:`FocusFrame` is a transparent overlay, child of the
window, that draws a two-pixel :data:`inspector.widgets.palette.FOCUS` rectangle just outside the
focused widget's rectangle: no style sheet touches the widgets themselves, so their look is
unchanged. It lets mouse events through and follows ``QApplication.focusChanged``, moves and
resizes; it hides while the focus is outside its window.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, QObject, QPoint, QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QApplication, QWidget

from inspector.widgets import palette

#: Frame thickness in pixels (drawn outside the widget's rectangle).
FRAME_WIDTH = 2


class FocusFrame(QWidget):
    """Overlay on ``window`` that frames its focused descendant (rules: module docstring)."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.setObjectName("window.focusFrame")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._target: QWidget | None = None
        self._watched: list[QWidget] = []  # the target and its ancestors below the window
        self.hide()
        # A bound method of a QObject: PySide disconnects it when this frame is destroyed.
        QApplication.instance().focusChanged.connect(self._on_focus_changed)

    def target(self) -> QWidget | None:
        """The widget framed now (None when the frame is hidden)."""
        return self._target

    def _on_focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        window = self.parentWidget()
        for widget in self._watched:
            if shiboken6.isValid(widget):  # the old focus widget may have been deleted meanwhile
                widget.removeEventFilter(self)
        self._watched = []
        self._target = new if new is not None and window is not None and window.isAncestorOf(new) else None
        if self._target is None:
            self.hide()
            return
        # A splitter or dock that moves an ancestor moves the target without a Move event of its own.
        widget = self._target
        while widget is not None and widget is not window:
            widget.installEventFilter(self)
            self._watched.append(widget)
            widget = widget.parentWidget()
        self._follow()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched in self._watched and event.type() in (QEvent.Type.Move, QEvent.Type.Resize,
                                                          QEvent.Type.Show, QEvent.Type.Hide):
            self._follow()
        return False

    def _follow(self) -> None:
        target, window = self._target, self.parentWidget()
        if target is None or window is None or not shiboken6.isValid(target) or not target.isVisible():
            self.hide()
            return
        top_left = target.mapTo(window, QPoint(0, 0))
        rect = QRect(top_left, target.size()).adjusted(-FRAME_WIDTH, -FRAME_WIDTH, FRAME_WIDTH, FRAME_WIDTH)
        self.setGeometry(rect)
        self.show()
        self.raise_()
        self.update()

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        pen = QPen(QColor(palette.FOCUS))
        pen.setWidth(FRAME_WIDTH)
        pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
        painter.setPen(pen)
        half = FRAME_WIDTH // 2
        painter.drawRect(self.rect().adjusted(half, half, -half, -half))


def first_focusable(root: QWidget) -> QWidget | None:
    """The first visible, enabled descendant of ``root`` that Tab can reach, in focus-chain order
    (where a panel's focus shortcut puts the focus)."""
    widget = root.nextInFocusChain()
    for _ in range(10_000):  # the chain is a ring through the whole window
        if widget is None or widget == root:
            break
        if (root.isAncestorOf(widget) and widget.isVisibleTo(root) and widget.isEnabled()
                and widget.focusPolicy() & Qt.FocusPolicy.TabFocus):
            return widget
        widget = widget.nextInFocusChain()
    return None
