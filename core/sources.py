"""File sources: files mapped read-only into ``decode_raw`` input elements (SPEC section 3).

A :class:`FileSource` opens one or more files once, memory-maps each one read-only
(``mmap.ACCESS_READ``; files are never opened for writing) and describes, through
:meth:`FileSource.layout`, how their bytes become input elements:

- ``offset`` bytes of header are skipped (default: a ``.npy`` file's data offset, else 0);
- ``record_size`` splits the rest into elements of that many bytes, a ``uint8`` view of shape
  ``(n_records, record_size)``; bytes after the last whole record are counted in
  ``trailing_bytes``, never silently dropped. Without it the whole remainder is one element
  (a scalar string), a ``uint8`` view of shape ``(L,)``;
- several files form a batch: input shape ``(n_files,)``, or ``(n_files, n_records)`` when every
  file holds the same number of records.

Safety:

- ``os.stat`` is checked before opening, so a FIFO (which would block), a device, a socket or a
  directory is refused without being opened; the open itself uses ``O_NONBLOCK`` and ``fstat``
  re-checks the descriptor against a swap in between.
- An empty file cannot be memory-mapped; it reads as ``b""``.
- A mapped file that shrinks would raise ``SIGBUS`` when a page beyond its new end is touched.
  :meth:`FileSource.check_unchanged` compares size, mtime and inode (of the path *and* of the
  open descriptor) with those recorded at open; :class:`core.pipeline.Pipeline` calls it before
  every run, before any page is touched. Arrays from an earlier run stay mapped: a GUI that
  keeps one should call ``check_unchanged`` (or ``Pipeline.run``) before reading it again.
"""

from __future__ import annotations

import mmap
import os
import stat
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import SourceError
from .npy_header import PREFIX_BYTES, NpyHeader, looks_like_npy, parse_npy_header

__all__ = ["FileInfo", "FileSource", "SourceLayout", "open_source"]

_KEEP = object()  # "use the value given to open_source"


@dataclass(frozen=True)
class FileInfo:
    """One opened file as it was at open time (``size`` and ``mtime_ns`` guard against changes)."""

    path: str
    size: int
    mtime_ns: int
    device: int
    inode: int
    npy: NpyHeader | None


@dataclass(frozen=True, eq=False)
class SourceLayout:
    """How the files of a source become ``decode_raw`` input elements.

    Attributes
    ----------
    arrays
        Per file, a read-only ``uint8`` view of the map: ``(L,)`` (one element of ``L`` bytes)
        or ``(n_records, record_size)``.
    input_shape
        Shape of the string tensor these elements form: ``()`` or ``(n_records,)`` for one file,
        ``(n_files,)`` or ``(n_files, n_records)`` for several.
    starts
        Per file, byte offset of the first element in the file.
    element_lengths
        Per file, bytes per element (``record_size``, or the whole data length).
    record_size
        Bytes per record, or None (one element per file).
    trailing_bytes
        Per file, bytes after the last whole record (and after a ``.npy`` file's promised data)
        that no element covers.
    """

    arrays: tuple[np.ndarray, ...]
    input_shape: tuple[int, ...]
    starts: tuple[int, ...]
    element_lengths: tuple[int, ...]
    record_size: int | None
    trailing_bytes: tuple[int, ...]


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
    if isinstance(error, FileNotFoundError):
        return SourceError(f"'{path}' does not exist (check the path)", field="files")
    if isinstance(error, PermissionError):
        return SourceError(
            f"permission denied reading '{path}' (make the file readable, e.g. chmod a+r)",
            field="files",
        )
    if isinstance(error, IsADirectoryError):
        return _refuse_kind(path, "a directory")
    reason = error.strerror or str(error)
    return SourceError(f"cannot open '{path}': {reason} (check the file)", field="files")


def _open_one(path: str) -> tuple[FileInfo, int, mmap.mmap | None, np.ndarray]:
    """Open, check and map one file: (info, descriptor, map or None, read-only uint8 view)."""
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
        raise _os_error(path, error) from None
    try:
        st = os.fstat(fd)
        kind = _kind_of(st.st_mode)
        if kind is not None:  # swapped for something else between stat and open
            raise _refuse_kind(path, kind)
        size = st.st_size
        mapped = mmap.mmap(fd, 0, access=mmap.ACCESS_READ) if size else None
        data = np.frombuffer(mapped if mapped is not None else b"", dtype=np.uint8)
        npy = None
        prefix = bytes(data[:PREFIX_BYTES])
        if looks_like_npy(prefix) or path.lower().endswith(".npy"):
            npy = parse_npy_header(prefix, name=path, file_size=size)
    except BaseException:
        os.close(fd)
        raise
    info = FileInfo(path=path, size=size, mtime_ns=st.st_mtime_ns, device=st.st_dev,
                    inode=st.st_ino, npy=npy)
    return info, fd, mapped, data


