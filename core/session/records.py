"""A session: the files, decode parameters, slice, display, comparison and bookmarks of one view.

:class:`Session` is the value (:class:`SessionFile` one recorded file, :func:`capture_file` how
one is recorded); :mod:`core.session.document` writes it as the JSON of docs/sessions.md and
:mod:`core.session.loading` reads it back.

Rules
-----
- Files are recorded as :class:`SessionFile`: path (absolute in memory), size, modification time
  (ns) and, on request, the SHA-256 of the content (:func:`capture_file` with ``hash=True``; it
  costs one read of the whole file, streamed in 1 MiB blocks). Only regular files outside
  ``/proc``, ``/sys`` and ``/dev`` can be recorded.
- ``display`` is flat: text keys, values that are JSON scalars (null, true/false, finite
  numbers, texts) or lists of whole numbers, such as ``{"row_axis": 0, "indices": [0, 0, 3],
  "plot_mode": "image"}``.
- ``comparison`` (None: no second tensor) is a dict with ``files`` (B's files: SessionFile
  values, or paths that are recorded when the session is saved), ``overrides`` (B's decode
  parameters that differ from A's: a dict of DecodeParams field names to values), ``rtol``,
  ``atol`` (float >= 0 or None), ``ulp`` (int >= 0 or None), ``bitwise`` (bool),
  ``nan_policy`` (``"equal"``/``"mismatch"``), ``shift`` (int, may be negative) and
  ``quantity`` (``"a"``, ``"b"``, ``"abs"``, ``"rel"``, ``"ulp"``); all but ``files``
  optional. A loaded session's comparison has exactly these keys (defaults filled in).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from core.errors import CoreError, SessionError, SourceError
from core.files.checked_read import file_sha256, regular_file_stat
from core.files.remote import is_url, object_size
from core.pipeline.pipeline import DecodeParams
from core.records.choice import RecordsChoice
from core.session.bookmark import Bookmark
from core.session.json_fields import MAX_INT, MAX_NAME, MAX_PATH
from core.text.names import has_credentials, printable_name

__all__ = [
    "SESSION_FORMAT", "SESSION_VERSION", "MAX_SESSION_BYTES", "SessionFile", "Session",
    "capture_file", "check_display", "COMPARISON_QUANTITIES", "NAN_POLICIES",
]

#: The ``format`` key of every session file.
SESSION_FORMAT = "tensor-inspector-session"
#: The version this code writes and the newest it reads.
SESSION_VERSION = 1
#: The largest session file read or written (a larger one is refused before it is read).
MAX_SESSION_BYTES = 16 * 1024 * 1024
#: Keys of ``display``; items of one of its lists.
MAX_DISPLAY_KEYS = 64
MAX_DISPLAY_LIST = 64

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
COMPARISON_QUANTITIES = ("a", "b", "abs", "rel", "ulp")
NAN_POLICIES = ("equal", "mismatch")


@dataclass(frozen=True)
class SessionFile:
    """One inspected file as recorded: path (absolute in memory), size, mtime, optional SHA-256.

    Raises
    ------
    SessionError
        An empty path, a size or mtime that is not a whole number in range, a hash that is not
        64 lowercase hex digits.
    """

    path: str
    size: int
    mtime_ns: int
    sha256: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.path, str) or not self.path or len(self.path) > MAX_PATH or "\0" in self.path:
            raise SessionError(f"A session file path must be a non-empty text of at most {MAX_PATH} "
                               f"characters without NUL, not {self.path!r:.80}", field="session")
        for name, low in (("size", 0), ("mtime_ns", -MAX_INT)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_INT:
                raise SessionError(f"{self.path!r}: {name} {value!r:.40} is not a whole number from "
                                   f"{low} to 2**63 - 1", field="session")
        if self.sha256 is not None and (not isinstance(self.sha256, str) or not _SHA256.match(self.sha256)):
            raise SessionError(f"{self.path!r}: sha256 {self.sha256!r:.80} is not 64 lowercase hex "
                               "digits", field="session")


def capture_file(path: str, hash: bool = False) -> SessionFile:
    """Record ``path`` as it is now: absolute path, size, mtime and (``hash=True``) its SHA-256.

    Only ``stat`` is used, unless ``hash`` asks for one sequential read of the whole file.

    Raises
    ------
    SessionError
        The file does not exist, is not a regular file (a directory, FIFO, device, a file in
        ``/proc``, ``/sys`` or ``/dev``), cannot be read, or changed while it was hashed.
    """
    path = os.fspath(path)
    if is_url(path):
        return _capture_url(path)
    path = os.path.abspath(path)
    info = _stat(path)
    digest = None
    if hash:
        try:
            digest = file_sha256(path)
        except (OSError, SourceError) as error:
            raise _file_error(path, error) from None
        after = _stat(path)
        if (after.st_size, after.st_mtime_ns) != (info.st_size, info.st_mtime_ns):
            raise SessionError(f"'{path}' changed while it was hashed (save the session again "
                               "when the file is no longer being written)", field="session")
    return SessionFile(path, info.st_size, info.st_mtime_ns, digest)


def _capture_url(url: str) -> SessionFile:
    """A remote file's record: the URL as such and its size (no time, no hash: an object is not
    read whole to be recorded). A URL that carries credentials is refused: a session file is
    shared and kept, and credentials belong in each protocol's own configuration."""
    if has_credentials(url):
        raise SessionError(f"'{printable_name(url)}' carries credentials in the URL, which a session never "
                           "stores (give them through the protocol's configuration or environment, e.g. "
                           "AWS_PROFILE or ~/.aws/credentials, and open the URL without them)", field="session")
    try:
        size = object_size(url)
    except SourceError as error:
        raise SessionError(error.message, field="session") from None
    return SessionFile(url, size, 0, None)


