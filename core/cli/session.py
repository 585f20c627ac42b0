"""``tensor-inspect --session S.json [FILE...] [--bookmark NAME]``: a saved session, headless.

Rules (docs/sessions.md, "The command line")
--------------------------------------------
- ``--session S.json`` runs the session's pipeline: its files, decode parameters, container
  tensor and slice, printed exactly as the plain command prints the same options (``--json``,
  ``--limit``, ``--steps`` as usual).
- ``--session S.json FILE...`` applies the session's layout to other files (the session's own
  files are then not needed).
- An option given on the command line overrides the session's value (``--dtype``, ``--shape``,
  ``--slice``, ``--view-as``...; ``--tf-only``). An explicit ``--offset``, ``--length`` or
  ``--record-size`` also replaces the session's explicit elements (a TFRecord feature).
- A session file that cannot be used is one ``error:`` line (exit status 2); a file of the
  session that is missing is named, with the fix ``--session S.json NEWPATH``. A file outside
  the session's folder (a relative path climbing out with ``..``, or an absolute path
  elsewhere) is a ``note:`` naming the file it opens (:attr:`LoadedSession.outside`). A file that
  changed since the session was saved (size or modification time; the command does not read
  whole files to compare hashes) is a ``note:`` on stderr, and the run goes on.
- ``--bookmark NAME`` prints a bookmark's values, decoded with the bookmark's parameters (the
  session's when it has none), command-line options still overriding: an *element* prints its
  index, value and bytes (``[1, 2] = 6   byte 6 (0x6) of data.bin``, the status bar's
  wording); a *region* prints its slice like a plain run; *bytes* print the bytes in hex and
  the values of the elements they hold (just the hex when they cannot be decoded); a byte range
  not inside its file is an ``error:`` naming the range and the file's size. A name the
  session does not have lists the closest names (:func:`core.text.names.closest_names`).
- ``--guess`` and ``--list`` take files, not a session.

:mod:`core.cli.show` calls :func:`plan_session` and, for element and byte bookmarks,
:func:`bookmark_pieces`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from core.dtypes.table import engine_name
from core.errors import SessionError, describe_error
from core.files.sources import Source
from core.pipeline.pipeline import DecodeParams, PipelineResult
from core.pipeline.view_as import no_tensor_buffer_error, view_as_target
from core.session.bookmark import Bookmark
from core.session.loading import load_session
from core.session.placement import plain_slice_text
from core.text.names import closest_names, printable_name, short_name
from core.text.number_format import json_value, value_formatter
from core.tflite.conversions import convert_array

__all__ = ["SessionPlan", "add_session_options", "plan_session", "bookmark_pieces"]

#: Bytes of a bytes bookmark looked at for the elements they hold (the hex shows --limit bytes).
_BYTES_SCANNED = 4096
_LAYOUT_FIELDS = ("offset", "length", "record_size")


def add_session_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--session`` and ``--bookmark`` to the plain command's parser."""
    group = parser.add_argument_group("sessions (docs/sessions.md)")
    group.add_argument("--session", metavar="S.json",
                       help="run a saved session's view (its files, layout and slice); FILEs "
                            "given too get the session's layout; options given override it")
    group.add_argument("--bookmark", metavar="NAME",
                       help="with --session: print this bookmark's values (an element with its "
                            "bytes, a region, or a byte range in hex with its values)")


@dataclass(frozen=True)
class SessionPlan:
    """What the plain command runs for a session: the files, parameters, tensor, slice and
    view-as type, the bookmark to print (None: the whole view), and notes for stderr."""

    files: tuple[str, ...]
    params: DecodeParams
    tensor: str | None
    slice_text: str | None
    view_as: str | None
    bookmark: Bookmark | None
    notes: tuple[str, ...]


def _merged(base: DecodeParams, explicit: DecodeParams, tf_only: bool) -> DecodeParams:
    """``base`` with every field set in ``explicit`` (not None) replacing it."""
    changes = {f.name: getattr(explicit, f.name) for f in dataclasses.fields(DecodeParams)
               if f.name != "extended_types" and getattr(explicit, f.name) is not None}
    if any(name in changes for name in _LAYOUT_FIELDS):
        changes.setdefault("elements", None)
    if tf_only:
        changes["extended_types"] = False
    return dataclasses.replace(base, **changes)


def _find_bookmark(bookmarks: tuple[Bookmark, ...], name: str, session_name: str) -> Bookmark:
    for mark in bookmarks:
        if mark.name == name:
            return mark
    names = [mark.name for mark in bookmarks]
    close = closest_names(name, names)
    if close:
        hint = "closest: " + ", ".join(short_name(n) for n in close)
    elif names:
        hint = "its bookmarks: " + ", ".join(short_name(n) for n in names[:10]) + (" ..." if len(names) > 10 else "")
    else:
        hint = "it has no bookmarks"
    raise SessionError(f"{session_name} has no bookmark named {short_name(name)} ({hint})", field="bookmark")


