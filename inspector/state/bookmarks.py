"""The bookmarks of the open document: the one owner of the list, its undoable edits, choosing one.

:class:`Bookmarks` is created by the :class:`~inspector.state.document.Document` and reached as
``document.bookmarks``. Rules:

- The list belongs to the open files. Reloading the same files (File > Reload, or opening the
  same paths again) keeps it; opening other files or closing them clears it (a session that is
  opened sets its own list after opening its files: :meth:`Bookmarks.replace_all`).
- Adding, removing, editing (name, note, colour) and moving a bookmark are commands on the
  document's history (:mod:`inspector.state.commands`): Edit > Undo walks through them together
  with decode and slice edits. Consecutive keystrokes in one bookmark's name or note merge into
  one step.
- Names are unique within the list (they are how :meth:`Bookmarks.choose` and the command line's
  ``--bookmark NAME`` find one): a name already taken gets `` (2)``, `` (3)``... appended.
- :meth:`Bookmarks.choose` restores the bookmark's decode parameters (those of its container
  tensor when only the tensor is named), its slice and its element as ONE undoable edit
  (:meth:`Document.set_view`): an element bookmark selects its element, a region bookmark's
  slice is the region (its first element is selected), a byte range selects the first element
  whose bytes overlap it and asks the hex view to select the range (:attr:`bytesChosen`).
- :meth:`Bookmarks.placements` says where the bookmarks lie in the current view
  (:func:`core.session.placement.place`), computed once per result and list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtCore import QObject, Signal

from core.errors import CoreError, SessionError
from core.formats.entry import find_entry
from core.pipeline.pipeline import DecodeParams
from core.session.bookmark import DEFAULT_COLOUR, Bookmark
from core.session.placement import Placements, place, plain_slice_text
from inspector.state.commands import ValueCommand

__all__ = ["Bookmarks", "MAX_BYTE_PROBES"]

MAX_BYTE_PROBES = 4096
"""Choosing a byte range looks for an element in at most this many of its first bytes."""


class Bookmarks(QObject):
    """The list of :class:`~core.session.bookmark.Bookmark` of one document.

    Signals
    -------
    changed()
        The list changed (an edit, an undo, a redo, other files, a session).
    bytesChosen(int, int, int)
        ``(file index, first byte, length)``: a byte-range bookmark was chosen; the hex view
        selects those bytes.
    """

    changed = Signal()
    bytesChosen = Signal(int, "qint64", "qint64")

    def __init__(self, document) -> None:
        super().__init__(document)
        self._document = document
        self._items: tuple[Bookmark, ...] = ()
        self._paths: tuple[str, ...] = ()
        self._placed: tuple[object, tuple, Placements] | None = None  # (result, items, placements)
        document.filesChanged.connect(self._on_files_changed)

    # ------------------------------------------------------------------ reading
    @property
    def items(self) -> tuple[Bookmark, ...]:
        return self._items

    def __len__(self) -> int:
        return len(self._items)

    def names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self._items)

    def find(self, name: str) -> Bookmark:
        """The bookmark called ``name``.

        Raises
        ------
        SessionError
            No bookmark has that name (the message lists the names there are).
        """
        for bookmark in self._items:
            if bookmark.name == name:
                return bookmark
        known = ", ".join(repr(n) for n in self.names()) or "none"
        raise SessionError(f"No bookmark is called {name!r}; the bookmarks are: {known}.", field="bookmark")

    def unique_name(self, name: str, ignore: int | None = None) -> str:
        """``name``, or ``name (2)``, ``name (3)``... the first not taken (by another row than
        ``ignore``)."""
        taken = {b.name for i, b in enumerate(self._items) if i != ignore}
        base, n = name.strip() or "bookmark", 1
        candidate = base
        while candidate in taken:
            n += 1
            candidate = f"{base} ({n})"
        return candidate

    # ------------------------------------------------------------------ new bookmarks
    def _base(self, kind: str, name: str, colour: str | None, **fields) -> Bookmark:
        document = self._document
        return Bookmark(self.unique_name(name), kind, params=document.params,
                        tensor=None if document.current_entry is None else document.current_entry.name,
                        colour=colour or DEFAULT_COLOUR, **fields)

    def element_bookmark(self, name: str | None = None, colour: str | None = None) -> Bookmark | None:
        """A new bookmark of the selected element (not added), or None without a selection. The
        new bookmarks have the current decode parameters and container tensor, and ``colour``
        (else the default colour)."""
        index = self._document.selection
        if index is None or self._document.result is None:
            return None
        text = "element [" + ", ".join(str(i) for i in index) + "]"
        return self._base("element", name or text, colour, slice_text=self._document.slice_text, index=index)

    def region_bookmark(self, name: str | None = None, colour: str | None = None) -> Bookmark | None:
        """A new bookmark of the current slice as a region (not added), or None with nothing open."""
        if self._document.result is None:
            return None
        text = self._document.slice_text
        return self._base("region", name or f"region {text or '[all]'}", colour, slice_text=text)

    def bytes_bookmark(self, file_index: int, first: int, last: int, name: str | None = None,
                       colour: str | None = None) -> Bookmark:
        """A new bookmark of bytes ``first..last`` (inclusive) of file ``file_index`` (not added)."""
        return self._base("bytes", name or f"bytes {first:#x}..{last:#x}", colour, file_index=file_index,
                          slice_text=self._document.slice_text, byte_range=(first, last - first + 1))

    # ------------------------------------------------------------------ undoable edits
    def add(self, bookmark: Bookmark) -> Bookmark:
        """Append ``bookmark`` (renamed if its name is taken); returns what was added."""
        bookmark = replace(bookmark, name=self.unique_name(bookmark.name))
        self._push(f"add bookmark {bookmark.name}", (*self._items, bookmark))
        return bookmark

    def remove(self, row: int) -> None:
        """Remove the bookmark in ``row``.

        Raises
        ------
        IndexError
            ``row`` is not a row of the list.
        """
        bookmark = self._items[row]
        self._push(f"remove bookmark {bookmark.name}", self._items[:row] + self._items[row + 1:])

    def edit(self, row: int, *, name: str | None = None, note: str | None = None, colour: str | None = None) -> None:
        """Change the name, note or colour of the bookmark in ``row`` (keystrokes in one field of
        one row merge into one undo step). A name already taken is made unique; an empty name
        keeps the old one.

        Raises
        ------
        IndexError
            ``row`` is not a row of the list.
        SessionError
            ``colour`` is not ``#rrggbb``.
        """
        old = self._items[row]
        changes, field = {}, None
        if name is not None and name.strip():
            changes["name"], field = self.unique_name(name, ignore=row), "name"
        if note is not None:
            changes["note"], field = note, "note"
        if colour is not None:
            changes["colour"], field = colour, "colour"
        new = replace(old, **changes)
        if new != old:
            items = self._items[:row] + (new,) + self._items[row + 1:]
            self._push(f"edit bookmark {field}", items, merge_key=("bookmark", field, row))

    def move(self, row: int, to: int) -> None:
        """Move the bookmark in ``row`` to position ``to`` (clamped to the list).

        Raises
        ------
        IndexError
            ``row`` is not a row of the list.
        """
        items = list(self._items)
        bookmark = items.pop(row)
        items.insert(max(0, min(to, len(items))), bookmark)
        self._push(f"move bookmark {bookmark.name}", tuple(items))

    def replace_all(self, bookmarks: Sequence[Bookmark]) -> None:
        """Make ``bookmarks`` the list, not as an edit (opening a session: the history was
        cleared with the files); names are made unique."""
        items: list[Bookmark] = []
        for bookmark in bookmarks:
            taken = {b.name for b in items}
            name, n = bookmark.name, 1
            while name in taken:
                n += 1
                name = f"{bookmark.name} ({n})"
            items.append(replace(bookmark, name=name))
        self._paths = self._document.paths
        self._set(tuple(items), False)

    def _push(self, label: str, items: tuple[Bookmark, ...], merge_key=None) -> None:
        self._document.history.push(ValueCommand(label, self._items, items, self._set, merge_key))

    def _set(self, items: tuple[Bookmark, ...], _redoing: bool) -> None:
        self._items = items
        self.changed.emit()

    # ------------------------------------------------------------------ choosing
    def choose(self, name: str) -> bool:
        """Go to the bookmark called ``name`` (see the module docstring); False, with the reason
        reported through the document's error, when it cannot be shown."""
        document = self._document
        try:
            bookmark = self.find(name)
            params = self._params_of(bookmark)
        except CoreError as error:
            document.report_error(error)
            return False
        selection = bookmark.index if bookmark.kind == "element" else None
        if not document.set_view(params, plain_slice_text(bookmark.slice_text), selection, label=f"go to bookmark {name}"):
            return False
        if bookmark.kind == "bytes":
            self._select_bytes(bookmark)
        return True

    def _params_of(self, bookmark: Bookmark) -> DecodeParams:
        document = self._document
        if bookmark.params is not None:
            return bookmark.params
        if bookmark.tensor is not None and document.container is not None:
            return find_entry(document.container, bookmark.tensor).params(view_as=document.params.view_as)
        return document.params

    def _select_bytes(self, bookmark: Bookmark) -> None:
        """Select the first element whose bytes overlap the range (probing at most
        :data:`MAX_BYTE_PROBES` bytes from its start), and ask for the range in the hex view."""
        start, length = bookmark.byte_range
        result = self._document.result
        if result is not None and result.byte_map is not None:
            for offset in range(start, start + min(length, MAX_BYTE_PROBES)):
                try:
                    index = result.element_at_byte(bookmark.file_index, offset)
                except (IndexError, CoreError):
                    break
                if index is not None:
                    self._document.select(index)
                    break
        self.bytesChosen.emit(bookmark.file_index, start, length)

    # ------------------------------------------------------------------ marks
    def placements(self) -> Placements:
        """Where the bookmarks lie in the current view (empty without a result)."""
        document = self._document
        result = document.result
        if result is None or not self._items or not document.result_is_current:
            return Placements()  # a last good view of other settings: its indices mean other elements
        if self._placed is not None and self._placed[0] is result and self._placed[1] == self._items:
            return self._placed[2]
        byte_offset = result.byte_offset if result.byte_map is not None else None
        try:
            placed = place(self._items, document.params, document.slice_spec, result.tensor_shape, byte_offset)
        except (ValueError, IndexError):  # the slice does not fit the last good tensor: no marks
            placed = Placements()
        self._placed = (result, self._items, placed)
        return placed

    # ------------------------------------------------------------------ files
    def _on_files_changed(self) -> None:
        paths = self._document.paths
        if paths != self._paths:
            self._paths = paths
            if self._items:
                self._set((), False)
