"""File sources: files mapped read-only into ``decode_raw`` input elements (docs/semantics.md §3).

A :class:`FileSource` opens one or more files once, memory-maps each one read-only
(``mmap.ACCESS_READ``; files are never opened for writing) and describes, through
:meth:`FileSource.layout`, how their bytes become input elements:

- ``offset`` bytes of header are skipped (default: a ``.npy`` file's data offset, else 0);
- ``length`` bytes after it are the data (default: to the end of the file, or the bytes a
  ``.npy`` header promises); a container entry (a tensor inside a larger file) is exactly an
  ``offset`` and a ``length``;
- ``record_size`` splits the rest into elements of that many bytes, a ``uint8`` view of shape
  ``(n_records, record_size)``; bytes after the last whole record are counted in
  ``trailing_bytes``, never silently dropped. When the decode reads only the first ``used``
  bytes of each record (``fixed_length`` below ``record_size``), a last record counts when
  its used bytes end within the data (``start + (n - 1) * record_size + used <= end``), though
  its padding does not: the view is then ``(n_records, used)`` with stride ``record_size``. Without it the whole remainder is one element
  (a scalar string), a ``uint8`` view of shape ``(L,)``;
- several files form a batch: input shape ``(n_files,)``, or ``(n_files, n_records)`` when every
  file holds the same number of records.

Safety (details in :mod:`core.files.safe_open`): a FIFO, device, socket or directory is refused
before it is opened; files are mapped read-only; an empty file reads as ``b""``.
:meth:`FileSource.check_unchanged` refuses to go on when a file changed since it was opened
(:mod:`core.files.file_change`); :class:`core.pipeline.pipeline.Pipeline` calls it before every
run. A file that shrinks under its map: see :mod:`core.files.shrink_guard` (SIGBUS). The
splitting rules themselves are :mod:`core.files.layout`'s.
"""

from __future__ import annotations

import mmap
import os
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.errors import SourceError
from core.files.file_change import FileChange, detect_change
from core.files.layout import KEEP, SourceLayout, check_whole, elements_layout, records_layout
from core.files.npy_header import NpyHeader
from core.files.safe_open import FileInfo, ensure_descriptors, open_mapped, release
from core.files.shrink_guard import ShrinkGuard
from core.text.names import printable_name

__all__ = ["FileInfo", "FileSource", "MappedRange", "Source", "open_source"]

_KEEP = KEEP  # "use the value given to open_source"


@dataclass(frozen=True)
class MappedRange:
    """One read-only map of a file: ``length`` bytes at ``address``, file bytes from ``file_offset``.

    What :class:`core.scan.blocks.BlockReader` needs to read a view of the map with ``pread``
    instead of touching its pages.
    """

    path: str
    fd: int
    address: int
    length: int
    file_offset: int = 0


