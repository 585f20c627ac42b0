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
- In a session file (docs/sessions.md) a bookmark is a JSON object keyed by these field names:
  ``name``, ``kind``, ``file_index``, ``slice_text``, ``note``, ``colour`` always; ``params``
  (:func:`core.session.json_fields.params_to_json`), ``tensor``, ``index`` (a list) and
  ``byte_range`` (``[start, length]``) only when not None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.errors import SessionError
from core.pipeline.pipeline import DecodeParams
from core.session.json_fields import (
    MAX_DIMS,
    MAX_NAME,
    MAX_TEXT,
    JsonObject,
    check_int,
    check_ints,
    check_str,
    params_from_json,
    params_to_json,
)

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

    def to_json(self) -> dict[str, object]:
        """This bookmark as a JSON object (keys in field order; None fields left out)."""
        out: dict[str, object] = {"name": self.name, "kind": self.kind, "file_index": self.file_index}
        if self.params is not None:
            out["params"] = params_to_json(self.params)
        if self.tensor is not None:
            out["tensor"] = self.tensor
        out["slice_text"] = self.slice_text
        if self.index is not None:
            out["index"] = list(self.index)
        if self.byte_range is not None:
            out["byte_range"] = list(self.byte_range)
        out["note"] = self.note
        out["colour"] = self.colour
        return out

    @classmethod
    def from_json(cls, data: object, where: str = "bookmark", notes: list[str] | None = None) -> Bookmark:
        """The bookmark a JSON object describes (the inverse of :meth:`to_json`).

        Parameters
        ----------
        data
            The parsed JSON value.
        where
            Its place in the session file, for messages (``"bookmarks[2]"``).
        notes
            Receives one line per unknown key (ignored).

        Raises
        ------
        SessionError
            ``field="bookmark"``: not an object, a missing ``name`` or ``kind``, a field of the
            wrong type or range, or a combination the rules above refuse.
        """
        obj = JsonObject(data, where, notes, field="bookmark")
        params = obj.value("params", None)
        values = dict(
            name=obj.get("name", check_str),
            kind=obj.get("kind", check_str),
            file_index=obj.get("file_index", check_int, 0),
            params=None if params is None else params_from_json(params, obj.place("params"), notes, "bookmark"),
            tensor=obj.get("tensor", check_str, None, nullable=True),
            slice_text=obj.get("slice_text", check_str, "", limit=MAX_TEXT),
            index=obj.get("index", check_ints, None, nullable=True, limit=MAX_DIMS),
            byte_range=obj.get("byte_range", check_ints, None, nullable=True, limit=2),
            note=obj.get("note", check_str, "", limit=MAX_TEXT),
            colour=obj.get("colour", check_str, DEFAULT_COLOUR, limit=MAX_NAME),
        )
        if values["byte_range"] is not None and len(values["byte_range"]) != 2:
            raise SessionError(f"{obj.place('byte_range')} must be a [start, length] pair "
                               "(fix the session file by hand, or save the session again)", field="bookmark")
        obj.finish()
        try:
            return cls(**values)
        except SessionError as error:
            raise SessionError(f"{where}: {error.message}", field="bookmark") from None
