"""Argument checks of :class:`core.tflite.tensor_buffer.TensorBuffer`: shapes and byte buffers (docs/semantics.md §6).

Split from :mod:`core.tflite.tensor_buffer` to keep each module small. Both functions validate
without side effects, so a failed ``load_*`` call changes nothing.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Union

import numpy as np

from core.errors import IllegalArgumentError

__all__ = ["ShapeLike", "check_shape", "byte_view"]

ShapeLike = Union[Sequence[int], int]  # noqa: UP007 (a runtime alias: | needs 3.10 types)


def check_shape(shape: ShapeLike | None) -> tuple[int, ...]:
    """Validate a TensorBuffer shape and return it as a tuple of Python ints.

    A bare int ``n`` means ``(n,)``; ``()`` is a scalar; zeros are allowed (docs/semantics.md §6).

    Raises
    ------
    TypeError
        ``shape`` is None or holds non-integers.
    IllegalArgumentError
        A negative entry: ``Values in TensorBuffer shape should be non-negative.``
    """
    if shape is None:
        raise TypeError("TensorBuffer shape cannot be null. (pass a sequence of ints, e.g. (2, 3))")
    try:
        dims = (operator.index(shape),)
    except TypeError:
        try:
            dims = tuple(operator.index(n) for n in shape)  # type: ignore[union-attr]
        except TypeError:
            raise TypeError(
                f"TensorBuffer shape must be a sequence of ints, got {shape!r} (e.g. (2, 3))"
            ) from None
    if any(n < 0 for n in dims):
        raise IllegalArgumentError(
            "Values in TensorBuffer shape should be non-negative. "
            f"(got shape {dims}; use sizes >= 0)",
            field="shape",
        )
    return dims


def byte_view(buffer: Any) -> np.ndarray:
    """A 1-D uint8 ndarray over ``buffer``'s memory, never a copy; read-only stays read-only.

    Accepts C-contiguous bytes-like objects and C-contiguous numpy uint8/int8 arrays
    (``np.memmap`` included, viewed as a plain ndarray).

    Raises
    ------
    IllegalArgumentError
        A str, a non-bytes-like object, a typed numpy array, or non-contiguous memory.
    """
    if isinstance(buffer, np.ndarray):
        if buffer.dtype not in (np.uint8, np.int8):
            raise IllegalArgumentError(
                f"load_buffer takes bytes, got a {buffer.dtype} array (use TensorBuffer.wrap "
                "for typed arrays, or pass array.view(np.uint8) to load its raw bytes)"
            )
        if not buffer.flags.c_contiguous:
            raise IllegalArgumentError(
                "The byte buffer is not C-contiguous (pass np.ascontiguousarray(buffer), "
                "which copies)"
            )
        return np.asarray(buffer).reshape(-1).view(np.uint8)
    if isinstance(buffer, str):
        raise IllegalArgumentError(
            "load_buffer takes bytes, not str (encode the text, or use load_array for numbers)"
        )
    try:
        view = memoryview(buffer)
    except TypeError:
        raise IllegalArgumentError(
            f"load_buffer takes a bytes-like object, not {type(buffer).__name__} (pass bytes, "
            "bytearray, memoryview or a numpy uint8 array; use load_array for numbers)"
        ) from None
    if not view.c_contiguous:
        raise IllegalArgumentError(
            "The byte buffer is not C-contiguous (pass bytes(buffer), which copies)"
        )
    if view.format != "B" or view.ndim != 1:
        view = view.cast("B")
    return np.frombuffer(view, dtype=np.uint8)
