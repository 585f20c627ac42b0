"""File names as text: one line, nothing that a terminal or a log would interpret.

A file name may contain any byte but ``/`` and NUL: newlines, tabs, escape sequences, Unicode line
separators. Printed as is, such a name can forge extra lines in text output (a fake ``source:``
step) or move a terminal's cursor. :func:`printable_name` writes every control character (Unicode
categories Cc, Cf, Zl, Zp) as a Python-style escape (``\\n``, ``\\t``, ``\\x1b``, ``\\u2028``);
every other character, including non-ASCII letters, is kept. Names that need no escaping are
returned unchanged, so ordinary output is unaffected.

:func:`closest_names` is the one rule for "no such name, did you mean ...": a container's
tensors (``--tensor``) and a session's bookmarks (``--bookmark``). It is bounded whatever the
names are: at most :data:`MAX_NAMES_COMPARED` names are considered (the first ones), each
compared by at most :data:`NAME_KEY_CHARS` characters (its head and its tail), with difflib's
cheap upper bounds first. :func:`short_name` is how a message quotes a name: escaped, in
quotes, cut in the middle past :data:`SHORT_NAME_CHARS` characters, so a message stays one
short line.
"""

from __future__ import annotations

import difflib
import heapq
import os
import unicodedata
from collections.abc import Sequence

__all__ = ["MAX_NAMES_COMPARED", "NAME_KEY_CHARS", "SHORT_NAME_CHARS", "closest_names", "printable_name",
           "short_name"]

#: Most names :func:`closest_names` compares with (the first ones of the list).
MAX_NAMES_COMPARED = 20_000
#: Characters of a name compared: its first and last half of this.
NAME_KEY_CHARS = 256
#: Longest name :func:`short_name` quotes whole.
SHORT_NAME_CHARS = 80

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


def _key(name: str) -> str:
    half = NAME_KEY_CHARS // 2
    return name if len(name) <= NAME_KEY_CHARS else name[:half] + name[-half:]


def closest_names(name: str, names: Sequence[str], count: int = 5) -> list[str]:
    """Up to ``count`` of ``names`` most like ``name``, best first (``difflib`` ratio, cutoff
    0.4, ties in list order), within the module's bounds."""
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(_key(name))
    scored = []
    for position, candidate in enumerate(names[:MAX_NAMES_COMPARED]):
        matcher.set_seq1(_key(candidate))
        if matcher.real_quick_ratio() >= 0.4 and matcher.quick_ratio() >= 0.4:
            ratio = matcher.ratio()
            if ratio >= 0.4:
                scored.append((-ratio, position, candidate))
    return [candidate for _, _, candidate in heapq.nsmallest(count, scored)]


def short_name(name: str, limit: int = SHORT_NAME_CHARS) -> str:
    """``name`` quoted for a message: :func:`printable_name`, in ``'...'``, the middle cut
    (``'abc…xyz'``, 40 characters each side) when longer than ``limit``."""
    text = printable_name(name)
    if len(text) > limit:
        half = limit // 2
        text = f"{text[:half]}…{text[-half:]} ({len(text):,} characters)"
    return f"'{text}'"
