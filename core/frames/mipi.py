"""MIPI CSI-2 packed RAW10, RAW12 and RAW14 lines unpacked to 16-bit samples (vectorised numpy).

The packing (MIPI CSI-2's RAW10/12/14 data types, as the Linux kernel's V4L2 documentation of
``V4L2_PIX_FMT_SRGGB10P``, ``..12P``, ``..14P`` describes it): samples are taken in groups in
line order; the first bytes of a group hold each sample's 8 **high** bits, one byte per sample,
in order; the bytes after them hold the remaining low bits of the same samples, in the same
order, starting from the least significant bit:

- **RAW10**: 4 samples in 5 bytes. Bytes 0-3: bits 9-2 of samples 0-3. Byte 4: bits 1-0 of
  sample 0 in its bits 1-0, of sample 1 in bits 3-2, of sample 2 in 5-4, of sample 3 in 7-6.
  Example: samples 0x3FF, 0x000, 0x155, 0x2AA pack to ``FF 00 55 AA 93``.
- **RAW12**: 2 samples in 3 bytes. Bytes 0-1: bits 11-4 of samples 0-1. Byte 2: bits 3-0 of
  sample 0 in its bits 3-0, of sample 1 in bits 7-4.
- **RAW14**: 4 samples in 7 bytes. Bytes 0-3: bits 13-6 of samples 0-3. Bytes 4-6, read as one
  little-endian 24-bit number: bits 5-0 of sample 0 in its bits 5-0, of sample 1 in 11-6, of
  sample 2 in 17-12, of sample 3 in 23-18.

The result is a fresh ``uint16`` array of the samples (LSB-aligned: values up to 2^bits - 1);
the line padding after each line's packed bytes is skipped and no byte outside the lines'
packed bytes is read.

How (the speed is in docs/frames.md): a band of lines at a time (about 256 KiB of input, so
temporaries stay in cache), the high bytes of each group are gathered as one 32- or 16-bit word
(one strided copy), widened and shifted into the output as a contiguous run of bytes, then the
low-bit bytes are spread into the samples' lanes by a lookup table (one 64- or 32-bit word of
lanes per group) and OR-ed in.
"""

from __future__ import annotations

from functools import cache

import numpy as np

__all__ = ["GROUP", "unpack_mipi"]

#: Samples per group and bytes per group, by bit depth.
GROUP = {10: (4, 5), 12: (2, 3), 14: (4, 7)}

_BAND_BYTES = 1 << 18


@cache
def _low_bit_tables(bits: int) -> tuple[tuple[int, np.dtype, np.ndarray], ...]:
    """Per low-bit field of a group: its byte offset in the group, the integer type it is read
    as, and the table from its value to the low bits placed in each sample's 16-bit lane."""
    samples, _ = GROUP[bits]
    lanes = np.uint64 if samples == 4 else np.uint32
    if bits == 14:
        # Bytes 4-5 as a 16-bit word hold bits 0-15 of the 24-bit field, byte 6 bits 16-23.
        word = np.arange(1 << 16, dtype=np.uint64)
        byte = np.arange(256, dtype=np.uint64) << np.uint64(16)
        return ((4, np.dtype("<u2"), _spread(word, 6, 4, lanes)), (6, np.dtype(np.uint8), _spread(byte, 6, 4, lanes)))
    value = np.arange(256, dtype=np.uint64)
    return ((samples, np.dtype(np.uint8), _spread(value, bits - 8, samples, lanes)),)


def _spread(field: np.ndarray, width: int, samples: int, lanes: type) -> np.ndarray:
    """The low-bit ``field`` (``width`` bits per sample, sample 0 lowest) as 16-bit lanes."""
    mask = np.uint64((1 << width) - 1)
    spread = np.zeros(field.shape, np.uint64)
    for sample in range(samples):
        spread |= ((field >> np.uint64(width * sample)) & mask) << np.uint64(16 * sample)
    return spread.astype(lanes)


def unpack_mipi(buffer: np.ndarray, offset: int, stride: int, rows: int, width: int, bits: int) -> np.ndarray:
    """Unpack ``rows`` MIPI CSI-2 RAW``bits`` lines (the module docstring states the packing).

    Parameters
    ----------
    buffer
        A 1-d C-contiguous ``uint8`` array (a view of a map is fine) holding the lines.
    offset
        Byte offset of the first line in ``buffer``.
    stride
        Bytes from one line to the next (at least ``width * bits / 8``).
    rows, width
        Lines, and samples per line (a multiple of the group size: 4, 2, 4).
    bits
        10, 12 or 14.

    Returns
    -------
    numpy.ndarray
        ``(rows, width)`` ``uint16``, a copy.
    """
    samples, size = GROUP[bits]
    groups = width // samples
    tables = _low_bit_tables(bits)
    high_type = np.dtype("<u4") if samples == 4 else np.dtype("<u2")
    out = np.empty((rows, width), np.uint16)
    lanes = out.view(np.uint64 if samples == 4 else np.uint32)
    band = max(1, _BAND_BYTES // max(1, groups * size))
    high = np.empty((min(band, rows), groups), high_type)
    spread = np.empty((min(band, rows), groups), lanes.dtype)
    for start in range(0, rows, band):
        count = min(band, rows - start)
        at = offset + start * stride
        high_words = high[:count]
        high_words[...] = np.ndarray((count, groups), high_type, buffer=buffer, offset=at, strides=(stride, size))
        np.left_shift(high_words.view(np.uint8).reshape(count, width), bits - 8, out=out[start:start + count],
                      dtype=np.uint16)
        band_lanes = lanes[start:start + count]
        for field_offset, field_type, table in tables:
            field = np.ndarray((count, groups), field_type, buffer=buffer, offset=at + field_offset,
                               strides=(stride, size))
            np.take(table, field, out=spread[:count])
            band_lanes |= spread[:count]
    return out
