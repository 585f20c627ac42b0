"""One bookmark: a named element, region of elements, or byte range, with a note and a colour.

Rules
-----
- ``kind == "element"``: ``index`` is the element's index in the tensor that ``slice_text``
  gives (``slice_text`` "" is the whole decoded tensor); ``byte_range`` is None.
- ``kind == "region"``: ``slice_text`` *is* the region (e.g. ``"x[10:20, :]"``); ``index`` and
  ``byte_range`` are None.
- ``kind == "bytes"``: ``byte_range`` is ``(start, length)`` in file ``file_index``, ``length``
  at least 1; ``index`` is None.
- ``params`` are the decode parameters in effect when the bookmark was made (None: whatever is
  in effect when it is chosen); ``tensor`` names the container entry they came from, if any.
- ``colour`` is ``"#rrggbb"``. Bookmarks are immutable; edit with :func:`dataclasses.replace`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.errors import SessionError
from core.pipeline.pipeline import DecodeParams

BOOKMARK_KINDS = ("element", "region", "bytes")
DEFAULT_COLOUR = "#e6a700"
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


@dataclass(frozen=True)
class Bookmark:
    """A named place in a file (see the module docstring for what each kind holds)."""

    name: str
    kind: str
    file_index: int = 0
    params: DecodeParams | None = None
    tensor: str | None = None
    slice_text: str = ""
    index: tuple[int, ...] | None = None
    byte_range: tuple[int, int] | None = None
    note: str = ""
    colour: str = DEFAULT_COLOUR

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise SessionError("A bookmark needs a name: type one.")
        if self.kind not in BOOKMARK_KINDS:
            raise SessionError(f"Unknown bookmark kind {self.kind!r}: use one of {', '.join(BOOKMARK_KINDS)}.")
        if not isinstance(self.colour, str) or not _COLOUR.match(self.colour):
            raise SessionError(f"Bookmark colour {self.colour!r} is not #rrggbb: pick a colour such as {DEFAULT_COLOUR}.")
        if self.index is not None:
            object.__setattr__(self, "index", tuple(int(i) for i in self.index))
        if self.byte_range is not None:
            start, length = (int(v) for v in self.byte_range)
            if start < 0 or length < 1:
                raise SessionError(f"Bookmark {self.name!r}: byte range start {start}, length {length} "
                                     "is empty or negative: use a start >= 0 and a length >= 1.")
            object.__setattr__(self, "byte_range", (start, length))
        if self.kind == "element" and self.index is None:
            raise SessionError(f"Bookmark {self.name!r} marks an element but has no index.")
        if self.kind == "bytes" and self.byte_range is None:
            raise SessionError(f"Bookmark {self.name!r} marks bytes but has no byte range.")
        if self.kind != "element" and self.index is not None:
            raise SessionError(f"Bookmark {self.name!r}: only an element bookmark has an index.")
        if self.kind != "bytes" and self.byte_range is not None:
            raise SessionError(f"Bookmark {self.name!r}: only a bytes bookmark has a byte range.")
        if self.file_index < 0:
            raise SessionError(f"Bookmark {self.name!r}: file index {self.file_index} is negative.")
