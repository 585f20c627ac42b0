"""Is this file a session? Told by its content (``"format": "tensor-inspector-session"``), not
by its name, so that ``tensor-inspector S.json`` opens a session and ``tensor-inspector
data.json`` still shows the bytes of any other JSON file."""

from __future__ import annotations

import os
import re
import stat

__all__ = ["SNIFF_BYTES", "looks_like_session", "read_head"]

#: Bytes read from the start of a file to tell whether it is a session.
SNIFF_BYTES = 64 * 1024
_FORMAT = re.compile(rb'"format"\s*:\s*"tensor-inspector-session"')


def looks_like_session(head: bytes) -> bool:
    """Whether ``head`` (the first bytes of a file) starts a JSON object whose ``format`` is
    ``"tensor-inspector-session"`` (the key the session writer puts first)."""
    return head.lstrip()[:1] == b"{" and _FORMAT.search(head) is not None


def read_head(path: str) -> bytes:
    """Up to :data:`SNIFF_BYTES` from the start of ``path``; ``b""`` when it is not a regular
    file (a FIFO or device is never opened: reading one could block or never end) or cannot be
    read."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return b""
        with open(path, "rb") as file:
            return file.read(SNIFF_BYTES)
    except OSError:
        return b""
