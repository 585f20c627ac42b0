"""``.npz`` files: a zip archive of ``.npy`` members (``numpy.savez`` / ``savez_compressed``).

Where a tensor's bytes are: a member stored without compression (``numpy.savez``) is the
``.npy`` file itself, byte for byte, inside the zip. Its data starts at the member's local file
header offset (from the central directory) + 30 + the local header's name and extra lengths
(read from the local header itself: they may differ from the central directory's), + the
member's own ``.npy`` header length. Dtype, byte order and shape come from that ``.npy``
header (a Fortran-order member is listed with its axes reversed, like a ``.npy`` file). The
entry name is the key ``np.load`` gives: the member name without ``.npy``.

A compressed member (``numpy.savez_compressed``: deflate; bzip2 and lzma too) is not a view of the
file: its bytes there are compressor output. The listing decompresses only the member's ``.npy``
header (at most :data:`~core.files.npy_header.MAX_HEADER_BYTES` bytes of output) to give its
dtype and shape, and lists it as a :attr:`~core.formats.entry.Storage.COPY` entry with extras
``compressed`` and ``decompressed bytes``. Its values come only from the format's ``values``
hook (:func:`decompressed_values`): a copy in memory, refused before anything is allocated
when the header's size exceeds the copy budget (:mod:`core.budget`), filled by streaming the
member into that one array (a member that decompresses to more or fewer bytes than its header
says, or fails its CRC, is refused). So a zip bomb costs at most the budget, and only when asked.

The central directory is read by the standard library's :mod:`zipfile` through a read-only file
object whose every read goes through the bounded :class:`~core.formats.reader.HeaderReader`
(``zipfile`` reads only the end record and the directory when it opens an archive: no member
data). Zip64 archives (``numpy.savez`` writes them for members over 2 GiB) are read by it too.
"""

from __future__ import annotations

import lzma
import struct
import zipfile
import zlib

import numpy as np

from core.budget import check_copy_budget
from core.decode.decode_raw import byte_ordered
from core.dtypes.table import resolve_dtype
from core.errors import ContainerError, CoreError, SourceError
from core.files.npy_header import MAX_HEADER_BYTES, NPY_MAGIC, NpyHeader, StructuredNpyError, parse_npy_header
from core.files.range_file import RangeFile
from core.files.sources import FileSource
from core.formats import listing_control
from core.formats.entry import ContainerFormat, ContainerListing, EntryValues, Storage, TensorEntry
from core.formats.reader import HeaderReader
from core.formats.zip_members import LOCAL_HEADER
from core.records.field_list import numpy_description_dtype
from core.records.structured import structured_layout
from core.text.names import printable_name

__all__ = ["FORMAT", "decompressed_values", "list_npz", "npz_values", "sniff_npz"]

_LOCAL_HEADER_SIZE = 30
#: Most members listed (each costs a few header reads).
MAX_MEMBERS = 100_000
#: Bytes read at once for a stored member's ``.npy`` header (numpy pads headers to 64 bytes).
_USUAL_HEADER = 128
#: Most distinct ``.npy`` headers remembered in one listing.
_HEADER_CACHE = 4096
_COMPRESSION_NAMES = {zipfile.ZIP_DEFLATED: "deflate", zipfile.ZIP_BZIP2: "bzip2",
                      zipfile.ZIP_LZMA: "lzma"}


def sniff_npz(head: bytes, size: int) -> bool:
    """A zip whose first member's name ends with ``.npy`` (what ``numpy.savez`` writes)."""
    if len(head) < _LOCAL_HEADER_SIZE or head[:4] != LOCAL_HEADER:
        return False
    (name_length,) = struct.unpack("<H", head[26:28])
    return head[_LOCAL_HEADER_SIZE:_LOCAL_HEADER_SIZE + name_length].endswith(b".npy")


