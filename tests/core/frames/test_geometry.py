"""FrameGeometry: default and padded strides, plane offsets, frame sizes and sequences, and the
messages that name the field to change."""

from __future__ import annotations

import pytest

from core.errors import CoreError
from core.frames.formats import FORMATS, pixel_format
from core.frames.geometry import FrameGeometry


def _layout(geometry):
    return [(plane.name, plane.offset, plane.line_bytes, plane.stride, plane.rows) for plane in geometry.planes]


def test_packed_defaults_of_each_family():
    # Hand-computed for 64 x 48: a 4:2:0 chroma plane is 24 lines, its planar line 32 bytes.
    assert _layout(FrameGeometry("nv12", 64, 48)) == [("Y", 0, 64, 64, 48), ("UV", 3072, 64, 64, 24)]
    assert _layout(FrameGeometry("I420", 64, 48)) == [("Y", 0, 64, 64, 48), ("U", 3072, 32, 32, 24),
                                                      ("V", 3840, 32, 32, 24)]
    assert _layout(FrameGeometry("YV12", 64, 48))[1][0] == "V"
    assert _layout(FrameGeometry("I422", 64, 48))[2] == ("V", 4608, 32, 32, 48)
    assert _layout(FrameGeometry("P010", 64, 48)) == [("Y", 0, 128, 128, 48), ("UV", 6144, 128, 128, 24)]
    assert _layout(FrameGeometry("YUYV", 64, 48)) == [("YUYV", 0, 128, 128, 48)]
    assert _layout(FrameGeometry("BGRA", 64, 48)) == [("BGRA", 0, 256, 256, 48)]
    assert _layout(FrameGeometry("RGGB10P", 64, 48)) == [("mosaic", 0, 80, 80, 48)]
    assert _layout(FrameGeometry("RGGB12P", 64, 48)) == [("mosaic", 0, 96, 96, 48)]
    assert _layout(FrameGeometry("RGGB14P", 64, 48)) == [("mosaic", 0, 112, 112, 48)]
    assert FrameGeometry("NV12", 64, 48).frame_size == 4608
    assert FrameGeometry("I444", 64, 48).frame_size == 3 * 3072


def test_sixty_four_byte_aligned_raw10_lines():
    # A 1000-pixel RAW10 line is 1250 bytes; 64-byte aligned it strides 1280.
    geometry = FrameGeometry("RGGB10P", 1000, 10, stride=1280)
    assert geometry.planes[0].line_bytes == 1250
    assert geometry.frame_size == 12800
    assert geometry.frames_in(12800 * 3 + 100) == 3


def test_padded_planar_chroma_strides_halve_and_semi_planar_keep_the_stride():
    i420 = FrameGeometry("I420", 64, 48, stride=128)
    assert _layout(i420) == [("Y", 0, 64, 128, 48), ("U", 6144, 32, 64, 24), ("V", 7680, 32, 64, 24)]
    assert i420.frame_size == 9216
    nv12 = FrameGeometry("NV12", 64, 48, stride=128)
    assert _layout(nv12) == [("Y", 0, 64, 128, 48), ("UV", 6144, 64, 128, 24)]


def test_explicit_plane_offsets_and_strides():
    geometry = FrameGeometry("NV12", 64, 48, plane_offsets=(0, 4096), plane_strides=(64, 80))
    assert geometry.stride == 64
    assert geometry.frame_size == 4096 + 80 * 24
    assert geometry.plane_offsets == (0, 4096)


def test_sequences_with_a_header_per_frame():
    geometry = FrameGeometry("GREY8", 4, 2, frame_offset=16)
    assert (geometry.frame_size, geometry.frame_stride) == (8, 24)
    assert geometry.frame_start(0) == 16 and geometry.frame_start(2) == 64
    assert geometry.frames_in(24) == 1
    assert geometry.frames_in(71) == 2
    assert geometry.frames_in(72) == 3
    spaced = FrameGeometry("GREY8", 4, 2, frame_stride=100)
    assert spaced.frames_in(208) == 3 and spaced.frames_in(207) == 2


