"""Small, checked reads of whole files: a file's identity, its SHA-256, a capped text file.

Sessions (:mod:`core.session`) record the files they inspect and read their own JSON file;
both go through here so that the rules of :mod:`core.files.safe_open` hold for them too:

- ``os.stat`` first: a directory, FIFO, socket or device is refused before any ``open`` (a FIFO
  would block, a device never ends), and so is anything under ``/proc``, ``/sys`` or ``/dev``
  (pseudo-files whose size is not real), whatever links lead there.
- Files are opened ``O_RDONLY | O_NONBLOCK`` and ``fstat`` re-checks the descriptor, in case
  the path was swapped between the two calls. Nothing is ever written.
- Reads are bounded: :func:`read_prefix` reads at most the bytes asked for; :func:`file_sha256` streams the file through one buffer of
  :data:`HASH_BLOCK` bytes (never the whole file in memory); :func:`read_capped` refuses a file
  larger than its cap from its size *before* reading, and reads at most one byte past the cap
  (a file that grows meanwhile is refused too).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable

from core.errors import SourceError
from core.files.safe_open import _kind_of, _os_error, _refuse_kind
from core.text.byte_sizes import format_bytes

__all__ = ["HASH_BLOCK", "PSEUDO_FILE_ROOTS", "file_sha256", "read_capped", "read_prefix", "regular_file_stat"]

#: Bytes read at a time while hashing.
HASH_BLOCK = 1 << 20
#: Folders of pseudo-files and devices: their files' sizes are not real, reading may not end.
PSEUDO_FILE_ROOTS = ("/proc", "/sys", "/dev")


def _pseudo_root(path: str) -> str | None:
    """The pseudo-file folder ``path`` is in (after following links), or None."""
    real = os.path.realpath(path)
    for root in PSEUDO_FILE_ROOTS:
        if real == root or real.startswith(root + os.sep):
            return root
    return None


def regular_file_stat(path: str) -> os.stat_result:
    """``os.stat(path)`` of a regular file outside ``/proc``, ``/sys`` and ``/dev``.

    Raises
    ------
    FileNotFoundError, NotADirectoryError
        The path does not exist (left to the caller: a missing file is often not an error).
    SourceError
        ``field="files"``: a directory, FIFO, socket or device, a pseudo-file, or another OS
        error (permission denied...).
    """
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
        if isinstance(error, ValueError):
            raise SourceError(f"{path!r} is not a usable path: {error} (check the name)", field="files") from None
        raise _os_error(path, error) from None
    kind = _kind_of(info.st_mode)
    if kind is not None:
        raise _refuse_kind(path, kind)
    root = _pseudo_root(path)
    if root is not None:
        raise SourceError(
            f"'{path}' is in {root}, whose files are devices or pseudo-files whose size is not real; "
            f"it is not opened (copy the data to a regular file first)", field="files")
    return info


def _open_regular(path: str) -> tuple[int, os.stat_result]:
    """A read-only descriptor of a regular file (checked before and after ``open``)."""
    regular_file_stat(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise _os_error(path, error) from None
    try:
        info = os.fstat(fd)
        kind = _kind_of(info.st_mode)
        if kind is not None:  # swapped for something else between stat and open
            raise _refuse_kind(path, kind)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def file_sha256(path: str, block_size: int = HASH_BLOCK, progress: Callable[[int], None] | None = None) -> str:
    """The SHA-256 of a regular file's content, hex, read in blocks of ``block_size`` bytes.

    Costs one sequential read of the whole file; memory stays one block. ``progress(nbytes)``
    is called after each block with the bytes hashed so far (it may raise to stop, e.g.
    :class:`core.errors.Cancelled`).

    Raises
    ------
    FileNotFoundError, NotADirectoryError
        The path does not exist.
    SourceError
        Refused by :func:`regular_file_stat`, or a read failed.
    """
    fd, _info = _open_regular(path)
    digest = hashlib.sha256()
    buffer = bytearray(max(1, int(block_size)))
    view = memoryview(buffer)
    done = 0
    try:
        with os.fdopen(fd, "rb", buffering=0, closefd=True) as stream:
            while True:
                count = stream.readinto(view)
                if not count:
                    break
                digest.update(view[:count])
                done += count
                if progress is not None:
                    progress(done)
    except OSError as error:
        raise _os_error(path, error) from None
    return digest.hexdigest()


def read_capped(path: str, cap: int, what: str = "file") -> bytes:
    """The whole content of a small regular file, refused from its size when above ``cap`` bytes.

    Raises
    ------
    FileNotFoundError, NotADirectoryError
        The path does not exist.
    SourceError
        Refused by :func:`regular_file_stat`; larger than ``cap`` (checked before reading, and
        again after reading at most ``cap + 1`` bytes, for a file that grew); a read failed.
    """
    fd, info = _open_regular(path)

    def too_big(size_text: str) -> SourceError:
        return SourceError(f"the {what} '{path}' is {size_text}, more than the {format_bytes(cap)} "
                           f"a {what} may be; it was not read (check that it is the right file)",
                           field="files")

    with os.fdopen(fd, "rb", buffering=0, closefd=True) as stream:
        if info.st_size > cap:
            shown = format_bytes(info.st_size)
            raise too_big(shown if shown.endswith("bytes") else f"{shown} ({info.st_size:,} bytes)")
        data = _read_up_to(stream, cap + 1, path)
    if len(data) > cap:
        raise too_big("larger than it was a moment ago")
    return data


def _read_up_to(stream, count: int, path: str) -> bytes:
    """At most ``count`` bytes from ``stream``, read :data:`HASH_BLOCK` bytes at a time (fewer
    at the end of the file); an OS error is the engine's message naming ``path``."""
    chunks = []
    left = max(0, int(count))
    try:
        while left > 0:
            chunk = stream.read(min(left, HASH_BLOCK))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as error:
        raise _os_error(path, error) from None
    return b"".join(chunks)


def read_prefix(path: str, count: int) -> bytes:
    """Up to ``count`` bytes from the start of a regular file (fewer when the file is shorter).

    Raises
    ------
    FileNotFoundError, NotADirectoryError
        The path does not exist.
    SourceError
        Refused by :func:`regular_file_stat` or by the re-check of the open descriptor (a FIFO or
        device swapped in after the stat is never read); a read failed.
    """
    fd, _info = _open_regular(path)
    with os.fdopen(fd, "rb", buffering=0, closefd=True) as stream:
        return _read_up_to(stream, count, path)
