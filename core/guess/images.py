"""Image files that state their layout: binary netpbm (PGM/PPM/PAM) and baseline TIFF.

Rules (bounded reads: the head sample, plus at most :data:`MAX_IFD_BYTES` for a TIFF's tables):

* **netpbm** (netpbm's specification): ``P5`` (gray) or ``P6`` (RGB), then whitespace-separated
  width, height and maxval, with ``#`` comments to the end of a line among them, then exactly one
  whitespace byte; the raster follows. A maxval below 256 is uint8, else big-endian uint16 (the
  specification's byte order). ``P7`` (PAM) gives ``WIDTH``, ``HEIGHT``, ``DEPTH``, ``MAXVAL``
  lines up to ``ENDHDR``. Shape: ``(height, width)`` or ``(height, width, channels)``. The ASCII
  variants (``P1``-``P3``) and bit maps (``P4``) are not a view of the bytes: not recognised.
* **TIFF**: ``II*\\0`` or ``MM\\0*`` and the first IFD, parsed with :mod:`struct`: ImageWidth,
  ImageLength, BitsPerSample, SamplesPerPixel, SampleFormat, Compression, PlanarConfiguration,
  StripOffsets, StripByteCounts (or TileOffsets). An uncompressed image in one run of contiguous
  strips (chunky samples, 8/16/32/64-bit) gives its exact offset, length, type, byte order and
  shape. Anything else (compressed, tiled, planar, strips with gaps) is a reason, and the raw guess
  goes on.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from core.files.sources import FileSource
from core.pipeline.params import DecodeParams

__all__ = ["MAX_IFD_BYTES", "ImageLayout", "netpbm_layout", "tiff_layout"]

#: Bytes of a TIFF's IFD and strip tables read at most.
MAX_IFD_BYTES = 256 * 1024

_PNM = re.compile(rb"\A(P[56])((?:\s+|#[^\n]*\n)+)(\d+)((?:\s+|#[^\n]*\n)+)(\d+)((?:\s+|#[^\n]*\n)+)(\d+)\s")
_PNM_CHANNELS = {b"P5": 1, b"P6": 3}
_TIFF_TYPES = {1: ("B", 1), 3: ("H", 2), 4: ("I", 4), 16: ("Q", 8)}  # BYTE, SHORT, LONG, LONG8
_SAMPLE_TYPES = {(1, 8): "uint8", (1, 16): "uint16", (1, 32): "uint32", (1, 64): "uint64",
                 (2, 8): "int8", (2, 16): "int16", (2, 32): "int32", (2, 64): "int64",
                 (3, 16): "float16", (3, 32): "float32", (3, 64): "float64"}


@dataclass(frozen=True)
class ImageLayout:
    """What an image header says: parameters (None: recognised but not a view) and why."""

    params: DecodeParams | None
    reason: str


def _shape(height: int, width: int, channels: int) -> tuple[int, ...]:
    return (height, width) if channels == 1 else (height, width, channels)


def netpbm_layout(head: bytes, size: int) -> ImageLayout | None:
    """The layout of a binary PGM/PPM/PAM file starting with ``head``, None for other files."""
    if head[:2] == b"P7":
        return _pam_layout(head, size)
    match = _PNM.match(head[:1024])
    if match is None:
        return None
    magic, width, height, maxval = match.group(1), int(match.group(3)), int(match.group(5)), int(match.group(7))
    return _pnm_params(magic.decode(), width, height, _PNM_CHANNELS[magic], maxval, match.end(), size)


def _pam_layout(head: bytes, size: int) -> ImageLayout | None:
    end = head.find(b"ENDHDR\n", 0, 4096)
    if end < 0:
        return None
    fields = {}
    for line in head[3:end].split(b"\n"):
        words = line.split()
        if len(words) >= 2 and not line.startswith(b"#") and words[1].isdigit():
            fields[words[0].decode("ascii", "replace").upper()] = int(words[1])
    if not {"WIDTH", "HEIGHT", "DEPTH", "MAXVAL"} <= fields.keys():
        return ImageLayout(None, "a PAM header without WIDTH, HEIGHT, DEPTH and MAXVAL")
    return _pnm_params("P7", fields["WIDTH"], fields["HEIGHT"], fields["DEPTH"], fields["MAXVAL"],
                       end + len(b"ENDHDR\n"), size)


def _pnm_params(magic: str, width: int, height: int, channels: int, maxval: int, offset: int,
                size: int) -> ImageLayout:
    if not (0 < maxval < 65536) or width <= 0 or height <= 0 or channels <= 0:
        return ImageLayout(None, f"a {magic} header with width {width}, height {height}, maxval {maxval}: "
                                 "not a valid netpbm image")
    itemsize = 1 if maxval < 256 else 2
    length = width * height * channels * itemsize
    if offset + length > size:
        return ImageLayout(None, f"a {magic} header says {width}x{height}x{channels} samples of {itemsize} byte(s), "
                                 f"more than the {size - offset} bytes after it")
    dtype = "uint8" if itemsize == 1 else "uint16"
    params = DecodeParams(dtype=dtype, little_endian=itemsize == 1, offset=offset, length=length,
                          shape=_shape(height, width, channels))
    order = "" if itemsize == 1 else ", big-endian as netpbm specifies"
    return ImageLayout(params, f"a netpbm {magic} header: {width}x{height}, {channels} channel(s), maxval {maxval} "
                               f"({dtype}{order}), data after {offset} header bytes")


def tiff_layout(source: FileSource, index: int, head: bytes) -> ImageLayout | None:
    """The layout of a baseline TIFF's first image, None for a file that is not a TIFF."""
    if head[:4] == b"II*\0":
        order = "<"
    elif head[:4] == b"MM\0*":
        order = ">"
    else:
        return None
    size = source.file_size(index)

    def read(offset: int, nbytes: int) -> bytes:
        if offset < 0 or nbytes < 0 or offset + nbytes > size or nbytes > MAX_IFD_BYTES:
            raise ValueError(f"a table at byte {offset} of {nbytes} bytes lies outside the file or the read bound")
        if offset + nbytes <= len(head):
            return head[offset:offset + nbytes]
        return source.bytes_at(index, offset, nbytes)

    try:
        (ifd,) = struct.unpack(order + "I", read(4, 4))
        (count,) = struct.unpack(order + "H", read(ifd, 2))
        table = read(ifd + 2, 12 * count)
        tags: dict[int, tuple[int, ...]] = {}
        for i in range(count):
            tag, kind, n, value = struct.unpack(order + "HHI4s", table[12 * i:12 * i + 12])
            if kind not in _TIFF_TYPES or n == 0:
                continue
            code, width = _TIFF_TYPES[kind]
            raw = value[:n * width] if n * width <= 4 else read(struct.unpack(order + "I", value)[0], n * width)
            tags[tag] = struct.unpack(f"{order}{n}{code}", raw)
    except (ValueError, struct.error) as error:
        return ImageLayout(None, f"a TIFF whose first IFD cannot be read ({error})")
    byte_order = "little-endian" if order == "<" else "big-endian"

    def tag(number: int, default: int | None = None) -> int | None:
        values = tags.get(number)
        return values[0] if values else default

    width, height = tag(256), tag(257)
    samples, compression, planar = tag(277, 1), tag(259, 1), tag(284, 1)
    bits = tags.get(258, (1,))
    sample_format = tag(339, 1)
    if not width or not height:
        return ImageLayout(None, "a TIFF without ImageWidth or ImageLength (or with zero)")
    if compression != 1:
        return ImageLayout(None, f"a TIFF compressed with scheme {compression}: its pixels are not a view of the file")
    if 322 in tags or 324 in tags:
        return ImageLayout(None, "a tiled TIFF: its pixels are not one run of the file")
    if len(set(bits)) != 1 or (sample_format, bits[0]) not in _SAMPLE_TYPES:
        return ImageLayout(None, f"a TIFF with {bits} bits per sample, format {sample_format}: not a whole type")
    if not samples:
        return ImageLayout(None, "a TIFF with zero SamplesPerPixel")
    if planar != 1 and samples > 1:
        return ImageLayout(None, "a TIFF with planar samples: not one interleaved run")
    offsets, counts = tags.get(273), tags.get(279)
    if not offsets or not counts or len(offsets) != len(counts):
        return ImageLayout(None, "a TIFF without matching StripOffsets and StripByteCounts")
    if any(offsets[i] + counts[i] != offsets[i + 1] for i in range(len(offsets) - 1)):
        return ImageLayout(None, f"a TIFF whose {len(offsets)} strips are not contiguous in the file")
    dtype = _SAMPLE_TYPES[sample_format, bits[0]]
    length = width * height * samples * bits[0] // 8
    if offsets[0] + length > size:
        return ImageLayout(None, f"a TIFF whose strips end past the file's {size} bytes")
    params = DecodeParams(dtype=dtype, little_endian=order == "<", offset=offsets[0], length=length,
                          shape=_shape(height, width, samples))
    return ImageLayout(params, f"a TIFF ({byte_order}) IFD says {width}x{height}, {samples} sample(s) of {dtype}, "
                               f"uncompressed in {len(offsets)} contiguous strip(s) from byte {offsets[0]}")
