"""Loading a session file: hostile input refused with one clear message, files found or flagged.

Rules
-----
- The session file must be a regular file (a directory, FIFO, device or a file in ``/proc``,
  ``/sys``, ``/dev`` is refused after ``stat``, unopened) of at most
  :data:`~core.session.records.MAX_SESSION_BYTES` (16 MiB): a larger one is refused from its
  size, before it is read.
- The text must be UTF-8 JSON whose nesting (objects and lists inside each other) is at most
  :data:`MAX_NESTING` deep, checked on the text before parsing, so a deeply nested file never
  reaches the parser's recursion. Numbers have at most :data:`MAX_NUMBER_DIGITS` digits (so
  ``10**400`` is refused, not parsed), ``NaN``/``Infinity`` are refused, and so is a key that
  appears twice in one object. Nothing is evaluated or unpickled: JSON values only.
- Every field is then checked (:mod:`core.session.document`); unknown keys are ignored and
  listed in :attr:`LoadedSession.notes`.
- Each file the session names is looked at with ``stat`` only: missing ones are listed in
  :attr:`LoadedSession.missing`, and one that is not a regular file (a directory, FIFO, device,
  a file in ``/proc``, ``/sys`` or ``/dev``) refuses the whole session; nothing is opened.
- A file has *changed* when its size differs, or, without a stored SHA-256, its modification
  time differs. With a stored SHA-256 and the same size the hash decides (it costs one read of
  the whole file; ``check_hashes=False`` skips it and falls back to the time): a copy of the
  same bytes with a new time is unchanged.
- A file outside the session's folder is reported, never silently opened: a relative path
  that climbs out (``../../etc/hostname``: :func:`core.session.document.save_session` never
  writes one) and an absolute path elsewhere (a session saved for data in another folder, or
  written by hand) each give one line in :attr:`LoadedSession.outside` naming the file it
  opens, resolved through links (``os.path.realpath``), for A's files and B's. The command
  prints them as ``note:`` lines, the window in its banner.
- Loading never writes anything.
"""

from __future__ import annotations

import codecs
import dataclasses
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from core.errors import SessionError, SourceError, describe_error
from core.files.checked_read import file_sha256, read_capped, regular_file_stat
from core.files.locations import file_size
from core.files.remote import is_url
from core.session.document import session_from_json
from core.session.records import MAX_SESSION_BYTES, Session, SessionFile
from core.text.names import printable_name

__all__ = ["MAX_NESTING", "MAX_NUMBER_DIGITS", "FileChangeNote", "LoadedSession", "load_session",
           "parse_session_text"]

#: Deepest nesting of objects and lists accepted (a session needs 5).
MAX_NESTING = 32
#: Most digits in one number (2**63 has 19).
MAX_NUMBER_DIGITS = 24

_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


@dataclass(frozen=True)
class FileChangeNote:
    """A session file that differs from its record.

    Attributes
    ----------
    index
        Its index in ``session.files``.
    what
        ``"size"``, ``"hash"`` (same size, other content) or ``"mtime"`` (same size, other time,
        no hash stored).
    message
        One line for the user, naming the file.
    """

    index: int
    what: str
    message: str


_BRACKET_STEPS = np.zeros(256, dtype=np.int8)
_BRACKET_STEPS[[ord("["), ord("{")]] = 1
_BRACKET_STEPS[[ord("]"), ord("}")]] = -1
_DEPTH_CHUNK = 1 << 20


def nesting_depth(data: bytes) -> int:
    """The deepest nesting of ``[``/``{`` in JSON text, strings skipped (linear, no recursion,
    memory a few times :data:`_DEPTH_CHUNK` bytes beyond the text)."""
    codes = np.frombuffer(_STRINGS.sub(b'""', data), dtype=np.uint8)
    deepest = depth = 0
    for start in range(0, codes.size, _DEPTH_CHUNK):
        running = np.cumsum(_BRACKET_STEPS[codes[start:start + _DEPTH_CHUNK]], dtype=np.int64) + depth
        deepest = max(deepest, int(running.max(initial=0)))
        depth = int(running[-1])
    return deepest


