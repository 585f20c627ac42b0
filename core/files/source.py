"""What the pipeline reads: the :class:`Source` interface (byte buffers split into ``decode_raw``
input elements by :meth:`Source.layout`) and :class:`MappedRange`, one read-only map behind it.

The sources themselves: files (:mod:`core.files.sources`), objects in memory
(:mod:`core.files.memory`), remote objects (:mod:`core.files.remote`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from core.errors import SourceError
from core.files.file_change import FileChange
from core.files.layout import KEEP, SourceLayout, check_whole, elements_layout, records_layout
from core.files.npy_header import NpyHeader
from core.files.safe_open import FileInfo
from core.files.shrink_guard import ShrinkGuard
from core.text.names import printable_name

__all__ = ["MappedRange", "Source"]

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
    #: For a map that holds no data (a remote object's, :mod:`core.files.remote`):
    #: ``reader(target, position)`` fills the memoryview ``target`` with the bytes from
    #: ``position`` and returns the count (fewer only at the end); None: ``pread`` on ``fd``.
    reader: Callable[[memoryview, int], int] | None = None
    #: With ``reader``: ``cached(position, stop)`` says without waiting whether those bytes are
    #: at hand; ``fetch_spans(spans, done)`` brings the ``(position, stop)`` ranges in, in
    #: parallel (short ones as pages: :mod:`core.files.block_cache`), waiting when ``done`` is
    #: None, else calling ``done(error or None)`` from another thread when they are in.
    cached: Callable[[int, int], bool] | None = None
    fetch_spans: Callable[[list, Callable[[BaseException | None], None] | None], None] | None = None
    #: With ``reader``: ``hold(nbytes)`` is a context in which the source's cache keeps that
    #: many more bytes (a scan of several passes fetches its bytes once).
    hold: Callable[[int], object] | None = None


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
    #: Whether the buffers are remote objects (URLs: remembered by URL, never watched).
    remote = False
    #: Whether the maps hold the bytes (False for remote objects: every read goes through the
    #: source, :mod:`core.files.remote`).
    holds_data = True
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

    def redirected(self) -> tuple[tuple[str, str], ...]:
        """``(name, answered by)`` for each buffer a server redirected to another URL (remote
        objects only: none here)."""
        return ()

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
