"""The bounded block cache of remote objects: every byte of a remote file is read through it.

Rules
-----
- An object is cut into blocks of :attr:`BlockCache.block_size` bytes (the last one shorter).
  A read of ``[start, stop)`` takes the blocks it covers from the cache and fetches the missing
  ones, each run of consecutive missing blocks as single-range requests of at most
  :data:`REQUEST_BYTES` bytes, sent in parallel when there are several (object stores answer no
  multi-range request, and one long request is slower than a few parallel ones). Never more is
  fetched than the blocks covering the read, plus the read-ahead below.
- Least recently used blocks are dropped once the cache holds more than its ``capacity`` bytes;
  a read in progress keeps its own references, so a block dropped meanwhile is still right. A
  scan of several passes holds its bytes for its duration (:meth:`BlockCache.hold`, up to the
  copy budget), so its later passes read the cache.
- Read-ahead: a read that starts where the reads of the same object have reached so far (their
  frontier), or at most :data:`SCAN_SLACK_BYTES` behind it (the threads of a parallel scan read
  neighbouring blocks in any order), is sequential (a scan: statistics, export, compare, a
  model scan). The next ``ahead`` bytes are
  then fetched in the background: an eighth of the bytes the sequential run has read so far, at
  most :data:`MAX_AHEAD_BYTES` (and a quarter of the capacity; a header's few sequential reads
  so fetch nothing more than their blocks); nothing at
  the first jump (scrolling, a random tile). What a run fetches past its end is so at most an
  eighth of what it read (reading one 64 MiB tensor fetches at most 8 MiB of the next).
- A block is fetched once however many threads want it: later readers wait for the request in
  flight. A failed request fails every reader that waits for it, and is tried again by the
  next read.
- Sparse reads (:meth:`BlockCache.fetch_spans`: a column of a wide table, an image subsample, a
  strided preview) fetch *pages* of :data:`PAGE_BYTES` instead of whole blocks for each span
  shorter than half a block: the pages a span needs, adjacent ones as one request, all spans'
  requests in parallel. Spans closer than a page, or than four times the shorter of two
  neighbours, are joined first (a strided subsample of a dense region becomes a few block
  requests, not one request per row). A read is answered from pages when they cover it. So 1,000 values spread
  over a 1 GiB object cost about 1,000 small requests in parallel, not 1,000 blocks.
- :meth:`BlockCache.cached` tells without any request whether a range is all in the cache (the
  table paints "loading…" for cells that are not, and :meth:`BlockCache.fetch_spans` fetches
  them in the background).
- Counters (:class:`Transfer`) count the bytes fetched, the requests and the cache hits since the
  cache was made: the status bar shows them.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from core.budget import COPY_BUDGET_BYTES

__all__ = ["DEFAULT_BLOCK_BYTES", "DEFAULT_CAPACITY_BYTES", "MAX_AHEAD_BYTES", "PAGE_BYTES", "REQUEST_BYTES",
           "BlockCache", "Transfer"]

#: Bytes of one cached block: a listing's header or one screen of a table costs one request.
DEFAULT_BLOCK_BYTES = 256 << 10
#: Bytes the cache holds by default (the ``remote_cache_mib`` setting changes it).
DEFAULT_CAPACITY_BYTES = 256 << 20
#: Longest single request: longer runs of missing blocks are split and fetched in parallel.
REQUEST_BYTES = 8 << 20
#: Most bytes fetched ahead of a sequential reader.
MAX_AHEAD_BYTES = 64 << 20
#: A read that starts this far behind the frontier of a sequential run is still in it.
SCAN_SLACK_BYTES = 4 * (8 << 20)
#: Requests in flight at once (per cache).
PARALLEL_REQUESTS = 6
#: Bytes of one page: what a sparse read fetches for a short span (module rules).
PAGE_BYTES = 4096
#: Longest request of adjacent pages.
PAGE_RUN_BYTES = 64 << 10

Fetch = Callable[[int, int], bytes]  # (start, stop) -> exactly stop - start bytes, or raises


@dataclass(frozen=True)
class Transfer:
    """What a cache has fetched: bytes, requests, reads answered from the cache alone."""

    bytes_fetched: int = 0
    requests: int = 0
    hits: int = 0


class _Object:
    """One remote object's place in the cache: its fetch, size and read-ahead state."""

    def __init__(self, fetch: Fetch, size: int) -> None:
        self.fetch = fetch
        self.size = size
        self.next_start = -1
        self.run = 0  # bytes read by the current sequential run
        self.ahead = 0


