"""Issue #10: inspected files are never written, by the engine or by the GUI.

A whole GUI session (open, decode with several settings, slice, select elements, the hex view and
data inspector, statistics, reload, other files, export elsewhere, close) runs on read-only
(``0o444``) files while every ``os.open``, ``open`` and ``mmap.mmap`` of the process is
recorded: no source path is ever opened with a write flag or mapped writable, and every file
keeps its SHA-256, size and modification time. Tests run as root, which may write a ``0o444``
file anyway: that is why the flags themselves are checked, not just the outcome. A static check
of the modules that open files complements it.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import mmap
import os
import stat
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from core.errors import ExportError
from core.export.arrays import export_view
from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

ROOT = Path(__file__).resolve().parents[2]
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def fingerprint(path: Path) -> tuple[str, int, int, int]:
    st = os.stat(path)
    return hashlib.sha256(path.read_bytes()).hexdigest(), st.st_size, st.st_mtime_ns, st.st_mode


class Recorder:
    """Every file-opening call of the process, as (function, path, how)."""

    def __init__(self, monkeypatch) -> None:
        self.calls: list[tuple[str, str, object]] = []
        real_os_open, real_open, real_mmap = os.open, builtins.open, mmap.mmap
        calls = self.calls

        def os_open(path, flags, *args, **kwargs):
            calls.append(("os.open", os.fspath(path), flags))
            return real_os_open(path, flags, *args, **kwargs)

        def open_(file, mode="r", *args, **kwargs):
            if isinstance(file, (str, bytes, os.PathLike)):
                calls.append(("open", os.fsdecode(file), mode))
            return real_open(file, mode, *args, **kwargs)

        class RecordingMmap(real_mmap):
            def __new__(cls, fileno, length, *args, **kwargs):
                try:
                    target = os.readlink(f"/proc/self/fd/{fileno}") if fileno >= 0 else "<anonymous>"
                except OSError:
                    target = f"<fd {fileno}>"
                access = kwargs.get("access", mmap.ACCESS_DEFAULT)
                prot = kwargs.get("prot", mmap.PROT_READ | mmap.PROT_WRITE)
                calls.append(("mmap", target, (access, prot)))
                return super().__new__(cls, fileno, length, *args, **kwargs)

        monkeypatch.setattr(os, "open", os_open)
        monkeypatch.setattr(builtins, "open", open_)
        monkeypatch.setattr(mmap, "mmap", RecordingMmap)

    def on(self, paths: set[str]) -> list[tuple[str, str, object]]:
        return [call for call in self.calls if os.path.realpath(call[1]) in paths]


@pytest.fixture
def sources(tmp_path):
    """Read-only inputs of several kinds, with their fingerprints."""
    folder = tmp_path / "inputs"
    folder.mkdir()
    rng = np.random.default_rng(10)
    rng.normal(size=1024).astype("<f4").tofile(folder / "signal ü.bin")
    np.save(folder / "grid.npy", np.arange(48, dtype=">i2").reshape(4, 12))
    (folder / "a.bin").write_bytes(rng.integers(0, 256, 96, dtype=np.uint8).tobytes())
    (folder / "b.bin").write_bytes(rng.integers(0, 256, 96, dtype=np.uint8).tobytes())
    paths = sorted(folder.iterdir())
    for path in paths:
        path.chmod(0o444)
    before = {path: fingerprint(path) for path in paths}
    yield {path.name: str(path) for path in paths}
    after = {path: fingerprint(path) for path in paths}
    assert after == before  # content, size, mtime and mode all unchanged


def test_a_full_gui_session_never_writes_its_files(qtbot, tmp_path, sources, monkeypatch):
    recorder = Recorder(monkeypatch)
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    window.show()
    signal = sources["signal ü.bin"]

    # Open and decode with several settings, as the decode panel would.
    assert window.open_paths([signal], DecodeParams(dtype="float32"))
    document = window.document
    for changes in ({"dtype": "int16"}, {"little_endian": False}, {"record_size": 64},
                    {"fixed_length": 96}, {"offset": 12}, {"shape": (-1, 12)},
                    {"view_as": "UINT8"}, {"view_as": None, "dtype": "float32", "fixed_length": None,
                                           "offset": 0, "shape": None, "little_endian": True}):
        document.update_params(**changes)
        assert document.error is None, document.error
    # Slice, select elements, click bytes, as a user would.
    window.slice_editor.expression_edit.setText("[1:, ::-3]")
    window.slice_editor.expression_edit.textEdited.emit("[1:, ::-3]")
    assert document.result.view.shape == (63, 6)  # 64 records of 16 floats, sliced
    for index in ((0, 0), (3, 5), (14, 2)):
        document.select(index)
    window.hex_view.bytesSelected.emit(0, 1000)
    window.grab()

    # Statistics of the view, when the statistics panel is there.
    try:
        from inspector.panels.statistics_panel import StatisticsPanel
        from inspector.state.background_task import shutdown_tasks
    except ImportError:
        StatisticsPanel = None
    if StatisticsPanel is not None:
        panel = StatisticsPanel(document)
        qtbot.addWidget(panel)
        qtbot.waitUntil(lambda: panel.statistics is not None, timeout=10_000)
        assert panel.statistics.count == 378
        assert shutdown_tasks(10_000)

    # Reload, a .npy file, a batch of two files.
    document.reload()
    assert window.open_paths([sources["grid.npy"]])
    assert document.result.view.shape == (4, 12)
    assert window.open_paths([sources["a.bin"], sources["b.bin"]], DecodeParams(record_size=32))
    assert document.result.view.shape == (2, 3, 32)

    # Export elsewhere (every format), and never onto a source.
    out = tmp_path / "exports"
    out.mkdir()
    view = document.result.view
    inputs = list(sources.values())
    for fmt in ("npy", "bin", "csv"):
        export_view(view, out / f"view.{fmt}", fmt, source_paths=inputs)
    np.testing.assert_array_equal(np.load(out / "view.npy"), view)
    with pytest.raises(ExportError, match="is the file being inspected"):
        export_view(view, sources["a.bin"], "bin", source_paths=inputs)
    window.close()
    QApplication.processEvents()

    watched = {os.path.realpath(p) for p in inputs}
    touching = recorder.on(watched)
    assert any(kind == "mmap" for kind, _, _ in touching)  # the recorder did see the maps
    for kind, path, how in touching:
        if kind == "os.open":
            assert how & WRITE_FLAGS == 0, f"{path} opened with flags {how:#o}"
        elif kind == "open":
            assert not set(how) & set("wax+"), f"{path} opened with mode {how!r}"
        else:
            access, prot = how
            assert access == mmap.ACCESS_READ or (access == mmap.ACCESS_DEFAULT
                                                  and not prot & mmap.PROT_WRITE), (path, how)


def test_the_engine_alone_never_writes_either(tmp_path, sources, monkeypatch):
    from core import Pipeline, parse_slice
    from core.scan.statistics import compute_statistics

    recorder = Recorder(monkeypatch)
    with Pipeline([sources["a.bin"], sources["b.bin"]]) as pipeline:
        for params in (DecodeParams(), DecodeParams(dtype="int16", record_size=16),
                       DecodeParams(fixed_length=128, view_as="float32")):
            result = pipeline.run(params, parse_slice("[::-1]"))
            compute_statistics(result.view, check=pipeline.source.check_unchanged)
            result.buffer.get_float_array()
    watched = {os.path.realpath(p) for p in sources.values()}
    touching = recorder.on(watched)
    assert {kind for kind, _, _ in touching} == {"os.open", "mmap"}
    assert all(how & WRITE_FLAGS == 0 for kind, _, how in touching if kind == "os.open")
    assert all(how[0] == mmap.ACCESS_READ for kind, _, how in touching if kind == "mmap")


def test_records_export_and_field_statistics_never_write_their_file(tmp_path, sources, monkeypatch):
    from core.export.records import export_records
    from core.files.sources import open_source
    from core.records.field_list import parse_field_list
    from core.scan.field_statistics import field_statistics

    recorder = Recorder(monkeypatch)
    layout = parse_field_list("a:u8, b:>i16, c:u8[5]")
    with open_source(sources["a.bin"]) as source:
        list(field_statistics(source, layout))
        export_records(source, layout, tmp_path / "a.csv", "csv")
        export_records(source, layout, tmp_path / "a.npy", "npy", records=slice(None, None, -3))
        with pytest.raises(ExportError, match="is the file being inspected"):
            export_records(source, layout, sources["a.bin"], "npy")
    watched = {os.path.realpath(p) for p in sources.values()}
    touching = recorder.on(watched)
    assert {kind for kind, _, _ in touching} == {"os.open", "mmap"}
    assert all(how & WRITE_FLAGS == 0 for kind, _, how in touching if kind == "os.open")
    assert all(how[0] == mmap.ACCESS_READ for kind, _, how in touching if kind == "mmap")


def test_sessions_never_write_the_files_they_name(tmp_path, sources, monkeypatch):
    """Saving a session (with hashes) next to read-only inputs, loading it, running it headless
    and printing a bookmark open the inputs for reading only; a save onto an input is refused."""
    from core.cli import main
    from core.errors import SessionError
    from core.session.session_file import Bookmark, Session, capture_file, load_session, save_session

    recorder = Recorder(monkeypatch)
    folder = os.path.dirname(sources["a.bin"])
    session = Session(files=tuple(capture_file(sources[n], hash=True) for n in ("a.bin", "b.bin")),
                      params=DecodeParams(dtype="int16", record_size=16), slice_text="::-1",
                      comparison={"files": [sources["grid.npy"]]},
                      bookmarks=(Bookmark("bytes", "bytes", file_index=1, byte_range=(4, 8)),))
    save_session(session, str(tmp_path / "s.json"))
    for target in (sources["a.bin"], os.path.join(folder, "..", "inputs", "b.bin")):
        with pytest.raises(SessionError, match="is the file being inspected"):
            save_session(session, target)
    loaded = load_session(str(tmp_path / "s.json"))
    assert loaded.changed == () and loaded.missing == ()
    assert main(["--session", str(tmp_path / "s.json")]) == 0
    assert main(["--session", str(tmp_path / "s.json"), "--bookmark", "bytes"]) == 0
    touching = recorder.on({os.path.realpath(p) for p in sources.values()})
    assert touching and all(how & WRITE_FLAGS == 0 for kind, _, how in touching if kind == "os.open")
    assert all(how[0] == mmap.ACCESS_READ for kind, _, how in touching if kind == "mmap")


OPENING_MODULES = ["core/files/safe_open.py", "core/files/sources.py", "core/files/shrink_guard.py",
                   "core/files/checked_read.py"]
"""The only modules that open or map input files (shrink_guard re-maps pages read-only;
checked_read hashes a file a session names)."""

_FILE_CALLS = {"open", "io.open", "os.open", "os.fdopen", "os.stat", "os.lstat", "os.fstat",
               "mmap.mmap", "np.memmap", "np.fromfile", "Path.open"}


def test_the_gui_never_opens_maps_or_stats_files_itself():
    """Static check: no module of inspector/ opens, maps or stats a file; they read through the
    document's source, and the document's file monitor asks core.files.file_change."""
    found = []
    for module in sorted((ROOT / "inspector").rglob("*.py")):
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in _FILE_CALLS:
                found.append(f"{module.relative_to(ROOT)}: {ast.unparse(node)}")
            if isinstance(node, ast.Attribute) and node.attr in ("read_bytes", "memmap", "mmap"):
                found.append(f"{module.relative_to(ROOT)}: {ast.unparse(node)}")
    assert found == []


@pytest.mark.parametrize("module", OPENING_MODULES)
def test_the_modules_that_open_inputs_ask_for_reading_only(module):
    """Static check: every open/os.open/mmap call in these modules is read-only."""
    tree = ast.parse((ROOT / module).read_text())
    names = {node.attr if isinstance(node, ast.Attribute) else node.id
             for node in ast.walk(tree) if isinstance(node, (ast.Attribute, ast.Name))}
    assert not names & {"O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND", "ACCESS_WRITE",
                        "ACCESS_COPY", "PROT_WRITE", "MAP_SHARED", "write_bytes", "write_text"}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = ast.unparse(node.func)
        if name in ("open", "io.open", "os.fdopen", "Path.open"):
            mode = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "mode"), None)
            assert mode is None or (isinstance(mode, ast.Constant)
                                    and not set(mode.value) & set("wax+")), ast.unparse(node)
        if name == "mmap.mmap":
            access = next((k.value for k in node.keywords if k.arg == "access"), None)
            assert access is not None and ast.unparse(access) == "mmap.ACCESS_READ", ast.unparse(node)


def test_read_only_inputs_really_are_read_only(sources):
    for path in sources.values():
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o444
