"""Regenerate the embedded sample files (run ``python -m resources.make_samples``).

The default sample is a float32 tensor of shape 3x48x64, stored big-endian behind a 64-byte text
header, so that the default decode (uint8, little-endian, no offset) shows noise and the correct
settings (float32, big-endian, offset 64, shape 3,48,64) show three clear images.
"""

from __future__ import annotations

import json

import numpy as np

from resources import DEFAULT_SAMPLE, resource_path

HEADER_SIZE = 64


def waves() -> np.ndarray:
    """Three 48x64 channels: concentric ripples, a Gaussian blob, and a ramp with special values."""
    y, x = np.mgrid[0:48, 0:64].astype(np.float32)
    r = np.hypot(x - 32, y - 24)
    ripples = np.cos(r / 2.5) * np.exp(-r / 40)
    blob = np.exp(-((x - 20) ** 2 + (y - 30) ** 2) / 60) - 0.5 * np.exp(-((x - 46) ** 2 + (y - 14) ** 2) / 30)
    ramp = (x + 2 * y) / 160
    ramp[0, 0] = np.nan
    ramp[0, 1] = np.inf
    ramp[0, 2] = -np.inf
    ramp[0, 3] = -0.0
    ramp[0, 4] = np.float32(1e-40)  # a subnormal float32
    return np.stack([ripples, blob, ramp]).astype(np.float32)


def write_waves() -> None:
    header = b"TISAMPLE v1 float32 big-endian shape 3,48,64 data at byte 64\n"
    header = header.ljust(HEADER_SIZE, b"\0")
    data = waves().astype(">f4").tobytes()
    resource_path(DEFAULT_SAMPLE).write_bytes(header + data)


def write_settings() -> None:
    settings = {
        DEFAULT_SAMPLE: {
            "dtype": "float32",
            "little_endian": False,
            "offset": HEADER_SIZE,
            "shape": [3, 48, 64],
        }
    }
    resource_path("samples.json").write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_waves()
    write_settings()
