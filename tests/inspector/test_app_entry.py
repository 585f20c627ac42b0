"""GUI entry point: --help, --screenshot, bad options (run as a user would, in a subprocess)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run_gui(*args, tmp_path, timeout=120):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"))
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


def test_help_exits_zero_without_a_display(tmp_path):
    env = dict(os.environ)
    env.pop("QT_QPA_PLATFORM", None)
    env.pop("DISPLAY", None)
    out = subprocess.run([sys.executable, "-m", "inspector", "--help"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.returncode == 0
    assert "--screenshot" in out.stdout and "--dtype" in out.stdout


def test_screenshot_of_the_sample_writes_a_png(tmp_path):
    png = tmp_path / "shot.png"
    out = run_gui("--screenshot", str(png), tmp_path=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert png.read_bytes()[:8] == PNG_MAGIC


def test_screenshot_of_a_missing_file_still_exits_zero(tmp_path):
    png = tmp_path / "shot.png"
    out = run_gui(str(tmp_path / "no such file.bin"), "--screenshot", str(png), tmp_path=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert png.read_bytes()[:8] == PNG_MAGIC


@pytest.mark.parametrize(
    "args",
    [["--dtype", "float33"], ["--fixed-length", "abc"], ["--offset", "-5x"], ["--shape", "3,,4"], ["--no-such-option"],
     ["--colour", "CMYK"], ["--complex-part", "angle"]],
)
def test_bad_option_exits_2_with_one_error_line(args, tmp_path):
    out = run_gui(*args, tmp_path=tmp_path)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr


# --screenshot never writes onto what it inspects, never to a FIFO, and replaces atomically.
def _victim(tmp_path, name="victim.bin"):
    victim = tmp_path / name
    victim.write_bytes(bytes(range(256)) * 4)
    return victim


def test_screenshot_onto_the_inspected_file_is_refused_and_the_file_is_unchanged(tmp_path):
    victim = _victim(tmp_path)
    out = run_gui(str(victim), "--screenshot", str(victim), tmp_path=tmp_path)
    assert out.returncode == 2
    assert out.stderr.strip().startswith("error: --screenshot:")
    assert "file being inspected" in out.stderr
    assert victim.read_bytes() == bytes(range(256)) * 4


def test_screenshot_through_a_symlink_to_the_inspected_file_is_refused(tmp_path):
    victim = _victim(tmp_path)
    link = tmp_path / "link.png"
    link.symlink_to(victim)
    out = run_gui(str(victim), "--screenshot", str(link), tmp_path=tmp_path)
    assert out.returncode == 2 and "file being inspected" in out.stderr
    assert victim.read_bytes() == bytes(range(256)) * 4


def test_screenshot_onto_an_inspected_png_is_refused(tmp_path):
    shot = tmp_path / "shot.png"
    out = run_gui("--screenshot", str(shot), tmp_path=tmp_path)
    assert out.returncode == 0, out.stderr
    before = shot.read_bytes()
    out = run_gui(str(shot), "--dtype", "uint8", "--screenshot", str(shot), tmp_path=tmp_path)
    assert out.returncode == 2 and "file being inspected" in out.stderr
    assert shot.read_bytes() == before


def test_screenshot_to_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    out = run_gui("--screenshot", str(fifo), tmp_path=tmp_path, timeout=60)
    assert out.returncode == 2
    assert "not a regular file" in out.stderr


def test_screenshot_replaces_an_existing_png_and_leaves_no_temporary_file(tmp_path):
    shot = tmp_path / "shot.png"
    shot.write_bytes(b"old")
    os.chmod(shot, 0o640)
    out = run_gui("--screenshot", str(shot), tmp_path=tmp_path)
    assert out.returncode == 0, out.stderr
    assert shot.read_bytes()[:8] == PNG_MAGIC
    assert os.stat(shot).st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "config") == ["shot.png"]


def test_plot_choices_are_applied_outside_the_history_and_one_that_does_not_fit_is_a_warning(
        qtbot, tmp_path, capsys):
    import numpy as np
    from PySide6.QtCore import QSettings

    from core.pipeline.pipeline import DecodeParams
    from inspector.app import _apply_plot_choices
    from inspector.main_window import MainWindow
    from inspector.state.settings_store import SettingsStore

    path = tmp_path / "iq.bin"
    (np.arange(64) * (1 + 1j)).astype("<c8").tofile(path)  # 1-d complex: no colour channels
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    assert window.open_paths([str(path)], DecodeParams(dtype="complex64"))
    _apply_plot_choices(window, "RGB", "constellation")
    options = window.document.view_options.value
    assert options.complex_part == "constellation" and options.colour_mode is None
    assert capsys.readouterr().err.startswith("warning: --colour: ")
    assert not window.document.history.can_undo  # a start-up choice is nothing to undo


_FIRST_PAINT_PROBE = r"""
import sys
import numpy as np
from PySide6.QtCore import QElapsedTimer, QSettings
from PySide6.QtWidgets import QApplication
from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

path, ini = sys.argv[1], sys.argv[2]
np.array([1.0, 2.0], dtype=">f4").tofile(path)
app = QApplication([])
configure_pyqtgraph()
w = MainWindow(SettingsStore(QSettings(ini, QSettings.IniFormat)))
w.open_paths([path], DecodeParams(dtype="float32", little_endian=False))
w.show()
w.grab()
print("painted", "ml_dtypes" in sys.modules, w.data_inspector.value_text("bfloat16", False))
clock = QElapsedTimer()
clock.start()
while w.data_inspector.value_text("bfloat16", False) == "\u2026" and clock.elapsed() < 20000:
    app.processEvents()
print("later", "ml_dtypes" in sys.modules, w.data_inspector.value_text("bfloat16", False))
w.close()
w.deleteLater()
app.processEvents()
"""


def test_the_first_paint_does_not_wait_for_ml_dtypes(tmp_path):
    # Importing ml_dtypes takes about half a second: a float32 file's window paints without it,
    # then imports it and fills the data inspector's bfloat16 row (3f 80 big-endian: 1.0).
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run(
        [sys.executable, "-c", _FIRST_PAINT_PROBE, str(tmp_path / "x.bin"), str(tmp_path / "s.ini")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines == ["painted False \u2026", "later True 1.0"]
