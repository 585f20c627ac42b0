"""One way to open any container entry: the source and the parameters that show it.

Rules (the command's ``--tensor NAME`` and the window's Tensors dock both follow them):

- A *view* entry of the listed file is the listed file's own source with the entry's
  parameters (:meth:`~core.formats.entry.TensorEntry.params_over`): a view of the map.
- A view entry of another file (:attr:`~core.formats.entry.TensorEntry.file`: a shard, an
  external-data file) is that file, opened read-only by :mod:`core.files`, with the entry's
  parameters. The path comes from the container, so it is hostile input: it is resolved
  against the listed file's directory and must stay inside it (no absolute path, no ``..``
  out of it; :func:`entry_file`).
- A *copy* or *computed* entry is a source in memory holding the values its format's one
  ``values`` hook gives (a budget-checked copy: :class:`~core.formats.entry.ContainerFormat`),
  shown in their own type and shape unless a shape is given.
- Explicit layout options (dtype, byte order, offset, length, record size, fixed length) mean
  the entry's bytes in its file, whatever its kind: a view of them, as for a raw file.

Nothing here switches on a format's name: the storage kind decides, and the listing's format
gives the hook (:func:`core.formats.registry.format_named`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from core.errors import ContainerError
from core.files.memory import open_memory
from core.files.sources import Source, open_source
from core.formats.entry import ContainerListing, EntryValues, Storage, TensorEntry, entry_file
from core.formats.registry import format_named
from core.pipeline.params import DecodeParams
from core.text.names import printable_name

__all__ = ["LAYOUT_FIELDS", "OpenedEntry", "entry_file", "entry_values", "open_entry"]

#: The DecodeParams fields that lay out bytes of a file: given any of them, an entry is shown as
#: its bytes in its file (a view), never through its format's ``values`` hook.
LAYOUT_FIELDS = ("dtype", "little_endian", "offset", "length", "record_size", "fixed_length")


@dataclass(frozen=True)
class OpenedEntry:
    """How to show one entry (module rules).

    Attributes
    ----------
    entry
        The entry.
    source
        What the pipeline reads: the listed file's own source (``owned`` False), another file,
        or memory holding the values (``owned`` True: the caller closes it).
    params
        The decode parameters over ``source``.
    kind
        :attr:`Storage.VIEW` when ``source`` is a view of a file (the listed one or another),
        else the entry's kind (its values are a copy in memory).
    how
        A few words for the name of a window showing it (``"decompressed"``, ``"in
        shard-2.bin"``); None for a view of the listed file.
    note
        What a copy or another file is, for the command's ``note:`` line; None for a view of
        the listed file.
    owned
        Whether ``source`` was opened here (close it when done).
    values
        For a copy or computed entry: what its format's ``values`` hook gave (``source`` holds
        ``values.array``); None for a view.
    """

    entry: TensorEntry
    source: Source
    params: DecodeParams
    kind: Storage
    how: str | None = None
    note: str | None = None
    owned: bool = False
    values: EntryValues | None = None


def entry_values(source: Source, listing: ContainerListing, entry: TensorEntry) -> EntryValues:
    """The values of a copy or computed entry, from its format's ``values`` hook.

    Raises
    ------
    ContainerError
        ``field="tensor"``: the entry is a view (open it with its parameters), it cannot be
        shown at all (its problem), or its format has no hook; or the hook refuses it.
    BudgetError
        The copy would exceed the copy budget (the hook checks before allocating).
    """
    if entry.storage is Storage.VIEW or entry.dtype is None:
        entry.params()  # raises with the entry's problem, if it has one
        raise ContainerError(f"tensor '{printable_name(entry.name)}' is a view of the file: open "
                             "it with its parameters", field="tensor")
    hook = format_named(listing.format).values
    if hook is None:
        raise ContainerError(f"the {listing.format} format lists '{printable_name(entry.name)}' as "
                             f"{entry.storage.value} values but gives no values() for it", field="tensor")
    if entry.file is not None:  # the hook reads the file the entry lives in (a shard, a split)
        with open_source(entry_file(source.paths[0], entry)) as other:
            return hook(other, entry)
    return hook(source, entry)


def open_entry(source: Source, listing: ContainerListing, entry: TensorEntry,
               given: DecodeParams | None = None) -> OpenedEntry:
    """What shows ``entry`` of the container ``listing`` whose file ``source`` has open, with
    the options ``given`` (fields not None win, as on the command line; module rules).

    Raises
    ------
    ContainerError
        The entry cannot be shown (its problem), its data file is outside the container's
        folder, or its format's ``values`` refuses it.
    SourceError
        Its data file cannot be opened.
    BudgetError
        A copy would exceed the copy budget.
    """
    given = given if given is not None else DecodeParams()
    as_bytes = any(getattr(given, name) is not None for name in LAYOUT_FIELDS)
    if entry.storage is Storage.VIEW or as_bytes:
        params = entry.params_over(given)
        if entry.file is None:
            return OpenedEntry(entry, source, params, Storage.VIEW)
        path = entry_file(source.paths[0], entry)
        name = printable_name(os.path.basename(path))
        return OpenedEntry(entry, open_source(path), params, Storage.VIEW, how=f"in {name}",
                           note=f"'{printable_name(entry.name)}' is stored in '{printable_name(path)}': "
                                "its byte offsets are that file's", owned=True)
    values = entry_values(source, listing, entry)
    params = DecodeParams(shape=given.shape, view_as=given.view_as, extended_types=given.extended_types)
    return OpenedEntry(entry, open_memory(values.array), params, entry.storage, how=values.how,
                       note=values.note, owned=True, values=values)
