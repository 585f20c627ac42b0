"""The bounded samples a guess looks at: the start, the middle and the end of one file, or
records spread over it.

Rules: every byte is read through :meth:`core.files.source.Source.bytes_at` (a copy, guarded
against a shrinking file), so a 1 TiB file costs what a 1 MiB one does.

- :func:`read_sample` (a raw guess): at most :data:`HEAD_BYTES` + :data:`BODY_BYTES` +
  :data:`TAIL_BYTES` bytes. A file smaller than the three together is read whole.
- :func:`read_record_sample` (checking a record layout): pieces of the file in which every
  header offset finds whole records. The first piece starts at byte 0 and holds
  :data:`RECORD_HEAD_BYTES` bytes (where headers are looked for) plus one span; then
  :data:`RECORD_PIECES` - 1 spans spread evenly to the end of the file (each starting on a
  4096-byte boundary, so a sparse file reads whole pages), and one span at the header given
  when the first piece does not reach it. A span is ``per_piece + 1`` records, so records
  starting at any byte fill ``per_piece`` of them; ``per_piece`` shares
  :data:`RECORD_SAMPLE` records among the pieces, fewer when the records are so large that the
  sample would pass :data:`RECORD_READ_BYTES` bytes. Records larger than
  :data:`MAX_CHECKED_RECORD` are not sampled (fewer than two would fit each span). A file no
  larger than the pieces together is read whole. Overlapping pieces are read once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.errors import CoreError
from core.files.source import Source
from core.files.sources import FileSource
from core.text.byte_sizes import format_bytes

__all__ = ["BODY_BYTES", "HEAD_BYTES", "MAX_CHECKED_RECORD", "RECORD_HEAD_BYTES", "RECORD_PIECES", "RECORD_READ_BYTES",
           "RECORD_SAMPLE", "TAIL_BYTES", "RecordSample", "Sample", "read_record_sample", "read_sample"]

#: Bytes read from the start (headers, record markers).
HEAD_BYTES = 64 * 1024
#: Bytes read from the middle: the values every type is scored on.
BODY_BYTES = 256 * 1024
#: Bytes read from the end (trailers).
TAIL_BYTES = 16 * 1024
#: Records a layout check judges at most (the pieces' records together).
RECORD_SAMPLE = 4096
#: Places of the file the records come from: its start, then evenly spread to its end.
RECORD_PIECES = 8
#: Bytes before the first records that a layout check reads too (headers up to this long).
RECORD_HEAD_BYTES = 4096
#: Most bytes a layout check reads, whatever the file's size.
RECORD_READ_BYTES = 4 * 1024 * 1024
#: Largest record a layout check samples: three records per span must fit the read budget.
MAX_CHECKED_RECORD = (RECORD_READ_BYTES - RECORD_HEAD_BYTES) // ((RECORD_PIECES + 1) * 3)


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


@dataclass(frozen=True)
class RecordSample:
    """Pieces of one file read for a layout check (module rules).

    Attributes
    ----------
    size
        The file's size in bytes.
    itemsize
        The record size the pieces were planned for.
    pieces
        ``(file offset, bytes)`` in file order, disjoint.
    bytes_read
        How many bytes were read.
    """

    size: int
    itemsize: int
    pieces: tuple[tuple[int, bytes], ...]
    bytes_read: int

    def records_at(self, header: int) -> list[np.ndarray]:
        """The whole records of each piece when records start at byte ``header`` of the file:
        one uint8 array of shape ``(records, itemsize)`` per piece that holds any, in file order."""
        out = []
        size = self.itemsize
        for start, data in self.pieces:
            first = header if start <= header else header + -(-(start - header) // size) * size
            count = (start + len(data) - first) // size
            if count <= 0:
                continue
            rows = np.frombuffer(data, np.uint8, count * size, first - start)
            out.append(rows.reshape(count, size))
        return out


def read_record_sample(source: Source, itemsize: int, header: int = 0, index: int = 0) -> RecordSample:
    """Read the pieces of file ``index`` of ``source`` that a check of records of ``itemsize``
    bytes after ``header`` bytes looks at (module rules).

    Raises
    ------
    CoreError
        ``field="fields"``: records larger than :data:`MAX_CHECKED_RECORD`.
    SourceError
        The source was closed.
    """
    if itemsize > MAX_CHECKED_RECORD:
        raise CoreError(f"records of {itemsize:,} bytes are too large to check from a sample (at most "
                        f"{format_bytes(MAX_CHECKED_RECORD)}: the check reads at most "
                        f"{format_bytes(RECORD_READ_BYTES)}); the records can still be shown", field="fields")
    size = source.file_size(index)
    budget = (RECORD_READ_BYTES - RECORD_HEAD_BYTES) // ((RECORD_PIECES + 1) * itemsize) - 1
    per_piece = max(1, min(-(-RECORD_SAMPLE // RECORD_PIECES), budget))
    span = (per_piece + 1) * itemsize
    head = RECORD_HEAD_BYTES + span
    if size <= head + (RECORD_PIECES - 1) * (span + 4096):
        wanted = [(0, size)]
    else:
        wanted = [(0, head)]
        for k in range(1, RECORD_PIECES):
            start = min(k * (size - span) // (RECORD_PIECES - 1) // 4096 * 4096, size - span)
            wanted.append((start, span))
        if header + span > head:
            wanted.append((min(header, size - span), span))
    pieces = []
    for start, end in _merged((start, min(start + count, size)) for start, count in wanted):
        pieces.append((start, source.bytes_at(index, start, end - start)))
    return RecordSample(size, itemsize, tuple(pieces), sum(len(data) for _, data in pieces))


def _merged(ranges) -> list[tuple[int, int]]:
    """``(start, end)`` ranges sorted, overlapping or touching ones made one."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out
