"""Persistent settings (QSettings): window layout, last directory, recent files, per-file decode.

Everything read back is validated: a corrupt or stale value (wrong type, unknown dtype, garbage
bytes) falls back to the default instead of breaking start-up.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, fields

from PySide6.QtCore import QByteArray, QSettings

from core.pipeline.pipeline import DecodeParams

MAX_RECENT = 10
_PARAM_FIELDS = {f.name for f in fields(DecodeParams)}


class SettingsStore:
    """Typed access to the app's QSettings (organisation ``tensor-inspector``)."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self._settings = settings if settings is not None else QSettings("tensor-inspector", "tensor-inspector")

    @property
    def qsettings(self) -> QSettings:
        return self._settings

    # ------------------------------------------------------------------ recent files
    def recent_files(self) -> list[str]:
        value = self._settings.value("recent_files", [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            return []
        return [v for v in value if isinstance(v, str) and v][:MAX_RECENT]

    def add_recent_file(self, path: str) -> None:
        path = os.path.abspath(path)
        recent = [p for p in self.recent_files() if p != path]
        self._settings.setValue("recent_files", [path] + recent[: MAX_RECENT - 1])

    def last_directory(self) -> str:
        value = self._settings.value("last_directory", "")
        return value if isinstance(value, str) and os.path.isdir(value) else os.path.expanduser("~")

    def set_last_directory(self, directory: str) -> None:
        self._settings.setValue("last_directory", directory)

    # ------------------------------------------------------------------ per-file decode settings
    def decode_settings(self, paths: tuple[str, ...]) -> tuple[DecodeParams, str] | None:
        """Settings last used for exactly these files, or None (also when stored data is corrupt)."""
        raw = self._settings.value(self._key(paths))
        if not isinstance(raw, str):
            return None
        try:
            data = json.loads(raw)
            params = data.get("params", {})
            if not isinstance(params, dict) or not set(params) <= _PARAM_FIELDS:
                return None
            if isinstance(params.get("shape"), list):
                params["shape"] = tuple(params["shape"])
            if not all(_valid_param(name, value) for name, value in params.items()):
                return None
            slice_text = data.get("slice", "")
            if not isinstance(slice_text, str):
                slice_text = ""
            return DecodeParams(**params), slice_text
        except (ValueError, TypeError, AttributeError, RecursionError):
            # RecursionError: json.loads of a deeply nested value ("[" * 100000) overflows the
            # parser's stack; a corrupt value must not stop the app from opening the file.
            return None

    def set_decode_settings(self, paths: tuple[str, ...], params: DecodeParams, slice_text: str) -> None:
        data = {"params": asdict(params), "slice": slice_text}
        self._settings.setValue(self._key(paths), json.dumps(data))

    @staticmethod
    def _key(paths: tuple[str, ...]) -> str:
        joined = "|".join(os.path.abspath(p) for p in paths)
        return "decode/" + joined.replace("/", "\\")  # QSettings treats "/" as a group separator

    # ------------------------------------------------------------------ layout guess banner
    def guess_banner_enabled(self) -> bool:
        """Whether "Layout unknown: Guess…" is offered for a raw file opened with no settings."""
        value = self._settings.value("guess/banner", True)
        return value not in (False, "false", "0", 0)

    def set_guess_banner_enabled(self, enabled: bool) -> None:
        self._settings.setValue("guess/banner", bool(enabled))

    # ------------------------------------------------------------------ window layout
    def window_state(self) -> tuple[QByteArray | None, QByteArray | None]:
        geometry = self._settings.value("window/geometry")
        state = self._settings.value("window/state")
        return (
            geometry if isinstance(geometry, QByteArray) else None,
            state if isinstance(state, QByteArray) else None,
        )

    def set_window_state(self, geometry: QByteArray, state: QByteArray) -> None:
        self._settings.setValue("window/geometry", geometry)
        self._settings.setValue("window/state", state)


def _valid_param(name: str, value: object) -> bool:
    """Type check of a stored DecodeParams field (values themselves are checked by the engine)."""
    if value is None:
        return True
    if name in ("dtype", "view_as"):
        return isinstance(value, str) and 0 < len(value) < 64
    if name in ("little_endian", "extended_types"):
        return isinstance(value, bool)
    if name == "shape":
        return isinstance(value, tuple) and all(type(d) is int for d in value)
    return type(value) is int
