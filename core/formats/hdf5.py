"""HDF5 files: contiguous datasets as tensors, through the optional ``h5py`` package.

HDF5's object headers, B-trees and heaps are a large format; ``h5py`` (the HDF Group's
library) reads them. A dataset stored *contiguously* without filters is one byte range in the
file: ``dataset.id.get_offset()`` gives its first byte (an absolute file offset, user block
included) and ``get_storage_size()`` its length; dtype and byte order come from the dataset's
numpy dtype, the shape (C order) from the dataset. Datasets stored in *chunks* (always the case
with compression or other filters) or *compact* (inside the object header) are not one range of
the file, so no view of it can show them: they are listed as
:attr:`~core.formats.entry.Storage.COPY` entries with ``extras["chunks"]`` (or
``extras["layout"] = "compact"``), and the format's ``values`` hook (:func:`dataset_values`)
reads their values with the HDF5 library into a copy in memory, refused before anything is
allocated when it would exceed the copy budget (:mod:`core.budget`). A dataset never written
(no space allocated) is a :attr:`~core.formats.entry.Storage.COMPUTED` entry whose values are
its fill value, as h5py reads them; a *virtual* dataset is a copy entry when its source files
are in the file's folder (else not usable, naming the missing source). Datasets in *external*
files are listed as not usable. A dataset of a *compound* type holds records
(:mod:`core.formats.hdf5_records`): it is listed as its bytes, ``uint8`` of its shape + ``(record
size,)``, with :attr:`~core.formats.entry.TensorEntry.record_layout` the file type's layout, by
the same rules (contiguous: a view; otherwise a copy of the records' bytes as stored); one
whose members the layout cannot show (variable-length, references) is not usable, naming the
member. Names that are not UTF-8 (h5py gives them as bytes) are text
with surrogate escapes (:func:`_text_name`), turned back into their bytes to open them.

Unlike the other formats, the file is parsed by ``h5py`` rather than through
:class:`~core.formats.reader.HeaderReader`: acceptable for this optional format, whose
structures only the HDF5 library should parse. It is opened through the source's
checked descriptor (``h5py.File(fileobj, "r", locking=False)``: read-only, no file lock), never
by its path again (:func:`file_range`), and always in a worker process
(:mod:`core.formats.hdf5_worker`: a time and a memory limit; a hang, an exhaustion or a crash of
libhdf5 is a message). It reads metadata only;
no dataset value is read by a listing. Without ``h5py`` a listing raises a
:class:`~core.errors.ContainerError` saying how to install it
(``pip install 'tensor-inspector[hdf5]'``).
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np

from core.budget import check_copy_budget
from core.dtypes.table import row_for_numpy_kind
from core.errors import ContainerError, CoreError
from core.files.sources import FileSource
from core.formats import hdf5_worker
from core.formats.entry import ContainerFormat, ContainerListing, EntryValues, Storage, TensorEntry
from core.formats.hdf5_records import compound_layout, read_records
from core.formats.hdf5_worker import FileRange, WorkerFile, shared_empty
from core.formats.reader import HeaderReader
from core.records.structured import StructuredLayout
from core.text.names import printable_name

__all__ = ["FORMAT", "HDF5_SIGNATURE", "MAX_DATASETS", "dataset_values", "hdf5_values", "list_hdf5", "sniff_hdf5"]

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
#: Most datasets listed.
MAX_DATASETS = 100_000
#: What h5py raises on a damaged file (caught per dataset, per walk, per attribute list).
_LIBRARY_ERRORS = (OSError, RuntimeError, ValueError, KeyError, TypeError, IndexError,
                   OverflowError)
_INSTALL = "pip install 'tensor-inspector[hdf5]' (or pip install h5py)"


def sniff_hdf5(head: bytes, size: int) -> bool:
    """The HDF5 signature at byte 0, 512, 1024 or 2048 (after a user block)."""
    return any(head[at:at + 8] == HDF5_SIGNATURE for at in (0, 512, 1024, 2048))


def list_hdf5(reader: HeaderReader) -> ContainerListing:
    """Every dataset of an HDF5 file, by path (``group/name``), listed by h5py in a worker
    process (:mod:`core.formats.hdf5_worker`: time and memory limits).

    Raises
    ------
    ContainerError
        ``h5py`` is not installed, the HDF5 library cannot open the file, or it hung, ran out
        of memory or crashed on it.
    """
    if not h5py_installed():
        raise reader.error("listing HDF5 files needs the h5py package, which is not installed",
                           None, _INSTALL)
    try:
        file = file_range(reader.source, reader.index)
    except OSError as error:
        raise reader.error(f"the HDF5 library cannot open it ({str(error)[:160]})", None,
                           "the file is truncated or corrupt") from None
    folder = os.path.dirname(os.path.abspath(reader.path))
    answer = hdf5_worker.run(_list_in_worker, file, folder, where=_where(reader),
                             what="listing it")
    if answer[0] == "unopened":
        raise reader.error(f"the HDF5 library cannot open it ({answer[1]})", None,
                           "the file is truncated or corrupt")
    _, entries, metadata, problems = answer
    return ContainerListing("hdf5", reader.path, tuple(entries), metadata, tuple(problems))


def _where(reader: HeaderReader) -> str:
    """``the <format> file '<path>'``, as the reader's messages start."""
    return f"the {reader.format} file '{printable_name(reader.path)}'"


