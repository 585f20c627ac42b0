"""Exceptions of the TensorBuffer port (docs/semantics.md §6, "Errors").

TFLite Support throws ``IllegalArgumentException`` and ``IllegalStateException``; here they are
:class:`IllegalArgumentError` and :class:`IllegalStateError`, both :class:`core.errors.
TensorBufferError` and therefore ``ValueError``. Two Java failures map to built-in Python
exceptions instead: a ``null`` argument (``NullPointerException`` from ``checkNotNull``) is a
``TypeError``, and an element index out of range is an ``IndexError``.

They are defined in :mod:`core.errors` with every engine error (so that
:mod:`core.dtypes.data_type` can raise them without importing :mod:`core.tflite`); this module
re-exports them for the TensorBuffer port, and :mod:`core.tflite.tensor_buffer` re-exports them too.
"""

from __future__ import annotations

from core.errors import IllegalArgumentError, IllegalStateError

__all__ = ["IllegalArgumentError", "IllegalStateError"]
