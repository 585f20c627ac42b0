"""In-memory sources: bytes, buffers, numpy arrays and tensors as ``decode_raw`` input elements.

A :class:`MemorySource` is a :class:`~core.files.sources.Source` over objects already in memory,
so the pipeline, byte provenance, statistics, export and compare work on it as on files. What
each kind of object becomes (rules, docs/api.md):

- ``bytes``, ``bytearray``, a ``memoryview`` (any bytes-like object): one buffer of its raw
  bytes, a scalar string for ``decode_raw``. Shown as ``<bytes>``, ``<bytearray>``, ...
- a ``list`` or ``tuple`` of bytes-like objects: a batch, one buffer per item, input shape
  ``(n,)`` (like several files; items of different lengths need ``fixed_length``). Shown as
  ``<list[0]: bytes>``, ...
- a numpy array: its raw bytes, with the array's dtype, byte order and shape as the defaults
  (as a ``.npy`` file's header gives them), so with no decode options it is shown as is;
  decode options override them as for a ``.npy`` file (``dtype="uint8"`` shows its raw
  bytes). Shown as ``<numpy float32 (3, 4)>``. An array of a type the engine does not decode
  (structured, unicode, datetime...) is shown as raw bytes (``uint8``). An array of ``bytes``
  objects (``dtype=object`` or ``'S'``, what a ``tf.string`` tensor gives) is a batch of its
  items in C order.
- anything else with ``__array__`` (PyTorch, JAX...) or ``.numpy()`` (TensorFlow): converted
  with ``numpy.asarray`` / ``.numpy()`` (neither library is imported here), then as an array;
  shown with its own type name, e.g. ``<EagerTensor float32 (3,)>``.

Zero copy: a C-contiguous buffer is viewed, never copied; only a non-contiguous array (a
sliced or transposed view, a Fortran-order array) is copied once into C order (budget-checked),
and so is a batch that is stacked for ``decode_raw``, as for files.

Writable objects (``bytearray``, writable arrays and memoryviews) are viewed too, read-only on
our side. The caller may still change them: the next run (a new slice or setting) then shows
the new values, but nothing is re-read by itself and statistics computed before are not
recomputed. Python refuses to resize a ``bytearray`` while it is viewed (``BufferError``), so a
view never outlives its memory. Copy the object first (``bytes(buffer)``, ``array.copy()``) to
inspect a snapshot.

May import what :mod:`core.files` may.
"""

from __future__ import annotations

import itertools
import os
import sys

import numpy as np

from core.budget import check_copy_budget
from core.dtypes.table import engine_name
from core.errors import CoreError, SourceError
from core.files.npy_header import NpyHeader
from core.files.safe_open import FileInfo
from core.files.shrink_guard import ShrinkGuard
from core.files.sources import Source

__all__ = ["MemorySource", "is_in_memory", "open_memory"]

_BYTES_LIKE = (bytes, bytearray, memoryview)
_serials = itertools.count(1)  # tells two objects of the same name and size apart (caches)


def is_in_memory(target: object) -> bool:
    """Whether ``target`` is an object for :func:`open_memory` rather than paths to open: paths
    are a ``str``, an ``os.PathLike``, or a list/tuple of them (an empty one too: "no files");
    anything else, ``bytes`` included, is an object (refused by :func:`open_memory` with its
    fix when it is of no kind shown)."""
    if isinstance(target, (str, os.PathLike)):
        return False
    if isinstance(target, (list, tuple)):
        return not all(isinstance(item, (str, os.PathLike)) for item in target)
    return True


class MemorySource(Source):
    """Objects in memory as a :class:`~core.files.sources.Source`; build with :func:`open_memory`.

    Attributes
    ----------
    objects
        What was given (kept alive while the source is open).
    """

    header_kind = "array's dtype and shape"

    def __init__(self, target: object, offset: int | None = None,
                 record_size: int | None = None, name: str | None = None) -> None:
        buffers = _buffers_of(target)
        if name is not None and len(buffers) == 1:
            buffers = [(name, *buffers[0][1:])]
        self.objects = target
        self.name = name
        self._data = [data for _, data, _ in buffers]
        self.paths = tuple(name for name, _, _ in buffers)
        serial = next(_serials)
        self.files = tuple(
            FileInfo(path=name, size=int(data.size), mtime_ns=0, device=0, inode=serial, npy=header)
            for name, data, header in buffers
        )
        self.offset = offset
        self.record_size = record_size
        self.shrink_guard = ShrinkGuard(self.paths, [], [], [])  # memory does not shrink
        self.layout()  # validate offset / record_size now, so errors show at open

    def reopen(self) -> MemorySource:
        """A new source over the same objects (their current bytes) with the same defaults."""
        return MemorySource(self.objects, offset=self.offset, record_size=self.record_size, name=self.name)

    def __repr__(self) -> str:
        return f"MemorySource({list(self.paths)!r})"


def open_memory(target: object, *, offset: int | None = None,
                record_size: int | None = None, name: str | None = None) -> MemorySource:
    """Open an object in memory as a source of ``decode_raw`` elements (rules: module docstring).

    Parameters
    ----------
    target
        Bytes-like object, list/tuple of them, numpy array, or an object with ``__array__`` or
        ``.numpy()``.
    offset, record_size
        Defaults for :meth:`~core.files.sources.Source.layout`, validated now.
    name
        What the window and messages call a single buffer (e.g. ``"q8 (Q8_0, dequantized)"``);
        None: its kind, type and shape (``<numpy float32 (2, 64)>``).

    Raises
    ------
    SourceError
        ``field="files"``: an object of another kind, an empty list, an array of Python objects
        that are not bytes, or a conversion (``__array__``, ``.numpy()``) that failed;
        ``field="offset"`` / ``"record_size"``: see :meth:`~core.files.sources.Source.layout`.
    BudgetError
        A non-contiguous array too large to copy.
    """
    return MemorySource(target, offset=offset, record_size=record_size, name=name)


