"""The session file's JSON document, both ways, and :func:`save_session` (docs/sessions.md).

Rules
-----
- The document is an object with, in this order: ``format`` (always
  ``"tensor-inspector-session"``), ``version`` (1), ``files``, ``params``, ``tensor`` (only when
  set), ``slice_text``, ``display``, ``comparison`` (only when set), ``bookmarks`` and
  ``records`` (only when set: the first file shown as records, ``{"kind", "text", "struct",
  "abi", "header", "little_endian", "rows"}``, docs/records.md). It is
  written indented by 2, a list of numbers or texts on one line, UTF-8, ending with a newline.
- A file's path is written relative to the session file's folder (with ``/``) when the file is in
  that folder or below it, else absolute; so a folder holding a session and its data can be
  moved or shared whole. Reading resolves a relative path against the session file's folder.
- Reading checks every field (:mod:`core.session.json_fields`), requires ``format``,
  ``version``, ``files`` (1 to :data:`MAX_FILES`) and ``params``, and refuses more than
  :data:`MAX_BOOKMARKS` bookmarks and a bookmark of a file index the session does not have.
- :func:`save_session` checks the document by reading it back before writing (a session that
  could not be loaded is never written), writes atomically (a temporary file in the same
  folder, then ``os.replace``) and refuses to write over any file the session inspects (A's or
  B's, through any link) or over something that is not a regular file.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from pathlib import PurePath

from core.errors import CoreError, ExportError, SessionError
from core.files.output import write_atomically
from core.files.remote import is_url
from core.pipeline.pipeline import DecodeParams
from core.records.abi import DEFAULT_ABI
from core.records.c_decl import MAX_HEADER_BYTES
from core.records.choice import RecordsChoice
from core.session.bookmark import Bookmark
from core.session.json_fields import (
    MAX_INT,
    MAX_PATH,
    MAX_TEXT,
    JsonObject,
    check_int,
    check_list,
    check_str,
    params_from_json,
    params_to_json,
)
from core.session.records import (
    COMPARISON_QUANTITIES,
    MAX_SESSION_BYTES,
    NAN_POLICIES,
    SESSION_FORMAT,
    SESSION_VERSION,
    Session,
    SessionFile,
    capture_file,
    check_display,
)

__all__ = ["MAX_FILES", "MAX_BOOKMARKS", "stored_path", "readable_json", "session_json",
           "session_from_json", "comparison_paths", "save_session"]

#: Files (A's, and B's in a comparison) one session may name.
MAX_FILES = 100_000
#: Bookmarks one session may hold.
MAX_BOOKMARKS = 10_000

_FIX = "(fix the session file by hand, or save the session again)"
_COMPARISON_DEFAULTS: dict[str, object] = {"rtol": None, "atol": None, "ulp": None, "bitwise": False,
                                           "nan_policy": "equal", "shift": 0, "quantity": "abs"}


# -- writing --------------------------------------------------------------------------------------
def stored_path(path: str, base: str) -> str:
    """How a file's path is written in a session file in folder ``base``: relative (``/``
    separators) when the file is in ``base`` or below it, else absolute; a URL as it is."""
    if is_url(path):
        return path
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute, base)
    except ValueError:  # another drive (Windows)
        return absolute
    if relative == os.pardir or relative.startswith(os.pardir + os.sep) or os.path.isabs(relative):
        return absolute
    return PurePath(relative).as_posix()


def _file_json(record: SessionFile, base: str) -> dict[str, object]:
    out: dict[str, object] = {"path": stored_path(record.path, base), "size": record.size,
                              "mtime_ns": record.mtime_ns}
    if record.sha256 is not None:
        out["sha256"] = record.sha256
    return out


def comparison_paths(comparison: dict | None) -> list[str]:
    """The paths of B's files in a comparison dict (SessionFile values or paths)."""
    if not comparison:
        return []
    return [f.path if isinstance(f, SessionFile) else os.fspath(f) for f in comparison.get("files", ())]


def _comparison_json(comparison: dict, base: str) -> dict[str, object]:
    files = [f if isinstance(f, SessionFile) else capture_file(f) for f in comparison.get("files", ())]
    out: dict[str, object] = {"files": [_file_json(f, base) for f in files]}
    overrides = dict(comparison.get("overrides") or {})
    if overrides:
        try:
            encoded = params_to_json(DecodeParams(**overrides))
        except TypeError as error:
            raise SessionError(f"comparison.overrides: {error} (use DecodeParams field names)",
                               field="session") from None
        out["overrides"] = {f.name: encoded.get(f.name) for f in dataclasses.fields(DecodeParams)
                            if f.name in overrides}
    for key, default in _COMPARISON_DEFAULTS.items():
        out[key] = comparison.get(key, default)
    return out


