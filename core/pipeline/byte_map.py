"""Map elements of a pipeline's view back to bytes of its files, and back (docs/semantics.md §7).

Every array a pipeline yields is a numpy view of one buffer, so the address of ``view[i, j]``
(``view``'s data pointer plus ``sum(index * strides)``) tells where its bytes are:

- **file** mode (zero copy): the buffer is a file's memory map, so the byte offset in the file is
  the address minus the map's address;
- **copy** mode: the buffer is a C-contiguous copy of shape ``input_shape + (E,)`` bytes (a
  padded, stacked or normalised copy). The position in it gives the input element (its index in
  ``input_shape``) and the byte inside it, which :class:`SourceLayout` maps to a file, record and
  offset. Bytes beyond an element's real length are zero padding: they have no file bytes.

This works for any view (reshape, slicing, negative steps, new axes) without knowing how it was
made. A packed type (int4/uint4, int24/uint24, docs/semantics.md §2a) is decoded into a copy of
wider values; :attr:`ByteMap.packing` then maps a value back to its stored bytes: 3 bytes for
int24, and for int4 the one byte holding it, :meth:`ByteMap.nibble` saying which half. The inverse, :meth:`ByteMap.index_of`, finds the view element covering an address by
dividing by the view's strides from the largest down; that is exact for views produced by basic
indexing and reshaping, whose dimensions nest (each stride spans the smaller dimensions).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from core.files.layout import SourceLayout

__all__ = ["ByteMap", "address_of", "buffer_range_contains"]


def address_of(array: np.ndarray) -> int:
    """Address of ``array``'s first element (its data pointer)."""
    return int(array.__array_interface__["data"][0])


def _normalise_index(index: tuple[int, ...] | int, shape: tuple[int, ...]) -> tuple[int, ...]:
    if isinstance(index, (int, np.integer)):
        index = (int(index),)
    index = tuple(index)
    if len(index) != len(shape):
        raise IndexError(f"index {index} has {len(index)} entries but the view has "
                         f"{len(shape)} dimensions {shape}")
    out = []
    for axis, (i, n) in enumerate(zip(index, shape)):
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise IndexError(f"index {i!r} on axis {axis} is not an integer")
        i = int(i)
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
        out.append(i + n if i < 0 else i)
    return tuple(out)


