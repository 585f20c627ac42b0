"""Raw mosaics: levels, coloured sites and the bilinear demosaic, by hand and against ffmpeg's
reading of mosaics numpy writes (ffmpeg 5.1 reads Bayer but cannot write it)."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import CoreError
from core.frames.bayer import demosaic_bilinear, mosaic_sites, raw_levels, site_masks
from core.frames.colour import frame_to_rgb
from core.frames.formats import BAYER_PATTERNS
from core.frames.geometry import FrameGeometry
from core.frames.unpack import unpack_frame

W, H = 64, 48


def test_demosaic_of_a_ramp_by_hand():
    mosaic = np.arange(16, dtype=np.float32).reshape(4, 4)  # RGGB: red sites at even rows and columns
    rgb = demosaic_bilinear(mosaic, "RGGB")
    # Red: kept at (0,0), (0,2)...; the mean of the row pair at (0,1); of the column pair at (1,0);
    # of the 4 diagonals at (1,1); the last column mirrors column 2 (reflect keeps the pattern).
    np.testing.assert_array_equal(rgb[..., 0], [[0, 1, 2, 2], [4, 5, 6, 6], [8, 9, 10, 10], [8, 9, 10, 10]])
    # Green at red (0,0): edges (1,0), (0,1), mirrored (-1,0)=(1,0), (0,-1)=(0,1): (4 + 1 + 4 + 1) / 4.
    assert rgb[0, 0, 1] == 2.5
    assert rgb[1, 1, 1] == (1 + 9 + 4 + 6) / 4
    np.testing.assert_array_equal(rgb[1::2, 1::2, 2], mosaic[1::2, 1::2])  # blue kept at its sites


@pytest.mark.parametrize("pattern", BAYER_PATTERNS)
def test_flat_colour_demosaics_to_itself(pattern):
    colour = {"R": 0.25, "G": 0.5, "B": 0.75}
    masks = site_masks((6, 8), pattern)
    mosaic = sum(np.where(masks[name], value, 0) for name, value in colour.items()).astype(np.float32)
    rgb = demosaic_bilinear(mosaic, pattern)
    np.testing.assert_allclose(rgb, np.broadcast_to([0.25, 0.5, 0.75], (6, 8, 3)), atol=1e-7)
    sites = mosaic_sites(mosaic, pattern)
    assert sites[0, 0].tolist() == [colour[pattern[0]] if pattern[0] == name else 0 for name in "RGB"]
    assert (np.count_nonzero(sites, axis=2) == 1).all()


def test_black_and_white_levels():
    values = raw_levels(np.array([[0, 64, 543.5, 1023, 1100]]), 10, black_level=64)
    np.testing.assert_allclose(values, [[0, 0, 0.5, 1, 1]])
    np.testing.assert_allclose(raw_levels(np.array([[100, 200]]), 12, 100, 300), [[0, 0.5]])
    with pytest.raises(CoreError) as caught:
        raw_levels(np.zeros((2, 2)), 10, black_level=512, white_level=512)
    assert caught.value.field == "white_level"
    assert caught.value.message == "The white level (512.0) must be above the black level (512.0)"


@pytest.mark.parametrize("pattern", BAYER_PATTERNS)
def test_sites_and_flat_areas_match_ffmpeg(ffmpeg, pattern):
    rgb = np.frombuffer(ffmpeg.write("rgb24"), np.uint8).reshape(H, W, 3)
    masks = site_masks((H, W), pattern)
    mosaic = sum(np.where(masks[name], rgb[..., channel], 0) for channel, name in enumerate("RGB")).astype(np.uint8)
    expected = np.frombuffer(ffmpeg.convert(mosaic.tobytes(), f"bayer_{pattern.lower()}8", "rgb24"),
                             np.uint8).reshape(H, W, 3)
    geometry = FrameGeometry(f"{pattern}8", W, H)
    ours = frame_to_rgb(unpack_frame(mosaic.tobytes(), geometry), geometry)
    assert ours.dtype == np.uint8
    for channel, name in enumerate("RGB"):  # each site's own colour is its sample, in both
        np.testing.assert_array_equal(ours[..., channel][masks[name]], expected[..., channel][masks[name]])
    # Where the source is one colour over a 5 x 5 window, any interpolation gives that colour.
    flat = np.ones((H, W), bool)
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            flat[2:-2, 2:-2] &= (rgb[2 + dy:H - 2 + dy, 2 + dx:W - 2 + dx] == rgb[2:-2, 2:-2]).all(axis=2)
    flat[:2], flat[-2:], flat[:, :2], flat[:, -2:] = False, False, False, False
    assert flat.sum() > 500  # of 3072 pixels (829 with ffmpeg 5.1): testsrc is mostly flat patches
    np.testing.assert_array_equal(ours[flat], expected[flat])
    np.testing.assert_array_equal(ours[flat], rgb[flat])


def test_sixteen_bit_mosaics_give_float_rgb_between_the_levels():
    mosaic = np.full((4, 4), 4096 + 2048, "<u2")  # 12-bit data in 16-bit words, black at 4096 (numpy writes it)
    geometry = FrameGeometry("BGGR16", 4, 4)
    rgb = frame_to_rgb(unpack_frame(mosaic.tobytes(), geometry), geometry, black_level=4096, white_level=8192)
    assert rgb.dtype == np.float32 and rgb.shape == (4, 4, 3)
    np.testing.assert_array_equal(rgb, np.full((4, 4, 3), 0.5, np.float32))
