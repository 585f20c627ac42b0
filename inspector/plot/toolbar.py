"""The plot's toolbar: what to draw (image or line along an axis), which part of complex data,
colour channels, square pixels.

The toolbar holds the widgets; the choices are the document's view options
(:class:`inspector.state.view_options.ViewOptions`, which also say what the data offers and what
falls back when it no longer fits), and :class:`inspector.plot.panel.PlotPanel` writes the
user's choices there and shows them here (:meth:`PlotToolbar.show_options`). Rules:

- the mode combo lists ``image (rows × cols)`` and one ``line along axis k`` per axis, for N-d
  data (N >= 2) only, and for 2-d data ``lines per channel (axis 1)`` (one line per column);
- the complex combo lists :data:`~core.display.line_decimation.COMPLEX_PARTS`, and for 1-d data
  also :data:`SIGNAL_VIEWS`;
- the channel combo lists the axes that can hold colour channels
  (:func:`core.display.colour_image.channel_axis_candidates`; none for complex data), and the
  colour combo ``grey`` plus the modes that fit that axis's length;
- refilling a combo never emits a choice: only the user's does.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QWidget

from core.display.line_decimation import COMPLEX_PARTS
from inspector.state.view_options import (
    SIGNAL_VIEWS,
    ViewOptions,
    channel_axes,
    colour_modes,
    offered_parts,
)

__all__ = ["CHANNEL_LINES", "SIGNAL_VIEWS", "GREY", "PlotToolbar"]

#: The colour combo's first entry: a grey image through the colormap.
GREY = "grey"
_IMAGE_MODE = -1  # mode combo item data for "image"; line modes store the axis
#: What :attr:`PlotToolbar.modeChosen` emits for "lines per channel" (2-d data).
CHANNEL_LINES = "channel lines"
_CHANNEL_LINES_MODE = -2  # its mode combo item data


class PlotToolbar(QWidget):
    """The combos and the check box above the plot (object names ``plot.mode``,
    ``plot.complexPart``, ``plot.colourMode``, ``plot.channelAxis``, ``plot.squarePixels``).

    Signals
    -------
    modeChosen(object)
        The axis to plot a line along, None for the image of the plane, or
        :data:`CHANNEL_LINES` for one line per channel (2-d data).
    partChosen(str)
        A complex part or signal view.
    colourChosen(object)
        A colour mode (``"RGB"``...), or None for grey.
    channelAxisChosen(int)
        The axis holding the colour channels.
    squarePixelsToggled(bool)
    """

    modeChosen = Signal(object)
    partChosen = Signal(str)
    colourChosen = Signal(object)
    channelAxisChosen = Signal(int)
    squarePixelsToggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.mode_combo = QComboBox(objectName="plot.mode")
        self.mode_combo.setToolTip("Plot the displayed plane as an image, or a line along one axis")
        # As wide as its longest entry: a cut "image (rows ×" says nothing (the window still fits
        # 1024 px with every dock shown).
        self.mode_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.part_label = QLabel("complex:")
        self.part_combo = QComboBox(objectName="plot.complexPart")
        self.part_combo.addItems(COMPLEX_PARTS)
        self.part_combo.setToolTip("abs: magnitude, re: real part, im: imaginary part, phase: "
                                   "angle in radians, dB: 20·log10|z|; 1-d data: I and Q traces "
                                   "or a constellation (Q against I)")
        self.colour_combo = QComboBox(objectName="plot.colourMode")
        self.colour_combo.setToolTip("Show the channel axis (3 or 4 long) as colours: RGB, BGR, "
                                     "RGBA or BGRA; grey shows one plane through the colormap")
        self.channel_combo = QComboBox(objectName="plot.channelAxis")
        self.channel_combo.setToolTip("The axis holding the colour channels: last (HWC) or "
                                      "third from last (CHW)")
        self.square_check = QCheckBox("square pixels", objectName="plot.squarePixels")
        self.square_check.setToolTip("Draw elements square instead of stretching the plane to fill the plot")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.mode_combo, self.square_check, self.colour_combo, self.channel_combo,
                       self.part_label, self.part_combo):
            layout.addWidget(widget)
        layout.addStretch(1)
        self.mode_combo.currentIndexChanged.connect(self._on_mode_index)
        self.part_combo.currentTextChanged.connect(self._on_part_text)
        self.colour_combo.currentTextChanged.connect(self._on_colour_text)
        self.channel_combo.currentIndexChanged.connect(self._on_channel_index)
        self.square_check.toggled.connect(self.squarePixelsToggled)

    # ------------------------------------------------------------------ what is offered
    def show_options(self, options: ViewOptions, shape: tuple[int, ...] | None, is_complex: bool) -> None:
        """Offer what fits data of ``shape`` (None: nothing shown) and show ``options`` as
        chosen; refilling never emits a choice."""
        ndim = 0 if shape is None else len(shape)
        modes = [_IMAGE_MODE, *range(ndim)] if ndim >= 2 else []
        if ndim == 2:
            modes.append(_CHANNEL_LINES_MODE)
        line_axis = options.plot_line_axis
        names = {_IMAGE_MODE: "image (rows × cols)", _CHANNEL_LINES_MODE: "lines per channel (axis 1)"}
        current = (_IMAGE_MODE if line_axis is None else
                   _CHANNEL_LINES_MODE if options.plot_channel_lines else line_axis)
        self._refill(self.mode_combo, modes, lambda axis: names.get(axis, f"line along axis {axis}"), current)
        self._refill(self.part_combo, list(offered_parts(None if shape is None else ndim)), str,
                     options.complex_part)
        channels = channel_axes(shape, is_complex)
        self._refill(self.channel_combo, list(channels),
                     lambda axis: f"channels: axis {axis} ({'HWC' if axis == ndim - 1 else 'CHW'})",
                     options.channel_axis)
        colours = colour_modes(shape, options.channel_axis if options.channel_axis in channels else None)
        self._refill(self.colour_combo, [GREY, *colours] if colours else [], str,
                     GREY if options.colour_mode is None else options.colour_mode)
        self.square_check.blockSignals(True)
        self.square_check.setChecked(options.square_pixels)
        self.square_check.blockSignals(False)

    @staticmethod
    def _refill(combo: QComboBox, items: list, text, current) -> None:
        """``combo`` lists ``items`` (as ``text(item)``, the item as its data) with ``current``
        shown as chosen, without emitting anything."""
        combo.blockSignals(True)
        if [combo.itemData(i) for i in range(combo.count())] != items:
            combo.clear()
            for item in items:
                combo.addItem(text(item), item)
        index = combo.findData(current)
        combo.setCurrentIndex(index if index >= 0 else 0)
        combo.blockSignals(False)

    def show_for(self, *, ndim: int | None, is_complex: bool, image: bool, colour: bool) -> None:
        """Show the controls that apply: the mode for N-d data, the complex part for complex
        data, square pixels and the colour combos for an image (the channel axis in colour);
        with none of them (real 1-d data) the bar itself is hidden and takes no room."""
        n_dimensional = ndim is not None and ndim >= 2
        self.setVisible(is_complex or n_dimensional or image)
        self.part_label.setVisible(is_complex)
        self.part_combo.setVisible(is_complex)
        self.mode_combo.setVisible(n_dimensional)
        self.square_check.setVisible(image)
        colour_offered = image and self.channel_combo.count() > 0
        self.colour_combo.setVisible(colour_offered)
        self.channel_combo.setVisible(colour_offered and colour)

    # ------------------------------------------------------------------ the user's choices
    def _on_mode_index(self, combo_index: int) -> None:
        data = self.mode_combo.itemData(combo_index)
        if data == _CHANNEL_LINES_MODE:
            self.modeChosen.emit(CHANNEL_LINES)
        else:
            self.modeChosen.emit(None if data is None or data == _IMAGE_MODE else int(data))

    def _on_part_text(self, part: str) -> None:
        if part:
            self.partChosen.emit(part)

    def _on_colour_text(self, text: str) -> None:
        if text:
            self.colourChosen.emit(None if text == GREY else text)

    def _on_channel_index(self, combo_index: int) -> None:
        data = self.channel_combo.itemData(combo_index)
        if data is not None:
            self.channelAxisChosen.emit(int(data))
