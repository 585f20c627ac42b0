"""Layout guess figures: time of ``guess_report`` on a 1 MiB file and on an 8 GiB sparse file
(real values in its middle, zeros elsewhere), and the bytes it read (every
``FileSource.bytes_at`` call counted, headers and container sniffing included)."""

from __future__ import annotations

import numpy as np

from benchmarks.harness import Row, median_time, sparse_file, temp_dir

MiB = 1 << 20
GiB = 1 << 30
TIME_TARGET = 0.300
BYTES_TARGET = 4 * MiB


def _image_bytes(nbytes: int) -> bytes:
    width = 512
    rows = nbytes // (width * 4)
    y, x = np.mgrid[0:rows, 0:width]
    return (np.sin(x / 23.0) * np.cos(y / 17.0) + x / width).astype("<f4").tobytes()


def _counted_guess(path: str) -> int:
    """Run one guess; return the bytes it read through ``FileSource.bytes_at``."""
    from core.files.sources import FileSource
    from core.guess import guess_report

    original = FileSource.bytes_at
    total = 0

    def counting(self, index, offset, nbytes):
        nonlocal total
        data = original(self, index, offset, nbytes)
        total += len(data)
        return data

    FileSource.bytes_at = counting
    try:
        guess_report(path)
    finally:
        FileSource.bytes_at = original
    return total


def rows(tiny: bool, quick: bool, repeats: int) -> list[Row]:
    from core.guess import guess_report

    small, big = (MiB, 8 * MiB) if tiny else (MiB, 8 * GiB)
    out: list[Row] = []
    with temp_dir() as tmp:
        data = _image_bytes(small)
        small_path = sparse_file(tmp, "guess_small.bin", len(data))
        small_path.write_bytes(data)
        big_path = sparse_file(tmp, "guess_big.bin", big)
        with open(big_path, "r+b") as f:
            f.seek(big // 2 - len(data) // 2)
            f.write(data)
        for label, path in ((_size(small), small_path), (f"{_size(big)} sparse", big_path)):
            seconds = median_time(lambda p=str(path): guess_report(p), repeats=repeats)
            read = _counted_guess(str(path))
            out.append(Row(f"guess layout, {label} file", seconds, None, "", "< 300 ms", seconds < TIME_TARGET))
            out.append(Row(f"bytes read by the guess, {label} file", read, None, "", "<= 4 MiB",
                           read <= BYTES_TARGET, unit="B"))
    return out


def _size(n: int) -> str:
    return f"{n // GiB} GiB" if n >= GiB else f"{n // MiB} MiB"
