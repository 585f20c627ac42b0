"""Calls into libhdf5 on a user's file, run where they can be stopped: a worker process with a
time limit and a memory limit.

libhdf5 parses a damaged file with little defence: in a mutation run over 2,500 damaged copies
of small files it hung four times and exhausted memory once, inside h5py. In the inspector's own
process either would freeze the window or kill it. So every h5py call on a user's file
(:mod:`core.formats.hdf5`'s listing and values, :mod:`core.formats.keras`' attributes, weights
member and values) goes through :func:`run`, which calls a module-level function in a worker
process and returns what it returns.

Rule
----
- **Time.** A call gets :data:`TIME_LIMIT_SECONDS` (20 s), plus :data:`SECONDS_PER_GIB` (30 s)
  per GiB of values it reads into memory (a large compressed dataset takes a while to inflate).
  At the limit the worker and its process group are killed (``SIGKILL``), and the worker sets
  itself the same alarm in case the parent is gone.
- **Memory.** The worker's address space (``RLIMIT_AS``) may grow by at most
  :data:`MEMORY_HEADROOM_BYTES` (1 GiB) plus the bytes of the values the call reads (which the
  copy budget, :mod:`core.budget`, already bounds) beyond what it uses when the call starts.
  Where ``RLIMIT_AS`` is not enforced (macOS) only the time limit holds.
- **What the user sees.** A call that ran out of time, ran out of memory, or whose worker died
  (a segfault, an abort, an exit) raises a :class:`~core.errors.ContainerError` naming the file:
  ``the hdf5 file 'x.h5': libhdf5 hung listing it (no answer within 20 s; the file is likely
  damaged) (check the file with h5dump or h5py, or open its bytes with --dtype uint8)``. Never a
  hang, never a traceback. An engine error raised by the function (a
  :class:`~core.errors.CoreError`, e.g. the copy budget's) is raised as it is; any other
  exception becomes a ContainerError with its type and text.
- **Cancel.** While the parent waits it checks the listing's cancel
  (:mod:`core.formats.listing_control`); a cancelled listing kills the worker.

How
---
The worker is ``python -c`` started with :mod:`subprocess` (fork and exec at once, so nothing of
a process holding Qt is inherited; not :mod:`multiprocessing`, whose ``spawn`` re-imports the
parent's main module, the app, in the child). It is reused: idle workers (at most
:data:`MAX_IDLE_WORKERS`) wait for the next call, so a listing pays the process start (about
0.1-0.3 s: Python, numpy and h5py) once; a stopped worker is replaced by the next call. The file
is handed over as an open descriptor (``SCM_RIGHTS`` over a Unix socket pair), never by its path
again: the worker reads the range of bytes the parent names with ``pread``
(:class:`FileRange`). Requests and answers are pickles between the parent and its own worker,
our code's data, never a pickle from the file (the worker is no security boundary: same user,
same code). Values come back without copying them through the socket: the function allocates
them with :func:`shared_empty` (an anonymous ``memfd`` file mapped in both processes) and the
parent receives the descriptor, so a dataset of N bytes costs N bytes in the parent.

On a platform without descriptor passing (Windows) the function runs in-process, unprotected.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import io
import mmap
import os
import pickle
import select
import signal
import socket
import stat
import struct
import subprocess
import sys
import threading
import time
import traceback
import types
from collections.abc import Callable

import numpy as np

from core import budget
from core.errors import DEBUG_VARIABLE, ContainerError, CoreError
from core.files.range_file import RangeFile
from core.formats import listing_control

__all__ = ["FIX", "MAX_IDLE_WORKERS", "MEMORY_HEADROOM_BYTES", "SECONDS_PER_GIB", "TIME_LIMIT_SECONDS",
           "FileRange", "WorkerFile", "bytes_range", "run", "shared_empty", "shutdown"]

#: Wall time one call may take before its worker is killed (plus :data:`SECONDS_PER_GIB`).
TIME_LIMIT_SECONDS = 20.0
#: Extra wall time per GiB of values a call reads into memory.
SECONDS_PER_GIB = 30.0
#: How much a call may grow the worker's address space, beyond the values it reads.
MEMORY_HEADROOM_BYTES = 1 << 30
#: Wall time a new worker may take to start (import numpy and h5py) before it is given up.
START_LIMIT_SECONDS = 60.0
#: Workers kept waiting for the next call.
MAX_IDLE_WORKERS = 2
#: The fix every stopped call's message ends with.
FIX = "check the file with h5dump or h5py, or open its bytes with --dtype uint8"

_ISOLATED = os.name == "posix" and hasattr(socket, "send_fds")
_MAX_FDS = 64
_HEADER = struct.Struct("!Q")
_BOOT = ("import sys; sys.path[:0] = sys.argv[2:]; "
         "from core.formats.hdf5_worker import _serve; _serve(int(sys.argv[1]))")


@dataclasses.dataclass(frozen=True)
class FileRange:
    """What the worker opens: ``size`` bytes from byte ``start`` of the open descriptor ``fd``
    (the parent's; sent to the worker), read with ``pread``. ``path`` names it in messages;
    ``by_path``: libhdf5 must open ``path`` itself (a virtual dataset finds its sources next to
    the path), after the worker checked that the path still names the descriptor's file."""

    fd: int
    start: int
    size: int
    path: str
    by_path: bool = False


class WorkerFile:
    """The file as the worker's function sees it: :meth:`open` gives an ``h5py.File`` (read-only,
    no file lock) over the range, closing both together; :attr:`h5py` is the module."""

    def __init__(self, file: FileRange, fd: int) -> None:
        self.range, self._fd, self.path = file, fd, file.path

    @property
    def h5py(self):
        import h5py  # the worker's; the parent never loads libhdf5 for a user's file

        return h5py

    def open(self):
        h5py = self.h5py
        if self.range.by_path:
            opened, named = os.fstat(self._fd), os.stat(self.path)
            if (opened.st_dev, opened.st_ino) != (named.st_dev, named.st_ino) \
                    or not stat.S_ISREG(named.st_mode):
                raise OSError("its path now names another file (list it again)")
            return _Closing(h5py.File(self.path, "r", locking=False), io.BytesIO())
        stream = _DescriptorRange(self._fd, self.range.start, self.range.size)
        try:
            return _Closing(h5py.File(stream, "r", locking=False), stream)
        except BaseException:
            stream.close()
            raise


class _Closing:
    """An ``h5py.File`` and its stream, closed together (a context manager)."""

    def __init__(self, handle, stream) -> None:
        self.handle, self.stream = handle, stream

    def __getattr__(self, name: str):
        return getattr(self.handle, name)

    def __getitem__(self, key):
        return self.handle[key]

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.handle.close()
        finally:
            self.stream.close()


class _DescriptorRange(RangeFile):
    """Bytes ``start`` to ``start + size`` of descriptor ``fd`` as a read-only file object; a
    short ``pread`` inside the range (the file was cut) is an ``OSError``."""

    def __init__(self, fd: int, start: int, size: int) -> None:
        super().__init__(size)
        self._fd, self._start = fd, start

    def readinto(self, buffer) -> int:
        view = memoryview(buffer).cast("B")
        count = max(0, min(len(view), self.size - self._position))
        done = 0
        while done < count:
            got = os.preadv(self._fd, [view[done:count]], self._start + self._position + done)
            if got <= 0:
                raise OSError("the file is shorter than when it was opened: it changed on disk "
                              "(reload it)")
            done += got
        self._position += count
        return count


# ---------------------------------------------------------------------- the worker's side
_IN_WORKER = False
#: The arrays :func:`shared_empty` made for the running call, with their files' descriptors.
_SHARED: list[tuple[np.ndarray, int]] = []


def shared_empty(shape: tuple[int, ...], dtype) -> np.ndarray:
    """A new array for a worker's function to fill and return: in the worker it lives in an
    anonymous shared file, so the parent receives it without a copy through the socket (in
    the parent, or when empty, a plain ``np.empty``)."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=object))
    nbytes = count * dtype.itemsize
    if not _IN_WORKER or nbytes == 0:
        return np.empty(shape, dtype)
    fd = _anonymous_file(nbytes)
    try:
        array = np.frombuffer(mmap.mmap(fd, nbytes), dtype, count).reshape(shape)
    except BaseException:
        os.close(fd)
        raise
    _SHARED.append((array, fd))
    return array


def _anonymous_file(nbytes: int) -> int:
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("tensor-inspector-hdf5", os.MFD_CLOEXEC)
    else:
        import tempfile

        with tempfile.TemporaryFile() as temporary:
            fd = os.dup(temporary.fileno())
    os.ftruncate(fd, nbytes)
    return fd


def _read_only_mapping(items: dict) -> types.MappingProxyType:
    return types.MappingProxyType(items)


class _Pickler(pickle.Pickler):
    """Pickles an answer; an array of :func:`shared_empty` goes as a reference to its file, a
    read-only mapping (an entry's ``extras``) as one."""

    def reducer_override(self, obj):
        if isinstance(obj, types.MappingProxyType):
            return _read_only_mapping, (dict(obj),)
        return NotImplemented

    def persistent_id(self, obj):
        if isinstance(obj, np.ndarray):
            for index, (shared, _) in enumerate(_SHARED):
                if obj is shared:
                    return ("shared", index, obj.shape, obj.dtype)
        return None


def _serve(fd: int) -> None:
    """The worker's loop: answer requests until the parent closes the socket."""
    global _IN_WORKER
    _IN_WORKER = True
    signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the alarm kills: a backstop if the parent is gone
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl+C in a terminal is the parent's to handle
    sock = socket.socket(fileno=fd)
    try:
        import h5py  # noqa: F401 (loaded before "ready": the start, not a call, pays for it)
        ready = ("ready", None)
    except ImportError as error:
        ready = ("ready", str(error))
    _send(sock, pickle.dumps(ready))
    while True:
        try:
            payload, fds = _receive(sock)
        except (EOFError, OSError):
            return
        if _answer(sock, payload, fds):
            return


def _answer(sock: socket.socket, payload: bytes, fds: list[int]) -> bool:
    """Run one request and send its answer; True when the worker should exit after it."""
    exit_after = False
    try:
        # the parent's request, our own code's data: its import path first, then the call
        sys_path, call = pickle.loads(payload)
        sys.path.extend(entry for entry in sys_path if entry not in sys.path)
        request = pickle.loads(call)
        budget.COPY_BUDGET_BYTES, budget._ENV_ERROR = request["budget"]
        file = WorkerFile(request["file"], fds[0])
        _limit_memory(request["memory_limit"])
        signal.setitimer(signal.ITIMER_REAL, request["time_limit"] + 2.0)
        try:
            result = request["function"](file, *request["args"])
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            _limit_memory(None)
        reply: tuple = ("ok", result)
    except MemoryError:
        _limit_memory(None)
        _release_shared()
        reply, exit_after = ("memory",), True
    except CoreError as error:
        _release_shared()
        reply = ("error", error)
    except BaseException as error:  # libhdf5's many ways of failing: text for the parent
        _release_shared()
        reply = _failed(error)
    finally:
        for received in fds:
            with contextlib.suppress(OSError):
                os.close(received)
    out = io.BytesIO()
    try:
        _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(reply)
    except Exception as error:  # an unpicklable answer is our bug: said, not hung
        _release_shared()
        out = io.BytesIO(pickle.dumps(_failed(error)))
    try:
        _send(sock, out.getvalue(), [fd for _, fd in _SHARED])
    finally:
        _release_shared()
    return exit_after


def _failed(error: BaseException) -> tuple:
    return ("failed", type(error).__name__, str(error)[:300], traceback.format_exc()[-4000:])


def _release_shared() -> None:
    for _, fd in _SHARED:
        os.close(fd)
    _SHARED.clear()


def _limit_memory(allowance: int | None) -> None:
    """Let the address space grow by ``allowance`` bytes from now (None: lift the limit)."""
    try:
        import resource
    except ImportError:
        return
    with contextlib.suppress(ValueError, OSError):
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if allowance is None:
            resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
            return
        limit = _address_space() + allowance
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _address_space() -> int:
    """The worker's address space now, in bytes (Linux: /proc/self/statm)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[0]) * mmap.PAGESIZE
    except (OSError, ValueError, IndexError):
        return 0


# ---------------------------------------------------------------------- framing
def _send(sock: socket.socket, payload: bytes, fds: list[int] | tuple = ()) -> None:
    socket.send_fds(sock, [_HEADER.pack(len(payload))], list(fds))
    sock.sendall(payload)


def _receive(sock: socket.socket) -> tuple[bytes, list[int]]:
    header, fds, flags, _ = socket.recv_fds(sock, _HEADER.size, _MAX_FDS)
    if not header:
        raise EOFError("the other side closed the socket")
    if flags & getattr(socket, "MSG_CTRUNC", 0):
        for fd in fds:
            os.close(fd)
        raise OSError("too many descriptors in one message")
    header += _exactly(sock, _HEADER.size - len(header))
    (length,) = _HEADER.unpack(header)
    return _exactly(sock, length), list(fds)


def _exactly(sock: socket.socket, count: int) -> bytes:
    buffer = bytearray(count)
    view, done = memoryview(buffer), 0
    while done < count:
        got = sock.recv_into(view[done:])
        if not got:
            raise EOFError("the other side closed the socket")
        done += got
    return bytes(buffer)


# ---------------------------------------------------------------------- the parent's side
class _StoppedError(Exception):
    """The worker did not answer: ``kind`` is "hung", "memory" or "died" (with ``detail``)."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(kind)
        self.kind, self.detail = kind, detail


class _Unpickler(pickle.Unpickler):
    """Unpickles the worker's answer; a shared array is mapped from its descriptor."""

    def __init__(self, data: bytes, fds: list[int]) -> None:
        super().__init__(io.BytesIO(data))
        self._fds = fds

    def persistent_load(self, pid):
        kind, index, shape, dtype = pid
        if kind != "shared":
            raise pickle.UnpicklingError(f"unknown reference {kind!r}")
        count = int(np.prod(shape, dtype=object))
        mapped = mmap.mmap(self._fds[index], count * dtype.itemsize)
        return np.frombuffer(mapped, dtype, count).reshape(shape)


class _Worker:
    """One worker process and the parent's end of its socket."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        quiet = not os.environ.get(DEBUG_VARIABLE)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _BOOT, str(theirs.fileno()), root],
                pass_fds=[theirs.fileno()], start_new_session=True, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL if quiet else None)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.sock = ours
        self.h5py_missing: str | None = None
        try:
            ready = pickle.loads(self._wait(time.monotonic() + START_LIMIT_SECONDS)[0])
        except BaseException:
            self.kill()
            raise
        self.h5py_missing = ready[1]

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def call(self, request: dict, fd: int, time_limit: float) -> tuple:
        """Send ``request`` (with descriptor ``fd``) and return the worker's answer."""
        try:
            call = pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)
            _send(self.sock, pickle.dumps((list(sys.path), call), protocol=pickle.HIGHEST_PROTOCOL), [fd])
        except OSError:
            raise _StoppedError("died", self._death()) from None
        payload, fds = self._wait(time.monotonic() + time_limit)
        try:
            return _Unpickler(payload, fds).load()  # our own worker's answer, not the file's
        finally:
            for received in fds:
                os.close(received)

    def _wait(self, deadline: float) -> tuple[bytes, list[int]]:
        """The next message, waiting until ``deadline`` (checking a listing's cancel)."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _StoppedError("hung")
            listing_control.check()
            readable, _, _ = select.select([self.sock], [], [], min(remaining, 0.1))
            if readable:
                break
        self.sock.settimeout(30.0)  # the answer is being written by our own code
        try:
            return _receive(self.sock)
        except (EOFError, OSError):
            raise _StoppedError("died", self._death()) from None
        finally:
            self.sock.settimeout(None)

    def _death(self) -> str:
        try:
            code = self.process.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            return "it stopped answering"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"it was killed by {name}"
        return f"it exited with status {code}"

    def kill(self) -> None:
        """Kill the worker and its process group; wait for it."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5.0)
        self.sock.close()

    def close(self) -> None:
        """Let an idle worker end (it exits when its socket closes)."""
        self.sock.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=1.0)
        if self.alive:
            self.kill()


