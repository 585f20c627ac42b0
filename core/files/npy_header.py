"""Read the header of a ``.npy`` file, never unpickling anything (docs/semantics.md §3).

Format (numpy's ``NEP 1``): the magic ``\\x93NUMPY``, a major and a minor version byte, the header
length (``uint16`` little-endian for version 1, ``uint32`` for versions 2 and 3), then the header:
a Python dict literal ``{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`` padded with
spaces and a newline (latin-1 for versions 1 and 2, UTF-8 for version 3). The data follows.

We parse the dict with :func:`ast.literal_eval` (literals only: no names, calls or attribute
access can run) after bounding its length, and refuse everything a numeric tensor cannot be:
object dtypes (their data is a pickle, which we never load), structured/void/string/datetime
dtypes, negative or non-integer dimensions, more than 64 dimensions, and data that the file does
not hold (an absurd shape is simply a file far too short for it). An opaque descr ``'<V2'`` (how
numpy saves ml_dtypes' bfloat16, which it does not know) is read with no dtype: the user names
the type (bfloat16 is suggested). Headers of versions 1.0 and 2.0 written by Python 2 (``(2L,)``)
are read as numpy reads them, the ``L`` dropped.

A header that is refused does not stop the file from opening: :mod:`core.files.safe_open` keeps
the error, and the pipeline raises it only when a default would come from the header (no
explicit offset or dtype), so ``--offset 0 --dtype uint8`` shows any file's bytes.
"""

from __future__ import annotations

import ast
import math
import re
import struct
from dataclasses import dataclass

from core.dtypes.table import row_for_npy_code
from core.errors import SourceError

__all__ = ["NPY_MAGIC", "MAX_HEADER_BYTES", "NpyHeader", "StructuredNpyError", "looks_like_npy", "opaque_type_error",
           "parse_npy_header"]

NPY_MAGIC = b"\x93NUMPY"
#: Largest header accepted (numpy's own ``np.load`` default limit is 10000 bytes).
MAX_HEADER_BYTES = 10000
#: Bytes to read from the start of a file to parse any acceptable header.
PREFIX_BYTES = 12 + MAX_HEADER_BYTES
_MAX_DIMS = 64

@dataclass(frozen=True)
class NpyHeader:
    """What a ``.npy`` header says about its data.

    Attributes
    ----------
    version
        Format version ``(major, minor)``; major is 1, 2 or 3.
    dtype
        Engine type name (``"float32"``...; see :mod:`core.dtypes.table`), or None for an
        opaque ``'V<n>'`` descr: how numpy saves types it does not know, such as ml_dtypes'
        bfloat16 (``'<V2'``); the user then names the type (:func:`opaque_type_error`).
    little_endian
        Byte order of the data (True for single-byte types).
    shape
        Array shape, in C order unless ``fortran_order``.
    fortran_order
        The data is stored column-major.
    data_offset
        Byte offset of the data in the file.
    nbytes
        Bytes of data the header promises (product of ``shape`` times the item size).
    """

    version: tuple[int, int]
    dtype: str
    little_endian: bool
    shape: tuple[int, ...]
    fortran_order: bool
    data_offset: int
    nbytes: int
    descr: str = ""


def looks_like_npy(prefix: bytes) -> bool:
    """Whether a file starting with ``prefix`` claims to be a ``.npy`` file (its magic)."""
    return prefix[: len(NPY_MAGIC)] == NPY_MAGIC


def _error(name: str, what: str, fix: str) -> SourceError:
    return SourceError(f"'{name}' is not a usable .npy file: {what} ({fix})", field="files")


