"""IDX files (the MNIST format): one big-endian array after a small header.

Layout (http://yann.lecun.com/exdb/mnist/, "THE IDX FILE FORMAT"): two zero bytes, a type byte
(``0x08`` uint8, ``0x09`` int8, ``0x0B`` int16, ``0x0C`` int32, ``0x0D`` float32, ``0x0E``
float64), the number of dimensions ``n``, then ``n`` big-endian ``uint32`` sizes (C order:
images x rows x columns), then the data, big-endian, from byte ``4 + 4 n``. The one entry is
called ``"data"``. A file shorter than its dimensions promise is listed with a problem; bytes
after the data are trailing (the pipeline reports them).
"""

from __future__ import annotations

import math
import struct

from core.formats.entry import ContainerFormat, ContainerListing, TensorEntry
from core.formats.reader import HeaderReader

__all__ = ["FORMAT", "IDX_TYPES", "list_idx", "sniff_idx"]

#: IDX type byte -> (engine type, item size).
IDX_TYPES: dict[int, tuple[str, int]] = {
    0x08: ("uint8", 1), 0x09: ("int8", 1), 0x0B: ("int16", 2), 0x0C: ("int32", 4),
    0x0D: ("float32", 4), 0x0E: ("float64", 8),
}
#: More dimensions than any IDX file uses; a larger count is not IDX.
_MAX_DIMS = 16


def sniff_idx(head: bytes, size: int) -> bool:
    """Zero, zero, a known type byte, 1 to 16 dimensions whose header fits in the file, none of
    them zero. (The zero test keeps other formats out: a TFRecord file starts with a 64-bit
    record length whose high 32 bits, IDX's first dimension, are zero.)"""
    if not (len(head) >= 4 and head[0] == 0 and head[1] == 0 and head[2] in IDX_TYPES
            and 1 <= head[3] <= _MAX_DIMS and 4 + 4 * head[3] <= min(size, len(head))):
        return False
    return 0 not in struct.unpack(f">{head[3]}I", head[4:4 + 4 * head[3]])


def list_idx(reader: HeaderReader) -> ContainerListing:
    """The one array of an IDX file.

    Raises
    ------
    ContainerError
        The header is cut short.
    """
    magic = reader.read(0, 4, "magic")
    dtype, itemsize = IDX_TYPES[magic[2]]
    ndim = magic[3]
    shape = struct.unpack(f">{ndim}I", reader.read(4, 4 * ndim, "dimensions"))
    offset = 4 + 4 * ndim
    nbytes = math.prod(shape) * itemsize
    problem = None
    if offset + nbytes > reader.size:
        problem = (f"IDX data: the dimensions {shape} of {dtype} need {nbytes} bytes from byte "
                   f"{offset} but the file has {reader.size - offset} (the file is truncated; "
                   f"open it as raw bytes with --offset {offset} --dtype {dtype} --big-endian)")
    entry = TensorEntry("data", dtype, itemsize == 1, tuple(shape), offset, nbytes,
                        f"0x{magic[2]:02X}", {"type byte": f"0x{magic[2]:02X}"}, problem)
    return ContainerListing("idx", reader.path, (entry,))


FORMAT = ContainerFormat("idx", sniff_idx, list_idx)
