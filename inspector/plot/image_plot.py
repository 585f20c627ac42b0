"""An image of a 2-d plane held by reference, never handing pyqtgraph more than 1024 x 1024 pixels.

- Levels come from a strided subsample of the whole plane (at most ``max_samples`` elements,
  NaN/Inf ignored; :func:`core.display.image_sampling.estimate_levels`, the table's heat map
  uses the same), as pyqtgraph's ``ImageItem.quickMinMax``; a HistogramLUTItem beside the image
  shows the histogram of the displayed pixels and edits levels and colormap.
- A plane larger than :data:`MAX_SIDE` along an axis is shown *strided*: the part of the plane
  around the view is read with power-of-two strides so that at most ``MAX_SIDE`` samples per axis
  are read; zooming in re-reads the visible part at finer strides (down to every element).
  Strided images show every ``s``-th element, not a min/max (peaks can be missed).
- View coordinates are element coordinates: element ``(row, col)`` covers
  ``[col, col + 1) x [row, row + 1)``, row 0 at the top, whatever the stride; clicks map back to
  true indices and readouts read the true element.
- The view fits the plane exactly (``[0, cols] x [0, rows]``, no padding): the image fills the
  plot, its elements stretched to the view's shape; :meth:`ImagePlot.set_square_pixels` draws
  them square instead. Axes tick whole indices at the middle of their elements
  (:class:`~inspector.plot.index_axis.IndexAxisItem`).
- NaN pixels are transparent; ``+-inf`` saturate the colormap.
- Colour (:meth:`ImagePlot.set_plane` with ``colour="RGB"``, ``"BGR"``, ``"RGBA"`` or
  ``"BGRA"``): the plane is ``rows x cols x channels`` and each window is turned into uint8 RGBA
  by :func:`core.display.colour_image.to_rgba8`; the levels bar edits the levels of all colour
  channels at once (its histogram is of the colour channels' values, its colormap is hidden).
  Data shown as it is (``uint8``, ``bool``: :func:`~core.display.colour_image.fixed_levels`)
  has no levels to edit: the bar is hidden, and comes back with a grey image.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtWidgets import QGraphicsRectItem, QVBoxLayout, QWidget

from core.display.colour_image import colour_levels, fixed_levels, to_rgba8
from core.display.image_sampling import DEFAULT_LEVEL_SAMPLES, estimate_levels, image_values, subsample
from core.display.line_decimation import real_values
from core.errors import SourceError
from inspector.plot.index_axis import IndexAxisItem
from inspector.widgets import palette

#: Most samples read (and handed to pyqtgraph) along each image axis.
MAX_SIDE = 1024  # device pixels of a typical plot dock; zooming in re-reads finer
#: With square pixels, planes whose sides differ by more than this ratio still fill the view.
MAX_LOCKED_ASPECT = 8
#: Narrower than this (px), the plot hides its histogram / levels bar, which would take half of
#: it; the image keeps the room, and widening the dock brings the bar back.
HISTOGRAM_MIN_WIDTH = 320


#: Values sampled for a colour image's levels bar histogram.
HISTOGRAM_SAMPLES = 200_000

class _FiniteHistogramImage(pg.ImageItem):
    """ImageItem whose histogram ignores +-inf (pyqtgraph's fails on them) and NaN.

    Integer-valued images (ints are shown as floats) get whole-number bins, as pyqtgraph does
    for integer dtypes.
    """

    def getHistogram(self, bins="auto", step="auto", perChannel=False, targetImageSize=200, **kwargs):
        if self.image is None or self.image.size == 0 or perChannel:
            return super().getHistogram(bins, step, perChannel, targetImageSize, **kwargs)
        rows, cols = self.image.shape[:2]
        sr = max(1, math.ceil(rows / targetImageSize))
        sc = max(1, math.ceil(cols / targetImageSize))
        data = self.image[::sr, ::sc]
        data = data[np.isfinite(data)]
        if data.size == 0:
            return None, None
        low, high = float(data.min()), float(data.max())
        if low == high:
            high = low + 1
        if np.array_equal(data, np.floor(data)):
            # Integer-valued data: whole-number bins, or the histogram aliases into spikes.
            step = max(1, math.ceil((high - low) / 500))
            bins = np.arange(low, high + 1.01 * step, step)
        else:
            bins = np.linspace(low, high, 500)
        counts, edges = np.histogram(data, bins=bins)
        return edges[:-1], counts


class ImagePlot(QWidget):
    """Image of a 2-d plane with colormap, histogram/LUT, crosshair, selection marker and clicks.

    Signals
    -------
    cellHovered(object)
        ``(row, col)`` of the element under the mouse, or None outside the plane.
    cellClicked(int, int)
        ``row, col`` of the element the user clicked.
    """

    cellHovered = Signal(object)
    cellClicked = Signal(int, int)
    _fetched = Signal(int, object)  # (plane generation, error or None), from a fetch thread

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._plane: np.ndarray | None = None
        self._read: Callable[[np.ndarray], np.ndarray] | None = None
        self._fetch_later = None  # see set_plane
        self._generation = 0  # counts planes: a fetch answers the plane it was started for
        self._levels_pending = False
        self._fetch_failed = False
        self._part = "abs"
        self._colour: str | None = None  # colour mode of a rows x cols x channels plane
        self._colour_levels: tuple[float, float] = (0.0, 255.0)
        self._window: tuple[int, int, int, int, int, int] | None = None  # r0, r1, c0, c1, sr, sc
        self._marked: tuple[int, int] | None = None
        self._hovered: tuple[int, int] | None = None

        self._square_pixels = False
        self._layout_widget = pg.GraphicsLayoutWidget()
        self.row_axis = IndexAxisItem("left", centered=True)
        self.col_axis = IndexAxisItem("bottom", centered=True)
        self._plot_item = self._layout_widget.addPlot(
            row=0, col=0, axisItems={"left": self.row_axis, "bottom": self.col_axis})
        self._plot_item.setLabel("bottom", "column")
        self._plot_item.setLabel("left", "row")
        self._view_box = self._plot_item.getViewBox()
        self._view_box.invertY(True)  # row 0 at the top, as in the table
        self._view_box.setDefaultPadding(0.0)  # "view all" shows the plane edge to edge
        self.image_item = _FiniteHistogramImage(axisOrder="row-major")
        self.image_item.setAutoDownsample(True)
        self.image_item.setNanPolicy("omit")  # one NaN must not blank a whole downsampled block
        self._plot_item.addItem(self.image_item)
        # Colour images are uint8 RGBA made by core.display.colour_image: no LUT, no levels here.
        self.colour_item = pg.ImageItem(axisOrder="row-major")
        self.colour_item.setAutoDownsample(True)
        self._plot_item.addItem(self.colour_item)
        # An invisible item spanning the whole plane, so auto-range fits the plane, not the window.
        self._extent = QGraphicsRectItem(0, 0, 1, 1)
        self._extent.setPen(pg.mkPen(None))
        self._plot_item.addItem(self._extent)
        self.histogram = pg.HistogramLUTItem()
        self.histogram.axis.enableAutoSIPrefix(False)  # levels read as the values they are
        self.histogram.gradient.loadPreset("viridis")
        self.histogram.setImageItem(self.image_item)
        self._layout_widget.addItem(self.histogram, row=0, col=1)
        self.histogram.sigLevelsChanged.connect(self._on_histogram_levels)

        dash = pg.mkPen(palette.PLOT_GRID, width=1, style=Qt.PenStyle.DashLine)
        self._cross_v = pg.InfiniteLine(angle=90, movable=False, pen=dash)
        self._cross_h = pg.InfiniteLine(angle=0, movable=False, pen=dash)
        selected = pg.mkPen(palette.PLOT_OUTLINE, width=2)
        self.marker = pg.ScatterPlotItem(size=15, pen=selected, brush=None, symbol="s")
        self._cell_outline = QGraphicsRectItem(0, 0, 1, 1)
        outline_pen = pg.mkPen(palette.PLOT_OUTLINE, width=2)
        outline_pen.setCosmetic(True)
        self._cell_outline.setPen(outline_pen)
        for item in (self._cross_v, self._cross_h, self.marker, self._cell_outline):
            item.setVisible(False)
            self._plot_item.addItem(item, ignoreBounds=True)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._layout_widget)

        self._window_timer = QTimer(self)
        self._window_timer.setSingleShot(True)
        self._window_timer.setInterval(30)
        self._window_timer.timeout.connect(self.refresh_window)
        self._view_box.sigRangeChanged.connect(self._on_view_changed)
        self._fetched.connect(self._on_fetched, Qt.ConnectionType.QueuedConnection)
        scene = self._layout_widget.scene()
        scene.sigMouseMoved.connect(self._on_mouse_moved)
        scene.sigMouseClicked.connect(self._on_mouse_clicked)

    # ----------------------------------------------------------------------------- state
    @property
    def plane(self) -> np.ndarray | None:
        """The 2-d plane shown (the caller's view, not a copy)."""
        return self._plane

    @property
    def colour(self) -> str | None:
        """The colour mode of the plane shown (``"RGB"``...), or None for a grey image."""
        return self._colour

    @property
    def window(self) -> tuple[int, int, int, int, int, int] | None:
        """``(row0, row1, col0, col1, row_stride, col_stride)`` of the displayed image:
        ``image_item.image == plane[row0:row1:row_stride, col0:col1:col_stride]``."""
        return self._window

    @property
    def plot_item(self) -> pg.PlotItem:
        return self._plot_item

    @property
    def graphics_view(self) -> pg.GraphicsView:
        """The QGraphicsView (for mapping scene positions to widget pixels)."""
        return self._layout_widget

    @property
    def view_box(self) -> pg.ViewBox:
        return self._view_box

    @property
    def square_pixels(self) -> bool:
        """Whether elements are drawn square (aspect locked) rather than filling the view."""
        return self._square_pixels

    def set_square_pixels(self, square: bool) -> None:
        """Draw elements square (the plane keeps its shape, with empty bands beside it when
        the view has another shape), or stretch the plane to fill the view (the default).

        Either way the whole plane is shown again.
        """
        self._square_pixels = bool(square)
        self.fit_view()

    def fit_view(self) -> None:
        """Show the whole plane: exactly ``[0, cols] x [0, rows]`` unless pixels are square.

        Square pixels lock the aspect (pyqtgraph then widens one range to the view's shape),
        except for planes longer than :data:`MAX_LOCKED_ASPECT` times their width, which
        would be a line of pixels.
        """
        plane = self._plane
        rows, cols = (1, 1) if plane is None or plane.size == 0 else plane.shape[:2]
        ratio = max(rows, cols) / max(min(rows, cols), 1)
        self._view_box.setAspectLocked(self._square_pixels and ratio <= MAX_LOCKED_ASPECT)
        self._view_box.setRange(QRectF(0, 0, cols, rows), padding=0)

    def levels(self) -> tuple[float, float]:
        if self._colour is not None:
            return self._colour_levels
        low, high = self.image_item.getLevels()
        return float(low), float(high)

    def set_levels(self, low: float, high: float) -> None:
        """Set the colour levels (grey: of the colormap; colour: of every colour channel)."""
        self.histogram.setLevels(float(low), float(high))  # -> _on_histogram_levels

    def set_plane(self, plane: np.ndarray | None, part: str = "abs", keep_view: bool = False,
                  colour: str | None = None, read: Callable[[np.ndarray], np.ndarray] | None = None,
                  fetch_later=None) -> None:
        """Show the 2-d ``plane`` (held by reference; None clears), or a colour image.

        Levels are re-estimated from the plane (:func:`core.display.image_sampling.estimate_levels`;
        colour: :func:`core.display.colour_image.colour_levels`). ``keep_view`` keeps the
        zoom (stepping through planes of equal shape); otherwise the whole plane is shown
        (:meth:`fit_view`). With ``colour`` (a mode of
        :data:`core.display.colour_image.COLOUR_MODES`), ``plane`` is ``rows x cols x channels``.
        ``read`` copies a view of the plane (a block reader's ``read``: ``pread``, or a remote
        source's fetch); every value shown or measured is read through it, never from the map.
        ``fetch_later(view, done)`` (a block reader's :meth:`~core.scan.blocks.BlockReader.fetch_later`)
        says whether a grey image's window or levels sample must first come over the network:
        it is then fetched in the background and drawn when it is in, and the GUI thread never
        waits (a remote file).

        Raises
        ------
        ValueError
            If ``plane`` is not 2-d (3-d with ``colour``), ``part`` is not a complex part name,
            or the channels do not fit the colour mode.
        TypeError
            If the dtype is not numeric (not real, for a colour image).
        """
        if plane is not None:
            if plane.ndim != (2 if colour is None else 3):
                raise ValueError(f"an image needs a {'2-d plane' if colour is None else 'rows x cols x channels array'}, got shape {plane.shape}")
            if colour is None:
                real_values(np.empty(0, dtype=plane.dtype), part)
            else:
                to_rgba8(np.empty((0, 0, plane.shape[2]), dtype=plane.dtype), colour, (0, 1))
        self._plane = plane
        self._read = read
        self._fetch_later = fetch_later
        self._generation += 1
        self._levels_pending = self._fetch_failed = False
        self._part = part
        self._colour = None if plane is None else colour
        self.histogram.gradient.setVisible(self._colour is None)
        self._show_histogram_if_useful()
        self._window = None
        self.mark(None)
        if plane is None or plane.size == 0:
            self.image_item.clear()
            self.colour_item.clear()
            self._extent.setRect(0, 0, 1, 1)
            self.row_axis.set_length(None)
            self.col_axis.set_length(None)
            return
        rows, cols = plane.shape[:2]
        self._extent.setRect(0, 0, cols, rows)
        self.row_axis.set_length(rows)
        self.col_axis.set_length(cols)
        if colour is not None:
            self.image_item.clear()
            self._colour_levels = colour_levels(self._values(subsample(plane, DEFAULT_LEVEL_SAMPLES)), colour)
            self._show_colour_histogram(self._values(subsample(plane[..., :3], HISTOGRAM_SAMPLES)))
            if not keep_view:
                self.fit_view()
            self.refresh_window(force=True)
            self.histogram.setLevels(*self._colour_levels)
            return
        self.colour_item.clear()
        if not keep_view:
            self.fit_view()
        self.refresh_window(force=True)
        # After the window: its rows are the levels sample's too, so a remote plane's sample is
        # mostly read from what the window fetched.
        self._levels_pending = True
        self._update_levels()

    def _update_levels(self) -> None:
        """The grey image's levels from its plane's sample, unless the sample is on its way."""
        sample = subsample(self._plane, DEFAULT_LEVEL_SAMPLES)
        if not self._levels_pending or self._later(sample):
            return
        self._levels_pending = False
        try:
            low, high = estimate_levels(self._values(sample), self._part)
        except SourceError:  # the bytes could not be read: the table's cells say why
            return
        self.image_item.setLevels((low, high))
        self.histogram.setLevels(low, high)

    def _later(self, view: np.ndarray) -> bool:
        """Whether ``view`` is being fetched in the background (then drawn when it is in)."""
        if self._fetch_later is None or self._fetch_failed:
            return False
        generation = self._generation
        return self._fetch_later(view, lambda error: self._fetched.emit(generation, error))

    def _on_fetched(self, generation: int, error: BaseException | None) -> None:
        if generation != self._generation or self._plane is None:
            return  # another plane since
        if error is not None:
            self._fetch_failed = True  # no retry loop: the next plane or view change reads again
            return
        self.refresh_window(force=True)
        self._update_levels()

    def clear(self) -> None:
        self.set_plane(None)

    def _values(self, view: np.ndarray) -> np.ndarray:
        """``view``'s values, read through the plane's reader when it has one."""
        return view if self._read is None else self._read(view)

    def _show_colour_histogram(self, pixels: np.ndarray) -> None:
        """The levels bar's histogram: of a subsample of the colour channels (alpha left out)."""
        sample = np.asarray(subsample(pixels[..., :3], HISTOGRAM_SAMPLES), dtype=np.float64)
        sample = sample[np.isfinite(sample)]
        if sample.size == 0:
            self.histogram.plot.setData([], [])
            return
        low, high = float(sample.min()), float(sample.max())
        bins = np.arange(low, high + 2) if pixels.dtype.kind in "biu" and high - low <= 500 else 256
        counts, edges = np.histogram(sample, bins=bins)
        self.histogram.plot.setData(edges[:-1], counts)

    def _on_histogram_levels(self, *args) -> None:
        """The user moved the levels bar: a colour image is made again at the new levels."""
        if self._colour is None or self._plane is None:
            return
        low, high = (float(v) for v in self.histogram.getLevels())
        if (low, high) != self._colour_levels:
            self._colour_levels = (low, high)
            self.refresh_window(force=True)

    # ----------------------------------------------------------------------------- display
    def visible_cells(self) -> tuple[int, int, int, int]:
        """``(row0, row1, col0, col1)``: the elements in view, clamped to the plane."""
        rows, cols = self._plane.shape[:2]
        (x0, x1), (y0, y1) = self._view_box.viewRange()
        r0, r1 = min(max(math.floor(y0), 0), rows), min(max(math.ceil(y1), 0), rows)
        c0, c1 = min(max(math.floor(x0), 0), cols), min(max(math.ceil(x1), 0), cols)
        return r0, max(r0, r1), c0, max(c0, c1)

    def refresh_window(self, force: bool = False) -> None:
        """Re-read the displayed image if the view needs another region or stride.

        The stride along an axis is the smallest power of two that brings the visible extent to
        at most :data:`MAX_SIDE` samples; the window is the visible range grown to
        ``MAX_SIDE * stride`` (for panning without re-reading), aligned to the stride.
        """
        self._window_timer.stop()
        plane = self._plane
        if plane is None or plane.size == 0:
            return
        rows, cols = plane.shape[:2]
        if rows <= MAX_SIDE and cols <= MAX_SIDE:
            # Small planes are shown whole at stride 1; no zoom can need more.
            window = (0, rows, 0, cols, 1, 1)
        else:
            r0, r1, c0, c1 = self.visible_cells()
            if r1 <= r0 or c1 <= c0:
                r0, r1, c0, c1 = 0, rows, 0, cols
            rr0, rr1, sr = _window_axis(r0, r1, rows)
            cc0, cc1, sc = _window_axis(c0, c1, cols)
            current = self._window
            if (
                not force
                and current is not None
                and current[4:] == (sr, sc)
                and current[0] <= r0 and r1 <= current[1]
                and current[2] <= c0 and c1 <= current[3]
            ):
                return
            window = (rr0, rr1, cc0, cc1, sr, sc)
        if window == self._window and not force:
            return
        r0, r1, c0, c1, sr, sc = window
        self._window = window
        if self._colour is not None:
            rgba = to_rgba8(self._values(plane[r0:r1:sr, c0:c1:sc]), self._colour, self._colour_levels)
            self.colour_item.setImage(rgba, autoLevels=False, levels=None)
            self.colour_item.setRect(QRectF(c0, r0, rgba.shape[1] * sc, rgba.shape[0] * sr))
            return
        window_view = plane[r0:r1:sr, c0:c1:sc]
        if self._later(window_view):
            self._window = None  # drawn when its bytes are in (_on_fetched)
            self.image_item.clear()
            return
        try:
            image = image_values(self._values(window_view), self._part)
        except SourceError:  # the bytes could not be read: the table's cells say why
            self._window = None
            return
        levels = self.image_item.getLevels() if self.image_item.image is not None else None
        self.image_item.setImage(image, autoLevels=False, **({"levels": levels} if levels is not None else {}))
        # Each displayed pixel covers sr x sc elements, so view coordinates stay element indices.
        self.image_item.setRect(QRectF(c0, r0, image.shape[1] * sc, image.shape[0] * sr))

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        """``(row, col)`` of the element at view coordinates ``(x, y)``, or None outside."""
        if self._plane is None:
            return None
        row, col = math.floor(y), math.floor(x)
        rows, cols = self._plane.shape[:2]
        return (row, col) if 0 <= row < rows and 0 <= col < cols else None

    def mark(self, cell: tuple[int, int] | None, ensure_visible: bool = True) -> None:
        """Outline element ``(row, col)`` (None removes the mark); pans to it if off-screen."""
        plane = self._plane
        if cell is None or plane is None or not (0 <= cell[0] < plane.shape[0] and 0 <= cell[1] < plane.shape[1]):
            self._marked = None
            self.marker.setVisible(False)
            self._cell_outline.setVisible(False)
            return
        row, col = self._marked = (int(cell[0]), int(cell[1]))
        self.marker.setData([col + 0.5], [row + 0.5])
        self.marker.setVisible(True)
        self._cell_outline.setRect(col, row, 1, 1)
        self._cell_outline.setVisible(True)
        if ensure_visible:
            (x0, x1), (y0, y1) = self._view_box.viewRange()
            if not (x0 <= col + 0.5 <= x1 and y0 <= row + 0.5 <= y1):
                self._view_box.translateBy(x=col + 0.5 - (x0 + x1) / 2, y=row + 0.5 - (y0 + y1) / 2)

    @property
    def marked(self) -> tuple[int, int] | None:
        return self._marked

    # ----------------------------------------------------------------------------- handlers
    def _on_view_changed(self, *args) -> None:
        if self._plane is not None and max(self._plane.shape[:2]) > MAX_SIDE:
            self._window_timer.start()

    def _cell_at_scene(self, scene_pos) -> tuple[int, int] | None:
        if not self._view_box.sceneBoundingRect().contains(scene_pos):
            return None
        point = self._view_box.mapSceneToView(scene_pos)
        return self.cell_at(point.x(), point.y())

    def _on_mouse_moved(self, scene_pos) -> None:
        cell = self._cell_at_scene(scene_pos)
        self._cross_v.setVisible(cell is not None)
        self._cross_h.setVisible(cell is not None)
        if cell is not None:
            self._cross_v.setPos(cell[1] + 0.5)
            self._cross_h.setPos(cell[0] + 0.5)
        if cell != self._hovered:
            self._hovered = cell
            self.cellHovered.emit(cell)

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or event.double():
            return
        cell = self._cell_at_scene(event.scenePos())
        if cell is not None:
            self.mark(cell, ensure_visible=False)
            self.cellClicked.emit(*cell)

    @property
    def histogram_shown(self) -> bool:
        """Whether the histogram / levels bar is offered: the plot is wide enough, and the image
        has levels to edit (not a colour image shown as it is)."""
        fixed = self._colour is not None and self._plane is not None and fixed_levels(self._plane.dtype) is not None
        return self.width() >= HISTOGRAM_MIN_WIDTH and not fixed

    def _show_histogram_if_useful(self) -> None:
        self.histogram.setVisible(self.histogram_shown)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._show_histogram_if_useful()

    def leaveEvent(self, event) -> None:
        self._cross_v.setVisible(False)
        self._cross_h.setVisible(False)
        if self._hovered is not None:
            self._hovered = None
            self.cellHovered.emit(None)
        super().leaveEvent(event)


def _window_axis(start: int, stop: int, size: int) -> tuple[int, int, int]:
    """``(begin, end, stride)`` along one axis of length ``size`` for the visible ``[start, stop)``.

    ``ceil((end - begin) / stride) <= MAX_SIDE``, ``begin % stride == 0`` and
    ``begin <= start <= stop <= end``.
    """
    if size <= MAX_SIDE:
        return 0, size, 1
    visible = max(stop - start, 1)
    # Two spare samples leave room for aligning ``begin`` down to a multiple of the stride.
    stride = 1 << max(0, math.ceil(math.log2(visible / (MAX_SIDE - 2))))
    span = min(MAX_SIDE * stride, size)
    margin = (span - visible) // 2
    begin = max(0, min(start - margin, size - span))
    begin -= begin % stride  # so that a displayed pixel always covers the same elements
    end = min(size, begin + span)
    return begin, end, stride
