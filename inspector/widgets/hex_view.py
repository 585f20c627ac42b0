"""Hex view: offset, hex bytes and ASCII of one file, reading only the rows on screen.

The view is handed a :class:`ByteReader` (the document, or a ``FileSource``) and reads every
byte through it: it never opens or maps a file itself, so it shows exactly the bytes the table
was decoded from (the engine's map), and a file that shrinks is handled once, by the engine's
guard (:mod:`core.files.shrink_guard`). Each paint reads just the visible rows, so a 1 TiB
sparse file shows as fast as a 40-byte one. Rows are 16 bytes; the offset column is as wide as
the file's last offset needs (at least 8 hex digits).

* **Scrollbars are 32-bit.** A 1 TiB file has 2**36 rows. The first visible row is a Python
  int; past ``_SCROLL_LIMIT`` positions the scrollbar is *scaled* (one unit covers many rows)
  and its arrow / page actions are re-done in rows, so they still move one row / one page.
* **Changes on disk** are not this view's business: the document's file monitor reports them,
  and the main window clears this view (with the report's message) together with the others.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontMetricsF, QPainter
from PySide6.QtWidgets import QAbstractScrollArea, QAbstractSlider, QWidget

from core.errors import CoreError, describe_error
from inspector.widgets import palette
from inspector.widgets.plain_text import display_name, tooltip_text

BYTES_PER_ROW = 16
"""Bytes shown per row."""

_SCROLL_LIMIT = 1 << 30  # past this many scroll positions the scrollbar is scaled
_MARGIN = 4  # px left of the offset column
_HIGHLIGHT = QColor(palette.HIGHLIGHT)  # the highlighted element's bytes
_BANNER = QColor(palette.MESSAGE_COLORS["warning"].background)
_BANNER_TEXT = QColor(palette.MESSAGE_COLORS["warning"].text)
_Action = QAbstractSlider.SliderAction


class ByteReader(Protocol):
    """What the hex view reads from: :class:`inspector.state.document.Document` or
    :class:`core.files.sources.FileSource`."""

    @property
    def paths(self) -> tuple[str, ...]:
        """One path per file (only their base names are shown)."""

    def file_size(self, index: int) -> int:
        """Size in bytes of file ``index``."""

    def bytes_at(self, index: int, offset: int, nbytes: int) -> bytes:
        """Up to ``nbytes`` bytes of file ``index`` from ``offset``."""


MarkSource = Callable[[int, int, int], Sequence[tuple[int, int, QColor]]]
"""``marks(file_index, first, end)`` -> ``(first byte, end byte, colour)`` of the marked ranges
(bookmarks) that overlap bytes ``first <= b < end`` of a file (``end`` exclusive)."""


class HexView(QAbstractScrollArea):
    """Offset / hex / ASCII view of one of several files, with a highlighted byte range.

    Signals
    -------
    bytesSelected(int, int)
        ``(file index, byte offset)`` when the user clicks a byte, or the first byte of a
        range the user drags over (emitted on release). The offset is a 64-bit integer.
    """

    bytesSelected = Signal(int, "qint64")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("hex.view")
        self._reader: ByteReader | None = None
        self._count = 0
        self._index = -1
        self._size = 0
        self._message = self._empty_message = ""
        self._top_row = 0
        self._highlight: tuple[int, int, int] | None = None
        self._selection: tuple[int, int] | None = None  # first, last byte (inclusive)
        self._anchor: int | None = None
        self._marks: MarkSource | None = None
        self._wheel_rest = 0
        self._char_width, self._row_height, self._ascent = 8.0, 16, 12.0  # set by the font
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.setFont(font)
        self._update_metrics()
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setObjectName("hex.view")
        self.viewport().setCursor(Qt.CursorShape.IBeamCursor)
        self.verticalScrollBar().valueChanged.connect(self._on_vertical_scroll)
        self.verticalScrollBar().actionTriggered.connect(self._on_vertical_action)
        self.horizontalScrollBar().valueChanged.connect(self.viewport().update)
        self._update_scrollbars()

    # ------------------------------------------------------------------ files
    def set_reader(self, reader: ByteReader | None, message: str = "") -> None:
        """Show the files of ``reader`` (None: none), starting with the first one.

        ``message`` is shown in the banner row while there is nothing to show (e.g. why the
        view was cleared). Clears the highlight and the selection; never raises.
        """
        self._reader = reader
        self._count = len(reader.paths) if reader is not None else 0
        self._empty_message = message
        self._highlight = None
        self._index = -1  # scrolls the new first file to its start
        self._show_file(0 if self._count else -1)

    def set_file_index(self, index: int) -> None:
        """Show file ``index`` of the reader, scrolled to its start.

        Raises
        ------
        IndexError
            ``index`` is not in ``[0, number of files)``.
        """
        if not 0 <= index < self._count:
            raise IndexError(f"file index {index} out of range: {self._count} file(s) set")
        if index != self._index:
            self._show_file(index)

    def file_index(self) -> int:
        """Index of the file on screen (-1 when no files are set)."""
        return self._index

    def file_size(self) -> int:
        """Size in bytes of the file on screen (0 if none)."""
        return self._size

    def message(self) -> str:
        """The banner text (why the view is empty, or why a read failed), or ``""``."""
        return self._message

    def _show_file(self, index: int) -> None:
        """Show file ``index`` (-1: none)."""
        if index != self._index:
            self._top_row = 0
        self._index = index
        self._size, self._message = 0, self._empty_message if index < 0 else ""
        if index >= 0:
            name = display_name(self._reader.paths[index])
            try:
                self._size = int(self._reader.file_size(index))
            except (CoreError, IndexError) as error:
                self._message = f"cannot read {name}: {describe_error(error).message}"
            if self._size == 0 and not self._message:
                self._message = f"{name} is empty (0 bytes)"
        self._selection = self._anchor = None
        self.viewport().setToolTip(tooltip_text(self._message))  # the banner may be elided
        self.updateGeometry()  # the offset column's width follows the file size
        self._update_scrollbars()
        self.viewport().update()

    def _read(self, offset: int, nbytes: int) -> bytes:
        """Up to ``nbytes`` bytes of the file on screen from ``offset``, through the reader."""
        if self._index < 0 or nbytes <= 0 or offset >= self._size:
            return b""
        try:
            return self._reader.bytes_at(self._index, offset, min(nbytes, self._size - offset))
        except (CoreError, IndexError) as error:  # e.g. the files were closed meanwhile
            self._message = f"cannot read the file: {describe_error(error).message}"
            return b""

    # -------------------------------------------------------------- highlight
    def highlight(self, file_index: int, offset: int, nbytes: int) -> None:
        """Mark ``nbytes`` bytes at ``offset`` of file ``file_index`` and scroll them into view.

        Switches to that file if another is shown. When the first byte's row is off screen it
        becomes the first visible row (as far as the end of the file allows).

        Raises
        ------
        IndexError
            ``file_index`` is not in ``[0, number of files)``.
        ValueError
            ``offset`` or ``nbytes`` is negative.
        """
        if offset < 0 or nbytes < 0:
            raise ValueError(f"highlight needs offset >= 0 and nbytes >= 0, got {offset}, {nbytes}")
        self.set_file_index(file_index)
        self._highlight = (file_index, int(offset), int(nbytes))
        row = offset // BYTES_PER_ROW
        if not 0 <= row - self._top_row < self.visible_row_count():
            self._set_top_row(row)
        self.viewport().update()

    def highlighted(self) -> tuple[int, int, int] | None:
        """``(file_index, offset, nbytes)`` of the last :meth:`highlight`, or ``None``."""
        return self._highlight

    def clear_highlight(self) -> None:
        """Remove the highlight."""
        self._highlight = None
        self.viewport().update()

    def set_mark_source(self, marks: MarkSource | None) -> None:
        """Colour the byte ranges ``marks`` gives as backgrounds (under the highlight and the
        selection); it is asked only for the rows on screen, at every paint."""
        self._marks = marks
        self.viewport().update()

    def mark_colour(self, offset: int) -> QColor | None:
        """The background colour a mark gives byte ``offset`` of the file on screen (the last
        range that holds it, as painted), else None."""
        if self._marks is None or self._index < 0:
            return None
        colours = [colour for lo, hi, colour in self._marks(self._index, offset, offset + 1) if lo <= offset < hi]
        return colours[-1] if colours else None

    def selection(self) -> tuple[int, int] | None:
        """``(first, last)`` byte offsets (inclusive) the user selected, or ``None``."""
        return self._selection

    def select_bytes(self, first: int, last: int) -> None:
        """Select bytes ``first..last`` (inclusive) of the file on screen, scroll the first into
        view and emit :attr:`bytesSelected` as a click on ``first`` would.

        Raises
        ------
        IndexError
            ``first`` or ``last`` is not a byte of the file on screen, or ``last < first``.
        """
        if not 0 <= first <= last < self.file_size():
            raise IndexError(
                f"bytes {first}..{last} are not in the file on screen: its offsets are 0 to {self.file_size() - 1}"
            )
        self._selection = (int(first), int(last))
        row = first // BYTES_PER_ROW
        if not 0 <= row - self._top_row < self.visible_row_count():
            self._set_top_row(row)
        self.viewport().update()
        self.bytesSelected.emit(self._index, int(first))

    def selected_bytes(self, limit: int) -> bytes:
        """The selected bytes, read through the reader (``b""`` without a selection).

        Raises
        ------
        CoreError
            More than ``limit`` bytes are selected (the message says how many).
        """
        if self._selection is None:
            return b""
        first, last = self._selection
        if last - first + 1 > limit:
            raise CoreError(f"{last - first + 1:,} bytes are selected: copy at most {limit:,} at once")
        return self._read(first, last - first + 1)

    # --------------------------------------------------------------- geometry
    def _update_metrics(self) -> None:
        fm = QFontMetricsF(self.font())  # character widths are fractional in most fonts
        self._char_width = fm.horizontalAdvance("0" * 64) / 64
        self._row_height = int(round(fm.lineSpacing())) + 2
        self._ascent = fm.ascent() + 1

    def _hex_col(self, i: int) -> int:
        """Character column of byte ``i``'s hex digits (an extra space after byte 7)."""
        digits = max(8, len(f"{max(self.file_size() - 1, 0):x}"))
        return digits + 2 + 3 * i + (1 if i >= 8 else 0)

    def _ascii_col(self, i: int) -> int:
        return self._hex_col(BYTES_PER_ROW - 1) + 4 + i

    def _x(self, col: int) -> float:
        return _MARGIN + col * self._char_width - self.horizontalScrollBar().value()

    def _data_top(self) -> int:
        """y of the first data row: below the banner (if any) and the column header."""
        return (2 if self._message else 1) * self._row_height

    def row_count(self) -> int:
        """Number of rows of the file on screen (the last may be partial)."""
        return -(-self.file_size() // BYTES_PER_ROW)

    def visible_row_count(self) -> int:
        """Rows that fit entirely in the viewport (at least 1)."""
        return max(1, (self.viewport().height() - self._data_top()) // self._row_height)

    def first_visible_row(self) -> int:
        """Row number at the top of the view."""
        return self._top_row

    def _cell_rect(self, offset: int, col: int, nchars: int) -> QRect | None:
        row = offset // BYTES_PER_ROW
        visible = 0 <= row - self._top_row < self.visible_row_count()
        if offset < 0 or offset >= self.file_size() or not visible:
            return None
        y = self._data_top() + (row - self._top_row) * self._row_height
        return QRectF(self._x(col), y, nchars * self._char_width, self._row_height).toRect()

    def byte_rect(self, offset: int) -> QRect | None:
        """Viewport rectangle of byte ``offset``'s two hex digits, or ``None`` if not on screen."""
        return self._cell_rect(offset, self._hex_col(offset % BYTES_PER_ROW), 2)

    def ascii_rect(self, offset: int) -> QRect | None:
        """Viewport rectangle of byte ``offset``'s ASCII character, or ``None`` if not on screen."""
        return self._cell_rect(offset, self._ascii_col(offset % BYTES_PER_ROW), 1)

    def offset_at(self, pos: QPoint) -> int | None:
        """File offset of the byte under viewport point ``pos`` (hex or ASCII column), or ``None``.

        The space after a hex byte counts as that byte, so a click never falls between bytes.
        """
        if pos.y() < self._data_top():
            return None
        row = self._top_row + (pos.y() - self._data_top()) // self._row_height
        col = int((pos.x() + self.horizontalScrollBar().value() - _MARGIN) // self._char_width)
        rel = col - self._hex_col(0)
        if 0 <= rel < 3 * BYTES_PER_ROW:
            i = min(BYTES_PER_ROW - 1, (rel - (1 if rel >= 24 else 0)) // 3)
        elif 0 <= col - self._ascii_col(0) < BYTES_PER_ROW:
            i = col - self._ascii_col(0)
        else:
            return None
        offset = row * BYTES_PER_ROW + i
        return offset if offset < self.file_size() else None

    def _total_width(self) -> int:
        return int(2 * _MARGIN + (self._ascii_col(BYTES_PER_ROW - 1) + 1) * self._char_width) + 1

    def sizeHint(self) -> QSize:
        frame = 2 * self.frameWidth()
        width = self._total_width() + self.verticalScrollBar().sizeHint().width()
        return QSize(width + frame, 20 * self._row_height + frame)

    # ------------------------------------------------------------- scrolling
    def _max_top(self) -> int:
        return max(0, self.row_count() - self.visible_row_count())

    def _scaled(self) -> bool:
        return self._max_top() > _SCROLL_LIMIT

    def _value_for_top(self, top: int) -> int:
        return top * _SCROLL_LIMIT // self._max_top() if self._scaled() else top

    def _top_for_value(self, value: int) -> int:
        # Ceiling division makes _value_for_top(_top_for_value(v)) == v in scaled mode.
        return -(-value * self._max_top() // _SCROLL_LIMIT) if self._scaled() else value

    def _update_scrollbars(self) -> None:
        vbar, hbar = self.verticalScrollBar(), self.horizontalScrollBar()
        self._top_row = min(self._top_row, self._max_top())
        vbar.blockSignals(True)
        vbar.setRange(0, _SCROLL_LIMIT if self._scaled() else self._max_top())
        # Scaled, a page is a fraction of a unit: the handle stays minimal, and
        # _on_vertical_action re-does the steps in rows.
        vbar.setPageStep(1 if self._scaled() else max(1, self.visible_row_count() - 1))
        vbar.setValue(self._value_for_top(self._top_row))
        vbar.blockSignals(False)
        hbar.setRange(0, max(0, self._total_width() - self.viewport().width()))
        hbar.setPageStep(self.viewport().width())
        hbar.setSingleStep(max(1, int(self._char_width)))

    def _set_top_row(self, row: int) -> None:
        self._top_row = max(0, min(int(row), self._max_top()))
        # valueChanged comes back to _on_vertical_scroll, which sees it matches and keeps the row.
        self.verticalScrollBar().setValue(self._value_for_top(self._top_row))
        self.viewport().update()

    def _on_vertical_scroll(self, value: int) -> None:
        if value != self._value_for_top(self._top_row):
            self._top_row = self._top_for_value(value)
            self.viewport().update()

    def _on_vertical_action(self, action: int) -> None:
        page = max(1, self.visible_row_count() - 1)
        steps = {_Action.SliderSingleStepAdd: 1, _Action.SliderSingleStepSub: -1,
                 _Action.SliderPageStepAdd: page, _Action.SliderPageStepSub: -page}
        step = steps.get(_Action(action))
        if step is None:
            return
        self._top_row = max(0, min(self._top_row + step, self._max_top()))
        # Qt applies the slider position after this slot returns.
        self.verticalScrollBar().setSliderPosition(self._value_for_top(self._top_row))
        self.viewport().update()

    def wheelEvent(self, event) -> None:
        delta = event.angleDelta().y()
        if delta == 0:
            super().wheelEvent(event)
            return
        self._wheel_rest += delta
        rows, self._wheel_rest = divmod(self._wheel_rest, 40)  # 120 per notch = 3 rows
        if rows < 0 and self._wheel_rest:  # divmod floors; keep the remainder's sign
            rows, self._wheel_rest = rows + 1, self._wheel_rest - 40
        self._set_top_row(self._top_row - rows)
        event.accept()

    def keyPressEvent(self, event) -> None:
        # QAbstractScrollArea turns arrows and pages into triggerAction (so into rows, via
        # _on_vertical_action) but has no Home/End.
        ends = {Qt.Key.Key_Home: _Action.SliderToMinimum, Qt.Key.Key_End: _Action.SliderToMaximum}
        if event.key() in ends:
            self.verticalScrollBar().triggerAction(ends[event.key()])
        else:
            super().keyPressEvent(event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._update_scrollbars()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == event.Type.FontChange:
            self._update_metrics()
            self._update_scrollbars()

    # ------------------------------------------------------------------ mouse
    def mousePressEvent(self, event) -> None:
        offset = self.offset_at(event.position().toPoint())
        selection = self._selection
        if (event.button() == Qt.MouseButton.RightButton and offset is not None
                and (selection is None or not selection[0] <= offset <= selection[1])):
            # The context menu acts on the byte under the pointer, not on an older selection.
            self.select_bytes(offset, offset)
        if event.button() != Qt.MouseButton.LeftButton or offset is None:
            super().mousePressEvent(event)
            return
        self._anchor = offset
        self._selection = (offset, offset)
        self.viewport().update()

    def mouseMoveEvent(self, event) -> None:
        offset = self.offset_at(event.position().toPoint())
        if self._anchor is not None and offset is not None:
            self._selection = (min(self._anchor, offset), max(self._anchor, offset))
            self.viewport().update()

    def mouseReleaseEvent(self, event) -> None:
        if self._anchor is None or self._selection is None:
            super().mouseReleaseEvent(event)
            return
        self._anchor = None
        self.bytesSelected.emit(self._index, self._selection[0])

    # --------------------------------------------------------------- content
    def _row_texts(self, row: int, chunk: bytes) -> tuple[str, list[str], str]:
        digits = max(8, len(f"{max(self.file_size() - 1, 0):x}"))
        ascii_ = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
        return f"{row * BYTES_PER_ROW:0{digits}x}", [f"{b:02x}" for b in chunk], ascii_

    def row_text(self, row: int) -> str:
        """Row ``row`` as plain text, laid out like the screen: ``offset  hex  ascii``.

        Example: the first row of a file holding ``bytes(range(40))`` is
        ``"00000000  00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f  ................"``.
        A partial last row pads the missing hex bytes with spaces.

        Raises
        ------
        IndexError
            ``row`` is not in ``[0, row_count())``.
        """
        if not 0 <= row < self.row_count():
            raise IndexError(f"row {row} out of range: the file has {self.row_count()} rows")
        chunk = self._read(row * BYTES_PER_ROW, BYTES_PER_ROW)
        offset, hexes, ascii_ = self._row_texts(row, chunk)
        hexes += ["  "] * (BYTES_PER_ROW - len(hexes))
        return f"{offset}  {' '.join(hexes[:8])}  {' '.join(hexes[8:])}  {ascii_}"

    def paintEvent(self, event) -> None:
        painter = QPainter(self.viewport())
        qt_palette, rh, width = self.palette(), self._row_height, self.viewport().width()
        painter.fillRect(event.rect(), qt_palette.base())
        cw = self._char_width
        hex_x = [self._x(self._hex_col(i)) for i in range(BYTES_PER_ROW)]
        ascii_x = [self._x(self._ascii_col(i)) for i in range(BYTES_PER_ROW)]
        y = 0
        if self._message:
            painter.fillRect(QRect(0, 0, width, rh), _BANNER)
            painter.setPen(_BANNER_TEXT)
            elide = Qt.TextElideMode.ElideRight
            text = painter.fontMetrics().elidedText(self._message, elide, width - 2 * _MARGIN)
            painter.drawText(QPointF(_MARGIN, self._ascent), text)
            y = rh
        dim = qt_palette.placeholderText().color()
        painter.setPen(dim)
        painter.drawText(QPointF(self._x(0), y + self._ascent), "offset")
        for i in range(BYTES_PER_ROW):
            painter.drawText(QPointF(hex_x[i], y + self._ascent), f"{i:02x}")
            painter.drawText(QPointF(ascii_x[i], y + self._ascent), f"{i:x}")
        painter.drawLine(0, y + rh - 1, width, y + rh - 1)
        y += rh

        nrows = min(-(-(self.viewport().height() - y) // rh), self.row_count() - self._top_row)
        if nrows <= 0:
            return
        data = self._read(self._top_row * BYTES_PER_ROW, nrows * BYTES_PER_ROW)  # one read
        marked = []  # (first, end exclusive, colour); the selection paints over the highlight, over marks
        if self._marks is not None:
            marked.extend(self._marks(self._index, self._top_row * BYTES_PER_ROW, (self._top_row + nrows) * BYTES_PER_ROW))
        if self._highlight is not None and self._highlight[0] == self._index:
            marked.append((self._highlight[1], self._highlight[1] + self._highlight[2], _HIGHLIGHT))
        if self._selection is not None:
            marked.append((self._selection[0], self._selection[1] + 1, qt_palette.highlight().color()))
        first, last = self._selection or (-1, -1)
        ink, selected_ink = qt_palette.text().color(), qt_palette.highlightedText().color()
        for r in range(nrows):
            row, ry = self._top_row + r, y + r * rh
            start = row * BYTES_PER_ROW
            chunk = data[r * BYTES_PER_ROW:(r + 1) * BYTES_PER_ROW]
            for lo, hi, fill in marked:
                i, j = max(lo, start) - start, min(hi, start + len(chunk)) - start - 1
                if i <= j:  # bytes i..j of this row
                    painter.fillRect(QRectF(hex_x[i], ry, hex_x[j] + 2 * cw - hex_x[i], rh), fill)
                    painter.fillRect(QRectF(ascii_x[i], ry, ascii_x[j] + cw - ascii_x[i], rh), fill)
            offset, hexes, ascii_ = self._row_texts(row, chunk)
            painter.setPen(dim)
            painter.drawText(QPointF(self._x(0), ry + self._ascent), offset)
            for i, text in enumerate(hexes):
                painter.setPen(selected_ink if first <= start + i <= last else ink)
                painter.drawText(QPointF(hex_x[i], ry + self._ascent), text)
                painter.drawText(QPointF(ascii_x[i], ry + self._ascent), ascii_[i])
