"""A line plot of a 1-d array that stays interactive on 10**8 points, memory-mapped or not.

What is drawn depends only on the visible x-range ``[start, stop)`` and the plot width ``px``
(as pyqtgraph's ``clipToView`` + ``peak`` downsampling and its ``examples/hdf5.py``):

1. ``stop - start <= 4 * px``: the exact slice, one point per element (copied).
2. A min/max pyramid is ready (arrays longer than :data:`PYRAMID_THRESHOLD`, at any size; built
   off the GUI thread in bounded memory, chunked, cancelled when the array changes; it reads the
   array through a :class:`core.scan.blocks.BlockReader` when the caller gives one, so a file
   truncated during the build ends it with a "changed on disk" status, never SIGBUS) and the range needs buckets of at least
   its base bucket: :meth:`MinMaxPyramid.query` with at most ``px`` buckets, reading at most a
   few hundred elements of the array.
3. The array is short, or the range holds at most :data:`DIRECT_READ_LIMIT` elements (or fewer
   than ``base_bucket * px`` once the pyramid is ready): that slice is read and peak-decimated to
   ``px`` buckets.
4. Otherwise (pyramid still building): a strided preview of about ``4 * px`` elements. It may
   miss peaks, so the status line under the plot says so while it is shown
   (``preview (every 2,500th value) — building the exact overview: 37%``); it is replaced as
   soon as the pyramid is ready. A remote array of more than :data:`REMOTE_OVERVIEW_BYTES` gets
   no pyramid (it would fetch the whole object unasked): it keeps the preview, and the status
   line says why.

Cases 2 and 3 draw two points (min, max) per bucket, so every bucket's true extrema are drawn.

Several curves (a signal's channels, fields of records overlaid) are drawn as one curve each
(:meth:`LinePlot.set_values` with ``channels``): channel 0 is the array itself; every further
channel is drawn by the same rules with a pyramid of its own (built after channel 0's, by the
same worker), each in its colour of :data:`~inspector.widgets.palette.PLOT_CHANNELS`, named in
the legend (``names``, or ``channel 0``...).
NaN breaks the line (all-NaN buckets are NaN); ``+-inf`` are kept in the curve data, are not
drawn as lines, and are marked by triangles at the top / bottom of the finite data.

The index axis ticks whole indices only (:class:`~inspector.plot.index_axis.IndexAxisItem`);
the value axis prints values as they are, never rescaled by an SI prefix.
"""

from __future__ import annotations

import atexit
import math
import threading
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, Qt, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from core.display.line_decimation import MinMaxPyramid, peak_decimate, real_values
from core.errors import SourceError, describe_error
from core.scan.blocks import BlockReader
from core.text.byte_sizes import format_bytes
from core.text.figures import format_progress
from inspector.plot.index_axis import IndexAxisItem
from inspector.widgets import palette
from inspector.widgets.plain_text import make_plain

#: Arrays longer than this get a min/max pyramid built on a worker thread.
PYRAMID_THRESHOLD = 2_000_000
#: A remote array of more bytes gets no pyramid (it would fetch the whole object): zoomed out it
#: is drawn from the strided preview (case 4), with a note saying so.
REMOTE_OVERVIEW_BYTES = 256 << 20
#: Largest visible range read and decimated on the GUI thread while no pyramid is available.
DIRECT_READ_LIMIT = 1 << 20
#: Visible ranges up to this many elements per pixel are drawn exactly.
EXACT_PER_PIXEL = 4
#: Plot width assumed before the widget has been laid out.
DEFAULT_WIDTH_PX = 1000

#: How often the GUI thread looks at a running pyramid build (ms).
OVERVIEW_POLL_MS = 40

_pool: QThreadPool | None = None
_running: set[threading.Event] = set()
_running_lock = threading.Lock()


def _cancel_all_overviews() -> None:
    """Ask every running pyramid build to stop (at quit, so no thread outlives the app)."""
    with _running_lock:
        for event in _running:
            event.set()


def _overview_pool() -> QThreadPool:
    """The thread pool for pyramid builds, shared by all line plots (two threads)."""
    global _pool
    if _pool is None:
        _pool = QThreadPool()
        _pool.setMaxThreadCount(2)
        atexit.register(_cancel_all_overviews)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(_cancel_all_overviews)
    return _pool


