"""Remote files: objects behind URLs (``https://``, ``s3://``, ``gs://``, ``hf://``, any fsspec
protocol) as a read-only :class:`~core.files.sources.Source`.

Rules
-----
- A URL is text that starts with ``scheme://`` (:func:`is_url`); ``file://`` URLs are local paths.
  The file system is fsspec's for the scheme, configured as fsspec and the protocol's package
  configure themselves (their configuration files and environment variables: credentials are
  never taken from, nor kept in, anything of ours). A protocol whose package is missing is
  refused with the extra that installs it (:data:`EXTRAS`).
- Opening costs one ``info`` request per object (size and version: ETag or modification time),
  reused by another open of the same URL within :data:`INFO_SECONDS`; no byte is read until
  something asks for it. Every byte then comes through the one shared
  :class:`~core.files.block_cache.BlockCache` (bounded, LRU; :func:`set_cache_capacity`), and
  HTTP ranges are checked as :mod:`core.files.remote_fetch` says. Nothing is ever written.
- The source has a map of each object's size, as file sources do, so layouts, views, strides
  and the byte map work unchanged; the map holds no data. Every read goes through the source:
  :meth:`RemoteSource.read_exact` (parsers), :meth:`RemoteSource.bytes_at` (hex view, samples)
  and the ``reader`` of its :class:`~core.files.sources.MappedRange` (block reads: table tiles,
  plots, statistics, compare, export, copies). Code that touched the map's pages directly would
  read zeros; no engine or app path does (the remote tests map it ``PROT_NONE``, so one that did
  would crash them).
- Changes: an answer that shows another size or ETag than at open marks the object changed, and
  so does a re-check of its ``info`` in the background at most every :data:`CHECK_SECONDS`
  (:meth:`RemoteSource.changes` never waits for the network). A change is reported like a file
  changed on disk (``modified``, ``shrank``, ``grew``, ``deleted``): the views are cleared until a
  reload, and the last good view's numbers are never mixed with new bytes.
"""

from __future__ import annotations

import itertools
import mmap
import re
import threading
import time
from collections.abc import Sequence

import numpy as np

from core.errors import MissingObjectError, SourceError
from core.files.block_cache import DEFAULT_CAPACITY_BYTES, BlockCache, Transfer
from core.files.file_change import FileChange
from core.files.npy_header import PREFIX_BYTES, looks_like_npy, parse_npy_header
from core.files.remote_fetch import ObjectInfo, call_with_timeout, http_fetch, object_info, remote_error, system_fetch
from core.files.safe_open import FileInfo
from core.files.shrink_guard import ShrinkGuard
from core.files.source import MappedRange, Source
from core.text.names import printable_name

__all__ = ["CHECK_SECONDS", "EXTRAS", "RemoteSource", "cache", "filesystem_of", "is_url", "local_path_of", "object_size", "open_remote",
           "list_remote_folder", "read_object", "set_cache_capacity"]

#: Seconds between two background re-checks of an open object's size and version.
CHECK_SECONDS = 10.0
#: The package extra that brings each protocol's file system.
EXTRAS = {"http": "remote", "https": "remote", "s3": "s3", "s3a": "s3", "gs": "gcs", "gcs": "gcs", "hf": "hf"}

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_serials = itertools.count(1)
#: Protection of the placeholder maps (tests set mmap.PROT_NONE: a direct touch then crashes).
PLACEHOLDER_PROT = mmap.PROT_READ

_cache_lock = threading.Lock()
_cache: BlockCache | None = None


def is_url(text: object) -> bool:
    """Whether ``text`` is a URL to open remotely (``scheme://...``, not ``file://``; a Windows
    drive such as ``C:\\`` is no scheme)."""
    if not isinstance(text, str):
        return False
    match = _SCHEME.match(text)
    return match is not None and len(match[1]) > 1 and match[1].lower() != "file"


def local_path_of(text: str) -> str:
    """A ``file://`` URL's local path (other text unchanged)."""
    if text.lower().startswith("file://"):
        from urllib.parse import unquote, urlsplit
        return unquote(urlsplit(text).path)
    return text