def _refuse_constant(name: str) -> object:
    raise ValueError(f"{name} is not a number a session may hold")


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number of {len(text.lstrip('-'))} digits is too large")
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > 3 * MAX_NUMBER_DIGITS:
        raise ValueError(f"the number {text[:20]}... is too long")
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:20]} is too large")
    return value


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key[:60]!r} appears twice in one object")
        out[key] = value
    return out


def parse_session_text(data: bytes) -> object:
    """JSON ``data`` parsed under the module's rules (nesting, numbers, duplicate keys).

    Raises
    ------
    SessionError
        Not UTF-8, nested too deeply, not JSON (line and column), a number too large or not
        finite, a duplicate key.
    """
    try:
        text = codecs.decode(data, "utf-8-sig")
    except UnicodeDecodeError as error:
        raise SessionError(f"it is not UTF-8 text (byte {error.start}); it is not a session file "
                           "(open a file saved with Save Session)", field="session") from None
    depth = nesting_depth(data)
    if depth > MAX_NESTING:
        raise SessionError(f"its JSON is nested {depth} levels deep, more than the {MAX_NESTING} a "
                           "session may be; it was not parsed (it is not a session file)", field="session")
    try:
        return json.loads(text, parse_int=_parse_int, parse_float=_parse_float,
                          parse_constant=_refuse_constant, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as error:
        raise SessionError(f"it is not JSON: {error.msg} at line {error.lineno}, column {error.colno} "
                           "(open a file saved with Save Session, or fix it there)", field="session") from None
    except (ValueError, RecursionError) as error:
        raise SessionError(f"it is not a usable session: {error} (fix the session file by hand, or "
                           "save the session again)", field="session") from None


def _change(index: int, record: SessionFile, check_hashes: bool,
            progress: Callable[[int], None] | None = None) -> FileChangeNote | None:
    """How the file at ``record.path`` differs from ``record`` (it exists), or None
    (``progress``: :func:`~core.files.checked_read.file_sha256`'s)."""
    name = f"'{printable_name(record.path)}'"
    info = os.stat(record.path)
    if info.st_size != record.size:
        return FileChangeNote(index, "size", f"{name} changed since the session was saved: "
                              f"{record.size:,} bytes then, {info.st_size:,} now")
    if record.sha256 is not None and check_hashes:
        if file_sha256(record.path, progress=progress) != record.sha256:
            return FileChangeNote(index, "hash", f"{name} changed since the session was saved: "
                                  "same size, other content (its SHA-256 differs)")
        return None
    if info.st_mtime_ns != record.mtime_ns:
        return FileChangeNote(index, "mtime", f"{name} was modified since the session was saved "
                              "(same size, another modification time; the content may differ)")
    return None


def _check_files(files: tuple[SessionFile, ...], where: str, check_hashes: bool,
                 indices: range | list[int] | None = None) -> tuple[tuple[int, ...], tuple[FileChangeNote, ...]]:
    """(missing indices, change notes) of ``files``; refuses a file that is not a regular file."""
    missing, changed = [], []
    for i in range(len(files)) if indices is None else indices:
        record = files[i]
        if is_url(record.path):
            size = file_size(record.path)
            if size is None:
                missing.append(i)
            elif size != record.size:
                changed.append(FileChangeNote(i, "size", f"'{printable_name(record.path)}' changed since the "
                                              f"session was saved: {record.size:,} bytes then, {size:,} now"))
            continue
        try:
            regular_file_stat(record.path)
            note = _change(i, record, check_hashes)
        except (FileNotFoundError, NotADirectoryError):
            missing.append(i)
            continue
        except SourceError as error:
            raise SessionError(f"{where}[{i}]: {error.message}", field="session") from None
        except OSError as error:
            raise SessionError(f"{where}[{i}]: '{printable_name(record.path)}' cannot be checked: "
                               f"{error.strerror or error} (check the file)", field="session") from None
        if note is not None:
            changed.append(note)
    return tuple(missing), tuple(changed)


@dataclass(frozen=True)
class LoadedSession:
    """A session as loaded, with what the files on disk say about it.

    Attributes
    ----------
    session
        The session, paths resolved to absolute.
    missing
        Indices in ``session.files`` of the files not found.
    changed
        The files that differ from their record (module rules).
    notes
        One line per thing ignored (unknown keys).
    comparison_missing, comparison_changed
        The same for B's files (``session.comparison["files"]``).
    outside
        One line per file (A's or B's) outside the session's folder (module rules).
    path
        The session file.
    check_hashes
        Whether stored hashes were checked.
    """

    session: Session
    missing: tuple[int, ...] = ()
    changed: tuple[FileChangeNote, ...] = ()
    notes: tuple[str, ...] = ()
    comparison_missing: tuple[int, ...] = ()
    comparison_changed: tuple[FileChangeNote, ...] = ()
    path: str = ""
    check_hashes: bool = True
    outside: tuple[str, ...] = ()

    def hashes_to_check(self) -> tuple[int, int]:
        """``(files, bytes)`` a :meth:`with_hashes_checked` would hash: the files found whose
        record has a SHA-256 and whose size is still the recorded one (``(0, 0)``: none, or
        hashes already checked)."""
        if self.check_hashes:
            return 0, 0
        todo = [r for _i, r in self._hashable()]
        return len(todo), sum(r.size for r in todo)

    def _hashable(self) -> list[tuple[int, SessionFile]]:
        """``(index into all files, A's then B's, record)`` of the files to hash."""
        b_files = tuple(self.session.comparison["files"]) if self.session.comparison is not None else ()
        found = []
        for offset, files, missing in ((0, self.session.files, self.missing),
                                       (len(self.session.files), b_files, self.comparison_missing)):
            for i, record in enumerate(files):
                if isinstance(record, SessionFile) and record.sha256 is not None and i not in missing \
                        and not any(n.index == i and n.what == "size"
                                    for n in (self.changed if offset == 0 else self.comparison_changed)):
                    found.append((offset + i, record))
        return found

    def with_hashes_checked(self, progress: Callable[[int, int], None] | None = None) -> LoadedSession:
        """This session as :func:`load_session` with ``check_hashes=True`` would have loaded
        it: the files :meth:`hashes_to_check` names are hashed (one sequential read each), their
        notes replaced by the verdict. ``progress(bytes_hashed, total)`` is called after each
        block and may raise to stop (:class:`core.errors.Cancelled`). For a window that opens the
        session at once and checks the content on a worker thread.

        Raises
        ------
        SessionError
            A file cannot be read any more.
        """
        todo = self._hashable()
        total, before = sum(r.size for _i, r in todo), 0
        a_count = len(self.session.files)
        changed, b_changed = list(self.changed), list(self.comparison_changed)
        for index, record in todo:
            local = index if index < a_count else index - a_count
            notes = changed if index < a_count else b_changed
            where = "files" if index < a_count else "comparison.files"
            report = None if progress is None else (lambda n, b=before: progress(b + n, total))
            try:
                note = _change(local, record, True, report)
            except (FileNotFoundError, NotADirectoryError, SourceError, OSError) as error:
                raise SessionError(f"{where}[{local}]: '{printable_name(record.path)}' cannot be checked: "
                                   f"{describe_error(error).message} (check the file)", field="session") from None
            before += record.size
            notes[:] = [n for n in notes if n.index != local] + ([note] if note is not None else [])
        return dataclasses.replace(
            self, changed=tuple(sorted(changed, key=lambda n: n.index)),
            comparison_changed=tuple(sorted(b_changed, key=lambda n: n.index)), check_hashes=True)

    def with_located(self, index: int, new_path: str) -> LoadedSession:
        """The user found file ``index`` at ``new_path``: use it there (its record is kept, so a
        file that also changed is flagged).

        Other missing files are looked for at the same place relative to the new one as they
        were to the old one (a moved folder is asked for once): each one found there is located
        too.

        Raises
        ------
        SessionError
            ``index`` is not a file of the session; ``new_path`` does not exist or is not a
            regular file.
        """
        files = list(self.session.files)
        if not 0 <= index < len(files):
            raise SessionError(f"the session has no file {index} (it has {len(files)})", field="session")
        new_path = os.path.abspath(os.fspath(new_path))
        try:
            regular_file_stat(new_path)
        except (FileNotFoundError, NotADirectoryError):
            raise SessionError(f"'{printable_name(new_path)}' does not exist (choose the file where "
                               "it is now)", field="session") from None
        except SourceError as error:
            raise SessionError(error.message, field="session") from None
        old_folder = os.path.dirname(files[index].path)
        located = [index]
        files[index] = dataclasses.replace(files[index], path=new_path)
        for other in self.missing:
            if other == index:
                continue
            candidate = os.path.normpath(os.path.join(
                os.path.dirname(new_path), os.path.relpath(files[other].path, old_folder)))
            if _usable(candidate):
                files[other] = dataclasses.replace(files[other], path=candidate)
                located.append(other)
        files_now = tuple(files)
        _missing, changed = _check_files(files_now, "files", self.check_hashes, located)
        still_missing = tuple(i for i in self.missing if i not in located) + _missing
        notes = tuple(n for n in self.changed if n.index not in located) + changed
        return dataclasses.replace(
            self, session=dataclasses.replace(self.session, files=files_now),
            missing=tuple(sorted(still_missing)), changed=tuple(sorted(notes, key=lambda n: n.index)))


def _usable(path: str) -> bool:
    try:
        regular_file_stat(path)
    except (OSError, SourceError):
        return False
    return True


def load_session(path: str, check_hashes: bool = True) -> LoadedSession:
    """Read, check and resolve the session file ``path`` (module rules); nothing is written.

    Parameters
    ----------
    path
        The session file.
    check_hashes
        Compare stored SHA-256 hashes with the files (one read of each such file whose size
        matches); False: compare sizes and times only.

    Raises
    ------
    SessionError
        ``field="session"`` (or ``"bookmark"``), the message starting with the session file's
        name: it does not exist, is not a regular file, is too large, is not UTF-8 JSON, is
        nested too deeply, is from a newer version, has a field of the wrong type or range,
        or names a file that is not a regular file.
    """
    path = os.fspath(path)
    name = f"session '{printable_name(path)}'"
    try:
        data = read_capped(path, MAX_SESSION_BYTES, "session file")
    except (FileNotFoundError, NotADirectoryError):
        raise SessionError(f"{name} does not exist (check the path)", field="session") from None
    except SourceError as error:
        raise SessionError(error.message, field="session") from None
    base = os.path.dirname(os.path.abspath(path))
    notes: list[str] = []
    try:
        document = parse_session_text(data)
        session = session_from_json(document, base, notes)
        missing, changed = _check_files(session.files, "files", check_hashes)
        b_missing, b_changed = (), ()
        if session.comparison is not None:
            b_missing, b_changed = _check_files(session.comparison["files"], "comparison.files", check_hashes)
    except SessionError as error:
        raise SessionError(f"{name}: {error.message}", field=error.field) from None
    outside = _outside(document, session, base)
    return LoadedSession(session, missing, changed, tuple(notes), b_missing, b_changed,
                         os.path.abspath(path), check_hashes, outside)


def _outside(document: dict, session: Session, base: str) -> tuple[str, ...]:
    """The lines of :attr:`LoadedSession.outside` (module rules); ``document`` is the checked
    JSON (its stored paths), ``session`` its resolved paths."""
    folder = os.path.realpath(base)
    stored = [("files", document["files"], session.files)]
    if session.comparison is not None:
        stored.append(("comparison.files", document["comparison"]["files"], session.comparison["files"]))
    lines = []
    for where, items, records in stored:
        for i, (item, record) in enumerate(zip(items, records)):
            written = item["path"]
            if is_url(written):
                continue  # a URL names its file wherever the session is
            opened = os.path.realpath(getattr(record, "path", record))
            if os.path.commonpath([folder, opened]) == folder:
                continue
            how = ("is an absolute path outside the session's folder" if os.path.isabs(written)
                   else "leads out of the session's folder")
            lines.append(f"{where}[{i}] '{printable_name(written)}' {how} '{printable_name(folder)}': "
                         f"it opens '{printable_name(opened)}'")
    return tuple(lines)
