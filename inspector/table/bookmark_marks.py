"""Bookmarks in the table: a coloured corner on each bookmarked cell that is on screen.

:func:`follow_bookmarks_in_table` answers the model's
:attr:`~inspector.table.model.ArrayTableModel.BookmarkRole` from :meth:`Bookmarks.placements
<inspector.state.bookmarks.Bookmarks.placements>` (element bookmarks placed in the view, and the
boxes of region bookmarks) and installs :class:`BookmarkCornerDelegate`, which paints a small
triangle in the cell's top-left corner in the bookmark's colour: the value (right-aligned), the
heat map and the special-value colours stay as they are, so a marked cell reads as before. Only
painted cells are asked, so the whole tensor is never walked.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QPainter, QPolygonF
from PySide6.QtWidgets import QStyledItemDelegate

from inspector.state.document import Document
from inspector.table.model import ArrayTableModel
from inspector.table.panel import TablePanel

__all__ = ["CORNER", "BookmarkCornerDelegate", "follow_bookmarks_in_table"]

CORNER = 8
"""Side in pixels of the corner triangle of a bookmarked cell."""


class BookmarkCornerDelegate(QStyledItemDelegate):
    """Paints the cell as usual, then a triangle in :attr:`ArrayTableModel.BookmarkRole`'s colour."""

    def paint(self, painter: QPainter, option, index) -> None:
        super().paint(painter, option, index)
        colour = index.data(ArrayTableModel.BookmarkRole)
        if colour is None:
            return
        rect = option.rect
        x, y = rect.left(), rect.top()
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        painter.drawPolygon(QPolygonF([QPointF(x, y), QPointF(x + CORNER, y), QPointF(x, y + CORNER)]))
        painter.restore()


def follow_bookmarks_in_table(panel: TablePanel, document: Document) -> None:
    """Mark the document's bookmarks in ``panel``'s table (see the module docstring)."""
    bookmarks = document.bookmarks
    model = panel.model

    def colour_at(index: tuple[int, ...]) -> QColor | None:
        colour = bookmarks.placements().element_colour(index)
        return None if colour is None else QColor(colour)

    panel.view.setItemDelegate(BookmarkCornerDelegate(panel.view))
    model.set_mark_source(colour_at)
    bookmarks.changed.connect(lambda: model.set_mark_source(colour_at))  # repaint the page
