"""Bookmarks on the plot: markers for elements, shaded spans or rectangles for regions.

:class:`PlotBookmarkMarks` draws :meth:`Bookmarks.placements
<inspector.state.bookmarks.Bookmarks.placements>` over the :class:`~inspector.plot.panel.PlotPanel`
after each of its renders:

- line mode: an element bookmark on the plotted line is a triangle marker at its index (on the
  curve's value, or at 0 for a value that is not finite); a region box that holds the line is a
  shaded :class:`pyqtgraph.LinearRegionItem` over its indices along the line;
- image mode: an element on the plane is a square outline on its pixel; a region box that holds
  the plane is a rectangle over its rows and columns;
- other modes (I/Q, constellation, scalar) show no marks.

At most :data:`core.session.placement.MAX_PLACED` bookmarks are placed, so the items are bounded;
their colours are the bookmarks' own.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QObject, QRectF, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsRectItem

from core.session.placement import Placements
from inspector.plot.panel import PlotPanel
from inspector.state.document import Document

__all__ = ["PlotBookmarkMarks", "follow_bookmarks_in_plot"]

_REGION_ALPHA = 50


def _pen(colour: str) -> pg.mkPen:
    return pg.mkPen(QColor(colour), width=2)


def _fill(colour: str) -> QColor:
    fill = QColor(colour)
    fill.setAlpha(_REGION_ALPHA)
    return fill


class PlotBookmarkMarks(QObject):
    """The bookmark items of one plot panel (see the module docstring).

    Attributes
    ----------
    line_markers, image_markers : pyqtgraph.ScatterPlotItem
        Element bookmarks on the line (``x`` = index along the line) and on the image
        (``x, y`` = column + 0.5, row + 0.5).
    line_regions : list of pyqtgraph.LinearRegionItem
    image_regions : list of QGraphicsRectItem
    """

    def __init__(self, panel: PlotPanel, document: Document) -> None:
        super().__init__(panel)
        self._panel, self._document = panel, document
        self.line_markers = pg.ScatterPlotItem(symbol="t1", size=13, pxMode=True)
        self.image_markers = pg.ScatterPlotItem(symbol="s", size=14, pxMode=True, brush=None)
        self.line_markers.setZValue(20)
        self.image_markers.setZValue(20)
        panel.line_plot.plot_item.addItem(self.line_markers, ignoreBounds=True)
        panel.image_plot.plot_item.addItem(self.image_markers, ignoreBounds=True)
        self.line_regions: list[pg.LinearRegionItem] = []
        self.image_regions: list[QGraphicsRectItem] = []
        self._timer = QTimer(self, singleShot=True, interval=0)  # once after a burst of renders
        self._timer.timeout.connect(self.refresh)
        panel.rendered.connect(self._timer.start)
        document.bookmarks.changed.connect(self._timer.start)
        self.refresh()

    def refresh(self) -> None:
        """Place the items for the panel's current mode and the current placements."""
        placed = self._document.bookmarks.placements()
        mode = self._panel.mode
        self._show_line(placed if mode == "line" else Placements())
        self._show_image(placed if mode == "image" else Placements())

    # ------------------------------------------------------------------ line
    def _show_line(self, placed: Placements) -> None:
        panel = self._panel
        line_plot = panel.line_plot
        for item in self.line_regions:
            line_plot.plot_item.removeItem(item)
        self.line_regions = []
        spots = []
        if placed.elements or placed.regions:
            anchor = panel.line_anchor
            axis = 0 if len(anchor) == 1 else panel.line_axis
            others = [a for a in range(len(anchor)) if a != axis]
            for index, colour, name in placed.elements:
                if len(index) == len(anchor) and all(index[a] == anchor[a] for a in others):
                    x = index[axis]
                    y = line_plot.value_at(x) if line_plot.values is not None and x < len(line_plot.values) else 0.0
                    spots.append({"pos": (x, y if math.isfinite(y) else 0.0), "pen": _pen(colour),
                                  "brush": QColor(colour), "data": name})
            for box, colour, name in placed.regions:
                if len(box) == len(anchor) and all(box[a][0] <= anchor[a] < box[a][1] for a in others):
                    lo, hi = box[axis]
                    region = pg.LinearRegionItem((lo - 0.5, hi - 0.5), movable=False, brush=_fill(colour),
                                                 pen=_pen(colour))
                    region.setToolTip(name)
                    region.setZValue(-5)
                    line_plot.plot_item.addItem(region, ignoreBounds=True)
                    self.line_regions.append(region)
        self.line_markers.setData(spots)

    # ------------------------------------------------------------------ image
    def _show_image(self, placed: Placements) -> None:
        panel, axes = self._panel, self._panel.display_axes
        plot_item = panel.image_plot.plot_item
        for item in self.image_regions:
            plot_item.removeItem(item)
        self.image_regions = []
        spots = []
        if (placed.elements or placed.regions) and axes.row_axis is not None:
            rows, cols, fixed = axes.row_axis, axes.col_axis, axes.fixed_axes()
            indices = axes.indices
            for index, colour, name in placed.elements:
                if len(index) == axes.ndim and all(index[a] == indices[a] for a in fixed):
                    spots.append({"pos": (index[cols] + 0.5, index[rows] + 0.5), "pen": _pen(colour),
                                  "brush": None, "data": name})
            for box, colour, name in placed.regions:
                if len(box) == axes.ndim and all(box[a][0] <= indices[a] < box[a][1] for a in fixed):
                    (top, bottom), (left, right) = box[rows], box[cols]
                    rect = QGraphicsRectItem(QRectF(left, top, right - left, bottom - top))
                    rect.setPen(_pen(colour))
                    rect.setBrush(_fill(colour))
                    rect.setToolTip(name)
                    rect.setZValue(10)
                    plot_item.addItem(rect, ignoreBounds=True)
                    self.image_regions.append(rect)
        self.image_markers.setData(spots)


def follow_bookmarks_in_plot(panel: PlotPanel, document: Document) -> PlotBookmarkMarks:
    """Draw the document's bookmarks on ``panel`` (see :class:`PlotBookmarkMarks`)."""
    return PlotBookmarkMarks(panel, document)
