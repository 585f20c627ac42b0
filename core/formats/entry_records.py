"""One way to read records: of a container entry (an HDF5 compound dataset, a structured
``.npz`` member) or of a plain file after a header. The command prints them
(:mod:`core.cli.records`); the window's records table can read them the same way (nothing here
imports Qt).

Rules
-----
- An entry has records when it carries :attr:`~core.formats.entry.TensorEntry.record_layout`;
  its shape is the stored shape + ``(record size,)``, so it holds ``prod(shape[:-1])`` records,
  numbered in C order of the stored shape (file order for a Fortran-order ``.npz`` member, whose
  shape is listed reversed).
- A **view** entry's records are read when asked, with ``pread`` from the listed file
  (:meth:`~core.files.source.Source.read_exact`), never through the map; they must lie inside
  the file as opened (checked when the records are made: a dataset that reaches past the end is
  refused, naming its bytes).
- A **copy** or **computed** entry's records are its format's ``values`` hook's bytes (a
  budget-checked copy in memory, made once by :func:`entry_records`: call it off a GUI thread),
  checked to be exactly ``count * record size`` bytes; reads slice that copy.
- A **plain file**'s records (:func:`file_records`) follow ``header`` bytes and are counted from
  the file's size; the bytes after the last whole record are its trailing bytes.
- :meth:`EntryRecords.read` gives at most ``count`` records from record ``first`` (fewer at the
  end); :meth:`EntryRecords.records` the same as a structured view of those bytes
  (:meth:`~core.records.layout.RecordLayout.records`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from core.errors import ContainerError, CoreError
from core.files.source import Source
from core.formats.entry import ContainerListing, Storage, TensorEntry
from core.formats.values import entry_values
from core.records.field_list import parse_numpy_layout
from core.records.layout import RecordLayout
from core.text.names import printable_name

__all__ = ["EntryRecords", "entry_records", "file_records"]


@dataclass(frozen=True)
class EntryRecords:
    """Records of one entry or file (module rules).

    Attributes
    ----------
    layout
        The record layout (its ``itemsize`` is the record size).
    count
        How many whole records there are.
    trailing_bytes
        Bytes after the last whole record (a plain file's; 0 for an entry).
    note
        For a copy: what it is, for the command's ``note:`` line (the values hook's note);
        None for records read from the file.
    """

    layout: RecordLayout
    count: int
    trailing_bytes: int = 0
    note: str | None = None
    _read: Callable[[int, int], bytes] = field(default=None, repr=False, compare=False)  # type: ignore[assignment]

    @property
    def itemsize(self) -> int:
        """Bytes of one record."""
        return self.layout.itemsize

    def read(self, first: int, count: int) -> bytes:
        """The bytes of at most ``count`` records from record ``first`` (fewer at the end).

        Raises
        ------
        CoreError
            ``field="records"``: ``first`` or ``count`` is negative, or ``first`` is past the
            last record.
        SourceError
            The file changed (shrank) or was closed since.
        """
        if first < 0 or count < 0 or first > self.count:
            raise CoreError(f"records {first} to {first + count - 1} are not among the {self.count:,} records "
                            "(ask for records from 0)", field="records")
        count = min(count, self.count - first)
        if count == 0:
            return b""
        return self._read(first * self.itemsize, count * self.itemsize)

    def records(self, first: int, count: int) -> np.ndarray:
        """:meth:`read` as a structured view of the layout (one element per record)."""
        return self.layout.records(np.frombuffer(self.read(first, count), np.uint8))


def entry_records(source: Source, listing: ContainerListing, entry: TensorEntry) -> EntryRecords:
    """The records of ``entry`` of the container ``listing`` whose file ``source`` has open
    (module rules).

    Raises
    ------
    ContainerError
        ``field="tensor"``: the entry holds no records, cannot be shown (its problem), lives in
        another file, reaches past the end of the file, or its values hook refuses it or gives
        another number of bytes.
    CoreError
        ``field="fields"``: its layout is refused (a corrupt listing).
    BudgetError
        A copy would exceed the copy budget.
    """
    name = printable_name(entry.name)
    if entry.record_layout is None:
        raise ContainerError(f"tensor '{name}' holds no records of named fields (show it as a tensor)",
                             field="tensor")
    if entry.problem is not None:
        raise ContainerError(entry.problem, field="tensor")
    if entry.file is not None:
        raise ContainerError(f"tensor '{name}' is stored in another file ('{printable_name(entry.file)}'): "
                             "open that file to read its records", field="tensor")
    layout = parse_numpy_layout(entry.record_layout)
    if not entry.shape or entry.shape[-1] != layout.itemsize:
        raise ContainerError(f"tensor '{name}' is listed with the shape {entry.shape}, not records of "
                             f"{layout.itemsize} bytes (list the file again)", field="tensor")
    count = math.prod(entry.shape[:-1])
    nbytes = count * layout.itemsize
    if entry.storage is Storage.VIEW:
        size = source.file_size(0)
        if entry.nbytes < nbytes or entry.offset < 0 or entry.offset + nbytes > size:
            raise ContainerError(
                f"tensor '{name}': its {count:,} records of {layout.itemsize} bytes ({nbytes:,} bytes from byte "
                f"{entry.offset:,}, {entry.nbytes:,} stored) are not inside the file of {size:,} bytes (the file "
                "is truncated or corrupt; --dtype uint8 shows the bytes that are there)", field="tensor")
        start = entry.offset
        return EntryRecords(layout, count, _read=lambda at, length: source.read_exact(
            0, start + at, length, f"records of '{name}'"))
    values = entry_values(source, listing, entry)
    data = np.ascontiguousarray(values.array).reshape(-1).view(np.uint8)
    if data.size != nbytes:
        raise ContainerError(f"tensor '{name}': its format gave {data.size:,} bytes, not its {count:,} records "
                             f"of {layout.itemsize} bytes (list the file again; it may have changed)",
                             field="tensor")
    return EntryRecords(layout, count, note=values.note,
                        _read=lambda at, length: data[at:at + length].tobytes())


def file_records(source: Source, layout: RecordLayout, header: int = 0, index: int = 0) -> EntryRecords:
    """The records of file ``index`` of ``source`` after ``header`` bytes, laid out by
    ``layout`` (module rules: counted from the file's size, read with ``pread``).

    Raises
    ------
    CoreError
        ``field="offset"``: the header is past the end of the file; ``field="fields"``: a record
        is larger than the bytes after the header.
    """
    size = source.file_size(index)
    if header < 0 or header > size:
        raise CoreError(f"the header offset {header} is not inside the file ({size} bytes) (give an offset "
                        "from 0 to the file's size)", field="offset")
    count = (size - header) // layout.itemsize
    if count == 0 and size - header:
        raise CoreError(f"a record is {layout.itemsize} bytes, more than the {size - header} bytes after the "
                        "header (check the layout and the header offset)", field="fields")
    path = printable_name(source.paths[index])
    return EntryRecords(layout, count, (size - header) - count * layout.itemsize,
                        _read=lambda at, length: source.read_exact(index, header + at, length,
                                                                   f"records of '{path}'"))
