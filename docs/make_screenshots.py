"""Regenerate the README's screenshots from the real app (``python docs/make_screenshots.py``).

Each screenshot is the app's own ``--screenshot`` rendering (offscreen) of an example file
written here, with the options shown in the README's user guide.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screenshots"


def sensor_dump(path: Path) -> None:
    """1-d: a 32-byte header, then 20,000 big-endian int16 samples of a chirp with noise."""
    t = np.linspace(0, 1, 20_000)
    rng = np.random.default_rng(0)
    signal = 8000 * np.sin(2 * np.pi * (5 + 40 * t) * t) + 600 * rng.standard_normal(t.size)
    path.write_bytes(b"SENSORDUMP v2".ljust(32, b"\0") + signal.astype(">i2").tobytes())


def spectrogram_records(path: Path) -> None:
    """2-d: 240 records of 64 little-endian float32 values (one 256-byte record per frame)."""
    frames, bins = np.mgrid[0:240, 0:64].astype(np.float32)
    track = 32 + 20 * np.sin(frames / 30)
    image = np.exp(-((bins - track) ** 2) / 8) + 0.5 * np.exp(-((bins - 10) ** 2) / 2) * (frames % 60 < 30)
    path.write_bytes(image.astype("<f4").tobytes())


def batch_4d(path: Path) -> None:
    """4-d: a float32 batch of 2 images x 3 channels x 32 x 48, as a model input dump."""
    n, c, y, x = np.meshgrid(np.arange(2), np.arange(3), np.arange(32), np.arange(48), indexing="ij")
    values = np.sin(x / (4 + 2 * c)) * np.cos(y / (3 + n)) + 0.1 * c
    path.write_bytes(values.astype("<f4").tobytes())


def checkpoint(path: Path) -> None:
    """Containers: a small safetensors checkpoint (written by the safetensors package)."""
    from safetensors.numpy import save_file

    y, x = np.mgrid[0:48, 0:64].astype(np.float32)
    rng = np.random.default_rng(1)
    save_file({
        "embed.weight": (np.sin(x / 6) * np.cos(y / 9) + 0.05 * rng.standard_normal((48, 64))).astype(np.float32),
        "layers.0.attn.q_proj.weight": rng.standard_normal((64, 64)).astype(np.float16),
        "layers.0.attn.q_proj.bias": np.linspace(-1, 1, 64, dtype=np.float32),
        "layers.0.mlp.up.weight": rng.standard_normal((128, 64)).astype(np.float32),
        "layers.0.norm.scale": np.ones(64, np.float32),
        "lm_head.weight": rng.standard_normal((100, 64)).astype(np.float16),
    }, str(path), metadata={"format": "pt", "producer": "make_screenshots.py"})


checkpoint.suffix = ".safetensors"  # type: ignore[attr-defined]


SHOTS = [
    ("sample.png", None, []),
    ("one_d.png", sensor_dump, ["--dtype", "int16", "--big-endian", "--offset", "32"]),
    ("two_d.png", spectrogram_records, ["--dtype", "float32", "--record-size", "256"]),
    ("four_d.png", batch_4d, ["--dtype", "float32", "--shape", "2,3,32,48"]),
    ("slice_editor.png", batch_4d, ["--dtype", "float32", "--shape", "2,3,32,48", "--slice", "[-1, 1:, ..., ::-2]"]),
    ("containers.png", checkpoint, []),
]


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(Path(tmp) / "config"))
        for name, make, options in SHOTS:
            files = []
            if make is not None:
                data = Path(tmp) / (make.__name__ + getattr(make, "suffix", ".bin"))
                make(data)
                files = [str(data)]
            command = [sys.executable, "-m", "inspector", *files, *options, "--screenshot", str(OUT / name)]
            subprocess.run(command, cwd=ROOT, env=env, check=True)
            print("wrote", OUT / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
