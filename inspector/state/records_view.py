"""The document's records: the layout chosen for its first file and what it makes of the bytes.

:class:`RecordsView` is the one owner of the :class:`~core.records.choice.RecordsChoice` in use
(None: the file is not shown as records). The records window edits it; the hex view colours the
fields' bytes from it, the data inspector names the field under the cursor, sessions store it.

Rules
-----
- Records are counted from the first file's size after the header
  (:func:`core.records.placement.count_records`): :attr:`RecordsView.count`, the bytes after
  the last whole one :attr:`RecordsView.trailing`. :attr:`RecordsView.rows` are the records the
  choice's slice picks. A choice the layout parser, the count or the slice refuses is refused
  whole (:meth:`RecordsView.choose` raises; the choice in use stays).
- When the document opens other files the choice is applied to them; a choice they refuse is
  dropped (:attr:`RecordsView.dropped` says why) and ``changed`` is emitted.
- Which field a byte is: :mod:`core.records.placement`.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from core.errors import CoreError
from core.records.choice import RecordRows, RecordsChoice
from core.records.layout import Column, Field, RecordLayout
from core.records.placement import count_records, describe_record, field_spans, fields_at
from core.slicing.expr import one_axis_selection

__all__ = ["RecordsView"]


class RecordsView(QObject):
    """The records the document shows (module rules).

    Signals
    -------
    changed()
        The choice, or what it counts (other files), changed.
    cursorChanged()
        Another record and column are pointed at (:attr:`cursor`).
    """

    changed = Signal()
    cursorChanged = Signal()

    def __init__(self, file_size, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._file_size = file_size  # () -> the first file's size, or None without files
        self._choice: RecordsChoice | None = None
        self._layout: RecordLayout | None = None
        self._count = 0
        self._rows: RecordRows | None = None
        self._dropped = ""
        self._cursor: tuple[int, Column] | None = None
        self._start = 0
        self._header_layout: RecordLayout | None = None

    @property
    def choice(self) -> RecordsChoice | None:
        return self._choice

    @property
    def layout(self) -> RecordLayout | None:
        return self._layout

    @property
    def header(self) -> int:
        """The first record's byte (after the header bytes and the header struct, if any)."""
        return self._start

    @property
    def header_layout(self) -> RecordLayout | None:
        """The header struct's layout, or None."""
        return self._header_layout

    def header_values(self, read) -> list[tuple[str, str]]:
        """``(column, value text)`` of the header struct (``read(offset, nbytes) -> bytes`` reads
        the first file); [] without one."""
        if self._header_layout is None or self._choice is None:
            return []
        data = read(self._choice.header, self._header_layout.itemsize)
        return describe_record(self._header_layout, data) if len(data) == self._header_layout.itemsize else []

    @property
    def count(self) -> int:
        """Whole records after the header."""
        return self._count

    @property
    def rows(self) -> RecordRows | None:
        return self._rows

    @property
    def trailing(self) -> int:
        size = self._file_size()
        if self._layout is None or size is None:
            return 0
        if self._choice.length is not None:
            size = min(size, self.header + self._choice.length)
        return size - self.header - self._count * self._layout.itemsize

    @property
    def dropped(self) -> str:
        """Why the last choice was dropped when other files opened ("" when it was not)."""
        return self._dropped

    @property
    def cursor(self) -> tuple[int, Column] | None:
        """The record and column pointed at in the records table, or None."""
        return self._cursor

    def point_at(self, record: int, column: Column) -> None:
        """Point at ``column`` of ``record`` (the hex view marks its bytes)."""
        self._cursor = (int(record), column)
        self.cursorChanged.emit()

    def cursor_bytes(self) -> tuple[int, int] | None:
        """``(first byte, bytes)`` in the first file of the cell pointed at (a bit field: its unit)."""
        if self._cursor is None or self._layout is None:
            return None
        record, column = self._cursor
        nbytes = column.field.itemsize if (column.field.is_bits or column.index or not column.field.shape) \
            else column.field.nbytes
        return self.header + record * self._layout.itemsize + column.offset, nbytes

    def choose(self, choice: RecordsChoice | None) -> None:
        """Show the records of ``choice`` (None: no records).

        Raises
        ------
        CoreError
            The choice is refused (module rules); the one in use stays.
        """
        if choice is None:
            self._set(None, None, 0, None)
            return
        applied = self._apply(choice)
        self._dropped = ""
        self._set(choice, *applied)

    def files_changed(self) -> None:
        """Apply the choice in use to the document's files now open (module rules)."""
        if self._choice is None:
            return
        try:
            applied = self._apply(self._choice)
        except CoreError as error:
            self._dropped = error.message
            self._set(None, None, 0, None)
            return
        self._set(self._choice, *applied)

    def fields_at(self, offset: int) -> tuple[int, list[Field]] | None:
        """``(record, leaves covering byte offset)`` of the first file, or None outside the
        records (:func:`core.records.placement.fields_at`)."""
        return None if self._layout is None else fields_at(self._layout, self.header, self._count, offset)

    def field_spans(self, first: int, end: int) -> list[tuple[int, int, int]]:
        """``(first byte, end byte, leaf number)`` of the leaves' bytes overlapping bytes
        ``first <= b < end`` of the first file (:func:`core.records.placement.field_spans`)."""
        return [] if self._layout is None else field_spans(self._layout, self.header, self._count, first, end)

    def _apply(self, choice: RecordsChoice) -> tuple:
        size = self._file_size()
        if size is None:
            raise CoreError("open a file first", field="files")
        layout = choice.layout()
        header_layout = choice.header_layout()
        start = choice.header + (0 if header_layout is None else header_layout.itemsize)
        end = size if choice.length is None else min(size, start + choice.length)
        count, _trailing = count_records(layout, start, end)
        try:
            rows = RecordRows(*one_axis_selection(choice.rows, count))
        except CoreError as error:
            raise CoreError(f"the records slice: {error.message}", field="rows") from None
        return layout, count, rows, start, header_layout

    def _set(self, choice, layout, count, rows, start: int = 0, header_layout=None) -> None:
        self._choice, self._layout, self._count, self._rows = choice, layout, count, rows
        self._start, self._header_layout = start, header_layout
        self._cursor = None
        self.changed.emit()
