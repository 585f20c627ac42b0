"""WAV / RF64 / AIFF(-C) files written by the stdlib, scipy and libsndfile: samples exact.

AIFF: the stdlib's ``aifc`` writes it while it exists (removed in Python 3.13); the AIFF-C
float file is written by hand from the spec (``_handmade_aifc``) so AIFF stays tested without it.
"""

from __future__ import annotations

import struct
import warnings
import wave

import numpy as np
import pytest

from core.formats.registry import list_file
from core.pipeline.pipeline import DecodeParams

FRAMES = np.array([[0, 1000], [-32768, 32767], [12345, -1], [7, -7], [300, 0]], dtype=np.int16)


def _wave(path, width: int, frames: np.ndarray, rate: int = 22050) -> None:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(frames.shape[1])
        out.setsampwidth(width)
        out.setframerate(rate)
        out.writeframes(frames.tobytes())


@pytest.mark.parametrize(("width", "frames"), [
    (1, np.array([[0, 255], [128, 1]], dtype=np.uint8)),  # 8-bit WAV is unsigned
    (2, FRAMES.astype("<i2")),
    (4, (FRAMES.astype("<i4") << 16) + 3),
])
def test_stdlib_wave_pcm(tmp_path, shown, width, frames):
    path = tmp_path / "a.wav"
    _wave(path, width, frames)
    listing = list_file(str(path))
    [entry] = listing.entries
    assert listing.format == "wav"
    assert entry.shape == frames.shape and entry.offset == 44
    assert dict(entry.extras) == {"sample rate": 22050, "channels": 2, "bits": 8 * width,
                                  "format": "PCM"}
    values, result = shown(path, "samples")
    np.testing.assert_array_equal(values, frames)
    assert result.zero_copy and result.trailing_bytes == (0,)


@pytest.mark.parametrize("dtype", ["<f4", "<f8", "<i4", "<i2", "u1"])
def test_scipy_wavfile(tmp_path, shown, dtype):
    wavfile = pytest.importorskip("scipy.io.wavfile")
    path = tmp_path / "s.wav"
    data = (np.linspace(-1, 1, 21).reshape(7, 3) * (100 if dtype[1] in "iu" else 1)).astype(dtype)
    if dtype == "u1":
        data = (data + 128).astype("u1")
    wavfile.write(path, 44100, data)
    values, _ = shown(path, "samples")
    np.testing.assert_array_equal(values, data)
    np.testing.assert_array_equal(values, wavfile.read(path)[1])


@pytest.mark.parametrize(("fmt", "subtype", "dtype"), [
    ("WAV", "PCM_16", "int16"), ("WAV", "PCM_32", "int32"), ("WAV", "FLOAT", "float32"),
    ("WAV", "DOUBLE", "float64"), ("WAVEX", "PCM_16", "int16"), ("WAVEX", "FLOAT", "float32"),
    ("RF64", "PCM_16", "int16"), ("RF64", "DOUBLE", "float64"),
    ("AIFF", "PCM_16", "int16"), ("AIFF", "PCM_S8", "int8"), ("AIFF", "PCM_32", "int32"),
    ("AIFF", "FLOAT", "float32"), ("AIFF", "DOUBLE", "float64"),
])
def test_libsndfile_formats(tmp_path, shown, fmt, subtype, dtype):
    soundfile = pytest.importorskip("soundfile")
    path = tmp_path / "x.snd"
    soundfile.write(path, FRAMES, 16000, format=fmt, subtype=subtype)
    listing = list_file(str(path))
    assert listing.format == ("aiff" if fmt == "AIFF" else "wav")
    [entry] = listing.entries
    assert entry.dtype == dtype and entry.shape == (5, 2)
    assert entry.extras["sample rate"] == 16000
    values, result = shown(path, "samples")
    expected, _ = soundfile.read(path, dtype=dtype if dtype not in ("int8",) else "int16",
                                 always_2d=True)
    if dtype == "int8":
        expected = expected >> 8  # libsndfile reads 8-bit samples scaled to 16 bits
    np.testing.assert_array_equal(values, expected)
    assert result.zero_copy


def test_24_bit_pcm_decodes_as_int24_into_int32(tmp_path, shown):
    soundfile = pytest.importorskip("soundfile")
    path = tmp_path / "24.wav"
    soundfile.write(path, FRAMES, 8000, format="WAV", subtype="PCM_24")
    [entry] = list_file(str(path)).entries
    assert entry.mappable and entry.problem is None
    assert (entry.dtype, entry.shape, entry.little_endian) == ("int24", (5, 2), True)
    values, result = shown(path, "samples")
    assert values.dtype == np.int32 and values.shape == (5, 2)
    # libsndfile reads 24-bit samples as int32 scaled by 2**8
    np.testing.assert_array_equal(values, soundfile.read(path, dtype="int32")[0] >> 8)
    assert not result.zero_copy
    assert "int24 (3 bytes per value) unpacked into one int32 per value" in result.steps[1]
    bytes_of_frames, _ = shown(path, "samples", DecodeParams(dtype="uint8", record_size=6))
    assert bytes_of_frames.shape == (5, 6)


