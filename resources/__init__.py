"""Embedded sample data and icons shipped with tensor-inspector.

``samples.json`` lists each sample file with the decode settings that reveal its structure;
``README.md`` describes them for people. The GUI opens :data:`DEFAULT_SAMPLE` when started with
no file, with its settings preset.
"""

from __future__ import annotations

import json
from importlib import resources as _resources
from pathlib import Path

DEFAULT_SAMPLE = "waves_3x48x64_f32be.bin"


def resource_path(name: str) -> Path:
    """Return the filesystem path of a shipped resource file (works for installed wheels)."""
    return Path(str(_resources.files(__name__).joinpath(name)))


def sample_settings() -> dict[str, dict]:
    """Map each sample file name to its preset decode settings (``DecodeParams`` field names)."""
    return json.loads(resource_path("samples.json").read_text(encoding="utf-8"))
