"""Element conversions of TensorBuffer: TFLite's rules, generalised (docs/semantics.md §6).

One rule serves ``load_array``, ``create_from``, ``get_int_array``, ``get_float_array`` and the
pipeline's "view as": **a value keeps its exact value until it is stored in the target type**,
and storing follows TFLite Support:

* **integer target** (INT8 ... UINT64, and INT32 for ``get_int_array``): an integer is clamped to
  the target's range (TFLite: ``(byte) Math.max(Math.min(a, 255), 0)`` for UINT8); a float is
  truncated toward zero and clamped (Java's ``(int)`` cast: 254.9 -> 254, -0.5 -> 0,
  +Inf -> max, -Inf -> min), NaN -> 0. Clamping before or after truncation gives the same
  result because every bound is an integer.
* **BOOL target**: an integer type with range [0, 1] (so 0.99 -> False, 2 -> True, -1 -> False,
  NaN -> False).
* **float target**: round to nearest, ties to even, overflow to +-Inf, -0.0 and NaN kept (a
  FLOAT32 -> FLOAT32 copy is bit for bit, NaN payload included). Integers are rounded once from
  their exact value (16777217 -> 16777216.0 in float32), never through float64 first. numpy's
  own casts do that for float16/32/64; ml_dtypes rounds int64 and float64 to bfloat16 through
  float32 (a double rounding), so those paths round to odd first (see
  :func:`round_to_odd_float32`).
* **complex target**: a real value becomes the real part (rounded like a float target), the
  imaginary part is +0.0; complex to complex rounds each part.
* **complex source, real target**: the real part is taken, then the float rule applies (like
  numpy's ``astype``; the imaginary part is dropped without a warning).
* BOOL sources count as the integers 0 and 1 (any nonzero byte is True, as in docs/semantics.md §2).

Which values are "ints" and which are "floats" is decided by their numpy dtype, which is how
:meth:`TensorBuffer.load_array` tells Java's ``loadArray(int[])`` from ``loadArray(float[])``.

For FLOAT32 and UINT8 these are exactly TFLite's results. ``create_from`` in TFLite routes every
pair except FLOAT32 -> FLOAT32 through ``getIntArray()`` (int32); for FLOAT32 -> UINT8 that equals
the direct rule above (docs/semantics.md §6). For the extension types the direct rule is used: it differs
from a literal int32 detour only for targets wider than int32 (INT64, UINT32, UINT64), where
1e20 becomes the target's maximum instead of 2147483647, and for integer sources wider than
int32, whose values are not saturated at int32 on the way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.dtypes.data_type import DataType
from core.errors import IllegalArgumentError

__all__ = [
    "convert_array",
    "convert_to",
    "as_value_array",
    "round_to_odd_float32",
]

def _is_bfloat16(dtype: np.dtype) -> bool:
    return dtype.name == "bfloat16"


def convert_array(
    values: np.ndarray, source: DataType | str, target: DataType | str, *, copy: bool = True
) -> np.ndarray:
    """Convert ``values`` of type ``source`` elementwise to ``target`` with create_from's rules.

    This is ``TensorBuffer.create_from(buffer_of(values), target)`` without the buffer: the
    conversion is elementwise, so applying it to a sliced view equals slicing the converted
    whole (docs/semantics.md §6, §7: "view as" on just the visible part).

    Parameters
    ----------
    values
        An ndarray of any shape and byte order whose dtype is ``source`` (``>f4`` is FLOAT32).
    source, target
        Anything :meth:`DataType.parse` accepts.
    copy
        When ``source == target`` and ``copy`` is False, ``values`` itself is returned (a view,
        in its own byte order, BOOL bytes not normalised). Otherwise the result is always new.

    Returns
    -------
    numpy.ndarray
        Same shape, dtype ``target.numpy_dtype`` (native byte order), C-contiguous.

    Raises
    ------
    IllegalArgumentError
        ``values.dtype`` is not ``source``; either type is STRING or unknown.
    """
    source = DataType.parse(source)
    target = DataType.parse(target)
    values = np.asarray(values)
    actual = DataType.parse(values.dtype)
    if actual is not source:
        raise IllegalArgumentError(
            f"Values of dtype {values.dtype} are {actual.name}, not {source.name} (pass the "
            f"DataType of the values as source, or values.view() them as {source.value})",
            field="view_as",
        )
    target.numpy_dtype  # raises the clear error for STRING  # noqa: B018
    if source is target and not copy:
        return values
    return convert_to(values, target)


def convert_to(values: np.ndarray, target: DataType | str) -> np.ndarray:
    """Store ``values`` (their dtype says whether they are ints or floats) in ``target``.

    The rule is the module's: clamp ints / truncate-and-clamp floats (NaN -> 0) for integer and
    BOOL targets, round to nearest for float targets, real part for complex -> real.
    ``convert_to(x, DataType.INT32)`` is Java's ``getIntArray()`` and
    ``convert_to(x, DataType.FLOAT32)`` is ``getFloatArray()``.

    Parameters
    ----------
    values
        ndarray of any shape, any supported dtype, any byte order.
    target
        Anything :meth:`DataType.parse` accepts, except STRING.

    Returns
    -------
    numpy.ndarray
        A new C-contiguous array, same shape, dtype ``target.numpy_dtype``. Always a copy.

    Raises
    ------
    IllegalArgumentError
        ``target`` or ``values.dtype`` is STRING or not a supported type.
    """
    target = DataType.parse(target)
    out_dtype = target.numpy_dtype
    values = np.asarray(values)
    source = DataType.parse(values.dtype)
    source.numpy_dtype  # STRING -> clear error  # noqa: B018
    if not values.dtype.isnative:
        values = values.astype(values.dtype.newbyteorder("="))
    if source is DataType.BOOL:
        # Any nonzero byte is True; count it as the integer 1.
        values = (values.view(np.uint8) != 0).view(np.uint8)
        source = DataType.UINT8
    if target.is_complex:
        return _to_complex(values, source, out_dtype)
    if source.is_complex:
        values = values.real
        source = DataType.parse(values.dtype)
    if target.is_floating:
        if source.is_floating:
            return _float_to_float(values, out_dtype)
        return _int_to_float(values, out_dtype)
    low, high = target.int_range
    if source.is_floating:
        return _float_to_int(values, out_dtype, low, high)
    return _int_to_int(values, out_dtype, low, high)


def as_value_array(values: Any) -> np.ndarray:
    """Turn ``load_array``'s argument into a flat ndarray whose dtype picks the int/float rule.

    numpy arrays are used as they are (any shape; flattened in C order, a view when possible).
    Other sequences go through :func:`numpy.asarray`, except that a sequence made only of
    integers is kept as integers even where numpy would fall back to float64 or object:
    it becomes int64, or uint64 when it has values above 2**63 - 1 and none below 0.

    Java's ``int[]`` holds only int32; we take every integer at its exact value instead of
    wrapping or saturating it at int32, which an INT64 buffer needs. Integers that fit in
    neither int64 nor uint64 (or a mix of negatives and values >= 2**63) are refused.

    Raises
    ------
    TypeError
        ``values`` is None (Java's ``The array to be loaded cannot be null.``).
    IllegalArgumentError
        Strings, bytes, objects, ragged nesting, or integers beyond the 64-bit ranges.
    """
    if values is None:
        raise TypeError(
            "The array to be loaded cannot be null. (pass a list or numpy array of numbers)"
        )
    if isinstance(values, (str, bytes, bytearray, memoryview)):
        raise IllegalArgumentError(
            f"load_array takes numbers, not {type(values).__name__} (use load_buffer for raw "
            "bytes, or pass a list / numpy array of numbers)"
        )
    if isinstance(values, np.ndarray):
        array = values
    else:
        try:
            array = np.asarray(values)
        except (ValueError, TypeError) as exc:
            raise IllegalArgumentError(
                f"Cannot read the values as an array: {exc} (pass a flat list or a numpy array "
                "of numbers)"
            ) from None
        if array.dtype.kind in "fO":
            array = _exact_integers(values, array)
    try:
        kind = DataType.parse(array.dtype)
    except IllegalArgumentError:
        kind = DataType.STRING
    if kind is DataType.STRING:
        raise IllegalArgumentError(
            f"Cannot load values of dtype {array.dtype} (TensorBuffer holds numbers only; pass "
            "ints, floats, bools or complex numbers)"
        )
    return array.reshape(-1)


def _exact_integers(values: Any, array: np.ndarray) -> np.ndarray:
    """Recover Python ints that numpy turned into float64 or object (``array``)."""
    items = np.asarray(values, dtype=object).reshape(-1)
    if items.size == 0 or not all(
        isinstance(item, (int, np.integer)) for item in items
    ):
        return array
    integers = [int(item) for item in items]
    low, high = min(integers), max(integers)
    if low >= -(2**63) and high < 2**63:
        return np.array(integers, dtype=np.int64).reshape(array.shape)
    if low >= 0 and high < 2**64:
        return np.array(integers, dtype=np.uint64).reshape(array.shape)
    culprit = low if low < -(2**63) or (high >= 2**63 and low < 0) else high
    raise IllegalArgumentError(
        f"Integer {culprit} cannot be loaded: an int array must fit in int64, or in uint64 "
        "when it has no negative values (Java's int[] holds only int32; pass floats for "
        "values this large)"
    )


# ---------------------------------------------------------------------------- the four paths
def _int_to_int(values: np.ndarray, out: np.dtype, low: int, high: int) -> np.ndarray:
    info = np.iinfo(values.dtype)
    # Clamp in the source type, with bounds that fit it, so no comparison promotes to float64.
    low, high = max(low, int(info.min)), min(high, int(info.max))
    if low > info.min or high < info.max:
        values = np.clip(values, values.dtype.type(low), values.dtype.type(high))
    return np.array(values, dtype=out, order="C")


def _float_to_int(values: np.ndarray, out: np.dtype, low: int, high: int) -> np.ndarray:
    # float32 and float64 hold every bound (powers of two up to 2**64) exactly; float16 and
    # bfloat16 are widened (exactly) to float64 for the comparisons.
    work_type = np.float32 if values.dtype == np.float32 else np.float64
    # A signalling NaN (any bytes decoded as float can hold one) makes astype/trunc raise
    # numpy's "invalid value" RuntimeWarning; NaN is handled below (-> 0), so silence it.
    with np.errstate(invalid="ignore"):
        work = values.astype(work_type)
        np.trunc(work, out=work)  # in place: a 0-d input stays an array, not a scalar
    above = work >= work_type(high + 1)  # high + 1 is a power of two: exact
    below = work < work_type(low)
    invalid = above | below | np.isnan(work)
    work[invalid] = 0
    result = np.array(work, dtype=out, order="C")
    result[above] = high
    result[below] = low
    return result


def _float_to_float(values: np.ndarray, out: np.dtype) -> np.ndarray:
    if _is_bfloat16(out) and values.dtype == np.float64:
        values = round_to_odd_float32(values)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.array(values, dtype=out, order="C")


def _int_to_float(values: np.ndarray, out: np.dtype) -> np.ndarray:
    if _is_bfloat16(out) and values.dtype.itemsize >= 4:
        wide = values.astype(np.float64) if values.dtype.itemsize == 4 else (
            _int64_to_float64_round_to_odd(values)
        )
        values = round_to_odd_float32(wide)
    with np.errstate(over="ignore"):
        return np.array(values, dtype=out, order="C")


def _to_complex(values: np.ndarray, source: DataType, out: np.dtype) -> np.ndarray:
    if source.is_complex:
        with np.errstate(over="ignore", invalid="ignore"):
            return np.array(values, dtype=out, order="C")
    part = np.dtype(np.float32) if out == np.complex64 else np.dtype(np.float64)
    real = (
        _float_to_float(values, part) if source.is_floating else _int_to_float(values, part)
    )
    result = np.zeros(values.shape, dtype=out)
    result.real = real
    return result


# ------------------------------------------------------------------------- round to odd
def round_to_odd_float32(values: np.ndarray) -> np.ndarray:
    """Round float64 values to float32 *to odd*: truncate toward zero, set the last bit if inexact.

    Rounding to odd at 24 bits and then to nearest at 8 bits equals rounding to nearest at 8
    bits directly (24 >= 8 + 2), so ``round_to_odd_float32(x).astype(bfloat16)`` is a correctly
    rounded float64 -> bfloat16 conversion, which ml_dtypes' direct cast is not (it rounds to
    nearest twice). Values beyond float32's range become +-FLT_MAX with the last bit set,
    i.e. FLT_MAX, which bfloat16 then rounds to +-Inf as it should; NaN and +-Inf pass through.

    Parameters
    ----------
    values
        float64 ndarray (native byte order).

    Returns
    -------
    numpy.ndarray
        New float32 array of the same shape. Only meaningful as an input to a narrower rounding.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        nearest = np.array(values, dtype=np.float32)
    widened = nearest.astype(np.float64)
    inexact = (widened != values) & ~np.isnan(values)
    if not inexact.any():
        return nearest
    bits = nearest.view(np.uint32)
    # Sign-magnitude: subtracting 1 from the bits moves one step toward zero (Inf -> FLT_MAX).
    bits[inexact & (np.abs(widened) > np.abs(values))] -= np.uint32(1)
    bits[inexact] |= np.uint32(1)
    return nearest


def _int64_to_float64_round_to_odd(values: np.ndarray) -> np.ndarray:
    """Round int64/uint64 to float64 to odd (exact below 2**53; composes with the float32 step)."""
    nearest = values.astype(np.float64)
    limit = 2.0**63 if values.dtype == np.int64 else 2.0**64
    overflow = nearest >= limit  # only reachable by rounding up past the type's maximum
    back = np.where(overflow, 0.0, nearest).astype(values.dtype)
    if values.dtype == np.int64:
        away = overflow | ((values >= 0) & (back > values)) | ((values < 0) & (back < values))
    else:
        away = overflow | (back > values)
    inexact = overflow | (back != values)
    if not inexact.any():
        return nearest
    bits = nearest.view(np.uint64)
    bits[away] -= np.uint64(1)
    bits[inexact] |= np.uint64(1)
    return nearest
