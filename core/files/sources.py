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

import numpy as np

from core.errors import SourceError
from core.files.file_change import FileChange, detect_change
from core.files.npy_header import StructuredNpyError
from core.files.safe_open import FileInfo, ensure_descriptors, open_mapped, release
from core.files.shrink_guard import ShrinkGuard
from core.files.source import MappedRange, Source
from core.text.names import printable_name

__all__ = ["FileInfo", "FileSource", "MappedRange", "Source", "open_source", "structured_npy"]


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
                offset: int | None = None, record_size: int | None = None) -> Source:
    """Open files (memory-mapped, read-only) or URLs (:mod:`core.files.remote`) as a source of
    ``decode_raw`` elements (docs/semantics.md §3).

    Parameters
    ----------
    paths
        One path or URL, or a sequence of them (all local or all URLs; ``file://`` URLs are
        local paths); a glob stands for its matches in natural order (:mod:`core.files.globbing`).
    offset, record_size
        Defaults for :meth:`Source.layout`, validated now.

    Returns
    -------
    Source
        A :class:`FileSource`, or a ``RemoteSource`` for URLs. Close it (or use it as a context
        manager) to release the files.

    Raises
    ------
    SourceError
        ``field="files"``: no files, a missing file, permission denied, a directory, a FIFO,
        device or socket (never opened), local files mixed with URLs, a URL that cannot be
        opened (:func:`core.files.remote.open_remote`); ``field="offset"`` /
        ``"record_size"``: see :meth:`FileSource.layout`. An unusable ``.npy`` header is not
        raised here: it is kept in ``FileInfo.npy_error`` for the pipeline (it matters only when
        a default would come from the header).
    """
    from core.files.globbing import expand_globs
    from core.files.remote import is_url, local_path_of, open_remote

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    names = expand_globs([local_path_of(p) if isinstance(p, str) else os.fspath(p) for p in paths])
    remote = [is_url(p) for p in names]
    if any(remote):
        if not all(remote):
            raise SourceError("a batch is either local files or URLs, not both (copy the local files to the "
                              "same place as the others, or open them separately)", field="files")
        return open_remote([str(p) for p in names], offset=offset, record_size=record_size)
    return FileSource(list(names), offset=offset, record_size=record_size)


def structured_npy(path: str) -> StructuredNpyError | None:
    """The records a structured ``.npy`` file holds (its layout and data offset), or None."""
    try:
        with open_source(path) as source:
            found = source.files[0].npy_error
    except SourceError:
        return None
    return found if isinstance(found, StructuredNpyError) else None
