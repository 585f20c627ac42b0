"""The plot's toolbar: what to draw (image or line along an axis), which part of complex data,
colour channels, square pixels.

The toolbar holds the widgets and what they offer; :class:`inspector.plot.panel.PlotPanel` owns
the choices (the one state) and asks the toolbar to offer what fits the array shown. Rules:

- the mode combo lists ``image (rows × cols)`` and one ``line along axis k`` per axis, for N-d
  data (N >= 2) only; a new number of axes resets it to the image;
- the complex combo lists :data:`~core.display.line_decimation.COMPLEX_PARTS`, and for 1-d data
  also :data:`SIGNAL_VIEWS`; a part that is still offered stays chosen, else ``abs``;
- the channel combo lists the axes that can hold colour channels
  (:func:`core.display.colour_image.channel_axis_candidates`; none for complex data), and the
  colour combo ``grey`` plus the modes that fit that axis's length; a colour that no longer fits
  falls back to grey;
- refilling a combo never emits a choice: only the user's (or a ``choose_*`` call's) does.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QWidget

from core.display.colour_image import channel_axis_candidates, modes_for_channels
from core.display.line_decimation import COMPLEX_PARTS
from core.errors import CoreError

__all__ = ["SIGNAL_VIEWS", "GREY", "PlotToolbar"]

#: Views of a 1-d complex signal offered in the complex combo after :data:`COMPLEX_PARTS`.
SIGNAL_VIEWS = ("I and Q", "constellation")
#: The colour combo's first entry: a grey image through the colormap.
GREY = "grey"
_IMAGE_MODE = -1  # mode combo item data for "image"; line modes store the axis


class PlotToolbar(QWidget):
    """The combos and the check box above the plot (object names ``plot.mode``,
    ``plot.complexPart``, ``plot.colourMode``, ``plot.channelAxis``, ``plot.squarePixels``).

    Signals
    -------
    modeChosen(object)
        The axis to plot a line along, or None for the image of the plane.
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
        # Narrow docks: the combo may show fewer characters than its longest entry.
        self.mode_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.mode_combo.setMinimumContentsLength(8)
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
    def offer_modes(self, ndim: int) -> None:
        """The image and a line along each axis (N >= 2), the image chosen (no signal)."""
        self.mode_combo.blockSignals(True)
        self.mode_combo.clear()
        if ndim >= 2:
            self.mode_combo.addItem("image (rows × cols)", _IMAGE_MODE)
            for axis in range(ndim):
                self.mode_combo.addItem(f"line along axis {axis}", axis)
        self.mode_combo.setCurrentIndex(0)
        self.mode_combo.blockSignals(False)

    def offer_parts(self, ndim: int | None, part: str) -> str:
        """Offer the complex parts (and the signal views for 1-d data); return ``part`` if it is
        still offered, else ``"abs"``, shown as chosen (no signal)."""
        parts = COMPLEX_PARTS + (SIGNAL_VIEWS if ndim == 1 else ())
        if [self.part_combo.itemText(i) for i in range(self.part_combo.count())] != list(parts):
            self.part_combo.blockSignals(True)
            self.part_combo.clear()
            self.part_combo.addItems(parts)
            self.part_combo.blockSignals(False)
        part = part if part in parts else "abs"
        self.show_part(part)
        return part

    def show_part(self, part: str) -> None:
        """Show ``part`` as chosen (no signal)."""
        self.part_combo.blockSignals(True)
        self.part_combo.setCurrentText(part)
        self.part_combo.blockSignals(False)

    def offer_channels(self, shape: tuple[int, ...] | None, is_complex: bool,
                       channel_axis: int | None) -> int | None:
        """Offer the axes of ``shape`` that can hold colour channels (none for complex data);
        return ``channel_axis`` if it is one of them, else the first (None when there is none),
        shown as chosen (no signal)."""
        candidates = () if shape is None or is_complex else channel_axis_candidates(shape)
        ndim = 0 if shape is None else len(shape)
        if [self.channel_combo.itemData(i) for i in range(self.channel_combo.count())] != list(candidates):
            self.channel_combo.blockSignals(True)
            self.channel_combo.clear()
            for axis in candidates:
                layout = "HWC" if axis == ndim - 1 else "CHW"
                self.channel_combo.addItem(f"channels: axis {axis} ({layout})", axis)
            self.channel_combo.blockSignals(False)
        if channel_axis not in candidates:
            channel_axis = candidates[0] if candidates else None
        if channel_axis is not None:
            self.channel_combo.blockSignals(True)
            self.channel_combo.setCurrentIndex(self.channel_combo.findData(channel_axis))
            self.channel_combo.blockSignals(False)
        return channel_axis

    def offer_colours(self, channels: int | None, colour: str | None) -> str | None:
        """Offer grey and the colour modes of ``channels`` channels (nothing without a channel
        axis); return ``colour`` if it still fits, else None (grey), shown as chosen (no signal)."""
        modes = () if channels is None else modes_for_channels(channels)
        wanted = [GREY, *modes] if modes else []
        if [self.colour_combo.itemText(i) for i in range(self.colour_combo.count())] != wanted:
            self.colour_combo.blockSignals(True)
            self.colour_combo.clear()
            self.colour_combo.addItems(wanted)
            self.colour_combo.blockSignals(False)
        colour = colour if colour in modes else None
        self.show_colour(colour)
        return colour

    def show_colour(self, colour: str | None) -> None:
        """Show ``colour`` (None: grey) as chosen (no signal)."""
        self.colour_combo.blockSignals(True)
        self.colour_combo.setCurrentText(GREY if colour is None else colour)
        self.colour_combo.blockSignals(False)

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

    # ------------------------------------------------------------------ choosing
    def choose_line_axis(self, axis: int | None, ndim: int) -> None:
        """Choose a line along ``axis``, or the image (None): emits :attr:`modeChosen`.

        Raises
        ------
        ValueError
            The data shown has no such axis (or is not N-d).
        """
        index = self.mode_combo.findData(_IMAGE_MODE if axis is None else int(axis))
        if index < 0:
            raise ValueError(f"no line along axis {axis} for {ndim}-d data")
        self.mode_combo.setCurrentIndex(index)

    def choose_part(self, part: str) -> None:
        """Choose a complex part or signal view: emits :attr:`partChosen`.

        Raises
        ------
        CoreError
            ``part`` is not offered for the data shown.
        """
        offered = [self.part_combo.itemText(i) for i in range(self.part_combo.count())]
        if part not in offered:
            raise CoreError(f"complex part must be one of {tuple(offered)}, got {part!r}")
        self.part_combo.setCurrentText(part)

    def choose_colour(self, mode: str | None, channel_axis: int | None = None) -> None:
        """Choose the channel axis (when given) and a colour mode or grey (None).

        Raises
        ------
        CoreError
            The data has no such channel axis, or ``mode`` does not fit its length.
        """
        if channel_axis is not None:
            index = self.channel_combo.findData(int(channel_axis))
            if index < 0:
                raise CoreError(f"axis {channel_axis} cannot hold colour channels (it must be the "
                                 "last or third from last axis, with 3 or 4 elements)")
            self.channel_combo.setCurrentIndex(index)
        text = GREY if mode is None else mode
        if self.colour_combo.findText(text) < 0:
            offered = [self.colour_combo.itemText(i) for i in range(self.colour_combo.count())]
            raise CoreError(f"colour mode must be one of {tuple(offered) or (GREY,)}, got {mode!r}")
        self.colour_combo.setCurrentText(text)

    # ------------------------------------------------------------------ the user's choices
    def _on_mode_index(self, combo_index: int) -> None:
        data = self.mode_combo.itemData(combo_index)
        self.modeChosen.emit(None if data is None or data == _IMAGE_MODE else int(data))

    def _on_part_text(self, part: str) -> None:
        if part:  # empty while the combo is refilled
            self.partChosen.emit(part)

    def _on_colour_text(self, text: str) -> None:
        if text:
            self.colourChosen.emit(None if text == GREY else text)

    def _on_channel_index(self, combo_index: int) -> None:
        data = self.channel_combo.itemData(combo_index)
        if data is not None:
            self.channelAxisChosen.emit(int(data))
