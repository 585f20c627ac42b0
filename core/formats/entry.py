"""What a container says about one tensor, and the decode parameters that show it.

Rule: an entry whose data is stored as plain elements (any byte order) in one contiguous byte
range is *mappable*: ``TensorEntry.params()`` gives ``offset`` = the first data byte,
``length`` = the data's byte count, the dtype, the byte order and the C-order shape, and the
pipeline then shows it as a view of the map. An entry that is compressed, chunked, quantized in
blocks, or of a type the engine cannot decode is listed all the same, with ``problem`` saying
why it cannot be shown and what to do.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from core.dtypes.table import resolve_dtype
from core.errors import ContainerError, CoreError
from core.pipeline.pipeline import DecodeParams
from core.text.names import closest_names, printable_name

if TYPE_CHECKING:
    from core.formats.reader import HeaderReader

__all__ = ["ContainerFormat", "ContainerListing", "TensorEntry", "find_entry"]


#: The extras of an entry that has none (shared: entries are immutable).
NO_EXTRAS: Mapping[str, object] = MappingProxyType({})


@dataclass(frozen=True, slots=True)  # slots: listing 100,000 entries stays cheap
class TensorEntry:
    """One tensor stored in a container file.

    Attributes
    ----------
    name
        The name the container gives it (for formats without names: a generated one such as
        ``"data"``, ``"record 3/image_raw"``).
    dtype
        Engine type name (:mod:`core.dtypes.table`), or None when the engine cannot decode the
        stored type (``problem`` says why; ``stored_type`` names it).
    little_endian
        Byte order of the stored elements (True for single-byte types).
    shape
        Shape in C order, as a user of the array expects it (formats that list dimensions
        innermost first, like GGUF, are reversed here).
    offset
        Byte offset of the first data byte in the file.
    nbytes
        Bytes of stored data.
    stored_type
        The type as the container names it (``"F32"``, ``"Q4_K"``, ``"<f4"``, ``"FLOAT32"``...).
    extras
        Format-specific facts shown to the user (quantization scale and zero point, sample
        rate, record number...), name -> value (str, int, float, bool or tuples of them).
    problem
        None when the entry is mappable; else why it cannot be shown and what to do.
    elements
        For a batch of strings spread over the file (a TFRecord feature across its records):
        each string's ``(offset, length)``; ``offset``/``nbytes`` then span them all, ``shape``
        is ``(n, length)`` (or ``(n,)`` when the lengths differ) and :meth:`params` gives
        ``DecodeParams.elements`` with the shape left to ``decode_raw``. None otherwise.
    """

    name: str
    dtype: str | None
    little_endian: bool
    shape: tuple[int, ...]
    offset: int
    nbytes: int
    stored_type: str = ""
    extras: Mapping[str, object] = field(default_factory=lambda: NO_EXTRAS)
    problem: str | None = None
    elements: tuple[tuple[int, int], ...] | None = None

    @property
    def mappable(self) -> bool:
        """Whether :meth:`params` can show the entry (a dtype and no problem)."""
        return self.problem is None and self.dtype is not None

    @property
    def element_count(self) -> int:
        return math.prod(self.shape)

    def params(self, **overrides: object) -> DecodeParams:
        """Decode parameters that show this tensor; ``overrides`` replace fields (e.g.
        ``dtype="uint8"`` to see the same bytes as raw bytes).

        Raises
        ------
        ContainerError
            The entry is not mappable (``problem`` is the message).
        """
        if not self.mappable:
            raise ContainerError(
                self.problem or f"tensor '{self.name}' has a type the engine cannot decode "
                f"({self.stored_type})", field="tensor")
        values: dict[str, object] = dict(
            dtype=self.dtype, little_endian=self.little_endian, offset=self.offset,
            length=self.nbytes, shape=self.shape, record_size=None, fixed_length=None,
        )
        if self.elements is not None:
            values.update(offset=None, length=None, shape=None, elements=self.elements)
        values.update(overrides)
        return DecodeParams(**values)  # type: ignore[arg-type]

    def params_over(self, given: DecodeParams) -> DecodeParams:
        """The entry's parameters with every field the user set in ``given`` (not None) winning.

        Rules: ``dtype`` and ``little_endian`` replace the entry's; an explicit ``offset`` is a
        file offset and takes the layout over (the data then runs to the end of the file unless
        ``length`` is given too); an entry of separate elements (a TFRecord batch of strings)
        keeps them unless an offset, length or record size is given, and ``fixed_length`` pads
        each; the entry's shape is kept only while the elements are the
        entry's own (no explicit offset, length, record size or fixed length, and a dtype of
        the same item size), else the decode shape is used unless ``shape`` is given. An entry
        that is not mappable (an undecodable type, a compressed member) can still be shown as
        bytes with an explicit dtype when its byte range is known.

        Raises
        ------
        ContainerError
            The entry is not mappable and no dtype was given, or its byte range is unknown.
        """
        if not self.mappable and (given.dtype is None or self.nbytes == 0):
            self.params()  # raises with the entry's problem
        if self.elements is not None and given.offset is None and given.length is None \
                and given.record_size is None:
            # A batch of byte strings stays one: dtype, byte order and fixed_length apply to each
            # element, as decode_raw applies them to each string of its input.
            return dataclasses.replace(
                given,
                dtype=given.dtype if given.dtype is not None else self.dtype,
                little_endian=given.little_endian if given.little_endian is not None else self.little_endian,
                elements=self.elements,
            )
        own_elements = (given.offset is None and given.length is None
                        and given.record_size is None and given.fixed_length is None
                        and _same_itemsize(given.dtype, self.dtype))
        shape = given.shape
        if shape is None and own_elements:
            shape = self.shape
        return dataclasses.replace(
            given,
            dtype=given.dtype if given.dtype is not None else self.dtype,
            little_endian=given.little_endian if given.little_endian is not None else self.little_endian,
            offset=given.offset if given.offset is not None else self.offset,
            length=given.length if given.length is not None or given.offset is not None else self.nbytes,
            shape=shape,
        )


def _same_itemsize(given: str | None, stored: str | None) -> bool:
    """Whether ``given`` (None: the stored type) has the item size of ``stored``."""
    if given is None:
        return True
    if stored is None:
        return False
    try:
        return (resolve_dtype(given, extended_types=True).itemsize
                == resolve_dtype(stored, extended_types=True).itemsize)
    except CoreError:
        return False  # the pipeline reports the bad name


@dataclass(frozen=True)
class ContainerListing:
    """The tensors of one container file.

    Attributes
    ----------
    format
        Format name (``"safetensors"``, ``"npz"``, ``"tflite"``, ``"gguf"``, ``"tfrecord"``,
        ``"wav"``, ``"aiff"``, ``"hdf5"``, ``"idx"``, ``"npy"``).
    path
        The file listed.
    entries
        Every tensor, in the container's order.
    metadata
        Container-level facts (safetensors ``__metadata__``, GGUF key/values, TFLite
        description...), name -> short text.
    problems
        Parts of the file that could not be read (a corrupt record, a bad entry), each naming
        the container, the entry and the byte offset; the other entries stay usable.
    """

    format: str
    path: str
    entries: tuple[TensorEntry, ...]
    metadata: Mapping[str, str] = field(default_factory=dict)
    problems: tuple[str, ...] = ()


def find_entry(listing: ContainerListing, name: str) -> TensorEntry:
    """The entry called exactly ``name``.

    Raises
    ------
    ContainerError
        ``field="tensor"``: no such name; the message lists up to five closest names.
    """
    for entry in listing.entries:
        if entry.name == name:
            return entry
    names = [e.name for e in listing.entries]
    close = closest_names(name, names)
    hint = ("closest: " + ", ".join(repr(n) for n in close)) if close else \
        f"it has {len(names)} tensors; list them with --list"
    raise ContainerError(
        f"the {listing.format} file '{printable_name(listing.path)}' has no tensor named {name!r} ({hint})",
        field="tensor",
    )


@dataclass(frozen=True)
class ContainerFormat:
    """One container format.

    Attributes
    ----------
    name
        ``ContainerListing.format`` of its listings.
    sniff
        ``sniff(head, size) -> bool``: whether a file starting with ``head`` (up to
        :data:`core.formats.registry.SNIFF_BYTES` bytes) of ``size`` bytes is this format.
    list
        ``list(reader) -> ContainerListing``; raises ``ContainerError`` when the file cannot be
        listed at all (a corrupt part that leaves the rest usable goes in ``problems``).
    """

    name: str
    sniff: Callable[[bytes, int], bool]
    list: Callable[[HeaderReader], ContainerListing]
