"""Colour images: channel axes, channel order, levels to uint8 RGBA (checked by hand against numpy)."""

import numpy as np
import pytest

from core.display.colour_image import (
    channel_axis_candidates,
    colour_levels,
    colour_plane,
    modes_for_channels,
    to_rgba8,
)

# A 2 x 2 RGB frame: red, green / blue, grey.
FRAME = np.array([[[255, 0, 0], [0, 255, 0]], [[0, 0, 255], [10, 20, 30]]], dtype=np.uint8)


def test_an_rgb_frame_gives_these_rgba_pixels():
    rgba = to_rgba8(FRAME, "RGB")
    assert rgba.dtype == np.uint8 and rgba.shape == (2, 2, 4) and rgba.flags.c_contiguous
    assert rgba.tolist() == [[[255, 0, 0, 255], [0, 255, 0, 255]],
                             [[0, 0, 255, 255], [10, 20, 30, 255]]]


def test_bgr_swaps_the_first_and_third_channel():
    rgba = to_rgba8(FRAME, "BGR")
    assert rgba.tolist() == [[[0, 0, 255, 255], [0, 255, 0, 255]],
                             [[255, 0, 0, 255], [30, 20, 10, 255]]]


def test_rgba_and_bgra_read_the_fourth_channel_as_alpha():
    pixel = np.array([[[1, 2, 3, 4]]], dtype=np.uint8)
    assert to_rgba8(pixel, "RGBA").tolist() == [[[1, 2, 3, 4]]]
    assert to_rgba8(pixel, "BGRA").tolist() == [[[3, 2, 1, 4]]]
    assert to_rgba8(pixel, "RGB").tolist() == [[[1, 2, 3, 255]]]  # a fourth channel is ignored


def test_chw_reads_channel_first():
    chw = np.ascontiguousarray(FRAME.transpose(2, 0, 1))  # (3, 2, 2)
    assert channel_axis_candidates(chw.shape) == (0,)
    plane = colour_plane(chw, 1, 2, 0, (0, 0, 0))
    assert plane.shape == (2, 2, 3) and np.shares_memory(plane, chw)
    assert to_rgba8(plane, "RGB").tolist() == to_rgba8(FRAME, "RGB").tolist()


def test_a_batch_axis_is_fixed_at_its_index():
    batch = np.stack([FRAME.transpose(2, 0, 1), 255 - FRAME.transpose(2, 0, 1)])  # NCHW (2, 3, 2, 2)
    assert channel_axis_candidates(batch.shape) == (1,)
    second = colour_plane(batch, 2, 3, 1, (1, 0, 0, 0))
    assert to_rgba8(second, "RGB")[0, 0].tolist() == [0, 255, 255, 255]
    nhwc = np.stack([FRAME, FRAME[::-1]])  # (2, 2, 2, 3)
    assert to_rgba8(colour_plane(nhwc, 1, 2, 3, (1, 0, 0, 0)), "RGB")[0, 0].tolist() == [0, 0, 255, 255]


def test_swapped_display_axes_transpose_the_image():
    plane = colour_plane(FRAME, 1, 0, 2, (0, 0, 0))
    assert plane[0, 1].tolist() == [0, 0, 255]  # row 0 = column 0 of the frame


def test_candidates_are_the_last_axis_then_the_third_from_last():
    assert channel_axis_candidates((6, 5, 3)) == (2,)
    assert channel_axis_candidates((4, 5, 3)) == (2, 0)  # HWC first, then CHW
    assert channel_axis_candidates((3, 5, 4)) == (2, 0)
    assert channel_axis_candidates((8, 3, 5, 6)) == (1,)
    assert channel_axis_candidates((5, 6)) == ()
    assert channel_axis_candidates((5, 6, 7)) == ()
    assert modes_for_channels(3) == ("RGB", "BGR")
    assert modes_for_channels(4) == ("RGB", "BGR", "RGBA", "BGRA")


def test_float_data_gets_auto_levels_and_rounds_to_255_steps():
    pixels = np.array([[[0.0, 0.5, 1.0], [0.25, 0.75, 1.0]]], dtype=np.float32)
    assert colour_levels(pixels, "RGB") == (0.0, 1.0)
    # 0.5 * 255 = 127.5 -> 128 (round half to even), 0.25 * 255 = 63.75 -> 64
    assert to_rgba8(pixels, "RGB").tolist() == [[[0, 128, 255, 255], [64, 191, 255, 255]]]


def test_sixteen_bit_data_gets_auto_levels_and_given_levels_clip():
    pixels = np.array([[[1000, 2000, 3000]]], dtype=np.uint16)
    assert colour_levels(pixels, "RGB") == (1000.0, 3000.0)
    assert to_rgba8(pixels, "RGB").tolist() == [[[0, 128, 255, 255]]]  # 127.5 -> 128
    assert to_rgba8(pixels, "RGB", levels=(2000, 2255)).tolist() == [[[0, 0, 255, 255]]]


def test_uint8_keeps_its_values_and_nan_is_transparent():
    assert colour_levels(FRAME, "BGR") == (0.0, 255.0)
    pixels = np.array([[[np.nan, 0.0, 1.0], [0.0, 0.0, 2.0]]])
    rgba = to_rgba8(pixels, "RGB")
    assert rgba[0, 0].tolist() == [0, 0, 128, 0] and rgba[0, 1].tolist() == [0, 0, 255, 255]


def test_bfloat16_and_bool_channels():
    import ml_dtypes

    pixels = np.array([[[0.0, 0.5, 1.0]]], dtype=ml_dtypes.bfloat16)
    assert to_rgba8(pixels, "RGB").tolist() == [[[0, 128, 255, 255]]]
    assert to_rgba8(np.array([[[True, False, True]]]), "RGB").tolist() == [[[255, 0, 255, 255]]]


def test_bad_modes_and_shapes_say_what_to_choose():
    with pytest.raises(ValueError, match="RGBA needs 4 channels, the channel axis has 3: choose RGB or BGR"):
        to_rgba8(FRAME, "RGBA")
    with pytest.raises(ValueError, match="colour mode must be one of"):
        to_rgba8(FRAME, "XYZ")
    with pytest.raises(ValueError, match="three distinct axes"):
        colour_plane(FRAME, 0, 0, 2, (0, 0, 0))
    with pytest.raises(TypeError, match="real numbers"):
        to_rgba8(FRAME.astype(np.complex64), "RGB")


def test_uint8_and_bool_have_fixed_levels_and_other_types_automatic_ones():
    from core.display.colour_image import fixed_levels

    assert fixed_levels(np.uint8) == (0.0, 255.0)
    assert fixed_levels(np.bool_) == (0.0, 1.0)
    for dtype in (np.float32, np.float16, np.uint16, np.int8, np.int32):
        assert fixed_levels(dtype) is None, dtype
