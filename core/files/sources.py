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
run. A file that shrinks under its map: see :mod:`core.files.shrink_guard` (SIGBUS).
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
from core.files.npy_header import NpyHeader
from core.files.safe_open import FileInfo, ensure_descriptors, open_mapped, release
from core.files.shrink_guard import ShrinkGuard
from core.text.names import printable_name

__all__ = ["FileInfo", "FileSource", "MappedRange", "Source", "SourceLayout", "open_source"]

_KEEP = object()  # "use the value given to open_source"


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
    elements: tuple[tuple[int, int], ...] | None = None
    """Explicit element byte ranges ``(offset, length)`` in the one file (a batch of strings
    gathered from a container, e.g. a TFRecord feature in every record), or None. ``arrays``
    then holds one ``(n, L)`` strided view of the map when the elements are evenly spaced with
    equal lengths, else the ``(span,)`` view covering them all (the pipeline gathers them)."""


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
        offset = _check_int(self.offset if offset is _KEEP else offset, "offset")
        record_size = _check_int(
            self.record_size if record_size is _KEEP else record_size, "record_size"
        )
        length = _check_int(length, "length")
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
            start, end = _data_range(info, offset, length)
            available = end - start
            if record_size is None:
                arrays.append(data[start:end])
                lengths.append(available)
                trailing.append(info.size - end)
            else:
                if record_size > available and available == 0:
                    # "use a record size of at most 0" would be no advice at all.
                    raise SourceError(
                        f"record_size {record_size} is larger than the 0 bytes of data in "
                        f"'{info.path}' after offset {start} (there is nothing to split into "
                        "records: choose a smaller offset, no record size, or another file)",
                        field="record_size",
                    )
                if record_size > available:
                    raise SourceError(
                        f"record_size {record_size} is larger than the {available} bytes of data "
                        f"in '{info.path}' after offset {start} (use a record size of at most "
                        f"{available}, or a smaller offset)",
                        field="record_size",
                    )
                count = available // record_size
                covered = count * record_size
                if used is not None and 0 < used < record_size and available - covered >= used:
                    # the last record ends within the data: its used bytes are all there
                    count += 1
                    covered = (count - 1) * record_size + used
                    arrays.append(np.ndarray((count, used), np.uint8, buffer=data, offset=start,
                                             strides=(record_size, 1)))
                else:
                    arrays.append(data[start:start + covered].reshape(count, record_size))
                lengths.append(record_size)
                trailing.append(info.size - start - covered)
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


def elements_layout(source: Source, elements: object, offset: object = None,
                    record_size: object = None, length: object = None) -> SourceLayout:
    """The layout of explicit element byte ranges: input shape ``(n,)``, element ``i`` the
    ``elements[i] = (offset, length)`` bytes of the one file.

    Evenly spaced elements of one length are a strided ``(n, L)`` view of the map (no copy);
    others are gathered by the pipeline (one copy, budget-checked). No byte is read here.

    Raises
    ------
    SourceError
        ``field="elements"``: several files, an offset/length/record_size given as well, no
        elements, or a range that is not whole numbers inside the file.
    """
    if len(source.files) != 1:
        raise SourceError("explicit elements address one file, but several are open (open "
                          "the container file alone)", field="elements")
    for name, value in (("offset", offset), ("record_size", record_size), ("length", length)):
        if value is not None and value is not _KEEP:
            raise SourceError(f"elements give every byte range, so {name} must not be set as "
                              f"well (clear {name}, or clear the elements)", field="elements")
    info = source.files[0]
    ranges = []
    for number, pair in enumerate(elements):  # type: ignore[attr-defined]
        try:
            start, size = (int(v) for v in pair if not isinstance(v, (bool, np.bool_)))
        except (TypeError, ValueError):
            raise SourceError(f"element {number} must be an (offset, length) pair of whole "
                              f"numbers, not {pair!r}", field="elements") from None
        if start < 0 or size < 0 or start + size > info.size:
            raise SourceError(
                f"element {number} ({size} bytes from byte {start}) is not inside "
                f"'{printable_name(info.path)}' ({info.size} bytes) (the container's listing "
                "is out of date or corrupt: list it again)", field="elements")
        ranges.append((start, size))
    if not ranges:
        raise SourceError("no elements given (a batch needs at least one byte range)",
                          field="elements")
    data = source.data(0)
    lengths = {size for _, size in ranges}
    steps = {b[0] - a[0] for a, b in zip(ranges, ranges[1:])}
    first, common = ranges[0][0], ranges[0][1]
    if len(lengths) == 1 and len(steps) <= 1 and min(steps, default=0) >= 0:
        step = steps.pop() if steps else common
        # base=data: the view's .base is the map's view, so the pipeline knows it is no copy.
        array = np.ndarray((len(ranges), common), np.uint8, buffer=data, offset=first,
                           strides=(step, 1))
    else:
        low = min(s for s, _ in ranges)
        high = max(s + n for s, n in ranges)
        array = data[low:high]
    return SourceLayout(
        arrays=(array,), input_shape=(len(ranges),), starts=(first,),
        element_lengths=(max(lengths),), record_size=None, trailing_bytes=(0,),
        elements=tuple(ranges),
    )


def _check_int(value: object, field: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise SourceError(f"{field} must be a whole number of bytes, not {value!r} "
                          "(e.g. 0 or 128)", field=field)
    if field == "offset" and value < 0:
        raise SourceError(f"offset {value} is negative (use 0 or more bytes to skip)",
                          field="offset")
    if field == "length" and value < 0:
        raise SourceError(f"length {value} is negative (use 0 or more bytes of data, or no "
                          "length to read to the end of the file)", field="length")
    return int(value)


def _data_range(info: FileInfo, offset: int | None, length: int | None) -> tuple[int, int]:
    """Byte range ``[start, end)`` of a file's data (offset None: .npy data or 0; length None:
    to the end of the file, or of the .npy data when both are None)."""
    if offset is None and info.npy is not None and length is None:
        return info.npy.data_offset, info.npy.data_offset + info.npy.nbytes
    if offset is None:
        start = info.npy.data_offset if info.npy is not None else 0
    else:
        start = offset
    if start > info.size:
        raise SourceError(
            f"offset {start} is past the end of '{printable_name(info.path)}' ({info.size} bytes) "
            f"(use an offset of at most {info.size})",
            field="offset",
        )
    if length is None:
        return start, info.size
    if start + length > info.size:
        raise SourceError(
            f"length {length} from offset {start} reaches past the end of "
            f"'{printable_name(info.path)}' ({info.size} bytes, so at most {info.size - start} "
            "bytes follow the offset): use a smaller length or offset, or check that the file "
            "is complete",
            field="length",
        )
    return start, start + length


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