def h5py_installed() -> bool:
    """Whether ``h5py`` can be imported (asked without importing it: only workers load it)."""
    try:
        return importlib.util.find_spec("h5py") is not None
    except (ImportError, ValueError):
        return False


def _list_in_worker(file: WorkerFile, folder: str) -> tuple:
    """In the worker: ``("listed", entries, metadata, problems)``, or ``("unopened", why)``."""
    h5py = file.h5py
    try:
        handle = file.open()
    except (OSError, ValueError) as error:
        return ("unopened", str(error)[:160])
    entries: list[TensorEntry] = []
    problems: list[str] = []
    with handle:
        def visit(name: str, item: object) -> object:
            if isinstance(item, h5py.Dataset):
                if len(entries) >= MAX_DATASETS:
                    problems.append(f"HDF5: only the first {MAX_DATASETS} datasets are listed")
                    return True  # stops the visit
                text = _text_name(name)
                try:
                    entries.append(_dataset_entry(h5py, text, item, folder))
                except _LIBRARY_ERRORS as error:  # a damaged dataset: its own problem only
                    entries.append(TensorEntry(text, None, True, (), 0, 0, "", problem=(
                        f"HDF5 dataset {text!r}: the HDF5 library cannot read its description "
                        f"({str(error)[:160]}) (the file is corrupt)")))
            return None

        try:
            handle.visititems(visit)
        except (OSError, RuntimeError, ValueError, KeyError, TypeError) as error:
            problems.append(f"HDF5: the walk through the groups stopped ({str(error)[:160]}); "
                            f"{len(entries)} datasets listed before it")
        try:
            metadata = {str(k): _short(v) for k, v in list(handle.attrs.items())[:50]}
        except _LIBRARY_ERRORS as error:
            metadata = {}
            problems.append(f"HDF5: the file's attributes cannot be read ({str(error)[:160]})")
    return ("listed", entries, metadata, problems)


def file_range(source: FileSource, index: int, start: int = 0, size: int | None = None,
               by_path: bool = False) -> FileRange:
    """What a worker opens: ``size`` bytes (default: to the end of the file as opened) from
    ``start`` of file ``index``, through the source's own descriptor (the file checked and
    mapped at open), never by its path again: a path swapped meanwhile for a FIFO or another
    file is not what is read. h5py opens it without a file lock: an inspector must neither
    block nor be blocked by a writer.

    ``by_path``: for a virtual dataset, whose source files libhdf5 finds next to the file's
    path only: the worker opens the path after checking that it still names the open file
    (same device and inode, a regular file).

    Raises
    ------
    OSError
        The file is not open as a mapped file.
    ContainerError
        The file is a remote object (libhdf5 reads local files only).
    """
    path = source.paths[index]
    if not source.holds_data:
        raise ContainerError(f"'{printable_name(path)}' is an HDF5 file behind a URL: libhdf5 reads local files "
                             "only, so it cannot be read where it is (download it and open the local copy)",
                             field="files")
    fd = next((r.fd for r in source.mapped_ranges() if r.path == path), None)
    if fd is None:
        raise OSError("the file is not open as a mapped file (open it again)")
    return FileRange(fd, start, source.file_size(index) - start if size is None else size,
                     path, by_path)


