"""The plot beside the table: a line for 1-d data, an image (or a line) of the displayed plane.

:class:`PlotPanel` only *reads* the array it is given (held by reference) and shares the
:class:`~inspector.state.display_axes.DisplayAxes` model with the table: the image shows exactly
``DisplayAxes.plane(array)``; selecting an element in another plane moves the model
(``DisplayAxes.locate``) and both widgets follow its ``changed`` signal.

Modes (:attr:`PlotPanel.mode`):

- ``"empty"``: no array, or no element (a zero-length axis).
- ``"scalar"``: 0-d data; the value is shown as text.
- ``"line"``: 1-d data, or N-d data in "line along axis k" mode. The line runs along axis ``k``
  through the *anchor* element: the non-displayed axes at ``DisplayAxes.indices``, the
  displayed axes at the selected element (or 0 before any selection). 2-d data with lines per
  channel (``ViewOptions.plot_channel_lines``, the default of a WAV's ``(frames, channels)``)
  draws one line per column along axis 0, x the frame index; the anchor is column 0.
- ``"image"``: N-d data (N >= 2) in "image (rows x cols)" mode, the default; grey values
  through a colormap, or a colour image (below).
- ``"iq"`` / ``"constellation"``: 1-d complex data as I and Q traces, or as a scatter of Q
  against I (a bounded sample of a long signal, :mod:`core.display.constellation`).

Complex data is plotted as one real number per element, chosen in a small combo:
``abs`` (magnitude, the default: phase-independent, what FFT outputs usually need), ``re``,
``im``, ``phase`` (radians) or ``dB`` (``20*log10|z|``); for 1-d data the same combo offers
``I and Q`` and ``constellation``. The readout always shows the full complex value.

The choices (mode, line axis, complex part, colour, channel axis, square pixels) are view
options (:class:`inspector.state.view_options.ViewOptionsModel`: the document's, or the panel's
own without a document): the panel shows them and writes the user's choices there; they fall
back by the rules of :mod:`inspector.state.view_options` when the data no longer fits them.

Colour: when the view has at least 3 axes and its last axis (HWC) or third from last (CHW) has
3 or 4 elements, the colour combo offers RGB, BGR (and RGBA, BGRA for 4) besides ``grey``, the
default. Choosing a colour puts the two image axes beside the channel axis on screen
(``DisplayAxes.set_axes``; the table follows and keeps showing the numbers of one channel); any
other axis is a batch axis with its slider. The levels bar sets the levels of all colour
channels (:mod:`core.display.colour_image`), and the readout gives every channel of a pixel.

Values read as in the table's "auto" format (:func:`core.text.number_format.format_value`): the
readout and the table cell of one element show the same text.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout, QWidget

from core.display.colour_image import colour_plane
from core.display.line_decimation import COMPLEX_PARTS, real_values
from core.errors import CoreError, describe_error
from core.scan.blocks import BlockReader
from core.text.number_format import format_value
from inspector.plot.constellation_plot import ConstellationPlot
from inspector.plot.image_plot import ImagePlot
from inspector.plot.iq_traces import IQTracesPlot
from inspector.plot.line_plot import LinePlot
from inspector.plot.toolbar import CHANNEL_LINES, SIGNAL_VIEWS, PlotToolbar
from inspector.state.display_axes import DisplayAxes, normalize_index
from inspector.state.document import Document
from inspector.state.view_options import ViewOptions, ViewOptionsModel, colour_modes
from inspector.widgets.elided_label import ElidedLabel
from inspector.widgets.plain_text import make_plain

__all__ = ["COMPLEX_PARTS", "SIGNAL_VIEWS", "PlotPanel", "configure_pyqtgraph"]


def configure_pyqtgraph() -> None:
    """Global pyqtgraph options for the app; call once at start-up (and in tests).

    Images are row-major (``image[row, col]``, as numpy prints them). NaN and +-inf are values
    the plots show on purpose (NaN pixels transparent, inf saturating the colormap), so numpy's
    floating-point warnings raised inside pyqtgraph's own arithmetic on them are not printed
    to the user's terminal.
    """
    pg.setConfigOptions(imageAxisOrder="row-major")
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"pyqtgraph(\..*)?$",
                            message=r"(invalid value|overflow|divide by zero) encountered")


class PlotPanel(QWidget):
    """Line or image plot of the current view, with readout and element selection.

    Built with a ``document``, the panel plots ``document.result.view`` through
    ``document.display_axes``, marks ``document.selection`` and writes clicks with
    ``document.select``: the selection lives in the document only.

    Parameters
    ----------
    display_axes : DisplayAxes, optional
        The display state shared with the table; a private one is made when None.
    parent : QWidget, optional
    document : Document, optional
        The document to show (its display axes and view options are used; ``display_axes`` and
        ``view_options`` must be omitted).
    view_options : ViewOptionsModel, optional
        The display choices; a private one (over the display axes) is made when None.

    Signals
    -------
    elementSelected(object)
        Full N-d index tuple of the element the user clicked. Not emitted by
        :meth:`select_element`.
    rendered()
        The plot was drawn again (new data, mode, plane or selection): overlays follow it.
    """

    elementSelected = Signal(object)
    rendered = Signal()

    def __init__(self, display_axes: DisplayAxes | None = None, parent: QWidget | None = None,
                 *, document: Document | None = None, view_options: ViewOptionsModel | None = None) -> None:
        super().__init__(parent)
        if document is not None:
            display_axes, view_options = document.display_axes, document.view_options
        self._axes = display_axes if display_axes is not None else DisplayAxes(self)
        # Made before this panel follows the axes: the options react to a new plane first.
        self._options = view_options if view_options is not None else ViewOptionsModel(self._axes, parent=self)
        self._document = document
        self._array: np.ndarray | None = None
        self._block_reader: Callable[[], BlockReader] | None = None
        self._version = 0  # bumps on set_array: a new array never reuses the old display
        self._mode = "empty"
        self._shown_key: tuple | None = None
        self._line_anchor: tuple[int, ...] = ()
        self._selected: tuple[int, ...] | None = None
        self._hovered: tuple[int, ...] | None = None

        self.toolbar = PlotToolbar(self)

        self.line_plot = LinePlot()
        self.line_plot.graphics_view.setObjectName("plot.line")
        self.image_plot = ImagePlot()
        self.image_plot.graphics_view.setObjectName("plot.image")
        # The complex-signal pages are built when first shown (see iq_plot): most data is real.
        self._iq_plot: IQTracesPlot | None = None
        self._constellation_plot: ConstellationPlot | None = None
        self._message = QLabel()
        self._message.setObjectName("plot.message")
        make_plain(self._message)
        self._message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._stack = QStackedWidget()
        self._stack.setObjectName("plot.view")
        for page in (self._message, self.line_plot, self.image_plot):
            self._stack.addWidget(page)
        self._readout = ElidedLabel()  # a long index and value must not widen the dock
        self._readout.setObjectName("plot.readout")
        self._readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.toolbar)
        layout.addWidget(self._stack, 1)
        layout.addWidget(self._readout)

        self._axes.changed.connect(self._on_axes_changed)
        self._options.changed.connect(self._on_options_changed)
        self.toolbar.modeChosen.connect(self._on_mode_chosen)
        self.toolbar.partChosen.connect(self.set_complex_part)
        self.toolbar.colourChosen.connect(self.set_colour_mode)
        self.toolbar.channelAxisChosen.connect(self._on_channel_axis_chosen)
        self.toolbar.squarePixelsToggled.connect(self._on_square_pixels_toggled)
        if self._options.value.square_pixels:
            self.image_plot.set_square_pixels(True)
        self.line_plot.indexHovered.connect(self._on_line_hovered)
        self.line_plot.indexClicked.connect(self._on_line_clicked)
        self.image_plot.cellHovered.connect(self._on_cell_hovered)
        self.image_plot.cellClicked.connect(self._on_cell_clicked)
        self._render()
        if document is not None:
            document.attach_view(self)

    # ----------------------------------------------------------------------------- state
    @property
    def display_axes(self) -> DisplayAxes:
        return self._axes

    @property
    def view_options(self) -> ViewOptionsModel:
        """The display choices the panel shows and writes (the document's, with a document)."""
        return self._options

    @property
    def mode(self) -> str:
        """``"empty"``, ``"scalar"``, ``"line"``, ``"image"``, ``"iq"`` or ``"constellation"``."""
        return self._mode

    @property
    def curve(self) -> pg.PlotDataItem:
        """The line's PlotDataItem; ``curve.getData()`` is what is drawn (visible window only)."""
        return self.line_plot.curve

    @property
    def image_item(self) -> pg.ImageItem:
        """The ImageItem; ``.image`` is the displayed (possibly strided) part of the plane."""
        return self.image_plot.image_item

    @property
    def line_axis(self) -> int | None:
        """Axis the line runs along in N-d line mode; None in image mode (the view options')."""
        return self._options.value.plot_line_axis

    @property
    def line_anchor(self) -> tuple[int, ...]:
        """In line mode, the full index of the line's element 0 (the line runs along
        :attr:`line_axis`, or axis 0 of 1-d data)."""
        return self._line_anchor

    @property
    def selected_index(self) -> tuple[int, ...] | None:
        """Full index of the marked element, or None."""
        return self._selected

    @property
    def complex_part(self) -> str:
        """A name of :data:`COMPLEX_PARTS`, or of :data:`SIGNAL_VIEWS` for 1-d complex data."""
        return self._options.value.complex_part

    @property
    def colour_mode(self) -> str | None:
        """The image's colour mode (``"RGB"``, ``"BGR"``, ``"RGBA"``, ``"BGRA"``), None for grey."""
        return self._options.value.colour_mode if self._options.colour_shown else None

    @property
    def channel_axis(self) -> int | None:
        """The axis read as colour channels in a colour image, else None."""
        return self._options.value.channel_axis if self._options.colour_shown else None

    def readout_text(self) -> str:
        """The readout line: the element under the mouse, else the selected one."""
        return self._readout.text()

    def set_array(self, array: np.ndarray | None,
                  block_reader: Callable[[], BlockReader] | None = None) -> None:
        """Plot ``array`` (held by reference, never copied whole); None clears the panel.

        ``block_reader`` makes a :class:`~core.scan.blocks.BlockReader` over the maps ``array``
        may view (``PipelineResult.block_reader``): the line plot's overview reads through it.

        If the shared :class:`DisplayAxes` has another shape it is ``reset`` to this one, and
        the view options are fitted to it (both idempotent: the document and the table do the
        same). The selection is kept if it still fits.

        Raises
        ------
        TypeError
            If the dtype is not numeric (strings, structured, object).
        """
        if array is not None:
            if not isinstance(array, np.ndarray):
                array = np.asarray(array)
            real_values(np.empty(0, dtype=array.dtype))  # reject unplottable dtypes up front
        self._array = array
        self._block_reader = block_reader
        self._version += 1
        if self._selected is not None and (array is None or not _fits(self._selected, array.shape)):
            self._selected = None
        self._hovered = None
        if array is not None and self._axes.shape != array.shape:
            self._axes.reset(array.shape)  # emits changed -> _render, once the options fit too
        self._options.fit(None if array is None else array.shape, _is_complex(array))
        self._render()

    def set_line_axis(self, axis: int | None) -> None:
        """N-d data: plot a line along ``axis``, or the image of the plane (None); the user's
        choice (undoable with a document).

        Raises
        ------
        ValueError
            The data shown has no such axis (or is not N-d).
        """
        self._options.choose(plot_line_axis=None if axis is None else int(axis))

    def set_channel_lines(self) -> None:
        """2-d data: one line per column (channel) along axis 0; the user's choice (undoable
        with a document).

        Raises
        ------
        ValueError
            The data shown is not 2-d.
        """
        self._options.choose(plot_line_axis=0, plot_channel_lines=True)

    def _on_mode_chosen(self, mode: object) -> None:
        if mode == CHANNEL_LINES:
            self.set_channel_lines()
        elif mode is not None and self._options.value.plot_channel_lines:
            self._options.choose(plot_line_axis=int(mode), plot_channel_lines=False)
        else:
            self.set_line_axis(mode)

    def set_complex_part(self, part: str) -> None:
        """Plot a part of complex data (:data:`COMPLEX_PARTS`), or for 1-d complex data one of
        :data:`SIGNAL_VIEWS` (I and Q traces, constellation).

        Raises
        ------
        ValueError
            ``part`` is not offered for the data shown.
        """
        self._options.choose(complex_part=part)

    def set_colour_mode(self, mode: str | None, channel_axis: int | None = None) -> None:
        """Show the image in colour (``mode`` of :data:`core.display.colour_image.COLOUR_MODES`,
        channels along ``channel_axis``, default: the first candidate), or grey (None).

        Raises
        ------
        ValueError
            The view has no such channel axis, or ``mode`` does not fit its length.
        """
        if channel_axis is None:
            self._options.choose(colour_mode=mode)
        else:
            self._options.choose(channel_axis=int(channel_axis), colour_mode=mode)

    def select_element(self, index: tuple) -> None:
        """Mark element ``index`` (a full N-d index; negative values count from the end).

        Shows the plane holding it (``DisplayAxes.locate``), or in line mode the line through
        it, and pans to it if it is off-screen. Does not emit :attr:`elementSelected`.

        Raises
        ------
        ValueError
            If ``index`` has the wrong length or nothing is shown.
        IndexError
            If a value is out of range for its axis.
        """
        if self._array is None:
            raise ValueError("select_element: no array is shown; call set_array first")
        index = normalize_index(index, self._array.shape)
        self._selected = index
        self._axes.locate(index)  # may emit changed -> _render
        self._render()

    # ----------------------------------------------------------------------------- rendering
    def _render(self) -> None:
        """Show what the array and DisplayAxes say, re-reading data only when the view changed."""
        array = self._array
        if array is not None and (self._axes.shape != array.shape
                                  or self._options.fitted_to != (array.shape, _is_complex(array))):
            return  # the shared models describe another array for now; set_array will follow
        if array is not None and self._document is not None and (
                self._document.result is None or self._document.result.view is not array):
            return  # the document has a new result (maybe of the same shape): set_array follows
        options = self._options.value
        if array is None or array.size == 0:
            self._show_message("empty", "no data" if array is None else f"empty array, shape {array.shape}")
        elif array.ndim == 0:
            self._show_message("scalar", format_value(array[()], array.dtype))
        elif array.ndim >= 2 and options.plot_line_axis is None:
            self._render_image(array, options)
        elif array.ndim == 1 and options.complex_part in SIGNAL_VIEWS:
            self._render_signal_view(array, options)
        else:
            self._render_line(array, options)
        self.toolbar.show_options(options, None if array is None else array.shape, _is_complex(array))
        self.toolbar.show_for(ndim=None if array is None else array.ndim, is_complex=_is_complex(array),
                              image=self._mode == "image", colour=self.colour_mode is not None)
        self._update_readout()
        self.rendered.emit()

    def _show_message(self, mode: str, text: str) -> None:
        self._mode = mode
        self._shown_key = None
        self._clear_pages_except(None)
        self._message.setText(text)
        self._stack.setCurrentWidget(self._message)

    def _render_image(self, array: np.ndarray, options: ViewOptions) -> None:
        plane = self._axes.plane(array)
        if plane.size == 0:
            self._show_message("empty", f"no element in this plane, shape {array.shape}")
            return
        axes = self._axes
        colour, channel = self.colour_mode, options.channel_axis
        indices = axes.indices
        if colour is not None:  # the channel index has no say in a colour image
            indices = tuple(0 if a == channel else i for a, i in enumerate(indices))
            plane = colour_plane(array, axes.row_axis, axes.col_axis, channel, indices)
        part = options.complex_part
        key = ("image", self._version, axes.row_axis, axes.col_axis, indices, part, colour, channel)
        if key != self._shown_key:
            shown = self.image_plot.plane
            same_shape = (self._mode == "image" and shown is not None and shown.shape == plane.shape
                          and self.image_plot.colour == colour)
            self._clear_pages_except(self.image_plot)
            reader = None if self._block_reader is None else self._block_reader()
            self.image_plot.set_plane(plane, part, keep_view=same_shape, colour=colour,
                                      read=None if reader is None else reader.read,
                                      fetch_later=None if reader is None else reader.fetch_later)
            self._shown_key = key
        self._mode = "image"
        self._stack.setCurrentWidget(self.image_plot)
        cell = None
        if self._selected is not None and all(self._selected[a] == axes.indices[a] for a in axes.fixed_axes()
                                              if colour is None or a != channel):
            cell = (self._selected[axes.row_axis], self._selected[axes.col_axis])
        self.image_plot.mark(cell)

    def _render_line(self, array: np.ndarray, options: ViewOptions) -> None:
        axis = 0 if array.ndim == 1 else options.plot_line_axis
        part = options.complex_part
        anchor = list(self._selected) if self._selected is not None else [0] * array.ndim
        for a in self._axes.fixed_axes():
            anchor[a] = self._axes.indices[a]
        anchor[axis] = 0
        self._line_anchor = tuple(anchor)
        channel_lines = options.plot_channel_lines and array.ndim == 2 and axis == 0
        if channel_lines:
            anchor[1] = 0
            self._line_anchor = tuple(anchor)
        key = ("line", self._version, axis, self._line_anchor, part, channel_lines)
        if key != self._shown_key:
            line = array[tuple(slice(None) if a == axis else i for a, i in enumerate(anchor))]
            channels = tuple(array[:, k] for k in range(1, array.shape[1])) if channel_lines else ()
            same_length = self._mode == "line" and self.line_plot.values is not None and len(self.line_plot.values) == len(line)
            self._clear_pages_except(self.line_plot)
            self.line_plot.set_values(line, part, keep_view=same_length,
                                      block_reader=self._block_reader, channels=channels)
            self.line_plot.plot_item.setLabel("bottom", "index" if array.ndim == 1 else
                                              "frame (index along axis 0)" if channel_lines else
                                              f"index along axis {axis}")
            self._shown_key = key
        self._mode = "line"
        self._stack.setCurrentWidget(self.line_plot)
        self.line_plot.mark(None if self._selected is None else self._selected[axis])

    def _render_signal_view(self, array: np.ndarray, options: ViewOptions) -> None:
        """1-d complex data as I and Q traces (mode ``"iq"``) or a constellation."""
        mode = "iq" if options.complex_part == SIGNAL_VIEWS[0] else "constellation"
        self._line_anchor = (0,)
        key = (mode, self._version)
        page = self.iq_plot if mode == "iq" else self.constellation_plot
        if key != self._shown_key:
            self._clear_pages_except(page)
            if mode == "iq":
                self.iq_plot.set_values(array, block_reader=self._block_reader)
            else:
                try:
                    self.constellation_plot.set_signal(array, self._block_reader)
                except CoreError as error:  # the file shrank under the view: say so, never crash
                    self._show_message("empty", describe_error(error).message)
                    return
            self._shown_key = key
        self._mode = mode
        self._stack.setCurrentWidget(page)
        if mode == "iq":
            self.iq_plot.mark(None if self._selected is None else self._selected[0])

    @property
    def iq_plot(self) -> IQTracesPlot:
        """The I and Q traces page, built on first use (its pyqtgraph plots cost start-up time)."""
        if self._iq_plot is None:
            self._iq_plot = IQTracesPlot()
            self._iq_plot.indexHovered.connect(self._on_line_hovered)
            self._iq_plot.indexClicked.connect(self._on_line_clicked)
            self._stack.addWidget(self._iq_plot)
        return self._iq_plot

    @property
    def constellation_plot(self) -> ConstellationPlot:
        """The constellation page, built on first use."""
        if self._constellation_plot is None:
            self._constellation_plot = ConstellationPlot()
            self._constellation_plot.indexClicked.connect(self._on_line_clicked)
            self._stack.addWidget(self._constellation_plot)
        return self._constellation_plot

    def _clear_pages_except(self, keep) -> None:
        """Empty every plot page but ``keep`` (a page not shown holds no data or worker)."""
        for page in (self.line_plot, self.image_plot, self._iq_plot, self._constellation_plot):
            if page is not None and page is not keep:
                page.clear()

    def _line_index(self, i: int) -> tuple[int, ...]:
        """Full index of element ``i`` of the plotted line."""
        axis = 0 if self._array.ndim == 1 else self.line_axis
        index = list(self._line_anchor)
        index[axis] = int(i)
        return tuple(index)

    def _update_readout(self) -> None:
        index = self._hovered if self._hovered is not None else self._selected
        array = self._array
        if self._mode == "scalar":
            self._readout.setText(f"index () value {format_value(array[()], array.dtype)}")
        elif index is None or array is None or not _fits(index, array.shape):
            self._readout.setText("")
        elif self._mode == "image" and self.colour_mode is not None:
            prefix = "" if index == self._hovered else "selected "
            channel = self.channel_axis
            where = tuple(slice(None) if a == channel else i for a, i in enumerate(index))
            channels = ", ".join(f"{name} {format_value(v, array.dtype)}"
                                 for name, v in zip(self.colour_mode, self._read(array, where)))
            shown = ", ".join(":" if a == channel else str(i) for a, i in enumerate(index))
            self._readout.setText(f"{prefix}index ({shown}) {channels}")
        else:
            prefix = "" if index == self._hovered else "selected "
            self._readout.setText(f"{prefix}index {index} value {format_value(self._read(array, index)[()], array.dtype)}")

    def _read(self, array: np.ndarray, where: tuple) -> np.ndarray:
        """``array[where]`` (integers and slices) as a copy read through the block reader."""
        view = array[tuple(slice(i, i + 1) if isinstance(i, (int, np.integer)) else i for i in where)]
        squeeze = tuple(axis for axis, i in enumerate(where) if isinstance(i, (int, np.integer)))
        values = view if self._block_reader is None else self._block_reader().read(view)
        return np.asarray(values).squeeze(axis=squeeze) if squeeze else np.asarray(values)

    # ----------------------------------------------------------------------------- handlers
    def _on_axes_changed(self) -> None:
        self._render()

    def _on_options_changed(self, options: ViewOptions) -> None:
        if self.image_plot.square_pixels != options.square_pixels:
            self.image_plot.set_square_pixels(options.square_pixels)
        self._render()

    def _on_square_pixels_toggled(self, square: bool) -> None:
        self._options.choose(square_pixels=bool(square))

    def _on_channel_axis_chosen(self, axis: int) -> None:
        """Another channel axis keeps the colour mode if it fits the axis's length, else grey."""
        colour = self._options.value.colour_mode
        shape = None if self._array is None else self._array.shape
        self._options.choose(channel_axis=axis, colour_mode=colour if colour in colour_modes(shape, axis) else None)

    def _on_line_hovered(self, i: int | None) -> None:
        self._hovered = None if i is None else self._line_index(i)
        self._update_readout()

    def _on_result_changed(self, result) -> None:
        self.set_array(result.view, block_reader=result.block_reader)

    def _on_files_changed_on_disk(self, report) -> None:
        """The mapped bytes changed under the view: show nothing until a reload (never a mix)."""
        if report.invalidates_view:
            self.set_array(None)

    def _on_document_closing(self) -> None:
        """The files close: let go of their arrays (nothing paints them after)."""
        self.set_array(None)

    def _on_document_selection(self, index: tuple[int, ...] | None) -> None:
        if index is None:
            self._selected = None
            self._render()
            return
        try:
            self.select_element(index)
        except (ValueError, IndexError):
            pass  # not in the array shown (e.g. the view was dropped after its file shrank)

    def _user_selected(self, index: tuple[int, ...]) -> None:
        """A click: the document (when there is one) owns the selection and marks it back."""
        if self._document is not None:
            self._document.select(index)
        else:
            self._selected = index
            self._update_readout()
        self.elementSelected.emit(index)

    def _on_line_clicked(self, i: int) -> None:
        self._user_selected(self._line_index(i))

    def _on_cell_hovered(self, cell: tuple[int, int] | None) -> None:
        self._hovered = None if cell is None else self._axes.full_index(*cell)
        self._update_readout()

    def _on_cell_clicked(self, row: int, col: int) -> None:
        self._user_selected(self._axes.full_index(row, col))

    def closeEvent(self, event) -> None:
        self.line_plot.cancel_overview()
        if self._iq_plot is not None:
            self._iq_plot.cancel_overview()
        super().closeEvent(event)


def _is_complex(array: np.ndarray | None) -> bool:
    return array is not None and array.dtype.kind == "c"


def _fits(index: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    return len(index) == len(shape) and all(0 <= i < d for i, d in zip(index, shape))
