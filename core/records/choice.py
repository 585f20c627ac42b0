"""What a user chose to see as records: the layout's source text and how to read it, the header
before the records and which records (a slice of axis 0). One value, shared by the command
line, the window and sessions.

Rules
-----
- ``kind`` is the form of ``text``: ``c`` (C declarations, laid out by ``abi``; ``struct``
  names the struct, empty: the text's last one), ``fields`` (a compact field list) or
  ``numpy`` (a numpy dtype description). ``little_endian`` is the layout's byte order (a field
  list's ``>``/``<`` and a numpy description's own byte orders still win per field).
- ``header``: the bytes before the first record (a whole number >= 0). With ``header_struct``
  (C only: a struct of the same text, laid out by the same ABI) the file holds that struct at
  byte ``header`` and the records follow it: they start at ``header`` plus its size
  (:meth:`RecordsChoice.records_start`); its fields' values are shown as the file's header.
- ``length``: the bytes the records occupy after their start (a container's dataset of records
  inside a larger file); None: up to the end of the file.
- ``rows``: a strided slice of the records, written like any slice (``[1000:2000:10]``,
  ``[::-1]``, ``[5]``; empty: every record), read with the slice rules of the rest of the tool
  on the 1-d axis of records (:func:`core.slicing.expr.one_axis_selection`) into
  :class:`RecordRows` when the records are counted.
- The value is checked when made: an unknown kind or ABI, a text longer than
  :data:`~core.records.c_decl.MAX_HEADER_BYTES`, a negative header are refused with the field to fix. :meth:`RecordsChoice.layout` parses the text (its
  refusals are the parsers').
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import CoreError
from core.records.abi import ABIS, DEFAULT_ABI
from core.records.c_decl import MAX_HEADER_BYTES, parse_c_layout
from core.records.field_list import parse_field_list, parse_numpy_layout
from core.records.layout import RecordLayout

__all__ = ["KINDS", "RecordRows", "RecordsChoice"]

#: The forms a layout's text is written in.
KINDS = ("c", "fields", "numpy")
#: Longest records slice text.
MAX_ROWS_TEXT = 1000


@dataclass(frozen=True)
class RecordRows:
    """Which records are shown: ``count`` of them, row ``k`` being record ``start + k * step``."""

    start: int
    step: int
    count: int

    def record(self, row: int) -> int:
        """The record shown in row ``row``."""
        if not 0 <= row < self.count:
            raise IndexError(f"row {row} is not one of the {self.count:,} rows")
        return self.start + row * self.step

    @property
    def every_record(self) -> bool:
        return self.start == 0 and self.step == 1

    def as_slice(self) -> slice:
        """The rows as a Python slice of the records (for numpy views)."""
        stop = self.start + self.count * self.step
        return slice(self.start, stop if stop >= 0 else None, self.step)


@dataclass(frozen=True)
class RecordsChoice:
    """A layout's text, how it is read, the header and the records shown (module rules)."""

    kind: str
    text: str
    struct: str = ""
    abi: str = DEFAULT_ABI
    header: int = 0
    little_endian: bool = True
    rows: str = ""
    header_struct: str = ""
    length: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise CoreError(f"a record layout is written as one of {', '.join(KINDS)}, not {self.kind!r:.40}",
                            field="fields")
        if not isinstance(self.text, str) or not self.text.strip():
            raise CoreError("the record layout is empty (write a C struct, a field list or a numpy dtype)",
                            field="fields")
        if len(self.text) > MAX_HEADER_BYTES:
            raise CoreError(f"the record layout's text is {len(self.text):,} characters, more than the "
                            f"{MAX_HEADER_BYTES:,} read (keep only the structs needed)", field="fields")
        if self.abi not in ABIS:
            raise CoreError(f"unknown ABI {self.abi!r:.40} (use one of {', '.join(ABIS)})", field="abi")
        if not isinstance(self.header, int) or isinstance(self.header, bool) or self.header < 0:
            raise CoreError(f"the header is {self.header!r:.40} bytes: give a whole number >= 0", field="offset")
        if self.length is not None and (not isinstance(self.length, int) or isinstance(self.length, bool)
                                        or self.length < 0):
            raise CoreError(f"the records' length is {self.length!r:.40} bytes: give a whole number >= 0",
                            field="length")
        if self.header_struct and self.kind != "c":
            raise CoreError("a header struct is a struct of C text (write the layout as C, or give the header's "
                            "size in bytes)", field="fields")
        if not isinstance(self.rows, str) or len(self.rows) > MAX_ROWS_TEXT:
            raise CoreError(f"the records slice is not a slice text of at most {MAX_ROWS_TEXT} characters",
                            field="rows")

    def layout(self) -> RecordLayout:
        """The layout the text describes.

        Raises
        ------
        CoreError
            The parser's refusal (its message names the line, the field or the type).
        """
        if self.kind == "c":
            return parse_c_layout(self.text, self.struct or None, abi=self.abi, little_endian=self.little_endian)
        if self.kind == "fields":
            return parse_field_list(self.text, little_endian=self.little_endian)
        return parse_numpy_layout(self.text)

    def header_layout(self) -> RecordLayout | None:
        """The layout of the header struct (None without one).

        Raises
        ------
        CoreError
            The parser's refusal (a struct the text does not define...).
        """
        if not self.header_struct:
            return None
        return parse_c_layout(self.text, self.header_struct, abi=self.abi, little_endian=self.little_endian)

    def records_start(self) -> int:
        """The first record's byte: ``header``, plus the header struct's size when there is one."""
        header = self.header_layout()
        return self.header + (0 if header is None else header.itemsize)

    def to_json(self) -> dict[str, object]:
        """Plain JSON values (what a session stores; ``header_struct`` only when set)."""
        out: dict[str, object] = {"kind": self.kind, "text": self.text, "struct": self.struct, "abi": self.abi,
                                  "header": self.header, "little_endian": self.little_endian, "rows": self.rows}
        if self.header_struct:
            out["header_struct"] = self.header_struct
        if self.length is not None:
            out["length"] = self.length
        return out