def _dataset_entry(h5py, name: str, dataset, folder: str) -> TensorEntry:
    dtype = dataset.dtype
    shape = tuple(int(d) for d in dataset.shape) if dataset.shape is not None else ()
    row = row_for_numpy_kind(dtype.kind, dtype.itemsize) if dtype.fields is None else None
    little = dtype.byteorder != ">" if dtype.byteorder != "=" else np.little_endian
    stored = dtype.str
    records: StructuredLayout | None = None
    record_problem: str | None = None
    if dtype.fields is not None:  # a compound type: records of the file type's members
        try:
            records = compound_layout(h5py, dataset)
        except CoreError as error:
            record_problem = f"its compound type cannot be shown as records: {error.message}"
        stored = "compound"
        if records is not None:  # a null dataspace (h5py.Empty) holds no record
            shape = (shape if dataset.shape is not None else (0,)) + (records.layout.itemsize,)
            row, little = row_for_numpy_kind("u", 1), True

    def broken(problem: str, offset: int = 0, nbytes: int = 0, extras: dict | None = None) -> TensorEntry:
        return TensorEntry(name, None, little, shape, offset, nbytes, stored, extras or {},
                           problem=f"HDF5 dataset {name!r}: {problem}")

    def typed(offset: int = 0, nbytes: int = 0, extras: dict | None = None,
              storage: Storage = Storage.VIEW) -> TensorEntry:
        """An entry of a type the engine decodes (records: their bytes, with the layout)."""
        if records is not None:
            extras = {**records.extras(), **(extras or {})}
        return TensorEntry(name, row.name, little or dtype.itemsize == 1, shape, offset, nbytes, stored,
                           extras or {}, storage=storage,
                           record_layout=records.text if records is not None else None)

    def copied(extras: dict) -> TensorEntry:
        """Readable by h5py, not one byte range: typed, so the copy's type is known."""
        return typed(extras=extras, storage=Storage.COPY)

    plist = dataset.id.get_create_plist()
    layout = plist.get_layout()
    contiguous = layout not in (h5py.h5d.CHUNKED, h5py.h5d.COMPACT, getattr(h5py.h5d, "VIRTUAL", -1)) \
        and not plist.get_external_count()
    if row is None:
        if record_problem is not None and contiguous and dataset.id.get_offset() is not None:
            # records that cannot be shown: their bytes still can
            return broken(f"{record_problem} (read it with h5py; --dtype uint8 shows the records' bytes)",
                          int(dataset.id.get_offset()), int(dataset.id.get_storage_size()))
        return broken(record_problem or f"its type {dtype} is not a numeric type the engine decodes")
    if layout == h5py.h5d.CHUNKED:
        filters = [plist.get_filter(i)[3].decode("latin-1", "replace")
                   for i in range(plist.get_nfilters())]
        extras: dict[str, object] = {"chunks": tuple(dataset.chunks)}
        if filters:
            extras["filters"] = ", ".join(filters)
        return copied(extras)
    if layout == h5py.h5d.COMPACT:
        return copied({"layout": "compact"})
    if layout == getattr(h5py.h5d, "VIRTUAL", -1):
        return _virtual_entry(folder, plist, copied, broken)
    if plist.get_external_count():
        return broken("its data lives in external files, not in this one")
    offset = dataset.id.get_offset()
    nbytes = dataset.id.get_storage_size()
    if offset is None:  # created, never written: h5py reads it as its fill value
        return typed(extras={"layout": "not allocated", "fill value": _short(_fill_value(plist, dtype))},
                     storage=Storage.COMPUTED)
    return typed(int(offset), int(nbytes))


def _text_name(name: str | bytes) -> str:
    """A dataset path as text: h5py gives bytes for a name that is not UTF-8; its bytes are kept
    as surrogate escapes, so :func:`_stored_name` gives them back to open it."""
    return name if isinstance(name, str) else name.decode("utf-8", "surrogateescape")


def _stored_name(name: str) -> bytes:
    """The bytes of a dataset path as the file stores them (inverse of :func:`_text_name`)."""
    return name.encode("utf-8", "surrogateescape")


def _fill_value(plist, dtype) -> object:
    """The dataset's fill value (what h5py reads for never-written elements)."""
    try:
        value = np.zeros((), dtype)
        plist.get_fill_value(value)
        return value.item()
    except Exception:
        return 0


def _virtual_entry(folder: str, plist, copied, broken) -> TensorEntry:
    """A virtual dataset: read by h5py when every source file is this file or lies in its
    folder (``folder``), else said which source is missing."""
    sources = []
    for index in range(plist.get_virtual_count()):
        name = plist.get_virtual_filename(index)
        if name == ".":
            continue
        sources.append(name)
        inside = os.path.normpath(os.path.join(folder, name))
        if os.path.isabs(name) or os.path.dirname(inside) != folder or not os.path.isfile(inside):
            return broken(f"it is a virtual dataset whose source file {name!r} is not in the "
                          f"folder of this file ({printable_name(folder)}) (put the source "
                          "files next to it to read it)")
    return copied({"layout": "virtual", "sources": ", ".join(sorted(set(sources))) or "this file"})


