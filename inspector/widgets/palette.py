"""The one palette of the GUI: message colours by severity, special values, highlights, plots.

Every colour the GUI draws on purpose comes from here (the rest follows the Qt style's palette),
so an error reads in the same red in the banner, under a decode field, in the slice editor, the
table's go-to box, the statistics panel and the export dialog, and a NaN is the same colour in the
table and the data inspector.

Severities are those of :class:`core.errors.ErrorReport`: ``"error"``, ``"warning"``, ``"info"``.
Colours are ``#rrggbb`` strings (stylesheets and HTML take them as they are; ``QColor(text)`` for
painting).
"""

from __future__ import annotations

from typing import NamedTuple

from core.errors import Severity

__all__ = [
    "MESSAGE_COLORS", "ERROR", "WARNING", "INFO", "NOTE", "ERROR_SHADE", "MUTED", "SPECIAL_VALUES",
    "SPECIAL", "HIGHLIGHT", "PLOT_CURVE", "PLOT_HISTOGRAM", "PLOT_GRID", "PLOT_SELECTION",
    "PLOT_OUTLINE", "PLOT_INF_MARKER", "PLOT_CHANNELS", "BOOKMARK_COLOURS", "MessageColors", "inline_style", "banner_style", "frame_style",
    "colored_html", "DIFF_ABOVE", "DIFF_BELOW", "DIFF_NONE", "DIFF_NOT_FINITE", "PLOT_SIDE_A", "PLOT_SIDE_B",
]


class MessageColors(NamedTuple):
    """Text, background and border colour of one severity."""

    text: str
    background: str
    border: str


#: Colours of messages by severity (text on the background, framed by the border).
MESSAGE_COLORS: dict[str, MessageColors] = {
    "error": MessageColors(text="#b71c1c", background="#fdecea", border="#f5c6cb"),
    "warning": MessageColors(text="#663c00", background="#fff4e5", border="#f0b46b"),
    "info": MessageColors(text="#0d47a1", background="#e8f0fe", border="#b6cff5"),
}
ERROR = MESSAGE_COLORS["error"].text
WARNING = MESSAGE_COLORS["warning"].text
INFO = MESSAGE_COLORS["info"].text
#: Engine notes (e.g. how the slice masks resolved): worth reading, nothing is wrong.
NOTE = "#8a5a00"
#: Background of the culprit characters of a syntax error.
ERROR_SHADE = "#ffd7d7"
#: Secondary text (hints, values beyond what TensorFlow decodes).
MUTED = "#787878"

#: Text colour of special values (keys of :func:`core.text.number_format.classify_value`).
SPECIAL_VALUES: dict[str, str] = {
    "nan": "#d62728",
    "inf": "#9467bd",
    "-inf": "#9467bd",
    "subnormal": "#1f77b4",
    "-0": "#b35900",
}
#: One colour for "some special value" where the kind is not told apart (data inspector).
SPECIAL = "#bf5700"
#: Background of the selected element's bytes (hex view).
HIGHLIGHT = "#ffd666"
#: Colours offered for new bookmarks, in turn (the first is core.session.bookmark.DEFAULT_COLOUR).
BOOKMARK_COLOURS = ("#e6a700", "#d9480f", "#2f9e44", "#1c7ed6", "#ae3ec9", "#0c8599")
#: The frame drawn around the widget that has the keyboard focus (focus frame).
FOCUS = "#1a73e8"

PLOT_CURVE = "#4fc3f7"
PLOT_HISTOGRAM = "#4a90d9"
#: Dashed guide lines (axes at zero, image grid).
PLOT_GRID = "#bbbbbb"
#: The selected element's line and marker on a line plot.
PLOT_SELECTION = "#ffd54f"
#: The selected pixel's outline on an image.
PLOT_OUTLINE = "#ff5252"
#: Markers of infinite values on a line plot.
PLOT_INF_MARKER = "#ff7043"
#: One colour per channel of a signal drawn as lines (channel 0 is the ordinary curve), in turn.
PLOT_CHANNELS = (PLOT_CURVE, "#ff8a65", "#81c784", "#ba68c8", "#ffd54f", "#4db6ac", "#f06292", "#a1887f")


def inline_style(severity: Severity | None) -> str:
    """Stylesheet of an inline message label (under a field, in a panel); ``""`` for plain text.

    Parameters
    ----------
    severity
        ``"error"``, ``"warning"``, ``"info"``, or ``None`` for an ordinary message.
    """
    if severity is None:
        return ""
    return f"QLabel {{ color: {MESSAGE_COLORS[severity].text}; }}"


def banner_style(severity: Severity) -> str:
    """Stylesheet of a banner ``QLabel`` (the main window's message line): framed and shaded."""
    colors = MESSAGE_COLORS[severity]
    return (f"QLabel {{ background: {colors.background}; color: {colors.text}; padding: 6px; "
            f"border: 1px solid {colors.border}; }}")


def frame_style(object_name: str, severity: Severity) -> str:
    """Stylesheet of a banner made of a ``QFrame`` named ``object_name`` holding labels and buttons."""
    colors = MESSAGE_COLORS[severity]
    # An attribute selector: the names contain a dot, which an ``#id`` selector reads as a class.
    return (f'QFrame[objectName="{object_name}"] {{ background: {colors.background}; '
            f"border: 1px solid {colors.border}; }}"
            f" QLabel {{ color: {colors.text}; }}")


def colored_html(escaped_text: str, severity: Severity) -> str:
    """``escaped_text`` (already HTML-escaped) in the severity's colour, for rich-text labels."""
    return f'<span style="color:{MESSAGE_COLORS[severity].text}">{escaped_text}</span>'

#: Diverging colour map of differences (table cells of a comparison): ``a > b`` towards
#: DIFF_ABOVE, ``a < b`` towards DIFF_BELOW, from DIFF_NONE (equal); ColorBrewer's RdBu ends.
DIFF_ABOVE = "#d6604d"
DIFF_BELOW = "#4393c3"
DIFF_NONE = "#f7f7f7"
#: A difference that is not a number (NaN, or +-inf: a side is NaN or infinite) of a mismatched
#: pair (core.compare.difference_image): the table's cell, whatever it shows (A, B, |A - B|...),
#: and the comparison image's pixel; a grey outside both the diverging map and viridis, never
#: the top colour of the scale (it is not "the largest error").
DIFF_NOT_FINITE = "#bdbdbd"
#: The two sides of a comparison plot.
PLOT_SIDE_A = PLOT_CURVE
PLOT_SIDE_B = "#ff8a65"
