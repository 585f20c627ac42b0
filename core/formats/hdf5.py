"""HDF5 files: contiguous datasets as tensors, through the optional ``h5py`` package.

HDF5's object headers, B-trees and heaps are a large format; ``h5py`` (the HDF Group's
library) reads them. A dataset stored *contiguously* without filters is one byte range in the
file: ``dataset.id.get_offset()`` gives its first byte (an absolute file offset, user block
included) and ``get_storage_size()`` its length; dtype and byte order come from the dataset's
numpy dtype, the shape (C order) from the dataset. Datasets stored in *chunks* (always the case
with compression or other filters), *compact* (inside the object header) or in *external* files
are listed with a problem: their bytes are not one range of this file, so no view of it can
show them.

Unlike the other formats, the file is opened by ``h5py`` itself (``h5py.File(path, "r",
locking=False)``: read-only, taking no file lock) rather than through :class:`~core.formats.reader.HeaderReader`: acceptable for this
optional format, whose structures only the HDF5 library should parse. It reads metadata only;
no dataset value is read by a listing. Without ``h5py`` a listing raises a
:class:`~core.errors.ContainerError` saying how to install it
(``pip install 'tensor-inspector[hdf5]'``).
"""

from __future__ import annotations

import numpy as np

from core.dtypes.table import row_for_numpy_kind
from core.formats.entry import ContainerFormat, ContainerListing, TensorEntry
from core.formats.reader import HeaderReader

__all__ = ["FORMAT", "HDF5_SIGNATURE", "MAX_DATASETS", "list_hdf5", "sniff_hdf5"]

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
#: Most datasets listed.
MAX_DATASETS = 100_000
_INSTALL = "pip install 'tensor-inspector[hdf5]' (or pip install h5py)"


def sniff_hdf5(head: bytes, size: int) -> bool:
    """The HDF5 signature at byte 0, 512, 1024 or 2048 (after a user block)."""
    return any(head[at:at + 8] == HDF5_SIGNATURE for at in (0, 512, 1024, 2048))


def list_hdf5(reader: HeaderReader) -> ContainerListing:
    """Every dataset of an HDF5 file, by path (``group/name``).

    Raises
    ------
    ContainerError
        ``h5py`` is not installed, or the HDF5 library cannot open the file.
    """
    try:
        import h5py  # optional extra: only needed to list HDF5 files
    except ImportError:
        raise reader.error("listing HDF5 files needs the h5py package, which is not installed",
                           None, _INSTALL) from None
    try:
        # No file lock: an inspector must neither block nor be blocked by a writer.
        handle = h5py.File(reader.path, "r", locking=False)
    except (OSError, ValueError) as error:
        raise reader.error(f"the HDF5 library cannot open it ({str(error)[:160]})", None,
                           "the file is truncated or corrupt") from None
    entries: list[TensorEntry] = []
    problems: list[str] = []
    with handle:
        def visit(name: str, item: object) -> object:
            if isinstance(item, h5py.Dataset):
                if len(entries) >= MAX_DATASETS:
                    problems.append(f"HDF5: only the first {MAX_DATASETS} datasets are listed")
                    return True  # stops the visit
                entries.append(_dataset_entry(h5py, name, item))
            return None

        try:
            handle.visititems(visit)
        except (OSError, RuntimeError, ValueError, KeyError, TypeError) as error:
            problems.append(f"HDF5: the walk through the groups stopped ({str(error)[:160]}); "
                            f"{len(entries)} datasets listed before it")
        metadata = {str(k): _short(v) for k, v in list(handle.attrs.items())[:50]}
    return ContainerListing("hdf5", reader.path, tuple(entries), metadata, tuple(problems))


def _dataset_entry(h5py, name: str, dataset) -> TensorEntry:
    dtype = dataset.dtype
    shape = tuple(int(d) for d in dataset.shape) if dataset.shape is not None else ()
    row = row_for_numpy_kind(dtype.kind, dtype.itemsize) if dtype.fields is None else None
    little = dtype.byteorder != ">" if dtype.byteorder != "=" else np.little_endian
    stored = dtype.str

    def broken(problem: str, offset: int = 0, nbytes: int = 0) -> TensorEntry:
        return TensorEntry(name, None, little, shape, offset, nbytes, stored,
                           problem=f"HDF5 dataset {name!r}: {problem}")

    if row is None:
        return broken(f"its type {dtype} is not a numeric type the engine decodes")
    plist = dataset.id.get_create_plist()
    layout = plist.get_layout()
    if layout == h5py.h5d.CHUNKED:
        filters = [plist.get_filter(i)[3].decode("latin-1", "replace")
                   for i in range(plist.get_nfilters())]
        how = f" with filters {', '.join(filters)}" if filters else ""
        return broken(f"it is stored in chunks of {dataset.chunks}{how}, scattered through the "
                      "file, so it is not one byte range and cannot be mapped (copy it "
                      "contiguously, e.g. h5repack -l CONTI, or save it with h5py without "
                      "chunks= or compression=)")
    if layout == h5py.h5d.COMPACT:
        return broken("it is stored compact (inside its object header), which has no data "
                      "offset (save it contiguous to map it)")
    if plist.get_external_count():
        return broken("its data lives in external files, not in this one")
    offset = dataset.id.get_offset()
    nbytes = dataset.id.get_storage_size()
    if offset is None:
        return broken("no space was allocated for its data yet (it reads as the fill value)")
    return TensorEntry(name, row.name, little or dtype.itemsize == 1, shape, int(offset),
                       int(nbytes), stored)


def _short(value: object) -> str:
    text = str(value)
    return text if len(text) <= 200 else text[:200] + "..."


FORMAT = ContainerFormat("hdf5", sniff_hdf5, list_hdf5)