@dataclass(frozen=True, eq=False)
class ByteMap:
    """Where the bytes of a pipeline's buffer come from.

    Attributes
    ----------
    mode
        ``"file"``: the buffer is file 0's memory map; ``"copy"``: a C-contiguous copy of
        ``input_shape + (element_bytes,)`` bytes.
    base_address
        Address of the map (file mode) or of the copy (copy mode).
    layout
        The source layout the input elements came from.
    element_bytes
        ``E``: bytes per element in the copy (copy mode).
    file_sizes
        Per file, its size in bytes.
    packing
        ``(stored_bits, decoded_itemsize)`` for a packed type (``(4, 1)`` for int4, ``(24, 4)``
        for int24): the copy holds decoded values, each standing for ``stored_bits`` of the
        file. None for every other type.
    """

    mode: str
    base_address: int
    layout: SourceLayout
    element_bytes: int
    file_sizes: tuple[int, ...]
    packing: tuple[int, int] | None = None

    @property
    def _stored_element_bytes(self) -> int:
        """Stored bytes per element (``element_bytes`` unless packed)."""
        if self.packing is None:
            return self.element_bytes
        bits, itemsize = self.packing
        return self.element_bytes // itemsize * bits // 8

    def _stored_position(self, inner: int) -> tuple[int, int]:
        """(first stored byte, stored bytes) of the packed value at byte ``inner`` of a copy
        element (int4: the one byte holding the nibble)."""
        bits, itemsize = self.packing or (8, 1)
        return inner // itemsize * bits // 8, max(1, bits // 8)

    def nibble(self, view: np.ndarray, index: tuple[int, ...] | int) -> str | None:
        """``"low"`` or ``"high"``: the half of the byte :meth:`locate` names that holds
        ``view[index]`` of a 4-bit type (low nibble first); None for every other type.

        Raises
        ------
        IndexError
            ``index`` is out of range for ``view``.
        """
        index = _normalise_index(index, view.shape)
        if self.packing is None or self.packing[0] != 4:
            return None
        address = address_of(view) + sum(i * s for i, s in zip(index, view.strides))
        inner = (address - self.base_address) % self.element_bytes
        return "high" if (inner // self.packing[1]) % 2 else "low"

    # -- view element -> file bytes ---------------------------------------------------------
    def locate(self, view: np.ndarray, index: tuple[int, ...] | int) -> tuple[int, int, int]:
        """``(file_index, byte_offset, nbytes)`` of ``view[index]``.

        ``nbytes`` counts the element's bytes that exist in the file: the item size normally,
        fewer when the element lies partly in ``fixed_length`` zero padding, 0 when it is all
        padding (``byte_offset`` is then where the bytes would have been, past the end of the
        file's element).

        Raises
        ------
        IndexError
            ``index`` is out of range for ``view`` (negative indices count from the end).
        """
        index = _normalise_index(index, view.shape)
        address = address_of(view) + sum(i * s for i, s in zip(index, view.strides))
        itemsize = view.dtype.itemsize
        if self.mode == "file":
            return 0, address - self.base_address, itemsize
        position = address - self.base_address
        element, byte = divmod(position, self.element_bytes)
        if self.packing is not None:
            byte, itemsize = self._stored_position(byte)
        if self.layout.elements is not None:
            start, size = self.layout.elements[element]
            return 0, start + byte, max(0, min(itemsize, size - byte))
        file_index, record = self._element_origin(element)
        record_size = self.layout.record_size or 0
        offset = self.layout.starts[file_index] + record * record_size + byte
        real = self.layout.element_lengths[file_index]
        return file_index, offset, max(0, min(itemsize, real - byte))

    def _element_origin(self, element: int) -> tuple[int, int]:
        """(file, record) of the flat element number ``element`` of the input shape."""
        shape = self.layout.input_shape
        multi = np.unravel_index(element, shape) if shape else ()
        multi = tuple(int(m) for m in multi)
        several = len(self.layout.arrays) > 1
        file_index = multi[0] if several else 0
        has_records = self.layout.record_size is not None
        record = multi[-1] if has_records else 0
        return file_index, record

    # -- file bytes -> view element ---------------------------------------------------------
    def address_of_byte(self, file_index: int, byte_offset: int) -> int | None:
        """Address in the buffer of a file's byte, None if no decoded element holds it."""
        if not 0 <= file_index < len(self.file_sizes):
            raise IndexError(f"file index {file_index} is out of range: there are "
                             f"{len(self.file_sizes)} files")
        if not 0 <= byte_offset < self.file_sizes[file_index]:
            return None
        if self.mode == "file":
            return self.base_address + byte_offset
        layout = self.layout
        if layout.elements is not None:
            return self._element_address(byte_offset)
        relative = byte_offset - layout.starts[file_index]
        if relative < 0:
            return None
        if layout.record_size is not None:
            record, byte = divmod(relative, layout.record_size)
            count = layout.input_shape[-1]
            if record >= count:
                return None
        else:
            record, byte = 0, relative
        if byte >= min(layout.element_lengths[file_index], self._stored_element_bytes):
            return None  # trailing bytes, or truncated away by fixed_length
        several = len(layout.arrays) > 1
        multi = ((file_index,) if several else ()) + (
            (record,) if layout.record_size is not None else ()
        )
        element = int(np.ravel_multi_index(multi, layout.input_shape)) if multi else 0
        return self.base_address + element * self.element_bytes + self._copy_offset(byte)

    def _copy_offset(self, stored_byte: int) -> int:
        """Offset in a copy element of the value holding a stored byte (its low nibble's value
        for int4)."""
        if self.packing is None:
            return stored_byte
        bits, itemsize = self.packing
        return stored_byte * 8 // bits * itemsize

    @cached_property
    def _element_ranges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Explicit elements sorted by offset: (order, starts, ends), ends cut at the copy's width."""
        pairs = np.array(self.layout.elements or (), dtype=np.int64).reshape(-1, 2)
        order = np.argsort(pairs[:, 0], kind="stable")
        starts = pairs[order, 0]
        ends = starts + np.minimum(pairs[order, 1], self._stored_element_bytes)
        return order, starts, ends

    def _element_address(self, byte_offset: int) -> int | None:
        """Copy address of a file byte inside an explicit element (the first that holds it)."""
        order, starts, ends = self._element_ranges
        candidates = np.flatnonzero((starts <= byte_offset) & (byte_offset < ends))
        if candidates.size == 0:
            return None
        first = candidates[0]
        element = int(order[first])
        return (self.base_address + element * self.element_bytes
                + self._copy_offset(byte_offset - int(starts[first])))

    @staticmethod
    def index_of(view: np.ndarray, address: int) -> tuple[int, ...] | None:
        """Index of the element of ``view`` whose bytes cover ``address``, or None."""
        if view.size == 0:
            return None
        start = address_of(view)
        axes = []
        for axis, (n, stride) in enumerate(zip(view.shape, view.strides)):
            if stride < 0:  # walk it backwards from its lowest address
                start += (n - 1) * stride
            axes.append((axis, n, abs(stride), stride < 0))
        delta = address - start
        if delta < 0:
            return None
        index = [0] * view.ndim
        for axis, n, stride, flipped in sorted(axes, key=lambda a: -a[2]):
            step = 0 if stride == 0 or n == 1 else min(delta // stride, n - 1)
            delta -= step * stride
            index[axis] = n - 1 - step if flipped else step
        if not 0 <= delta < view.dtype.itemsize:
            return None
        return tuple(index)


def buffer_range_contains(array: np.ndarray, start: int, nbytes: int) -> bool:
    """Whether every byte ``array`` can touch lies in ``[start, start + nbytes)``."""
    if array.size == 0:
        return True
    low = high = address_of(array)
    for n, stride in zip(array.shape, array.strides):
        span = (n - 1) * stride
        if span < 0:
            low += span
        else:
            high += span
    return start <= low and high + array.dtype.itemsize <= start + nbytes

