"""Unpack the packed types beyond TF: int4/uint4 and int24/uint24 (docs/semantics.md §2a).

These types store a value in fewer bits than any numpy integer, so their values cannot be a view
of the input: decoding **copies**, once, into the narrowest numpy type that holds every value,
after checking the copy against :mod:`core.budget`.

- ``int4`` / ``uint4``: two values per byte, **low nibble first**: value ``2k`` is bits 0-3 of
  byte ``k``, value ``2k + 1`` bits 4-7 (ml_dtypes' and ONNX's packing). The byte order does not
  apply. Any byte count is whole: ``n`` bytes hold ``2n`` values (a tensor with an odd number of
  values leaves the last high nibble unused; choose a shape or slice that drops it). Decoded into
  ``int8`` (sign bit 3 extended: ``0x8`` is -8) or ``uint8`` (0-15): two bytes per stored byte.
- ``int24`` / ``uint24``: three bytes per value, little- or big-endian, decoded into ``int32``
  (bit 23 extended: ``0x800000`` is -8388608) or ``uint32``: four bytes per three stored bytes.
"""

from __future__ import annotations

import math

import numpy as np

from core.budget import check_copy_budget
from core.dtypes.table import TypeRow
from core.errors import DecodeError

__all__ = ["unpack", "check_packed_length"]


def check_packed_length(length: int, row: TypeRow, fix: str) -> None:
    """Refuse an element length that is not a whole number of ``row``'s stored units.

    Raises
    ------
    DecodeError
        ``Input to DecodeRaw has length 7 that is not a multiple of 3, the size of int24 (...)``,
        TF's wording for its own types, then ``fix`` (``field="fixed_length"``).
    """
    size = row.stored_size
    if length % size:
        raise DecodeError(
            f"Input to DecodeRaw has length {length} that is not a multiple of {size}, the size "
            f"of {row.name} ({fix}, e.g. {max(size, length - length % size)})",
            field="fixed_length",
        )


def unpack(u8: np.ndarray, row: TypeRow, little_endian: bool) -> np.ndarray:
    """Decode the stored bytes ``u8`` (shape ``S + (L,)``) as ``row``'s packed type.

    Parameters
    ----------
    u8
        ``uint8`` array whose last axis holds each element's bytes; ``L`` must be a multiple of
        ``row.stored_size`` (see :func:`check_packed_length`).
    row
        The int4, uint4, int24 or uint24 row of :mod:`core.dtypes.table`.
    little_endian
        Byte order of int24/uint24 values (ignored for int4/uint4).

    Returns
    -------
    numpy.ndarray
        A new C-contiguous array of ``row.dtype`` (native order), shape ``S + (L * 2,)`` for the
        4-bit types, ``S + (L // 3,)`` for the 24-bit types.

    Raises
    ------
    BudgetError
        The unpacked copy would exceed the copy budget (refused before allocating).
    """
    length = u8.shape[-1]
    count = length * row.values_per_unit // row.stored_size
    shape = u8.shape[:-1] + (count,)
    check_copy_budget(
        math.prod(shape) * row.itemsize,
        f"unpacking {row.name} values into {row.dtype.name}",
        "decode fewer bytes, e.g. a record_size or a smaller length", field="dtype",
    )
    out = np.empty(shape, row.dtype)
    if row.stored_bits == 4:
        low = u8 & np.uint8(0x0F)
        high = u8 >> np.uint8(4)
        if row.kind == "int":  # sign-extend bit 3: (n ^ 8) - 8
            low = (low.astype(np.int8) ^ np.int8(8)) - np.int8(8)
            high = (high.astype(np.int8) ^ np.int8(8)) - np.int8(8)
        out[..., 0::2] = low
        out[..., 1::2] = high
        return out
    # Built in place in the output (temporaries of at most the output's size).
    triples = u8.reshape(u8.shape[:-1] + (count, 3))
    low, high = (0, 2) if little_endian else (2, 0)
    bits = out.view(np.uint32)
    bits[...] = triples[..., high]
    bits <<= np.uint32(8)
    bits |= triples[..., 1]
    bits <<= np.uint32(8)
    bits |= triples[..., low]
    if row.kind == "int":  # sign-extend bit 23: (v ^ 0x800000) - 0x800000
        out ^= np.int32(0x800000)
        out -= np.int32(0x800000)
    return out

