"""What a container says about one tensor, how its values are had, and the decode parameters
that show it.

Rules
-----
- Every entry has a storage kind (:class:`Storage`). A *view* entry's stored elements (any byte
  order) are its values: :meth:`TensorEntry.params` gives ``offset`` = the first data byte,
  ``length`` = the data's byte count, the dtype, the byte order and the shape, and the pipeline
  shows it as a view of the read-only map (in C order, or with :attr:`TensorEntry.strides`
  when the stored view is not C-contiguous; a batch of scattered strings is gathered into one
  budget-checked copy by the pipeline). A *copy* entry's values are stored, but not as plain
  elements in one range (compressed, chunked, varints), and a *computed* entry's values are
  computed from what is stored (dequantized blocks): both come from their format's one
  ``values`` hook (:class:`ContainerFormat`), a budget-checked copy in memory, and
  ``offset``/``nbytes`` still name the stored bytes, which explicit layout options show raw.
- An entry lives in the listed file unless :attr:`TensorEntry.file` names another one (a
  shard, an external-data file); offsets are offsets in that file (a zip member's data is a
  range of the listed file: its offsets are file offsets too).
- ``problem`` says why the parameters cannot show the entry as a view (for a copy or computed
  entry: that its values come through ``values``; for any other entry: why it cannot be shown
  at all and what to do). :attr:`TensorEntry.mappable` is "a view the parameters show";
  :attr:`TensorEntry.readable` is "its values can be had one way or the other".
- An entry of *records* (:attr:`TensorEntry.record_layout`: an HDF5 compound dataset, a
  structured ``.npz`` member) is listed as its bytes, one row of ``uint8`` per record, of any
  storage kind; its layout says how a row reads as named fields
  (:mod:`core.formats.entry_records`).
- A *multi-channel signal* (:attr:`TensorEntry.signal`: the samples of a WAV or AIFF file, shape
  ``(frames, channels)``) is shown as one line per channel along the frames, not as an image
  of frames x channels: :func:`shows_channel_lines` is the rule, for the data shown.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from core.dtypes.table import resolve_dtype
from core.errors import ContainerError, CoreError
from core.files.locations import folder_of, inside
from core.pipeline.pipeline import DecodeParams
from core.text.names import closest_names, printable_name, short_name
from core.text.number_format import format_value

if TYPE_CHECKING:
    from core.files.sources import Source
    from core.formats.reader import HeaderReader

__all__ = ["MAX_CHANNEL_LINES", "ContainerFormat", "ContainerListing", "EntryValues", "Quantization", "Storage",
           "TensorEntry", "entry_file", "find_entry", "shows_channel_lines"]

#: The most channels of a signal drawn as lines (one curve each); more are shown as an image.
MAX_CHANNEL_LINES = 16


class Storage(enum.Enum):
    """How an entry's values are had (module rules)."""

    #: The stored elements are the values: a view of the mapped file.
    VIEW = "view"
    #: Stored values that no view shows (compressed, chunked, varints): a decoded copy.
    COPY = "copy"
    #: Values computed from what is stored (dequantized blocks): a computed copy.
    COMPUTED = "computed"


