"""``.npz`` files: a zip archive of ``.npy`` members (``numpy.savez`` / ``savez_compressed``).

Where a tensor's bytes are: a member stored without compression (``numpy.savez``) is the
``.npy`` file itself, byte for byte, inside the zip. Its data starts at the member's local file
header offset (from the central directory) + 30 + the local header's name and extra lengths
(read from the local header itself: they may differ from the central directory's), + the
member's own ``.npy`` header length. Dtype, byte order and shape come from that ``.npy``
header (a Fortran-order member is listed with its axes reversed, like a ``.npy`` file). The
entry name is the key ``np.load`` gives: the member name without ``.npy``.

A compressed member (``numpy.savez_compressed``, deflate) is listed with a problem: its bytes in
the file are deflate output, not the array's, so no view of the file shows its values; the fix is
to save it uncompressed. Nothing is ever decompressed, so a zip bomb costs nothing.

The central directory is read by the standard library's :mod:`zipfile` through a read-only file
object whose every read goes through the bounded :class:`~core.formats.reader.HeaderReader`
(``zipfile`` reads only the end record and the directory when it opens an archive: no member
data). Zip64 archives (``numpy.savez`` writes them for members over 2 GiB) are read by it too.
"""

from __future__ import annotations

import io
import struct
import zipfile

from core.errors import SourceError
from core.files.npy_header import MAX_HEADER_BYTES, NPY_MAGIC, parse_npy_header
from core.formats.entry import ContainerFormat, ContainerListing, TensorEntry
from core.formats.reader import HeaderReader

__all__ = ["FORMAT", "list_npz", "sniff_npz"]

_LOCAL_HEADER = b"PK\x03\x04"
_LOCAL_HEADER_SIZE = 30
#: Most members listed (each costs a few header reads).
MAX_MEMBERS = 100_000
_COMPRESSION_NAMES = {zipfile.ZIP_DEFLATED: "deflate", zipfile.ZIP_BZIP2: "bzip2",
                      zipfile.ZIP_LZMA: "lzma"}


def sniff_npz(head: bytes, size: int) -> bool:
    """A zip whose first member's name ends with ``.npy`` (what ``numpy.savez`` writes)."""
    if len(head) < _LOCAL_HEADER_SIZE or head[:4] != _LOCAL_HEADER:
        return False
    (name_length,) = struct.unpack("<H", head[26:28])
    return head[_LOCAL_HEADER_SIZE:_LOCAL_HEADER_SIZE + name_length].endswith(b".npy")


class _ReaderFile(io.RawIOBase):
    """A read-only, seekable file object over a :class:`HeaderReader` (bounded reads)."""

    def __init__(self, reader: HeaderReader) -> None:
        self._reader = reader
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._reader.size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer) -> int:
        count = max(0, min(len(buffer), self._reader.size - self._position))
        data = self._reader.read(self._position, count, "zip directory")
        buffer[:count] = data
        self._position += count
        return count


def list_npz(reader: HeaderReader) -> ContainerListing:
    """List the ``.npy`` members of an ``.npz`` file (reads the directory and member headers).

    Raises
    ------
    ContainerError
        The zip directory cannot be read (truncated, corrupt, not a zip).
    """
    try:
        with zipfile.ZipFile(_ReaderFile(reader), "r") as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, struct.error, ValueError,
            NotImplementedError, OSError) as error:
        raise reader.error(f"its zip directory cannot be read ({str(error)[:120]})", None,
                           "the file is truncated or corrupt; open it as raw bytes with an "
                           "explicit offset") from None
    problems = []
    if len(members) > MAX_MEMBERS:
        problems.append(f"npz: only the first {MAX_MEMBERS} of {len(members)} members are listed")
        members = members[:MAX_MEMBERS]
    entries = [_member_entry(reader, info) for info in members]
    return ContainerListing("npz", reader.path, tuple(entries), {}, tuple(problems))


def _member_entry(reader: HeaderReader, info: zipfile.ZipInfo) -> TensorEntry:
    name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename

    def broken(problem: str, offset: int = info.header_offset, nbytes: int = 0,
               shape: tuple[int, ...] = ()) -> TensorEntry:
        return TensorEntry(name, None, True, shape, offset, nbytes, info.filename,
                           problem=f"npz member {info.filename!r}: {problem}")

    if info.is_dir() or not info.filename.endswith(".npy"):
        return broken("not a .npy member (np.load would not return it as an array)")
    if info.flag_bits & 0x1:
        return broken("it is encrypted, so its bytes are not the array's")
    try:
        local = reader.read(info.header_offset, _LOCAL_HEADER_SIZE, "local file header")
    except Exception as error:  # a ContainerError naming the byte: kept as this entry's problem
        return broken(str(error))
    if local[:4] != _LOCAL_HEADER:
        return broken(f"no local file header at byte {info.header_offset} (the zip is corrupt)")
    name_length, extra_length = struct.unpack("<HH", local[26:30])
    start = info.header_offset + _LOCAL_HEADER_SIZE + name_length + extra_length
    if info.compress_type != zipfile.ZIP_STORED:
        method = _COMPRESSION_NAMES.get(info.compress_type, f"method {info.compress_type}")
        return broken(
            f"it is compressed ({method}, numpy.savez_compressed), so the file holds "
            "compressed bytes, not the array's values, and no view of the file can show them "
            "(save it uncompressed: numpy.savez(out, **numpy.load(path)), then open that)",
            start, info.compress_size)
    if start + info.file_size > reader.size:
        return broken(f"its {info.file_size} bytes from byte {start} reach past the end of the "
                      f"file ({reader.size} bytes) (the file is truncated)", start)
    try:
        head = reader.read(start, min(info.file_size, 12), "member .npy header")
        header_length = _npy_header_length(head)
        prefix = reader.read(start, min(info.file_size, header_length, 12 + MAX_HEADER_BYTES),
                             "member .npy header")
        header = parse_npy_header(prefix, name=f"{reader.path}:{info.filename}",
                                  file_size=info.file_size)
    except SourceError as error:
        return broken(error.message, start, info.file_size)
    except Exception as error:  # ContainerError from a bounded read
        return broken(str(error), start, info.file_size)
    shape = header.shape[::-1] if header.fortran_order else header.shape
    extras: dict[str, object] = {"member": info.filename}
    if header.fortran_order:
        extras["fortran_order"] = True
    if header.dtype is None:
        return broken(f"its dtype {header.descr!r} is numpy's name for a type numpy does not "
                      "know (ml_dtypes' bfloat16 is '<V2'): open it with an explicit dtype, "
                      "e.g. --dtype bfloat16", start + header.data_offset, header.nbytes, shape)
    return TensorEntry(name, header.dtype, header.little_endian, shape,
                       start + header.data_offset, header.nbytes, header.descr, extras)


def _npy_header_length(head: bytes) -> int:
    """Bytes of a ``.npy`` member's magic, version, length field and header (from its first 12)."""
    if head[:6] != NPY_MAGIC or len(head) < 10:
        return len(head)  # parse_npy_header says what is wrong
    if head[6] == 1:
        return 10 + struct.unpack("<H", head[8:10])[0]
    if len(head) < 12:
        return len(head)
    return 12 + struct.unpack("<I", head[8:12])[0]


FORMAT = ContainerFormat("npz", sniff_npz, list_npz)