_LOCK = threading.Lock()
_IDLE: list[_Worker] = []
_OWNER = os.getpid()


def _take() -> _Worker:
    global _OWNER
    with _LOCK:
        if _OWNER != os.getpid():  # a forked copy of the parent: those workers are not ours
            _IDLE.clear()
            _OWNER = os.getpid()
        while _IDLE:
            worker = _IDLE.pop()
            if worker.alive:
                return worker
            worker.kill()
    return _Worker()


def _give_back(worker: _Worker) -> None:
    with _LOCK:
        if len(_IDLE) < MAX_IDLE_WORKERS and _OWNER == os.getpid():
            _IDLE.append(worker)
            return
    worker.close()


def shutdown() -> None:
    """End the idle workers (also done when the process exits: they see their socket close)."""
    with _LOCK:
        idle = list(_IDLE)
        _IDLE.clear()
    for worker in idle:
        worker.close()


atexit.register(shutdown)


def run(function: Callable, file: FileRange, *args: object, where: str, what: str,
        field: str = "files", read_bytes: int = 0, time_limit: float | None = None,
        memory_limit: int | None = None) -> object:
    """``function(WorkerFile(file), *args)`` in a worker process, within its limits (module rule).

    Parameters
    ----------
    function
        A module-level function (pickled by name) returning plain data: dicts, lists, tuples,
        engine dataclasses, numpy arrays (large ones made with :func:`shared_empty`).
    file
        The byte range of an open descriptor the function reads (sent to the worker).
    where, what
        For messages: the file (``"the hdf5 file 'x.h5'"``) and the call (``"listing it"``).
    field
        The ``field`` of the messages (``"files"`` for listings, ``"tensor"`` for values).
    read_bytes
        Bytes of values the call reads into memory: added to the time and memory limits.
    time_limit, memory_limit
        Seconds and bytes of address-space growth; by default :data:`TIME_LIMIT_SECONDS` +
        :data:`SECONDS_PER_GIB` per GiB of ``read_bytes``, and :data:`MEMORY_HEADROOM_BYTES` +
        ``read_bytes``.

    Raises
    ------
    ContainerError
        The worker ran out of time or memory, or died (the message names the file and the fix),
        or the function raised an exception that is not an engine error; or h5py is missing.
    CoreError
        What the function raised (a copy-budget refusal, a damaged file it described).
    ListingCancelled
        The listing was cancelled while the worker ran (the worker is killed).
    """
    seconds = time_limit if time_limit is not None else (
        TIME_LIMIT_SECONDS + SECONDS_PER_GIB * read_bytes / (1 << 30))
    memory = memory_limit if memory_limit is not None else MEMORY_HEADROOM_BYTES + read_bytes
    if not _ISOLATED:
        return _in_process(function, file, args)
    request = {"function": function, "args": args, "file": file, "time_limit": seconds,
               "memory_limit": memory,
               "budget": (budget.COPY_BUDGET_BYTES, budget._ENV_ERROR)}
    try:
        worker = _take()
    except _StoppedError as stop:
        raise ContainerError(f"{where}: the worker process that runs libhdf5 did not start "
                             f"({stop.detail or f'no answer within {_seconds(START_LIMIT_SECONDS)} s'}) "
                             "(check that h5py imports: python -c 'import h5py')", field=field) from None
    except OSError as error:
        raise ContainerError(f"{where}: the worker process that runs libhdf5 did not start "
                             f"({error}) (check that h5py imports: python -c 'import h5py')",
                             field=field) from None
    if worker.h5py_missing is not None:
        _give_back(worker)
        raise ContainerError(f"{where}: reading it needs the h5py package, which does not import "
                             f"({worker.h5py_missing[:160]}) (pip install 'tensor-inspector[hdf5]')",
                             field=field)
    try:
        reply = worker.call(request, file.fd, seconds)
    except _StoppedError as stop:
        worker.kill()
        raise ContainerError(_stopped_message(stop, where, what, seconds, memory), field=field) from None
    except BaseException:  # cancelled, interrupted: the worker is busy, so it goes
        worker.kill()
        raise
    if reply[0] == "memory":
        worker.close()
        raise ContainerError(_stopped_message(_StoppedError("memory"), where, what, seconds, memory),
                             field=field)
    _give_back(worker)
    if reply[0] == "ok":
        return reply[1]
    if reply[0] == "error":
        raise reply[1]
    _, kind, text, trace = reply
    error = ContainerError(f"{where}: libhdf5 failed {what} ({kind}: {text}) (the file is likely "
                           f"damaged; {FIX})", field=field)
    error.add_note(f"in the worker process:\n{trace}")
    raise error


