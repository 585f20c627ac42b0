"""Planes unpacked from frames ffmpeg writes equal the planes of ffmpeg's own planar layout,
byte for byte: each packed or semi-planar frame is ffmpeg's repacking of a planar frame it wrote,
and the planar frame's planes are read straight from its file (Y, then U, then V)."""

from __future__ import annotations

import numpy as np
import pytest

from core.frames.geometry import FrameGeometry
from core.frames.unpack import unpack_frame

W, H = 64, 48


def _planar(data: bytes, chroma_w: int, chroma_h: int, dtype=np.uint8) -> dict[str, np.ndarray]:
    """Y, U, V of an ffmpeg planar file (yuv420p, yuv422p, yuv444p and their 10/16-bit forms)."""
    values = np.frombuffer(data, dtype)
    y = values[:W * H].reshape(H, W)
    u = values[W * H:W * H + chroma_w * chroma_h].reshape(chroma_h, chroma_w)
    v = values[W * H + chroma_w * chroma_h:].reshape(chroma_h, chroma_w)
    return {"Y": y, "U": u, "V": v}


def _assert_planes_equal(found: dict[str, np.ndarray], expected: dict[str, np.ndarray]) -> None:
    assert list(found) == list(expected)
    for name in expected:
        assert found[name].shape == expected[name].shape, name
        np.testing.assert_array_equal(found[name], expected[name], err_msg=name)


@pytest.mark.parametrize(("ours", "theirs", "planar", "chroma"), [
    ("I420", "yuv420p", "yuv420p", (32, 24)),
    ("NV12", "nv12", "yuv420p", (32, 24)),
    ("NV21", "nv21", "yuv420p", (32, 24)),
    ("I422", "yuv422p", "yuv422p", (32, 48)),
    ("YUYV", "yuyv422", "yuv422p", (32, 48)),
    ("UYVY", "uyvy422", "yuv422p", (32, 48)),
    ("YVYU", "yvyu422", "yuv422p", (32, 48)),
    ("I444", "yuv444p", "yuv444p", (64, 48)),
])
def test_eight_bit_yuv_planes_equal_ffmpeg_planar_planes(ffmpeg, ours, theirs, planar, chroma):
    planar_bytes = ffmpeg.write(planar)
    data = ffmpeg.convert(planar_bytes, planar, theirs)
    planes = unpack_frame(data, FrameGeometry(ours, W, H))
    _assert_planes_equal(planes, _planar(planar_bytes, *chroma))
    buffer = np.frombuffer(data, np.uint8)
    assert all(np.shares_memory(plane, buffer) for plane in planes.values())  # views, not copies
    assert not any(plane.flags.writeable for plane in planes.values())


def test_yv12_is_i420_with_v_before_u(ffmpeg):
    planar_bytes = ffmpeg.write("yuv420p")
    expected = _planar(planar_bytes, 32, 24)
    yv12 = expected["Y"].tobytes() + expected["V"].tobytes() + expected["U"].tobytes()  # numpy writes YV12
    _assert_planes_equal(unpack_frame(yv12, FrameGeometry("YV12", W, H)), expected)


@pytest.mark.parametrize(("ours", "theirs", "planar", "words_shift"), [
    ("P010", "p010le", "yuv420p10le", 0),
    ("P016", "p016le", "yuv420p16le", 0),
])
def test_sixteen_bit_semi_planar_samples_equal_ffmpeg_planar_samples(ffmpeg, ours, theirs, planar, words_shift):
    planar_bytes = ffmpeg.write(planar)
    expected = _planar(planar_bytes, 32, 24, np.dtype("<u2"))
    planes = unpack_frame(ffmpeg.convert(planar_bytes, planar, theirs), FrameGeometry(ours, W, H))
    _assert_planes_equal(planes, expected)
    if ours == "P010":
        assert int(planes["Y"].max()) <= 1023 and int(planes["Y"].max()) > 255  # 10-bit values, shifted down