class BlockCache:
    """Blocks of remote objects, fetched on demand (module rules).

    Parameters
    ----------
    capacity
        Most bytes kept (at least one request's worth is always allowed).
    block_size
        Bytes per block.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY_BYTES, block_size: int = DEFAULT_BLOCK_BYTES) -> None:
        self.block_size = max(4096, int(block_size))
        self.capacity = max(int(capacity), REQUEST_BYTES + self.block_size)
        self._blocks: OrderedDict[tuple[Hashable, object], bytes] = OrderedDict()  # blocks and ("page", n)
        self._held = 0
        self._flight: dict[tuple[Hashable, object], Future] = {}
        self._pending_runs: list = []  # block runs planned under the lock, submitted after it
        self._objects: dict[Hashable, _Object] = {}
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._bytes = self._requests = self._hits = 0

    # -- objects ----------------------------------------------------------------------------
    def add(self, key: Hashable, fetch: Fetch, size: int) -> None:
        """Make object ``key`` of ``size`` bytes readable; ``fetch(start, stop)`` gets its bytes."""
        with self._lock:
            self._objects[key] = _Object(fetch, int(size))

    def forget(self, key: Hashable) -> None:
        """Drop object ``key`` and its blocks (a closed or changed file)."""
        with self._lock:
            self._objects.pop(key, None)
            for block_key in [k for k in self._blocks if k[0] == key]:
                self._held -= len(self._blocks.pop(block_key))

    def resize(self, capacity: int) -> None:
        """Hold at most ``capacity`` bytes from now on (least recently used entries go first)."""
        with self._lock:
            self.capacity = max(int(capacity), REQUEST_BYTES + self.block_size)
            self._evict()

    def clear(self) -> None:
        """Drop every cached entry (the objects stay readable: they are fetched again)."""
        with self._lock:
            self._blocks.clear()
            self._held = 0

    @contextlib.contextmanager
    def hold(self, nbytes: int) -> Iterator[None]:
        """A context in which the cache may keep ``nbytes`` more (a scan of several passes: its
        later passes read the cache); nothing more when that exceeds the copy budget (each pass
        then fetches again). On exit the extra is dropped, least recently used first."""
        extra = int(nbytes) if 0 < int(nbytes) <= COPY_BUDGET_BYTES else 0
        with self._lock:
            self.capacity += extra
        try:
            yield
        finally:
            with self._lock:
                self.capacity -= extra
                self._evict()

    def held(self) -> int:
        """Bytes the cache holds now (at most its capacity)."""
        with self._lock:
            return self._held

    def transfer(self) -> Transfer:
        """The counters so far."""
        with self._lock:
            return Transfer(self._bytes, self._requests, self._hits)

    # -- reads ------------------------------------------------------------------------------
    def read(self, key: Hashable, start: int, stop: int) -> bytes:
        """Bytes ``[start, stop)`` of object ``key`` (clipped to its size), fetching what is
        missing; raises what the object's fetch raised."""
        obj = self._objects[key]
        start, stop = max(0, int(start)), min(int(stop), obj.size)
        if stop <= start:
            return b""
        paged = self._from_pages(key, start, stop)
        if paged is not None:
            return paged
        first, last = start // self.block_size, (stop - 1) // self.block_size
        self._read_ahead(key, obj, start, stop)  # first: the next bytes travel while these are waited for
        blocks = self._blocks_of(key, obj, first, last)
        if first == last:
            base = first * self.block_size
            return blocks[0][start - base:stop - base]
        parts = [blocks[0][start - first * self.block_size:]]
        parts.extend(blocks[1:-1])
        parts.append(blocks[-1][:stop - last * self.block_size])
        return b"".join(parts)

    def read_into(self, key: Hashable, target: memoryview, position: int) -> int:
        """Fill ``target`` with the object's bytes from ``position`` (copied from each block
        straight into it: a scan's reads cost one copy); the count filled (fewer only at the
        object's end)."""
        obj = self._objects[key]
        start, stop = max(0, int(position)), min(int(position) + len(target), obj.size)
        if stop <= start:
            return 0
        paged = self._from_pages(key, start, stop)
        if paged is not None:
            target[:len(paged)] = paged
            return len(paged)
        first, last = start // self.block_size, (stop - 1) // self.block_size
        self._read_ahead(key, obj, start, stop)
        done = 0
        for b, block in enumerate(self._blocks_of(key, obj, first, last), first):
            base = b * self.block_size
            piece = memoryview(block)[max(start, base) - base:min(stop, base + len(block)) - base]
            target[done:done + len(piece)] = piece
            done += len(piece)
        return done

    def _from_pages(self, key: Hashable, start: int, stop: int) -> bytes | None:
        """``[start, stop)`` from cached pages when its blocks are not all cached and pages cover it."""
        if stop - start > self.block_size // 2:
            return None
        with self._lock:
            first, last = start // self.block_size, (stop - 1) // self.block_size
            if all((key, b) in self._blocks for b in range(first, last + 1)):
                return None
            pages = []
            for p in range(start // PAGE_BYTES, (stop - 1) // PAGE_BYTES + 1):
                page = self._blocks.get((key, ("page", p)))
                if page is None:
                    return None
                self._blocks.move_to_end((key, ("page", p)))
                pages.append(page)
            self._hits += 1
        data = b"".join(pages)
        base = (start // PAGE_BYTES) * PAGE_BYTES
        return data[start - base:stop - base]

    def fetch_spans(self, key: Hashable, spans: list[tuple[int, int]],
                    done: Callable[[BaseException | None], None] | None = None) -> None:
        """Bring the byte ranges ``spans`` into the cache (module rules: pages for short spans,
        blocks for long ones), their requests in parallel; waits for them unless ``done`` is
        given, which is then called (from a pool thread, or at once when nothing was missing)
        with the first error or None."""
        obj = self._objects.get(key)
        if obj is None:
            if done is not None:
                done(None)
            return
        futures: list[Future] = []
        spans = _joined(spans)
        with self._lock:
            wanted: list[int] = []
            for start, stop in spans:
                stop = min(int(stop), obj.size)
                start = max(0, int(start))
                if stop <= start:
                    continue
                first, last = start // self.block_size, (stop - 1) // self.block_size
                if all((key, b) in self._blocks for b in range(first, last + 1)):
                    continue
                if stop - start > self.block_size // 2:
                    _found, waits, mine = self._plan(key, first, last)
                    futures.extend(waits.values())
                    for run in mine:
                        futures.append(run[2])
                        self._pending_runs.append((key, obj, run))
                    continue
                for b in range(first, last + 1):
                    if (key, b) in self._flight:
                        futures.append(self._flight[(key, b)])
                for p in range(start // PAGE_BYTES, (stop - 1) // PAGE_BYTES + 1):
                    page_key = (key, ("page", p))
                    if page_key in self._flight:
                        futures.append(self._flight[page_key])
                    elif page_key not in self._blocks:
                        wanted.append(p)
            runs = self._claim(sorted(set(wanted)), max(1, PAGE_RUN_BYTES // PAGE_BYTES), lambda p: (key, ("page", p)))
            futures.extend(future for *_run, future in runs)
            block_runs, self._pending_runs = self._pending_runs, []
        pool = self._executor()
        for _key, block_obj, run in block_runs:
            pool.submit(self._fetch_run, key, block_obj, *run)
        many = getattr(obj.fetch, "many", None)
        if many is not None and len(runs) > 1:  # one batch on the protocol's own event loop
            pool.submit(self._fetch_page_batch, key, obj, runs)
        else:
            for run in runs:
                pool.submit(self._fetch_pages, key, obj, *run)
        if done is not None:
            _when_all(futures, done)
            return
        for future in futures:
            future.result()

    def _fetch_page_batch(self, key: Hashable, obj: _Object, runs: list[tuple[int, int, Future]]) -> None:
        """Fetch page runs with the fetch's ``many`` (one batch) and settle each run's future."""
        ranges = [(first * PAGE_BYTES, min(obj.size, (last + 1) * PAGE_BYTES)) for first, last, _f in runs]
        try:
            answers = obj.fetch.many(ranges)
        except BaseException as error:
            answers = [error] * len(runs)
        for (first, last, future), answer in zip(runs, answers):
            self._fetch_pages(key, obj, first, last, future, answer)

    def _fetch_pages(self, key: Hashable, obj: _Object, first: int, last: int, future: Future,
                     answer: bytes | BaseException | None = None) -> None:
        """Fetch pages ``first..last`` as one request (or take its ``answer``: bytes, or the error
        it failed with) and settle ``future`` (never waits)."""
        keys = [(key, ("page", p)) for p in range(first, last + 1)]
        self._fetch_entries(key, obj, keys, first * PAGE_BYTES, min(obj.size, (last + 1) * PAGE_BYTES), PAGE_BYTES,
                            future, answer)

    def _fetch_entries(self, key: Hashable, obj: _Object, keys: list, start: int, stop: int, size: int,
                       future: Future, answer: bytes | BaseException | None) -> None:
        """Fetch ``[start, stop)`` (or take ``answer``), store it as the entries ``keys`` of
        ``size`` bytes each, and settle ``future`` with ``{entry key: bytes}`` or the error."""
        try:
            if isinstance(answer, BaseException):
                raise answer
            data = obj.fetch(start, stop) if answer is None else answer
            if len(data) != stop - start:  # a fetch must check its answer; never cache a wrong one
                raise RuntimeError(f"a fetch gave {len(data)} bytes for {stop - start}")
        except BaseException as error:
            with self._lock:
                for entry in keys:
                    self._flight.pop(entry, None)
            future.set_exception(error)
            return
        entries = {entry: data[i * size:(i + 1) * size] for i, entry in enumerate(keys)}
        with self._lock:
            self._bytes += len(data)
            self._requests += 1
            if self._objects.get(key) is obj:
                for entry, piece in entries.items():
                    old = self._blocks.pop(entry, None)
                    self._held += len(piece) - (len(old) if old is not None else 0)
                    self._blocks[entry] = piece
                self._evict()
            for entry in keys:
                self._flight.pop(entry, None)
        future.set_result({entry[1]: piece for entry, piece in entries.items()})

    def _evict(self) -> None:
        """Under the lock: drop least recently used entries down to the capacity."""
        while self._held > self.capacity and self._blocks:
            _, dropped = self._blocks.popitem(last=False)
            self._held -= len(dropped)

    def cached(self, key: Hashable, start: int, stop: int) -> bool:
        """Whether bytes ``[start, stop)`` are all in the cache (no request is made)."""
        obj = self._objects.get(key)
        if obj is None:
            return False
        stop = min(int(stop), obj.size)
        if stop <= start:
            return True
        with self._lock:
            if all((key, b) in self._blocks
                   for b in range(max(0, start) // self.block_size, (stop - 1) // self.block_size + 1)):
                return True
            return stop - start <= self.block_size // 2 and all(
                (key, ("page", p)) in self._blocks for p in range(max(0, start) // PAGE_BYTES, (stop - 1) // PAGE_BYTES + 1))

    def prefetch(self, key: Hashable, start: int, stop: int,
                 done: Callable[[BaseException | None], None] | None = None) -> None:
        """Fetch ``[start, stop)`` in the background; ``done(error)`` (None: all fetched) runs
        in a pool thread when every missing block has arrived or one request failed."""
        obj = self._objects.get(key)
        if obj is None:
            return
        stop = min(int(stop), obj.size)
        if stop <= start:
            if done is not None:
                done(None)
            return
        first, last = max(0, start) // self.block_size, (stop - 1) // self.block_size
        with self._lock:
            _found, waits, mine = self._plan(key, first, last)
        futures = list(waits.values()) + [future for *_run, future in mine]
        for run in mine:
            self._executor().submit(self._fetch_run, key, obj, *run)
        if done is not None:
            _when_all(futures, done)

    # -- machinery --------------------------------------------------------------------------
    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(PARALLEL_REQUESTS, thread_name_prefix="remote-fetch")
            return self._pool

    def _plan(self, key: Hashable, first: int, last: int):
        """Under the lock: the cached blocks of ``first..last``, the requests in flight to wait
        for, and the runs of missing blocks this caller fetches (registered as in flight)."""
        found: dict[int, bytes] = {}
        waits: dict[int, Future] = {}
        missing: list[int] = []
        for b in range(first, last + 1):
            block = self._blocks.get((key, b))
            if block is not None:
                self._blocks.move_to_end((key, b))
                found[b] = block
            elif (key, b) in self._flight:
                waits[b] = self._flight[(key, b)]
            else:
                missing.append(b)
        return found, waits, self._claim(missing, max(1, REQUEST_BYTES // self.block_size), lambda b: (key, b))

    def _claim(self, numbers: list[int], per: int, entry) -> list[tuple[int, int, Future]]:
        """Under the lock: the sorted entry ``numbers`` cut into runs of consecutive ones (at most
        ``per`` each), each registered in flight (``entry(n)``: its key) with a future of its own."""
        runs: list[tuple[int, int, Future]] = []
        i = 0
        while i < len(numbers):
            j = i
            while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1 and j + 1 - i < per:
                j += 1
            future: Future = Future()
            for n in numbers[i:j + 1]:
                self._flight[entry(n)] = future
            runs.append((numbers[i], numbers[j], future))
            i = j + 1
        return runs

    def _blocks_of(self, key: Hashable, obj: _Object, first: int, last: int) -> list[bytes]:
        """Blocks ``first..last`` of the object, fetching the missing ones (module rules): the
        first run in this thread, the others in the pool, in parallel."""
        with self._lock:
            found, waits, mine = self._plan(key, first, last)
            if not mine and not waits:
                self._hits += 1
        if mine:
            for run in mine[1:]:
                self._executor().submit(self._fetch_run, key, obj, *run)
            self._fetch_run(key, obj, *mine[0])
        for b, future in waits.items():
            found[b] = future.result()[b]
        for _first, _last, future in mine:
            found.update(future.result())
        return [found[b] for b in range(first, last + 1)]

    def _fetch_run(self, key: Hashable, obj: _Object, first: int, last: int, future: Future) -> None:
        """Fetch blocks ``first..last`` as one request and settle ``future`` (never waits)."""
        keys = [(key, b) for b in range(first, last + 1)]
        self._fetch_entries(key, obj, keys, first * self.block_size, min(obj.size, (last + 1) * self.block_size),
                            self.block_size, future, None)

    def _read_ahead(self, key: Hashable, obj: _Object, start: int, stop: int) -> None:
        with self._lock:
            # In the run when it starts at its frontier or a little behind it: the threads of a
            # parallel scan read neighbouring blocks in any order.
            sequential = obj.next_start - SCAN_SLACK_BYTES <= start <= obj.next_start
            obj.next_start = max(obj.next_start, stop) if sequential else stop
            obj.run = obj.run + (stop - start) if sequential else stop - start
            limit = min(MAX_AHEAD_BYTES, self.capacity // 4)
            obj.ahead = min(limit, obj.run // 8) if sequential else 0
            ahead, frontier = obj.ahead, obj.next_start
        if ahead and frontier < obj.size:
            self.prefetch(key, frontier, min(obj.size, frontier + ahead))

    def close(self) -> None:
        """Drop every block and stop the background fetches."""
        with self._lock:
            self._blocks.clear()
            self._held = 0
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


def _joined(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` sorted, with neighbours joined when the gap between them is at most a page or
    four times the shorter of the two (one request for the gap costs less than a request each)."""
    out: list[list[int]] = []
    for start, stop in sorted((int(a), int(b)) for a, b in spans if b > a):
        if out:
            last = out[-1]
            gap = start - last[1]
            if gap <= max(PAGE_BYTES, 4 * min(stop - start, last[1] - last[0])):
                last[1] = max(last[1], stop)
                continue
        out.append([start, stop])
    return [(a, b) for a, b in out]


def _when_all(futures: list[Future], done: Callable[[BaseException | None], None]) -> None:
    """Call ``done`` once every future is settled: with the first error, or None."""
    if not futures:
        done(None)
        return
    left = [len(futures)]
    lock = threading.Lock()

    def settled(_future: Future) -> None:
        with lock:
            left[0] -= 1
            last = left[0] == 0
        if last:
            errors = [f.exception() for f in futures if f.exception() is not None]
            done(errors[0] if errors else None)
    for future in futures:
        future.add_done_callback(settled)
