"""Open files safely for mapping: stat first, never a FIFO or device, read-only, change checks.

Rules (docs/semantics.md §3, see :mod:`core.files.sources` for how a source uses them):

- ``os.stat`` is checked *before* opening: a FIFO would block ``open`` (and a reader), a device
  such as ``/dev/zero`` never ends, a directory cannot be read; all are refused unopened. The
  open itself uses ``O_RDONLY | O_NONBLOCK`` and ``fstat`` re-checks the descriptor, in case the
  path was swapped between the two calls.
- Files are mapped with ``mmap.ACCESS_READ`` (never writable); an empty file cannot be mapped and
  reads as ``b""``.
- :class:`FileInfo` records each file as it was at open; :mod:`core.files.file_change` compares
  it with the file now, and :mod:`core.files.shrink_guard` protects the map of a file that shrank.
- Maps are advised ``MADV_RANDOM`` (the app reads scattered cells and strided samples; the
  kernel's read-around would fetch MiBs per touched page); :func:`sequential_access` switches
  the range of one array to ``MADV_SEQUENTIAL`` while a scan (statistics, export) reads it whole.
- Each mapped file holds two descriptors (ours, and the duplicate ``mmap.mmap`` keeps). Before
  a batch is opened, :func:`ensure_descriptors` raises the process's soft ``RLIMIT_NOFILE``
  towards the hard limit when the batch needs more; if opening still runs out, the message says
  how many files, the limit and the fix (``ulimit -n``, or fewer files).
- Failures to map are named with their cause and fix: not enough address space (``ENOMEM``, e.g.
  a 100 TiB file), a file that cannot be mapped (``ENODEV``, e.g. ``/sys``). A ``/proc`` or
  ``/sys`` pseudo-file whose reported size is 0 but which has content is refused, because its
  size is not real: copy it to a regular file first.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import mmap
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from core.errors import SourceError, describe_error
from core.files.npy_header import PREFIX_BYTES, NpyHeader, looks_like_npy, parse_npy_header
from core.text.byte_sizes import format_bytes

__all__ = ["FileInfo", "ensure_descriptors", "open_mapped", "release", "sequential_access"]

#: Descriptors each mapped file holds: ours, and the duplicate ``mmap.mmap`` keeps internally.
DESCRIPTORS_PER_FILE = 2
#: Descriptors left for everything else (stdio, Qt, sockets, the file being exported...).
_SPARE_DESCRIPTORS = 64

try:
    import resource
except ImportError:  # not on Windows: there is no soft limit to raise
    resource = None  # type: ignore[assignment]


def _descriptors_needed(file_count: int) -> int:
    return DESCRIPTORS_PER_FILE * file_count + _SPARE_DESCRIPTORS


def ensure_descriptors(file_count: int) -> None:
    """Raise the soft ``RLIMIT_NOFILE`` once, up to the hard limit, if ``file_count`` files
    (two descriptors each, plus a spare 64) need more than it allows; never lowers it.

    A failure to raise it changes nothing: opening then fails with the message of
    :func:`open_mapped` (how many files, the limit, ``ulimit -n``).
    """
    if resource is None:
        return
    needed = _descriptors_needed(file_count)
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft == resource.RLIM_INFINITY or soft >= needed:
            return
        target = needed if hard == resource.RLIM_INFINITY else min(hard, needed)
        if target > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (OSError, ValueError):
        pass


def _too_many_files(path: str, file_count: int) -> SourceError:
    limit = "unknown"
    if resource is not None:
        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        limit = "unlimited" if soft == resource.RLIM_INFINITY else str(soft)
    needed = _descriptors_needed(file_count)
    return SourceError(
        f"too many open files while opening '{path}': {file_count} files need about {needed} "
        f"file descriptors (two per file), and this process may open {limit} (its hard limit "
        f"included); raise the limit before starting, e.g. ulimit -n {needed}, or open fewer files",
        field="files",
    )


def _map_error(path: str, size: int, error: OSError, file_count: int) -> SourceError:
    """The message for ``mmap.mmap`` failing on ``path`` of ``size`` bytes."""
    if error.errno in (errno.EMFILE, errno.ENFILE):
        return _too_many_files(path, file_count)
    if error.errno == errno.ENOMEM:
        return SourceError(
            f"'{path}' ({format_bytes(size)}, {size} bytes) could not be memory-mapped: not "
            "enough address space or memory for a map of that size (copy the part you need to a "
            "smaller file, e.g. dd if=BIG of=part.bin bs=1M skip=N count=M; or close other "
            "files and raise the limits, e.g. ulimit -v unlimited)",
            field="files",
        )
    if error.errno in (errno.ENODEV, errno.ENXIO, errno.EINVAL):
        return SourceError(
            f"'{path}' cannot be memory-mapped ({error.strerror or error}): it is a special "
            "file, such as one in /sys or /proc, whose size is not real (copy it to a regular "
            f"file first, e.g. cat '{path}' > copy.bin, and open the copy)",
            field="files",
        )
    return _os_error(path, error)


def _pseudo_file(path: str) -> SourceError:
    return SourceError(
        f"'{path}' reports a size of 0 bytes but has content: it is a pseudo-file (such as one "
        f"in /proc or /sys) and its size is not real (copy it to a regular file first, e.g. "
        f"cat '{path}' > copy.bin, and open the copy)",
        field="files",
    )


def _has_content(fd: int) -> bool:
    """Whether a descriptor whose size is 0 still reads bytes (a /proc or /sys pseudo-file)."""
    try:
        return bool(os.pread(fd, 1, 0))
    except OSError:
        return False  # nothing readable now (e.g. EAGAIN): an empty file, as its size says


@dataclass(frozen=True)
class FileInfo:
    """One opened file as it was at open time (compared by :mod:`core.files.file_change`)."""

    path: str
    size: int
    mtime_ns: int
    device: int
    inode: int
    npy: NpyHeader | None
    #: Why a file that starts with the ``.npy`` magic (or is named ``.npy``) has no usable
    #: header; raised by the pipeline only when a default would come from the header.
    npy_error: SourceError | None = None


def _kind_of(mode: int) -> str | None:
    """Name of a non-regular file type, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _refuse_kind(path: str, kind: str) -> SourceError:
    if kind == "a directory":
        return SourceError(f"'{path}' is a directory, not a file (choose a file inside it)",
                           field="files")
    return SourceError(
        f"'{path}' is {kind}, not a regular file; it is not opened because reading it could "
        "block or never end (save the data to a regular file first)",
        field="files",
    )