def plan_session(args: argparse.Namespace, explicit: DecodeParams, explicit_slice: str | None,
                 explicit_view_as: str | None) -> SessionPlan:
    """What to run for ``--session`` (module rules), from the parsed options.

    Raises
    ------
    SessionError
        The session cannot be loaded (:func:`core.session.loading.load_session`), a file it
        names is missing and no FILE was given, ``--bookmark`` names no bookmark, options that
        do not combine (``--guess`` / ``--list`` with ``--session``, ``--slice`` with an
        element or bytes bookmark).
    """
    if args.guess or args.list:
        raise SessionError("--guess and --list take files, not a session (give the file instead "
                           "of --session)", field="session")
    session_name = f"session '{printable_name(args.session)}'"
    loaded = load_session(args.session, check_hashes=False)
    session = loaded.session
    notes = [f"{session_name}: {note}" for note in loaded.notes]
    if args.files:
        files = tuple(args.files)
    else:
        if loaded.missing:
            first = session.files[loaded.missing[0]].path
            others = len(loaded.missing) - 1
            more = f" (and {others} other file{'s' if others != 1 else ''})" if others else ""
            raise SessionError(
                f"the file '{printable_name(first)}' of {session_name} is missing{more}: it was moved "
                f"or deleted (give its new place: tensor-inspect --session {printable_name(args.session)} "
                "NEWPATH)", field="files")
        files = tuple(f.path for f in session.files)
        notes += [change.message for change in loaded.changed]
        notes += [f"{session_name}: {outside}" for outside in loaded.outside]
    bookmark = None
    base, tensor, slice_text = session.params, session.tensor, session.slice_text
    if args.bookmark is not None:
        bookmark = _find_bookmark(session.bookmarks, args.bookmark, session_name)
        if bookmark.params is not None:
            base, tensor = bookmark.params, bookmark.tensor
        slice_text = bookmark.slice_text if bookmark.kind != "bytes" else ""
        if explicit_slice is not None and bookmark.kind != "region":
            raise SessionError(f"--slice cannot be combined with the {bookmark.kind} bookmark "
                               f"{bookmark.name!r} (its place is in the bookmark; leave --slice out)",
                               field="slice")
    if args.tensor is not None:
        tensor = args.tensor
    params = _merged(base, explicit, tf_only=not args.extended_types)
    view_as = explicit_view_as if explicit_view_as is not None else params.view_as
    chosen_slice = explicit_slice if explicit_slice is not None else plain_slice_text(slice_text)
    return SessionPlan(files, params, tensor, chosen_slice, view_as, bookmark, tuple(notes))


# -- element and byte bookmarks -----------------------------------------------------------------
def _read_values(result: PipelineResult, indices: list[tuple[int, ...]], view_as: str | None) -> np.ndarray:
    """The values of ``result.view`` at ``indices`` (read with pread), native, converted."""
    view = result.view
    reader = result.block_reader()
    blocks = [reader.read(view[tuple(slice(i, i + 1) for i in index) if index else ...]).reshape(-1)
              for index in indices]
    values = np.concatenate(blocks) if blocks else np.empty(0, view.dtype)
    if view_as is not None:
        if result.buffer is None:
            raise no_tensor_buffer_error(engine_name(view.dtype), view_as)
        return convert_array(values, result.buffer.data_type, view_as_target(view_as))
    if values.dtype.itemsize > 1 and not values.dtype.isnative:
        values = values.astype(values.dtype.newbyteorder("="))
    return values


def _where(result: PipelineResult, index: tuple[int, ...], paths: tuple[str, ...]) -> tuple[dict, str]:
    file_index, offset, nbytes = result.byte_offset(index)
    nibble = result.nibble(index)
    name = printable_name(paths[file_index]) if file_index < len(paths) else f"file {file_index}"
    text = f"bytes {offset}..{offset + nbytes - 1}" if nbytes > 1 else f"byte {offset}"
    if nibble is not None:
        text += f" {nibble} nibble"
    facts = {"file": paths[file_index] if file_index < len(paths) else None, "byte_offset": offset,
             "nbytes": nbytes, "nibble": nibble}
    return facts, f"{text} (0x{offset:x}) of {name}"


def _dtype_text(result: PipelineResult, values: np.ndarray, view_as: str | None) -> str:
    """The printed values' type, with the file's byte order as the plain command writes it."""
    name = engine_name(values.dtype)
    if view_as is not None or values.dtype.itemsize == 1:
        return name
    return f"{name} ({'little' if result.params.little_endian else 'big'}-endian)"


def _check_index(mark: Bookmark, view: np.ndarray) -> tuple[int, ...]:
    index = mark.index or ()
    if len(index) != view.ndim or any(not 0 <= i < n for i, n in zip(index, view.shape)):
        raise SessionError(
            f"bookmark {mark.name!r} marks element {list(index)}, which the view of shape "
            f"{tuple(view.shape)} does not have (the layout differs from the bookmark's: check "
            "--shape and the bookmark's slice)", field="bookmark")
    return index