def test_equal_geometries_compare_equal_whether_defaults_are_given_or_not():
    assert FrameGeometry("nv12", 64, 48) == FrameGeometry("NV12", 64, 48, stride=64, plane_offsets=(0, 3072))


@pytest.mark.parametrize(("kwargs", "field", "words"), [
    (dict(format="NV13", width=4, height=4), "format", "Unknown pixel format 'NV13' (choose one of: I420, YV12, NV12"),
    (dict(format="NV12", width=0, height=0), "width", "width must be at least 1, not 0"),
    (dict(format="NV12", width=4, height=0), "height", "height must be at least 1, not 0"),
    (dict(format="NV12", width=4.0, height=4), "width", "width must be a whole number"),
    (dict(format="NV12", width=63, height=48), "width", "NV12 needs a width that is a multiple of 2, not 63"),
    (dict(format="NV12", width=64, height=47), "height", "NV12 needs a height that is a multiple of 2, not 47"),
    (dict(format="YUYV", width=5, height=3), "width", "YUYV needs a width that is a multiple of 2, not 5"),
    (dict(format="RGGB10P", width=6, height=2), "width", "RGGB10P needs a width that is a multiple of 4, not 6"),
    (dict(format="BGGR8", width=4, height=3), "height", "multiple of 2, not 3"),
    (dict(format="GREY8", width=65536, height=65537), "width", "more than 2^31 pixels"),
    (dict(format="RGB888", width=64, height=2, stride=191), "stride",
     "A stride of 191 bytes is shorter than one line of RGB888 at width 64 (192 bytes; use a stride of at least 192)"),
    (dict(format="NV12", width=4, height=2, plane_strides=(4,)), "plane_strides", "so give 2 plane strides, not 1"),
    (dict(format="NV12", width=4, height=2, plane_strides=(4, 3)), "plane_strides",
     "Plane UV's stride of 3 bytes is shorter than its line of 4 bytes"),
    (dict(format="NV12", width=4, height=2, plane_offsets=(0, 4)), "plane_offsets",
     "Plane Y (bytes 0 to 8) overlaps plane UV at 4 (move its offset to at least 8)"),
    (dict(format="GREY8", width=4, height=2, frame_offset=-1), "frame_offset", "at least 0"),
    (dict(format="GREY8", width=4, height=2, frame_offset=4, frame_stride=10), "frame_stride",
     "A frame stride of 10 bytes is less than a frame's header and planes (12 bytes; use at least 12)"),
])
def test_bad_geometries_name_the_field_to_change(kwargs, field, words):
    with pytest.raises(CoreError) as caught:
        FrameGeometry(**kwargs)
    assert caught.value.field == field
    assert words in caught.value.message


def test_unknown_format_lists_every_known_name():
    with pytest.raises(CoreError) as caught:
        pixel_format("rgb666")
    assert all(name in caught.value.message for name in FORMATS)


def test_a_file_smaller_than_one_frame_says_what_one_frame_needs():
    with pytest.raises(CoreError) as caught:
        FrameGeometry("NV12", 64, 48, stride=128).frames_in(9000)
    assert caught.value.field == "files"
    assert caught.value.message == ("The file has 9000 bytes, less than one 64 x 48 NV12 frame needs "
                                    "(9216 bytes: check the format, size and strides)")


def test_numpy_integers_are_whole_numbers_and_stored_as_int():
    import numpy as np

    geometry = FrameGeometry("GREY8", np.int64(4), np.uint16(2), stride=np.int32(8))
    assert (geometry.width, geometry.height, geometry.stride) == (4, 2, 8)
    assert type(geometry.width) is int and type(geometry.stride) is int
    with pytest.raises(CoreError) as caught:
        FrameGeometry("GREY8", True, 2)
    assert caught.value.field == "width"
