"""A file cut while a container is listed or the table paints: "changed on disk", never SIGBUS.

Two kinds of race, each in a subprocess (a SIGBUS would kill pytest; exit -7):

- **Deterministic**: the shrink guard is made to lose the race (``zero_fill_past`` does nothing,
  as when the file is cut between a check and the read that follows it) and a hook cuts the file
  at a chosen moment: after the format is sniffed and before the parser reads its header, or
  after the table has its array and before it paints. Every read of mapped bytes must then go
  through ``pread`` (``FileSource.read_exact`` / ``bytes_at``, the block reader), which reports
  the cut; a read of the map faults.
- **Real**: a timer cuts the file (to 0 or to half) a moment into the listing, a few quick
  trials, the guard working as usual.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import core

ROOT = Path(__file__).resolve().parents[2]
CODE = str(Path(core.__file__).resolve().parents[1])  # the code under test (PYTHONPATH's)
sys.path.insert(0, str(ROOT / "tests" / "core" / "formats"))
import containers

SCRIPT = r"""
import os, shutil, sys, threading
import core.files.shrink_guard as guard
import core.formats.registry as registry

mode, pristine, victim, how, trials = sys.argv[1:6]
trials = int(trials)
size = os.path.getsize(pristine)
cut_to = 0 if how.endswith("zero") else size // 2

if how.startswith("hook"):
    guard.zero_fill_past = lambda *args: False  # the guard lost the race: the map stays as it was
    detect = registry.detect_format

    def detect_then_cut(reader):  # after the sniff, before the parser reads its header
        found = detect(reader)
        os.truncate(victim, cut_to)
        return found

    registry.detect_format = detect_then_cut

outcomes = []
for trial in range(trials):
    shutil.copyfile(pristine, victim)
    timer = None
    if how.startswith("timer"):
        timer = threading.Timer(0.0005 * (trial % 4), os.truncate, (victim, (trial % 2) * cut_to))
        timer.start()
    if mode == "cli":
        import contextlib, io
        from core.cli import main
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main([victim, "--list"])
        text = err.getvalue()
        outcomes.append("complete" if code == 0 else "changed" if "changed on disk" in text else
                        # cut before it was opened: a clear refusal of what is left
                        "refused" if code == 2 and text.startswith("error: ") and "Traceback" not in text else
                        f"exit {code}: {text[:300]!r}")
    else:
        from PySide6.QtWidgets import QApplication
        from inspector.state.document import Document
        app = QApplication.instance() or QApplication([])
        document = Document()
        document.open_files([victim])
        error = document.container_error
        if document.container is not None:
            outcomes.append("complete")
        elif error is not None and "changed on disk" in error.message:
            outcomes.append("changed")
        else:
            outcomes.append(repr(error))
        document.close_files()
        # Qt objects go while Qt is alive, in this thread: the interpreter's own teardown of a
        # QObject whose listing task just ended can crash the child at exit (not the app's path).
        from inspector.state.background_task import shutdown_tasks
        shutdown_tasks()
        app.processEvents()
        del document
        import gc
        gc.collect()
        app.processEvents()
    if timer is not None:
        timer.join()
print("|".join(outcomes))
"""


def _fixture(kind: str, folder: Path) -> Path:
    folder.mkdir()
    if kind == "tflite":
        return Path(containers.tflite_file(folder).path)
    if kind == "gguf":
        return Path(containers.gguf_file(folder).path)
    if kind == "onnx":
        return Path(containers.onnx_file(folder).path)
    from safetensors.numpy import save_file

    path = folder / "big.safetensors"  # a header of several pages, data after it
    save_file({f"t{i:05d}": np.full((4,), i, np.float32) for i in range(3000)}, str(path))
    return path


def _run(tmp_path, mode, kind, how, trials=1):
    pristine = _fixture(kind, tmp_path / "fixture")
    script = tmp_path / "race.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=CODE, QT_QPA_PLATFORM="offscreen")
    run = subprocess.run([sys.executable, str(script), mode, str(pristine), str(tmp_path / ("victim" + pristine.suffix)),
                          how, str(trials)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, (run.returncode, run.stderr[-2000:])  # -7 would be SIGBUS
    return run.stdout.strip().split("|")


@pytest.mark.parametrize("mode", ["cli", "window"])
@pytest.mark.parametrize("kind", ["tflite", "gguf", "safetensors", "onnx"])
def test_a_file_cut_to_zero_between_sniff_and_parse_is_changed_on_disk(tmp_path, mode, kind):
    assert _run(tmp_path, mode, kind, "hook-zero") == ["changed"]


@pytest.mark.parametrize("kind", ["tflite", "safetensors"])
def test_a_file_cut_to_half_between_sniff_and_parse_is_changed_or_listed(tmp_path, kind):
    # safetensors: the header needs bytes of the cut half; the small TFLite model may fit in its first half.
    outcomes = _run(tmp_path, "cli", kind, "hook-half")
    assert outcomes == (["changed"] if kind == "safetensors" else outcomes) and set(outcomes) <= {"complete", "changed"}


@pytest.mark.parametrize("kind", ["tflite", "gguf", "safetensors"])
def test_listing_while_a_timer_cuts_the_file_never_crashes(tmp_path, kind):
    outcomes = _run(tmp_path, "cli", kind, "timer-zero", trials=8)
    assert len(outcomes) == 8 and set(outcomes) <= {"complete", "changed", "refused"}, outcomes


TABLE_SCRIPT = r"""
import os, sys
import numpy as np
import core.files.shrink_guard as guard
from PySide6.QtWidgets import QApplication
from core.pipeline.pipeline import DecodeParams
from inspector.state.document import Document
from inspector.table.panel import TablePanel

path = sys.argv[1]
np.arange(1 << 20, dtype=np.float32).tofile(path)
guard.zero_fill_past = lambda *args: False  # the per-event guard lost the race
app = QApplication([])
document = Document()
assert document.open_files([path], DecodeParams(dtype="float32", shape=(-1, 256)))
panel = TablePanel(document=document)
model = panel.model
first = model.data(model.index(0, 1))
os.truncate(path, 0)  # after the table has its array, before it paints the next rows
model.set_offsets(0, 0)
later = model.data(model.index(200, 3))
tip = model.data(model.index(200, 3), 3)
print(first, "|", later, "|", tip)
"""


def test_the_table_paints_through_pread_so_a_cut_file_shows_changed_on_disk(tmp_path):
    script = tmp_path / "table_race.py"
    script.write_text(TABLE_SCRIPT)
    env = dict(os.environ, PYTHONPATH=CODE, QT_QPA_PLATFORM="offscreen")
    run = subprocess.run([sys.executable, str(script), str(tmp_path / "raw.bin")], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, (run.returncode, run.stderr[-2000:])  # -7 would be SIGBUS
    first, later, tip = (part.strip() for part in run.stdout.split("|"))
    assert first == "1.0"  # a value read before the cut (row 0, column 1 of arange)
    assert later == "changed on disk"
    assert "changed on disk" in tip and "raw.bin" in tip