def dataset_values(source: FileSource, entry: TensorEntry, index: int = 0) -> np.ndarray:
    """The values of a chunked or compact dataset (``extras["chunks"]`` or ``["layout"]``),
    read by the HDF5 library in a worker process (:mod:`core.formats.hdf5_worker`) into a copy
    in memory (filters undone), in its stored byte order.

    Raises
    ------
    ContainerError
        The entry is not such a dataset, ``h5py`` is missing, or the library cannot read it
        (the file changed or is corrupt), or hung, ran out of memory or crashed on it.
    BudgetError
        The values would exceed the copy budget (checked before anything is read).
    """
    if entry.dtype is None or entry.storage is Storage.VIEW:
        raise ContainerError(f"'{entry.name}' is not a chunked, compact, virtual or unallocated "
                             "HDF5 dataset", field="tensor")
    path = source.paths[index]
    where = f"the HDF5 file '{printable_name(path)}': dataset {entry.name!r}"
    if not h5py_installed():
        raise ContainerError(f"{where}: reading it needs the h5py package ({_INSTALL})",
                             field="tensor")
    try:
        file = file_range(source, index, by_path=entry.extras.get("layout") == "virtual")
    except OSError as error:
        raise ContainerError(f"{where}: the HDF5 library cannot read it ({str(error)[:160]}) (list "
                             "the file again; it may have changed or be corrupt)",
                             field="tensor") from None
    return hdf5_worker.run(read_dataset, file, _stored_name(entry.name), where,
                           f"reading HDF5 dataset {entry.name!r}", "open a smaller dataset",
                           where=where, what="reading it", field="tensor",
                           read_bytes=expected_bytes(entry))


def expected_bytes(entry: TensorEntry) -> int:
    """The bytes of an entry's values as listed, for a worker's limits (the worker checks the
    dataset's own size against the copy budget)."""
    if entry.record_layout is not None:  # records: listed as their bytes
        return int(np.prod(entry.shape, dtype=object))
    try:
        itemsize = np.dtype(entry.stored_type).itemsize
    except TypeError:
        itemsize = 16
    return int(np.prod(entry.shape, dtype=object)) * itemsize


def read_dataset(file: WorkerFile, name: bytes, where: str, what: str, fix: str) -> np.ndarray:
    """In the worker: dataset ``name`` of the file read into a new array (:func:`shared_empty`),
    its size checked against the copy budget first (``what``, ``fix``: the refusal's words).
    A compound dataset (records) is read as its bytes in the file type's layout (no conversion:
    the file type is the memory type), ``uint8`` of its shape + ``(record size,)``, as its
    entry lists it.

    Raises
    ------
    ContainerError
        ``where``: the HDF5 library cannot read it.
    BudgetError
        The values would exceed the copy budget.
    """
    try:
        with file.open() as handle:
            dataset = handle[name]
            if dataset.dtype.fields is not None:
                return read_records(dataset, what, fix)
            nbytes = int(np.prod(dataset.shape, dtype=object)) * dataset.dtype.itemsize
            check_copy_budget(nbytes, what, fix, field="tensor")
            values = shared_empty(dataset.shape, dataset.dtype)
            if values.size:
                dataset.read_direct(values)
    except CoreError:
        raise
    except (OSError, ValueError, KeyError, RuntimeError, TypeError) as error:
        raise ContainerError(f"{where}: the HDF5 library cannot read it ({str(error)[:160]}) (list "
                             "the file again; it may have changed or be corrupt)",
                             field="tensor") from None
    return values


def hdf5_values(source: FileSource, entry: TensorEntry) -> EntryValues:
    """The format's ``values`` hook: a chunked or compact dataset's :func:`dataset_values`."""
    array = dataset_values(source, entry)
    if entry.storage is Storage.COMPUTED:
        return EntryValues(array, "fill value",
                           f"'{entry.name}' has no data in the file yet (never written): these are "
                           f"its fill value {entry.extras.get('fill value')} as h5py reads them, a "
                           f"copy of {array.nbytes} bytes in memory (their byte offsets are not "
                           "file offsets)")
    filters = f", filters {entry.extras['filters']}" if "filters" in entry.extras else ""
    layout = entry.extras.get("layout", "compact")
    stored = f"in chunks of {entry.extras['chunks']}" if "chunks" in entry.extras else (
        f"as a virtual dataset of {entry.extras.get('sources')}" if layout == "virtual" else layout)
    what = "records' bytes, in the file type's layout," if entry.record_layout is not None else "values"
    return EntryValues.stored_copy(array, "read by h5py",
                                   f"'{entry.name}' is stored {stored}{filters} in the file: these are its "
                                   f"{what} as h5py reads them")


def _short(value: object) -> str:
    text = str(value)
    return text if len(text) <= 200 else text[:200] + "..."


FORMAT = ContainerFormat("hdf5", sniff_hdf5, list_hdf5, hdf5_values)
