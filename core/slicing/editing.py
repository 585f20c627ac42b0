"""Editing a slice spec entry by entry: values, mask bits, inserted / removed / swapped entries.

Every function takes a :class:`core.slicing.spec.SliceSpec` and returns a new one (specs are
frozen); the new spec is built by the ``SliceSpec`` constructor, so it is validated like any other
(int64 values, int32 masks, at most 31 entries) and an edit TensorFlow would refuse raises
:class:`core.errors.SliceError` instead of producing a spec. What the numbers *mean* for a shape
is the pipeline's business (:meth:`SliceSpec.analyze`); these functions only move numbers and
bits.

Masks are read as TensorFlow reads them: 32-bit patterns where bit ``i`` belongs to entry ``i``
and bit 31 is the sign of the int32 (:func:`signed32`). When entries are inserted or removed, the
bits of the later entries move with them, bits beyond the spec included (so they stay beyond it).
"""

from __future__ import annotations

from core.errors import SliceError
from core.slicing.spec import SliceSpec
from core.slicing.validate import MASK_NAMES

__all__ = [
    "VALUE_FIELDS",
    "insert_entry",
    "parse_entry_value",
    "remove_entry",
    "signed32",
    "swap_entries",
    "with_bit",
    "with_mask",
    "with_value",
]

#: The per-entry integer fields of a spec.
VALUE_FIELDS = ("begin", "end", "strides")


def signed32(pattern: int) -> int:
    """A 32-bit pattern as the int32 TensorFlow reads: bit 31 set -> negative.

    Bits above bit 31 are dropped: ``signed32(0x8000_0000) == -2**31``,
    ``signed32(0x1_0000_0001) == 1``.
    """
    pattern &= 0xFFFFFFFF
    return pattern - (1 << 32) if pattern >> 31 else pattern


def _fields(spec: SliceSpec) -> dict[str, object]:
    return {name: getattr(spec, name) for name in (*VALUE_FIELDS, *MASK_NAMES)}


def _check_entry(spec: SliceSpec, i: int, *, insertion: bool = False) -> None:
    last = len(spec) if insertion else len(spec) - 1
    if not 0 <= i <= last:
        raise IndexError(f"entry {i} is out of range for a spec of {len(spec)} entries")


def _check_name(name: str, names: tuple[str, ...]) -> None:
    if name not in names:
        raise ValueError(f"{name!r} is not one of {', '.join(names)}")


def with_value(spec: SliceSpec, field: str, i: int, value: int) -> SliceSpec:
    """``spec`` with ``field`` (``"begin"``, ``"end"`` or ``"strides"``) of entry ``i`` set.

    Raises
    ------
    ValueError
        For another ``field``.
    IndexError
        When ``i`` is not an entry of ``spec``.
    SliceError
        When ``value`` is not an integer in the int64 range (the spec's own validation).
    """
    _check_name(field, VALUE_FIELDS)
    _check_entry(spec, i)
    values = list(getattr(spec, field))
    values[i] = value
    return SliceSpec(**{**_fields(spec), field: tuple(values)})


def with_mask(spec: SliceSpec, mask: str, value: int) -> SliceSpec:
    """``spec`` with the whole ``mask`` (e.g. ``"begin_mask"``) replaced by ``value``.

    Raises
    ------
    ValueError
        When ``mask`` is not one of :data:`core.slicing.validate.MASK_NAMES`.
    SliceError
        When ``value`` is outside int32 (the spec's own validation).
    """
    _check_name(mask, MASK_NAMES)
    return SliceSpec(**{**_fields(spec), mask: value})


def with_bit(spec: SliceSpec, mask: str, i: int, on: bool) -> SliceSpec:
    """``spec`` with bit ``i`` (0..31) of ``mask`` set (``on``) or cleared; nothing else changes.

    Bit 31 is the int32's sign: setting it on an all-zero mask gives ``-2**31``. Bits beyond the
    spec may be set too (TensorFlow ignores them, but they count toward the one-ellipsis limit).

    Raises
    ------
    ValueError
        When ``mask`` is not a mask name or ``i`` is not in ``0..31``.
    """
    _check_name(mask, MASK_NAMES)
    if not 0 <= i < 32:
        raise ValueError(f"bit {i} is not a bit of a 32-bit mask (use 0..31)")
    pattern = getattr(spec, mask) & 0xFFFFFFFF
    pattern = pattern | (1 << i) if on else pattern & ~(1 << i)
    return SliceSpec(**{**_fields(spec), mask: signed32(pattern)})


