"""What the unpacker and the colour conversion refuse, and the messages that say which field to change."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import CoreError
from core.frames.colour import frame_to_rgb, yuv_to_rgb
from core.frames.geometry import FrameGeometry
from core.frames.unpack import unpack_frame


def _refusal(call, *args, **kwargs):
    with pytest.raises(CoreError) as caught:
        call(*args, **kwargs)
    return caught.value


def test_a_short_buffer_says_how_many_bytes_one_frame_needs():
    error = _refusal(unpack_frame, bytes(100), FrameGeometry("NV12", 16, 8))
    assert error.field == "files"
    assert "The file has 100 bytes, less than one 16 x 8 NV12 frame needs (192 bytes" in error.message


def test_frames_out_of_range():
    error = _refusal(unpack_frame, bytes(192 * 2), FrameGeometry("NV12", 16, 8), frame=2)
    assert (error.field, error.message) == ("frame", "Frame 2 is not in the file: it holds 2 frame(s), 0 to 1")
    assert _refusal(unpack_frame, bytes(192), FrameGeometry("NV12", 16, 8), frame=-1).field == "frame"


def test_an_array_that_is_not_bytes():
    error = _refusal(unpack_frame, np.zeros((8, 16), np.float32), FrameGeometry("GREY8", 16, 8))
    assert error.field == "files" and "not a 2-d float32 array" in error.message


def test_a_map_like_read_only_buffer_is_viewed_not_copied():
    data = np.arange(256, dtype=np.uint8)
    data.flags.writeable = False
    planes = unpack_frame(data, FrameGeometry("GREY8", 16, 16))
    assert np.shares_memory(planes["Y"], data) and planes["Y"][1, 0] == 16


def test_unknown_matrix_and_upsampling():
    geometry = FrameGeometry("I444", 2, 2)
    planes = unpack_frame(bytes(12), geometry)
    error = _refusal(frame_to_rgb, planes, geometry, matrix="bt470")
    assert (error.field, error.message) == ("matrix", "Unknown matrix 'bt470' (choose one of: bt601, bt709, bt2020)")
    assert frame_to_rgb(planes, geometry, matrix="BT.709").shape == (2, 2, 3)  # names as the standards write them
    assert _refusal(frame_to_rgb, planes, geometry, upsample="cubic").field == "upsampling"
    assert _refusal(yuv_to_rgb, np.zeros((4, 4)), np.zeros((3, 3)), np.zeros((3, 3))).field == "format"


def test_copies_are_checked_against_the_copy_budget_before_allocating(monkeypatch):
    monkeypatch.setattr("core.budget.COPY_BUDGET_BYTES", 1000)
    geometry = FrameGeometry("RGGB10P", 32, 16)  # 512 samples: 1024 bytes of uint16
    data = bytes(geometry.frame_size)
    error = _refusal(unpack_frame, data, geometry)
    assert error.field == "width"
    assert error.message.startswith("unpacking a 32 x 16 RGGB10P frame would copy 1.0 KiB, above the 1000 bytes copy "
                                    "budget (choose a smaller width and height")
    grey = FrameGeometry("GREY8", 32, 16)
    planes = unpack_frame(bytes(512), grey)  # a view: no copy, no check
    assert _refusal(frame_to_rgb, planes, grey).message.startswith("converting a 32 x 16 frame to RGB would copy")


@pytest.mark.parametrize("bits", [10, 12, 14])
def test_bayer_words_lsb_aligned_are_views_msb_aligned_are_shifted_copies(bits):
    samples = (np.arange(32, dtype=np.uint16).reshape(4, 8) * 97) % (1 << bits)  # numpy writes the words
    lsb = samples.astype("<u2").tobytes()
    planes = unpack_frame(lsb, FrameGeometry(f"GBRG{bits}", 8, 4))
    np.testing.assert_array_equal(planes["mosaic"], samples)
    assert np.shares_memory(planes["mosaic"], np.frombuffer(lsb, np.uint8))
    msb = (samples << (16 - bits)).astype("<u2").tobytes()
    planes = unpack_frame(msb, FrameGeometry(f"GBRG{bits}_MSB", 8, 4))
    np.testing.assert_array_equal(planes["mosaic"], samples)
    assert not np.shares_memory(planes["mosaic"], np.frombuffer(msb, np.uint8))
