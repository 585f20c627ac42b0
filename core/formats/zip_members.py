"""Zip members used in place: where a stored member's bytes lie in the file, so a container
of zip members (a PyTorch checkpoint, a Keras file) can map them as views instead of copying.

Rule: a member is a view of the file only when it is stored (not compressed, not encrypted),
its local header is where the central directory says, and its bytes lie inside the file without
overlapping another member or the central directory; otherwise the reason is said.
"""

from __future__ import annotations

import bisect
import struct
import zipfile

from core.formats.reader import HeaderReader

__all__ = ["LOCAL_HEADER", "member_span"]

#: The signature of a zip member's local file header.
LOCAL_HEADER = b"PK\x03\x04"


def member_span(reader: HeaderReader, info: zipfile.ZipInfo, starts: list[int],
                directory: int) -> tuple[int, int] | str:
    """``(first data byte, end)`` of a zip member whose bytes are used in place (a view of the
    file), or why they cannot be: encrypted, compressed, its local header outside the file or
    missing, its data past the end or overlapping another member (``starts``: every member's
    local header offset, sorted) or the central directory (at byte ``directory``)."""
    span: tuple[int, int] | str
    if info.flag_bits & 0x1:
        span = "it is encrypted"
    elif info.compress_type != zipfile.ZIP_STORED:
        span = (f"it is compressed (zip method {info.compress_type}), so the file holds "
                "compressed bytes, not the storage's elements (torch.save never compresses; "
                "the file is hand-made)")
    elif not 0 <= info.header_offset <= reader.size - 30:
        span = f"its local header offset {info.header_offset} is outside the file (the zip is corrupt)"
    else:
        local = reader.read(info.header_offset, 30, "local file header")
        if local[:4] != LOCAL_HEADER:
            span = f"no local file header at byte {info.header_offset} (the zip is corrupt)"
        else:
            name_length, extra_length = struct.unpack("<HH", local[26:30])
            start = info.header_offset + 30 + name_length + extra_length
            end = start + info.file_size
            later = bisect.bisect_right(starts, info.header_offset)
            if end > reader.size:
                span = (f"its {info.file_size} bytes from byte {start} reach past the end of the "
                        f"file ({reader.size} bytes): the file is truncated")
            elif (later < len(starts) and starts[later] < end) or \
                    starts.count(info.header_offset) > 1 or \
                    (info.header_offset < directory < end):
                span = (f"its bytes {start} to {end} overlap another member of the zip (a "
                        "hand-made or corrupt file)")
            else:
                span = (start, end)
    return span
