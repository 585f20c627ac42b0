"""``tf.io.decode_raw``, bit for bit (docs/semantics.md §2).

Every element of the input (a string tensor, see :mod:`core.decode.inputs`) is a run of bytes that
is reinterpreted as numbers of ``out_type``. The output shape is the input shape plus one
dimension: ``element_length / itemsize``, or ``fixed_length / itemsize`` with ``fixed_length``.

Copies: the result is a **view** of the input buffer whenever no byte has to be created:

- no ``fixed_length``, or ``fixed_length`` <= the element length (truncation is a slice);
- a non-native byte order stays a view with an explicit ``>``/``<`` dtype (so NaN payloads and
  every other bit survive: nothing is converted);
- read-only input (``bytes``, a read-only memory map) gives a read-only result.

Exactly one copy, checked against :mod:`core.budget` before it is allocated, is made when

- ``fixed_length`` exceeds some element's length (zero padding at the end, before any byte
  swapping, as TF does);
- the elements are separate Python objects (a list or object array): they are joined once;
- ``out_type`` is ``bool`` and some byte is above 1: TF treats any nonzero byte as True, but a
  numpy bool holding 2 is not a valid ``True``, so the bytes are normalised with ``!= 0``. This
  needs one scan of the input (``max() <= 1``) even when no copy follows, so it is done only for
  inputs of at most :data:`BOOL_SCAN_LIMIT_BYTES` (16 MiB). A larger bool input stays a view,
  bytes above 1 included, so that decoding it costs O(1) whatever its size: numpy reads such a
  byte as True in comparisons, ``astype``, sums and printing, and the engine's bulk readers
  (statistics, export, view as) count and write it as 1; only its raw bytes (``view(np.uint8)``,
  ``tobytes``) still show the file's byte;
- a ``uint8`` input whose last axis is strided (items must be contiguous to be viewed).
- ``out_type`` is a packed type beyond TF (int4/uint4, int24/uint24): the values are unpacked
  into a new int8/uint8 or int32/uint32 array (:mod:`core.decode.packed`, docs/semantics.md §2a).

ml_dtypes caveat: a big-endian ``bfloat16`` view has ``dtype.name == "bfloat16"`` and computes
correctly (``astype``, arithmetic, ``float(x)``), but ml_dtypes prints it as ``'>V2'`` and its
``tolist()`` does not swap bytes; convert with ``.astype(ml_dtypes.bfloat16)`` before ``tolist``.
"""

from __future__ import annotations

import numbers
import threading

import numpy as np

from core.budget import check_copy_budget
from core.decode.inputs import Elements, as_elements
from core.decode.output_pool import output_buffer
from core.decode.packed import check_packed_length, unpack
from core.dtypes.table import TypeRow, check_padded_type, packed_row, resolve_dtype, tf_name
from core.errors import DecodeError

__all__ = ["decode_raw", "byte_ordered", "check_fixed_length"]


