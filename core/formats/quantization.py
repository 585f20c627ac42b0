"""Affine quantization: the one rule every format's *dequantized* entry follows.

Rules
-----
- ``real = scale * (q - zero_point)``, with one ``(scale, zero_point)`` for the whole tensor, or
  one per index of the quantized axis (per channel, broadcast along it). The product is computed
  in float64 and rounded once to float32, as TFLite's Dequantize kernel does. For a float32
  scale and ``|q - zero_point| < 2**29`` the float64 product is exact, so this is the correctly
  rounded float32 product ``float32(scale) * float32(q - zero_point)`` that ONNX Runtime's
  DequantizeLinear computes (a PyTorch scale is a float64: see docs/containers.md for how
  ``torch.Tensor.dequantize`` compares).
- A format that finds a quantization (:func:`checked_quantization`: scales and zero points whose
  count is 1 or the axis' length, at most :data:`MAX_CHANNELS`) puts it on the integer entry
  (:attr:`~core.formats.entry.TensorEntry.quantization`) and lists, right after it, the
  *computed* entry :func:`dequantized_entry` named ``NAME (dequantized)``: float32, the same
  quantization, and the integers' offset, length, strides, byte order and file (explicit layout
  options show those bytes raw).
- Its values come from its format's one ``values`` hook, which hands the integers to
  :func:`dequantized_values` (:func:`stored_integers` reads them for an entry whose integers are
  a view of its file): a budget-checked copy (the integers, the float64 work array and the
  float32 result).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from core.budget import check_copy_budget
from core.dtypes.table import resolve_dtype
from core.errors import ContainerError
from core.files.sources import Source
from core.formats.entry import ContainerListing, EntryValues, Quantization, Storage, TensorEntry
from core.text.names import printable_name

__all__ = ["DEQUANTIZED_SUFFIX", "MAX_CHANNELS", "checked_quantization", "dequantize_affine",
           "dequantized_entry", "dequantized_of", "dequantized_values", "is_dequantized", "stored_integers", "view_array"]

#: What a dequantized entry's name adds to its integer entry's name.
DEQUANTIZED_SUFFIX = " (dequantized)"
#: Most (scale, zero point) pairs one quantization may hold (a per-channel axis longer than
#: this is listed without its quantization, with a note).
MAX_CHANNELS = 1 << 20
#: Integer types a quantization applies to.
QUANTIZED_TYPES = ("int8", "uint8", "int16", "uint16", "int32", "int64", "int4", "uint4")


def checked_quantization(scale: Sequence[float], zero_point: Sequence[int], axis: int | None,
                         stored_dtype: str, shape: tuple[int, ...]) -> Quantization | str:
    """The :class:`Quantization` of integers of ``shape``, or why these parameters cannot be
    one (a sentence for the entry's ``quantization`` extra).

    Rules: at least one scale; no zero point means 0; the counts are 1 or the length of
    ``axis`` (which must be a dimension of ``shape``; negative counts from the end), at most
    :data:`MAX_CHANNELS`; one scale and one zero point give ``axis`` None (per tensor).
    """
    if stored_dtype not in QUANTIZED_TYPES:
        return f"its type {stored_dtype} is not an integer type a quantization applies to"
    if not scale:
        return "it has no scale"
    if len(scale) > MAX_CHANNELS or len(zero_point) > MAX_CHANNELS:
        return f"it has more than {MAX_CHANNELS} scales or zero points"
    zeros = tuple(int(z) for z in zero_point) or (0,)
    scales = tuple(float(s) for s in scale)
    channels = max(len(scales), len(zeros))
    if channels == 1:
        return Quantization(scales, zeros, None, stored_dtype)
    if axis is not None and -len(shape) <= axis < 0:
        axis += len(shape)
    if axis is None or not 0 <= axis < len(shape) or shape[axis] != channels \
            or len(scales) not in (1, channels) or len(zeros) not in (1, channels):
        return (f"its {len(scales)} scales and {len(zeros)} zero points do not fit axis {axis} of its "
                f"shape {shape} (a corrupt quantization)")
    return Quantization(scales, zeros, axis, stored_dtype)


def dequantized_entry(entry: TensorEntry) -> TensorEntry:
    """The computed float32 entry listed after the quantized integer entry ``entry`` (module
    rules): ``NAME (dequantized)``, the same quantization, the integers' bytes."""
    return replace(entry, name=entry.name + DEQUANTIZED_SUFFIX, dtype="float32", storage=Storage.COMPUTED,
                   stored_type=f"{entry.stored_type}, dequantized", shares=None, problem=None,
                   extras=dict(entry.extras, dequantized="scale * (q - zero point)"))


def dequantized_of(listing: ContainerListing, entry: TensorEntry) -> TensorEntry | None:
    """The dequantized entry of the quantized ``entry`` of ``listing`` (the entry named
    ``NAME (dequantized)`` with its quantization); ``entry`` itself when it is one already;
    None when it has none (not quantized, or its integers cannot be shown)."""
    if entry.quantization is None:
        return None
    if is_dequantized(entry):
        return entry
    name = entry.name + DEQUANTIZED_SUFFIX
    return next((e for e in listing.entries if e.name == name and is_dequantized(e)
                 and e.quantization == entry.quantization), None)


def is_dequantized(entry: TensorEntry | None) -> bool:
    """Whether ``entry`` is a dequantized entry (:func:`dequantized_entry`)."""
    return entry is not None and entry.quantization is not None and entry.storage is Storage.COMPUTED


def view_array(data: bytes, dtype_name: str, little_endian: bool, shape: tuple[int, ...],
               strides: tuple[int, ...] | None, name: str) -> np.ndarray:
    """The elements of ``shape`` that ``data`` (an entry's stored bytes from its offset) holds in
    C order, or at the element ``strides`` (a read-only view of ``data``).

    Raises
    ------
    ContainerError
        ``field="tensor"``: the elements reach past ``data`` (a file changed since it was listed).
    """
    dtype = resolve_dtype(dtype_name).newbyteorder("<" if little_endian else ">")
    flat = np.frombuffer(data, dtype, count=len(data) // dtype.itemsize)
    count = math.prod(shape)
    if strides is None:
        if flat.size < count:
            raise ContainerError(f"'{printable_name(name)}' has {flat.size} stored elements, not the "
                                 f"{count} of its shape {shape} (list the file again)", field="tensor")
        return flat[:count].reshape(shape)
    reach = 0 if count == 0 else 1 + sum((d - 1) * s for d, s in zip(shape, strides))
    if any(s < 0 for s in strides) or reach > flat.size:
        raise ContainerError(f"the strides {strides} of '{printable_name(name)}' reach past its "
                             f"{flat.size} stored elements (list the file again)", field="tensor")
    return np.lib.stride_tricks.as_strided(flat, shape, [s * dtype.itemsize for s in strides], writeable=False)


def stored_integers(source: Source, entry: TensorEntry) -> np.ndarray:
    """The stored integers of a dequantized entry whose integers are a view of its file
    (``source``: that file), read with ``pread`` (:func:`view_array`: their byte order, C order
    or :attr:`~core.formats.entry.TensorEntry.strides`; a copy of ``entry.nbytes`` bytes, the
    caller checks the budget).

    Raises
    ------
    ContainerError
        ``field="tensor"``: the integers reach past the stored bytes (list the file again).
    """
    quant = entry.quantization
    assert quant is not None
    data = source.read_exact(0, entry.offset, entry.nbytes, f"the integers of '{printable_name(entry.name)}'")
    return view_array(data, quant.stored_dtype, entry.little_endian, entry.shape, entry.strides, entry.name)


def dequantized_values(source: Source, entry: TensorEntry,
                       integers: Callable[[Source, TensorEntry], np.ndarray] | None = None) -> EntryValues:
    """A dequantized entry's float32 values (module rules): of the integers ``integers(source,
    entry)`` reads (its format's decoder), else :func:`stored_integers` (``source``: the file
    the entry lives in); the budget is checked before they are read.

    Raises
    ------
    ContainerError
        ``field="tensor"``: not a dequantized entry, or its quantization does not fit.
    BudgetError
        The integers, the float64 work array and the float32 result exceed the copy budget.
    """
    quant = entry.quantization
    if quant is None or entry.storage is not Storage.COMPUTED:
        raise ContainerError(f"'{printable_name(entry.name)}' is not a dequantized tensor (open it "
                             "directly: its values are stored as they are)", field="tensor")
    count = math.prod(entry.shape)
    check_copy_budget(entry.nbytes + count * 12, f"dequantizing '{printable_name(entry.name)}'",
                      "open a smaller tensor", field="tensor")
    q = (integers or stored_integers)(source, entry)
    values = dequantize_affine(q, quant.scale, quant.zero_point, quant.axis, f"'{printable_name(entry.name)}'")
    stored = entry.stored_type.split(",")[0]
    along = "" if quant.axis is None else f" per channel along axis {quant.axis}"
    return EntryValues(values, f"from {stored}",
                       f"'{printable_name(entry.name)}': scale * (q - zero point) of its {stored} values{along}, "
                       f"float32, a copy of {values.nbytes} bytes; its values are computed, not stored at a "
                       "file offset")


def dequantize_affine(q: np.ndarray, scale: Sequence[float], zero_point: Sequence[int],
                      axis: int | None, what: str) -> np.ndarray:
    """The float32 values of the integers ``q`` (module rule); ``axis`` is used when there are
    several scales.

    Raises
    ------
    ContainerError
        ``field="tensor"``: the counts do not fit the tensor (names ``what``).
    BudgetError
        The float64 work array and the float32 result exceed the copy budget.
    """
    scales = np.asarray(scale, dtype=np.float64).reshape(-1)
    zeros = np.asarray(zero_point, dtype=np.float64).reshape(-1)
    if zeros.size == 0:
        zeros = np.zeros(1)
    if scales.size == 0:
        raise ContainerError(f"{what} has no quantization scale: it is not quantized", field="tensor")
    shape = [1] * q.ndim
    channels = max(scales.size, zeros.size)
    if channels > 1:
        if axis is None or not 0 <= axis < q.ndim or q.shape[axis] != channels \
                or scales.size not in (1, channels) or zeros.size not in (1, channels):
            raise ContainerError(
                f"{what} has {scales.size} scales and {zeros.size} zero points, which do not fit "
                f"axis {axis} of its shape {q.shape} (a corrupt quantization)", field="tensor")
        shape[axis] = channels
    check_copy_budget(q.size * 12, f"dequantizing {what}", "open a smaller tensor", field="tensor")
    real = scales.reshape(shape if scales.size > 1 else [1] * q.ndim) * (
        q.astype(np.float64) - zeros.reshape(shape if zeros.size > 1 else [1] * q.ndim))
    return real.astype(np.float32)