def test_24_bit_aiff_is_big_endian_int24(tmp_path, shown):
    soundfile = pytest.importorskip("soundfile")
    path = tmp_path / "24.aiff"
    soundfile.write(path, FRAMES, 8000, format="AIFF", subtype="PCM_24")
    [entry] = list_file(str(path)).entries
    assert (entry.dtype, entry.little_endian, entry.problem) == ("int24", False, None)
    values, _ = shown(path, "samples")
    np.testing.assert_array_equal(values, soundfile.read(path, dtype="int32")[0] >> 8)


def test_stdlib_aifc(tmp_path, shown):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        aifc = pytest.importorskip("aifc")
    # aifc takes big-endian frames and swaps them itself for 'sowt' (little-endian AIFF-C).
    for compression, order in ((b"NONE", ">i2"), (b"sowt", "<i2")):
        path = tmp_path / (f"{compression.decode()}.aifc" if compression != b"NONE" else "a.aiff")
        with aifc.open(str(path), "wb") as out:
            out.setnchannels(2)
            out.setsampwidth(2)
            out.setframerate(11025)
            if compression != b"NONE":
                out.setcomptype(compression, b"")
            out.writeframes(FRAMES.astype(">i2").tobytes())
        [entry] = list_file(str(path)).entries
        assert entry.extras["compression"] == compression.decode()
        assert entry.extras["sample rate"] == 11025.0
        assert entry.little_endian == (order[0] == "<")
        values, _ = shown(path, "samples")
        np.testing.assert_array_equal(values, FRAMES)


def _extended(value: float) -> bytes:
    """``value`` as AIFF's 80-bit extended float (positive integers only, enough for rates)."""
    exponent = int(value).bit_length() - 1
    return struct.pack(">HQ", 16383 + exponent, int(value) << (63 - exponent))


def _handmade_aifc(path, samples: np.ndarray, rate: int) -> None:
    """An AIFF-C file with 'fl32' samples, chunk by chunk (AIFF-C spec, Apple 1991)."""
    frames, channels = samples.shape
    comm = struct.pack(">hIh", channels, frames, 32) + _extended(rate) + b"fl32" + b"\x0832-bit\x00"
    data = samples.astype(">f4").tobytes()
    ssnd = struct.pack(">II", 4, 0) + b"PAD!" + data  # a non-zero SSND offset: 4 bytes skipped
    body = b"AIFC" + b"FVER" + struct.pack(">II", 4, 0xA2805140)
    body += b"COMM" + struct.pack(">I", len(comm)) + comm
    body += b"SSND" + struct.pack(">I", len(ssnd)) + ssnd
    path.write_bytes(b"FORM" + struct.pack(">I", len(body)) + body)


def test_handmade_aifc_float(tmp_path, shown):
    path = tmp_path / "f.aifc"
    samples = np.array([[0.5, -0.25], [1.0, -1.0], [3.0, 0.125]], dtype=np.float32)
    _handmade_aifc(path, samples, 48000)
    [entry] = list_file(str(path)).entries
    assert (entry.dtype, entry.little_endian, entry.shape) == ("float32", False, (3, 2))
    assert entry.extras["sample rate"] == 48000.0 and entry.extras["compression"] == "fl32"
    values, _ = shown(path, "samples")
    np.testing.assert_array_equal(values, samples)


def test_wav_samples_are_a_signal_shown_as_lines_per_channel(tmp_path):
    """Issue 31 item 18: the rule is the engine's (core.formats.entry.shows_channel_lines)."""
    from core.formats.entry import MAX_CHANNEL_LINES, TensorEntry, shows_channel_lines

    path = tmp_path / "a.wav"
    _wave(path, 2, FRAMES.astype("<i2"))
    [entry] = list_file(str(path)).entries
    assert entry.signal is True
    assert shows_channel_lines(entry, (5, 2)) is True
    assert shows_channel_lines(entry, (10,)) is False  # another shape: not the signal
    assert shows_channel_lines(entry, (2, 5)) is False
    assert shows_channel_lines(None, (5, 2)) is False
    image = TensorEntry("pixels", "uint8", True, (5, 2), 0, 10)  # not a signal
    assert shows_channel_lines(image, (5, 2)) is False
    many = TensorEntry("samples", "int16", True, (4, MAX_CHANNEL_LINES + 1), 0, 8 * (MAX_CHANNEL_LINES + 1),
                       signal=True)
    assert shows_channel_lines(many, many.shape) is False  # too many channels for lines: an image
