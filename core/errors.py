"""Every exception type of the engine, and the one route from an exception to a message.

Exception types (docs/semantics.md, "Errors")
---------------------------------------------
Every engine error is a :class:`CoreError` (a ``ValueError``); the only exception is an element
index out of range, which is a plain ``IndexError``. Messages follow TensorFlow's wording where
TensorFlow has one, and end with the fix in parentheses. Each error may name the parameter
responsible (``field``) so that a GUI can show the message next to the widget that edits it.
Field names are those of :class:`core.pipeline.pipeline.DecodeParams` plus ``"files"``,
``"slice"``, ``"view_as"`` and (exports) ``"path"``, ``"format"``, ``"dtype"``.

:class:`Cancelled` is not an error: it is how a long scan (statistics, export) stops when the
user cancels it, so it is an ``Exception`` but not a :class:`CoreError`.

The route to the user
---------------------
:func:`describe_error` turns *any* exception into an :class:`ErrorReport` (message, field,
severity). Every place that shows an exception (the GUI's banner, inline labels, status bar,
statistics and export panels, and the command line's one ``error:`` line) goes through it, so
the same problem reads the same everywhere and nothing shows a bare traceback.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "CoreError", "DecodeError", "SourceError", "MissingObjectError", "ShapeError", "SliceError", "SliceSyntaxError",
    "TensorBufferError", "IllegalArgumentError", "ContainerError", "BudgetError", "ExportError",
    "SessionError", "Cancelled",
    "ErrorReport", "Severity", "describe_error", "DEBUG_VARIABLE",
]

#: Environment variable that makes the command line re-raise unexpected errors (a traceback).
DEBUG_VARIABLE = "TENSOR_INSPECTOR_DEBUG"


class CoreError(ValueError):
    """Base class of every engine error.

    Parameters
    ----------
    message
        What is wrong and how to fix it.
    field
        The parameter responsible (``"dtype"``, ``"fixed_length"``, ``"offset"``,
        ``"record_size"``, ``"shape"``, ``"view_as"``, ``"slice"``, ``"files"``, ...), or ``None``.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class DecodeError(CoreError):
    """``tf.io.decode_raw`` refused its input (docs/semantics.md §2)."""


class SourceError(CoreError):
    """A file cannot serve as a source: missing, unreadable, not a regular file, bad offset... (docs/semantics.md §3)."""


class MissingObjectError(SourceError):
    """A remote object is not there (HTTP 404 / 410, S3 ``NoSuchKey``): for a store's chunk, a
    value never written; elsewhere a URL to check."""


class ShapeError(CoreError):
    """A target shape does not fit the decoded values (``tf.reshape`` rules)."""


class SliceError(CoreError):
    """``tf.strided_slice`` refused the spec, or a slice expression does not parse (docs/semantics.md §4, §5)."""


class SliceSyntaxError(SliceError):
    """A slice expression that does not parse (docs/semantics.md §5); ``field`` is ``"slice"``.

    Attributes
    ----------
    column
        0-based position (a ``str`` index) of the first offending character; the message
        names it 1-based.
    length
        How many characters to underline; 0 at the end of the text (an insertion point).
    """

    def __init__(self, message: str, column: int, length: int) -> None:
        super().__init__(message, field="slice")
        self.column = column
        self.length = length

    def __reduce__(self):  # keep column/length through pickling (worker processes)
        return (type(self), (self.message, self.column, self.length))


class TensorBufferError(CoreError):
    """TFLite Support's ``IllegalArgumentException`` (docs/semantics.md §6)."""


class IllegalArgumentError(TensorBufferError):
    """TFLite's ``IllegalArgumentException``: an argument is invalid (bad shape, size, type).

    Two Java failures map to built-in Python exceptions instead: a ``null`` argument
    (``NullPointerException`` from ``checkNotNull``) is a ``TypeError``, and an element index
    out of range is an ``IndexError``.
    """


class ContainerError(CoreError):
    """A container file (safetensors, npz, TFLite, GGUF, ...) or one of its entries cannot be
    read: the message names the container, the entry and the byte offset where it can."""


class BudgetError(CoreError):
    """An operation would copy more bytes than the memory budget allows."""


class ExportError(CoreError):
    """An output (export, screenshot) cannot be written: bad format or destination, or the
    destination refused writes."""


class SessionError(CoreError):
    """A session file or a bookmark cannot be used: corrupt, hostile, from a newer version, or
    naming files that cannot be found; the message names the file, the entry and the fix."""


class Cancelled(Exception):  # noqa: N818 (a signal to stop, not an error)
    """The user cancelled a long operation (statistics, export) between two blocks."""


# -- the route to the user ---------------------------------------------------------------------
Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class ErrorReport:
    """What to tell the user about one exception.

    Attributes
    ----------
    message
        One line: what is wrong, then the fix in parentheses.
    field
        The parameter responsible (see :class:`CoreError`), ``"files"`` for a file the system
        refused, or ``None``.
    severity
        ``"error"`` (the operation failed), ``"warning"`` (it did something, not all) or
        ``"info"`` (nothing failed, e.g. the user cancelled).
    """

    message: str
    field: str | None = None
    severity: Severity = "error"


