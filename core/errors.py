"""Error types of the engine (docs/semantics.md, "Errors").

Every engine error is a :class:`CoreError` (a ``ValueError``); the only exception is an element
index out of range, which is a plain ``IndexError``. Messages follow TensorFlow's wording where
TensorFlow has one, and end with the fix in parentheses.

Each error may name the parameter responsible (``field``) so that a GUI can show the message next
to the widget that edits it. Field names are those of :class:`core.pipeline.pipeline.DecodeParams` plus
``"files"``, ``"slice"`` and ``"view_as"``.
"""

from __future__ import annotations


class CoreError(ValueError):
    """Base class of every engine error.

    Parameters
    ----------
    message
        What is wrong and how to fix it.
    field
        The parameter responsible (``"dtype"``, ``"fixed_length"``, ``"offset"``,
        ``"record_size"``, ``"shape"``, ``"view_as"``, ``"slice"``, ``"files"``), or ``None``.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class DecodeError(CoreError):
    """``tf.io.decode_raw`` refused its input (docs/semantics.md §2)."""


class SourceError(CoreError):
    """A file cannot serve as a source: missing, unreadable, not a regular file, bad offset... (docs/semantics.md §3)."""


class ShapeError(CoreError):
    """A target shape does not fit the decoded values (``tf.reshape`` rules)."""


class SliceError(CoreError):
    """``tf.strided_slice`` refused the spec, or a slice expression does not parse (docs/semantics.md §4, §5)."""


class TensorBufferError(CoreError):
    """TFLite Support's ``IllegalArgumentException`` / ``IllegalStateException`` (docs/semantics.md §6)."""


class BudgetError(CoreError):
    """An operation would copy more bytes than the memory budget allows."""


class IllegalArgumentError(TensorBufferError):
    """TFLite's ``IllegalArgumentException``: an argument is invalid (bad shape, size, type).

    Raised by :class:`core.dtypes.data_type.DataType` and the TensorBuffer port; it lives here,
    with every engine error, so that the type table needs nothing from :mod:`core.tflite`.
    """


class IllegalStateError(TensorBufferError):
    """TFLite's ``IllegalStateException``: the buffer is in a state that forbids the call.

    No code path of the current port raises it (every check TFLite Support makes on these calls is
    a ``checkArgument``); it exists so that callers can catch the full Java vocabulary.
    """
