"""Values of container entries that are not one byte range of the file, as a copy in memory.

Two kinds of entry hold stored values that no view of the file can show, and each is read by its
format's own parser, budget-checked before anything is allocated:

* a compressed ``.npz`` member (``numpy.savez_compressed``): :func:`core.formats.npz.decompressed_values`;
* a chunked or compact HDF5 dataset: :func:`core.formats.hdf5.dataset_values` (the HDF5 library,
  which also undoes its filters).

(A quantized GGUF tensor differs: its float32 values are computed from its blocks, not stored;
:func:`core.formats.gguf.dequantize`.) The command's ``--tensor`` prints such a copy with a
``note:``; the window opens it in a second window.
"""

from __future__ import annotations

import math

import numpy as np

from core.dtypes.table import type_row
from core.errors import ContainerError
from core.files.sources import FileSource
from core.formats.entry import TensorEntry

__all__ = ["copy_kind", "copy_note", "values_copy"]


def copy_kind(entry: TensorEntry) -> str | None:
    """``"decompress"`` (compressed npz member), ``"read"`` (chunked or compact HDF5 dataset), or
    None when the entry's values are a view of the file (or cannot be had at all)."""
    if "compressed" in entry.extras and "member" in entry.extras:
        return "decompress"
    if entry.dtype is not None and ("chunks" in entry.extras or "layout" in entry.extras):
        return "read"
    return None


def copy_note(entry: TensorEntry) -> str:
    """What the copy is, for the command's ``note:`` line."""
    nbytes = math.prod(entry.shape) * type_row(entry.dtype).itemsize if entry.dtype else 0
    if copy_kind(entry) == "decompress":
        how = f"compressed in the file ({entry.extras['compressed']}): these are its decompressed values"
    else:
        filters = f", filters {entry.extras['filters']}" if "filters" in entry.extras else ""
        stored = f"in chunks of {entry.extras['chunks']}" if "chunks" in entry.extras else "compact"
        how = f"stored {stored}{filters} in the file: these are its values as h5py reads them"
    return f"'{entry.name}' is {how}, a copy of {nbytes} bytes in memory (their byte offsets are not file offsets)"


def values_copy(source: FileSource, entry: TensorEntry, index: int = 0) -> np.ndarray:
    """The entry's values as a copy in memory (see the module docstring).

    Raises
    ------
    ContainerError
        The entry is of neither kind, or its format's reader refuses it.
    BudgetError
        The copy would exceed the copy budget.
    """
    kind = copy_kind(entry)
    if kind == "decompress":
        from core.formats.npz import decompressed_values

        return decompressed_values(source, entry, index)
    if kind == "read":
        from core.formats.hdf5 import dataset_values

        return dataset_values(source, entry, index)
    raise ContainerError(f"'{entry.name}' is not stored compressed or in chunks: open it as a view "
                         "of the file", field="tensor")
