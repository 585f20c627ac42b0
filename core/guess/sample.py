"""The bounded sample a guess looks at: the start, the middle and the end of one file.

Rule: at most :data:`HEAD_BYTES` + :data:`BODY_BYTES` + :data:`TAIL_BYTES` bytes are read, through
:meth:`core.files.sources.FileSource.bytes_at` (a copy, guarded against a shrinking file), so a
1 TiB file costs what a 1 MiB one does. A file smaller than the three together is read whole.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.files.sources import FileSource

__all__ = ["BODY_BYTES", "HEAD_BYTES", "TAIL_BYTES", "Sample", "read_sample"]

#: Bytes read from the start (headers, record markers).
HEAD_BYTES = 64 * 1024
#: Bytes read from the middle: the values every type is scored on.
BODY_BYTES = 256 * 1024
#: Bytes read from the end (trailers).
TAIL_BYTES = 16 * 1024


@dataclass(frozen=True)
class Sample:
    """Bytes of one file at known offsets.

    Attributes
    ----------
    size
        The file's size in bytes.
    head
        The first bytes (up to :data:`HEAD_BYTES`).
    body, body_offset
        Bytes from the middle and where they start (the whole file when it is small).
    tail
        The last bytes (up to :data:`TAIL_BYTES`).
    bytes_read
        How many bytes were read to make this sample.
    """

    size: int
    head: bytes
    body: bytes
    body_offset: int
    tail: bytes
    bytes_read: int


def read_sample(source: FileSource, index: int = 0) -> Sample:
    """Read the sample of file ``index`` of ``source``.

    Raises
    ------
    SourceError
        The source was closed.
    """
    size = source.file_size(index)
    if size <= HEAD_BYTES + BODY_BYTES + TAIL_BYTES:
        whole = source.bytes_at(index, 0, size)
        return Sample(size, whole[:HEAD_BYTES], whole, 0, whole[-TAIL_BYTES:] if whole else b"", len(whole))
    head = source.bytes_at(index, 0, HEAD_BYTES)
    # The middle, aligned to 4096 so a sparse file reads whole pages and item phases stay simple.
    body_offset = ((size - BODY_BYTES) // 2) // 4096 * 4096
    body = source.bytes_at(index, body_offset, BODY_BYTES)
    tail = source.bytes_at(index, size - TAIL_BYTES, TAIL_BYTES)
    return Sample(size, head, body, body_offset, tail, len(head) + len(body) + len(tail))
