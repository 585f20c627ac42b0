"""Audio files: WAV (RIFF, RIFX, RF64/BW64, WAVE_FORMAT_EXTENSIBLE) and AIFF / AIFF-C.

Both are chunk lists: a 4-byte id, a 4-byte size, the chunk's bytes, padded to an even size.
The walk reads only chunk headers (each step moves forward by at least 8 bytes, so it ends; at
most :data:`MAX_CHUNKS` chunks are visited) and the format chunk.

WAV (little-endian; RIFX big-endian): ``fmt `` gives the format tag (1 PCM, 3 IEEE float,
0xFFFE extensible: the tag is the first two bytes of its SubFormat GUID), the channel count,
the sample rate, the block align (bytes per frame) and the bits per sample; the samples are the
``data`` chunk's bytes. RF64 writes ``0xFFFFFFFF`` sizes and keeps the real 64-bit RIFF and data
sizes in a ``ds64`` chunk right after ``WAVE``. 8-bit PCM is unsigned (``uint8``, silence 128),
wider PCM signed.

AIFF (big-endian): ``COMM`` gives channels, frames, bits and an 80-bit extended-precision sample
rate; ``SSND`` holds an offset and a block size, then the samples from ``SSND data + 8 +
offset``. 8-bit AIFF samples are signed. AIFF-C adds a compression type: ``NONE`` (big-endian
ints), ``sowt`` (little-endian ints), ``fl32``/``fl64`` (big-endian floats); others (u-law,
a-law, IMA ADPCM...) are compressed and listed with a problem.

Shape: ``(frames, channels)``, channels the last axis (frames are interleaved). The one entry
is called ``"samples"``. 24-bit PCM is decoded as ``int24`` (a type beyond TF, unpacked into an
``int32`` copy: docs/semantics.md §2a).
"""

from __future__ import annotations

import struct

from core.formats.entry import ContainerFormat, ContainerListing, TensorEntry
from core.formats.reader import HeaderReader

__all__ = ["AIFF_FORMAT", "FORMAT", "MAX_CHUNKS", "list_aiff", "list_wav", "sniff_aiff", "sniff_wav"]

#: Most chunks visited before giving up (real files have a handful).
MAX_CHUNKS = 10_000
_PCM, _FLOAT, _EXTENSIBLE = 1, 3, 0xFFFE
_UNKNOWN_SIZE = 0xFFFFFFFF


def sniff_wav(head: bytes, size: int) -> bool:
    """``RIFF``/``RIFX``/``RF64``/``BW64``, a size, then ``WAVE``."""
    return len(head) >= 12 and head[:4] in (b"RIFF", b"RIFX", b"RF64", b"BW64") and head[8:12] == b"WAVE"


def sniff_aiff(head: bytes, size: int) -> bool:
    """``FORM``, a size, then ``AIFF`` or ``AIFC``."""
    return len(head) >= 12 and head[:4] == b"FORM" and head[8:12] in (b"AIFF", b"AIFC")


def _chunks(reader: HeaderReader, start: int, end: int, big_endian: bool):
    """``(id, data offset, size)`` of each chunk in ``[start, end)``; a size reaching past the end
    is yielded as given (the caller decides what a truncated chunk means)."""
    position = start
    for _ in range(MAX_CHUNKS):
        if position + 8 > end:
            return
        header = reader.read(position, 8, "chunk header")
        (size,) = struct.unpack(">I" if big_endian else "<I", header[4:])
        yield header[:4], position + 8, size
        position += 8 + size + (size & 1)
    raise reader.error(f"more than {MAX_CHUNKS} chunks", position,
                       "the file is corrupt; open it as raw bytes with an explicit offset")


