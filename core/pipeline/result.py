"""What one pipeline run produced: :class:`PipelineResult` (arrays, steps, byte provenance)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.errors import CoreError
from core.files.layout import SourceLayout
from core.files.sources import MappedRange
from core.pipeline.byte_map import ByteMap
from core.pipeline.params import DecodeParams
from core.scan.blocks import DEFAULT_MAX_SPAN, BlockReader
from core.tflite.tensor_buffer import TensorBuffer

__all__ = ["PipelineResult"]


@dataclass(frozen=True, eq=False)
class PipelineResult:
    """Everything one run produced. Arrays are views unless ``zero_copy`` is False.

    Attributes
    ----------
    params
        The parameters with defaults filled in (dtype, byte order, offset when one value
        applies to all files, shape).
    input_shape
        Shape of the string tensor fed to ``decode_raw`` (elements, not bytes).
    element_length
        Bytes per input element before ``fixed_length`` (the longest when files differ).
    decoded
        ``decode_raw``'s output (made contiguous, i.e. copied, if the target shape needed it).
    tensor
        ``decoded`` with the target shape (a view of it); None when the reshape needed a copy
        and only the records the slice reaches were copied (:mod:`core.pipeline.record_window`):
        :attr:`view` is then a view of that copy, and :attr:`tensor_shape` says the shape.
    view
        ``slice_spec.apply(tensor)`` (a view), or ``tensor``.
    trailing_bytes
        Per file, bytes no element covers (after the last whole record, or after a ``.npy``
        file's data).
    zero_copy
        True when the view is a view of the file map (no byte was copied).
    steps
        One human-readable line per step: source, decode, reshape, slice.
    from_header
        Names of the :class:`DecodeParams` fields left None whose value in :attr:`params` was
        taken from the files' header (a ``.npy`` header: ``"dtype"``, ``"little_endian"``,
        ``"offset"``, ``"shape"``), as opposed to the user's value or a built-in default. A GUI
        shows these values in the empty fields, marked as coming from the header.
    transposed
        True when the shape came from a Fortran-order ``.npy`` header: the tensor is the
        C-order reading of its bytes, the transpose of what ``np.load`` returns.
    layout
        How the files were split into ``decode_raw`` input elements for this run (per file: the
        first element's byte offset, the bytes used, the record size): what a description of
        the run (copy as code) needs without running it again.
    slice_spec
        The slice applied to :attr:`tensor` to give :attr:`view`, or None for none.
    """

    params: DecodeParams
    input_shape: tuple[int, ...]
    element_length: int
    decoded: np.ndarray
    tensor: np.ndarray | None
    view: np.ndarray
    trailing_bytes: tuple[int, ...]
    zero_copy: bool
    steps: tuple[str, ...]
    byte_map: ByteMap | None = field(default=None, repr=False)
    sliced: np.ndarray | None = field(default=None, repr=False)
    buffer: TensorBuffer | None = field(default=None, repr=False)
    mapped_ranges: tuple[MappedRange, ...] = field(default=(), repr=False)
    from_header: frozenset[str] = frozenset()
    transposed: bool = False
    layout: SourceLayout | None = field(default=None, repr=False)
    slice_spec: object = field(default=None, repr=False)

    @property
    def tensor_shape(self) -> tuple[int, ...]:
        """The target shape the slice was applied to (the shape of :attr:`tensor`)."""
        return tuple(self.params.shape)

    def block_reader(self, max_span: int = DEFAULT_MAX_SPAN) -> BlockReader:
        """A new :class:`core.scan.blocks.BlockReader` over the files' maps.

        Bulk reads of :attr:`view` (statistics, export, overviews, conversions) go through one,
        so a file truncated meanwhile is reported instead of crashing the process. A reader
        reuses one buffer: use each from one thread.
        """
        return BlockReader(self.mapped_ranges, max_span)

    def value_at(self, view_index: tuple[int, ...] | int):
        """``view[view_index]`` (one element, a numpy scalar) read through a block reader, never
        from the map's pages (a remote file's map holds no bytes: it is fetched).

        Raises
        ------
        IndexError
            The index is not inside the view.
        SourceError
            The file changed, or a remote read failed.
        """
        index = (view_index,) if isinstance(view_index, (int, np.integer)) else tuple(view_index)
        view = self.view
        if len(index) != view.ndim:
            raise IndexError(f"index {index} has {len(index)} axes, the view {view.ndim}")
        for i, n in zip(index, view.shape):
            if not -n <= i < n:
                raise IndexError(f"index {index} is outside the view's shape {view.shape}")
        one = view[tuple(slice(i, i + 1 if i != -1 else None) for i in index)]
        return self.block_reader(max(64, view.dtype.itemsize)).read(one).reshape(())[()]

    def byte_offset(self, view_index: tuple[int, ...] | int) -> tuple[int, int, int]:
        """Where ``view[view_index]`` comes from: ``(file_index, byte_offset, nbytes)``.

        ``byte_offset`` is the offset in that file of the element's first byte; ``nbytes`` is the
        number of its bytes that exist in the file: the item size, fewer when the element
        reaches into ``fixed_length`` zero padding, 0 when it is entirely padding (the offset is
        then where it would have been). Negative indices count from the end, as in numpy.

        Raises
        ------
        IndexError
            The index is out of range for ``view``.
        CoreError
            The slice spec returned a copy instead of a view (``field="slice"``).
        """
        return self._require_map().locate(self._located_view, view_index)

    def nibble(self, view_index: tuple[int, ...] | int) -> str | None:
        """Which half of the byte :meth:`byte_offset` names holds ``view[view_index]``: ``"low"``
        or ``"high"`` for int4/uint4 (two values per byte, low nibble first, docs/semantics.md
        §2a), None for every other type.

        Raises
        ------
        IndexError
            The index is out of range for ``view``.
        CoreError
            The slice spec returned a copy (``field="slice"``).
        """
        return self._require_map().nibble(self._located_view, view_index)

    def element_at_byte(self, file_index: int, byte_offset: int) -> tuple[int, ...] | None:
        """Index in ``view`` of the element containing a byte of a file, or None if no element
        of the view holds that byte (header, trailing bytes, truncated or sliced away).

        Raises
        ------
        IndexError
            ``file_index`` is out of range.
        """
        byte_map = self._require_map()
        address = byte_map.address_of_byte(file_index, byte_offset)
        if address is None:
            return None
        return byte_map.index_of(self._located_view, address)

    @property
    def _located_view(self) -> np.ndarray:
        """The sliced view before any "view as" conversion (it shares memory with the map)."""
        return self.view if self.sliced is None else self.sliced

    def _require_map(self) -> ByteMap:
        if self.byte_map is None:
            raise CoreError(
                "the slice returned a copy, so its elements have no byte offsets (use a slice "
                "spec whose apply() returns a view)",
                field="slice",
            )
        return self.byte_map
