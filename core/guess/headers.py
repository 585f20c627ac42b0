"""Where the data starts: containers, ``.npy`` headers, text headers and binary headers.

Rules, in the order a guess applies them:

* a container format of :mod:`core.formats.registry` that claims the file gives its first
  mappable tensor's parameters (a listing error is a reason, and the raw guess goes on);
* a ``.npy`` magic gives the header's dtype, byte order, shape, offset and length;
* a binary netpbm header (PGM/PPM/PAM) or a baseline TIFF's first IFD gives the image's
  (:mod:`core.guess.images`);
* a **text header** is a run of at least :data:`MIN_TEXT_BYTES` printable ASCII bytes (and
  line breaks, tabs) at the start, optionally padded with NUL or space bytes; data starts after
  it. Its words are read like a file name (:mod:`core.guess.names`);
* a **binary header** is found per candidate type: the first items that do not look like the
  rest (outside the body's 0.1-99.9% value range widened by its width on each side, for floats a nonzero
  magnitude a million times below the body's smallest, or a jump to their next neighbour larger than
  any in the body), followed by :data:`RUN_ITEMS` items that do, within the first
  :data:`MAX_BINARY_HEADER` bytes;
* a **padded binary header** (:func:`padded_header_end`): the file starts with nonzero bytes (a
  magic, fields) followed by a run of at least :data:`MIN_PADDING` zero bytes that reaches an
  aligned boundary (:data:`HEADER_ALIGNMENTS`); the data starts at the last boundary the run
  reaches (zeros beyond it are data: a dark corner, silence).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.errors import CoreError, describe_error
from core.files.npy_header import PREFIX_BYTES, looks_like_npy, parse_npy_header
from core.files.sources import FileSource
from core.formats.reader import HeaderReader
from core.formats.registry import list_container
from core.guess.images import netpbm_layout, tiff_layout
from core.pipeline.pipeline import DecodeParams

__all__ = ["HEADER_ALIGNMENTS", "MAX_BINARY_HEADER", "MIN_PADDING", "MIN_TEXT_BYTES", "RUN_ITEMS", "KnownLayout",
           "binary_header_end", "known_layout", "padded_header_end", "text_header_end"]

#: Printable bytes at the start that count as a text header.
MIN_TEXT_BYTES = 12
#: Items in a row that must look like the body after a binary header.
RUN_ITEMS = 48
#: Longest binary header looked for (longer ones are rare; a drifting signal's start is not one).
MAX_BINARY_HEADER = 4096
#: Zero bytes that make a header's padding.
MIN_PADDING = 16
#: Where padded headers end.
HEADER_ALIGNMENTS = (4096, 2048, 1024, 512, 256, 128, 64)
_PRINTABLE = np.zeros(256, dtype=bool)
_PRINTABLE[32:127] = True
_PRINTABLE[[9, 10, 13]] = True


@dataclass(frozen=True)
class KnownLayout:
    """A layout the file states (container or ``.npy``), or why it could not be read."""

    params: DecodeParams | None
    reason: str


def known_layout(source: FileSource, index: int, head: bytes) -> KnownLayout | None:
    """The layout a container or ``.npy`` header states, None for a file that states none.

    A container that cannot be listed gives ``params=None`` and the listing's message.
    """
    try:
        listing = list_container(HeaderReader(source, index))
    except CoreError as error:
        return KnownLayout(None, f"it claims to be a container but cannot be listed: {describe_error(error).message}")
    if listing is not None:
        entry = next((e for e in listing.entries if e.local_view), None)
        name = listing.format
        if entry is None:
            return KnownLayout(None, f"a {name} container with no tensor that can be shown")
        return KnownLayout(entry.params(), f"a {name} container (its first tensor, '{entry.name}')")
    if looks_like_npy(head):
        try:
            npy = parse_npy_header(source.bytes_at(index, 0, PREFIX_BYTES), name=source.paths[index],
                                   file_size=source.file_size(index))
        except CoreError as error:
            return KnownLayout(None, f"it has a .npy magic but {describe_error(error).message}")
        if npy.fortran_order:
            shape = tuple(reversed(npy.shape))
            note = " (Fortran order: shown transposed)"
        else:
            shape, note = npy.shape, ""
        params = DecodeParams(dtype=npy.dtype, little_endian=npy.little_endian, offset=npy.data_offset,
                              length=npy.nbytes, shape=shape if shape else None)
        return KnownLayout(params, f"a .npy header (version {npy.version[0]}.{npy.version[1]}) says "
                                   f"{npy.dtype}, shape {npy.shape}{note}")
    image = tiff_layout(source, index, head) or netpbm_layout(head, source.file_size(index))
    if image is not None:
        return KnownLayout(image.params, image.reason)
    return None


def text_header_end(head: bytes) -> tuple[int, str] | None:
    """(offset where data starts, the header's text) for a file that starts with a text header."""
    data = np.frombuffer(head, dtype=np.uint8)
    if data.size < MIN_TEXT_BYTES * 2:
        return None
    stops = np.flatnonzero(~_PRINTABLE[data])
    text_end = int(stops[0]) if stops.size else data.size
    if text_end < MIN_TEXT_BYTES or text_end >= data.size - 8:
        return None
    text = head[:text_end].decode("ascii")
    if sum(ch.isalpha() for ch in text) < 4:
        return None  # printable bytes without words: more likely data (e.g. uint8 values 32..126)
    end = text_end
    padding = data[end:end + 4096]
    pad = 0
    while pad < padding.size and padding[pad] in (0, 32):
        pad += 1
    # Padding runs to an aligned boundary; keep whatever zeros follow it as data.
    for align in (4096, 1024, 512, 256, 128, 64, 16):
        aligned = -(-end // align) * align
        if end < aligned <= end + pad:
            return aligned, text
    return end, text


def padded_header_end(head: bytes, itemsize: int = 1) -> int | None:
    """Where a binary header padded with zeros ends (see the module docstring), or None."""
    data = np.frombuffer(head[:MAX_BINARY_HEADER + 4096], dtype=np.uint8)
    if data.size < 2 * HEADER_ALIGNMENTS[-1] or not data[:16].any():
        return None
    nonzero = np.flatnonzero(data)
    gaps = np.diff(nonzero)
    for i in np.flatnonzero(gaps > MIN_PADDING):
        start, end = int(nonzero[i]) + 1, int(nonzero[i + 1])  # zeros in [start, end)
        if start > MAX_BINARY_HEADER:
            return None
        for align in HEADER_ALIGNMENTS:
            boundary = end // align * align
            if start <= boundary and end - boundary <= boundary and boundary % itemsize == 0 and boundary > 0:
                return boundary
    return None


def binary_header_end(head: np.ndarray, values: np.ndarray, body_values: np.ndarray) -> int | None:
    """Items at the start of ``values`` that do not look like ``body_values`` (the header's
    length in items), or None when the start looks like the rest."""
    if values.size < RUN_ITEMS * 2 or body_values.size < RUN_ITEMS * 4:
        return None
    with np.errstate(all="ignore"):
        body = _as_real(body_values)
        start = _as_real(values)
        finite = body[np.isfinite(body)]
        if finite.size < RUN_ITEMS:
            return None
        low, high = np.quantile(finite, [0.001, 0.999])
        margin = high - low  # generous: a drifting signal leaves its later range
        jumps = np.abs(np.diff(finite))
        largest = float(jumps.max()) * 1.5 if jumps.size else 0.0
        typical = np.isfinite(start) & (start >= low - margin) & (start <= high + margin)
        if values.dtype.kind not in "iu":
            # Floats: a tiny magnitude sits inside the value range but not among the values.
            magnitudes = np.abs(finite[finite != 0])
            if magnitudes.size:
                smallest = float(np.quantile(magnitudes, 0.001)) / 1e6
                typical &= (start == 0) | (np.abs(start) >= smallest)
        step = np.abs(np.diff(start))
        typical[:-1] &= ~(step > largest)
    if typical[:RUN_ITEMS].all():
        return None
    # The first run of RUN_ITEMS typical items.
    run = np.convolve(typical.astype(np.int32), np.ones(RUN_ITEMS, dtype=np.int32), mode="valid")
    found = np.flatnonzero(run == RUN_ITEMS)
    if found.size == 0 or found[0] * values.dtype.itemsize > MAX_BINARY_HEADER:
        return None
    return int(found[0])


def _as_real(values: np.ndarray) -> np.ndarray:
    """Values as float64 (complex ones as their magnitude)."""
    if values.dtype.kind == "c":
        return np.abs(values.astype(np.complex128)).ravel()
    return values.astype(np.float64).ravel()
