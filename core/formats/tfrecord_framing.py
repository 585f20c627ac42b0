"""TFRecord framing: the records of a file, found by a scan of their 12-byte headers.

Framing (TensorFlow's ``record_writer.cc``), per record, little-endian::

    uint64 length | uint32 masked_crc32c(length bytes) | data[length] | uint32 masked_crc32c(data)

with ``masked(crc) = ((crc >> 15) | (crc << 17)) + 0xa282ead8`` (mod 2**32).

Rules
-----
- The file is read with ``pread`` in blocks of :data:`BLOCK` bytes
  (:class:`core.scan.blocks.BlockReader`: no page of the map is touched, a file cut meanwhile is
  "changed on disk", never a SIGBUS); memory is one block plus the record being parsed, whatever
  the file's size.
- A file written with ``TFRecordOptions(compression_type="GZIP")`` or ``"ZLIB"`` is one gzip or
  zlib stream around the framing (:func:`sniff_compression`: the gzip magic ``1f 8b``, or a zlib
  header, and a record frame after decompressing the first bytes). Its records are read by
  decompressing it in order (``zlib.decompressobj``, at most :data:`BLOCK` bytes per step, so a
  decompression bomb costs time, never memory); offsets are then offsets in the decompressed
  stream.
- One record's data is held at a time, and only after :func:`core.budget.check_copy_budget`
  allowed its length (a lying length is refused before anything is allocated).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator

import numpy as np

from core.budget import check_copy_budget
from core.files.sources import Source
from core.scan.blocks import BlockReader

__all__ = ["BLOCK", "COMPRESSIONS", "FOOTER", "HEADER", "RecordStream", "masked_crc32c",
           "sniff_compression", "sniff_frame"]

HEADER = 12  # uint64 length + uint32 masked CRC of it
FOOTER = 4   # uint32 masked CRC of the data
#: Bytes read (or decompressed) per step.
BLOCK = 8 * 1024 * 1024
_MASK_DELTA = 0xA282EAD8
#: The compressions of ``tf.io.TFRecordOptions`` and the ``wbits`` that decompress them.
COMPRESSIONS = {"GZIP": 16 + zlib.MAX_WBITS, "ZLIB": zlib.MAX_WBITS}

try:  # the well-kept C implementation (optional extra [tfrecord])
    import google_crc32c as _crc_library
except ImportError:  # pragma: no cover - depends on the environment
    _crc_library = None

HAVE_CRC_LIBRARY = _crc_library is not None


def _crc32c_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


_TABLE = _crc32c_table()


def crc32c_python(data: bytes) -> int:
    """CRC-32C in pure Python: only for the 8-byte length headers when the library is missing."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """TFRecord's masked CRC-32C of ``data`` (``google-crc32c``; pure Python without it)."""
    crc = _crc_library.value(data) if _crc_library is not None else crc32c_python(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def sniff_frame(head: bytes, size: int | None) -> bool:
    """Whether ``head`` starts with a record header whose length's masked CRC matches (and, when
    ``size`` is known, whose record fits in it: a chance match is one in 2**32)."""
    if len(head) < HEADER or (size is not None and size < HEADER + FOOTER):
        return False
    length, crc = struct.unpack_from("<QI", head)
    if size is not None and HEADER + length + FOOTER > size:
        return False
    return masked_crc32c(bytes(head[:8])) == crc


def sniff_compression(head: bytes) -> str | None:
    """``"GZIP"`` or ``"ZLIB"`` when ``head`` is the start of such a stream whose first
    decompressed bytes are a record header with a matching CRC; else None."""
    candidates = []
    if head[:2] == b"\x1f\x8b":
        candidates.append("GZIP")
    if len(head) >= 2 and head[0] & 0x0F == 8 and (head[0] << 8 | head[1]) % 31 == 0:
        candidates.append("ZLIB")
    for name in candidates:
        try:
            first = zlib.decompressobj(COMPRESSIONS[name]).decompress(head, HEADER)
        except zlib.error:
            continue
        if sniff_frame(first, None):
            return name
    return None


class RecordStream:
    """The bytes of a TFRecord stream: the file itself, or its decompressed GZIP/ZLIB stream.

    :meth:`take` gives ``n`` bytes from a stream position; for a compressed stream positions
    must not go backwards (each read continues the decompression).

    Parameters
    ----------
    source
        The open file (any :class:`~core.files.sources.Source`).
    index
        Which of its files.
    compression
        None, ``"GZIP"`` or ``"ZLIB"``.
    """

    def __init__(self, source: Source, index: int = 0, compression: str | None = None) -> None:
        self.compression = compression
        self.file_size = source.file_size(index)
        self._data = source.data(index)
        self._reader = BlockReader(source.mapped_ranges(), max_span=BLOCK)
        self._buffer = b""
        self._buffer_start = 0
        self._file_pos = 0  # compressed: next file byte to feed
        self._inflate = zlib.decompressobj(COMPRESSIONS[compression]) if compression else None
        self.error: str | None = None  # compressed: why the stream stopped early
        self.trailing = 0  # compressed: file bytes after the end of the stream

    @property
    def size(self) -> int | None:
        """The stream's size when known (the file's, uncompressed), else None."""
        return None if self.compression else self.file_size

    def _file_bytes(self, offset: int, nbytes: int) -> bytes:
        nbytes = max(0, min(nbytes, self.file_size - offset))
        if nbytes == 0:
            return b""
        return self._reader.read(self._data[offset:offset + nbytes]).tobytes()

    def take(self, pos: int, nbytes: int) -> memoryview:
        """Up to ``nbytes`` bytes from stream position ``pos`` (fewer only at the stream's end).

        Raises
        ------
        SourceError
            The file changed on disk during the read.
        """
        end = pos + nbytes
        if self.compression is None:
            if not (self._buffer_start <= pos and end <= self._buffer_start + len(self._buffer)):
                if nbytes > BLOCK:
                    return memoryview(self._file_bytes(pos, nbytes))
                self._buffer, self._buffer_start = self._file_bytes(pos, BLOCK), pos
            start = pos - self._buffer_start
            return memoryview(self._buffer)[start:start + nbytes]
        if pos < self._buffer_start:
            raise ValueError("a compressed stream is read forwards only")
        buffer_end = self._buffer_start + len(self._buffer)
        if pos >= buffer_end:  # decompress and drop the bytes before pos
            skip = pos - buffer_end
            self._buffer = b""
            while skip and not self._stream_ended():
                skip -= len(self._inflate_some(min(skip, BLOCK)))
            self._buffer_start = pos - skip
        else:
            self._buffer = self._buffer[pos - self._buffer_start:]
            self._buffer_start = pos
        if self._buffer_start != pos:  # the stream ended before pos
            return memoryview(b"")
        parts = [self._buffer]
        have = len(self._buffer)
        while have < nbytes and not self._stream_ended():
            more = self._inflate_some(max(BLOCK, nbytes - have))
            parts.append(more)
            have += len(more)
        if len(parts) > 1:
            self._buffer = b"".join(parts)
        return memoryview(self._buffer)[:nbytes]

    def _stream_ended(self) -> bool:
        inflate = self._inflate
        return self.error is not None or inflate.eof or (
            self._file_pos >= self.file_size and not inflate.unconsumed_tail)

    def _inflate_some(self, limit: int) -> bytes:
        """Up to ``limit`` more decompressed bytes (b"" at the stream's end)."""
        inflate = self._inflate
        try:
            if inflate.unconsumed_tail:
                return inflate.decompress(inflate.unconsumed_tail, limit)
            if self._file_pos >= self.file_size:
                out = inflate.flush()
                if not inflate.eof and self.error is None:
                    self.error = f"the {self.compression} stream ends early (a truncated file)"
                return out
            chunk = self._file_bytes(self._file_pos, BLOCK)
            self._file_pos += len(chunk)
            out = inflate.decompress(chunk, limit)
            if inflate.eof:
                self.trailing = len(inflate.unused_data) + self.file_size - self._file_pos
            return out
        except zlib.error as error:
            self.error = f"the {self.compression} stream is corrupt ({error})"
            return b""

    def ranges(self, ranges: np.ndarray, what: str) -> np.ndarray:
        """The bytes of the ``(offset, length)`` ranges (rows of ``ranges``, in increasing
        offset order) concatenated into one uint8 array (budget-checked first).

        Raises
        ------
        BudgetError
            The bytes would exceed the copy budget.
        ValueError
            A range lies past the end of the stream (the file changed).
        """
        ranges = np.asarray(ranges, dtype=np.int64).reshape(-1, 2)
        total = int(ranges[:, 1].sum()) if ranges.size else 0
        check_copy_budget(total, what, "open a smaller file", field="tensor")
        out = np.empty(total, np.uint8)
        filled = 0
        for start, size in ranges.tolist():
            if size == 0:
                continue
            got = self.take(start, size)
            if len(got) < size:
                raise ValueError(f"the bytes {start} to {start + size} are past the end of the stream")
            out[filled:filled + size] = np.frombuffer(got, np.uint8)
            filled += size
        return out


def walk(stream: RecordStream, problems: list[str], where: str) -> Iterator[tuple[int, int, bytes | None]]:
    """Yield ``(number, record offset, data)`` of every record, ``data`` None when its data CRC
    fails (reported in ``problems``); a bad header, a truncated record or a record longer than
    the copy budget stops the walk with a problem naming the record and byte."""
    from core.errors import BudgetError

    pos = number = 0
    size = stream.size
    while True:
        header = stream.take(pos, HEADER)
        if len(header) == 0:
            break
        if len(header) < HEADER:
            problems.append(f"{where}: record {number} at byte {pos}: {len(header)} bytes left, too "
                            "few for a record header (a truncated file)")
            break
        length, length_crc = struct.unpack_from("<QI", header)
        if masked_crc32c(bytes(header[:8])) != length_crc:
            problems.append(f"{where}: record {number} at byte {pos}: the length's CRC does not "
                            "match (a corrupt header; the records after it cannot be found)")
            break
        if size is not None and pos + HEADER + length + FOOTER > size:
            problems.append(f"{where}: record {number} at byte {pos}: its {length} bytes of data "
                            f"reach past the end of the file ({size} bytes; truncated)")
            break
        try:
            check_copy_budget(length + FOOTER, f"reading record {number} ({length} bytes)",
                              "it and the records after it are not listed")
        except BudgetError as error:
            problems.append(f"{where}: record {number} at byte {pos}: {error}")
            break
        body = stream.take(pos + HEADER, length + FOOTER)
        if len(body) < length + FOOTER:
            problems.append(f"{where}: record {number} at byte {pos}: its {length} bytes of data "
                            "reach past the end of the stream (truncated)")
            break
        data = bytes(body[:length])
        (data_crc,) = struct.unpack_from("<I", body, length)
        if _crc_library is not None and masked_crc32c(data) != data_crc:
            problems.append(f"{where}: record {number} at byte {pos}: the data CRC does "
                            "not match (a corrupt record, skipped; the others are usable)")
            yield number, pos, None
        else:
            yield number, pos, data
        number += 1
        pos += HEADER + length + FOOTER
    if stream.error is not None:
        problems.append(f"{where}: after record {number - 1} ({pos} bytes decompressed): "
                        f"{stream.error}; the records before are listed")
