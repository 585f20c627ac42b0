"""The comparison plot: A and B overlaid with the difference ``A - B`` below (1-d), or ``|A - B|``
as an image of the displayed plane (2-d and N-d).

Rules
-----
- 1-d: a window of at most :data:`LINE_WINDOW` elements around the selected element (the
  start of the view before any selection), read with :meth:`Comparison.window`; the upper plot
  shows A and B, the lower one ``A - B`` (in the work type, NaN where a side is NaN), both on
  the same x axis (the element index). The selected element is marked in both.
- 2-d and N-d: ``|A - B|`` of the plane :class:`DisplayAxes` shows, sampled with a stride so
  that at most :data:`IMAGE_SIDE` x :data:`IMAGE_SIDE` elements are read; NaN and infinite
  differences are drawn at the image's largest finite value.
- 0-d, no comparison, or a compared shape other than A's: a one-line message.
- It redraws on a new comparison result, a new selection outside the window, and a change of
  the displayed plane; it reads nothing else.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout, QWidget

from core.errors import describe_error
from inspector.state.comparison import Comparison
from inspector.widgets import palette
from inspector.widgets.plain_text import make_plain

__all__ = ["ComparisonPlot", "LINE_WINDOW", "IMAGE_SIDE"]

LINE_WINDOW = 4096
IMAGE_SIDE = 512


class ComparisonPlot(QWidget):
    """A and B over each other and their difference (rules: module docstring).

    Parameters
    ----------
    comparison
        The comparison shown; its document gives the selection and the displayed plane.
    """

    def __init__(self, comparison: Comparison, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._comparison = comparison
        self._document = comparison.document
        self._axes = self._document.display_axes
        self._line_start: int | None = None  # first element of the 1-d window shown
        self.mode = "empty"

        self._layout_widget: pg.GraphicsLayoutWidget | None = None  # built when first drawn
        self._message = QLabel()
        make_plain(self._message)
        self._message.setObjectName("compare.plotMessage")
        self._message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._message.setWordWrap(True)
        self._stack = QStackedWidget()
        self._stack.addWidget(self._message)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._stack)

        comparison.resultChanged.connect(self._on_result)
        self._document.selectionChanged.connect(self._on_selection)
        self._axes.changed.connect(self._on_axes_changed)
        self.redraw()

    # ------------------------------------------------------------------ drawing
    def _build_plots(self) -> None:
        """The plots, built when first drawn: the dock stays hidden until B is opened, and its
        three pyqtgraph plots took about a third of the window's construction at start-up."""
        if self._layout_widget is not None:
            return
        self._layout_widget = pg.GraphicsLayoutWidget()
        self._layout_widget.setObjectName("compare.plot")
        self.values_plot = self._layout_widget.addPlot(row=0, col=0)
        self.values_plot.addLegend(offset=(5, 5))
        self.values_plot.showGrid(x=True, y=True, alpha=0.3)
        self.values_plot.setLabel("left", "value")
        self.curve_a = self.values_plot.plot(pen=pg.mkPen(palette.PLOT_SIDE_A, width=1), name="A")
        self.curve_b = self.values_plot.plot(pen=pg.mkPen(palette.PLOT_SIDE_B, width=1, style=Qt.PenStyle.DashLine), name="B")
        self.difference_plot = self._layout_widget.addPlot(row=1, col=0)
        self.difference_plot.showGrid(x=True, y=True, alpha=0.3)
        self.difference_plot.setLabel("left", "A - B")
        self.difference_plot.setLabel("bottom", "index")
        self.difference_plot.setXLink(self.values_plot)
        self.curve_difference = self.difference_plot.plot(pen=pg.mkPen(palette.DIFF_ABOVE, width=1))
        self._layout_widget.ci.layout.setRowStretchFactor(0, 3)
        self._layout_widget.ci.layout.setRowStretchFactor(1, 2)
        # Circles, not a vertical line: a line would hide a one-element spike at the selection.
        self._marks = []
        for plot in (self.values_plot, self.difference_plot):
            mark = pg.ScatterPlotItem(size=11, pen=pg.mkPen(palette.PLOT_SELECTION, width=2), brush=None, symbol="o")
            plot.addItem(mark, ignoreBounds=True)
            self._marks.append(mark)

        self._image_widget = pg.PlotWidget()
        self._image_widget.setObjectName("compare.image")
        self._image_widget.setLabel("top", "|A - B|")
        self._image_widget.getViewBox().invertY(True)
        self._image_widget.getViewBox().setAspectLocked(False)
        self.image_item = pg.ImageItem()
        self.image_item.setColorMap(pg.colormap.get("viridis"))  # the table's heat map colours
        self._image_widget.addItem(self.image_item)
        self._stack.addWidget(self._layout_widget)
        self._stack.addWidget(self._image_widget)

    def redraw(self) -> None:
        """Draw what the comparison and the document show now."""
        comparison = self._comparison
        result = comparison.result
        if result is None:
            self._show_message("no comparison" if not comparison.is_open else "comparing…")
            return
        if not comparison.same_shape:
            self._show_message(f"A has shape {result.shape_a} but the comparison has shape {result.shape}: "
                               "the plot follows A's cells only when B is A's shape or broadcasts to it")
            return
        ndim = len(result.shape)
        if ndim == 0 or result.compared == 0:
            self._show_message("nothing to plot: " + ("a single value" if ndim == 0 else "no element"))
        elif ndim == 1:
            self._draw_line(result.shape[0])
        else:
            self._draw_image()

    def _show_message(self, text: str) -> None:
        self.mode = "empty"
        self._line_start = None
        self._message.setText(text)
        self._stack.setCurrentWidget(self._message)

    def _draw_line(self, length: int) -> None:
        self._build_plots()
        selected = self._document.selection
        centre = selected[0] if selected else 0
        start = min(max(centre - LINE_WINDOW // 2, 0), max(length - LINE_WINDOW, 0))
        stop = min(start + LINE_WINDOW, length)
        try:
            window = self._comparison.window((slice(start, stop),))
        except Exception as error:  # a file changed: say so, draw nothing
            self._show_message(f"cannot read the values: {describe_error(error).message}")
            return
        x = np.arange(start, stop)
        a, b = _plottable(window.a), _plottable(window.b)
        self.curve_a.setData(x, a)
        self.curve_b.setData(x, b)
        with np.errstate(invalid="ignore", over="ignore"):
            self.curve_difference.setData(x, a - b)
        self.mode, self._line_start = "line", start
        self._stack.setCurrentWidget(self._layout_widget)
        self._mark(selected)

    def _draw_image(self) -> None:
        self._build_plots()
        axes = self._axes
        shape = axes.shape
        rows, cols = shape[axes.row_axis], shape[axes.col_axis]
        row_step, col_step = max(1, -(-rows // IMAGE_SIDE)), max(1, -(-cols // IMAGE_SIDE))
        key = tuple(slice(0, rows, row_step) if a == axes.row_axis else slice(0, cols, col_step) if a == axes.col_axis
                    else axes.indices[a] for a in range(len(shape)))
        try:
            window = self._comparison.window(key)
        except Exception as error:  # a file changed: say so, draw nothing
            self._show_message(f"cannot read the values: {describe_error(error).message}")
            return
        image = np.asarray(window.differences.absolute, dtype=np.float64)
        if axes.row_axis > axes.col_axis:
            image = image.T  # the window keeps the axes in their order; rows go down
        finite = np.isfinite(image)
        top = float(image[finite].max()) if finite.any() else 1.0
        image = np.where(finite, image, top)
        self.image_item.setImage(image, levels=(0.0, top if top > 0 else 1.0))
        self.image_item.setRect(0, 0, cols, rows)
        self.mode, self._line_start = "image", None
        self._stack.setCurrentWidget(self._image_widget)

    def _mark(self, selected: tuple[int, ...] | None) -> None:
        """Circle the selected element on A's, B's and the difference curve."""
        if not selected or len(selected) != 1 or self._line_start is None:
            for mark in self._marks:
                mark.setData([], [])
            return
        i = selected[0] - self._line_start
        x_data, a = self.curve_a.getData()
        if x_data is None or not 0 <= i < len(x_data):
            return
        _x, b = self.curve_b.getData()
        _x, d = self.curve_difference.getData()
        for mark, values in ((self._marks[0], (a[i], b[i])), (self._marks[1], (d[i],))):
            shown = [float(v) for v in values if np.isfinite(v)]  # a NaN or Inf has no place to circle
            mark.setData([x_data[i]] * len(shown), shown)

    # ------------------------------------------------------------------ events
    def _on_result(self, _result) -> None:
        self.redraw()

    def _on_selection(self, index) -> None:
        if self.mode != "line":
            return
        if index and self._line_start is not None and self._line_start <= index[0] < self._line_start + LINE_WINDOW:
            self._mark(index)
        else:
            self.redraw()

    def _on_axes_changed(self) -> None:
        if self.mode == "image":
            self.redraw()


def _plottable(values: np.ndarray) -> np.ndarray:
    """Values as float64 for the curves (bfloat16, integers, bool)."""
    return np.asarray(values).astype(np.float64)
