"""HDF5 compound datasets as records: their layout is the file type's, their bytes as stored.

Rules
-----
- A dataset whose type h5py reads with named fields (a compound type) holds records. A
  compound that h5py reads as complex numbers (two float members named ``r`` and ``i``, how h5py
  writes ``complex64`` data) is not: it stays a complex tensor, whose bytes are the same.
- The layout is the **file** type's (:func:`file_type_dtype`): each member at the offset the
  file type gives it, in its stored size and byte order (big-endian members stay big-endian),
  the record its size with any padding; nested compounds and array members as they are.
  :func:`core.records.structured.structured_layout` turns it into the records' layout (fixed
  strings and opaque members as raw bytes; variable-length members and references refused,
  named).
- A copy of the records (chunked, compact, virtual or never-written datasets) is read with the
  file type as the memory type (:func:`read_records`): no conversion, so the copy's bytes are
  the records as the file stores them, and one layout reads the view and the copy alike.
- These functions run in the HDF5 worker process (:mod:`core.formats.hdf5_worker`), which
  imports ``h5py``; they are handed it.
"""

from __future__ import annotations

import numpy as np

from core.budget import check_copy_budget
from core.formats.hdf5_worker import shared_empty
from core.records.structured import StructuredLayout, structured_layout

__all__ = ["compound_layout", "file_type_dtype", "read_records"]


def compound_layout(h5py, dataset) -> StructuredLayout:
    """The records' layout of the compound ``dataset`` (an ``h5py.Dataset``; module rules).

    Raises
    ------
    CoreError
        ``field="fields"``: a member the layout cannot show (named), or the layout's refusals.
    """
    return structured_layout(file_type_dtype(h5py, dataset.id.get_type()))


def file_type_dtype(h5py, file_type) -> np.dtype:
    """The numpy dtype of an HDF5 datatype as the file stores it (never h5py's conversion for
    reading): a compound's members at their offsets in the file type, the record its size,
    nested compounds and array members as they are, atomic members in their stored size and
    byte order; a compound h5py reads as complex (members ``r``, ``i``) stays complex (the same
    bytes); a member numpy has no type for is its raw bytes (``V<size>``); a variable-length
    member or a reference is an object (refused by :func:`structured_layout`, named)."""
    h5t = h5py.h5t
    size = file_type.get_size()
    if isinstance(file_type, h5t.TypeCompoundID):
        mapped = _mapped_dtype(file_type)
        if mapped is not None and mapped.kind == "c" and mapped.itemsize == size:
            return np.dtype(mapped.str)
        count = file_type.get_nmembers()
        return np.dtype({"names": [_member_name(file_type.get_member_name(i)) for i in range(count)],
                         "formats": [file_type_dtype(h5py, file_type.get_member_type(i)) for i in range(count)],
                         "offsets": [file_type.get_member_offset(i) for i in range(count)], "itemsize": size})
    if isinstance(file_type, h5t.TypeArrayID):
        return np.dtype((file_type_dtype(h5py, file_type.get_super()), tuple(file_type.get_array_dims())))
    mapped = _mapped_dtype(file_type)
    if mapped is not None and mapped.hasobject:
        return np.dtype(object)
    if mapped is None or mapped.itemsize != size:
        return np.dtype(f"V{size}")
    return np.dtype(mapped.str)  # without h5py's metadata (an enum's names)


def _mapped_dtype(file_type) -> np.dtype | None:
    """h5py's numpy dtype for an HDF5 datatype, or None when it has none."""
    try:
        return file_type.dtype
    except (TypeError, ValueError, KeyError, NotImplementedError):
        return None


def _member_name(name: str | bytes) -> str:
    """A member's name as text (bytes that are not UTF-8 kept as surrogate escapes)."""
    return name if isinstance(name, str) else name.decode("utf-8", "surrogateescape")


def read_records(dataset, what: str, fix: str) -> np.ndarray:
    """In the worker: the records of the compound ``dataset`` (an ``h5py.Dataset``) as their
    bytes in the file type's layout, ``uint8`` of its shape + ``(record size,)`` in a new array
    (:func:`~core.formats.hdf5_worker.shared_empty`), the copy budget checked first (``what``,
    ``fix``: the refusal's words); a null dataspace (``h5py.Empty``) has no record: ``(0, size)``.

    Raises
    ------
    BudgetError
        The records would exceed the copy budget.
    """
    from h5py import h5s

    file_type = dataset.id.get_type()
    shape = tuple(dataset.shape) if dataset.shape is not None else (0,)  # a null dataspace: no record
    count = int(np.prod(shape, dtype=object))
    check_copy_budget(count * file_type.get_size(), what, fix, field="tensor")
    values = shared_empty(shape + (file_type.get_size(),), np.uint8)
    if values.size:
        dataset.id.read(h5s.ALL, h5s.ALL, values, mtype=file_type)
    return values