def list_wav(reader: HeaderReader) -> ContainerListing:
    """The samples of a WAV / RF64 file.

    Raises
    ------
    ContainerError
        No ``fmt `` or ``data`` chunk, a format chunk cut short, or more than :data:`MAX_CHUNKS`
        chunks.
    """
    riff = reader.read(0, 12, "RIFF header")
    big = riff[:4] == b"RIFX"
    endian = ">" if big else "<"
    rf64 = riff[:4] in (b"RF64", b"BW64")
    data_size64 = None
    fmt = None
    data = None
    problems: list[str] = []
    for chunk_id, at, size in _chunks(reader, 12, reader.size, big):
        if chunk_id == b"ds64" and rf64:
            _, data_size64 = struct.unpack("<QQ", reader.read(at, 16, "ds64 chunk"))
        elif chunk_id == b"fmt ":
            fmt = reader.read(at, min(size, 40), "fmt chunk")
        elif chunk_id == b"data":
            if rf64 and size == _UNKNOWN_SIZE and data_size64 is not None:
                size = data_size64
            data = (at, size)
            if fmt is not None:
                break  # the chunks after the samples (LIST, id3...) are not needed
            if rf64 or size + at > reader.size:
                break  # its size says nothing about where the next chunk is
    if fmt is None or len(fmt) < 16:
        raise reader.error("no complete 'fmt ' chunk", 12, "the file is corrupt or not a WAV file")
    if data is None:
        raise reader.error("no 'data' chunk", 12, "the file is corrupt or not a WAV file")
    tag, channels, rate, _, block_align, bits = struct.unpack(endian + "HHIIHH", fmt[:16])
    if tag == _EXTENSIBLE and len(fmt) >= 26:
        (tag,) = struct.unpack(endian + "H", fmt[24:26])
    extras = {"sample rate": rate, "channels": channels, "bits": bits,
              "format": {_PCM: "PCM", _FLOAT: "IEEE float"}.get(tag, f"tag 0x{tag:04X}")}
    offset, nbytes = data
    available = reader.size - offset
    if nbytes > available:
        problems.append(f"WAV data chunk: says {nbytes} bytes but only {available} follow byte "
                        f"{offset} (the file is truncated or still being written); listing "
                        "what is there")
        nbytes = available
    dtype, problem = _sample_type(tag, bits, block_align, channels, little=not big,
                                  unsigned_bytes=True)
    return _listing("wav", reader, dtype, not big, channels, block_align, offset, nbytes,
                    f"{extras['format']} {bits}-bit", extras, problem, problems)


def list_aiff(reader: HeaderReader) -> ContainerListing:
    """The samples of an AIFF / AIFF-C file.

    Raises
    ------
    ContainerError
        No ``COMM`` or ``SSND`` chunk, a ``COMM`` chunk cut short, or too many chunks.
    """
    form = reader.read(0, 12, "FORM header")
    comm = None
    ssnd = None
    for chunk_id, at, size in _chunks(reader, 12, reader.size, big_endian=True):
        if chunk_id == b"COMM":
            comm = reader.read(at, min(size, 24), "COMM chunk")
        elif chunk_id == b"SSND":
            ssnd = (at, size)
        if comm is not None and ssnd is not None:
            break
    if comm is None or len(comm) < 18:
        raise reader.error("no complete 'COMM' chunk", 12, "the file is corrupt or not AIFF")
    if ssnd is None:
        raise reader.error("no 'SSND' chunk", 12, "the file is corrupt or not AIFF")
    channels, frames, bits = struct.unpack(">hIh", comm[:8])
    rate = _extended(comm[8:18])
    compression = b"NONE"
    if form[8:12] == b"AIFC" and len(comm) >= 22:
        compression = comm[18:22]
    at, size = ssnd
    data_offset, _block_size = struct.unpack(">II", reader.read(at, 8, "SSND header"))
    offset = at + 8 + data_offset
    problems: list[str] = []
    header_problem = None
    if not 1 <= bits <= 64 or channels <= 0:  # never a negative length (nor a --length blamed)
        header_problem = (f"the COMM chunk says {channels} channels of {bits} bits per sample "
                          "(AIFF needs 1 or more channels of 1 to 64 bits: the file is corrupt; "
                          f"open its bytes with --offset {offset} --dtype uint8)")
        bits, channels = max(bits, 0), max(channels, 0)
    width = (bits + 7) // 8
    block_align = width * channels
    nbytes = frames * block_align
    available = max(0, reader.size - offset)
    if nbytes > available:
        problems.append(f"AIFF SSND chunk: COMM promises {frames} frames ({nbytes} bytes) but "
                        f"only {available} bytes follow byte {offset} (the file is truncated)")
        nbytes = available
    extras = {"sample rate": rate, "channels": channels, "bits": bits,
              "compression": compression.decode("latin-1")}
    tag, little, problem = _PCM, False, None
    if compression == b"sowt":
        little = True
    elif compression in (b"fl32", b"FL32", b"fl64", b"FL64"):
        tag = _FLOAT
    elif compression != b"NONE":
        problem = (f"AIFF-C samples compressed with {compression!r} are not stored as plain "
                   "numbers and cannot be mapped (convert the file to PCM, e.g. with sox or "
                   "soundfile, then open that)")
    dtype = None
    problem = header_problem or problem
    if problem is None:
        dtype, problem = _sample_type(tag, bits, block_align, channels, little,
                                      unsigned_bytes=False)
    return _listing("aiff", reader, dtype, little, channels, block_align, offset, nbytes,
                    f"{compression.decode('latin-1')} {bits}-bit", extras, problem, problems)