def test_padded_lines_and_planes_are_skipped(ffmpeg):
    # The same NV12 frame in 128-byte lines after a 32-byte header per frame, padding written by numpy.
    data = ffmpeg.convert(ffmpeg.write("yuv420p"), "yuv420p", "nv12")
    lines = np.frombuffer(data, np.uint8).reshape(H + H // 2, W)
    padded = np.full((H + H // 2, 128), 0xEE, np.uint8)
    padded[:, :W] = lines
    header = b"\xAA" * 32
    geometry = FrameGeometry("NV12", W, H, stride=128, frame_offset=32)
    planes = unpack_frame(header + padded.tobytes() + header + padded.tobytes(), geometry, frame=1)
    _assert_planes_equal(planes, unpack_frame(data, FrameGeometry("NV12", W, H)))


@pytest.mark.parametrize("theirs", ["rgb24", "bgr24", "argb", "rgba", "bgra"])
def test_rgb_channels_equal_ffmpeg_rgb24(ffmpeg, theirs):
    rgb = np.frombuffer(ffmpeg.write("rgb24"), np.uint8).reshape(H, W, 3)
    ours = {"rgb24": "RGB888", "bgr24": "BGR888"}.get(theirs, theirs.upper())
    planes = unpack_frame(ffmpeg.convert(rgb.tobytes(), "rgb24", theirs), FrameGeometry(ours, W, H))
    for channel, name in enumerate("RGB"):
        np.testing.assert_array_equal(planes[name], rgb[..., channel])
    if "A" in ours:
        assert (planes["A"] == 255).all()


@pytest.mark.parametrize(("ours", "theirs"), [("RGB565", "rgb565le"), ("BGR565", "bgr565le")])
def test_rgb565_fields_are_the_top_bits_of_ffmpeg_expansion(ffmpeg, ours, theirs):
    data = ffmpeg.write(theirs)
    expanded = np.frombuffer(ffmpeg.convert(data, theirs, "rgb24"), np.uint8).reshape(H, W, 3)
    planes = unpack_frame(data, FrameGeometry(ours, W, H))
    for channel, (name, bits) in enumerate(zip("RGB", (5, 6, 5))):
        np.testing.assert_array_equal(planes[name], expanded[..., channel] >> (8 - bits))
    assert int(planes["G"].max()) == 63 and int(planes["R"].max()) == 31


@pytest.mark.parametrize(("ours", "theirs", "dtype"), [
    ("GREY8", "gray", np.uint8), ("GREY10", "gray10le", "<u2"), ("GREY12", "gray12le", "<u2"),
    ("GREY16", "gray16le", "<u2"),
])
def test_grey_samples_equal_ffmpeg_gray(ffmpeg, ours, theirs, dtype):
    data = ffmpeg.write(theirs)
    expected = np.frombuffer(data, dtype).reshape(H, W)
    planes = unpack_frame(data, FrameGeometry(ours, W, H))
    np.testing.assert_array_equal(planes["Y"], expected)
    assert np.shares_memory(planes["Y"], np.frombuffer(data, np.uint8))


@pytest.mark.parametrize(("ours", "theirs", "shift"), [("GREY10_MSB", "gray10le", 6), ("GREY12_MSB", "gray12le", 4)])
def test_msb_aligned_grey_is_shifted_down(ffmpeg, ours, theirs, shift):
    expected = np.frombuffer(ffmpeg.write(theirs), "<u2").reshape(H, W)
    msb = (expected << shift).astype("<u2").tobytes()  # numpy writes the MSB-aligned words
    planes = unpack_frame(msb, FrameGeometry(ours, W, H))
    np.testing.assert_array_equal(planes["Y"], expected)
    assert planes["Y"].dtype == np.uint16


def test_bayer_sites_keep_ffmpeg_s_reading_of_the_pattern(ffmpeg):
    # numpy writes a 16-bit RGGB mosaic; ffmpeg reads it as bayer_rggb16le: each site's own
    # channel of ffmpeg's RGB is that site's sample, so ffmpeg and the unpacker agree on the
    # pattern's orientation and on the words' byte order.
    mosaic = (np.arange(W * H, dtype=np.uint32).reshape(H, W) * 21 % 65536).astype("<u2")
    planes = unpack_frame(mosaic.tobytes(), FrameGeometry("RGGB16", W, H))
    np.testing.assert_array_equal(planes["mosaic"], mosaic)
    rgb = np.frombuffer(ffmpeg.convert(mosaic.tobytes(), "bayer_rggb16le", "rgb48le"), "<u2").reshape(H, W, 3)
    np.testing.assert_array_equal(rgb[0::2, 0::2, 0], mosaic[0::2, 0::2])
    np.testing.assert_array_equal(rgb[1::2, 1::2, 2], mosaic[1::2, 1::2])
    np.testing.assert_array_equal(rgb[0::2, 1::2, 1], mosaic[0::2, 1::2])