class Source:
    """What the pipeline reads: byte buffers (files, or objects in memory) split into
    ``decode_raw`` input elements by :meth:`layout`. One interface for both kinds of source.

    Subclasses fill :attr:`paths` (a name per buffer: a path, or a shown name such as
    ``<bytes>``), :attr:`files` (a :class:`FileInfo` per buffer), ``_data`` (a read-only
    ``uint8`` view of each whole buffer) and :attr:`shrink_guard`; they say whether their
    buffers are files (:attr:`on_disk`) and may override the change checks, which find
    nothing here (a buffer in memory does not change behind a map).

    Attributes
    ----------
    paths
        One name per buffer (as ``str``).
    files
        A :class:`FileInfo` per buffer.
    offset, record_size
        The defaults used by :meth:`layout` when not overridden.
    """

    #: Whether the buffers are files on disk (watched for changes, remembered in settings).
    on_disk = False
    #: What fills the defaults of :attr:`npy` (for step lines): a file's header, an array's type.
    header_kind = ".npy header"

    paths: tuple[str, ...]
    files: tuple[FileInfo, ...]
    offset: int | None
    record_size: int | None
    shrink_guard: ShrinkGuard
    _data: list[np.ndarray]

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

    def mapped_ranges(self) -> tuple[MappedRange, ...]:
        """The file maps behind the buffers, for :class:`core.scan.blocks.BlockReader`; none
        here (views of memory are read as they are)."""
        return ()

    def file_size(self, index: int) -> int:
        """Size in bytes of file ``index`` as opened (the length of its map)."""
        return self.files[index].size

    def bytes_at(self, index: int, offset: int, nbytes: int) -> bytes:
        """A copy of up to ``nbytes`` bytes of file ``index`` from ``offset`` (fewer at its end).

        Reads the file as opened (its map): a file replaced on disk still reads its old bytes;
        one that shrank reads zeros past its new end instead of faulting (the shrink guard
        checks that file first, one ``fstat``). Negative ``offset`` / ``nbytes`` count as 0.

        Raises
        ------
        SourceError
            The source was closed.
        IndexError
            ``index`` is not a file of the source.
        """
        data = self.data(index)
        self.shrink_guard.protect(index)
        start = max(int(offset), 0)
        return bytes(data[start:start + max(int(nbytes), 0)])

    def read_exact(self, index: int, offset: int, nbytes: int, what: str = "bytes") -> bytes:
        """A copy of exactly ``nbytes`` bytes of file ``index`` from ``offset`` (the guarded read
        for parsers: a short read is an error, never zeros or a fault).

        Here (buffers in memory) a slice of the buffer; :class:`FileSource` reads its files with
        ``pread`` and never touches the map.

        Raises
        ------
        SourceError
            The range is not inside the buffer as opened, the buffer shrank, or the source was
            closed.
        """
        data = self.data(index)
        start, count = int(offset), int(nbytes)
        if start < 0 or count < 0 or start + count > data.size:
            raise SourceError(f"{what} ({count} bytes from byte {start}) is not inside "
                              f"'{printable_name(self.paths[index])}' ({data.size} bytes)",
                              field="files")
        return bytes(data[start:start + count])

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
    def layout(self, offset: object = _KEEP, record_size: object = _KEEP,
               length: object = None, elements: object = None, used: int | None = None) -> SourceLayout:
        """Split the files into input elements (see the module docstring). No byte is read.

        Parameters
        ----------
        offset
            Bytes to skip in every file; None: each ``.npy`` file's data offset (then only the
            data its header promises is used), else 0. Omitted: the value given at open.
        record_size
            Bytes per element; None: the whole remainder of each file is one element.
            Omitted: the value given at open.
        length
            Bytes of data after the offset in every file; None: up to the end of the file (or
            of the data a ``.npy`` header promises, when the offset is None too).
        elements
            Explicit ``(offset, length)`` byte ranges in the one file, forming a batch of strings
            of input shape ``(n,)`` (see :func:`elements_layout`); None: offset/length/records.
        used
            Bytes of each record the decode reads (``fixed_length`` below ``record_size``: the
            rest is truncated away), or None (the whole record). A last record that holds
            these bytes counts, though the record's padding after them is past the data (a
            field of the last record of a padded structured array); the records are then an
            ``(n, used)`` view with stride ``record_size``.

        Raises
        ------
        SourceError
            ``field="offset"``: not an integer, negative, or past the end of a file.
            ``field="length"``: not an integer, negative, or reaching past the end of a file.
            ``field="record_size"``: not an integer, <= 0, larger than a file's data, or files
            holding different numbers of records.
            ``field="elements"``: see :func:`elements_layout`.
        """
        if elements is not None:
            if self.closed:
                raise SourceError("the files were closed (open them again)", field="files")
            return elements_layout(self, elements, offset, record_size, length)
        offset = check_whole(self.offset if offset is _KEEP else offset, "offset")
        record_size = check_whole(self.record_size if record_size is _KEEP else record_size, "record_size")
        length = check_whole(length, "length")
        if self.closed:
            raise SourceError("the files were closed (open them again)", field="files")
        return records_layout(self.files, self._data, self.paths, offset, record_size, length, used)

    # -- lifetime -------------------------------------------------------------------------
    def check_unchanged(self) -> None:
        """Refuse to go on if a buffer changed since it was opened (nothing to check here).

        Raises
        ------
        SourceError
            The source was closed (``field="files"``).
        """
        if self.closed:
            raise SourceError("the files were closed (open them again)", field="files")

    def changes(self) -> tuple[FileChange, ...]:
        """How each changed buffer differs from its record at open (empty: none)."""
        return ()

    def protect_shrunk(self) -> str:
        """Protect the buffers that shrank (files only); its message, or ''."""
        return self.shrink_guard.protect_all()

    def close(self) -> None:
        """Let go of the buffers."""
        self._data.clear()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return not self._data and bool(self.files)

    def reopen(self) -> Source:
        """A new source over the same buffers with the same defaults (a reload)."""
        raise NotImplementedError

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class FileSource(Source):
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

    on_disk = True

    def __init__(self, paths: Sequence[str | os.PathLike], offset: int | None = None,
                 record_size: int | None = None) -> None:
        names = [os.fspath(p) for p in paths]
        if not names:
            raise SourceError("no files given (choose at least one file)", field="files")
        self._fds: list[int] = []
        self._maps: list[mmap.mmap | None] = []
        self._data: list[np.ndarray] = []
        self._finalizer = weakref.finalize(self, release, self._fds, self._maps)
        infos = []
        ensure_descriptors(len(names))
        try:
            for name in names:
                info, fd, mapped, data = open_mapped(name, len(names))
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
        self.shrink_guard = ShrinkGuard(self.paths, [i.size for i in infos], self._fds, self._data)
        """Protects the maps when a file shrinks (see :mod:`core.files.shrink_guard`)."""
        try:
            self.layout()  # validate offset / record_size now, so errors show at open
        except BaseException:
            self.close()
            raise

    def bytes_at(self, index: int, offset: int, nbytes: int) -> bytes:
        """A copy of up to ``nbytes`` bytes of file ``index`` from ``offset`` (fewer at its end).

        Read with ``pread`` on the descriptor of the file as opened (a file replaced on disk
        still reads its old bytes), never through the map, so a file cut meanwhile cannot fault:
        bytes that were inside the file at open but are gone now read as zeros (what the map
        shows after :func:`~core.files.shrink_guard.zero_fill_past`), and the shrink guard
        protects the map (one ``fstat``). Negative ``offset`` / ``nbytes`` count as 0.

        Raises
        ------
        SourceError
            The source was closed.
        IndexError
            ``index`` is not a file of the source.
        """
        self.data(index)  # closed / index checks
        size = self.files[index].size
        start = min(max(int(offset), 0), size)
        count = min(max(int(nbytes), 0), size - start)
        got = _pread_all(self._fds[index], start, count)
        if len(got) < count:
            self.shrink_guard.protect(index)
            got += bytes(count - len(got))
        return got

    def read_exact(self, index: int, offset: int, nbytes: int, what: str = "bytes") -> bytes:
        """Exactly ``nbytes`` bytes of file ``index`` from ``offset``, read with ``pread`` in
        chunks of at most :data:`READ_CHUNK` bytes (the one guarded read of parsers: the map is
        never touched, so a file cut meanwhile gives "changed on disk", not ``SIGBUS``).

        Raises
        ------
        SourceError
            The range is not inside the file as opened, the file is now shorter than the range
            (``'x' changed on disk ... (reload it)``), or the source was closed.
        """
        self.data(index)
        size = self.files[index].size
        start, count = int(offset), int(nbytes)
        if start < 0 or count < 0 or start + count > size:
            raise SourceError(f"{what} ({count} bytes from byte {start}) is not inside "
                              f"'{printable_name(self.paths[index])}' ({size} bytes)",
                              field="files")
        got = _pread_all(self._fds[index], start, count)
        if len(got) < count:
            message = self.shrink_guard.protect(index)
            now = _size_now(self._fds[index])
            raise SourceError(
                message or f"'{printable_name(self.paths[index])}' changed on disk while being "
                f"read: it is now {now} bytes, and byte {start + len(got)} is gone (reload it)",
                field="files")
        return got

    def mapped_ranges(self) -> tuple[MappedRange, ...]:
        """The maps of the files (empty files have none), for :class:`core.scan.blocks.BlockReader`."""
        if self.closed:
            return ()
        return tuple(
            MappedRange(path, fd, data.__array_interface__["data"][0], data.size)
            for path, fd, data in zip(self.paths, self._fds, self._data) if data.size
        )

    # -- lifetime -------------------------------------------------------------------------
    def check_unchanged(self) -> None:
        """Refuse to go on if a file changed since it was opened (the rule of
        :mod:`core.files.file_change`: size, mtime or identity; a replaced file too).

        Call it before touching mapped pages; shrunk files are protected first (see
        :mod:`core.files.shrink_guard`).

        Raises
        ------
        SourceError
            ``'x' changed on disk since it was opened (size 100 -> 50 bytes) (reload it)``,
            ``field="files"``; also after :meth:`close`.
        """
        if not self._fds and self.files:
            raise SourceError("the files were closed (open them again)", field="files")
        changes = self.changes()
        if changes:
            raise SourceError(changes[0].error_message, field="files")

    def changes(self) -> tuple[FileChange, ...]:
        """How each changed file differs from its record at open, in file order (empty: none).

        Protects shrunk files first (:meth:`protect_shrunk`). Two system calls per file at most;
        nothing is opened. Empty after :meth:`close`.
        """
        self.protect_shrunk()
        found = (detect_change(info, fd) for info, fd in zip(self.files, self._fds))
        return tuple(change for change in found if change is not None)

    def close(self) -> None:
        """Close the descriptors and the maps (maps still viewed by arrays close with them)."""
        self._data.clear()  # in place: the shrink guard reads this list
        release(self._fds, self._maps)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return not self._fds

    def __enter__(self) -> FileSource:
        return self

    def reopen(self) -> FileSource:
        """Open the same paths again with the same defaults (a reload after a change on disk).

        Raises
        ------
        SourceError
            As :func:`open_source`.
        """
        return FileSource(self.paths, offset=self.offset, record_size=self.record_size)

    def __repr__(self) -> str:
        return f"FileSource({list(self.paths)!r})"