def decode_raw(
    input_bytes: object,
    out_type: object,
    little_endian: bool = True,
    fixed_length: int | None = None,
    *,
    extended_types: bool = False,
) -> np.ndarray:
    """Reinterpret the bytes of every input element as numbers, exactly like ``tf.io.decode_raw``.

    Parameters
    ----------
    input_bytes
        ``bytes``/``str`` scalar, nested lists of them, a numpy object/``S``/``U`` array of any
        rank (zero-size dimensions allowed), or a ``uint8`` array of shape ``(..., L)`` meaning
        elements of ``L`` bytes (the zero-copy path). See :mod:`core.decode.inputs`.
    out_type
        A type of :mod:`core.dtypes.table` (TF or numpy name, or a dtype).
    little_endian
        Byte order of the data. Complex numbers swap each component separately.
    fixed_length
        If given, every element is truncated to, or zero-padded at its end to, this many bytes
        before any byte swapping; elements may then differ in length.
    extended_types
        Also accept the types beyond TF: uint32, uint64, the float8 types (views, like
        bfloat16), int4/uint4 and int24/uint24 (packed: unpacked into a budget-checked copy of
        int8/uint8 or int32/uint32 values, :mod:`core.decode.packed`; ``fixed_length`` then
        counts stored bytes and must be a multiple of 3 for the 24-bit types).

    Returns
    -------
    numpy.ndarray
        Shape ``input_shape + (n,)``. A view of the input buffer unless a copy is unavoidable
        (module docstring); dtype in the requested byte order (``>`` for big-endian).
        ``bool`` holds True for every nonzero byte; an input above
        :data:`BOOL_SCAN_LIMIT_BYTES` is not scanned and may keep bytes above 1 (module docstring).

    Raises
    ------
    DecodeError
        In TF's order, each message followed by the fix in parentheses:

        1. unknown or disallowed ``out_type``: ``Value for attr 'out_type' of uint32 is not in
           the list of allowed values: ...`` (``field="dtype"``); with ``fixed_length``, bool,
           complex64 and complex128 too, and the message then quotes TF's ``DecodePaddedRaw``
           list (no bool, no complex);
        2. ``fixed_length (3) must be a multiple of the size of out_type (2)``, then
           ``fixed_length (0) must be greater than zero.``, also on zero-size input
           (``field="fixed_length"``);
        3. without ``fixed_length``: ``DecodeRaw requires input strings to all be the same size,
           but element 1 has size 2 != 4`` (first element's size, then the offending one's), then
           ``Input to DecodeRaw has length 3 that is not a multiple of 2, the size of uint16``.
           An empty element never triggers the latter: ``b""`` decodes to shape ``(0,)`` and a
           zero-size input of shape ``S`` to ``S + (0,)``.
    BudgetError
        A needed copy is larger than the copy budget (``fixed_length=2**40``): refused before
        allocating.
    """
    # With fixed_length TF builds DecodePaddedRaw, whose attr list its error message quotes.
    dtype = resolve_dtype(
        out_type, extended_types=extended_types, padded=fixed_length is not None
    )
    if not isinstance(little_endian, (bool, np.bool_)):
        raise DecodeError(
            f"little_endian must be True or False, not {little_endian!r} "
            "(True for little-endian data, False for big-endian)",
            field="little_endian",
        )
    packed = packed_row(out_type)
    if packed is not None:
        return _decode_packed(input_bytes, packed, bool(little_endian), fixed_length)
    if fixed_length is not None:
        check_padded_type(dtype)
        fixed_length = check_fixed_length(fixed_length, dtype)
    elements = as_elements(input_bytes)
    out_dtype = byte_ordered(dtype, bool(little_endian))
    if fixed_length is None:
        return _decode_same_size(elements, out_dtype)
    return _decode_padded(elements, out_dtype, fixed_length)


def _decode_packed(input_bytes: object, row: TypeRow, little_endian: bool,
                   fixed_length: int | None) -> np.ndarray:
    """int4/uint4/int24/uint24: the stored bytes (as uint8, TF's rules), then one unpacked copy."""
    if fixed_length is not None:
        fixed_length = check_fixed_length(fixed_length, np.dtype(f"V{row.stored_size}"))
    elements = as_elements(input_bytes)
    u8_type = np.dtype(np.uint8)
    if fixed_length is None:
        stored = _decode_same_size(elements, u8_type)
    else:
        stored = _decode_padded(elements, u8_type, fixed_length)
    check_packed_length(stored.shape[-1], row,
                        f"choose a record size or length that is a multiple of {row.stored_size}")
    return unpack(stored, row, little_endian)


def byte_ordered(dtype: np.dtype, little_endian: bool) -> np.dtype:
    """``dtype`` with an explicit byte order (``<`` or ``>``); single-byte types are unchanged."""
    if dtype.itemsize == 1:
        return dtype
    return dtype.newbyteorder("<" if little_endian else ">")


def _short_int(value: int) -> str:
    """``value`` as text, or its digit count when it is too long to print usefully."""
    if value.bit_length() > 200:
        return f"a {len(str(abs(value))) if value.bit_length() < 14000 else 'huge'}-digit number"
    return str(value)