def _os_error(path: str, error: OSError) -> SourceError:
    # The text is the one every OSError gets (describe_error), naming the path as the user gave it.
    named = error if error.filename == path else OSError(error.errno, error.strerror, path)
    return SourceError(describe_error(named).message, field="files")


def open_mapped(path: str, file_count: int = 1) -> tuple[FileInfo, int, mmap.mmap | None, np.ndarray]:
    """Open, check and map one file read-only.

    Parameters
    ----------
    path
        The file.
    file_count
        How many files the batch opens (only used in the "too many open files" message).

    Returns
    -------
    tuple
        ``(info, descriptor, map or None for an empty file, read-only uint8 view of the file)``.
        The caller owns the descriptor and the map (see :func:`release`).

    Raises
    ------
    SourceError
        ``field="files"``: missing, permission denied, a directory, a FIFO, device or socket
        (refused before opening), too many open files (the count, the limit, ``ulimit -n``),
        not enough address space to map it (its size), a file that cannot be mapped or a
        pseudo-file whose size is not real (copy it first), another OS error. A corrupt ``.npy``
        header is not raised here but kept in ``info.npy_error``.
    """
    try:
        before = os.stat(path)
    except OSError as error:
        raise _os_error(path, error) from None
    kind = _kind_of(before.st_mode)
    if kind is not None:
        raise _refuse_kind(path, kind)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        if error.errno in (errno.EMFILE, errno.ENFILE):
            raise _too_many_files(path, file_count) from None
        raise _os_error(path, error) from None
    try:
        st = os.fstat(fd)
        kind = _kind_of(st.st_mode)
        if kind is not None:  # swapped for something else between stat and open
            raise _refuse_kind(path, kind)
        size = st.st_size
        if not size and _has_content(fd):
            raise _pseudo_file(path)
        try:
            mapped = mmap.mmap(fd, 0, access=mmap.ACCESS_READ) if size else None
        except OSError as error:
            raise _map_error(path, size, error, file_count) from None
        if mapped is not None and hasattr(mapped, "madvise") and hasattr(mmap, "MADV_RANDOM"):
            # Our reads are scattered (visible cells, strided image samples, one record): the
            # kernel's read-around would fetch read_ahead_kb (often MiBs) per touched page, which
            # made the first strided image of a 1 TiB sparse file take ~20 s instead of ~0.1 s.
            mapped.madvise(mmap.MADV_RANDOM)
        data = np.frombuffer(mapped if mapped is not None else b"", dtype=np.uint8)
        npy, npy_error = None, None
        # pread, not the map: a file cut right after it was mapped must not fault here.
        prefix = os.pread(fd, min(PREFIX_BYTES, size), 0) if size else b""
        if looks_like_npy(prefix) or path.lower().endswith(".npy"):
            try:
                npy = parse_npy_header(prefix, name=path, file_size=size)
            except SourceError as error:  # explicit options may still open it (raw bytes)
                npy_error = error
    except BaseException:
        os.close(fd)
        raise
    info = FileInfo(path=path, size=size, mtime_ns=st.st_mtime_ns, device=st.st_dev,
                    inode=st.st_ino, npy=npy, npy_error=npy_error)
    return info, fd, mapped, data