def _stat(path: str) -> os.stat_result:
    try:
        return regular_file_stat(path)
    except (OSError, SourceError) as error:
        raise _file_error(path, error) from None


def _file_error(path: str, error: Exception) -> SessionError:
    if isinstance(error, (FileNotFoundError, NotADirectoryError)):
        return SessionError(f"'{path}' does not exist (check the path)", field="session")
    message = error.message if isinstance(error, CoreError) else str(error)
    return SessionError(message, field="session")


def _plain(value: object) -> object:
    """numpy scalars as Python numbers, a tuple as a list (what the GUI may hand over)."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


def check_display(display: object, where: str = "display") -> dict[str, object]:
    """``display`` checked and made plain: a flat dict of text keys and JSON scalars or lists of
    ints (tuples become lists, numpy numbers Python numbers).

    Raises
    ------
    SessionError
        Not a dict, too many keys, a key that is not a short text, a value of another kind
        (a nested object, a list holding something else than whole numbers, NaN or infinity).
    """
    if not isinstance(display, dict):
        raise SessionError(f"{where} must be an object of settings, not {type(display).__name__}", field="session")
    if len(display) > MAX_DISPLAY_KEYS:
        raise SessionError(f"{where} has {len(display)} settings, more than {MAX_DISPLAY_KEYS}", field="session")
    plain = {}
    for key, raw in display.items():
        if not isinstance(key, str) or not 0 < len(key) <= 64:
            raise SessionError(f"{where} key {key!r:.80} must be a text of 1 to 64 characters", field="session")
        place = f"{where}.{key}"
        value = _plain(raw)
        if isinstance(value, list):
            if len(value) > MAX_DISPLAY_LIST or not all(
                    isinstance(v, int) and not isinstance(v, bool) and abs(v) <= MAX_INT for v in value):
                raise SessionError(f"{place} must be a list of at most {MAX_DISPLAY_LIST} whole numbers",
                                   field="session")
        elif isinstance(value, float) and not math.isfinite(value):
            raise SessionError(f"{place} is {value}: use a finite number", field="session")
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
            raise SessionError(f"{place} is out of range (at most 2**63 - 1)", field="session")
        elif isinstance(value, str) and len(value) > MAX_NAME:
            raise SessionError(f"{place} is longer than {MAX_NAME} characters", field="session")
        elif not (value is None or isinstance(value, (bool, int, float, str))):
            raise SessionError(f"{place} must be a number, a text, true/false, null or a list of "
                               f"whole numbers, not {type(value).__name__}", field="session")
        plain[key] = value
    return plain


@dataclass(frozen=True)
class Session:
    """Everything needed to show the same view again (rules: module docstring).

    Attributes
    ----------
    files
        The inspected files (several form a batch), absolute paths in memory.
    params
        The decode parameters.
    tensor
        The container entry the parameters came from (``--tensor``), or None.
    slice_text
        The slice expression ("" is the whole tensor).
    display
        Flat display settings (axes, indices, plot mode, table format).
    comparison
        The second tensor and the compare settings, or None.
    bookmarks
        The bookmarks, in the order the user sees them.
    records
        The first file shown as records with named fields: the layout's text, its form, ABI,
        header and records slice (:class:`~core.records.choice.RecordsChoice`), or None.
    version
        The session format version (:data:`SESSION_VERSION`).
    """

    files: tuple[SessionFile, ...]
    params: DecodeParams
    tensor: str | None = None
    slice_text: str = ""
    display: dict = field(default_factory=dict)
    comparison: dict | None = None
    bookmarks: tuple[Bookmark, ...] = ()
    records: RecordsChoice | None = None
    version: int = SESSION_VERSION

    def __post_init__(self) -> None:
        object.__setattr__(self, "files", tuple(self.files))
        object.__setattr__(self, "bookmarks", tuple(self.bookmarks))
        if not all(isinstance(f, SessionFile) for f in self.files):
            raise SessionError("Session.files must hold SessionFile values (use capture_file)", field="session")
        if not isinstance(self.params, DecodeParams):
            raise SessionError("Session.params must be a DecodeParams", field="session")
        if self.records is not None and not isinstance(self.records, RecordsChoice):
            raise SessionError("Session.records must be a RecordsChoice or None", field="session")
        object.__setattr__(self, "display", check_display(self.display))

    def with_files(self, paths: Sequence[str], hash: bool = False) -> Session:
        """This layout for other files ("use this layout for these files"): the same params,
        slice, display, comparison and bookmarks, ``paths`` recorded as they are now.

        Raises
        ------
        SessionError
            A path cannot be recorded (:func:`capture_file`), none is given, or a bookmark
            marks a file index that the new files do not have.
        """
        files = tuple(capture_file(p, hash) for p in paths)
        if not files:
            raise SessionError("No files given: a session needs at least one file", field="session")
        for mark in self.bookmarks:
            if mark.file_index >= len(files):
                raise SessionError(
                    f"bookmark {mark.name!r} marks file {mark.file_index + 1} but only {len(files)} "
                    f"file{'s' if len(files) != 1 else ''} given (give at least {mark.file_index + 1} "
                    "files, or remove the bookmark)", field="bookmark")
        return dataclasses.replace(self, files=files)