def parse_npy_header(prefix: bytes, *, name: str, file_size: int) -> NpyHeader:
    """Parse a ``.npy`` header from the first bytes of a file.

    Parameters
    ----------
    prefix
        The file's first bytes (at least the whole header; :data:`PREFIX_BYTES` suffice).
    name
        The file's path, for messages.
    file_size
        The file's size, to check that the data the header promises is there.

    Raises
    ------
    SourceError
        ``field="files"``: bad magic, unknown version, header too long or cut short, a header
        that is not the expected dict literal, an unsupported dtype (object dtypes are refused:
        never unpickled), a bad shape, or a file too short for the promised data.
    """
    if not looks_like_npy(prefix):
        raise _error(name, "it does not start with the magic \\x93NUMPY",
                     "open it as raw bytes: rename it, or it may be corrupt")
    if len(prefix) < 10:
        raise _error(name, "the header is cut short", "the file is truncated: save it again")
    major, minor = prefix[6], prefix[7]
    if major == 1:
        (length,) = struct.unpack("<H", prefix[8:10])
        start, encoding = 10, "latin1"
    elif major in (2, 3):
        if len(prefix) < 12:
            raise _error(name, "the header is cut short", "the file is truncated: save it again")
        (length,) = struct.unpack("<I", prefix[8:12])
        start, encoding = 12, "latin1" if major == 2 else "utf8"
    else:
        raise _error(name, f"format version {major}.{minor} is unknown",
                     "supported versions are 1.0, 2.0 and 3.0: save it with numpy.save")
    if length > MAX_HEADER_BYTES:
        raise _error(name, f"its header claims {length} bytes, more than the "
                     f"{MAX_HEADER_BYTES}-byte limit", "the file is corrupt or not numeric")
    data_offset = start + length
    if data_offset > min(file_size, len(prefix)):
        raise _error(name, f"the header ends at byte {data_offset} but the file has "
                     f"{file_size} bytes", "the file is truncated: save it again")
    try:
        text = bytes(prefix[start:data_offset]).decode(encoding)
    except UnicodeDecodeError:
        raise _error(name, "the header is not text", "the file is corrupt") from None
    fields = _parse_dict(text, name, python2=(major, minor) <= (2, 0))
    structured = isinstance(fields["descr"], list)
    if not structured:
        dtype, little_endian, itemsize = _parse_descr(fields["descr"], name)
    fortran_order = fields["fortran_order"]
    if not isinstance(fortran_order, bool):
        raise _error(name, f"fortran_order is {fortran_order!r}, not True or False",
                     "the file is corrupt")
    shape = _parse_shape(fields["shape"], name)
    if structured:
        raise _structured(name, fields["descr"], data_offset, shape, fortran_order)
    if 0 in shape and math.prod(d for d in shape if d) * itemsize >= 1 << 63:
        # numpy refuses such a shape even when a zero dimension makes the array empty.
        raise _error(name, f"its shape {_short(shape)} of {itemsize}-byte values spans 2**63 bytes or "
                     "more, which no array can", "the file is corrupt; read its bytes as a raw file with --offset")
    nbytes = math.prod(shape) * itemsize
    if data_offset + nbytes > file_size:
        raise _error(
            name,
            f"its header promises {shape} {dtype or fields['descr']} values ({nbytes} bytes from byte "
            f"{data_offset}) but the file has only {file_size - data_offset} bytes of data",
            "the file is truncated or its shape is corrupt; open it as raw bytes with an "
            "explicit offset to look at it",
        )
    return NpyHeader(
        version=(major, minor), dtype=dtype, little_endian=little_endian, shape=shape,
        fortran_order=fortran_order, data_offset=data_offset, nbytes=nbytes,
        descr=fields["descr"],
    )


class StructuredNpyError(SourceError):
    """A ``.npy`` file of structured records (named fields): no one numeric type decodes it, but
    it opens as records (docs/records.md) with the layout ``descr_text`` (its dtype description,
    as text) from byte ``data_offset``, records of ``itemsize`` bytes. ``shape`` and
    ``fortran_order`` are the header's (its records in C order of ``shape``, or Fortran order),
    ``nbytes`` the bytes of data the header promises (not checked against the file here: a plain
    ``.npy`` of records is counted from its size)."""

    def __init__(self, message: str, *, descr_text: str, data_offset: int, itemsize: int,
                 shape: tuple[int, ...] = (), fortran_order: bool = False) -> None:
        super().__init__(message, field="files")
        self.descr_text = descr_text
        self.data_offset = data_offset
        self.itemsize = itemsize
        self.shape = shape
        self.fortran_order = fortran_order
        self.nbytes = math.prod(shape) * itemsize


def _structured(name: str, descr: list, data_offset: int, shape: tuple[int, ...],
                fortran_order: bool) -> SourceError:
    """The error of a structured header: records to open as such, or a descr numpy refuses."""
    import numpy as np

    try:
        dtype = np.dtype(descr)  # a list of literals: nothing runs
    except (TypeError, ValueError) as error:
        return _error(name, f"its structured dtype {str(descr)[:80]!r} is not one numpy reads ({str(error)[:80]})",
                      "the file is corrupt")
    if dtype.hasobject:
        return _error(name, "its structured dtype holds Python objects (stored with pickle, never loaded)",
                      "save a numeric array instead")
    return StructuredNpyError(
        f"'{name}' is not a usable .npy file: its dtype is structured (records of {len(dtype.names)} named "
        f"fields, {dtype.itemsize} bytes each: no one numeric type decodes it) (open it as records: "
        "tensor-inspect FILE prints them, and the window shows them in Tools > Records…)", descr_text=repr(descr), data_offset=data_offset,
        itemsize=dtype.itemsize, shape=shape, fortran_order=fortran_order)


