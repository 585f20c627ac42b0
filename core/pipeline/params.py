"""The parameters of one decode: :class:`DecodeParams` (frozen, hashable; validated by
:meth:`core.pipeline.pipeline.Pipeline.run`)."""

from __future__ import annotations

from dataclasses import dataclass

from core.decode.reshape import parse_shape

__all__ = ["DecodeParams"]


@dataclass(frozen=True)
class DecodeParams:
    """Every parameter of one decode, validated by :meth:`Pipeline.run` (frozen, hashable).

    Attributes
    ----------
    dtype
        ``out_type`` name (:mod:`core.dtypes.table`); None: the ``.npy`` header's dtype, else uint8.
    little_endian
        None: the ``.npy`` header's byte order, else True.
    fixed_length
        ``decode_raw``'s ``fixed_length`` (pads or truncates every element).
    offset
        Bytes to skip in every file; None: each ``.npy`` file's data offset, else 0.
    record_size
        Bytes per element; None: the whole remainder of each file is one element.
    length
        Bytes of data after ``offset`` in every file (a tensor inside a container file is an
        offset and a length); None: to the end of the file, or the ``.npy`` header's data.
    shape
        Target shape (one -1 allowed; text such as ``"4,-1"`` is parsed); None: the ``.npy``
        header's shape when it fits, else the decode output shape.
    view_as
        TensorBuffer "view as" type (docs/semantics.md §6): the view's values as ``TensorBuffer.create_from``
        into that :class:`~core.dtypes.data_type.DataType` would give them (e.g. ``"uint8"`` to see
        what a TFLite model's UINT8 input receives). None: as decoded.
    extended_types
        Offer the types beyond TF (uint32/uint64, float8, int4/uint4, int24/uint24;
        docs/semantics.md §2a).
    elements
        Explicit ``(offset, length)`` byte ranges in one file forming a batch of strings of
        input shape ``(n,)``, as ``tf.data`` hands a container's strings to ``decode_raw`` (a
        TFRecord feature across records); ``offset``, ``length`` and ``record_size`` stay None.
        Evenly spaced equal-length elements are a strided view of the map; others are gathered
        into one copy (budget-checked). None: the elements come from offset/length/records.
    strides
        Element strides of ``shape`` over the decoded values read flat
        (:func:`core.decode.reshape.strided_view`): a stored view that is not in C order (a
        container entry's :attr:`~core.formats.entry.TensorEntry.strides`), still a view of the
        map. ``shape`` must then be given in full. None: C order.
    """

    dtype: str | None = None
    little_endian: bool | None = None
    fixed_length: int | None = None
    offset: int | None = None
    record_size: int | None = None
    shape: tuple[int, ...] | None = None
    view_as: str | None = None
    extended_types: bool = True
    length: int | None = None
    elements: tuple[tuple[int, int], ...] | None = None
    strides: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.elements is not None and not isinstance(self.elements, tuple):
            object.__setattr__(self, "elements", tuple(tuple(pair) for pair in self.elements))
        if self.strides is not None and not isinstance(self.strides, tuple):
            object.__setattr__(self, "strides", tuple(self.strides))
        if isinstance(self.shape, str):
            object.__setattr__(self, "shape", parse_shape(self.shape))
        elif self.shape is not None and not isinstance(self.shape, tuple):
            object.__setattr__(self, "shape", tuple(self.shape))
