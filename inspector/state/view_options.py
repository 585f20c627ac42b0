"""How the view is shown: every display choice of the table, the plot and the histogram.

:class:`ViewOptions` is the value (frozen, Qt-free, cheap to compare); :class:`ViewOptionsModel`
holds the current one, emits :attr:`ViewOptionsModel.changed` and keeps it fitting the data
shown. Which plane is on screen is not a view option: that is
:class:`~inspector.state.display_axes.DisplayAxes`. Widgets read the model and write through
it; they keep no copy (napari's ``Dims`` and glue's viewer states). A new display choice is a
field here (with its check in :meth:`ViewOptions.__post_init__` and, when it depends on the
data, its rule in :func:`fitted`) plus the widget that shows it.

Rules
-----
- **Choosing** (:meth:`ViewOptionsModel.choose`): a choice that the data shown does not offer is
  refused with ``ValueError`` and changes nothing. With a history (the document's), every choice
  of the table and the plot (:data:`UNDOABLE`: plot mode, complex part, colour, square pixels,
  number format, decimals, heat map) is one undoable command; consecutive decimals merge into
  one step. The Statistics dock's choices (the quantity of complex data, the histogram's log
  scale) and the comparison image's log scale change at once, outside the history.
- **Fitting** (:meth:`ViewOptionsModel.fit`, :func:`fitted`): when the data shown changes, what
  no longer fits falls back, never raising and never entering the history: a new number of axes
  (or no data) resets the plot to the image of the plane; a complex part that is not offered
  becomes ``abs`` (always ``abs`` for real data); the channel axis stays if it can still hold
  colour channels, else the first that can (None when none can); a colour mode that does not fit
  that axis's length becomes grey (None).
- **Colour and the plane**: choosing a colour puts the two image axes beside the channel axis on
  screen (HWC: the two before it; CHW: the two after it); putting the channel axis on screen as
  rows or columns goes back to grey.
- **Signals with channels** (:func:`core.formats.entry.shows_channel_lines`: a WAV or AIFF
  entry, ``(frames, channels)``): when the data shown becomes such a signal (the document says
  so in :meth:`ViewOptionsModel.fit`), the plot is a line along axis 0 with one line per
  channel (``plot_channel_lines``); when it stops being one, the plot goes back to the image.
  The user may choose the image or one line along an axis instead (undoable). Lines per channel
  are offered for any 2-d data (one line per column) and need the line along axis 0.
- **Restoring** (:meth:`ViewOptionsModel.restore`, sessions and remembered settings) adopts a
  whole value outside the history. Restored while nothing is shown, the plot's line axis waits
  for the first view and applies there if that view has the axis.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

from PySide6.QtCore import QObject, Signal

from core.display.colour_image import COLOUR_MODES, channel_axis_candidates, modes_for_channels
from core.display.line_decimation import COMPLEX_PARTS
from core.scan.statistics import COMPLEX_QUANTITIES
from core.text.number_format import FORMATS
from inspector.state.commands import CommandStack, ValueCommand
from inspector.state.display_axes import DisplayAxes

__all__ = ["MAX_DECIMALS", "SIGNAL_VIEWS", "UNDOABLE", "ViewOptions", "ViewOptionsModel",
           "channel_axes", "colour_modes", "fitted", "offered_parts"]

#: Views of a 1-d complex signal offered after :data:`~core.display.line_decimation.COMPLEX_PARTS`.
SIGNAL_VIEWS = ("I and Q", "constellation")
#: The most decimals the fixed and scientific formats show.
MAX_DECIMALS = 17
#: The fields whose choice is an undoable command, with the Edit menu's words for it.
UNDOABLE = {"plot_line_axis": "plot mode", "plot_channel_lines": "plot mode", "complex_part": "complex part", "colour_mode": "colour",
            "channel_axis": "colour", "table_format": "number format", "table_decimals": "decimals",
            "heat_map": "heat map", "square_pixels": "square pixels"}


@dataclass(frozen=True)
class ViewOptions:
    """Every display choice (the defaults are what a first launch shows).

    Attributes
    ----------
    table_format
        The table's number format, one of :data:`core.text.number_format.FORMATS`.
    table_decimals
        Decimals of the ``fixed`` and ``scientific`` formats, 0 to :data:`MAX_DECIMALS`.
    heat_map
        Cell backgrounds coloured by value.
    plot_line_axis
        N-d data: the axis the plot draws a line along; None for the image of the plane.
    plot_channel_lines
        2-d data with ``plot_line_axis`` 0: one line per column (a signal's channels) instead
        of the one line through the selected element.
    complex_part
        What the plot draws of complex data: a part of ``COMPLEX_PARTS`` or, for 1-d data, one
        of :data:`SIGNAL_VIEWS`.
    colour_mode
        The image read as colours (``"RGB"``, ``"BGR"``, ``"RGBA"``, ``"BGRA"``), None for grey.
    channel_axis
        The axis offered (and, in colour, read) as colour channels, or None.
    square_pixels
        The image's elements drawn square.
    statistics_quantity
        What the statistics of complex data describe, one of
        :data:`core.scan.statistics.COMPLEX_QUANTITIES`.
    histogram_log_scale
        The statistics histogram's counts on a logarithmic axis.
    compare_log_scale
        The comparison image draws ``log10 |A - B|`` (:mod:`core.compare.difference_image`).

    Raises
    ------
    ValueError
        A field outside the values it may take (the message names the field).
    """

    table_format: str = "auto"
    table_decimals: int = 6
    heat_map: bool = False
    plot_line_axis: int | None = None
    plot_channel_lines: bool = False
    complex_part: str = "abs"
    colour_mode: str | None = None
    channel_axis: int | None = None
    square_pixels: bool = False
    statistics_quantity: str = "magnitude"
    histogram_log_scale: bool = False
    compare_log_scale: bool = False

    def __post_init__(self) -> None:
        if self.table_format not in FORMATS:
            raise ValueError(f"unknown number format {self.table_format!r}; expected one of {', '.join(FORMATS)}")
        if type(self.table_decimals) is not int or not 0 <= self.table_decimals <= MAX_DECIMALS:
            raise ValueError(f"decimals must be a whole number from 0 to {MAX_DECIMALS}, got {self.table_decimals!r}")
        for name in ("plot_line_axis", "channel_axis"):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or value < 0):
                raise ValueError(f"{name} must be an axis (a whole number >= 0) or None, got {value!r}")
        if self.complex_part not in COMPLEX_PARTS + SIGNAL_VIEWS:
            raise ValueError(f"complex part must be one of {COMPLEX_PARTS + SIGNAL_VIEWS}, got {self.complex_part!r}")
        if self.colour_mode is not None and self.colour_mode not in COLOUR_MODES:
            raise ValueError(f"colour mode must be one of {COLOUR_MODES} or None, got {self.colour_mode!r}")
        if self.statistics_quantity not in COMPLEX_QUANTITIES:
            raise ValueError(f"quantity must be one of {COMPLEX_QUANTITIES}, got {self.statistics_quantity!r}")
        for name in ("heat_map", "square_pixels", "histogram_log_scale", "plot_channel_lines", "compare_log_scale"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false, got {getattr(self, name)!r}")

    def with_valid(self, changes: Mapping[str, object]) -> ViewOptions:
        """This value with those of ``changes`` that are valid (stale settings, a session
        edited by hand); a None value, an unknown name or an invalid value changes nothing."""
        options = self
        names = {f.name for f in fields(self)}
        for name, value in changes.items():
            if name in names and value is not None:
                try:
                    options = replace(options, **{name: value})
                except (ValueError, TypeError):
                    pass
        return options


# ---------------------------------------------------------------------------- what the data offers
def offered_parts(ndim: int | None) -> tuple[str, ...]:
    """The complex parts the plot offers for data of ``ndim`` axes (None: nothing shown)."""
    return COMPLEX_PARTS + (SIGNAL_VIEWS if ndim == 1 else ())


def channel_axes(shape: tuple[int, ...] | None, is_complex: bool) -> tuple[int, ...]:
    """The axes that can hold colour channels (none for complex data or nothing shown)."""
    return () if shape is None or is_complex else channel_axis_candidates(shape)


def colour_modes(shape: tuple[int, ...] | None, channel_axis: int | None) -> tuple[str, ...]:
    """The colour modes that fit the length of ``channel_axis`` (none without one)."""
    return () if shape is None or channel_axis is None else modes_for_channels(shape[channel_axis])


def fitted(options: ViewOptions, shape: tuple[int, ...] | None, is_complex: bool,
           new_ndim: bool) -> ViewOptions:
    """``options`` fitted to the data shown (module rules, "Fitting"); ``new_ndim``: the number
    of axes changed (the plot goes back to the image)."""
    ndim = None if shape is None else len(shape)
    line_axis = options.plot_line_axis
    if new_ndim or ndim is None or ndim < 2 or (line_axis is not None and line_axis >= ndim):
        line_axis = None
    channel_lines = options.plot_channel_lines and ndim == 2 and line_axis == 0
    part = options.complex_part if options.complex_part in offered_parts(ndim) else "abs"
    if shape is not None and not is_complex:
        part = "abs"
    candidates = channel_axes(shape, is_complex)
    channel = options.channel_axis if options.channel_axis in candidates else (candidates[0] if candidates else None)
    colour = options.colour_mode if options.colour_mode in colour_modes(shape, channel) else None
    return replace(options, plot_line_axis=line_axis, plot_channel_lines=channel_lines, complex_part=part,
                   channel_axis=channel, colour_mode=colour)


class ViewOptionsModel(QObject):
    """The current :class:`ViewOptions` of one view (rules: module docstring).

    Parameters
    ----------
    display_axes
        The plane on screen (colour choices move it, and follow it).
    history
        Where undoable choices go (the document's); None: every choice applies at once.
    parent

    Signals
    -------
    changed(object)
        The new :class:`ViewOptions` (a choice, an undo or redo, a fit, a restore).
    """

    changed = Signal(object)

    def __init__(self, display_axes: DisplayAxes, history: CommandStack | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._axes = display_axes
        self._history = history
        self._value = ViewOptions()
        self._shape: tuple[int, ...] | None = None  # the data the value was fitted to
        self._is_complex = False
        self._signal = False  # the data shown is a signal with channels (module rules)
        display_axes.changed.connect(self._on_axes_changed)

    # ------------------------------------------------------------------ state
    @property
    def value(self) -> ViewOptions:
        return self._value

    @property
    def fitted_to(self) -> tuple[tuple[int, ...] | None, bool]:
        """``(shape, is_complex)`` of the data the options describe (``(None, False)``: none)."""
        return self._shape, self._is_complex

    @property
    def colour_shown(self) -> bool:
        """Whether the image is in colour (a colour mode chosen and its channel axis offered)."""
        return self._value.colour_mode is not None and self._value.channel_axis is not None

    # ------------------------------------------------------------------ edits
    def choose(self, *, undoable: bool = True, **changes: object) -> None:
        """The user's choice of one or more fields, e.g. ``choose(plot_line_axis=2)``.

        ``undoable=False`` applies it outside the history: a choice made before the user did
        anything (the command line's ``--colour`` / ``--complex-part``) is nothing to undo.

        Raises
        ------
        ValueError
            A value outside the field's values, or one the data shown does not offer (no such
            line axis, complex part, channel axis or colour mode); nothing changes.
        """
        new = replace(self._value, **changes)
        self._check_offered(new, changes)
        if self._shape is not None:  # what the choice changes besides (the image ends lines per channel)
            new = fitted(new, self._shape, self._is_complex, new_ndim=False)
        follows = tuple(f.name for f in fields(ViewOptions) if f.name not in changes)
        names = tuple(name for name in (*changes, *follows) if getattr(new, name) != getattr(self._value, name))
        if not names:
            return
        old_part = tuple((name, getattr(self._value, name)) for name in names)
        new_part = tuple((name, getattr(new, name)) for name in names)
        if undoable and self._history is not None and any(name in UNDOABLE for name in names):
            key = ("view", names) if names == ("table_decimals",) else None
            self._history.push(ValueCommand(UNDOABLE.get(names[0], "view"), old_part, new_part,
                                            self._apply_changes, key))
        else:
            self._apply_changes(new_part, False)

    def restore(self, options: ViewOptions) -> None:
        """Adopt ``options`` (outside the history), fitted to the data shown (module rules,
        "Restoring")."""
        shape, is_complex = self._shape, self._is_complex
        self._set(options if shape is None else self._grey_if_channels_shown(
            fitted(options, shape, is_complex, new_ndim=False)))

    def fit(self, shape: tuple[int, ...] | None, is_complex: bool = False, signal: bool | None = None) -> None:
        """The data shown is now of ``shape`` (None: nothing shown): fit the options to it
        (module rules, "Fitting"). Idempotent: every view of the same data may call it.

        ``signal``: the data is a signal with channels (module rules; the document knows, from
        :func:`core.formats.entry.shows_channel_lines`); None keeps what is known for the
        same data (a view that only knows the shape), False for other data."""
        shape = None if shape is None else tuple(int(d) for d in shape)
        is_complex = bool(is_complex) and shape is not None
        same_data = (shape, is_complex) == (self._shape, self._is_complex)
        signal = (self._signal if same_data else False) if signal is None else bool(signal) and shape is not None
        if same_data and signal == self._signal:
            return
        old, was_signal = self._shape, self._signal
        # From nothing shown, a line axis restored meanwhile applies if it fits (module rules).
        new_ndim = old is not None and (shape is None or len(shape) != len(old))
        self._shape, self._is_complex, self._signal = shape, is_complex, signal
        options = self._value
        if signal and (not was_signal or not same_data):
            options = replace(options, plot_line_axis=0, plot_channel_lines=True, colour_mode=None)
            new_ndim = False
        elif was_signal and not signal:
            options = replace(options, plot_line_axis=None, plot_channel_lines=False)
        self._set(self._grey_if_channels_shown(fitted(options, shape, is_complex, new_ndim)))

    # ------------------------------------------------------------------ internals
    def _check_offered(self, new: ViewOptions, changes: dict) -> None:
        shape, ndim = self._shape, None if self._shape is None else len(self._shape)
        if "plot_line_axis" in changes and new.plot_line_axis is not None and \
                (ndim is None or ndim < 2 or new.plot_line_axis >= ndim):
            raise ValueError(f"no line along axis {new.plot_line_axis} for {ndim or 0}-d data")
        if "plot_channel_lines" in changes and new.plot_channel_lines and \
                (ndim != 2 or new.plot_line_axis != 0):
            raise ValueError("lines per channel need 2-d data (frames, channels) and the line along axis 0")
        if "complex_part" in changes:
            parts = offered_parts(ndim) if self._is_complex else ("abs",)
            if new.complex_part not in parts:
                raise ValueError(f"complex part must be one of {parts}, got {new.complex_part!r}")
        if "channel_axis" in changes and new.channel_axis is not None \
                and new.channel_axis not in channel_axes(shape, self._is_complex):
            raise ValueError(f"axis {new.channel_axis} cannot hold colour channels (it must be the "
                             "last or third from last axis, with 3 or 4 elements)")
        if "colour_mode" in changes and new.colour_mode is not None:
            offered = colour_modes(shape, new.channel_axis)
            if new.colour_mode not in offered:
                raise ValueError(f"colour mode must be one of {('grey', *offered)}, got {new.colour_mode!r}")

    def _apply_changes(self, changes: tuple[tuple[str, object], ...], _redoing: bool) -> None:
        """Make ``changes`` current (a choice, its undo or redo), fitted to the data shown."""
        options = replace(self._value, **dict(changes))
        if self._shape is not None:
            options = fitted(options, self._shape, self._is_complex, new_ndim=False)
        if options == self._value:
            return
        self._value = options
        if self.colour_shown:
            self._show_channels_beside()  # may move the plane: it already reads the new value
        self.changed.emit(options)

    def _set(self, options: ViewOptions) -> None:
        if options != self._value:
            self._value = options
            self.changed.emit(options)

    def _grey_if_channels_shown(self, options: ViewOptions) -> ViewOptions:
        """Grey when the channel axis is on screen as rows or columns (a fit never moves the plane)."""
        axes = self._axes
        if options.colour_mode is not None and options.channel_axis is not None \
                and options.channel_axis in (axes.row_axis, axes.col_axis):
            return replace(options, colour_mode=None)
        return options

    def _show_channels_beside(self) -> None:
        axes, channel = self._axes, self._value.channel_axis
        if axes.ndim < 3 or channel not in (axes.row_axis, axes.col_axis):
            return
        rows = channel - 2 if channel == axes.ndim - 1 else channel + 1
        axes.set_axes(rows, rows + 1)

    def _on_axes_changed(self) -> None:
        self._set(self._grey_if_channels_shown(self._value))  # the channels may be on screen now
