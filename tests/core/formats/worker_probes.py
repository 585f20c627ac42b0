"""Module-level functions for the HDF5 worker's tests (tests/core/formats/test_hdf5_worker.py):
the worker imports them by name, so they live in a plain module the tests put on sys.path."""

from __future__ import annotations

import ctypes
import os
import time

import numpy as np

from core.errors import ContainerError
from core.formats.hdf5_worker import shared_empty


def pid_and_head(file, count):
    """The worker's pid and the first ``count`` bytes of the file range, read with pread."""
    return os.getpid(), os.pread(file._fd, count, file.range.start)


def sleep_forever(file):
    while True:
        time.sleep(60)


def allocate(file, nbytes):
    """A Python allocation of ``nbytes`` (MemoryError under the worker's RLIMIT_AS)."""
    return len(bytearray(nbytes))


def allocate_with_numpy(file, nbytes):
    return int(np.ones(nbytes, np.uint8).sum())


def exit_with(file, status):
    os._exit(status)


def segfault(file):
    ctypes.string_at(0)


def raise_container_error(file):
    raise ContainerError("a refusal of the function itself", field="tensor")


def raise_key_error(file):
    raise KeyError("no such object")


def shared_arange(file, count):
    """``arange(count)`` as int32 in a shared array (returned without pickling its bytes)."""
    values = shared_empty((count,), "<i4")
    values[:] = np.arange(count, dtype="<i4")
    return {"values": values, "small": np.arange(3)}
