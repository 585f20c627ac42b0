"""Frames written by the real writer, ffmpeg, inside each test's tmp_path.

``ffmpeg.write(pix_fmt)`` renders one frame of ffmpeg's ``testsrc`` pattern (64 x 48) in a raw
pixel format; ``ffmpeg.convert(data, from_fmt, to_fmt, vf)`` hands raw bytes back to ffmpeg and
returns its conversion (its own reader and swscale), the expected values of the tests.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

WIDTH, HEIGHT = 64, 48
FFMPEG = shutil.which("ffmpeg")


class Ffmpeg:
    def __init__(self, folder) -> None:
        self.folder = folder
        self.count = 0

    def _run(self, arguments: list[str]) -> bytes:
        self.count += 1
        out = self.folder / f"out{self.count}.raw"
        subprocess.run([FFMPEG, "-v", "error", "-y", *arguments, "-frames:v", "1", "-f", "rawvideo", str(out)],
                       check=True, timeout=60)
        return out.read_bytes()

    def write(self, pix_fmt: str, width: int = WIDTH, height: int = HEIGHT) -> bytes:
        """One ``testsrc`` frame in ``pix_fmt``."""
        return self._run(["-f", "lavfi", "-i", f"testsrc=size={width}x{height}", "-pix_fmt", pix_fmt])

    def convert(self, data: bytes, from_fmt: str, to_fmt: str, vf: str | None = None, width: int = WIDTH,
                height: int = HEIGHT) -> bytes:
        """ffmpeg's reading of raw ``data`` as ``from_fmt``, converted to ``to_fmt`` (through ``vf``)."""
        self.count += 1
        source = self.folder / f"in{self.count}.raw"
        source.write_bytes(data)
        filters = ["-vf", vf] if vf else []
        return self._run(["-f", "rawvideo", "-pix_fmt", from_fmt, "-s", f"{width}x{height}", "-i", str(source),
                          *filters, "-pix_fmt", to_fmt])


@pytest.fixture
def ffmpeg(tmp_path):
    if FFMPEG is None:
        pytest.skip("ffmpeg is not installed: these tests compare with the frames ffmpeg writes and converts")
    return Ffmpeg(tmp_path)
