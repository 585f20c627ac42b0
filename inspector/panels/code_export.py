"""Copy as code: numpy or TensorFlow source that reproduces the document's view.

Thin glue over :mod:`core.export.code_snippets`: it passes the document's source and its current
result (which carries the run's layout and slice spec), so nothing is opened, parsed or run
again. The snippet describes the current settings; when they are invalid (the document shows an
error and keeps its last good view), there is no snippet and the engine's message says why
(:meth:`Document.check_result_is_current`).
"""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication

from core.errors import CoreError, describe_error
from core.export.code_snippets import numpy_snippet, tensorflow_snippet
from inspector.state.document import Document

__all__ = ["SNIPPET_KINDS", "numpy_snippet_for", "tensorflow_snippet_for",
           "copy_snippet", "copy_snippet_message"]

SNIPPET_KINDS = ("numpy", "tensorflow")
_TITLES = {"numpy": "numpy", "tensorflow": "TensorFlow"}


def numpy_snippet_for(document: Document) -> str:
    """numpy source that leaves the document's current view in ``x``.

    Raises
    ------
    SourceError
        No file is open (``field="files"``).
    CoreError
        The current settings are invalid (the engine's message, e.g. a bad shape or slice).
    """
    result = document.check_result_is_current()
    return numpy_snippet(document.pipeline.source, result)


def tensorflow_snippet_for(document: Document) -> str:
    """TensorFlow source (``tf.io.decode_raw`` + ``tf.strided_slice``) for the current view.

    Raises
    ------
    SourceError
        No file is open (``field="files"``).
    CoreError
        The current settings are invalid.
    """
    result = document.check_result_is_current()
    return tensorflow_snippet(document.pipeline.source, result)


def copy_snippet(document: Document, kind: str) -> str:
    """Put the ``kind`` snippet (``"numpy"`` or ``"tensorflow"``) on the clipboard; return it.

    Raises
    ------
    ValueError
        ``kind`` is not one of :data:`SNIPPET_KINDS`.
    CoreError
        As :func:`numpy_snippet_for` (nothing is copied then).
    """
    if kind not in SNIPPET_KINDS:
        raise ValueError(f"unknown snippet kind {kind!r} (use 'numpy' or 'tensorflow')")
    text = numpy_snippet_for(document) if kind == "numpy" else tensorflow_snippet_for(document)
    QGuiApplication.clipboard().setText(text)
    return text


def copy_snippet_message(document: Document, kind: str) -> str:
    """:func:`copy_snippet`, reported as one line for the status bar (never raises a CoreError).

    Returns
    -------
    str
        ``"Copied numpy code (12 lines) to the clipboard"``, or
        ``"Cannot copy numpy code: <the engine's message>"`` (nothing copied).
    """
    title = _TITLES.get(kind, kind)
    try:
        text = copy_snippet(document, kind)
    except CoreError as error:
        return f"Cannot copy {title} code: {describe_error(error).message}"
    return f"Copied {title} code ({text.count(chr(10)) + 1} lines) to the clipboard"
