"""Normalise ``decode_raw``'s ``input_bytes`` into input elements (docs/semantics.md §2).

TF's ``decode_raw`` takes a string tensor. We accept what ``tf.constant`` turns into one, plus a
zero-copy form for memory-mapped files:

- a scalar ``bytes`` / ``bytearray`` / ``memoryview`` (or any buffer): one element of shape
  ``()``, read through ``np.frombuffer`` (a view, no copy);
- a ``str``: one element, UTF-8 encoded (this necessarily makes new bytes);
- nested lists / tuples of those, any rank, zero-size dimensions allowed; a non-rectangular nest
  is refused with TF's ``Can't convert non-rectangular Python sequence to Tensor.``;
- a numpy ``object`` or ``U`` array of those, any rank (its shape is kept, zero sizes included);
- a numpy ``S`` array, any rank. numpy cannot represent trailing NUL bytes in an ``S`` item
  (``np.array([b"a\\0"])[0] == b"a"``), and TF's own conversion of an ``S`` array reads items the
  same way, so **an element of an ``S`` array is its item with trailing NULs stripped**, exactly as
  ``tf.constant(arr)`` sees it. The raw ``itemsize`` buffer is still used without copying: the
  stripped bytes are zeros, so truncating or padding the raw buffer gives the same bytes. To decode
  the raw fixed-width records instead, pass ``arr[..., None].view(np.uint8)`` (the uint8 path).
  A numpy ``np.bytes_`` scalar is a 0-d ``S`` array, read the same way (``np.bytes_(b"ab\\0")``
  is the element ``b"ab"``, as numpy and ``tf.constant`` see it);
- a numpy ``uint8`` array of shape ``(..., L)``: elements of exactly ``L`` bytes, input shape
  ``(...)``. This is the zero-copy path used for memory-mapped files.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.errors import DecodeError

__all__ = ["Elements", "as_elements"]

_SEQUENCES = (list, tuple)


@dataclass(frozen=True)
class Elements:
    """Input elements of ``decode_raw`` in one of two layouts.

    Attributes
    ----------
    shape
        The input shape ``S`` (the string tensor's shape).
    raw
        A ``uint8`` array of shape ``S + (W,)`` (often a view of the caller's buffer) holding
        element ``i`` in ``raw[i, :length_i]`` with zeros after it; ``None`` for ``items``.
    items
        Flat C-order list of ``bytes``-like elements (lists and object arrays); ``None`` for ``raw``.
    lengths
        Flat C-order element lengths, or ``None`` when every element has length ``W``
        (the ``raw`` of a ``uint8`` array or bytes scalar).
    """

    shape: tuple[int, ...]
    raw: np.ndarray | None = None
    items: list | None = None
    lengths: np.ndarray | None = None

    @property
    def count(self) -> int:
        """Number of elements (the product of ``shape``)."""
        return math.prod(self.shape)

    @property
    def width(self) -> int:
        """``W``: the raw buffer's bytes per element (``raw`` layout only)."""
        assert self.raw is not None
        return int(self.raw.shape[-1])


def as_elements(input_bytes: object) -> Elements:
    """Convert ``input_bytes`` (see the module docstring) into :class:`Elements` without copying
    buffers (a ``str`` is encoded, list items are referenced, ``S``/``uint8`` arrays are viewed).

    Raises
    ------
    DecodeError
        A non-rectangular nest, an element that is neither bytes nor str, a numeric array other
        than ``uint8``, or a 0-d ``uint8`` array.
    """
    if isinstance(input_bytes, np.ndarray):
        return _from_array(input_bytes)
    if isinstance(input_bytes, np.bytes_):
        return _from_array(np.asarray(input_bytes))  # a 0-d ``S`` item: trailing NULs stripped
    if isinstance(input_bytes, str):
        return _from_scalar_buffer(input_bytes.encode("utf-8"))
    if isinstance(input_bytes, _SEQUENCES):
        shape, items = _flatten_nest(input_bytes)
        return _from_items(shape, items)
    try:
        memoryview(input_bytes)  # type: ignore[arg-type]
    except TypeError:
        raise DecodeError(
            f"input_bytes is {type(input_bytes).__name__}, not bytes, str, a nested list of them "
            "or a numpy bytes/uint8 array (pass the raw bytes, e.g. open(path, 'rb').read())",
        ) from None
    return _from_scalar_buffer(input_bytes)


def _from_scalar_buffer(buffer: object) -> Elements:
    try:
        raw = np.frombuffer(buffer, dtype=np.uint8)  # type: ignore[call-overload]
    except (TypeError, ValueError, BufferError):
        raw = np.frombuffer(bytes(buffer), dtype=np.uint8)  # type: ignore[call-overload]
    return Elements(shape=(), raw=raw)


def _from_array(array: np.ndarray) -> Elements:
    kind = array.dtype.kind
    if array.dtype == np.uint8:
        if array.ndim == 0:
            raise DecodeError(
                "a uint8 array needs a last dimension holding each element's bytes "
                "(pass shape (L,) for one element of L bytes)",
            )
        return Elements(shape=tuple(array.shape[:-1]), raw=array)
    if kind == "S":
        raw = array[..., np.newaxis].view(np.uint8)
        return Elements(shape=tuple(array.shape), raw=raw, lengths=_stripped_lengths(raw))
    if kind in "UO":
        items = [_to_bytes(item, index) for index, item in enumerate(array.flat)]
        return _from_items(tuple(array.shape), items)
    raise DecodeError(
        f"input_bytes is a {array.dtype} array; decode_raw takes strings (pass a uint8 array of "
        "shape (..., L) for elements of L bytes, e.g. arr.view(np.uint8))",
    )


def _stripped_lengths(raw: np.ndarray) -> np.ndarray:
    """Length of each ``S`` item once its trailing NULs are stripped (flat, C order)."""
    width = raw.shape[-1]
    flat = raw.reshape(-1, width) if raw.size else np.zeros((0, width), np.uint8)
    nonzero = flat != 0
    last = width - np.argmax(nonzero[:, ::-1], axis=1)
    return np.where(nonzero.any(axis=1), last, 0).astype(np.int64)


def _from_items(shape: tuple[int, ...], items: list) -> Elements:
    lengths = np.fromiter((len(item) for item in items), dtype=np.int64, count=len(items))
    return Elements(shape=shape, items=items, lengths=lengths)


def _to_bytes(item: object, index: int) -> bytes | bytearray:
    if isinstance(item, (bytes, bytearray)):
        return item
    if isinstance(item, str):
        return item.encode("utf-8")
    if isinstance(item, memoryview):
        return item.tobytes()
    raise DecodeError(
        f"element {index} of input_bytes is {type(item).__name__}, not bytes or str "
        "(decode_raw takes a string tensor: pass bytes, str or nested lists of them)",
    )


def _ragged() -> DecodeError:
    return DecodeError(
        "Can't convert non-rectangular Python sequence to Tensor. "
        "(every list at one nesting level must have the same length; "
        "decode elements of different lengths with fixed_length)",
    )


def _flatten_nest(nest: list | tuple) -> tuple[tuple[int, ...], list]:
    """Shape and flat C-order leaves of a rectangular nest of lists (TF's conversion rules)."""
    shape: list[int] = []
    probe: object = nest
    while isinstance(probe, _SEQUENCES):
        shape.append(len(probe))
        if not probe:
            break
        probe = probe[0]
    items: list = []

    def walk(node: object, depth: int) -> None:
        if depth == len(shape):
            if isinstance(node, _SEQUENCES):
                raise _ragged()
            if isinstance(node, np.ndarray) and node.dtype.kind in "SUO" and node.ndim == 0:
                node = node.item()
            items.append(_to_bytes(node, len(items)))
            return
        if not isinstance(node, _SEQUENCES) or len(node) != shape[depth]:
            raise _ragged()
        for child in node:
            walk(child, depth + 1)

    walk(nest, 0)
    return tuple(shape), items
