"""Step 1 of ``tf.strided_slice``: validate the sparse spec (docs/semantics.md §4).

Mirrors the first checks of TensorFlow's ``ValidateStridedSliceOp``
(``tensorflow/core/util/strided_slice_op.cc``): begin, end and strides are 1-D of equal length
(fewer than 32 entries, because the masks are 32-bit), the masks fit in an int32, and at most one
ellipsis bit is set in the *whole* ellipsis mask. The later steps live in
:mod:`core.slicing.strided_slice`.

TensorFlow's sparse spec is :class:`core.slicing.spec.SliceSpec`. Its constructor applies the
per-field rules (:func:`read_fields`), so every ``SliceSpec`` already satisfies them;
:func:`validate` is step 1 on a spec and adds the rule a spec may still break, the ellipsis count
(``"[..., ...]"`` parses, as in TensorFlow, and fails when applied). This module sits below
``spec``: it names ``SliceSpec`` only in annotations (``TYPE_CHECKING``), never at run time.

Also home of the small helpers every slice module shares: :func:`slice_error` (TensorFlow's
message followed by the fix in parentheses, as a :class:`core.errors.SliceError` with
``field="slice"``) and the bit helpers :func:`bit` / :func:`set_bits`, which read a mask as
TensorFlow's 32-bit pattern (so a negative mask sets bit 31).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import SliceError

if TYPE_CHECKING:  # spec imports this module (SliceSpec.apply); the name is for annotations
    from core.slicing.spec import SliceSpec

__all__ = [
    "INT32_MAX",
    "INT32_MIN",
    "INT64_MAX",
    "INT64_MIN",
    "MASK_NAMES",
    "MAX_ENTRIES",
    "bit",
    "read_fields",
    "set_bits",
    "slice_error",
    "validate",
]

#: TensorFlow requires ``len(begin) < 32`` ("using 32 bit masks").
MAX_ENTRIES = 31
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
MASK_NAMES = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def slice_error(message: str, fix: str) -> SliceError:
    """Build the engine's slice error: TensorFlow's ``message`` followed by ``(fix)``."""
    return SliceError(f"{message} ({fix})", field="slice")


def set_bits(mask: int) -> list[int]:
    """Positions of the bits set in the 32-bit two's complement pattern of ``mask``."""
    pattern = mask & 0xFFFFFFFF
    return [bit for bit in range(32) if pattern >> bit & 1]


def bit(mask: int, i: int) -> bool:
    """Whether bit ``i`` of ``mask`` (an int32, possibly negative) is set."""
    return bool((mask & 0xFFFFFFFF) >> i & 1)