def readable_json(value: object, level: int = 0) -> str:
    """JSON text of ``value`` indented by 2, with each list of scalars on one line.

    Raises
    ------
    ValueError
        NaN or an infinity (JSON has none). ``TypeError``: a value that is not JSON.
    """
    inner, outer = "  " * (level + 1), "  " * level
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(str(k), ensure_ascii=False)}: {readable_json(v, level + 1)}"
                 for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{outer}}}"
    if isinstance(value, (list, tuple)) and any(isinstance(v, (dict, list, tuple)) for v in value):
        items = [f"{inner}{readable_json(v, level + 1)}" for v in value]
        return "[\n" + ",\n".join(items) + f"\n{outer}]"
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))


def session_json(session: Session, base: str) -> dict[str, object]:
    """The JSON document of ``session`` for a session file in folder ``base``."""
    out: dict[str, object] = {
        "format": SESSION_FORMAT,
        "version": SESSION_VERSION,
        "files": [_file_json(f, base) for f in session.files],
        "params": params_to_json(session.params),
    }
    if session.tensor is not None:
        out["tensor"] = session.tensor
    out["slice_text"] = session.slice_text
    out["display"] = dict(session.display)
    if session.comparison is not None:
        out["comparison"] = _comparison_json(session.comparison, base)
    out["bookmarks"] = [mark.to_json() for mark in session.bookmarks]
    if session.records is not None:
        out["records"] = session.records.to_json()
    return out


def save_session(session: Session, path: str) -> None:
    """Write ``session`` to ``path`` as JSON (module rules), atomically.

    Raises
    ------
    SessionError
        ``path`` is one of the files the session inspects (A's or B's), a directory, FIFO or
        device, or cannot be written (the message names the cause); the session has no file;
        a value the reader would refuse (the message names the field, e.g. a NaN tolerance); the
        document would be larger than :data:`MAX_SESSION_BYTES`. On failure an existing file
        at ``path`` is left untouched.
    """
    path = os.fspath(path)
    base = os.path.dirname(os.path.abspath(path))
    document = session_json(session, base)
    try:
        text = readable_json(document) + "\n"
    except (TypeError, ValueError) as error:
        raise SessionError(f"The session cannot be written as JSON: {error} (use numbers, texts "
                           "and lists only)", field="session") from None
    session_from_json(json.loads(text), base)  # never write what could not be read back
    data = text.encode("utf-8")
    if len(data) > MAX_SESSION_BYTES:
        raise SessionError(f"The session would be {len(data):,} bytes, more than the "
                           f"{MAX_SESSION_BYTES:,} a session file may be (fewer bookmarks or files)",
                           field="session")
    inspected = [f.path for f in session.files] + comparison_paths(session.comparison)
    try:
        write_atomically(path, lambda out: out.write(data), inspected)
    except ExportError as error:
        raise SessionError(error.message, field="session") from None


# -- reading --------------------------------------------------------------------------------------
def _resolved(path: str, base: str) -> str:
    if is_url(path):
        return path
    return os.path.normpath(os.path.join(base, path))  # an absolute path stays itself


def _files_from_json(value: object, where: str, base: str, notes: list[str], minimum: int) -> tuple[SessionFile, ...]:
    items = check_list(value, where, MAX_FILES)
    if len(items) < minimum:
        raise SessionError(f"{where} is empty: a session names at least one file {_FIX}", field="session")
    files = []
    for i, item in enumerate(items):
        obj = JsonObject(item, f"{where}[{i}]", notes)
        path = obj.get("path", check_str, limit=MAX_PATH)
        if not path:
            raise SessionError(f"{obj.place('path')} is empty {_FIX}", field="session")
        sha = obj.get("sha256", check_str, None, nullable=True)
        record = SessionFile(
            path=_resolved(path, base),
            size=obj.get("size", check_int),
            mtime_ns=obj.get("mtime_ns", check_int, minimum=-MAX_INT),
            sha256=None if sha is None else sha.lower(),
        )
        obj.finish()
        files.append(record)
    return tuple(files)


def _number(value: object, where: str, field: str = "session") -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0 or abs(value) > MAX_INT:
        raise SessionError(f"{where} must be a finite number >= 0 or null {_FIX}", field=field)
    return float(value)


def _records_from_json(value: object, notes: list[str]) -> RecordsChoice:
    """``records``: a :class:`~core.records.choice.RecordsChoice` (module rules)."""
    obj = JsonObject(value, "records", notes)
    kind = obj.get("kind", check_str)
    text = obj.get("text", check_str, limit=MAX_HEADER_BYTES)
    struct = obj.get("struct", check_str, "")
    abi = obj.get("abi", check_str, DEFAULT_ABI)
    header = obj.get("header", check_int, 0)
    little = obj.get_bool("little_endian", True)
    rows = obj.get("rows", check_str, "", limit=MAX_TEXT)
    header_struct = obj.get("header_struct", check_str, "")
    length = obj.get("length", check_int, None, nullable=True)
    obj.finish()
    try:
        return RecordsChoice(kind, text, struct, abi, header, little, rows, header_struct, length)
    except CoreError as error:
        raise SessionError(f"records: {error.message} {_FIX}", field="session") from None


