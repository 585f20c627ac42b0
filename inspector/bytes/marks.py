"""Bookmarks in the hex view: their bytes as coloured backgrounds, and a chosen range selected.

:func:`follow_bookmarks_in_hex` gives a :class:`~inspector.widgets.hex_view.HexView` a mark source
over :meth:`Bookmarks.placements <inspector.state.bookmarks.Bookmarks.placements>`:

- a byte-range bookmark colours its bytes, whatever the decode parameters;
- an element bookmark placed in the current view colours its element's bytes;
- a region bookmark colours the bytes of its elements that are on screen: the visible bytes are
  walked element by element (one lookup per element, at most the bytes on screen), never the
  whole region.

Colours are the bookmarks' own, made translucent so the hex digits stay readable. Choosing a
byte-range bookmark selects its bytes (:attr:`Bookmarks.bytesChosen`).

While the first file is shown as records (:attr:`Document.records`), each field's bytes of the
records on screen are coloured too, under the bookmarks: field ``n`` in colour ``n`` of
:data:`~inspector.widgets.palette.PLOT_CHANNELS` (cycled), fainter than a bookmark; padding
stays plain.
"""

from __future__ import annotations

from PySide6.QtGui import QColor

from core.errors import CoreError
from core.session.placement import in_box
from inspector.state.document import Document
from inspector.widgets import palette
from inspector.widgets.hex_view import HexView

__all__ = ["FIELD_ALPHA", "MARK_ALPHA", "field_marks", "follow_bookmarks_in_hex", "hex_marks"]

MARK_ALPHA = 110
"""Opacity (of 255) of a bookmark's colour behind the hex digits."""

FIELD_ALPHA = 60
"""Opacity (of 255) of a record field's colour behind the hex digits."""


def _colour(text: str, alpha: int = MARK_ALPHA) -> QColor:
    colour = QColor(text)
    colour.setAlpha(alpha)
    return colour


_FIELD_COLOURS = tuple(_colour(c, FIELD_ALPHA) for c in palette.PLOT_CHANNELS)


def field_marks(document: Document, file_index: int, first: int, end: int) -> list[tuple[int, int, QColor]]:
    """The record fields' bytes among bytes ``first <= b < end`` (module docstring)."""
    if file_index != 0 or document.records.layout is None:
        return []
    return [(lo, hi, _FIELD_COLOURS[n % len(_FIELD_COLOURS)])
            for lo, hi, n in document.records.field_spans(first, end)]


def hex_marks(document: Document, file_index: int, first: int, end: int) -> list[tuple[int, int, QColor]]:
    """The marked ranges of bytes ``first <= b < end`` of file ``file_index`` (module docstring)."""
    placed = document.bookmarks.placements()
    marks = field_marks(document, file_index, first, end)
    marks += [(lo, hi, _colour(colour)) for f, lo, hi, colour, _ in placed.byte_ranges
              if f == file_index and lo < end and hi > first]
    result = document.result
    if not placed.regions or result is None or result.byte_map is None:
        return marks
    offset = first
    while offset < end:
        try:
            index = result.element_at_byte(file_index, offset)
        except (IndexError, CoreError):
            break
        if index is None:
            offset += 1
            continue
        _file, start, nbytes = result.byte_offset(index)
        for box, colour, _ in placed.regions:
            if in_box(index, box):
                marks.insert(0, (start, start + max(nbytes, 1), _colour(colour)))  # under the element marks
                break
        offset = max(offset + 1, start + nbytes)
    return marks


def follow_bookmarks_in_hex(hex_view: HexView, document: Document) -> None:
    """Show the document's bookmarks in ``hex_view`` and select a chosen byte range there."""
    hex_view.set_mark_source(lambda file_index, first, end: hex_marks(document, file_index, first, end))
    bookmarks = document.bookmarks
    bookmarks.changed.connect(lambda: hex_view.viewport().update())
    document.records.changed.connect(lambda: hex_view.viewport().update())
    document.resultChanged.connect(lambda _result: hex_view.viewport().update())

    def select_range(file_index: int, start: int, length: int) -> None:
        try:
            hex_view.set_file_index(file_index)
            last = min(start + length, hex_view.file_size()) - 1
            if last >= start:
                hex_view.select_bytes(start, last)
        except IndexError:
            pass  # the file is shorter than the bookmark says (or gone): the list still shows it

    bookmarks.bytesChosen.connect(select_range)
