"""What the engine says about a slice, as text for the slice editor (no Qt here).

:func:`describe` turns :meth:`core.slicing.spec.SliceSpec.analyze` (shape only, no data) into
lines a person reads: the output shape, where each output dimension comes from, what happens to
each input dimension, and the engine's notes on mask precedence. It states nothing of its own
about slicing: every number and every note comes from :class:`core.slicing.analysis.SliceAnalysis`
(or from :func:`core.slicing.analysis.explain` when there is no shape to analyse yet).
:func:`highlight_html` renders an expression with a syntax error's culprit marked.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from core.errors import SliceError
from core.slicing.analysis import InputDim, OutputDim, explain
from core.slicing.spec import SliceSpec

__all__ = ["SliceFeedback", "describe", "highlight_html"]


def _style(color: str | None) -> str:
    return f' style="color:{color}"' if color else ""


def _shape_text(shape: Sequence[int]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _entry_text(entry: int | None) -> str:
    return "implicit ellipsis" if entry is None else f"entry {entry}"


def _output_row(position: int, dim: OutputDim, inputs: Sequence[InputDim]) -> str:
    head = f"output dim {position}: length {dim.length}"
    if dim.kind == "new_axis":
        return f"{head} = new axis ({_entry_text(dim.entry)})"
    role = inputs[dim.input_dim].role
    # The engine's canonical stop -1 with a negative step means "before index 0", not "last".
    stop = f"{dim.stop} (before index 0)" if dim.stop == -1 and dim.step < 0 else str(dim.stop)
    via = "ellipsis, " if role == "ellipsis" and dim.entry is not None else ""
    return (
        f"{head} = input dim {dim.input_dim}, start {dim.start}, stop {stop}, step {dim.step} "
        f"({via}{_entry_text(dim.entry)})"
    )


def _input_row(position: int, dim: InputDim) -> str:
    head = f"input dim {position} (size {dim.size}): "
    if dim.role == "shrink":
        return f"{head}shrunk to index {dim.index} ({_entry_text(dim.entry)})"
    if dim.role == "ellipsis":
        which = (
            "the implicit ellipsis after the last entry"
            if dim.implicit
            else f"the ellipsis (entry {dim.entry})"
        )
        return f"{head}taken whole by {which} -> output dim {dim.output_dim}"
    return f"{head}kept, sliced by entry {dim.entry} -> output dim {dim.output_dim}"


@dataclass(frozen=True)
class SliceFeedback:
    """The engine's verdict on a spec for one input shape, ready to display.

    Attributes
    ----------
    summary
        One line: ``"input (4, 5, 6, 10) -> output (5, 6, 3, 1)"``, or why there is none.
    output_rows, input_rows
        One line per output / input dimension (empty when there is no shape or an error).
    notes
        The engine's notes: precedence resolutions, ignored bits and values, implicit ellipsis.
    error
        The engine's message when the spec fails for this shape, else ``""``.
    """

    summary: str
    output_rows: tuple[str, ...] = ()
    input_rows: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    error: str = ""

    def plain_text(self) -> str:
        """Everything as plain text, one item a line, sections headed ``Output dims:`` etc."""
        lines = [self.summary]
        if self.error:
            lines.append(f"Error: {self.error}")
        for title, rows in (
            ("Output dims:", self.output_rows),
            ("Input dims:", self.input_rows),
            ("Notes:", self.notes),
        ):
            if rows:
                lines.append(title)
                lines.extend(f"  {row}" for row in rows)
        return "\n".join(lines)

    def html(self, *, error_color: str | None = None, note_color: str | None = None) -> str:
        """The same content as rich text (for a ``QLabel`` / ``QTextBrowser``).

        The engine picks no colours: the GUI passes its palette's (``None`` leaves the text's
        default colour).
        """
        parts = [f"<p><b>{html.escape(self.summary)}</b></p>"]
        if self.error:
            parts.append(f"<p{_style(error_color)}>{html.escape(self.error)}</p>")
        for title, rows, color in (
            ("Output dims", self.output_rows, None),
            ("Input dims", self.input_rows, None),
            ("Notes", self.notes, note_color),
        ):
            if not rows:
                continue
            style = _style(color)
            items = "".join(f"<li{style}>{html.escape(row)}</li>" for row in rows)
            parts.append(f"<p style='margin-bottom:0'><b>{title}</b></p><ul>{items}</ul>")
        return "".join(parts)


def describe(spec: SliceSpec, shape: Sequence[int] | None) -> SliceFeedback:
    """Explain ``spec`` applied to an input of ``shape`` (``None``: no input yet).

    Never raises for a shape-dependent problem: the engine's :class:`SliceError` becomes
    :attr:`SliceFeedback.error`, and the shape-independent notes are still listed.
    """
    if shape is None:
        notes = explain(spec)
        return SliceFeedback("no input tensor yet: the output shape needs one", notes=notes)
    shape = tuple(shape)
    try:
        analysis = spec.analyze(shape)
    except SliceError as error:
        return SliceFeedback(
            f"input {_shape_text(shape)} -> no output",
            notes=explain(spec),
            error=error.message,
        )
    return SliceFeedback(
        f"input {_shape_text(analysis.input_shape)} -> output {_shape_text(analysis.output_shape)}",
        tuple(_output_row(i, d, analysis.input_dims) for i, d in enumerate(analysis.output_dims)),
        tuple(_input_row(i, d) for i, d in enumerate(analysis.input_dims)),
        analysis.notes,
    )


def highlight_html(text: str, column: int, length: int, *, color: str | None = None,
                   shade: str | None = None) -> str:
    """``text`` as HTML with ``text[column:column + length]`` bold and underlined.

    The GUI passes its palette's ``color`` (text) and ``shade`` (background) for the culprit;
    ``None`` leaves the default. A ``length`` of 0 (an insertion point, e.g. a missing ``]`` at
    the end) is drawn as an underlined (and shaded) gap at ``column`` so that it still shows. Whitespace is kept
    (``white-space: pre``) so columns line up with the line edit's text.
    """
    column = max(0, min(column, len(text)))
    before, bad, after = text[:column], text[column : column + length], text[column + length :]
    mark = html.escape(bad) if bad else "&nbsp;&nbsp;"
    mark_style = (f"color:{color};" if color else "") + (f"background-color:{shade};" if shade else "")
    return (
        '<span style="white-space:pre">'
        f"{html.escape(before)}"
        f'<span style="{mark_style}text-decoration:underline"><b>{mark}</b></span>'
        f"{html.escape(after)}</span>"
    )