def check_fixed_length(fixed_length: object, dtype: np.dtype) -> int:
    """Validate ``fixed_length`` in TF's order: multiple of the item size first, then positive.

    Raises
    ------
    DecodeError
        Not an integer; outside TF's 32-bit attribute range;
        ``fixed_length (3) must be a multiple of the size of out_type (2)``;
        ``fixed_length (0) must be greater than zero.`` (``field="fixed_length"``).
    """
    if isinstance(fixed_length, (bool, np.bool_)) or not isinstance(fixed_length, numbers.Integral):
        raise DecodeError(
            f"fixed_length must be a whole number of bytes, not {fixed_length!r} "
            "(e.g. fixed_length=8)",
            field="fixed_length",
        )
    value = int(fixed_length)
    if not -(2**31) <= value < 2**31:
        # TF's attribute is a 32-bit int: larger values never reach the kernel.
        raise DecodeError(
            f"fixed_length ({_short_int(value)}) does not fit TensorFlow's 32-bit fixed_length "
            f"attribute (use at most {2**31 - 1} bytes, or no fixed_length)",
            field="fixed_length",
        )
    size = dtype.itemsize
    if value % size:
        suggestion = max(size, value - value % size)
        raise DecodeError(
            f"fixed_length ({value}) must be a multiple of the size of out_type ({size}) "
            f"(choose a fixed_length that is a multiple of {size}, e.g. {suggestion})",
            field="fixed_length",
        )
    if value <= 0:
        raise DecodeError(
            f"fixed_length ({value}) must be greater than zero. "
            f"(use a positive multiple of {size}, or no fixed_length)",
            field="fixed_length",
        )
    return value


def _decode_same_size(elements: Elements, out_dtype: np.dtype) -> np.ndarray:
    """TF's ``DecodeRaw``: all elements must share one length, a multiple of the item size."""
    count = elements.count
    lengths = elements.lengths
    if lengths is not None and count > 1:
        differing = np.flatnonzero(lengths != lengths[0])
        if differing.size:
            index = int(differing[0])
            longest = int(lengths.max())
            size = out_dtype.itemsize
            raise DecodeError(
                "DecodeRaw requires input strings to all be the same size, but element "
                f"{index} has size {int(lengths[0])} != {int(lengths[index])} (set fixed_length "
                f"to pad or truncate every element to one length, e.g. "
                f"fixed_length={max(size, -(-longest // size) * size)})",
                field="fixed_length",
            )
    if count == 0:
        length = 0
    elif lengths is None:
        length = elements.width
    else:
        length = int(lengths[0])
    if length == 0:
        return _empty(elements, out_dtype)
    size = out_dtype.itemsize
    if length % size:
        raise DecodeError(
            f"Input to DecodeRaw has length {length} that is not a multiple of {size}, the size "
            f"of {tf_name(out_dtype)} (choose a record size or fixed_length that is a multiple "
            f"of {size})",
            field="fixed_length",
        )
    if elements.raw is not None:
        return _view_bytes(elements.raw[..., :length], out_dtype)
    check_copy_budget(
        count * length, f"joining {count} input elements into one buffer",
        "decode fewer elements at a time", field="files",
    )
    joined = np.frombuffer(b"".join(elements.items or ()), dtype=np.uint8)
    return _view_bytes(joined.reshape(elements.shape + (length,)), out_dtype)


