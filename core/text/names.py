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

Credentials never reach the screen: :func:`printable_name` (and so every message, title and
step line that names a file) masks what a URL carries for authentication, the user and password
before its host (``https://***@host/...``) and the values of query parameters that sign or
authorise a request (``X-Amz-Signature=***``, ``token=***``: :data:`SECRET_PARAMETERS`);
:func:`mask_credentials` is that rule alone, :func:`has_credentials` says whether a URL carries any.
"""

from __future__ import annotations

import difflib
import heapq
import os
import re
import unicodedata
from collections.abc import Sequence

__all__ = ["MAX_NAMES_COMPARED", "NAME_KEY_CHARS", "SECRET_PARAMETERS", "SHORT_NAME_CHARS", "closest_names",
           "has_credentials", "mask_credentials", "natural_key", "printable_name", "short_name"]

#: Most names :func:`closest_names` compares with (the first ones of the list).
MAX_NAMES_COMPARED = 20_000
#: Characters of a name compared: its first and last half of this.
NAME_KEY_CHARS = 256
#: Longest name :func:`short_name` quotes whole.
SHORT_NAME_CHARS = 80

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

#: Query parameters whose values authorise a request (lower case; masked in every name shown).
SECRET_PARAMETERS = ("x-amz-signature", "x-amz-credential", "x-amz-security-token", "x-goog-signature",
                     "x-goog-credential", "signature", "sig", "token", "access_token", "api_key", "apikey",
                     "key", "password", "secret", "auth")
_USER_INFO = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://)([^/?#@\s]*)@")
_QUERY_SECRET = re.compile(r"([?&;](?:" + "|".join(re.escape(p) for p in SECRET_PARAMETERS) + r")=)([^&#\s]*)",
                           re.IGNORECASE)


_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple:
    """Sort key: runs of digits compare as numbers (``layer2`` < ``layer10``), the rest as text
    without case; names equal so are then ordered by their exact text (the order is total)."""
    parts = _DIGITS.split(text)
    return tuple(int(part) if i % 2 else part.lower() for i, part in enumerate(parts)), text


def mask_credentials(text: str) -> str:
    """``text`` with every URL's user information and secret query values replaced by ``***``."""
    if "://" not in text and "=" not in text:
        return text
    text = _USER_INFO.sub(lambda m: m[1] + "***@", text)
    return _QUERY_SECRET.sub(lambda m: m[1] + ("***" if m[2] else ""), text)


def has_credentials(url: str) -> bool:
    """Whether a URL carries user information or a secret query parameter."""
    return mask_credentials(url) != url


def printable_name(name: str | os.PathLike) -> str:
    """``name`` with control and line-separator characters escaped (see the module docstring)."""
    text = os.fspath(name)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    text = mask_credentials(text)
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
