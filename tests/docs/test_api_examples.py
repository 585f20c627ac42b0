"""The examples of docs/api.md run, and print what the page says they print.

Every fenced ``python`` block of the page is a doctest; the blocks run in order in one namespace
(the page builds on its earlier examples), inside an empty scratch folder. ``text`` blocks (the
window examples, which need a display and a user) are not run. Blocks are read and run as
tests/docs/test_semantics_examples.py does (its helpers, loaded from that file).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "api.md"

_spec = importlib.util.spec_from_file_location(
    "_api_page_helpers", Path(__file__).with_name("test_semantics_examples.py"))
_helpers = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _helpers  # dataclasses look their module up there
_spec.loader.exec_module(_helpers)

PYTHON = [b for b in _helpers.read_blocks(PAGE.read_text(encoding="utf-8")) if b.language == "python"]


def test_every_python_block_is_a_doctest():
    silent = [b.line for b in PYTHON if ">>> " not in b.text]
    assert silent == [], f"python blocks with no >>> example, at lines {silent}"
    assert len(PYTHON) >= 9  # conventions, decode, run, slice, containers, stats, compare, guess, export


def test_every_public_function_is_on_the_page():
    import core

    text = PAGE.read_text(encoding="utf-8")
    functions = ["open_pipeline", "run", "read_values", "slice_array", "list_file", "find_entry", "tensor",
                 "statistics", "compare_values", "guess_layout", "export_values", "export_kerchunk"]
    missing = [name for name in functions if f"core.{name}(" not in text or name not in core.__all__]
    assert missing == []


def test_the_page_examples(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    failed, attempted, report = _helpers.run_blocks(PYTHON)
    assert attempted >= 20
    assert failed == 0, report