# ----------------------------------------------------------------------------- conversion
def _buffers_of(target: object) -> list[tuple[str, np.ndarray, NpyHeader | None]]:
    """``(name, read-only uint8 view, header or None)`` per buffer of ``target``."""
    if isinstance(target, _BYTES_LIKE):
        return [(f"<{type(target).__name__}>", _raw_view(target), None)]
    if isinstance(target, (list, tuple)):
        if not target:
            raise SourceError(f"the {type(target).__name__} is empty (a batch needs at least one "
                              "bytes object)", field="files")
        buffers = []
        for index, item in enumerate(target):
            if not isinstance(item, _BYTES_LIKE):
                raise SourceError(
                    f"item {index} of the {type(target).__name__} is a {type(item).__name__}, "
                    "not bytes (a batch is a list of bytes objects; use a numpy array for "
                    "numbers)", field="files")
            name = f"<{type(target).__name__}[{index}]: {type(item).__name__}>"
            buffers.append((name, _raw_view(item), None))
        return buffers
    kind = type(target).__name__
    if isinstance(target, np.ndarray):
        array, kind = target, "numpy"
    elif hasattr(target, "__array__"):
        array = _converted(target, "__array__", lambda: np.asarray(target))
    elif callable(getattr(target, "numpy", None)):
        array = _converted(target, ".numpy()", lambda: np.asarray(target.numpy()))
    else:
        raise SourceError(
            f"cannot show a {kind} (give bytes, a bytearray or memoryview, a list of bytes, a "
            "numpy array, or a tensor with __array__ or .numpy())", field="files")
    if array.dtype.kind in "OS":
        return _string_batch(array, kind)
    return [(f"<{kind} {_type_text(array.dtype)} {tuple(array.shape)}>", *_array_view(array))]


def _converted(target: object, how: str, convert) -> np.ndarray:
    try:
        array = convert()
    except Exception as error:  # the boundary: a foreign library's conversion failed
        raise SourceError(f"{type(target).__name__}{'' if how.startswith('.') else '.'}{how} "
                          f"failed: {error} (convert it to a numpy array first, e.g. "
                          "tensor.detach().cpu().numpy())", field="files") from None
    if not isinstance(array, np.ndarray):  # pragma: no cover - np.asarray always gives one
        raise SourceError(f"{type(target).__name__}{how} did not give an array", field="files")
    return array


def _raw_view(buffer: bytes | bytearray | memoryview) -> np.ndarray:
    """A read-only ``uint8`` view of a bytes-like object's bytes (a copy if not contiguous)."""
    view = memoryview(buffer)
    if not view.c_contiguous:
        check_copy_budget(view.nbytes, "copying a non-contiguous memoryview",
                          "give a contiguous buffer", field="files")
        data = np.frombuffer(view.tobytes(), dtype=np.uint8)
    else:
        data = np.frombuffer(view, dtype=np.uint8) if view.nbytes else np.zeros(0, np.uint8)
    data.flags.writeable = False  # never written through, even when the caller's is writable
    return data


def _array_view(array: np.ndarray) -> tuple[np.ndarray, NpyHeader | None]:
    """The array's bytes (a view when C-contiguous) and a header giving its type and shape."""
    if not array.flags.c_contiguous:
        check_copy_budget(array.nbytes, f"copying the non-contiguous {tuple(array.shape)} array "
                          "into C order", "give a contiguous array, e.g. a smaller slice",
                          field="files")
        array = np.ascontiguousarray(array)
    flat = array.reshape(-1)
    if flat.nbytes:
        # Through a memoryview: numpy collapses a view's .base to the array owning the memory,
        # and the pipeline recognises zero copy by a .base chain that reaches this very array.
        data = np.frombuffer(memoryview(flat.view(np.uint8)), dtype=np.uint8)
    else:
        data = np.zeros(0, np.uint8)
    data.flags.writeable = False  # our own array: the caller's flags stay as they are
    try:
        name = engine_name(array.dtype)
    except CoreError:
        return data, None  # not a type decode_raw knows: shown as raw bytes
    order = array.dtype.byteorder
    little = order == "<" or (order in "=|" and sys.byteorder == "little")
    header = NpyHeader(version=(1, 0), dtype=name, little_endian=little,
                       shape=tuple(array.shape), fortran_order=False, data_offset=0,
                       nbytes=int(array.nbytes), descr=array.dtype.str)
    return data, header


def _string_batch(array: np.ndarray, kind: str) -> list[tuple[str, np.ndarray, None]]:
    """An array of bytes objects (``object`` or ``'S'``) as a batch of its items, C order."""
    items = array.reshape(-1).tolist()
    buffers = []
    for index, item in enumerate(items):
        if not isinstance(item, _BYTES_LIKE):
            raise SourceError(
                f"item {index} of the {kind} array of Python objects is a "
                f"{type(item).__name__}, not bytes (give an array of numbers or of bytes)",
                field="files")
        buffers.append((f"<{kind}[{index}]: bytes>", _raw_view(item), None))
    if not buffers:
        raise SourceError(f"the {kind} array of strings is empty (a batch needs at least one "
                          "string)", field="files")
    return buffers


def _type_text(dtype: np.dtype) -> str:
    try:
        return engine_name(dtype)
    except CoreError:
        return str(dtype)

