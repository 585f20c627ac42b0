"""What a session records of the document, as one value, and the session file's ``display`` both ways.

:class:`DocumentSnapshot` is what :meth:`Document.snapshot
<inspector.state.document.Document.snapshot>` gives and :meth:`Document.restore
<inspector.state.document.Document.restore>` shows again: files, decode parameters, container
tensor, slice, display axes, view options, selection and bookmarks. Sessions
(:func:`to_session`, :func:`from_session`), "apply session to other files" and the remembered
display settings all go through it.

Rules
-----
- A field that is None is not part of the snapshot: restoring leaves it as it is (the
  remembered settings are a snapshot of view options only).
- The session's ``display`` keeps the keys and order that sessions have always had
  (docs/sessions.md): ``row_axis``, ``col_axis``, ``indices``, ``plot_mode`` (``"image"`` or
  ``"line"``), ``plot_line_axis``, ``table_format``, ``table_decimals``, ``heat_map`` and, when an
  element is selected, ``selection``. Sessions of older and newer versions open the same way.
- Restoring (:func:`restore_snapshot`) opens the snapshot's files with its parameters and
  slice unless the document shows exactly those already (the window opens them first, to
  remember them in its settings), then sets the display axes, the view options, the selection
  and the bookmarks. Axes that the view does not have leave the axes, the indices and the plot
  mode as they are; a line axis the view does not have keeps the plot mode; a selection outside
  the view is not selected. Restored while nothing is shown, the view options wait for the first
  view (:mod:`inspector.state.view_options`).
- Reading a ``display`` never fails: a value of the wrong kind, an unknown format, decimals out
  of range are left out (the current choice stays); whether axes, line axis and selection fit
  the view is decided when the snapshot is restored.
- Records (a layout over the first file) are restored after the view; a layout the files
  refuse is reported as the document's error, the rest of the view stays restored.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from core.errors import CoreError
from core.pipeline.pipeline import DecodeParams
from core.records.choice import RecordsChoice
from core.session.bookmark import Bookmark
from core.session.placement import plain_slice_text
from core.session.session_file import Session, capture_file
from inspector.state.view_options import ViewOptions

if TYPE_CHECKING:
    from inspector.state.document import Document

__all__ = ["DocumentSnapshot", "from_session", "restore_snapshot", "session_display", "take_snapshot",
           "to_session"]


@dataclass(frozen=True)
class DocumentSnapshot:
    """The document's view as a value (rules: module docstring).

    Attributes
    ----------
    paths
        The files (``()``: not part of the snapshot).
    params, tensor, slice_text
        The decode parameters, the container tensor they select (None: none) and the slice
        expression (``""``: the whole tensor).
    row_axis, col_axis, indices
        The display axes: the axes on screen and the index of every axis.
    view_options
        Every display choice (:class:`~inspector.state.view_options.ViewOptions`).
    selection
        The selected element's index into the view.
    bookmarks
        The bookmarks, in their order.
    records
        The first file shown as records (:class:`~core.records.choice.RecordsChoice`).
    """

    paths: tuple[str, ...] = ()
    params: DecodeParams | None = None
    tensor: str | None = None
    slice_text: str | None = None
    row_axis: int | None = None
    col_axis: int | None = None
    indices: tuple[int, ...] | None = None
    view_options: ViewOptions | None = None
    selection: tuple[int, ...] | None = None
    bookmarks: tuple[Bookmark, ...] | None = None
    records: RecordsChoice | None = None


def take_snapshot(document: Document) -> DocumentSnapshot:
    """Everything of ``document`` that a session records (:meth:`Document.snapshot`)."""
    entry, axes = document.current_entry, document.display_axes
    return DocumentSnapshot(
        paths=document.paths, params=document.params, tensor=None if entry is None else entry.name,
        slice_text=document.slice_text, row_axis=axes.row_axis, col_axis=axes.col_axis,
        indices=axes.indices, view_options=document.view_options.value, selection=document.selection,
        bookmarks=document.bookmarks.items, records=document.records.choice)


def restore_snapshot(document: Document, snapshot: DocumentSnapshot) -> bool:
    """Show ``snapshot`` in ``document`` (module rules, "Restoring"); False (the document's
    error says why) when its files cannot be opened."""
    if snapshot.paths:
        params = snapshot.params if snapshot.params is not None else document.params
        slice_text = snapshot.slice_text if snapshot.slice_text is not None else ""
        if (tuple(snapshot.paths), params, slice_text) != (document.paths, document.params, document.slice_text) \
                and not document.open_files(snapshot.paths, params, slice_text):
            return False
    axes, axes_fit = document.display_axes, True
    try:
        if snapshot.row_axis is not None and snapshot.col_axis is not None and axes.ndim >= 2:
            axes.set_axes(snapshot.row_axis, snapshot.col_axis)
        for axis, index in enumerate(snapshot.indices or ()):
            if axis in axes.fixed_axes():
                axes.set_index(axis, index)
    except ValueError:
        axes_fit = False  # axes of another shape (a session applied to other files)
    options = snapshot.view_options
    if options is not None:
        line_axis = options.plot_line_axis
        if document.result is not None and (not axes_fit or axes.ndim < 2 or (
                line_axis is not None and line_axis >= axes.ndim)):
            options = replace(options, plot_line_axis=document.view_options.value.plot_line_axis)
        document.view_options.restore(options)
    selection, result = snapshot.selection, document.result
    if selection is not None and result is not None and len(selection) == result.view.ndim \
            and all(0 <= i < n for i, n in zip(selection, result.view.shape)):
        document.select(selection)
    if snapshot.bookmarks is not None:
        document.bookmarks.replace_all(snapshot.bookmarks)
    if snapshot.records is not None:
        try:
            document.records.choose(snapshot.records)
        except CoreError as error:  # the files of the view open; the records say why they do not
            document.report_error(CoreError(f"the session's records: {error.message}", field="fields"))
    return True


def session_display(snapshot: DocumentSnapshot) -> dict:
    """The session's ``display`` of ``snapshot`` (keys and order: module rules)."""
    options = snapshot.view_options or ViewOptions()
    line_axis = options.plot_line_axis
    display = {"row_axis": snapshot.row_axis, "col_axis": snapshot.col_axis,
               "indices": list(snapshot.indices or ()),
               "plot_mode": "image" if line_axis is None else "line", "plot_line_axis": line_axis,
               "table_format": options.table_format, "table_decimals": options.table_decimals,
               "heat_map": options.heat_map}
    if snapshot.selection is not None:
        display["selection"] = list(snapshot.selection)
    return display