class _ReaderFile(RangeFile):
    """Over a :class:`HeaderReader`: bounded reads, for the zip directory and member headers."""

    def __init__(self, reader: HeaderReader) -> None:
        super().__init__(reader.size)
        self._reader = reader

    def _read(self, offset: int, count: int) -> bytes:
        return self._reader.read(offset, count, "zip directory")


class _SourceFile(RangeFile):
    """Over file ``index`` of a source (its guarded map), for member data."""

    def __init__(self, source: FileSource, index: int) -> None:
        super().__init__(source.file_size(index))
        self._source, self._index = source, index

    def _read(self, offset: int, count: int) -> bytes:
        return self._source.bytes_at(self._index, offset, count)


def list_npz(reader: HeaderReader) -> ContainerListing:
    """List the ``.npy`` members of an ``.npz`` file (reads the directory and member headers).

    Raises
    ------
    ContainerError
        The zip directory cannot be read (truncated, corrupt, not a zip).
    """
    try:
        archive = zipfile.ZipFile(_ReaderFile(reader), "r")
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, struct.error, ValueError,
            NotImplementedError, OSError) as error:
        raise reader.error(f"its zip directory cannot be read ({str(error)[:120]})", None,
                           "the file is truncated or corrupt; open it as raw bytes with an "
                           "explicit offset") from None
    except CoreError as error:  # a bounded read past the end or the header limit
        raise reader.error(f"its zip directory cannot be read ({error})", None,
                           "the file is truncated or corrupt") from None
    with archive:  # opened once: every compressed member's header is read through it
        members = archive.infolist()
        problems = []
        if len(members) > MAX_MEMBERS:
            problems.append(f"npz: only the first {MAX_MEMBERS} of {len(members)} members are listed")
            members = members[:MAX_MEMBERS]
        shift = archive.start_dir - _directory_offset_field(reader, archive)
        last = {info.filename: index for index, info in enumerate(members)}
        headers: dict[tuple[bytes, int], NpyHeader | StructuredNpyError] = {}
        entries = listing_control.collecting("npz")
        for index, info in enumerate(members):
            if last[info.filename] != index:
                entries.append(_duplicate_entry(info))
                continue
            try:
                entries.append(_member_entry(reader, archive, info, shift, headers))
            except CoreError as error:
                entries.append(_broken(info, str(error)))
            except Exception as error:  # a damaged directory entry: this member's problem only
                entries.append(_broken(info, f"it cannot be read ({type(error).__name__}: "
                                             f"{str(error)[:120]}) (the zip is corrupt)"))
    return ContainerListing("npz", reader.path, tuple(entries), {}, tuple(problems))


def _entry_name(info: zipfile.ZipInfo) -> str:
    return info.filename[:-4] if info.filename.endswith(".npy") else info.filename


def _broken(info: zipfile.ZipInfo, problem: str, offset: int | None = None, nbytes: int = 0,
            shape: tuple[int, ...] = ()) -> TensorEntry:
    return TensorEntry(_entry_name(info), None, True, shape,
                       max(0, info.header_offset if offset is None else offset), nbytes,
                       info.filename, problem=f"npz member {info.filename!r}: {problem}")


def _duplicate_entry(info: zipfile.ZipInfo) -> TensorEntry:
    """An earlier member whose name a later member repeats: np.load returns only the later one."""
    return _broken(info, "a later member of the zip has the same name, and np.load returns only "
                         "that one (this copy is listed, not shown; the file was written twice "
                         "under one name)")


def _directory_offset_field(reader: HeaderReader, archive: zipfile.ZipFile) -> int:
    """The central directory offset as the end record's field says (zipfile moves every offset
    by the difference between where the directory is and where the field says it is)."""
    try:
        end = zipfile._EndRecData(_ReaderFile(reader))  # the record zipfile itself used
    except Exception:
        end = None
    if not end:
        return archive.start_dir
    return int(end[zipfile._ECD_OFFSET])