def _decode_padded(elements: Elements, out_dtype: np.dtype, fixed_length: int) -> np.ndarray:
    """TF's ``DecodePaddedRaw``: truncate or zero-pad each element to ``fixed_length`` bytes."""
    count = elements.count
    width = fixed_length // out_dtype.itemsize
    if count == 0:
        return np.zeros(elements.shape + (width,), out_dtype)
    raw = elements.raw
    if raw is not None and fixed_length <= elements.width:
        # Truncation is a slice. For S arrays the bytes after a stripped item are NULs, so the
        # raw slice equals the zero-padded item too.
        return _view_bytes(raw[..., :fixed_length], out_dtype)
    check_copy_budget(
        count * fixed_length, f"padding to fixed_length {fixed_length}",
        "choose a smaller fixed_length", field="fixed_length",
    )
    if raw is not None:
        # every byte is written below, so a recycled buffer (core.decode.output_pool) will do
        padded = output_buffer(count * fixed_length).reshape(elements.shape + (fixed_length,))
        _copy_padded(raw, padded)
    else:
        padded = np.zeros(elements.shape + (fixed_length,), dtype=np.uint8)
        rows = padded.reshape(count, fixed_length)
        for row, item in zip(rows, elements.items or ()):
            chunk = item[:fixed_length]
            row[: len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
    return _view_bytes(padded, out_dtype)


#: Rows copied per step of :func:`_copy_padded` (about 4 MiB of output: the written pages are
#: still in the caches when their padding is zeroed).
_PAD_STEP_BYTES = 4 << 20
#: Outputs at least this large are filled by two threads.
_PAD_PARALLEL_BYTES = 16 << 20


def _copy_padded(raw: np.ndarray, padded: np.ndarray) -> None:
    """Fill the fresh (uninitialised) ``padded`` with ``raw`` followed by zero bytes.

    Only the padding columns are zeroed, and a large output is filled by two threads: most of
    the cost is the first touch of the new pages (page faults), which runs in parallel; numpy
    releases the GIL while copying.
    """
    width, fixed_length = raw.shape[-1], padded.shape[-1]
    count = padded.size // fixed_length
    try:
        rows_in = np.reshape(raw, (count, width), copy=False)
    except ValueError:  # a raw view that cannot be flattened to rows: one copy, one thread
        padded[..., :width] = raw
        padded[..., width:] = 0
        return
    rows_out = padded.reshape(count, fixed_length)
    step = max(1, _PAD_STEP_BYTES // fixed_length)

    def fill(start: int, stop: int) -> None:
        for low in range(start, stop, step):
            high = min(stop, low + step)
            rows_out[low:high, :width] = rows_in[low:high]
            rows_out[low:high, width:] = 0

    if padded.nbytes < _PAD_PARALLEL_BYTES:
        fill(0, count)
        return
    half = count // 2
    errors: list[BaseException] = []

    def fill_second_half() -> None:
        try:
            fill(half, count)
        except BaseException as error:  # re-raised in the caller's thread below
            errors.append(error)

    helper = threading.Thread(target=fill_second_half, name="decode-pad")
    helper.start()
    try:
        fill(0, half)
    finally:
        helper.join()
    if errors:
        raise errors[0]


def _empty(elements: Elements, out_dtype: np.dtype) -> np.ndarray:
    """``S + (0,)`` output; a (memory-less) view of the input buffer when there is one."""
    if elements.raw is not None:
        try:
            return elements.raw[..., :0].view(out_dtype)
        except ValueError:
            pass
    return np.empty(elements.shape + (0,), out_dtype)


#: Largest bool input, in bytes, scanned for bytes above 1 (and normalised when it holds any).
#: Above it decoding returns the view unscanned, so that opening a huge file stays O(1).
BOOL_SCAN_LIMIT_BYTES = 16 << 20


def _any_byte_above_one(u8: np.ndarray, chunk: int = 1 << 24) -> bool:
    """Whether some byte is > 1, scanning in chunks and stopping at the first one.

    Garbage decoded as bool (the usual case when guessing a layout) answers after the first
    chunk instead of reading a whole large file; only all-0/1 data is read to its end.
    """
    if not u8.size:
        return False
    if not u8.flags.c_contiguous:
        return int(u8.max()) > 1
    flat = u8.reshape(-1)
    return any(int(flat[start : start + chunk].max()) > 1 for start in range(0, flat.size, chunk))


def _view_bytes(u8: np.ndarray, out_dtype: np.dtype) -> np.ndarray:
    """View ``S + (L,)`` bytes as ``S + (L // itemsize,)`` values, copying only when unavoidable."""
    if out_dtype.kind == "b":
        if u8.size <= BOOL_SCAN_LIMIT_BYTES and _any_byte_above_one(u8):
            # A numpy bool must hold 0 or 1; TF's bool is "any nonzero byte".
            check_copy_budget(
                u8.size, "normalising bool bytes (any nonzero byte is True)",
                "decode fewer bytes as bool, or choose uint8", field="dtype",
            )
            normalised = np.empty(u8.shape, dtype=np.bool_)
            np.not_equal(u8, 0, out=normalised)
            return normalised
        return u8.view(np.bool_)
    if out_dtype.itemsize > 1 and u8.strides[-1] != 1:
        check_copy_budget(
            u8.size, "making strided input bytes contiguous",
            "pass a uint8 array whose last axis is contiguous", field="files",
        )
        u8 = np.ascontiguousarray(u8)
    return u8.view(out_dtype)