class _OverviewBuild:
    """One pyramid build: :meth:`run` goes on the pool; the GUI thread polls the attributes.

    Plain Python on purpose: no Qt object crosses threads, so a plot deleted while its build
    runs leaves nothing dangling; the worker just finishes (or stops at the next chunk).
    """

    def __init__(self, values: np.ndarray, part: str,
                 block_reader: Callable[[], BlockReader] | None = None,
                 channels: tuple[np.ndarray, ...] = ()) -> None:
        self.values = values
        self.channels = channels
        self.channel_pyramids: list[MinMaxPyramid] = []
        self.part = part
        self.block_reader = block_reader
        self.changed_on_disk = False
        self.cancel = threading.Event()
        self.done = threading.Event()
        self.progress = 0.0
        self.pyramid: MinMaxPyramid | None = None
        self.error: str | None = None

    def run(self) -> None:
        with _running_lock:
            _running.add(self.cancel)
        try:
            # The reader is this thread's own: its buffer is reused from read to read.
            read = None if self.block_reader is None else self.block_reader().read
            arrays = (self.values, *self.channels)
            built = []
            for number, values in enumerate(arrays):
                def progress(fraction: float, number: int = number) -> None:
                    self._set_progress((number + fraction) / len(arrays))
                built.append(MinMaxPyramid.build(values, part=self.part, should_stop=self.cancel.is_set,
                                                 progress=progress, read=read))
            self.channel_pyramids = built[1:]
            self.pyramid = built[0]
        except Exception as exc:
            self.changed_on_disk = isinstance(exc, SourceError)
            self.error = describe_error(exc).message
        finally:
            with _running_lock:
                _running.discard(self.cancel)
            self.values = None
            self.channels = ()
            self.block_reader = None
            self.done.set()

    def _set_progress(self, fraction: float) -> None:
        self.progress = fraction


