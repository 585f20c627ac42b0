"""Persistent settings (QSettings): window layout, last directory, recent files, per-file decode,
the files to reopen on start, and the display choices remembered between runs (the table's
format, decimals and heat map, the plot mode, the histogram's log scale: :meth:`SettingsStore.view_options`).

Everything read back is validated: a corrupt or stale value (wrong type, unknown dtype, garbage
bytes) falls back to the default instead of breaking start-up.

Files are known by their *resolved real path* (``os.path.realpath``): opening a file through a
symbolic link finds the settings remembered for the file itself, and Open Recent lists it once.
Files that no longer exist leave Open Recent and are not reopened on start.

URLs (remote files, :mod:`core.files.remote`) are known by the URL itself. They have a recent
list of their own (:meth:`SettingsStore.recent_urls`, File > Open URL… and Open Recent), keep
their decode settings like files, and are never reopened on start (a start-up never waits for
the network). A URL that carries credentials (user and password, a signature or token in its
query: :func:`core.text.names.has_credentials`) is never written anywhere: not in the recent
list, not as the key of its decode settings. The block cache's size is a setting too
(:meth:`SettingsStore.remote_cache_mib`).

What is remembered is capped, so a start-up never parses a huge line: decode settings whose
explicit element byte ranges (``DecodeParams.elements``, a TFRecord batch of strings) number
more than :data:`MAX_REMEMBERED_ELEMENTS` are not remembered (the files open as if seen for the
first time: their first tensor), and a stored value longer than :data:`MAX_SETTING_CHARS`
characters is ignored and removed when read.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, fields, replace

from PySide6.QtCore import QByteArray, QSettings

from core.files.block_cache import DEFAULT_CAPACITY_BYTES
from core.files.remote import is_url
from core.pipeline.pipeline import DecodeParams
from core.text.names import has_credentials
from inspector.state.view_options import ViewOptions

MAX_RECENT = 10
#: Bounds of the block cache's size setting (MiB).
CACHE_MIB_RANGE = (16, 65536)

#: Decode settings with more explicit element byte ranges than this are not remembered (each
#: range is about 20 characters of the settings file; 4,096 ranges are about 80 KB).
MAX_REMEMBERED_ELEMENTS = 4096

#: A remembered decode-settings value longer than this (characters) is never written, and one
#: found (written by an older version) is ignored and removed.
MAX_SETTING_CHARS = 256 * 1024
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
        """The files opened last, newest first, as the user opened them; files that no longer
        exist are left out (and forgotten at the next :meth:`add_recent_file`)."""
        return [p for p in self._path_list("recent_files") if os.path.isfile(p)][:MAX_RECENT]

    def add_recent_file(self, path: str) -> None:
        """Put ``path`` first in Open Recent (an entry for the same real file is replaced)."""
        path = os.path.abspath(path)
        real = os.path.realpath(path)
        recent = [p for p in self.recent_files() if os.path.realpath(p) != real]
        self._settings.setValue("recent_files", [path] + recent[: MAX_RECENT - 1])

    def recent_urls(self) -> list[str]:
        """The URLs opened last, newest first."""
        return [u for u in self._path_list("recent_urls") if is_url(u) and not has_credentials(u)][:MAX_RECENT]

    def add_recent_url(self, url: str) -> bool:
        """Put ``url`` first in the recent URLs; False (nothing written) when it carries credentials."""
        if has_credentials(url) or not is_url(url):
            return False
        self._settings.setValue("recent_urls", [url] + [u for u in self.recent_urls() if u != url][: MAX_RECENT - 1])
        return True

    def remote_cache_mib(self) -> int:
        """MiB the remote files' block cache may hold."""
        value = self._settings.value("remote/cache_mib", DEFAULT_CAPACITY_BYTES >> 20)
        try:
            mib = int(value)
        except (TypeError, ValueError):
            return DEFAULT_CAPACITY_BYTES >> 20
        low, high = CACHE_MIB_RANGE
        return min(max(mib, low), high)

    def set_remote_cache_mib(self, mib: int) -> None:
        low, high = CACHE_MIB_RANGE
        self._settings.setValue("remote/cache_mib", min(max(int(mib), low), high))

    def cluster_scheduler(self) -> str:
        """The Dask scheduler address last chosen (``""``: none)."""
        value = self._settings.value("cluster/scheduler", "")
        return value if isinstance(value, str) else ""

    def cluster_workers(self) -> int:
        """The worker processes of a local Dask cluster last chosen (default 2)."""
        try:
            return min(max(int(self._settings.value("cluster/workers", 2)), 1), 256)
        except (TypeError, ValueError):
            return 2

    def set_cluster(self, scheduler: str, workers: int) -> None:
        self._settings.setValue("cluster/scheduler", scheduler)
        self._settings.setValue("cluster/workers", min(max(int(workers), 1), 256))

    def _path_list(self, key: str) -> list[str]:
        value = self._settings.value(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            return []
        return [v for v in value if isinstance(v, str) and v]

    # ------------------------------------------------------------------ start-up
    def reopen_last_files(self) -> bool:
        """Whether the files open at exit are reopened on start (default: yes)."""
        return _bool(self._settings.value("startup/reopen_last_files"), True)

    def set_reopen_last_files(self, reopen: bool) -> None:
        self._settings.setValue("startup/reopen_last_files", bool(reopen))

    def last_files(self) -> list[str]:
        """The files open when the app last closed ([] when none, or when one no longer exists)."""
        paths = self._path_list("startup/last_files")
        return paths if paths and all(os.path.isfile(p) for p in paths) else []

    def set_last_files(self, paths: tuple[str, ...] | list[str]) -> None:
        """The files to reopen on start (URLs are not: module docstring)."""
        local = [] if any(is_url(p) for p in paths) else [os.path.abspath(p) for p in paths]
        self._settings.setValue("startup/last_files", local)

    def sample_shown(self) -> bool:
        """Whether the embedded sample was shown already (it opens by itself on the first launch only)."""
        return _bool(self._settings.value("startup/sample_shown"), False)

    def set_sample_shown(self) -> None:
        self._settings.setValue("startup/sample_shown", True)

    # ------------------------------------------------------------------ display choices
    def display_options(self) -> dict:
        """The table's format, decimals and heat map and the plot's mode, as last chosen.

        Returns ``{"format": str | None, "decimals": int | None, "heat_map": bool | None,
        "plot_line_axis": int | None | "image"}``; ``None`` means "never chosen, keep the
        default" (``plot_line_axis`` is ``"image"`` for the image, an axis for a line).
        """
        value = self._settings.value("view/table_format")
        fmt = value if isinstance(value, str) and 0 < len(value) < 32 else None
        decimals = _int(self._settings.value("view/decimals"))
        heat = self._settings.value("view/heat_map")
        heat_map = None if heat is None else _bool(heat, False)
        mode = self._settings.value("view/plot_mode")
        axis = _int(mode)
        plot = "image" if mode == "image" else axis if axis is not None and axis >= 0 else None
        return {"format": fmt, "decimals": decimals, "heat_map": heat_map, "plot_line_axis": plot}

    def set_display_options(self, format: str, decimals: int, heat_map: bool, plot_line_axis: int | None) -> None:
        """Remember the display choices; ``plot_line_axis`` None means the image mode."""
        self._settings.setValue("view/table_format", format)
        self._settings.setValue("view/decimals", int(decimals))
        self._settings.setValue("view/heat_map", bool(heat_map))
        self._settings.setValue("view/plot_mode", "image" if plot_line_axis is None else int(plot_line_axis))

    def view_options(self, options: ViewOptions) -> ViewOptions:
        """``options`` with the remembered display choices (:meth:`display_options`, the
        histogram's log scale): a choice never made, or stale, keeps the value of ``options``.
        The plot mode is remembered as the image or a line axis."""
        remembered = self.display_options()
        plot = remembered["plot_line_axis"]
        changes = {"table_format": remembered["format"], "table_decimals": remembered["decimals"],
                   "heat_map": remembered["heat_map"], "histogram_log_scale": self.histogram_log_scale()}
        options = options.with_valid(changes)
        if plot == "image":
            return replace(options, plot_line_axis=None)
        return options.with_valid({"plot_line_axis": plot})

    def set_view_options(self, options: ViewOptions) -> None:
        """Remember the display choices of ``options`` that :meth:`view_options` gives back."""
        self.set_display_options(options.table_format, options.table_decimals, options.heat_map,
                                 options.plot_line_axis)
        self.set_histogram_log_scale(options.histogram_log_scale)

    def last_directory(self) -> str:
        value = self._settings.value("last_directory", "")
        return value if isinstance(value, str) and os.path.isdir(value) else os.path.expanduser("~")

    def set_last_directory(self, directory: str) -> None:
        self._settings.setValue("last_directory", directory)

    # ------------------------------------------------------------------ per-file decode settings
    def decode_settings(self, paths: tuple[str, ...]) -> tuple[DecodeParams, str] | None:
        """Settings last used for exactly these files, or None (also when stored data is corrupt)."""
        key = self._key(paths)
        if key is None:
            return None
        raw = self._settings.value(key)
        if not isinstance(raw, str):
            return None
        if len(raw) > MAX_SETTING_CHARS:  # an older version's huge line: not parsed, not kept
            self._settings.remove(key)
            return None
        try:
            data = json.loads(raw)
            params = data.get("params", {})
            if not isinstance(params, dict) or not set(params) <= _PARAM_FIELDS:
                return None
            for name in ("shape", "strides"):
                if isinstance(params.get(name), list):
                    params[name] = tuple(params[name])
            if isinstance(params.get("elements"), list):
                params["elements"] = _elements(params["elements"])
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

    def set_decode_settings(self, paths: tuple[str, ...], params: DecodeParams, slice_text: str) -> bool:
        """Remember ``params`` and ``slice_text`` for exactly these files; False (and any older
        value for them removed) when they are over the caps or carry credentials (module docstring)."""
        key = self._key(paths)
        if key is None:
            return False
        if params.elements is not None and len(params.elements) > MAX_REMEMBERED_ELEMENTS:
            self._settings.remove(key)
            return False
        text = json.dumps({"params": asdict(params), "slice": slice_text})
        if len(text) > MAX_SETTING_CHARS:
            self._settings.remove(key)
            return False
        self._settings.setValue(key, text)
        return True

    @staticmethod
    def _key(paths: tuple[str, ...]) -> str | None:
        if any(is_url(p) and has_credentials(p) for p in paths):
            return None  # never written (module docstring)
        joined = "|".join(p if is_url(p) else os.path.realpath(p) for p in paths)  # a link finds its file's
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

    # ------------------------------------------------------------------ statistics panel
    def histogram_log_scale(self) -> bool:
        """Whether the statistics histogram shows counts on a log axis (False if never set)."""
        value = self._settings.value("statistics/logScale", False)
        return value in (True, "true", "1", 1)  # INI files give back strings

    def set_histogram_log_scale(self, enabled: bool) -> None:
        self._settings.setValue("statistics/logScale", bool(enabled))


def _bool(value: object, default: bool) -> bool:
    """A stored flag: QSettings gives back ``bool`` (native stores) or ``"true"`` / ``"false"`` (INI)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return default


def _int(value: object) -> int | None:
    """A stored integer (INI files give it back as text), or None."""
    if type(value) is int:
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value) < 20:
        return int(value)
    return None


def _elements(value: list) -> tuple | list:
    """Stored element byte ranges ``[[start, size], ...]`` as DecodeParams takes them; the list
    unchanged (refused by :func:`_valid_param`) when it is not such a list."""
    if len(value) <= MAX_REMEMBERED_ELEMENTS and all(
            isinstance(pair, list) and len(pair) == 2 and all(type(n) is int for n in pair) for pair in value):
        return tuple((start, size) for start, size in value)
    return value


def _valid_param(name: str, value: object) -> bool:
    """Type check of a stored DecodeParams field (values themselves are checked by the engine)."""
    if value is None:
        return True
    if name in ("dtype", "view_as"):
        return isinstance(value, str) and 0 < len(value) < 64
    if name in ("little_endian", "extended_types"):
        return isinstance(value, bool)
    if name in ("shape", "strides"):
        return isinstance(value, tuple) and all(type(d) is int for d in value)
    if name == "elements":
        return isinstance(value, tuple) and all(isinstance(pair, tuple) for pair in value)
    return type(value) is int