def _release(fds: list[int], maps: list[mmap.mmap | None]) -> None:
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


class FileSource:
    """One or more files mapped read-only; build with :func:`open_source`.

    Attributes
    ----------
    paths
        The paths as given (as ``str``).
    files
        A :class:`FileInfo` per file.
    offset, record_size
        The defaults given to :func:`open_source` (used by :meth:`layout` when not overridden).
    """

    def __init__(self, paths: Sequence[str | os.PathLike], offset: int | None = None,
                 record_size: int | None = None) -> None:
        names = [os.fspath(p) for p in paths]
        if not names:
            raise SourceError("no files given (choose at least one file)", field="files")
        self._fds: list[int] = []
        self._maps: list[mmap.mmap | None] = []
        self._data: list[np.ndarray] = []
        self._finalizer = weakref.finalize(self, _release, self._fds, self._maps)
        infos = []
        try:
            for name in names:
                info, fd, mapped, data = _open_one(name)
                self._fds.append(fd)
                self._maps.append(mapped)
                self._data.append(data)
                infos.append(info)
        except BaseException:
            self.close()
            raise
        self.paths: tuple[str, ...] = tuple(names)
        self.files: tuple[FileInfo, ...] = tuple(infos)
        self.offset = offset
        self.record_size = record_size
        try:
            self.layout()  # validate offset / record_size now, so errors show at open
        except BaseException:
            self.close()
            raise

    # -- access ---------------------------------------------------------------------------
    def data(self, index: int) -> np.ndarray:
        """Read-only ``uint8`` view of the whole of file ``index`` (its memory map).

        Raises
        ------
        SourceError
            The source was closed.
        """
        if self.closed:
            raise SourceError("the files were closed (open them again)", field="files")
        return self._data[index]

    @property
    def npy(self) -> NpyHeader | None:
        """The common ``.npy`` header when every file is a ``.npy`` with the same dtype, byte
        order, shape and layout (data offsets may differ), else None."""
        headers = [info.npy for info in self.files]
        first = headers[0]
        if first is None or any(
            h is None or (h.dtype, h.little_endian, h.shape, h.fortran_order)
            != (first.dtype, first.little_endian, first.shape, first.fortran_order)
            for h in headers
        ):
            return None
        return first

    # -- layout ---------------------------------------------------------------------------
    def layout(self, offset: object = _KEEP, record_size: object = _KEEP) -> SourceLayout:
        """Split the files into input elements (see the module docstring). No byte is read.

        Parameters
        ----------
        offset
            Bytes to skip in every file; None: each ``.npy`` file's data offset (then only the
            data its header promises is used), else 0. Omitted: the value given at open.
        record_size
            Bytes per element; None: the whole remainder of each file is one element.
            Omitted: the value given at open.

        Raises
        ------
        SourceError
            ``field="offset"``: not an integer, negative, or past the end of a file.
            ``field="record_size"``: not an integer, <= 0, larger than a file's data, or files
            holding different numbers of records.
        """
        offset = _check_int(self.offset if offset is _KEEP else offset, "offset")
        record_size = _check_int(
            self.record_size if record_size is _KEEP else record_size, "record_size"
        )
        if self.closed:
            raise SourceError("the files were closed (open them again)", field="files")
        if record_size is not None and record_size <= 0:
            raise SourceError(
                f"record_size {record_size} must be greater than zero (use the number of bytes "
                "in one record, or no record size)",
                field="record_size",
            )
        arrays, starts, lengths, trailing, counts = [], [], [], [], []
        for info, data in zip(self.files, self._data):
            start, end = _data_range(info, offset)
            available = end - start
            if record_size is None:
                arrays.append(data[start:end])
                lengths.append(available)
                trailing.append(info.size - end)
            else:
                if record_size > available:
                    raise SourceError(
                        f"record_size {record_size} is larger than the {available} bytes of data "
                        f"in '{info.path}' after offset {start} (use a record size of at most "
                        f"{available}, or a smaller offset)",
                        field="record_size",
                    )
                count = available // record_size
                used = count * record_size
                arrays.append(data[start:start + used].reshape(count, record_size))
                lengths.append(record_size)
                trailing.append(info.size - start - used)
                counts.append(count)
            starts.append(start)
        if counts and len(set(counts)) > 1:
            listing = ", ".join(f"'{p}' has {c}" for p, c in zip(self.paths, counts))
            raise SourceError(
                f"the files hold different numbers of records of {record_size} bytes: {listing} "
                "(choose files of equal size, a record size that divides them equally, or open "
                "them one at a time)",
                field="record_size",
            )
        single = len(self.files) == 1
        if record_size is None:
            input_shape: tuple[int, ...] = () if single else (len(self.files),)
        else:
            input_shape = (counts[0],) if single else (len(self.files), counts[0])
        return SourceLayout(
            arrays=tuple(arrays), input_shape=input_shape, starts=tuple(starts),
            element_lengths=tuple(lengths), record_size=record_size,
            trailing_bytes=tuple(trailing),
        )

    # -- lifetime -------------------------------------------------------------------------
    def check_unchanged(self) -> None:
        """Refuse to go on if a file changed since it was opened (size, mtime or identity).

        Call it before touching mapped pages: a file truncated under its map would raise
        ``SIGBUS`` there. Checks the open descriptor (the mapped inode itself) and the path
        (replaced or deleted files).

        Raises
        ------
        SourceError
            ``'x' changed on disk since it was opened (size 100 -> 50 bytes) (reload it)``,
            ``field="files"``; also after :meth:`close`.
        """
        if not self._fds and self.files:
            raise SourceError("the files were closed (open them again)", field="files")
        for info, fd in zip(self.files, self._fds):
            detail = _change(info, fd)
            if detail:
                raise SourceError(
                    f"'{info.path}' changed on disk since it was opened ({detail}) (reload it)",
                    field="files",
                )

    def close(self) -> None:
        """Close the descriptors and the maps (maps still viewed by arrays close with them)."""
        self._data = []
        _release(self._fds, self._maps)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return not self._fds

    def __enter__(self) -> FileSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"FileSource({list(self.paths)!r})"