def _insert_bit(mask: int, i: int, on: bool) -> int:
    pattern = mask & 0xFFFFFFFF
    low = pattern & ((1 << i) - 1)
    return signed32(low | ((pattern >> i) << (i + 1)) | (int(on) << i))


def _remove_bit(mask: int, i: int) -> int:
    pattern = mask & 0xFFFFFFFF
    low = pattern & ((1 << i) - 1)
    return signed32(low | ((pattern >> (i + 1)) << i))


def insert_entry(spec: SliceSpec, i: int) -> SliceSpec:
    """``spec`` with a full-range entry (``:``: 0, 0, 1, both masks set) inserted before entry ``i``.

    ``i == len(spec)`` appends. Mask bits from ``i`` upwards move up by one, those beyond the
    spec included; a bit pushed past bit 31 is lost.

    Raises
    ------
    IndexError
        When ``i`` is not in ``0..len(spec)``.
    SliceError
        When the spec already has 31 entries (TensorFlow's 32-bit masks).
    """
    _check_entry(spec, i, insertion=True)
    masks = {mask: _insert_bit(getattr(spec, mask), i, False) for mask in MASK_NAMES}
    masks["begin_mask"] = _insert_bit(spec.begin_mask, i, True)
    masks["end_mask"] = _insert_bit(spec.end_mask, i, True)
    return SliceSpec(
        spec.begin[:i] + (0,) + spec.begin[i:],
        spec.end[:i] + (0,) + spec.end[i:],
        spec.strides[:i] + (1,) + spec.strides[i:],
        **masks,
    )


def remove_entry(spec: SliceSpec, i: int) -> SliceSpec:
    """``spec`` without entry ``i``: its values and mask bits go, bits above ``i`` move down one.

    Raises
    ------
    IndexError
        When ``i`` is not an entry of ``spec``.
    """
    _check_entry(spec, i)
    return SliceSpec(
        spec.begin[:i] + spec.begin[i + 1 :],
        spec.end[:i] + spec.end[i + 1 :],
        spec.strides[:i] + spec.strides[i + 1 :],
        **{mask: _remove_bit(getattr(spec, mask), i) for mask in MASK_NAMES},
    )


def swap_entries(spec: SliceSpec, i: int, j: int) -> SliceSpec:
    """``spec`` with entries ``i`` and ``j`` exchanged, values and mask bits together.

    Swapping neighbours moves an entry up or down by one.

    Raises
    ------
    IndexError
        When ``i`` or ``j`` is not an entry of ``spec``.
    """
    _check_entry(spec, i)
    _check_entry(spec, j)

    def swapped(values: tuple[int, ...]) -> tuple[int, ...]:
        out = list(values)
        out[i], out[j] = out[j], out[i]
        return tuple(out)

    masks = {}
    for mask in MASK_NAMES:
        pattern = getattr(spec, mask) & 0xFFFFFFFF
        bit_i, bit_j = pattern >> i & 1, pattern >> j & 1
        pattern &= ~((1 << i) | (1 << j))
        masks[mask] = signed32(pattern | (bit_i << j) | (bit_j << i))
    return SliceSpec(swapped(spec.begin), swapped(spec.end), swapped(spec.strides), **masks)


def parse_entry_value(text: str, what: str) -> int:
    """A typed begin / end / stride: a decimal integer, surrounding spaces and ``_`` allowed.

    ``what`` names the value in the message (``"stride of entry 0"``). The range is checked by
    the spec (:func:`with_value`), not here.

    Raises
    ------
    SliceError
        ``stride of entry 0 'two' is not an integer (type a whole number such as -1 or 5)``.
    """
    cleaned = str(text).strip().replace("_", "")
    try:
        return int(cleaned)
    except ValueError:
        raise SliceError(
            f"{what} {str(text)!r} is not an integer (type a whole number such as -1 or 5)",
            field="slice",
        ) from None