def _element_pieces(result: PipelineResult, mark: Bookmark, paths: tuple[str, ...], as_json: bool,
                    view_as: str | None) -> Iterator[str]:
    index = _check_index(mark, result.view)
    value = _read_values(result, [index], view_as)
    facts, where = _where(result, index, paths)
    if as_json:
        yield json.dumps({"bookmark": mark.name, "kind": mark.kind, "index": list(index),
                          "dtype": engine_name(value.dtype), "value": json_value(value[0], value.dtype),
                          **facts, "note": mark.note}) + "\n"
        return
    text = value_formatter(value.dtype)(value[0])
    yield f"bookmark: {mark.name} (element)\ndtype: {_dtype_text(result, value, view_as)}\n"
    yield f"[{', '.join(map(str, index))}] = {text}   {where}\n"
    if mark.note:
        yield f"note: {mark.note}\n"


def _bytes_pieces(result: PipelineResult | None, problem: str | None, source: Source, mark: Bookmark,
                  paths: tuple[str, ...], as_json: bool, limit: int, view_as: str | None) -> Iterator[str]:
    start, length = mark.byte_range  # type: ignore[misc]
    if mark.file_index >= len(paths):
        raise SessionError(f"bookmark {mark.name!r} marks bytes of file {mark.file_index + 1}, but "
                           f"{len(paths)} file{'s are' if len(paths) != 1 else ' is'} open (give that "
                           "file too)", field="bookmark")
    size = source.files[mark.file_index].size
    if start + length > size:
        raise SessionError(
            f"bookmark {mark.name!r} marks bytes {start:,}..{start + length - 1:,}, but "
            f"'{printable_name(paths[mark.file_index])}' has {size:,} bytes"
            f"{f' (bytes 0..{size - 1:,})' if size else ''}: the range is not in this file (the "
            "bookmark was made for another file, or the file shrank: give the file it was made for)",
            field="bookmark")
    data = source.bytes_at(mark.file_index, start, min(length, max(limit, 0)))
    indices: list[tuple[int, ...]] = []
    if result is not None:
        for offset in range(start, start + min(length, _BYTES_SCANNED)):
            index = result.element_at_byte(mark.file_index, offset)
            if index is not None and (not indices or indices[-1] != index) and index not in indices:
                indices.append(index)
    values = _read_values(result, indices, view_as) if indices else None
    name = printable_name(paths[mark.file_index])
    if as_json:
        listed = [] if values is None else [
            {"index": list(i), "value": json_value(v, values.dtype)} for i, v in zip(indices, values)]
        yield json.dumps({"bookmark": mark.name, "kind": mark.kind, "file": paths[mark.file_index],
                          "start": start, "length": length, "hex": data.hex(" "),
                          "truncated": len(data) < length,
                          "dtype": None if values is None else engine_name(values.dtype),
                          "values": listed, "problem": problem, "note": mark.note}) + "\n"
        return
    shown = f"{len(data)} of {length} bytes shown (--limit)" if len(data) < length else f"{length} bytes"
    yield f"bookmark: {mark.name} (bytes)\nbytes {start}..{start + length - 1} (0x{start:x}, {shown}) of {name}\n"
    yield data.hex(" ") + ("  ..." if len(data) < length else "") + "\n"
    if values is not None:
        text_of = value_formatter(values.dtype)
        yield f"values as {_dtype_text(result, values, view_as)}:\n"  # type: ignore[arg-type]
        yield "".join(f"[{', '.join(map(str, i))}] = {text_of(v)}\n" for i, v in zip(indices, values))
    elif problem is not None:
        yield f"values: none ({problem})\n"
    else:
        yield "values: none (no element of the view holds these bytes)\n"
    if mark.note:
        yield f"note: {mark.note}\n"


def bookmark_pieces(result: PipelineResult | None, problem: BaseException | None, source: Source,
                    mark: Bookmark, as_json: bool, limit: int, view_as: str | None) -> Iterator[str]:
    """The output of ``--bookmark`` for an element or bytes bookmark (module rules), in pieces.

    ``result`` is the pipeline run with the bookmark's parameters (no view-as: ``view_as``
    converts the printed values); for a bytes bookmark it may be None, ``problem`` saying why
    the bytes could not be decoded (just the hex is printed then).

    Raises
    ------
    SessionError
        The element is not in the view; the bytes are in a file that is not open.
    SourceError
        A file shrank while it was read.
    """
    paths = tuple(source.paths)
    if mark.kind == "element":
        if result is None:
            raise problem if problem is not None else SessionError("nothing to show", field="bookmark")
        yield from _element_pieces(result, mark, paths, as_json, view_as)
    else:
        reason = describe_error(problem).message if problem is not None else None
        yield from _bytes_pieces(result, reason, source, mark, paths, as_json, limit, view_as)

