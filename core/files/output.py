"""Writing output files (exports, screenshots) without ever damaging an input or an existing file.

Rules
-----
- The destination may not be one of the inspected files, whatever the path says: the check
  compares device and inode (``os.path.samefile``), so symbolic links, hard links, ``..`` and
  relative paths are caught too.
- The destination, if it exists, must be a regular file: a directory, FIFO, socket or device is
  refused before anything is written (writing to a FIFO would block until a reader appears).
- The data is written to a temporary file in the destination's folder and moved over the
  destination with one ``os.replace`` only when complete. A failed or interrupted write removes
  the temporary file and leaves an existing destination untouched; the replaced file keeps its
  permission bits (a new one gets ``0o666 & ~umask``, as ``open()`` would give it).
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable, Iterable
from typing import IO

from core.errors import ExportError

__all__ = ["check_destination", "write_atomically"]


def check_destination(path: str | os.PathLike, inspected: Iterable[str | os.PathLike] = ()) -> str:
    """Refuse destinations that are inspected files or not regular files; return the path as str.

    Raises
    ------
    ExportError
        ``field="path"``: the path is a directory, a FIFO / socket / device, or the same file as
        one of ``inspected``.
    """
    path = os.fspath(path)
    if not path:
        raise ExportError("No output file name given (choose a file name)", field="path")
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise ExportError(f"Cannot check {path}: {exc.strerror} (choose another location)", field="path") from exc
    if stat.S_ISDIR(info.st_mode):
        raise ExportError(f"{path} is a directory (choose a file name inside it)", field="path")
    if not stat.S_ISREG(info.st_mode):
        raise ExportError(
            f"{path} is not a regular file (a FIFO, socket or device); refusing to write to it "
            "(choose an ordinary file name)",
            field="path",
        )
    for source in inspected:
        try:
            same = os.path.samefile(path, source)
        except OSError:
            continue
        if same:
            raise ExportError(
                f"{path} is the file being inspected; writing onto it would destroy the data "
                "it shows (choose another file name)",
                field="path",
            )
    return path


def write_atomically(
    path: str | os.PathLike, write: Callable[[IO[bytes]], None], inspected: Iterable[str | os.PathLike] = ()
) -> int:
    """Check ``path`` (:func:`check_destination`), call ``write(out)`` on a temporary file, move it.

    Returns
    -------
    int
        The number of bytes written.

    Raises
    ------
    ExportError
        The destination is refused, its folder cannot be written, or the write failed (the message
        names the cause: no space, permission, ...). Any exception from ``write`` (for example a
        cancellation) propagates after the temporary file is removed.
    """
    path = check_destination(path, inspected)
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".part")
    except OSError as exc:
        raise ExportError(
            f"Cannot write in {directory}: {exc.strerror} (choose a folder you can write to)", field="path"
        ) from exc
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
            written = out.tell()
        os.chmod(temp, _new_file_mode(path))
        os.replace(temp, path)
    except OSError as exc:
        _remove(temp)
        raise ExportError(
            f"Cannot write {path}: {exc.strerror or exc} (check the free space and permissions, "
            "or choose another location)",
            field="path",
        ) from exc
    except BaseException:
        _remove(temp)
        raise
    return written


def _remove(temp: str) -> None:
    try:
        os.unlink(temp)
    except OSError:
        pass


def _new_file_mode(path: str) -> int:
    """Mode of the replaced file, or what ``open()`` would give a new one (0o666 & ~umask)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        pass
    return 0o666 & ~_umask()


def _umask() -> int:
    try:  # Linux >= 4.7 tells it without changing it (os.umask would, for the whole process)
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o022)  # elsewhere reading it means setting it: restore at once
    os.umask(umask)
    return umask
