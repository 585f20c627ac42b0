"""Bad inputs get an honest "no convincing layout" with reasons: never a confident wrong answer,
never a crash."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import SourceError
from core.guess import guess_layout, guess_report


@pytest.mark.parametrize("content, words", [
    (b"", "the file is empty"),
    (b"\x07", "only 1 byte"),
    (b"\x01\x02\x03\x04\x05\x06\x07", "only 7 bytes"),
    (np.arange(15, dtype="<f4").tobytes(), "only 60 bytes"),
    (bytes(100_000), "every sampled byte is 0x00"),
    (b"\xff" * 100_000, "every sampled byte is 0xFF"),
])
def test_files_with_nothing_to_guess_from(tmp_path, content, words):
    path = tmp_path / "x.bin"
    path.write_bytes(content)
    report = guess_report(str(path))
    assert not report.convincing
    assert report.candidates == ()
    assert report.verdict.startswith("no convincing layout: ")
    assert words in report.verdict
    assert words in report.reasons[-1]
    assert guess_layout(str(path)) == []


@pytest.mark.parametrize("size", [64, 1000, 65536, 1_000_003])
def test_random_bytes_are_not_convincing(tmp_path, size):
    path = tmp_path / "noise.bin"
    path.write_bytes(np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8).tobytes())
    report = guess_report(str(path))
    assert not report.convincing
    assert report.verdict.startswith("no convincing layout")
    assert guess_layout(str(path)) == []


def test_random_bytes_named_like_floats_are_still_not_convincing(tmp_path):
    path = tmp_path / "weights_f32_le_256x256.bin"
    path.write_bytes(np.random.default_rng(3).integers(0, 256, 256 * 256 * 4, dtype=np.uint8).tobytes())
    report = guess_report(str(path))
    assert not report.convincing
    assert "look random" in report.reasons[-1]


def test_a_zero_header_before_zeros_is_constant_in_the_middle(tmp_path):
    path = tmp_path / "mostly_zero.bin"
    path.write_bytes(b"HEADER 1\n" + bytes(2_000_000))
    report = guess_report(str(path))
    assert not report.convincing
    assert "middle of the file is one repeated byte" in report.verdict


def test_a_missing_file_is_a_source_error(tmp_path):
    with pytest.raises(SourceError, match="does not exist"):
        guess_report(str(tmp_path / "missing.bin"))


def test_a_directory_is_a_source_error(tmp_path):
    with pytest.raises(SourceError):
        guess_report(str(tmp_path))


@pytest.mark.parametrize("name, content", [
    ("nan_f32.bin", np.full(5000, np.nan, np.float32).tobytes()),
    ("inf_f32.bin", np.full(5000, np.inf, np.float32).tobytes()),
    ("text_3x4.bin", b"abc\n" * 5000),
    ("huge_999999999x999999999.bin", (np.arange(70001) % 7).astype(np.uint8).tobytes()),
    ("odd_u8le.bin", np.cumsum(np.random.default_rng(1).integers(-1, 2, 4097)).astype(">i8").tobytes()[:4097]),
])
def test_odd_files_give_a_report_without_crashing(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    report = guess_report(str(path))  # warnings are errors in the tests: none may be raised
    assert report.verdict
    assert all(c.reasons for c in report.candidates)
    assert list(report.candidates) == sorted(report.candidates, key=lambda c: -c.score)