def _member_entry(reader: HeaderReader, archive: zipfile.ZipFile, info: zipfile.ZipInfo,
                  shift: int, headers: dict[tuple[bytes, int], NpyHeader | StructuredNpyError]) -> TensorEntry:
    name = _entry_name(info)

    def broken(problem: str, offset: int | None = None, nbytes: int = 0,
               shape: tuple[int, ...] = ()) -> TensorEntry:
        return _broken(info, problem, offset, nbytes, shape)

    if not info.filename:
        return broken("its name in the zip directory is empty, so np.load has no key for it "
                      "(the zip directory is corrupt)")
    if info.is_dir() or not info.filename.endswith(".npy"):
        return broken("not a .npy member (np.load would not return it as an array)")
    if info.flag_bits & 0x1:
        return broken("it is encrypted, so its bytes are not the array's")
    if not 0 <= info.header_offset <= reader.size - _LOCAL_HEADER_SIZE:
        field_value = info.header_offset - shift
        moved = (f" (moved by {shift} bytes because the end record places the directory at byte "
                 f"{archive.start_dir - shift} while it is at byte {archive.start_dir})") if shift else ""
        return broken(f"its directory entry's local header offset field is {field_value}{moved}, "
                      f"so the local header would be at byte {info.header_offset}; it must be "
                      f"between 0 and {reader.size - _LOCAL_HEADER_SIZE} (the file has "
                      f"{reader.size} bytes): the zip directory is corrupt", 0)
    try:
        local = reader.read(info.header_offset, _LOCAL_HEADER_SIZE, "local file header")
    except Exception as error:  # a ContainerError naming the byte: kept as this entry's problem
        return broken(str(error))
    if local[:4] != LOCAL_HEADER:
        return broken(f"no local file header at byte {info.header_offset} (the zip is corrupt)")
    name_length, extra_length = struct.unpack("<HH", local[26:30])
    start = info.header_offset + _LOCAL_HEADER_SIZE + name_length + extra_length
    if info.compress_type != zipfile.ZIP_STORED:
        return _compressed_entry(reader, archive, info, name, start, broken)
    if start + info.file_size > reader.size:
        return broken(f"its {info.file_size} bytes from byte {start} reach past the end of the "
                      f"file ({reader.size} bytes) (the file is truncated)", start)
    try:
        # one read for the usual header (numpy pads it to 128 bytes), a second for a longer one
        head = reader.read(start, min(info.file_size, _USUAL_HEADER), "member .npy header")
        header_length = min(info.file_size, _npy_header_length(head), 12 + MAX_HEADER_BYTES)
        prefix = head[:header_length] if header_length <= len(head) else \
            reader.read(start, header_length, "member .npy header")
        key = (prefix, info.file_size)  # members of one shape and type share a header
        header = headers.get(key)
        if header is None:
            header = _parsed_header(prefix, f"{reader.path}:{info.filename}", info.file_size)
            if len(headers) < _HEADER_CACHE:
                headers[key] = header
    except SourceError as error:
        return broken(error.message, start, info.file_size)
    except Exception as error:  # ContainerError from a bounded read
        return broken(str(error), start, info.file_size)
    if isinstance(header, StructuredNpyError):
        return _records_entry(info, name, header, start + header.data_offset, header.nbytes,
                              {"member": info.filename}, broken)
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