@dataclass(frozen=True, slots=True)
class Quantization:
    """The affine quantization of an integer tensor: ``real = scale * (q - zero_point)``
    (:mod:`core.formats.quantization` computes it; docs/containers.md, "Quantized tensors").

    Attributes
    ----------
    scale
        One scale for the whole tensor, or one per index of :attr:`axis` (per channel), as the
        file stores them (float32 scales widened exactly to Python floats).
    zero_point
        One zero point, or one per index of :attr:`axis` (a format that stores none: ``(0,)``).
    axis
        The quantized axis of a per-channel quantization; None when there is one scale and one
        zero point (per tensor).
    stored_dtype
        The engine type of the stored integers ``q`` (``"int8"``, ``"uint8"``, ``"int32"``...).
    """

    scale: tuple[float, ...]
    zero_point: tuple[int, ...]
    axis: int | None
    stored_dtype: str

    @property
    def channels(self) -> int:
        """How many (scale, zero point) pairs: 1 per tensor, else the length of :attr:`axis`."""
        return max(len(self.scale), len(self.zero_point))

    def summary(self) -> str:
        """The short form the listing and the Tensors dock show: ``scale 0.02 zp 128`` per
        tensor (the scale's shortest decimals, as the table writes a stored value),
        ``per-channel axis 0 (64)`` per channel."""
        if self.axis is None:
            # a stored value: its shortest decimals, in float32 when it is one (most scales are)
            scale = self.scale[0]
            kind = np.float32 if math.isfinite(scale) and float(np.float32(scale)) == scale else np.float64
            return f"scale {format_value(scale, kind)} zp {self.zero_point[0]}"
        return f"per-channel axis {self.axis} ({self.channels})"

    def as_json(self) -> dict[str, object]:
        """``{"scale": [...], "zero_point": [...], "axis": N or None}`` (a scale that is not
        finite as a string, as JSON has no NaN)."""
        return {"scale": [s if math.isfinite(s) else str(s) for s in self.scale],
                "zero_point": list(self.zero_point), "axis": self.axis}


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
        Format-specific facts shown to the user (a GGUF block type, sample rate, record
        number...), name -> value (str, int, float, bool or tuples of them).
    problem
        None when the entry is mappable; else why it cannot be shown and what to do.
    elements
        For a batch of strings spread over the file (a TFRecord feature across its records):
        each string's ``(offset, length)``; ``offset``/``nbytes`` then span them all, ``shape``
        is ``(n, length)`` (or ``(n,)`` when the lengths differ) and :meth:`params` gives
        ``DecodeParams.elements`` with the shape left to ``decode_raw``. None otherwise.
    storage
        How the values are had (:class:`Storage`; module rules).
    strides
        For a view that is not in C order: element strides of ``shape`` (numpy's strides
        divided by the item size) over the elements from ``offset``; every element they reach
        must lie in the ``nbytes`` from ``offset`` (the pipeline checks before it makes the
        view). None: C order.
    file
        The file holding the data when it is not the listed one (a shard, an external-data
        file): a path, never outside the listed file's directory (resolved by
        :func:`entry_file`). None: the listed file.
    batch
        For an entry of :attr:`elements`: the shape of the batch of strings they form in C
        order (``(records,)``, ``(records, values per record)``, ``(records, frames)``...), as
        ``tf.io.parse_example`` hands it to ``decode_raw``. :meth:`params` then give ``shape``
        = the entry's own shape while the elements decode as listed (the stored item size, no
        ``fixed_length``), else ``batch + (-1,)``: the decoded values of each string on the last
        axis. None: the decode shape (one axis of elements).
    signal
        The tensor is a signal of shape ``(frames, channels)`` (audio samples): shown as one
        line per channel (:func:`shows_channel_lines`).
    shares
        The names of the other entries of the listing whose stored bytes overlap this one's
        (tied weights, a view saved with its base: PyTorch storages), at most 16; None when it
        shares its bytes with no other entry. Informative only: each entry shows its own view.
    quantization
        For a quantized integer tensor (TFLite, ONNX, PyTorch): its scale, zero point and axis
        (:class:`Quantization`); its *dequantized* entry (:func:`core.formats.quantization.dequantized_entry`)
        carries the same, which it is computed with. None: not quantized (a GGUF block type is
        said by its extras, not here).
    record_layout
        For an entry whose values are records of named fields (an HDF5 compound dataset, a
        structured ``.npz`` member): the numpy dtype description of one record, the text
        :func:`core.records.field_list.parse_numpy_layout` reads (the stored type's member
        offsets, byte orders and record size: :mod:`core.records.structured`). Such an entry is
        listed as its bytes: ``dtype`` ``"uint8"``, ``shape`` the stored shape + ``(record
        size,)``, so :meth:`params` show each record's bytes as a row, as a structured ``.npy``
        is shown; :func:`core.formats.entry_records.entry_records` reads its records. None: not
        records.
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
    storage: Storage = Storage.VIEW
    strides: tuple[int, ...] | None = None
    file: str | None = None
    batch: tuple[int, ...] | None = None
    signal: bool = False
    shares: tuple[str, ...] | None = None
    quantization: Quantization | None = None
    record_layout: str | None = None

    @property
    def mappable(self) -> bool:
        """Whether :meth:`params` show the entry as a view (a dtype and no problem)."""
        return self.problem is None and self.dtype is not None and self.storage is Storage.VIEW

    @property
    def readable(self) -> bool:
        """Whether its values can be had: a view :meth:`params` show, or a copy or computed
        value of its format's ``values`` hook."""
        return self.mappable or (self.storage is not Storage.VIEW and self.dtype is not None)

    @property
    def in_listed_file(self) -> bool:
        """Whether its data lies in the listed file (:attr:`file` is None)."""
        return self.file is None

    @property
    def local_view(self) -> bool:
        """Whether it is a view of the listed file: shown by its :meth:`params` over that file
        (anything else opens through :func:`core.formats.values.open_entry`)."""
        return self.mappable and self.file is None

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
            if self.problem is None and self.storage is not Storage.VIEW:
                raise ContainerError(f"tensor '{self.name}' holds {self.storage.value} values, not a "
                                     "view of the file (its format's values() gives them)", field="tensor")
            raise ContainerError(
                self.problem or f"tensor '{self.name}' has a type the engine cannot decode "
                f"({self.stored_type})", field="tensor")
        values: dict[str, object] = dict(
            dtype=self.dtype, little_endian=self.little_endian, offset=self.offset,
            length=self.nbytes, shape=self.shape, record_size=None, fixed_length=None,
        )
        if self.elements is not None:
            values.update(offset=None, length=None, elements=self.elements,
                          shape=self._elements_shape(overrides.get("dtype"), overrides.get("fixed_length")))
        if self.strides is not None:
            values["strides"] = self.strides
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
        the same item size), else the decode shape is used unless ``shape`` is given; its
        strides only while its shape is kept too. An entry that is not a view (an undecodable
        type, a compressed member, quantized blocks) can still be shown as bytes with an
        explicit dtype when its byte range is known.

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
                shape=given.shape if given.shape is not None else self._elements_shape(
                    given.dtype, given.fixed_length),
            )
        own_elements = (given.offset is None and given.length is None
                        and given.record_size is None and given.fixed_length is None
                        and _same_itemsize(given.dtype, self.dtype))
        shape = given.shape
        if shape is None and own_elements:
            shape = self.shape
        # the entry's strides address its own elements in its own shape only
        strides = given.strides if given.strides is not None else (
            self.strides if own_elements and given.shape is None and self.mappable else None)
        return dataclasses.replace(
            given,
            strides=strides,
            dtype=given.dtype if given.dtype is not None else self.dtype,
            little_endian=given.little_endian if given.little_endian is not None else self.little_endian,
            offset=given.offset if given.offset is not None else self.offset,
            length=given.length if given.length is not None or given.offset is not None else self.nbytes,
            shape=shape,
        )

    def _elements_shape(self, dtype: object, fixed_length: object) -> tuple[int, ...] | None:
        """The shape :meth:`params` give an entry of elements (see :attr:`batch`)."""
        if self.batch is None:
            return None
        if fixed_length is None and _same_itemsize(dtype, self.dtype):  # type: ignore[arg-type]
            return self.shape
        return tuple(self.batch) + (-1,)


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
        ``"wav"``, ``"aiff"``, ``"hdf5"``, ``"idx"``, ``"npy"``, ``"onnx"``, ``"pytorch"``, ``"keras"``,
        ``"zarr"``).
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