class _WindowedCurve(pg.PlotDataItem):
    """A PlotDataItem holding only the visible part of a longer array.

    Reports the full array's x extent to the ViewBox, so auto-range (the "A" button) zooms out
    to the whole array although only the visible window is in the curve.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.full_length = 0

    def dataBounds(self, ax, frac=1.0, orthoRange=None):
        if ax == 0 and self.full_length > 0:
            return 0.0, float(self.full_length - 1)
        return super().dataBounds(ax, frac, orthoRange)


class LinePlot(QWidget):
    """Line plot of a 1-d array held by reference, with crosshair, selection marker and clicks.

    Signals
    -------
    indexHovered(object)
        Element index under the mouse (int), or None when the mouse leaves the data.
    indexClicked(int)
        Element index the user clicked (nearest element to the click's x).
    overviewReady()
        The min/max pyramid of the current array is built and in use.
    """

    indexHovered = Signal(object)
    indexClicked = Signal(int)
    overviewReady = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._values: np.ndarray | None = None
        self._part = "abs"
        self._build: _OverviewBuild | None = None
        self._block_reader: Callable[[], BlockReader] | None = None
        self._screen_reader: BlockReader | None = None  # the GUI thread's own, made on first read
        self._pyramid: MinMaxPyramid | None = None
        self._preview_stride: int | None = None  # the strided preview's step while it is drawn
        self._marked: int | None = None
        self._hovered: int | None = None

        self.index_axis = IndexAxisItem("bottom")
        self._plot_widget = pg.PlotWidget(axisItems={"bottom": self.index_axis})
        self._plot_item = self._plot_widget.getPlotItem()
        self._plot_item.getAxis("left").enableAutoSIPrefix(False)  # "value", never "value (x0.001)"
        self._plot_item.showGrid(x=True, y=True, alpha=0.3)
        self._plot_item.setLabel("bottom", "index")
        self._plot_item.setLabel("left", "value")
        self._view_box = self._plot_item.getViewBox()
        self._view_box.setAutoVisible(y=True)

        self.curve = _WindowedCurve(pen=pg.mkPen(palette.PLOT_CURVE, width=1))
        self._plot_item.addItem(self.curve)
        self._channels: tuple[np.ndarray, ...] = ()  # channels 1.. of a signal (channel 0: values)
        self._channel_pyramids: list[MinMaxPyramid] = []  # theirs, once built with channel 0's
        self.channel_curves: list[_WindowedCurve] = []  # their curves, in channel order
        self._legend: pg.LegendItem | None = None
        self.inf_markers = pg.ScatterPlotItem(size=9, pen=None, brush=pg.mkBrush(palette.PLOT_INF_MARKER))
        self._plot_item.addItem(self.inf_markers, ignoreBounds=True)
        dash = pg.mkPen(palette.PLOT_GRID, width=1, style=Qt.PenStyle.DashLine)
        self._cross_v = pg.InfiniteLine(angle=90, movable=False, pen=dash)
        self._cross_h = pg.InfiniteLine(angle=0, movable=False, pen=dash)
        self.selection_line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen(palette.PLOT_SELECTION, width=1))
        self.marker = pg.ScatterPlotItem(size=11, pen=pg.mkPen(palette.PLOT_SELECTION, width=2), brush=None, symbol="o")
        for item in (self._cross_v, self._cross_h, self.selection_line, self.marker):
            item.setVisible(False)
            self._plot_item.addItem(item, ignoreBounds=True)

        self._status = QLabel()
        self._status.setObjectName("plot.overviewStatus")
        make_plain(self._status)
        self._status.setVisible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._plot_widget)
        layout.addWidget(self._status)

        # Range changes arrive in bursts while the user drags: coalesce them into one refresh.
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(0)
        self._refresh_timer.timeout.connect(self.refresh)
        self._poll_timer = QTimer(self)
        self._poll_timer.setInterval(OVERVIEW_POLL_MS)
        self._poll_timer.timeout.connect(self._on_overview_poll)
        self._view_box.sigXRangeChanged.connect(self._on_view_changed)
        self._view_box.sigResized.connect(self._on_view_changed)
        scene = self._plot_widget.scene()
        scene.sigMouseMoved.connect(self._on_mouse_moved)
        scene.sigMouseClicked.connect(self._on_mouse_clicked)

    # ----------------------------------------------------------------------------- state
    @property
    def values(self) -> np.ndarray | None:
        """The 1-d array shown (the caller's object, not a copy)."""
        return self._values

    @property
    def pyramid(self) -> MinMaxPyramid | None:
        """The min/max pyramid in use, or None (short array, or still building)."""
        return self._pyramid

    @property
    def plot_item(self) -> pg.PlotItem:
        return self._plot_item

    @property
    def graphics_view(self) -> pg.GraphicsView:
        """The QGraphicsView (for mapping scene positions to widget pixels)."""
        return self._plot_widget

    @property
    def view_box(self) -> pg.ViewBox:
        return self._view_box

    def status_text(self) -> str:
        """Progress of the pyramid build, the preview warning, or why the build stopped ("" when idle)."""
        return "" if self._status.isHidden() else self._status.text()

    def set_values(self, values: np.ndarray | None, part: str = "abs", keep_view: bool = False,
                   block_reader: Callable[[], BlockReader] | None = None,
                   channels: tuple[np.ndarray, ...] = (), names: tuple[str, ...] = ()) -> None:
        """Show the 1-d array ``values`` (held by reference; None clears the plot).

        Cancels a pyramid build of the previous array and, for arrays longer than
        :data:`PYRAMID_THRESHOLD`, starts one for this array. ``keep_view`` keeps the x-range
        (when stepping through lines of equal length); otherwise the whole array is shown.
        ``block_reader`` makes a :class:`~core.scan.blocks.BlockReader` over the maps ``values``
        may view (e.g. ``PipelineResult.block_reader``): the build reads through it, so a file
        that shrinks during the build stops it with a "changed on disk" status. ``channels``:
        the further channels of a signal whose channel 0 is ``values`` (1-d, of its length),
        each drawn as a curve of its own (module docstring), with a legend naming each curve by
        ``names`` (one per curve, channel 0 first; default ``channel 0``...).

        Raises
        ------
        ValueError
            If ``values`` is not 1-d or ``part`` is not a complex part name, or a channel is
            not 1-d of the length of ``values``.
        TypeError
            If the dtype is not numeric.
        """
        if values is not None:
            if values.ndim != 1:
                raise ValueError(f"a line plot needs 1-d data, got shape {values.shape}")
            real_values(np.empty(0, dtype=values.dtype), part)  # reject bad dtypes/parts now
        if any(c.shape != (len(values) if values is not None else -1,) for c in channels):
            raise ValueError("every channel must be 1-d, as long as channel 0")
        self.cancel_overview()
        self._set_channels(tuple(channels), tuple(names))
        self._channel_pyramids = []
        self._values = values
        self._part = part
        self._block_reader = block_reader
        self._screen_reader = None
        self._pyramid = None
        self._marked = None
        self.selection_line.setVisible(False)
        self.marker.setVisible(False)
        self.curve.full_length = 0 if values is None else len(values)
        self.index_axis.set_length(None if values is None else len(values))
        build = False
        if values is not None and len(values) > PYRAMID_THRESHOLD:
            if self._fetches_remotely(values) and values.nbytes > REMOTE_OVERVIEW_BYTES:
                self._status.setText(f"a strided preview: the exact overview of a remote file is not built (it "
                                     f"would fetch all {format_bytes(values.nbytes)}); zoom in for exact values")
                self._status.setVisible(True)
            else:
                build = True
        if not keep_view and values is not None and len(values):
            # Set x now (auto-range applies lazily, at the next paint), then keep auto-ranging:
            # x over _WindowedCurve's full extent, y over the visible data.
            self._view_box.setXRange(0, max(len(values) - 1, 1), padding=0.02)
            self._view_box.enableAutoRange(axis=pg.ViewBox.XYAxes)
        self.refresh()
        if build:  # after the first curve is read: the build's thread does not slow that read down
            self._start_overview()

    def clear(self) -> None:
        self.set_values(None)

    def _set_channels(self, channels: tuple[np.ndarray, ...], names: tuple[str, ...] = ()) -> None:
        """Curves for channels 1.. (as many as given), and a legend while there are any."""
        self._channels = channels
        while len(self.channel_curves) > len(channels):
            self._plot_item.removeItem(self.channel_curves.pop())
        while len(self.channel_curves) < len(channels):
            colour = palette.PLOT_CHANNELS[(len(self.channel_curves) + 1) % len(palette.PLOT_CHANNELS)]
            curve = _WindowedCurve(pen=pg.mkPen(colour, width=1))
            self._plot_item.addItem(curve)
            self.channel_curves.append(curve)
        for curve in self.channel_curves:
            curve.full_length = len(channels[0])
        if channels and self._legend is None:
            self._legend = self._plot_item.addLegend(offset=(-10, 10))
        if self._legend is not None:
            self._legend.clear()
            if channels:
                for number, curve in enumerate((self.curve, *self.channel_curves)):
                    self._legend.addItem(curve, names[number] if number < len(names) else f"channel {number}")
            self._legend.setVisible(bool(channels))

    def cancel_overview(self) -> None:
        """Stop building the pyramid of the current array (it will never be used)."""
        if self._build is not None:
            self._build.cancel.set()
            self._build = None
        self._poll_timer.stop()
        self._status.setVisible(False)

    # ----------------------------------------------------------------------------- display
    def visible_range(self) -> tuple[int, int]:
        """Element range ``[start, stop)`` covered by the view (clamped to the array)."""
        n = 0 if self._values is None else len(self._values)
        x0, x1 = self._view_box.viewRange()[0]
        start = min(max(math.floor(x0), 0), n)
        stop = min(max(math.ceil(x1) + 1, 0), n)
        return start, max(start, stop)

    def width_px(self) -> int:
        """Plot width in pixels (:data:`DEFAULT_WIDTH_PX` before the first layout)."""
        width = int(self._view_box.width())
        return width if width >= 50 else DEFAULT_WIDTH_PX

    def refresh(self) -> None:
        """Recompute the curve for the current view (see the module docstring for the rules)."""
        self._refresh_timer.stop()
        values = self._values
        if values is None or len(values) == 0:
            self.curve.setData([], [])
            self.inf_markers.setData([], [])
            return
        start, stop = self.visible_range()
        px = self.width_px()
        self._preview_stride = None
        try:
            x, y = self._curve_of(values, start, stop, px)
        except SourceError as error:  # the file shrank under the read: say so, draw nothing
            self.curve.setData([], [])
            self.inf_markers.setData([], [])
            self._status.setText(f"overview stopped: {describe_error(error).message}")
            self._status.setVisible(True)
            return
        self.curve.setData(x, y)
        try:
            for number, (channel, curve) in enumerate(zip(self._channels, self.channel_curves)):
                pyramid = self._channel_pyramids[number] if number < len(self._channel_pyramids) else None
                curve.setData(*self._channel_curve_of(channel, pyramid, start, stop, px))
        except SourceError:
            for curve in self.channel_curves:
                curve.setData([], [])
        if self._view_box.autoRangeEnabled()[1]:
            # Fit y now rather than at the next paint: PlotDataItem clips the drawn (and
            # getData) values to 1e6 view heights, measured against the current y-range.
            self._view_box.updateAutoRange()
        self._update_inf_markers(x, y)
        if self._marked is not None:
            self._place_marker(self._marked)
        if self._build is not None:
            self._show_build_progress()

    def _curve_of(self, values: np.ndarray, start: int, stop: int, px: int) -> tuple[np.ndarray, np.ndarray]:
        """The curve of ``values[start:stop]`` for ``px`` pixels (module rules 1-4).

        Raises
        ------
        SourceError
            The file shrank under a read of the visible values (they are read with ``pread``
            when the values view a map, so a shrink is an error here, never a SIGBUS).
        """
        count = stop - start
        if count == 0:
            x, y = np.empty(0), np.empty(0)
        elif count <= EXACT_PER_PIXEL * px:
            x = np.arange(start, stop)
            y = np.array(real_values(self._screen_read(values[start:stop]), self._part))  # a copy
        else:
            bucket = self._pyramid.choose_bucket(count, px) if self._pyramid is not None else None
            if bucket is not None:
                x, y = self._pyramid.query(start, stop, bucket).curve()
            elif self._pyramid is not None or len(values) <= PYRAMID_THRESHOLD or count <= DIRECT_READ_LIMIT:
                x, y = peak_decimate(self._screen_read(values[start:stop]), -(-count // px), start,
                                     self._part).curve()
            else:
                stride = -(-count // (EXACT_PER_PIXEL * px))
                self._preview_stride = stride
                x = np.arange(start, stop, stride)
                y = np.array(real_values(self._screen_read(values[start:stop:stride]), self._part))
        return x, y

    def _channel_curve_of(self, values: np.ndarray, pyramid: MinMaxPyramid | None, start: int, stop: int,
                          px: int) -> tuple[np.ndarray, np.ndarray]:
        """The curve of a further channel (module docstring): its pyramid once built, else rules
        1, 3 and 4."""
        count = stop - start
        if count == 0:
            return np.empty(0), np.empty(0)
        if count <= EXACT_PER_PIXEL * px:
            return np.arange(start, stop), np.array(real_values(self._screen_read(values[start:stop]), self._part))
        bucket = pyramid.choose_bucket(count, px) if pyramid is not None else None
        if bucket is not None:
            return pyramid.query(start, stop, bucket).curve()
        if pyramid is not None or count <= DIRECT_READ_LIMIT:
            return peak_decimate(self._screen_read(values[start:stop]), -(-count // px), start, self._part).curve()
        stride = -(-count // (EXACT_PER_PIXEL * px))
        return (np.arange(start, stop, stride),
                np.array(real_values(self._screen_read(values[start:stop:stride]), self._part)))

    def _screen_read(self, view: np.ndarray) -> np.ndarray:
        """``view`` as a copy read with ``pread`` when it views a map (the block reader given to
        :meth:`set_values`), else as it is: a file truncated during the read is a
        :class:`~core.errors.SourceError`, not a fault on the GUI thread."""
        if self._block_reader is None:
            return view
        if self._screen_reader is None:
            self._screen_reader = self._block_reader()
        return self._screen_reader.read(view)

    def _update_inf_markers(self, x: np.ndarray, y: np.ndarray) -> None:
        """Triangles where the curve is +-inf, at the top / bottom of its finite values."""
        if y.dtype.kind != "f" or not np.isinf(y).any():
            self.inf_markers.setData([], [])
            return
        finite = y[np.isfinite(y)]
        top, bottom = (float(finite.max()), float(finite.min())) if finite.size else (1.0, -1.0)
        up, down = np.unique(x[y == np.inf]), np.unique(x[y == -np.inf])
        self.inf_markers.setData(
            x=np.concatenate([up, down]),
            y=np.concatenate([np.full(len(up), top), np.full(len(down), bottom)]),
            symbol=["t1"] * len(up) + ["t"] * len(down),
        )

    def index_at(self, x: float) -> int | None:
        """Nearest element index to view coordinate ``x``, or None outside the data."""
        if self._values is None or len(self._values) == 0:
            return None
        index = math.floor(x + 0.5)
        return index if 0 <= index < len(self._values) else None

    def value_at(self, index: int) -> float:
        """The plotted (real) value of element ``index``: reads one element."""
        return float(real_values(self._screen_read(self._values[index : index + 1]), self._part)[0])

    def mark(self, index: int | None, ensure_visible: bool = True) -> None:
        """Mark element ``index`` (None removes the mark); pans to it if it is off-screen."""
        self._marked = index
        if index is None or self._values is None or not 0 <= index < len(self._values):
            self._marked = None
            self.selection_line.setVisible(False)
            self.marker.setVisible(False)
            return
        if ensure_visible:
            x0, x1 = self._view_box.viewRange()[0]
            if not x0 <= index <= x1:
                half = (x1 - x0) / 2
                self._view_box.setXRange(index - half, index + half, padding=0)
        self._place_marker(index)

    def _place_marker(self, index: int) -> None:
        value = self.value_at(index)
        self.selection_line.setPos(index)
        self.selection_line.setVisible(True)
        if math.isfinite(value):
            self.marker.setData([index], [value])
            self.marker.setVisible(True)
        else:
            self.marker.setVisible(False)

    # ----------------------------------------------------------------------------- handlers
    def _fetches_remotely(self, values: np.ndarray) -> bool:
        """Whether ``values`` view a remote object's map (its bytes are fetched over the network)."""
        if self._block_reader is None:
            return False
        mapped = self._block_reader().range_of(values) if values.size else None
        return mapped is not None and mapped.reader is not None

    def _start_overview(self) -> None:
        self._build = _OverviewBuild(self._values, self._part, self._block_reader, self._channels)
        self._show_build_progress()
        self._status.setVisible(True)
        _overview_pool().start(self._build.run)
        self._poll_timer.start()

    def _on_overview_poll(self) -> None:
        build = self._build
        if build is None:
            self._poll_timer.stop()
            return
        if not build.done.is_set():
            self._show_build_progress()
            return
        self._poll_timer.stop()
        self._build = None
        if build.pyramid is None:
            if build.changed_on_disk:
                self._status.setText(f"overview stopped: {build.error}")
            else:
                self._status.setText(f"overview failed ({build.error}); showing a strided preview")
            return
        self._pyramid = build.pyramid
        self._channel_pyramids = build.channel_pyramids
        self._status.setVisible(False)
        self.refresh()
        self.overviewReady.emit()

    def _show_build_progress(self) -> None:
        """Say what the curve is while the overview builds: a preview that may miss peaks, or
        exact values (zoomed in, or a range read whole)."""
        progress = 0.0 if self._build is None else self._build.progress
        text = f"building the exact overview: {format_progress(progress)}"
        if self._preview_stride is not None:
            text = f"preview (every {_ordinal(self._preview_stride)} value, peaks may be missing) — {text}"
        self._status.setText(text)

    def _on_view_changed(self, *args) -> None:
        self._refresh_timer.start()

    def _on_mouse_moved(self, scene_pos) -> None:
        index = None
        if self._view_box.sceneBoundingRect().contains(scene_pos):
            index = self.index_at(self._view_box.mapSceneToView(scene_pos).x())
        self._set_hovered(index)

    def _set_hovered(self, index: int | None) -> None:
        """Move the crosshair to element ``index`` (snapped to its value) or hide it."""
        value = math.nan if index is None else self.value_at(index)
        self._cross_v.setVisible(index is not None)
        self._cross_h.setVisible(math.isfinite(value))
        if index is not None:
            self._cross_v.setPos(index)
        if math.isfinite(value):
            self._cross_h.setPos(value)
        if index != self._hovered:
            self._hovered = index
            self.indexHovered.emit(index)

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or event.double():
            return
        if not self._view_box.sceneBoundingRect().contains(event.scenePos()):
            return
        index = self.index_at(self._view_box.mapSceneToView(event.scenePos()).x())
        if index is not None:
            self.mark(index, ensure_visible=False)
            self.indexClicked.emit(index)

    def leaveEvent(self, event) -> None:
        self._set_hovered(None)
        super().leaveEvent(event)


def _ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``11th``, ``2,500th``."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"
