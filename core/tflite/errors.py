"""Exceptions of the TensorBuffer port (docs/semantics.md §6, "Errors").

TFLite Support throws ``IllegalArgumentException`` and ``IllegalStateException``; here they are
:class:`IllegalArgumentError` and :class:`IllegalStateError`, both :class:`core.errors.
TensorBufferError` and therefore ``ValueError``. Two Java failures map to built-in Python
exceptions instead: a ``null`` argument (``NullPointerException`` from ``checkNotNull``) is a
``TypeError``, and an element index out of range is an ``IndexError``.

They live in their own module so that :mod:`core.dtypes.data_type`, :mod:`core.tflite.conversions` and
:mod:`core.tflite.tensor_buffer` can all raise them without importing one another in a cycle;
:mod:`core.tflite.tensor_buffer` re-exports them.
"""

from __future__ import annotations

from core.errors import TensorBufferError

__all__ = ["IllegalArgumentError", "IllegalStateError"]


class IllegalArgumentError(TensorBufferError):
    """TFLite's ``IllegalArgumentException``: an argument is invalid (bad shape, size, type)."""


class IllegalStateError(TensorBufferError):
    """TFLite's ``IllegalStateException``: the buffer is in a state that forbids the call.

    No code path of the current port raises it (every check TFLite Support makes on these calls is
    a ``checkArgument``); it exists so that callers can catch the full Java vocabulary.
    """