def shows_channel_lines(entry: TensorEntry | None, shape: tuple[int, ...] | None) -> bool:
    """Whether data of ``shape`` showing ``entry`` is drawn as one line per channel.

    The rule: the entry is a multi-channel signal (:attr:`TensorEntry.signal`), the data shown
    is that whole tensor (2-d, of the entry's shape ``(frames, channels)``: a dtype of another
    size or a slice shows something else) and it has 1 to :data:`MAX_CHANNEL_LINES` channels.
    """
    return (entry is not None and entry.signal and shape is not None and len(shape) == 2
            and tuple(shape) == tuple(entry.shape) and 1 <= shape[1] <= MAX_CHANNEL_LINES)


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
    hint = ("closest: " + ", ".join(short_name(n) for n in close)) if close else \
        f"it has {len(names)} tensors; list them with --list"
    raise ContainerError(
        f"the {listing.format} file '{printable_name(listing.path)}' has no tensor named {short_name(name)} ({hint})",
        field="tensor",
    )


def entry_file(listed_path: str, entry: TensorEntry) -> str:
    """The path of the file holding ``entry``'s data (the listed file when ``entry.file`` is
    None), resolved against the listed file's directory.

    Raises
    ------
    ContainerError
        ``field="tensor"``: the name is absolute or leads out of the listed file's directory
        (a container names only files beside it or below it).
    """
    if entry.file is None:
        return listed_path
    name = entry.file
    resolved = inside(folder_of(listed_path), name)
    if resolved is None:
        raise ContainerError(
            f"tensor '{printable_name(entry.name)}' names its data file '{printable_name(name)}', "
            "which is not inside the container's folder (a container may name only files beside "
            "it or below it; copy the file there, or open it directly)", field="tensor")
    return resolved