def describe_error(exc: BaseException) -> ErrorReport:
    """The one-line report of any exception; never raises.

    Rules, in order:

    - :class:`Cancelled`: ``"cancelled (start it again to finish)"``, severity ``"info"``.
    - :class:`CoreError`: its own message and field (they already say what and how to fix it).
    - ``OSError``: named after its ``errno`` and ``filename`` (see :func:`_os_error_text`):
      missing, permission, a directory, too many open files, no memory for a mapping, a device
      or ``/sys`` / ``/proc`` file, no space, read-only file system, I/O error; field
      ``"files"`` when the error names a path.
    - ``MemoryError``: ``"out of memory..."`` with the fix (a smaller view).
    - ``OverflowError``, ``IndexError``, ``ValueError`` escaping from numpy or ``int()``: what
      kind of value was wrong, the library's text, and the fix.
    - A ``Warning`` raised as an exception: its text, severity ``"warning"``.
    - ``KeyboardInterrupt``: ``"interrupted"``, severity ``"info"``.
    - Anything else is a bug: ``"unexpected <Type>: <text> (please report this; set
      TENSOR_INSPECTOR_DEBUG=1 for a traceback)"``.

    Whitespace in the message is collapsed to single spaces (it is shown on one line).

    Parameters
    ----------
    exc
        The exception to describe.

    Returns
    -------
    ErrorReport
    """
    if isinstance(exc, Cancelled):
        return ErrorReport("cancelled (start it again to finish)", None, "info")
    if isinstance(exc, KeyboardInterrupt):
        return ErrorReport("interrupted", None, "info")
    if isinstance(exc, CoreError):
        return ErrorReport(_one_line(exc.message) or type(exc).__name__, exc.field, "error")
    text = _one_line(str(exc))
    if isinstance(exc, OSError):
        path = _os_error_path(exc)
        return ErrorReport(_os_error_text(exc, path), "files" if path is not None else None, "error")
    if isinstance(exc, MemoryError):
        detail = f": {text}" if text else ""
        return ErrorReport(f"out of memory{detail} (slice a smaller view, or close other programs)")
    if isinstance(exc, OverflowError):
        return ErrorReport(f"a number is too large: {text or 'overflow'} (use a smaller value)")
    if isinstance(exc, IndexError):
        return ErrorReport(f"index out of range: {text or 'no such element'} (use an index inside the shape)")
    if isinstance(exc, Warning):
        return ErrorReport(text or type(exc).__name__, None, "warning")
    if isinstance(exc, ValueError):
        return ErrorReport(f"invalid value: {text or 'ValueError'} (check the numbers and names typed)")
    name = type(exc).__name__
    return ErrorReport(f"unexpected {name}: {text or name} (please report this; set "
                       f"{DEBUG_VARIABLE}=1 for a traceback)")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _os_error_path(exc: OSError) -> str | None:
    if exc.filename is None:
        return None
    name = exc.filename
    return name.decode(errors="replace") if isinstance(name, bytes) else str(name)


def _os_error_text(exc: OSError, path: str | None) -> str:
    """What the system refused and how to fix it, by ``errno``; ``path`` quoted when known."""
    code = exc.errno
    quoted = f"'{path}'" if path is not None else "the file"
    if isinstance(exc, FileNotFoundError) or code == errno.ENOENT:
        return f"{quoted} does not exist (check the path)"
    if isinstance(exc, PermissionError) or code in (errno.EACCES, errno.EPERM):
        return f"permission denied reading {quoted} (make the file readable, e.g. chmod a+r)"
    if isinstance(exc, IsADirectoryError) or code == errno.EISDIR:
        return f"{quoted} is a directory, not a file (choose a file inside it)"
    if isinstance(exc, NotADirectoryError) or code == errno.ENOTDIR:
        return f"a part of {quoted} is not a directory (check the path)"
    if code in (errno.EMFILE, errno.ENFILE):
        return (f"too many open files to open {quoted} (close some files, or raise the limit, "
                "e.g. ulimit -n 4096)")
    if code == errno.ENOMEM:
        return (f"not enough memory to map {quoted} (close other files or programs, or raise "
                "vm.max_map_count)")
    if code in (errno.ENODEV, errno.ENXIO):
        return (f"{quoted} cannot be memory-mapped: it is a device or a special file such as one "
                "in /sys or /proc (copy the data to a regular file first)")
    if code == errno.ENOSPC:
        return f"no space left on the device for {quoted} (free some space, or choose another location)"
    if code == errno.EROFS:
        return f"{quoted} is on a read-only file system (choose another location)"
    if code == errno.EIO:
        return (f"input/output error reading {quoted} (the disk or network share may be failing; "
                "copy the file elsewhere)")
    if code == errno.ENAMETOOLONG:
        return f"the path {quoted} is too long (use a shorter path)"
    if code == errno.ELOOP:
        return f"too many symbolic links in {quoted} (check where the links point)"
    reason = _one_line(exc.strerror or str(exc)) or type(exc).__name__
    if path is None:
        return f"{reason} (check the file and try again)"
    return f"cannot open {quoted}: {reason} (check the file)"
