"""File names in text output: control characters escaped, everything else kept."""

import subprocess
import sys
from pathlib import Path

import pytest

from core.text.names import printable_name

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("name, shown", [
    ("data.bin", "data.bin"),
    ("naïve 数据.bin", "naïve 数据.bin"),
    ("a\nsource: fake", "a\\nsource: fake"),
    ("tab\there", "tab\\there"),
    ("\x1b[32mOK", "\\x1b[32mOK"),
    ("line\u2028sep", "line\\u2028sep"),
    ("bidi\u202eevil", "bidi\\u202eevil"),
])
def test_printable_name(name, shown):
    assert printable_name(name) == shown


def test_a_newline_in_a_file_name_cannot_forge_step_lines(tmp_path):
    path = tmp_path / "x\n# source: 'forged' (0 bytes)"
    path.write_bytes(bytes(8))
    out = subprocess.run([sys.executable, "-m", "core", str(path), "--dtype", "uint8", "--steps"],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    step_lines = [line for line in out.stdout.splitlines() if line.startswith("# source:")]
    assert len(step_lines) == 1
    assert "x\\n# source: 'forged' (0 bytes)" in step_lines[0]