def _compressed_entry(reader: HeaderReader, archive: zipfile.ZipFile, info: zipfile.ZipInfo,
                      name: str, start: int, broken) -> TensorEntry:
    """A compressed member: dtype and shape from its decompressed ``.npy`` header only."""
    method = _COMPRESSION_NAMES.get(info.compress_type, f"method {info.compress_type}")
    problem = (f"it is compressed ({method}, numpy.savez_compressed), so the file holds "
               "compressed bytes, not the array's values")
    try:
        if info.compress_type == zipfile.ZIP_DEFLATED:  # savez_compressed: a few KiB read
            header = _deflated_header(reader, info, start)
        else:
            with archive.open(info) as member:
                header = _member_header(member, f"{reader.path}:{info.filename}", info.file_size)
    except StructuredNpyError as found:
        extras = {"member": info.filename, "compressed": method, "decompressed bytes": found.nbytes}
        return _records_entry(info, name, found, start, info.compress_size, extras, broken,
                              Storage.COPY)
    except CoreError as error:  # the header's own problem, or a bounded read past the limit
        return broken(f"{problem}; its .npy header cannot be read: {error}", start, info.compress_size)
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError, RuntimeError,
            zlib.error, lzma.LZMAError) as error:
        return broken(f"{problem}; it does not decompress ({str(error)[:120]})", start, info.compress_size)
    shape = header.shape[::-1] if header.fortran_order else header.shape
    extras: dict[str, object] = {"member": info.filename, "compressed": method,
                                 "decompressed bytes": header.nbytes}
    if header.fortran_order:
        extras["fortran_order"] = True
    if header.dtype is None:
        return broken(f"{problem}; its dtype {header.descr!r} is not a numpy type (decompress it "
                      "yourself and open it with an explicit dtype)", start, info.compress_size, shape)
    return TensorEntry(name, header.dtype, header.little_endian, shape, start, info.compress_size,
                       header.descr, extras, storage=Storage.COPY)


def _parsed_header(prefix: bytes, name: str, file_size: int) -> NpyHeader | StructuredNpyError:
    """A stored member's ``.npy`` header, or the records it holds (a structured dtype)."""
    try:
        return parse_npy_header(prefix, name=name, file_size=file_size)
    except StructuredNpyError as found:
        return found


def _records_entry(info: zipfile.ZipInfo, name: str, found: StructuredNpyError, offset: int, nbytes: int,
                   extras: dict[str, object], broken, storage: Storage = Storage.VIEW) -> TensorEntry:
    """A structured member: its records as rows of bytes, with their layout
    (:attr:`~core.formats.entry.TensorEntry.record_layout`; a Fortran-order member's shape
    reversed, its records in file order)."""
    shape = found.shape[::-1] if found.fortran_order else found.shape
    if found.data_offset + found.nbytes > info.file_size:
        return broken(f"its header promises {found.nbytes} bytes of records from byte {found.data_offset} of "
                      f"the member, which has {info.file_size} bytes (the file is truncated or its shape is "
                      "corrupt)", offset, 0, shape)
    try:
        records = structured_layout(numpy_description_dtype(found.descr_text))  # literals: nothing runs
    except CoreError as error:
        return broken(f"its structured dtype cannot be shown as records: {error.message}", offset, nbytes, shape)
    extras = {**records.extras(), **extras}
    if found.fortran_order:
        extras["fortran_order"] = True
    return TensorEntry(name, "uint8", True, shape + (records.layout.itemsize,), offset, nbytes, "structured",
                       extras, storage=storage, record_layout=records.text)


def _deflated_header(reader: HeaderReader, info: zipfile.ZipInfo, start: int) -> NpyHeader:
    """The ``.npy`` header of a deflated member, decompressed from its first compressed bytes
    (at most :data:`MAX_HEADER_BYTES` of output; reads grow from 1 KiB while more are needed)."""
    want = 12
    chunk = 1024
    while True:
        count = min(info.compress_size, chunk)
        if start + count > reader.size:
            count = max(0, reader.size - start)
        output = zlib.decompressobj(-15).decompress(
            reader.read(start, count, "compressed member .npy header"), 12 + MAX_HEADER_BYTES)
        want = min(info.file_size, _npy_header_length(output[:12]) if len(output) >= 12 else 12,
                   12 + MAX_HEADER_BYTES)
        if len(output) >= want or count >= info.compress_size or count < chunk:
            return parse_npy_header(output[:want], name=f"{reader.path}:{info.filename}",
                                    file_size=info.file_size)
        chunk *= 8


