"""The one guard against SIGBUS from a mapped file that shrinks; every other module refers here.

The hazard
----------
Files are memory-mapped read-only and shared (``mmap.ACCESS_READ``), and arrays viewing the map
live on: the GUI keeps the last good view on screen and repaints it, a background scan reads it
block by block. If another program truncates the file, the pages of the map that now lie wholly
past the file's end are no longer backed by anything, and the first *read* of such a page makes
the kernel send ``SIGBUS``, which kills the whole process (Python cannot catch it). The page
holding the new end is harmless: the kernel reads zeros after the end within it.

The fix
-------
1. **Zero pages.** :func:`zero_fill_past` replaces, in place, every page of the map wholly past
   the new end by a private anonymous read-only page (``mmap(MAP_FIXED)``), so every existing
   view stays valid and reads 0 there instead of faulting. The data is not re-read: reload to
   see the file as it is now.
2. **Check before reading.** :class:`ShrinkGuard` compares each open descriptor's ``fstat``
   size with the size recorded at open and applies 1. to a file that shrank, at most once per
   new, smaller size (a shrunk file is not re-mapped on every check).
   ``FileSource.check_unchanged`` runs it before every pipeline run, scan block and export
   block; ``FileSource.bytes_at`` and ``read_exact`` (parsers' headers) when a ``pread`` comes
   back short (they never read the map, so they cannot fault themselves); the GUI's
   file monitor (``inspector/state/file_monitor.py``) on a poll, on file-system events and,
   one descriptor per event (:meth:`ShrinkGuard.protect_next`, so the cost of an event does
   not grow with the number of files), before every event of the GUI thread.

What remains
------------
This makes a crash unlikely, not impossible, for reads *of the map*: a file truncated during
such a read, or between a check and the read that follows it, can still fault. That is why no
parser or painter reads the map (docs/architecture.md, "mapped reads"): they copy with
``pread``, which has no such window. On platforms without ``MAP_FIXED`` (or if
the system refuses the re-map), :func:`zero_fill_past` returns False and the views must not be
read: the GUI clears them when the file monitor reports the change.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import sys
from collections.abc import Sequence

import numpy as np

__all__ = ["ShrinkGuard", "zero_fill_past"]

# MAP_FIXED is 0x10 on Linux and the BSDs/macOS; Python's mmap module does not export it.
_MAP_FIXED = 0x10 if sys.platform.startswith(("linux", "darwin", "freebsd")) else None
_libc_mmap = None


def _mmap_function():
    global _libc_mmap
    if _libc_mmap is None:
        function = ctypes.CDLL(None, use_errno=True).mmap
        function.restype = ctypes.c_void_p
        function.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                             ctypes.c_int, ctypes.c_long]
        _libc_mmap = function
    return _libc_mmap


def zero_fill_past(data: np.ndarray, mapped_size: int, new_size: int) -> bool:
    """Make the pages of a map that lie wholly past ``new_size`` read as zeros (fix 1. above).

    Parameters
    ----------
    data
        The ``uint8`` array viewing the whole map (as returned by
        :func:`core.files.safe_open.open_mapped`).
    mapped_size
        The file's size when it was mapped (the map's length).
    new_size
        The file's size now.

    Returns
    -------
    bool
        True when no page past the end remains mapped to the file; False on platforms without
        ``MAP_FIXED`` or if the system refused (then reading those pages can still fault).
    """
    page = mmap.PAGESIZE
    start = -(-max(new_size, 0) // page) * page
    if start >= mapped_size or data.size == 0:
        return True
    if _MAP_FIXED is None:
        return False
    address = int(data.__array_interface__["data"][0]) + start
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_FIXED
    try:
        result = _mmap_function()(address, mapped_size - start, mmap.PROT_READ, flags, -1, 0)
    except (OSError, AttributeError):  # no libc mmap symbol: nothing we can do
        return False
    return result == address


class ShrinkGuard:
    """Protects the maps of a set of open files against shrinking (fix 2. of the module).

    Parameters
    ----------
    paths
        Per file, its path (only used in messages).
    sizes
        Per file, its size when it was mapped.
    fds
        Per file, the open descriptor of the mapped inode. The list is read live: a source that
        closes its files empties it, and the guard then checks nothing.
    data
        Per file, the ``uint8`` array viewing its whole map (read live, like ``fds``).
    """

    def __init__(self, paths: Sequence[str], sizes: Sequence[int], fds: list[int],
                 data: list[np.ndarray]) -> None:
        self._paths = tuple(paths)
        self._sizes = tuple(sizes)
        self._fds = fds
        self._data = data
        self._protected_to = list(self._sizes)  # per file: the smallest size protected so far
        self._next = 0

    def protect(self, index: int) -> str:
        """Check file ``index`` (one ``fstat``) and protect its map if it shrank.

        Returns
        -------
        str
            ``'x' changed on disk since it was opened (size 100 -> 50 bytes) (reload it)`` if
            the file is now smaller than when it was mapped, else '' (also when the files are
            closed or the descriptor cannot be checked).
        """
        if index >= len(self._fds) or index >= len(self._data):
            return ""
        try:
            size = os.fstat(self._fds[index]).st_size
        except OSError:
            return ""
        mapped = self._sizes[index]
        if size >= mapped:
            return ""
        if size < self._protected_to[index] and zero_fill_past(self._data[index], mapped, size):
            self._protected_to[index] = size  # else: tried again at the next check
        return (f"'{self._paths[index]}' changed on disk since it was opened "
                f"(size {mapped} -> {size} bytes) (reload it)")

    def protect_all(self) -> str:
        """:meth:`protect` every file (one ``fstat`` each); the first message, or ''."""
        messages = [self.protect(index) for index in range(len(self._fds))]
        return next((m for m in messages if m), "")

    def protect_next(self) -> str:
        """:meth:`protect` one file, the next in turn: a constant cost, whatever the file count.

        Called before every GUI event; with ``n`` files each is checked every ``n`` events.
        """
        count = len(self._fds)
        if count == 0:
            return ""
        index = self._next % count
        self._next = index + 1
        return self.protect(index)