def cache() -> BlockCache:
    """The one block cache of every remote source."""
    global _cache
    with _cache_lock:
        if _cache is None:
            _cache = BlockCache(DEFAULT_CAPACITY_BYTES)
        return _cache


def set_cache_capacity(nbytes: int) -> None:
    """Bytes the block cache may hold (the ``remote/cache_mib`` setting), for the sources open now
    and later; what it holds over that goes, least recently used first."""
    cache().resize(nbytes)


def filesystem_of(url: str):
    """``(file system, path)`` for ``url``, or the extra to install."""
    scheme = _SCHEME.match(url)[1].lower()
    extra = EXTRAS.get(scheme)
    try:
        import fsspec.core
    except ImportError:
        raise SourceError(f"opening {scheme}:// URLs needs fsspec: pip install 'tensor-inspector[{extra or 'remote'}]'",
                          field="files") from None
    try:
        return fsspec.core.url_to_fs(url)
    except ImportError as error:
        hint = f"pip install 'tensor-inspector[{extra}]'" if extra else f"install the package fsspec names ({error})"
        raise SourceError(f"opening {scheme}:// URLs needs that protocol's package: {hint}", field="files") from None
    except ValueError as error:
        if "Protocol not known" in str(error):
            raise SourceError(f"{printable_name(url)}: no file system knows the protocol {scheme}:// (install "
                              "the fsspec package for it, or check the URL)", field="files") from None
        raise remote_error(url, error, "opening") from None
    except BaseException as error:
        raise remote_error(url, error, "opening") from None


#: Seconds an object's ``info`` is reused by the next open of the same URL (a listing, then the
#: tensor opened from it; a shard index, then its shards): every answer is still checked
#: against that size and ETag, so a change is still seen at the first read.
INFO_SECONDS = 5.0
_infos: dict[str, tuple[float, ObjectInfo]] = {}
_infos_lock = threading.Lock()


def _info_of(fs, path: str, url: str) -> ObjectInfo:
    """The object's ``info``: asked once per :data:`INFO_SECONDS` per URL."""
    now = time.monotonic()
    with _infos_lock:
        known = _infos.get(url)
        if known is not None and now - known[0] < INFO_SECONDS:
            return known[1]
    info = object_info(fs, path, url)
    with _infos_lock:
        if len(_infos) > 4096:
            _infos.clear()
        _infos[url] = (now, info)
    return info


def _forget_info(url: str) -> None:
    with _infos_lock:
        _infos.pop(url, None)


def object_size(url: str) -> int:
    """The size of the object at ``url`` (an ``info`` request, unless one was made for it in the
    last :data:`INFO_SECONDS`).

    Raises
    ------
    SourceError
        As :func:`open_remote` (not found, denied, unreachable, a folder, no protocol package).
    """
    fs, path = filesystem_of(url)
    return _info_of(fs, path, url).size