def _check_int(value: object, field: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise SourceError(f"{field} must be a whole number of bytes, not {value!r} "
                          "(e.g. 0 or 128)", field=field)
    if field == "offset" and value < 0:
        raise SourceError(f"offset {value} is negative (use 0 or more bytes to skip)",
                          field="offset")
    return int(value)


def _data_range(info: FileInfo, offset: int | None) -> tuple[int, int]:
    """Byte range ``[start, end)`` of a file's data for an offset (None: .npy data or 0)."""
    if offset is None:
        if info.npy is not None:
            return info.npy.data_offset, info.npy.data_offset + info.npy.nbytes
        return 0, info.size
    if offset > info.size:
        raise SourceError(
            f"offset {offset} is past the end of '{info.path}' ({info.size} bytes) "
            f"(use an offset of at most {info.size})",
            field="offset",
        )
    return offset, info.size


def _change(info: FileInfo, fd: int) -> str:
    """Why a file no longer matches its record ('' if it does)."""
    try:
        mapped = os.fstat(fd)
    except OSError:
        return "its descriptor is no longer valid"
    if mapped.st_size != info.size:
        return f"size {info.size} -> {mapped.st_size} bytes"
    try:
        current = os.stat(info.path)
    except OSError:
        return "it was deleted or moved"
    if (current.st_dev, current.st_ino) != (info.device, info.inode):
        return "it was replaced by another file"
    if current.st_size != info.size:
        return f"size {info.size} -> {current.st_size} bytes"
    if current.st_mtime_ns != info.mtime_ns:
        return "it was modified"
    return ""


def open_source(paths: str | os.PathLike | Sequence[str | os.PathLike], *,
                offset: int | None = None, record_size: int | None = None) -> FileSource:
    """Open and memory-map files read-only as a source of ``decode_raw`` elements (SPEC 3).

    Parameters
    ----------
    paths
        One path or a sequence of paths.
    offset, record_size
        Defaults for :meth:`FileSource.layout`, validated now.

    Returns
    -------
    FileSource
        Close it (or use it as a context manager) to release the files.

    Raises
    ------
    SourceError
        ``field="files"``: no files, a missing file, permission denied, a directory, a FIFO,
        device or socket (never opened), a corrupt ``.npy`` header; ``field="offset"`` /
        ``"record_size"``: see :meth:`FileSource.layout`.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return FileSource(list(paths), offset=offset, record_size=record_size)
