"""Is this file a session? Told by its content (``"format": "tensor-inspector-session"``), not
by its name, so that ``tensor-inspector S.json`` opens a session and ``tensor-inspector
data.json`` still shows the bytes of any other JSON file."""

from __future__ import annotations

import re

from core.errors import SourceError
from core.files.checked_read import read_prefix

__all__ = ["SNIFF_BYTES", "looks_like_session", "read_head"]

#: Bytes read from the start of a file to tell whether it is a session.
SNIFF_BYTES = 64 * 1024
_FORMAT = re.compile(rb'"format"\s*:\s*"tensor-inspector-session"')


def looks_like_session(head: bytes) -> bool:
    """Whether ``head`` (the first bytes of a file) starts a JSON object whose ``format`` is
    ``"tensor-inspector-session"`` (the key the session writer puts first)."""
    return head.lstrip()[:1] == b"{" and _FORMAT.search(head) is not None


def read_head(path: str) -> bytes:
    """Up to :data:`SNIFF_BYTES` from the start of ``path``, read through
    :func:`core.files.checked_read.read_prefix`; ``b""`` when it is not a regular file (a FIFO or
    device is never read, even one swapped in after the check: reading could block or never end)
    or cannot be read."""
    try:
        return read_prefix(path, SNIFF_BYTES)
    except (OSError, SourceError):
        return b""