def opaque_type_error(name: str, header: NpyHeader) -> SourceError:
    """The message for a header whose descr is opaque (``'<V2'``) when no dtype was chosen."""
    itemsize = int(header.descr.lstrip("<>|=")[1:])
    if itemsize == 2:
        fix = "ml_dtypes' bfloat16 is saved so: open it with dtype bfloat16 (--dtype bfloat16)"
    else:
        fix = (f"choose a {itemsize}-byte type with --dtype, or look at its bytes with --dtype "
               "uint8")
    return _error(name, f"its dtype {header.descr!r} is numpy's name for {itemsize}-byte values "
                  "of a type numpy does not know", fix)


#: ``2L`` in a header written by Python 2 (numpy's ``_filter_header`` removes the ``L``).
_PYTHON2_LONG = re.compile(r"(?<![\w'\"])([0-9]+)[lL]\b")


def _parse_dict(text: str, name: str, python2: bool = False) -> dict:
    try:
        value = ast.literal_eval(text.strip())  # literals only: nothing can execute
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        value = None
        if python2:  # numpy reads headers of versions up to 2.0 with Python 2's long literals
            try:
                value = ast.literal_eval(_PYTHON2_LONG.sub(r"\1", text.strip()))
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                value = None
        if value is None:
            raise _error(name, "the header is not a Python dict literal", "the file is corrupt") from None
    if not isinstance(value, dict) or set(value) != {"descr", "fortran_order", "shape"}:
        raise _error(name, "the header must be a dict with exactly the keys 'descr', "
                     "'fortran_order' and 'shape'", "the file is corrupt")
    return value


def _parse_descr(descr: object, name: str) -> tuple[str | None, bool, int]:
    if not isinstance(descr, str):
        raise _error(name, f"its dtype {descr!r} is structured", "only numeric arrays can be "
                     "decoded: save one field, e.g. numpy.save(path, arr['x']), or read its "
                     "bytes with an explicit offset and dtype, e.g. --offset 0 --dtype uint8")
    match = re.fullmatch(r"([<>|=]?)([a-zA-Z])([0-9]{1,3})", descr, flags=re.ASCII)
    if descr.lstrip("<>|=") == "O" or (match and match.group(2) == "O"):
        raise _error(name, "it holds Python objects (dtype 'O'), stored with pickle, which is "
                     "never loaded", "save a numeric array instead")
    if match and match.group(2) == "V" and 0 < int(match.group(3)) <= 16:
        return None, match.group(1) != ">", int(match.group(3))  # opaque: the user names the type
    row = row_for_npy_code(match.group(2) + str(int(match.group(3)))) if match else None
    if row is None:
        raise _error(name, f"its dtype {descr!r} is not a supported numeric type",
                     "supported: float16/32/64, int8-64, uint8-64, complex64/128, bool")
    order = match.group(1)
    if order == "=":
        order = "<" if struct.pack("=H", 1) == b"\x01\x00" else ">"
    return row.name, order != ">", row.itemsize


def _parse_shape(shape: object, name: str) -> tuple[int, ...]:
    if not isinstance(shape, tuple) or not all(
        isinstance(dim, int) and not isinstance(dim, bool) for dim in shape
    ):
        raise _error(name, f"its shape {shape!r} is not a tuple of integers", "the file is corrupt")
    if len(shape) > _MAX_DIMS:
        raise _error(name, f"its shape has {len(shape)} dimensions, more than {_MAX_DIMS}",
                     "the file is corrupt")
    if any(dim < 0 for dim in shape):
        raise _error(name, f"its shape {_short(shape)} has a negative dimension", "the file is corrupt")
    if 0 in shape and any(dim >= 1 << 63 for dim in shape):
        # An empty array passes the size check below, but numpy cannot make it.
        raise _error(name, f"its shape {_short(shape)} has a dimension of 2**63 or more, which no array "
                     "can have", "the file is corrupt; read its bytes as a raw file with --offset")
    return shape


def _short(shape: tuple[int, ...]) -> str:
    """The shape as text, each huge dimension shortened (a corrupt header may hold 10**4000)."""
    return "(" + ", ".join(str(d) if d < 10**20 else f"<{d.bit_length()}-bit number>" for d in shape) + ")"
