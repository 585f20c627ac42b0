"""Recycled buffers for the one copy ``decode_raw`` must make: padding to ``fixed_length``.

A new numpy array costs more than its copy: the kernel zero-fills every page on first touch,
which for a padded decode of 256 MiB is a third of the time. TensorFlow's allocator keeps freed
buffers for the next op; this pool does the same for padded outputs, under these rules:

* A buffer is handed out again only when nothing but the pool refers to it (CPython's reference
  count): a result the caller still holds, or any view, slice or memoryview of it, keeps its
  buffer out of the pool, so no live array is ever overwritten. Every byte of a reused buffer is
  written by the decode (values and zero padding), so nothing of an earlier result shows through.
* Only outputs of :data:`MIN_POOLED_BYTES` or more are pooled (smaller ones are cheap to
  allocate), at most :data:`MAX_POOLED_BUFFERS` of them (two: a window holding one result while
  it decodes the next), :data:`MAX_POOLED_BYTES` in all. A buffer is reused for an output of
  exactly its size. When the pool is full, an idle buffer is dropped for the new one; when none
  is idle, the new output is not pooled.
* So the memory held beyond what the caller holds is at most :data:`MAX_POOLED_BYTES`, of
  buffers no result uses; :func:`release_idle_buffers` returns it to the system.
* Without a global interpreter lock reference counts are not exact, so the pool is off there.
"""

from __future__ import annotations

import sys
import threading

import numpy as np

__all__ = ["MIN_POOLED_BYTES", "MAX_POOLED_BUFFERS", "MAX_POOLED_BYTES", "output_buffer",
           "release_idle_buffers"]

MIN_POOLED_BYTES = 16 << 20
MAX_POOLED_BUFFERS = 2
MAX_POOLED_BYTES = 512 << 20

_ENABLED = getattr(sys, "_is_gil_enabled", lambda: True)()
_lock = threading.Lock()
_buffers: list[np.ndarray] = []  # 1-D uint8 arrays that own their memory


def _idle(index: int) -> bool:
    # While idle the only referents are the pool's list and getrefcount's own argument; any
    # view, slice or memoryview of the buffer adds one (a view's .base is this buffer).
    return sys.getrefcount(_buffers[index]) <= 2


def output_buffer(nbytes: int) -> np.ndarray:
    """A 1-D uint8 array of ``nbytes`` whose contents are undefined (the caller writes all of it):
    an idle pooled buffer of that size, or a new one (pooled when the rules allow)."""
    if not _ENABLED or nbytes < MIN_POOLED_BYTES or nbytes > MAX_POOLED_BYTES:
        return np.empty(nbytes, np.uint8)
    with _lock:
        for index in range(len(_buffers)):
            if _buffers[index].nbytes == nbytes and _idle(index):
                return _buffers[index]
        if len(_buffers) >= MAX_POOLED_BUFFERS or _pooled_bytes() + nbytes > MAX_POOLED_BYTES:
            idle = [index for index in range(len(_buffers)) if _idle(index)]
            if idle:
                del _buffers[idle[0]]  # the oldest idle one
        fresh = np.empty(nbytes, np.uint8)
        if len(_buffers) < MAX_POOLED_BUFFERS and _pooled_bytes() + nbytes <= MAX_POOLED_BYTES:
            _buffers.append(fresh)
        return fresh


def _pooled_bytes() -> int:
    return sum(buffer.nbytes for buffer in _buffers)


def release_idle_buffers() -> int:
    """Drop every pooled buffer no result uses; return the bytes given back."""
    with _lock:
        idle = [index for index in range(len(_buffers)) if _idle(index)]
        freed = sum(_buffers[index].nbytes for index in idle)
        for index in reversed(idle):
            del _buffers[index]
        return freed