def _shape_string(shape: tuple[int, ...]) -> str:
    """``TensorShape::DebugString``: ``[2]``, ``[2,3]``, ``[]``."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def _as_int(value: Any, what: str) -> int:
    """``value`` as a Python int (numpy integers accepted; bools and floats refused)."""
    if isinstance(value, (bool, np.bool_)):
        raise slice_error(f"{what} is a bool, not an integer", "use an integer")
    try:
        return operator.index(value)
    except TypeError:
        raise slice_error(
            f"{what} = {value!r} is not an integer", "use an integer"
        ) from None


def _index_vector(value: Any, name: str) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """Read ``begin`` / ``end`` / ``strides``: ``(shape, values)``; values is None unless 1-D.

    Accepts a sequence or a numpy array of integers; a scalar or a nested sequence gives its
    (non 1-D) shape so that :func:`validate` can report it with TensorFlow's message.
    """
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "iu":
            raise slice_error(
                f"{name} has dtype {value.dtype}, not an integer type",
                f"make {name} int32 or int64",
            )
        if value.ndim != 1:
            return tuple(value.shape), None
        items: Sequence[Any] = value.tolist()
    elif isinstance(value, (str, bytes)):
        raise slice_error(f"{name} is a string, not a list of integers", "use a list of integers")
    else:
        try:
            operator.index(value)
        except TypeError:
            pass
        else:
            return (), None  # a scalar: TF reports its shape as []
        try:
            items = list(value)
        except TypeError:
            raise slice_error(
                f"{name} = {value!r} is not a list of integers", "use a list of integers"
            ) from None
        if any(isinstance(v, (list, tuple, np.ndarray)) for v in items):
            try:
                shape = tuple(np.asarray(value, dtype=object).shape)
            except ValueError:  # ragged
                shape = (len(items), -1)
            return shape, None
    values = tuple(_as_int(v, f"{name}[{i}]") for i, v in enumerate(items))
    for i, v in enumerate(values):
        if not INT64_MIN <= v <= INT64_MAX:
            raise slice_error(
                f"{name}[{i}] = {v} does not fit in int64",
                f"use a value in [{INT64_MIN}, {INT64_MAX}]",
            )
    return (len(values),), values


def read_fields(
    begin: Any,
    end: Any,
    strides: Any = None,
    *,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], dict[str, int]]:
    """TensorFlow's per-field rules of step 1: ``(begin, end, strides, masks)`` normalised.

    The :class:`core.slicing.spec.SliceSpec` constructor calls this, so a spec holds tuples of
    Python ints (equal specs compare and hash equal). Rules, in TensorFlow's order:

    * ``strides=None`` means ones, one per entry of ``begin`` (as ``tf.strided_slice`` does);
    * begin, end and strides are 1-D with the same number of entries, and fewer than 32
      entries, else ``Expected begin, end, and strides to be 1D equal size tensors, but got
      shapes [2], [1], and [1] instead.``;
    * each mask is in the int32 range, else ``Attr begin_mask has value ... out of range for an
      int32`` (a negative mask is its 32-bit two's complement pattern).

    The ellipsis count is left to :func:`validate`.

    Returns
    -------
    tuple
        ``begin``, ``end`` and ``strides`` as tuples of ints, and the masks by name
        (:data:`MASK_NAMES` order).

    Raises
    ------
    SliceError
        On any rule above, or when a value is not an integer or does not fit in int64.
    """
    begin_shape, begin_values = _index_vector(begin, "begin")
    end_shape, end_values = _index_vector(end, "end")
    if strides is None:
        strides = [1] * (begin_shape[0] if len(begin_shape) == 1 else 0)
    strides_shape, strides_values = _index_vector(strides, "strides")
    if (
        begin_values is None
        or end_values is None
        or strides_values is None
        or not len(begin_values) == len(end_values) == len(strides_values)
        or len(begin_values) > MAX_ENTRIES
    ):
        if begin_values is None or end_values is None or strides_values is None:
            fix = "pass begin, end and strides as 1-D lists of integers"
        elif len(begin_values) == len(end_values) == len(strides_values):
            fix = f"a spec has at most {MAX_ENTRIES} entries, because the masks are 32-bit"
        else:
            fix = "give begin, end and strides the same number of entries"
        raise slice_error(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
            f"{_shape_string(begin_shape)}, {_shape_string(end_shape)}, and "
            f"{_shape_string(strides_shape)} instead.",
            fix,
        )
    masks = {}
    for name, value in zip(
        MASK_NAMES, (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    ):
        mask = _as_int(value, name)
        if not INT32_MIN <= mask <= INT32_MAX:
            raise slice_error(
                f"Attr {name} has value {mask} out of range for an int32",
                f"use a value in [{INT32_MIN}, {INT32_MAX}]; bit i refers to entry i",
            )
        masks[name] = mask
    return begin_values, end_values, strides_values, masks


def validate(spec: SliceSpec) -> SliceSpec:
    """Step 1: ``spec`` if TensorFlow accepts it before seeing a shape, else the error.

    The per-field rules (:func:`read_fields`) hold for every :class:`SliceSpec`; what remains is
    that at most one bit of ``ellipsis_mask`` may be set, *counting bits beyond the spec*.

    Raises
    ------
    SliceError
        ``Multiple ellipses in slice spec not allowed``.
    """
    ellipsis_bits = set_bits(spec.ellipsis_mask)
    if len(ellipsis_bits) > 1:
        raise slice_error(
            "Multiple ellipses in slice spec not allowed",
            "keep a single '...': ellipsis_mask has bits "
            + ", ".join(str(b) for b in ellipsis_bits)
            + " set",
        )
    return spec
