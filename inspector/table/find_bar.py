"""The table's find bar: the next element equal to a value, NaN, Inf, or beyond a threshold.

Rules
-----
- Hidden until :meth:`FindBar.open` (Edit > Find, Ctrl+F), which shows it and selects its text.
  Enter or F3 finds the next match after the selected element, Shift+Enter or Shift+F3 the
  previous one; Escape hides the bar and gives the focus back to the table.
- What may be typed, and the order of the search (C order of the view, wrapping around once),
  are those of :mod:`core.scan.search`; the search reads the view through the result's
  :class:`~core.scan.blocks.BlockReader` on a worker thread (:class:`BackgroundTask`), so a huge
  file neither fills memory nor freezes the window. A new search cancels the running one.
- A match becomes the selected element (``select(index)``: the document's selection, so the
  status bar, plot marker, hex view and data inspector follow). The message says where it was
  found, that the search wrapped, or that nothing matches; a query that does not parse is
  reported in red, never raised. A match in a view that was replaced while the search ran (a new
  decode or slice) is dropped, with a message saying so.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QSizePolicy, QToolButton, QWidget

from core.errors import CoreError, describe_error
from core.scan.blocks import BlockReader
from core.scan.search import find_next, parse_query
from inspector.state.background_task import BackgroundTask
from inspector.widgets import palette
from inspector.widgets.plain_text import make_plain, tooltip_text

#: Where the bar reads the view from: ``() -> (view, reader or None, selected index or None)``.
ViewSource = Callable[[], tuple[np.ndarray | None, BlockReader | None, tuple[int, ...] | None]]


class FindBar(QWidget):
    """A query field with previous / next / close buttons and a one-line message.

    Parameters
    ----------
    source
        Returns the view to search, its block reader (None for in-memory arrays) and the
        selected element's index (None: start at the first element).
    select
        Called with the index of a match.
    parent : QWidget, optional

    Signals
    -------
    searchFinished(object)
        The index found (a tuple), or None when nothing matched, the query was refused or the
        search failed; emitted once per search, after the selection moved.
    closed()
        The bar was hidden by Escape or its close button.
    """

    searchFinished = Signal(object)
    closed = Signal()

    def __init__(self, source: ViewSource, select: Callable[[tuple[int, ...]], None],
                 parent: QWidget | None = None, *, runner_of: Callable[[object], object] | None = None) -> None:
        super().__init__(parent)
        self._source = source
        self._runner_of = runner_of  # view -> a cluster's BlockRunner for it, or None (search here)
        self._select = select
        self._task: BackgroundTask | None = None

        self.query_edit = QLineEdit(self, objectName="table.find")
        self.query_edit.setPlaceholderText("find: 7, nan, inf, > 100, <= -2")
        self.query_edit.setToolTip("Enter / F3: next match; Shift+Enter / Shift+F3: previous; Esc: close")
        self.query_edit.setClearButtonEnabled(True)
        self.previous_button = QToolButton(self, text="\u25b2", objectName="table.findPrevious",
                                           toolTip="Previous match (Shift+F3)")
        self.next_button = QToolButton(self, text="\u25bc", objectName="table.findNext",
                                       toolTip="Next match (F3)")
        self.close_button = QToolButton(self, text="\u2715", objectName="table.findClose",
                                        toolTip="Close the find bar (Esc)")
        self.message_label = QLabel(self, objectName="table.findMessage")
        self.message_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        make_plain(self.message_label)

        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.query_edit, 2)
        layout.addWidget(self.previous_button)
        layout.addWidget(self.next_button)
        layout.addWidget(self.message_label, 3)
        layout.addWidget(self.close_button)

        self.query_edit.installEventFilter(self)
        self.next_button.clicked.connect(lambda: self.find(backward=False))
        self.previous_button.clicked.connect(lambda: self.find(backward=True))
        self.close_button.clicked.connect(self.close_bar)
        self.hide()

    # ------------------------------------------------------------------ public API
    def open(self) -> None:
        """Show the bar, focus the query and select its text (Ctrl+F)."""
        self.show()
        self.query_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.query_edit.selectAll()

    def close_bar(self) -> None:
        """Hide the bar and cancel a running search."""
        self.cancel()
        self.hide()
        self.closed.emit()

    def cancel(self) -> None:
        """Stop a running search (e.g. before its files are closed); its result is dropped."""
        if self._task is not None:
            self._task.cancel()
            self._task = None

    def message(self) -> str:
        return self.message_label.text()

    def find(self, backward: bool = False) -> None:
        """Search for the query after (``backward``: before) the selected element.

        With an empty query the bar opens instead (F3 before anything was typed).
        """
        text = self.query_edit.text()
        if not text.strip():
            self.open()
            return
        view, reader, start = self._source()
        if view is None:
            self._finish(None, "open a file first", error=True)
            return
        try:
            query = parse_query(text)
        except CoreError as error:
            self._finish(None, describe_error(error).message, error=True)
            return
        if self._task is not None:
            self._task.cancel()
        self._show_message(f"searching for {query.describe()}…", error=False)
        start = start if start is not None and len(start) == view.ndim else None
        runner = self._runner_of(view) if self._runner_of is not None else None

        def work(progress, cancelled):
            return find_next(view, query, start, backward=backward, reader=reader,
                             cancelled=cancelled, progress=progress, runner=runner)

        task = self._task = BackgroundTask(work, self)
        task.succeeded.connect(lambda index: self._on_found(task, view, index, start, backward, query.describe()))
        task.failed.connect(lambda error: self._finish(None, describe_error(error).message, error=True)
                            if task is self._task else None)
        task.start()

    # ------------------------------------------------------------------ Qt overrides
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.query_edit and event.type() == QEvent.Type.KeyPress:
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.find(backward=bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))
                return True
            if event.key() == Qt.Key.Key_Escape:
                self.close_bar()
                return True
        return super().eventFilter(watched, event)

    # ------------------------------------------------------------------ internals
    def _on_found(self, task: BackgroundTask, view: np.ndarray, index: tuple[int, ...] | None,
                  start: tuple[int, ...] | None, backward: bool, what: str) -> None:
        if task is not self._task:
            return  # a newer search replaced this one
        if self._source()[0] is not view:  # a new decode or slice while it ran: its index is stale
            self._finish(None, "the view changed during the search: search again (F3)", error=True)
            return
        if index is None:
            self._finish(None, f"no element is {what}" if what[0] in "<>" else f"no element equals {what}",
                         error=True)
            return
        wrapped = start is not None and (index <= start if not backward else index >= start)
        self._select(index)
        where = "[" + ", ".join(str(i) for i in index) + "]"
        self._finish(index, f"{what} at {where}" + (" (wrapped around)" if wrapped else ""), error=False)

    def _finish(self, index: tuple[int, ...] | None, text: str, *, error: bool) -> None:
        self._show_message(text, error=error)
        self.searchFinished.emit(index)

    def _show_message(self, text: str, *, error: bool) -> None:
        self.message_label.setStyleSheet(palette.inline_style("error" if error else None))
        self.message_label.setText(text)
        self.message_label.setToolTip(tooltip_text(text))