def _comparison_from_json(value: object, base: str, notes: list[str], file_budget: int) -> dict:
    obj = JsonObject(value, "comparison", notes)
    out: dict[str, object] = {"files": _files_from_json(obj.value("files"), "comparison.files", base,
                                                        notes, 1)}
    if len(out["files"]) > file_budget:  # type: ignore[arg-type]
        raise SessionError(f"the session names more than {MAX_FILES:,} files {_FIX}", field="session")
    raw_overrides = obj.value("overrides", None)
    overrides: dict[str, object] = {}
    if raw_overrides is not None:
        parsed = params_from_json(raw_overrides, "comparison.overrides", notes)
        overrides = {f.name: getattr(parsed, f.name) for f in dataclasses.fields(DecodeParams)
                     if f.name in raw_overrides}  # type: ignore[operator]
    out["overrides"] = overrides
    out["rtol"] = obj.get("rtol", _number, None, nullable=True)
    out["atol"] = obj.get("atol", _number, None, nullable=True)
    out["ulp"] = obj.get("ulp", check_int, None, nullable=True)
    out["bitwise"] = obj.get_bool("bitwise", False)
    out["shift"] = obj.get("shift", check_int, 0, minimum=-MAX_INT)
    for key, choices in (("nan_policy", NAN_POLICIES), ("quantity", COMPARISON_QUANTITIES)):
        text = obj.get(key, check_str, _COMPARISON_DEFAULTS[key])
        if text not in choices:
            raise SessionError(f"comparison.{key} is {text!r:.40}: use one of {', '.join(choices)} {_FIX}",
                               field="session")
        out[key] = text
    obj.finish()
    return out


def session_from_json(document: object, base: str, notes: list[str] | None = None) -> Session:
    """The :class:`Session` a parsed document describes; relative paths are resolved in ``base``.

    Raises
    ------
    SessionError
        Any field of the wrong type or range (named by its place, e.g. ``bookmarks[2].index``),
        a wrong ``format``, a ``version`` newer than :data:`SESSION_VERSION` (the message says
        to update), too many files or bookmarks, a bookmark of a file the session does not have.
    """
    notes = [] if notes is None else notes
    root = JsonObject(document, "", notes)
    if not isinstance(root.data.get("format"), str) or root.data["format"] != SESSION_FORMAT:
        found = root.data.get("format")
        raise SessionError(f"it is not a tensor-inspector session (its \"format\" is {found!r:.60}, "
                           f"not \"{SESSION_FORMAT}\") (open a file saved with Save Session)",
                           field="session")
    root.value("format")
    version = root.get("version", check_int, minimum=1)
    if version > SESSION_VERSION:
        raise SessionError(f"it was made by a newer tensor-inspector (version {version}); this one "
                           f"reads version {SESSION_VERSION}: update tensor-inspector to open it",
                           field="session")
    files = _files_from_json(root.value("files"), "files", base, notes, 1)
    params = params_from_json(root.value("params"), "params", notes)
    tensor = root.get("tensor", check_str, None, nullable=True, limit=MAX_TEXT)
    slice_text = root.get("slice_text", check_str, "", limit=MAX_TEXT)
    display = check_display(root.value("display", {}), "display")
    comparison = root.value("comparison", None)
    if comparison is not None:
        comparison = _comparison_from_json(comparison, base, notes, MAX_FILES - len(files))
    marks = check_list(root.value("bookmarks", []), "bookmarks", MAX_BOOKMARKS)
    bookmarks = tuple(Bookmark.from_json(m, f"bookmarks[{i}]", notes) for i, m in enumerate(marks))
    for i, mark in enumerate(bookmarks):
        if mark.file_index >= len(files):
            raise SessionError(f"bookmarks[{i}] ({mark.name!r:.60}) marks file index {mark.file_index}, "
                               f"but the session has {len(files)} file{'s' if len(files) != 1 else ''} "
                               f"{_FIX}", field="bookmark")
    records = root.value("records", None)
    records = None if records is None else _records_from_json(records, notes)
    root.finish()
    try:
        return Session(files=files, params=params, tensor=tensor, slice_text=slice_text,
                       display=display, comparison=comparison, bookmarks=bookmarks, records=records,
                       version=version)
    except CoreError as error:
        raise SessionError(error.message, field="session") from None
