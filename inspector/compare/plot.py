"""The comparison plot: A and B overlaid with the difference ``A - B`` below (1-d), or ``|A - B|``
as an image of the displayed plane (2-d and N-d).

Rules
-----
- 1-d: a window of at most :data:`LINE_WINDOW` elements around the selected element (the
  start of the view before any selection), read with :meth:`Comparison.window`; the upper plot
  shows A and B, the lower one ``A - B`` (in the work type, NaN where a side is NaN), both on
  the same x axis (the element index). The selected element is marked in both.
- 2-d and N-d: ``|A - B|`` of the plane :class:`DisplayAxes` shows, sampled with a stride so
  that at most :data:`IMAGE_SIDE` x :data:`IMAGE_SIDE` elements are read, through viridis with a
  colour bar (its scale, and the quantity: ``|A - B|`` or ``log10 |A - B|``) beside it. The
  values, levels and the pairs that differ follow :mod:`core.compare.difference_image`: a NaN or
  infinite difference of a mismatch is painted :data:`palette.DIFF_NOT_FINITE` (the legend
  says so), never the top colour; *log scale* (``compare.logScale``, the view option
  ``compare_log_scale``) draws ``log10 |A - B|``, exact matches one decade below the smallest
  error. A plane without any difference shows the note ``compare.noDifferences`` instead of the
  image.
- 0-d, no comparison, or a compared shape other than A's: a one-line message.
- It redraws on a new comparison result, a new selection outside the window, and a change of
  the displayed plane; it reads nothing else.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QStackedWidget, QVBoxLayout, QWidget

from core.compare.difference_image import difference_image
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
        self._drawn_log_scale = False  # the scale of the image drawn
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
        self._document.view_options.changed.connect(self._on_view_options)
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
        self._image_widget.addItem(self.image_item)
        # Not-finite differences: an RGBA layer over the image, opaque only on those pixels.
        self.not_finite_item = pg.ImageItem()
        self._image_widget.addItem(self.not_finite_item)
        self.colour_bar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=pg.colormap.get("viridis"),  # the heat map's
                                          interactive=False, label="|A - B|", colorMapMenu=False)
        self.colour_bar.setImageItem(self.image_item, insert_in=self._image_widget.getPlotItem())
        self.log_check = QCheckBox("log scale")
        self.log_check.setObjectName("compare.logScale")
        self.log_check.setToolTip("Draw log10 |A - B|: small errors stay visible next to large ones "
                                  "(exact matches one decade below the smallest error)")
        self.log_check.setChecked(self._document.view_options.value.compare_log_scale)
        self.log_check.toggled.connect(self._on_log_toggled)
        self.legend = QLabel(f'<span style="color:{palette.DIFF_NOT_FINITE}">&#9632;</span> NaN or ±inf difference')
        self.legend.setObjectName("compare.imageLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)  # a narrow dock wraps it instead of widening the column
        self.legend.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.legend.setToolTip("A mismatched pair whose difference is not a number (a side is NaN or "
                               "infinite) is painted in this grey, outside the colour scale")
        self.note = QLabel()
        make_plain(self.note)
        self.note.setObjectName("compare.noDifferences")
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.note.setWordWrap(True)
        self._image_page = QWidget()
        controls = QHBoxLayout()
        controls.setContentsMargins(4, 2, 4, 0)
        controls.addWidget(self.log_check)
        controls.addWidget(self.legend, 1)  # the room left; it wraps only when there is none
        page = QVBoxLayout(self._image_page)
        page.setContentsMargins(0, 0, 0, 0)
        page.addLayout(controls)
        page.addWidget(self.note, 1)
        page.addWidget(self._image_widget, 1)
        self._stack.addWidget(self._layout_widget)
        self._stack.addWidget(self._image_page)

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
        differences = window.differences
        absolute, mismatch = differences.absolute, differences.mismatch
        if axes.row_axis > axes.col_axis:  # the window keeps the axes in their order; rows go down
            absolute, mismatch = np.transpose(absolute), np.transpose(mismatch)
        log_scale = self._document.view_options.value.compare_log_scale
        picture = difference_image(absolute, mismatch, log_scale)
        self.mode, self._line_start, self._drawn_log_scale = "image", None, log_scale
        self._stack.setCurrentWidget(self._image_page)
        self.log_check.blockSignals(True)
        self.log_check.setChecked(log_scale)
        self.log_check.blockSignals(False)
        if not picture.differs:
            sampled = row_step > 1 or col_step > 1
            whole = self._comparison.result.equal and (self._comparison.result.max_absolute is None
                                                       or self._comparison.result.max_absolute.value == 0)
            self.note.setText("no differences: A and B are equal in every compared element" if whole
                              else "no differences in this plane" + (" (in the elements drawn)" if sampled else ""))
            self.note.setVisible(True)
            self._image_widget.setVisible(False)
            self.log_check.setVisible(False)
            self.legend.setVisible(False)
            return
        self.note.setVisible(False)
        self._image_widget.setVisible(True)
        self.log_check.setVisible(True)
        self.legend.setVisible(bool(picture.not_finite.any()))
        self.image_item.setImage(picture.values, levels=picture.levels)
        self.image_item.setRect(0, 0, cols, rows)
        overlay = np.zeros(picture.values.shape + (4,), dtype=np.uint8)
        overlay[picture.not_finite] = QColor(palette.DIFF_NOT_FINITE).getRgb()
        self.not_finite_item.setImage(overlay, levels=(0, 255))
        self.not_finite_item.setRect(0, 0, cols, rows)
        self.colour_bar.setLevels(picture.levels)
        self.colour_bar.getAxis("left").setLabel("log10 |A - B|" if log_scale else "|A - B|")

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

    def _on_log_toggled(self, enabled: bool) -> None:
        self._document.view_options.choose(compare_log_scale=bool(enabled))

    def _on_view_options(self, options) -> None:
        if self.mode == "image" and options.compare_log_scale != self._drawn_log_scale:
            self.redraw()


def _plottable(values: np.ndarray) -> np.ndarray:
    """Values as float64 for the curves (bfloat16, integers, bool)."""
    return np.asarray(values).astype(np.float64)