def to_session(snapshot: DocumentSnapshot, comparison: dict | None = None) -> Session:
    """The :class:`~core.session.session_file.Session` of ``snapshot`` (its files recorded as
    they are now) with the comparison's dict (None: no comparison).

    Raises
    ------
    SessionError
        A file cannot be recorded (:func:`~core.session.session_file.capture_file`).
    """
    return Session(files=tuple(capture_file(path) for path in snapshot.paths), params=snapshot.params,
                   tensor=snapshot.tensor, slice_text=snapshot.slice_text or "",
                   display=session_display(snapshot), comparison=comparison,
                   bookmarks=tuple(snapshot.bookmarks or ()), records=snapshot.records)


def from_session(session: Session, options: ViewOptions) -> DocumentSnapshot:
    """The snapshot that shows ``session``; the display choices it does not record (or records
    with a stale value) are those of ``options``, the current ones."""
    display = session.display
    row, col = display.get("row_axis"), display.get("col_axis")
    indices = display.get("indices")
    changes: dict[str, object] = {"table_format": display.get("table_format"),
                                  "table_decimals": display.get("table_decimals")}
    heat = display.get("heat_map")
    if isinstance(heat, (bool, int)):
        changes["heat_map"] = bool(heat)
    mode, line_axis = display.get("plot_mode"), display.get("plot_line_axis")
    options = options.with_valid(changes)
    if mode == "image" or (mode == "line" and line_axis is None):
        options = replace(options, plot_line_axis=None)
    elif mode == "line":
        options = options.with_valid({"plot_line_axis": line_axis})
    selection = display.get("selection")
    return DocumentSnapshot(
        paths=tuple(record.path for record in session.files), params=session.params, tensor=session.tensor,
        slice_text=plain_slice_text(session.slice_text),
        row_axis=row if _whole(row) else None, col_axis=col if _whole(col) else None,
        indices=tuple(indices) if isinstance(indices, list) else None, view_options=options,
        selection=tuple(selection) if isinstance(selection, list) else None,
        bookmarks=session.bookmarks, records=session.records)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