@dataclass(frozen=True)
class EntryValues:
    """The values of a copy or computed entry, as its format's ``values`` hook gives them.

    Attributes
    ----------
    array
        The values, in the entry's shape and type (any byte order), a copy in memory.
    how
        A few words for the name of a window showing them (``"decompressed"``,
        ``"Q8_0, dequantized"``).
    note
        One sentence for the command's ``note:`` line: what the copy is and that its byte
        offsets are not file offsets.
    """

    array: np.ndarray
    how: str
    note: str

    @classmethod
    def stored_copy(cls, array: np.ndarray, how: str, what: str) -> EntryValues:
        """Stored values read into a copy: ``note`` is ``what`` (what the values are) followed by
        the rule every such note states, that they are a copy whose byte offsets are not file
        offsets."""
        return cls(array, how, f"{what}, a copy of {array.nbytes} bytes in memory (their byte offsets "
                               "are not file offsets)")


@dataclass(frozen=True)
class ContainerFormat:
    """One container format (docs/containers.md, "Adding a format").

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
    values
        ``values(source, entry) -> EntryValues`` for the entries it lists as
        :attr:`Storage.COPY` or :attr:`Storage.COMPUTED` (``source``: the open listed file);
        checks the copy budget (:mod:`core.budget`) before it allocates anything, and raises
        ``ContainerError`` (``field="tensor"``) when the values cannot be had. None for a
        format whose entries are all views.
    extensions
        For a format without magic bytes (ONNX: a protobuf message), the file name endings
        (lower case, ``".onnx"``) it is tried for: ``sniff`` then checks the structure. Empty
        (every format with a magic): tried for any name.
    also_names
        Other names its listings may say (a sharded-model index says the format of its shards:
        ``pytorch-index``); :func:`core.formats.registry.format_named` finds it by any of them.
    """

    name: str
    sniff: Callable[[bytes, int], bool]
    list: Callable[[HeaderReader], ContainerListing]
    values: Callable[[Source, TensorEntry], EntryValues] | None = None
    extensions: tuple[str, ...] = ()
    also_names: tuple[str, ...] = ()
