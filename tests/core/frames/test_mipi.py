"""MIPI CSI-2 packed RAW10 / RAW12 / RAW14, checked against a packer written from the spec text
(Linux V4L2's pixfmt-srggb10p / 12p / 14p: "each of the first bytes contains the 8 high order
bits of the pixels, and the following bytes the least significant bits of each pixel, in the
same order"), one sample at a time, and against hand-worked bytes."""

from __future__ import annotations

import numpy as np
import pytest

from core.frames.geometry import FrameGeometry
from core.frames.unpack import unpack_frame


def pack_line(samples: list[int], bits: int) -> bytes:
    """One line packed sample by sample, as the spec's byte tables draw it."""
    per_group = 2 if bits == 12 else 4
    low_bits = bits - 8
    out = bytearray()
    for start in range(0, len(samples), per_group):
        group = samples[start:start + per_group]
        out += bytes(sample >> low_bits for sample in group)  # the high 8 bits, in order
        lows = 0
        for position, sample in enumerate(group):  # then the low bits, sample 0 lowest
            lows |= (sample & ((1 << low_bits) - 1)) << (position * low_bits)
        out += lows.to_bytes(per_group * low_bits // 8, "little")
    return bytes(out)


def test_hand_worked_raw10_group():
    # 0x3FF = 11_1111_1111: high 0xFF, low 0b11; 0x000: 0x00, 0b00; 0x155 = 01_0101_0101: 0x55, 0b01;
    # 0x2AA = 10_1010_1010: 0xAA, 0b10. Fifth byte: 10 01 00 11 (sample 3 ... sample 0) = 0x93.
    assert pack_line([0x3FF, 0x000, 0x155, 0x2AA], 10) == bytes([0xFF, 0x00, 0x55, 0xAA, 0x93])
    planes = unpack_frame(bytes([0xFF, 0x00, 0x55, 0xAA, 0x93]) * 2, FrameGeometry("RGGB10P", 4, 2))
    np.testing.assert_array_equal(planes["mosaic"], [[0x3FF, 0x000, 0x155, 0x2AA]] * 2)


def test_hand_worked_raw12_and_raw14_groups():
    # RAW12: 0xABC, 0x123 -> 0xAB, 0x12, then 0x3 (sample 1's low nibble) above 0xC: 0x3C.
    assert pack_line([0xABC, 0x123], 12) == bytes([0xAB, 0x12, 0x3C])
    planes = unpack_frame(bytes([0xAB, 0x12, 0x3C]) * 2, FrameGeometry("BGGR12P", 2, 2))
    np.testing.assert_array_equal(planes["mosaic"], [[0xABC, 0x123]] * 2)
    # RAW14: 0x3FFF, 0, 0x2AAA, 0x1555: high bytes FF 00 AA 55; lows 0x3F, 0, 0x2A, 0x15 in 6-bit
    # fields: 0x15 << 18 | 0x2A << 12 | 0 << 6 | 0x3F = 0x56A03F, little-endian 3F A0 56.
    assert pack_line([0x3FFF, 0, 0x2AAA, 0x1555], 14) == bytes([0xFF, 0x00, 0xAA, 0x55, 0x3F, 0xA0, 0x56])
    planes = unpack_frame(bytes([0xFF, 0x00, 0xAA, 0x55, 0x3F, 0xA0, 0x56]) * 2, FrameGeometry("GRBG14P", 4, 2))
    np.testing.assert_array_equal(planes["mosaic"], [[0x3FFF, 0, 0x2AAA, 0x1555]] * 2)


@pytest.mark.parametrize("bits", [10, 12, 14])
@pytest.mark.parametrize(("width", "align"), [(64, None), (1000, 64), (4, 64)])
def test_round_trip_through_the_spec_packer_with_aligned_lines(bits, width, align):
    height = 6
    rng = np.random.default_rng(bits * 1000 + width)
    samples = rng.integers(0, 1 << bits, size=(height, width))
    samples[0, :4] = [0, (1 << bits) - 1, 1, 1 << (bits - 1)]  # extremes and single bits
    line_bytes = width * bits // 8
    stride = None if align is None else -(-line_bytes // align) * align  # 1000 px RAW10: 1250 -> 1280
    pitch = stride or line_bytes
    data = b"".join(pack_line(row.tolist(), bits).ljust(pitch, b"\xEE") for row in samples)
    geometry = FrameGeometry(f"RGGB{bits}P", width, height, stride=stride)
    planes = unpack_frame(data, geometry)
    assert planes["mosaic"].dtype == np.uint16
    np.testing.assert_array_equal(planes["mosaic"], samples)


def test_bands_of_many_lines_unpack_like_one():
    # More lines than one band holds (256 KiB of input per band): the band edges lose nothing.
    width, height = 2048, 300
    rng = np.random.default_rng(7)
    samples = rng.integers(0, 1024, size=(height, width))
    data = b"".join(pack_line(row.tolist(), 10) for row in samples)
    np.testing.assert_array_equal(unpack_frame(data, FrameGeometry("RGGB10P", width, height))["mosaic"], samples)