#: Largest single ``pread`` of :meth:`FileSource.read_exact` (a 100 MB header is read in chunks).
READ_CHUNK = 8 << 20


def _pread_all(fd: int, offset: int, count: int) -> bytes:
    """Up to ``count`` bytes from ``offset`` (fewer only at the end of the file), in chunks."""
    parts = []
    done = 0
    while done < count:
        try:
            chunk = os.pread(fd, min(count - done, READ_CHUNK), offset + done)
        except OSError as error:
            raise SourceError(f"reading byte {offset + done} failed: {error.strerror or error} "
                              "(reload the file)", field="files") from None
        if not chunk:
            break
        parts.append(chunk)
        done += len(chunk)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _size_now(fd: int) -> int | str:
    try:
        return os.fstat(fd).st_size
    except OSError:
        return "unknown"


def open_source(paths: str | os.PathLike | Sequence[str | os.PathLike], *,
                offset: int | None = None, record_size: int | None = None) -> FileSource:
    """Open and memory-map files read-only as a source of ``decode_raw`` elements (docs/semantics.md §3).

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
        device or socket (never opened); ``field="offset"`` /
        ``"record_size"``: see :meth:`FileSource.layout`. An unusable ``.npy`` header is not
        raised here: it is kept in ``FileInfo.npy_error`` for the pipeline (it matters only when
        a default would come from the header).
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return FileSource(list(paths), offset=offset, record_size=record_size)