class _Remote:
    """One open object: its file system, version at open, fetch and place in the cache."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.fs, self.path = filesystem_of(url)
        self.info = _info_of(self.fs, self.path, url)
        protocols = self.fs.protocol if isinstance(self.fs.protocol, (tuple, list)) else (self.fs.protocol,)
        http = any(p in ("http", "https") for p in protocols)
        self.fetch = http_fetch(self.fs, url, self.info) if http else system_fetch(self.fs, self.path, url)
        self.key = (url, self.info.size, self.info.etag or self.info.modified or next(_serials))


#: Objects whose ``info`` is asked at once when a batch opens.
OPEN_PARALLEL = 8


def _opened(urls: Sequence[str]) -> list[_Remote]:
    """The objects of ``urls`` opened (``info`` asked) up to :data:`OPEN_PARALLEL` at a time, in order;
    the first failure (in URL order) is raised."""
    if len(urls) == 1:
        return [_Remote(urls[0])]
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(OPEN_PARALLEL, thread_name_prefix="remote-open") as pool:
        futures = [pool.submit(_Remote, url) for url in urls]
        return [future.result() for future in futures]


class RemoteSource(Source):
    """Remote objects as a source (module rules); build with :func:`open_remote`.

    Attributes
    ----------
    paths
        The URLs as given (shown with their credentials masked).
    """

    on_disk = False
    remote = True
    holds_data = False

    def __init__(self, urls: Sequence[str], offset: int | None = None, record_size: int | None = None) -> None:
        if not urls:
            raise SourceError("no files given (choose at least one file)", field="files")
        self.paths = tuple(urls)
        self._cache = cache()
        self._objects: list[_Remote] = []
        self._maps: list[mmap.mmap | None] = []
        self._data: list[np.ndarray] = []
        self._changes: dict[int, FileChange] = {}
        self._checked = time.monotonic()
        self._checking = False
        self._lock = threading.Lock()
        infos = []
        try:
            for obj in _opened(self.paths):
                url = obj.url
                self._cache.add(obj.key, obj.fetch, obj.info.size)
                self._objects.append(obj)
                size = obj.info.size
                placeholder = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE, prot=PLACEHOLDER_PROT) if size else None
                self._maps.append(placeholder)
                data = np.frombuffer(placeholder, np.uint8) if placeholder is not None else np.zeros(0, np.uint8)
                self._data.append(data)
                infos.append(self._file_info(len(self._objects) - 1, url, size))
        except BaseException:
            self.close()
            raise
        self.files: tuple[FileInfo, ...] = tuple(infos)
        self.offset = offset
        self.record_size = record_size
        self.shrink_guard = ShrinkGuard(self.paths, [], [], [])  # nothing is mapped from the objects
        try:
            self.layout()
        except BaseException:
            self.close()
            raise

    def _file_info(self, index: int, url: str, size: int) -> FileInfo:
        """The object's record; its ``.npy`` header is looked for as in a local file's first bytes
        when the source is one object or the name ends with ``.npy`` (a batch of 1,000 shards
        would otherwise cost 1,000 requests at open, before anything is shown)."""
        npy, npy_error = None, None
        named = url.lower().split("?")[0].endswith(".npy")
        if size and (named or len(self.paths) == 1):
            prefix = self._read(index, 0, min(PREFIX_BYTES, size))
            if looks_like_npy(prefix) or named:
                try:
                    npy = parse_npy_header(prefix, name=url, file_size=size)
                except SourceError as error:
                    npy_error = error
        return FileInfo(path=url, size=size, mtime_ns=0, device=0, inode=next(_serials), npy=npy,
                        npy_error=npy_error)

    # -- reads ------------------------------------------------------------------------------
    def _read(self, index: int, start: int, stop: int) -> bytes:
        obj = self._objects[index]
        try:
            return self._cache.read(obj.key, start, stop)
        except SourceError as error:
            self._note_failure(index, error)
            raise

    def bytes_at(self, index: int, offset: int, nbytes: int) -> bytes:
        """A copy of up to ``nbytes`` bytes of object ``index`` from ``offset`` (fewer at its end),
        fetched through the cache."""
        self.data(index)
        start = max(int(offset), 0)
        return self._read(index, start, start + max(int(nbytes), 0))

    def read_exact(self, index: int, offset: int, nbytes: int, what: str = "bytes") -> bytes:
        """Exactly ``nbytes`` bytes of object ``index`` from ``offset`` (parsers' read).

        Raises
        ------
        SourceError
            The range is not inside the object as opened, or the fetch failed.
        """
        self.data(index)
        size = self.files[index].size
        start, count = int(offset), int(nbytes)
        if start < 0 or count < 0 or start + count > size:
            raise SourceError(f"{what} ({count} bytes from byte {start}) is not inside "
                              f"'{printable_name(self.paths[index])}' ({size} bytes)", field="files")
        return self._read(index, start, start + count)

    def mapped_ranges(self) -> tuple[MappedRange, ...]:
        """The placeholder maps, each with the reader that fetches its bytes."""
        if self.closed:
            return ()
        return tuple(
            MappedRange(url, -1, data.__array_interface__["data"][0], data.size,
                        reader=self._reader(index),
                        cached=lambda start, stop, index=index: self.cached(index, start, stop),
                        fetch_spans=lambda spans, done, index=index: self.fetch_spans(index, spans, done),
                        hold=self._cache.hold)
            for index, (url, data) in enumerate(zip(self.paths, self._data)) if data.size)

    def _reader(self, index: int):
        def read_into(target: memoryview, position: int) -> int:
            try:
                return self._cache.read_into(self._objects[index].key, target, position)
            except SourceError as error:
                self._note_failure(index, error)
                raise
        return read_into

    def cached(self, index: int, start: int, stop: int) -> bool:
        """Whether bytes ``[start, stop)`` of object ``index`` are in the cache (no request)."""
        return not self.closed and self._cache.cached(self._objects[index].key, start, stop)

    def fetch_spans(self, index: int, spans: list[tuple[int, int]], done=None) -> None:
        """Bring byte ranges of object ``index`` into the cache, in parallel (waits unless
        ``done(error or None)`` is given; :meth:`core.files.block_cache.BlockCache.fetch_spans`)."""
        try:
            self._cache.fetch_spans(self._objects[index].key, spans, done)
        except SourceError as error:
            self._note_failure(index, error)
            raise

    def transfer(self) -> Transfer:
        """Bytes fetched and requests made by the shared cache so far."""
        return self._cache.transfer()

    def redirected(self) -> tuple[tuple[str, str], ...]:
        """``(url, answered by)`` for each object the server redirected to another URL."""
        return tuple((obj.url, obj.info.final_url) for obj in self._objects
                     if obj.info.final_url and obj.info.final_url.rstrip("/") != obj.url.rstrip("/"))

    def mimetypes(self) -> tuple[str | None, ...]:
        """Each object's content type as the server said (None when it said none)."""
        return tuple(obj.info.mimetype for obj in self._objects)

    # -- changes ----------------------------------------------------------------------------
    def _note_failure(self, index: int, error: SourceError) -> None:
        _forget_info(self.paths[index])  # the next open asks again
        if "changed since it was opened" in str(error):
            size = self._objects[index].info.size
            with self._lock:
                self._changes.setdefault(index, FileChange(self.paths[index], "modified", size, size))

    def changes(self) -> tuple[FileChange, ...]:
        """The changes seen so far (module rules); starts a background re-check when due."""
        if self.closed:
            return ()
        self._maybe_check()
        with self._lock:
            return tuple(self._changes[i] for i in sorted(self._changes))

    def check_unchanged(self) -> None:
        """Refuse to go on when an object is known to have changed (never waits for the network).

        Raises
        ------
        SourceError
            The change (reload it), or the source was closed.
        """
        if self.closed:
            raise SourceError("the files were closed (open them again)", field="files")
        found = self.changes()
        if found:
            change = found[0]
            raise SourceError(f"{printable_name(change.path)} changed since it was opened ({change.detail}); "
                              "reload it", field="files")

    def check_now(self) -> tuple[FileChange, ...]:
        """Re-check every object's size and version now (one request each) and return the changes."""
        for index, obj in enumerate(list(self._objects)):
            self._check_one(index, obj)
        with self._lock:
            self._checked = time.monotonic()
            return tuple(self._changes[i] for i in sorted(self._changes))

    def _maybe_check(self) -> None:
        with self._lock:
            if self._checking or time.monotonic() - self._checked < CHECK_SECONDS:
                return
            self._checking = True

        def run() -> None:
            try:
                for index, obj in enumerate(list(self._objects)):
                    self._check_one(index, obj)
            finally:
                with self._lock:
                    self._checking = False
                    self._checked = time.monotonic()
        threading.Thread(target=run, name="remote-check", daemon=True).start()

    def _check_one(self, index: int, obj: _Remote) -> None:
        was = obj.info
        try:
            now: ObjectInfo | None = object_info(obj.fs, obj.path, obj.url)
        except MissingObjectError:
            now = None
        except SourceError:
            return  # unreachable for now: not a change (the next read says what is wrong)
        if now is None:
            change = FileChange(obj.url, "deleted", was.size, 0)
        elif now.size < was.size:
            change = FileChange(obj.url, "shrank", was.size, now.size)
        elif now.size > was.size:
            change = FileChange(obj.url, "grew", was.size, now.size)
        elif (now.etag, now.modified) != (was.etag, was.modified):
            change = FileChange(obj.url, "modified", was.size, now.size)
        else:
            return
        _forget_info(obj.url)
        with self._lock:
            self._changes.setdefault(index, change)

    # -- lifetime ---------------------------------------------------------------------------
    def close(self) -> None:
        """Let go of the placeholder maps (the cache keeps blocks of unchanged objects for others
        that open the same version)."""
        self._data.clear()
        for placeholder in self._maps:
            if placeholder is not None:
                try:
                    placeholder.close()
                except BufferError:
                    pass  # still viewed: unmapped with its last array
        self._maps.clear()
        with self._lock:
            changed = set(self._changes)
        for index in changed:
            if index < len(self._objects):
                self._cache.forget(self._objects[index].key)

    @property
    def closed(self) -> bool:
        return not self._data and bool(getattr(self, "files", ()))

    def reopen(self) -> RemoteSource:
        """Open the same URLs again (a reload: the objects' versions now)."""
        for url in self.paths:
            _forget_info(url)
        return RemoteSource(self.paths, offset=self.offset, record_size=self.record_size)

    def __repr__(self) -> str:
        return f"RemoteSource({[printable_name(p) for p in self.paths]!r})"


def read_object(url: str, cap: int, what: str) -> bytes:
    """All bytes of the (small) object at ``url``: one ``info`` (reused as :data:`INFO_SECONDS`
    says), refused over ``cap`` bytes before any byte is fetched, then read through the block
    cache with the same checks as every read.

    Raises
    ------
    MissingObjectError
        No object at ``url``.
    SourceError
        Larger than ``cap``, a folder, or another failure (:mod:`core.files.remote_fetch`).
    """
    obj = _Remote(url)
    size = obj.info.size
    if size > cap:
        raise SourceError(f"{what} {printable_name(url)} has {size:,} bytes, more than the {cap:,} read "
                          "(is it the file it should be?)", field="files")
    store = cache()
    store.add(obj.key, obj.fetch, size)
    return store.read(obj.key, 0, size)


#: Most items one folder listing returns.
MAX_LISTED = 1_000_000


def list_remote_folder(url: str) -> list[tuple[str, bool]]:
    """``(name, is a folder)`` of each item in the folder ``url``, by its file system's listing:
    an object store's keys and prefixes; an HTTP server's index page (the links below ``url``:
    a server that shows no index lists nothing). At most :data:`MAX_LISTED` items.

    Raises
    ------
    SourceError
        The listing failed (not found, denied, unreachable: :mod:`core.files.remote_fetch`).
    """
    from urllib.parse import unquote

    fs, path = filesystem_of(url.rstrip("/") + "/")
    http = any(p in ("http", "https") for p in (fs.protocol if isinstance(fs.protocol, (tuple, list))
                                                else (fs.protocol,)))
    try:
        items = call_with_timeout(fs, "ls", path, detail=True)
    except BaseException as error:
        raise remote_error(url, error, "listing the folder") from None
    found: dict[str, bool] = {}
    for item in itertools.islice(items, MAX_LISTED):
        name = str(item.get("name", "")).rstrip("/").rsplit("/", 1)[-1]
        if http:
            name = unquote(name)
        if name and name not in (".", ".."):
            found[name] = found.get(name, False) or item.get("type") == "directory"
    return sorted(found.items())


def open_remote(urls: str | Sequence[str], *, offset: int | None = None,
                record_size: int | None = None) -> RemoteSource:
    """Open URLs read-only as a source of ``decode_raw`` elements (module rules).

    Raises
    ------
    SourceError
        ``field="files"``: a protocol without its package (the extra to install), an object that
        cannot be reached, is not found, is denied or is a folder (:mod:`core.files.remote_fetch`);
        ``field="offset"`` / ``"record_size"``: as for files.
    """
    if isinstance(urls, str):
        urls = [urls]
    return RemoteSource(list(urls), offset=offset, record_size=record_size)
