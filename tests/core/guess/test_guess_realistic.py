"""The guess on realistic raw dumps (issue 30, "guessing that generalises"): one test per class of
miss (interleaved channels, 16-bit frames, zero-padded and named headers, netpbm and TIFF headers,
pixel formats named with a resolution), and a fixed sample of the generated corpus
(benchmarks/guess_corpus.py), one file per kind, with its true layout."""

from __future__ import annotations

import io

import numpy as np
import pytest
import tifffile

from benchmarks.guess_corpus import TUNING_SEEDS, _depth, _field, _rgb, build_corpus, matches
from core.guess import guess_report
from core.guess.names import parse_hints


def _best(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    report = guess_report(str(path))
    assert report.convincing, report.verdict
    return report.candidates[0]


def _layout(candidate):
    p = candidate.params
    return p.dtype, p.little_endian, p.offset or 0, p.shape


def _stereo(n=20000):
    t = np.arange(n) / 16000
    left = np.sin(2 * np.pi * 440 * t) * (0.6 + 0.4 * np.sin(2 * np.pi * t))
    right = np.roll(left, 11) * 0.8 + 0.2 * np.sin(2 * np.pi * 97 * t)
    return np.stack([left, right], axis=1)


def test_stereo_int16_is_two_channels_not_int32(tmp_path):
    data = np.round(_stereo() * 12000).astype("<i2").tobytes()
    best = _best(tmp_path, "capture.raw", data)
    assert _layout(best) == ("int16", True, 0, (20000, 2))
    assert any("2 interleaved channels" in r for r in best.reasons)


def test_an_int32_read_of_stereo_samples_says_why_it_lost(tmp_path):
    data = np.round(_stereo() * 12000).astype("<i2").tobytes()
    path = tmp_path / "capture.raw"
    path.write_bytes(data)
    int32 = next(c for c in guess_report(str(path), limit=50).candidates if c.params.dtype == "int32")
    assert any("each 2-byte half reads as its own smooth signal" in r for r in int32.reasons)


def test_interleaved_rgb_frame_without_a_name(tmp_path):
    frame = np.round(_rgb(np.random.default_rng(4), 120, 160)).astype(np.uint8)
    assert _layout(_best(tmp_path, "cam.bin", frame.tobytes())) == ("uint8", True, 0, (120, 160, 3))


def test_float32_log_of_six_columns(tmp_path):
    t = np.arange(4000) / 100
    columns = [level + scale * np.sin(t * f) for level, scale, f in
               ((20, 0.1, 0.3), (1013, 1, 0.1), (0, 9.81, 1.3), (-5, 0.1, 0.7), (0, 1, 0.2), (20, 100, 0.05))]
    data = np.stack(columns, axis=1).astype("<f4").tobytes()
    assert _layout(_best(tmp_path, "sensors.dat", data)) == ("float32", True, 0, (4000, 6))


def test_big_endian_depth_map_is_uint16_not_float16(tmp_path):
    depth = np.round(_depth(np.random.default_rng(9), 172, 224)).astype(">u2")
    best = _best(tmp_path, "depth.bin", depth.tobytes())
    assert _layout(best)[:3] == ("uint16", False, 0)
    assert best.params.shape[-1] == 224


def test_magic_padded_with_zeros_to_64_is_a_64_byte_header(tmp_path):
    depth = np.round(_depth(np.random.default_rng(2), 240, 320)).astype("<u2")
    best = _best(tmp_path, "frame.bin", b"DPT1" + bytes(60) + depth.tobytes())
    assert _layout(best) == ("uint16", True, 64, (240, 320))
    assert "a header padded with zeros to byte 64" in best.reasons


def test_a_512_byte_header_of_fields(tmp_path):
    depth = np.round(_depth(np.random.default_rng(3), 200, 256)).astype("<u2")
    header = (b"DEPTHCAM" + np.array([7, 2, 256, 200, 16, 123456789], "<u4").tobytes()).ljust(512, b"\0")
    best = _best(tmp_path, "frame.bin", header + depth.tobytes())
    assert _layout(best)[:3] in (("uint16", True, 512), ("int16", True, 512))


def test_header_length_in_the_name(tmp_path):
    rng = np.random.default_rng(5)
    header = rng.integers(1, 256, 64, dtype=np.uint8).tobytes()
    depth = np.round(_depth(rng, 120, 160)).astype("<u2")
    best = _best(tmp_path, "frame_hdr64.bin", header + depth.tobytes())
    assert _layout(best)[:3] == ("uint16", True, 64)
    assert "the name says a header of 64 bytes" in best.reasons


def test_nv12_named_with_its_resolution(tmp_path):
    rng = np.random.default_rng(6)
    luma = np.round(np.clip(128 + 50 * _field(rng, 480, 640, 10.0), 16, 235)).astype(np.uint8)
    chroma = np.full((240, 640), 128, np.uint8) + np.round(10 * _field(rng, 240, 640, 6.0)).astype(np.uint8)
    best = _best(tmp_path, "video_640x480_nv12.yuv", luma.tobytes() + chroma.tobytes())
    assert _layout(best) == ("uint8", True, 0, (720, 640))


def test_rgb24_named_with_its_resolution(tmp_path):
    frame = np.round(_rgb(np.random.default_rng(7), 156, 200)).astype(np.uint8)
    assert _layout(_best(tmp_path, "frame_200x156_rgb24.raw", frame.tobytes())) == ("uint8", True, 0, (156, 200, 3))


def test_name_words_for_headers_channels_and_pixel_formats():
    hints = parse_hints("frame_hdr512_6ch")
    assert (hints.header, hints.channels) == (512, 6)
    hints = parse_hints("cam_1920x1080_nv12")
    assert hints.dims == ((1920, 1080),) and hints.pixel_format.name == "nv12" and hints.dtypes == ("uint8",)
    assert parse_hints("music_stereo_s16le").channels == 2
    assert parse_hints("offset").header is None and parse_hints("header").empty


@pytest.mark.parametrize("comment", [False, True])
def test_pgm_16_bit(tmp_path, comment):
    image = (np.arange(120 * 160, dtype=np.uint32).reshape(120, 160) * 3 % 65536).astype(">u2")
    header = b"P5\n" + (b"# made by hand\n" if comment else b"") + b"160 120\n65535\n"
    path = tmp_path / "scan.pgm"
    path.write_bytes(header + image.tobytes())
    report = guess_report(str(path))
    assert len(report.candidates) == 1
    params = report.candidates[0].params
    assert (params.dtype, params.little_endian, params.offset, params.length, params.shape) == \
        ("uint16", False, len(header), 120 * 160 * 2, (120, 160))
    assert report.candidates[0].reasons[0].startswith("a netpbm P5 header: 160x120, 1 channel(s), maxval 65535")


def test_ppm_8_bit(tmp_path):
    path = tmp_path / "photo.bin"
    path.write_bytes(b"P6 40 30 255\n" + bytes(range(256)) * 14 + bytes(40 * 30 * 3 - 256 * 14))
    params = guess_report(str(path)).candidates[0].params
    assert (params.dtype, params.offset, params.length, params.shape) == ("uint8", 13, 3600, (30, 40, 3))


def test_a_truncated_pgm_is_a_reason_and_the_raw_guess_goes_on(tmp_path):
    path = tmp_path / "cut.pgm"
    path.write_bytes(b"P5\n640 480\n255\n" + bytes(range(256)) * 40)
    report = guess_report(str(path))
    assert any("a P5 header says 640x480x1 samples of 1 byte(s), more than the 10240 bytes after it" in r
               for r in report.reasons)


@pytest.mark.parametrize("byteorder, dtype", [("<", "uint16"), (">", "uint16"), (">", "float32"), ("<", "uint8")])
def test_tiff_strips_give_the_exact_layout(tmp_path, byteorder, dtype):
    image = (np.arange(90 * 70).reshape(90, 70) % 251).astype(dtype)
    path = tmp_path / "micro.tif"
    tifffile.imwrite(path, image, byteorder=byteorder, rowsperstrip=16, metadata=None)
    report = guess_report(str(path))
    params = report.candidates[0].params
    assert (params.dtype, params.little_endian, params.shape) == (dtype, byteorder == "<", (90, 70))
    raw = path.read_bytes()[params.offset:params.offset + params.length]
    assert np.array_equal(np.frombuffer(raw, np.dtype(dtype).newbyteorder(byteorder)).reshape(90, 70), image)
    assert "uncompressed in 6 contiguous strip(s)" in report.candidates[0].reasons[0]


def test_tiff_rgb(tmp_path):
    image = np.round(_rgb(np.random.default_rng(1), 50, 60)).astype(np.uint8)
    buffer = io.BytesIO()
    tifffile.imwrite(buffer, image, photometric="rgb", metadata=None)
    path = tmp_path / "rgb.tiff"
    path.write_bytes(buffer.getvalue())
    assert guess_report(str(path)).candidates[0].params.shape == (50, 60, 3)


def test_a_tiled_tiff_is_a_reason(tmp_path):
    path = tmp_path / "tiled.tif"
    tifffile.imwrite(path, (np.arange(64 * 64).reshape(64, 64) % 200).astype(np.uint8), tile=(32, 32),
                     metadata=None)
    report = guess_report(str(path))
    assert "a tiled TIFF: its pixels are not one run of the file" in report.reasons


def test_a_tiff_whose_ifd_points_outside_the_file(tmp_path):
    path = tmp_path / "bad.tif"
    path.write_bytes(b"II*\0" + (10**9).to_bytes(4, "little") + bytes(range(256)) * 4)
    report = guess_report(str(path))
    assert any(r.startswith("a TIFF whose first IFD cannot be read") for r in report.reasons)


@pytest.mark.parametrize("kind", ["tiff", "pgm"])
def test_damaged_image_headers_give_a_report(tmp_path, kind):
    image = (np.arange(40 * 50).reshape(40, 50) % 251).astype(np.uint16)
    if kind == "tiff":
        buffer = io.BytesIO()
        tifffile.imwrite(buffer, image, rowsperstrip=8, metadata=None)
        original = buffer.getvalue()
    else:
        original = b"P5\n# c\n50 40\n65535\n" + image.astype(">u2").tobytes()
    rng = np.random.default_rng(30)
    path = tmp_path / f"mutant.{kind}"
    for _ in range(150):
        data = bytearray(original)
        for at in rng.integers(0, min(len(data), 400), 3):
            data[at] = int(rng.integers(0, 256))
        path.write_bytes(bytes(data))
        report = guess_report(str(path))  # never raises: a reason or a layout inside the file
        for candidate in report.candidates:
            p = candidate.params
            if p.length is not None:
                assert 0 <= p.offset and p.offset + p.length <= len(data)


_SAMPLE = {case.kind: case for case in reversed(build_corpus(TUNING_SEEDS[0]))}


@pytest.mark.parametrize("kind", sorted(_SAMPLE))
def test_a_fixed_sample_of_the_realistic_corpus(tmp_path, kind):
    case = _SAMPLE[kind]  # the first file of each kind in the tuning split
    path = tmp_path / case.name
    path.write_bytes(case.data)
    report = guess_report(str(path))
    assert report.convincing and matches(report.candidates[0], case), \
        f"{case.name}: {report.candidates[0].summary if report.candidates else report.verdict}"


def test_mono_copied_into_both_channels_stays_int16(tmp_path):
    # identical neighbours make the low bytes look smooth: not a reason to read bytes as channels
    t = np.arange(40000) / 8000
    samples = np.round(np.sin(2 * np.pi * 300 * t) * (0.5 + 0.5 * np.sin(t)) * 9000).astype("<i2")
    best = _best(tmp_path, "dup.raw", np.repeat(samples, 2).tobytes())
    assert _layout(best)[:3] == ("int16", True, 0)


def _gradient_frame(rows=120, cols=160):
    """A smooth gradient with a little noise, as a camera frame of float32 reads."""
    rng = np.random.default_rng(31)
    r, c = np.mgrid[0:rows, 0:cols]
    return (0.5 * r + 0.25 * c + 20.0 + rng.normal(0.0, 0.8, (rows, cols))).astype(">f4")


def test_a_zero_padded_header_named_hdr64_is_64_bytes_of_big_endian_float32(tmp_path):
    """Issue 31 item 3: a 4-byte magic, 60 zero bytes, then a big-endian float32 120x160 frame
    named 'frame_hdr64_120x160_f32_be.bin': the best candidate is offset 64, not 'header 4 bytes'."""
    frame = _gradient_frame()
    best = _best(tmp_path, "frame_hdr64_120x160_f32_be.bin", b"FRM1" + bytes(60) + frame.tobytes())
    assert _layout(best) == ("float32", False, 64, (120, 160))
    assert "the name says a header of 64 bytes" in best.reasons
    assert "the name says float32" in best.reasons and "the name says big-endian" in best.reasons


def test_a_zero_padded_header_without_a_name_hint_is_still_64_bytes(tmp_path):
    frame = _gradient_frame()
    best = _best(tmp_path, "frame.bin", b"FRM1" + bytes(60) + frame.tobytes())
    assert _layout(best) == ("float32", False, 64, (120, 160))
    assert "a header padded with zeros to byte 64" in best.reasons