def release(fds: list[int], maps: list[mmap.mmap | None]) -> None:
    """Close descriptors and maps, emptying both lists. A map that arrays still view cannot be
    closed (``BufferError``); it is then unmapped when the last of those arrays goes."""
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
    fds.clear()
    for mapped in maps:
        if mapped is not None:
            try:
                mapped.close()
            except BufferError:
                pass  # arrays still view it: the map is released with the last of them
    maps.clear()


_libc_madvise = None


def _madvise(start: int, length: int, advice: int) -> None:
    global _libc_madvise
    try:
        if _libc_madvise is None:
            function = ctypes.CDLL(None, use_errno=True).madvise
            function.restype = ctypes.c_int
            function.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
            _libc_madvise = function
        _libc_madvise(start, length, advice)  # advice only: a failure changes nothing
    except (OSError, AttributeError):
        pass


@contextlib.contextmanager
def sequential_access(array: np.ndarray) -> Iterator[None]:
    """Read-ahead for a scan of ``array`` (``MADV_SEQUENTIAL`` on its pages), random after.

    Open maps are advised ``MADV_RANDOM`` (see :func:`open_mapped`), which makes a cold
    sequential scan about 3x slower (every page is a separate read). Around a scan that reads
    ``array`` whole, its byte range gets sequential read-ahead back. Nothing happens for a
    sparse array (a column of a huge file: its span is far more than its bytes) or on platforms
    without ``madvise``.
    """
    advice = getattr(mmap, "MADV_SEQUENTIAL", None)  # None where madvise does not exist
    if array.size == 0 or advice is None:
        yield
        return
    low, high = np.lib.array_utils.byte_bounds(array) if hasattr(np.lib, "array_utils") \
        else np.byte_bounds(array)
    if high - low > 2 * array.nbytes + mmap.PAGESIZE:
        yield
        return
    start = low - low % mmap.PAGESIZE
    _madvise(start, high - start, advice)
    try:
        yield
    finally:
        _madvise(start, high - start, mmap.MADV_RANDOM)
