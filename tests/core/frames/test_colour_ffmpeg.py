"""YUV frames ffmpeg writes, turned to RGB here and by ffmpeg's own conversion to rgb24.

Tolerance: at most 1 code of 255 per channel. ffmpeg's swscale works in fixed point (its
coefficients rounded to 1/2^13 and intermediate values to 15 bits with ``accurate_rnd``) while
this engine works in float32 and rounds once at the end, so a value near a half code rounds
either way. Chroma siting is taken out of the comparison: ffmpeg is asked for nearest-neighbour
chroma over full-resolution output (``neighbor+full_chroma_int``), which is the engine's
``"nearest"`` upsampling; the default ``"bilinear"`` is checked by hand below and on flat colour.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.frames.colour import MATRICES, frame_to_rgb, to_uint8, upsample_chroma, yuv_to_rgb
from core.frames.geometry import FrameGeometry
from core.frames.unpack import unpack_frame

W, H = 64, 48
TOLERANCE = 1


def _ffmpeg_rgb(ffmpeg, data, pix_fmt, matrix="bt601", full_range=False):
    vf = (f"scale=in_range={'full' if full_range else 'limited'}:in_color_matrix={matrix}"
          f":flags=neighbor+accurate_rnd+full_chroma_int")
    return np.frombuffer(ffmpeg.convert(data, pix_fmt, "rgb24", vf), np.uint8).reshape(H, W, 3)


def _assert_close(found, expected):
    difference = np.abs(found.astype(int) - expected.astype(int))
    assert difference.max() <= TOLERANCE, (difference.max(), np.argwhere(difference > TOLERANCE)[:5])


@pytest.mark.parametrize(("ours", "theirs"), [
    ("I420", "yuv420p"), ("NV12", "nv12"), ("NV21", "nv21"), ("I422", "yuv422p"), ("YUYV", "yuyv422"),
    ("UYVY", "uyvy422"), ("YVYU", "yvyu422"), ("I444", "yuv444p"), ("P010", "p010le"), ("P016", "p016le"),
])
def test_each_yuv_format_matches_ffmpeg_rgb24(ffmpeg, ours, theirs):
    data = ffmpeg.write(theirs)
    geometry = FrameGeometry(ours, W, H)
    rgb = frame_to_rgb(unpack_frame(data, geometry), geometry, upsample="nearest", as_uint8=True)
    _assert_close(rgb, _ffmpeg_rgb(ffmpeg, data, theirs))


@pytest.mark.parametrize("matrix", ["bt601", "bt709", "bt2020"])
@pytest.mark.parametrize("full_range", [False, True])
def test_each_matrix_and_range_matches_ffmpeg(ffmpeg, matrix, full_range):
    data = ffmpeg.write("nv12")
    geometry = FrameGeometry("NV12", W, H)
    rgb = frame_to_rgb(unpack_frame(data, geometry), geometry, matrix=matrix, full_range=full_range,
                       upsample="nearest")
    _assert_close(rgb, _ffmpeg_rgb(ffmpeg, data, "nv12", matrix, full_range))


def test_ten_bit_frames_give_float_rgb_and_match_ffmpeg(ffmpeg):
    data = ffmpeg.write("p010le")
    geometry = FrameGeometry("P010", W, H)
    rgb = frame_to_rgb(unpack_frame(data, geometry), geometry, matrix="bt709", upsample="nearest")
    assert rgb.dtype == np.float32 and 0 <= rgb.min() and rgb.max() <= 1
    _assert_close(to_uint8(rgb), _ffmpeg_rgb(ffmpeg, data, "p010le", "bt709"))


def test_grey_and_rgb_formats_match_ffmpeg(ffmpeg):
    for ours, theirs in (("GREY8", "gray"), ("GREY16", "gray16le"), ("RGB565", "rgb565le"), ("BGRA", "bgra")):
        data = ffmpeg.write(theirs)
        geometry = FrameGeometry(ours, W, H)
        expected = np.frombuffer(ffmpeg.convert(data, theirs, "rgb24", "scale=flags=accurate_rnd+full_chroma_int"),
                                 np.uint8).reshape(H, W, 3)
        _assert_close(frame_to_rgb(unpack_frame(data, geometry), geometry, as_uint8=True), expected)


def test_matrix_coefficients_and_landmark_colours():
    assert MATRICES == {"bt601": (0.299, 0.114), "bt709": (0.2126, 0.0722), "bt2020": (0.2627, 0.0593)}
    y = np.array([[16, 235, 81, 145]], np.uint8)  # black, white, BT.601 red, BT.601 green (limited)
    u = np.array([[128, 128, 90, 54]], np.uint8)
    v = np.array([[128, 128, 240, 34]], np.uint8)
    rgb = to_uint8(yuv_to_rgb(y, u, v))  # 4:4:4, BT.601 limited by default
    np.testing.assert_array_equal(rgb[0, :2], [[0, 0, 0], [255, 255, 255]])
    assert np.abs(rgb[0, 2].astype(int) - [255, 0, 0]).max() <= 2
    assert np.abs(rgb[0, 3].astype(int) - [0, 255, 0]).max() <= 2
    full = to_uint8(yuv_to_rgb(np.array([[0, 255]], np.uint8), np.full((1, 2), 128, np.uint8),
                               np.full((1, 2), 128, np.uint8), full_range=True))
    np.testing.assert_array_equal(full, [[[0, 0, 0], [255, 255, 255]]])


def test_bilinear_upsampling_by_hand():
    # Horizontal: co-sited with even columns, odd ones the mean of their neighbours, the edge repeated.
    np.testing.assert_array_equal(upsample_chroma(np.array([[0, 4]]), 2, 1, "bilinear"), [[0, 2, 4, 4]])
    # Vertical (4:2:0): halfway between lines, 3/4 of the nearer chroma line and 1/4 of the other.
    np.testing.assert_array_equal(upsample_chroma(np.array([[0], [4]]), 1, 2, "bilinear"), [[0], [1], [3], [4]])
    np.testing.assert_array_equal(upsample_chroma(np.array([[0, 4]]), 2, 1, "nearest"), [[0, 0, 4, 4]])


def test_bilinear_is_the_default_and_exact_on_flat_colour(ffmpeg):
    data = ffmpeg._run(["-f", "lavfi", "-i", f"color=c=0x3060C0:size={W}x{H}", "-pix_fmt", "nv12"])
    geometry = FrameGeometry("NV12", W, H)
    planes = unpack_frame(data, geometry)
    default = frame_to_rgb(planes, geometry)
    np.testing.assert_array_equal(default, frame_to_rgb(planes, geometry, upsample="bilinear"))
    np.testing.assert_array_equal(default, frame_to_rgb(planes, geometry, upsample="nearest"))
    _assert_close(default, _ffmpeg_rgb(ffmpeg, data, "nv12"))