def _sample_type(tag: int, bits: int, block_align: int, channels: int, little: bool,
                 unsigned_bytes: bool) -> tuple[str | None, str | None]:
    """Engine type of one sample, or None and why not."""
    if channels <= 0 or block_align <= 0 or block_align % channels:
        return None, (f"the header says {channels} channels in frames of {block_align} bytes, "
                      "which does not divide (the file is corrupt)")
    width = block_align // channels
    if tag == _FLOAT and width in (4, 8):
        return ("float32" if width == 4 else "float64"), None
    if tag == _PCM:
        if width == 1:
            return ("uint8" if unsigned_bytes else "int8"), None
        if width in (2, 4):
            return ("int16" if width == 2 else "int32"), None
        if width == 3:  # int24, beyond TF: unpacked into int32 (docs/semantics.md §2a)
            return "int24", None
    return None, (f"samples of format tag {tag} with {width} bytes each are not a type the "
                  "engine decodes (open the samples' bytes with --tensor samples --dtype uint8)")


def _listing(format: str, reader: HeaderReader, dtype: str | None, little: bool, channels: int,
             block_align: int, offset: int, nbytes: int, stored: str, extras: dict,
             problem: str | None, problems: list[str]) -> ContainerListing:
    frames = nbytes // block_align if block_align > 0 else 0
    used = frames * block_align if block_align > 0 else nbytes
    if problem is not None:
        problem = f"{format.upper()} samples: {problem}"
    width = block_align // channels if channels > 0 and block_align > 0 else 1
    entry = TensorEntry("samples", dtype, little or width == 1, (frames, max(channels, 0)),
                        offset, used, stored, extras, problem, signal=True)
    return ContainerListing(format, reader.path, (entry,), {k: str(v) for k, v in extras.items()},
                            tuple(problems))


def _extended(raw: bytes) -> float:
    """An 80-bit IEEE 754 extended-precision number (AIFF's sample rate)."""
    exponent_field, mantissa = struct.unpack(">HQ", raw)
    sign = -1.0 if exponent_field & 0x8000 else 1.0
    exponent = exponent_field & 0x7FFF
    if exponent == 0 and mantissa == 0:
        return 0.0
    if exponent == 0x7FFF:
        return float("nan")
    try:
        return sign * mantissa * 2.0 ** (exponent - 16383 - 63)
    except OverflowError:
        return float("inf")


FORMAT = ContainerFormat("wav", sniff_wav, list_wav)
AIFF_FORMAT = ContainerFormat("aiff", sniff_aiff, list_aiff)
