"""File names as text: one line, nothing that a terminal or a log would interpret.

A file name may contain any byte but ``/`` and NUL: newlines, tabs, escape sequences, Unicode line
separators. Printed as is, such a name can forge extra lines in text output (a fake ``source:``
step) or move a terminal's cursor. :func:`printable_name` writes every control character (Unicode
categories Cc, Cf, Zl, Zp) as a Python-style escape (``\\n``, ``\\t``, ``\\x1b``, ``\\u2028``);
every other character, including non-ASCII letters, is kept. Names that need no escaping are
returned unchanged, so ordinary output is unaffected.

:func:`closest_names` is the one rule for "no such name, did you mean ...": a container's
tensors (``--tensor``) and a session's bookmarks (``--bookmark``).
"""

from __future__ import annotations

import difflib
import os
import unicodedata
from collections.abc import Sequence

__all__ = ["closest_names", "printable_name"]

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable_name(name: str | os.PathLike) -> str:
    """``name`` with control and line-separator characters escaped (see the module docstring)."""
    text = os.fspath(name)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if text.isprintable():
        return text
    return "".join(_escape(ch) for ch in text)


def _escape(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs"):
        code = ord(ch)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
    return ch


def closest_names(name: str, names: Sequence[str], count: int = 5) -> list[str]:
    """Up to ``count`` of ``names`` most like ``name``, best first (``difflib``, cutoff 0.4)."""
    return difflib.get_close_matches(name, list(names), n=count, cutoff=0.4)