def _stopped_message(stop: _StoppedError, where: str, what: str, seconds: float, memory: int) -> str:
    from core.text.byte_sizes import format_bytes

    if stop.kind == "hung":
        return (f"{where}: libhdf5 hung {what} (no answer within {_seconds(seconds)} s, so it was "
                f"stopped; the file is likely damaged) ({FIX})")
    if stop.kind == "memory":
        return (f"{where}: libhdf5 ran out of memory {what} (it needed more than "
                f"{format_bytes(memory)} more, so it was stopped; the file is likely damaged) ({FIX})")
    return (f"{where}: libhdf5 stopped {what}: the worker process running it died ({stop.detail}; "
            f"it crashed or passed its {format_bytes(memory)} memory limit; the file is likely "
            f"damaged) ({FIX})")


@contextlib.contextmanager
def bytes_range(data: bytes, path: str):
    """``data`` (bytes in memory: a decompressed member) as a :class:`FileRange` a worker can
    open: an anonymous file holding them, closed when the ``with`` block ends; ``path`` names
    it in messages."""
    fd = _anonymous_file(len(data))
    try:
        view, done = memoryview(data), 0
        while done < len(data):
            done += os.pwrite(fd, view[done:done + (64 << 20)], done)
        yield FileRange(fd, 0, len(data), path)
    finally:
        os.close(fd)


def _seconds(value: float) -> str:
    """A limit in seconds as the messages say it: ``20``, ``1``, ``50.5``."""
    return str(int(value)) if value == int(value) else str(round(value, 1))


def _in_process(function: Callable, file: FileRange, args: tuple) -> object:
    """Where descriptors cannot be passed: the call runs here, with no limits."""
    return function(WorkerFile(file, file.fd), *args)
