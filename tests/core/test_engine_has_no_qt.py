"""The engine must never import Qt (STYLE: an engine with no Qt, a thin GUI on top)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_core_imports_neither_pyside6_nor_pyqtgraph():
    code = (
        "import sys, core, core.cli, core.pipeline.pipeline, core.slicing.expr, core.tflite.tensor_buffer\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_headless_help_works_without_qt_and_exits_zero():
    out = subprocess.run([sys.executable, "-m", "core", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0
    assert "--dtype" in out.stdout and "--slice" in out.stdout and "--json" in out.stdout