def _member_header(member, name: str, file_size: int) -> NpyHeader:
    """The ``.npy`` header at the start of a member's decompressed stream (bounded read)."""
    head = member.read(12)
    prefix = head + member.read(max(0, min(_npy_header_length(head), 12 + MAX_HEADER_BYTES) - len(head)))
    return parse_npy_header(prefix, name=name, file_size=file_size)


def decompressed_values(source: FileSource, entry: TensorEntry, index: int = 0) -> np.ndarray:
    """The values of a compressed member (an entry with ``extras["compressed"]``): a copy in
    memory, shaped as the entry (a Fortran-order member with its axes reversed, its values in
    file order, as a stored member's view shows them).

    Raises
    ------
    ContainerError
        The entry is not a compressed member, or the member no longer decompresses to what its
        header says (a corrupt or changed file).
    BudgetError
        The values would exceed the copy budget (checked before anything is allocated).
    """
    member_name = entry.extras.get("member")
    if not entry.extras.get("compressed") or not isinstance(member_name, str):
        raise ContainerError(f"'{entry.name}' is not a compressed npz member", field="tensor")
    where = f"the npz file '{printable_name(source.paths[index])}': member {member_name!r}"
    try:
        with zipfile.ZipFile(_SourceFile(source, index), "r") as archive, \
                archive.open(member_name) as member:
            info = archive.getinfo(member_name)
            try:
                header = _member_header(member, f"{source.paths[index]}:{member_name}", info.file_size)
            except StructuredNpyError as found:  # records: their bytes, as the entry lists them
                if entry.record_layout is None:
                    raise
                nbytes, dtype = found.nbytes, np.dtype(np.uint8)
            else:
                if header.dtype is None:
                    raise ContainerError(f"{where}: its dtype {header.descr!r} is not a numpy type "
                                         "(decompress it yourself and open it with an explicit dtype)",
                                         field="tensor")
                nbytes = header.nbytes
                dtype = byte_ordered(resolve_dtype(header.dtype, extended_types=True), header.little_endian)
            check_copy_budget(nbytes, f"decompressing npz member {member_name!r}",
                              "open a smaller member, or save it uncompressed (numpy.savez)",
                              field="tensor")
            data = np.empty(nbytes, np.uint8)
            filled = 0
            view = memoryview(data)
            while filled < nbytes:
                count = member.readinto(view[filled:])
                if not count:
                    break
                filled += count
            extra = member.read(1)  # also reads to the end: zipfile checks the CRC there
    except CoreError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError, RuntimeError,
            KeyError, zlib.error, lzma.LZMAError) as error:
        raise ContainerError(f"{where}: it does not decompress ({str(error)[:160]}) (list the file "
                             "again; it may have changed or be corrupt)", field="tensor") from None
    if filled != nbytes or extra:
        raise ContainerError(f"{where}: it decompresses to {'more' if extra else filled} bytes of "
                             f"values, not the {nbytes} its header says (a corrupt member)",
                             field="tensor")
    return data.view(dtype).reshape(entry.shape)


def npz_values(source: FileSource, entry: TensorEntry) -> EntryValues:
    """The format's ``values`` hook: a compressed member's :func:`decompressed_values`."""
    array = decompressed_values(source, entry)
    return EntryValues.stored_copy(array, "decompressed",
                                   f"'{entry.name}' is compressed in the file ({entry.extras['compressed']}): "
                                   "these are its decompressed values")


def _npy_header_length(head: bytes) -> int:
    """Bytes of a ``.npy`` member's magic, version, length field and header (from its first 12)."""
    if head[:6] != NPY_MAGIC or len(head) < 10:
        return len(head)  # parse_npy_header says what is wrong
    if head[6] == 1:
        return 10 + struct.unpack("<H", head[8:10])[0]
    if len(head) < 12:
        return len(head)
    return 12 + struct.unpack("<I", head[8:12])[0]


FORMAT = ContainerFormat("npz", sniff_npz, list_npz, npz_values)
