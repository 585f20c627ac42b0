"""The examples of docs/semantics.md run, and print what the page says they print.

Every fenced ``python`` block of the page is a doctest (``>>>`` lines and their expected output).
Blocks are grouped by their ``## `` section; a section's blocks run in order in one namespace,
after the "Conventions" block (the shared imports), inside an empty scratch folder (some
examples write a small file). A failing example is reported with its line in the page.
"""

from __future__ import annotations

import doctest
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "semantics.md"
SETUP_SECTION = "Conventions"
NUMBERED_SECTIONS = ("§1 Types", "§2 decode_raw", "§2a Types beyond TF: float8, int4, int24",
                     "§3 File sources", "§4 strided_slice",
                     "§5 Slice expressions", "§6 TensorBuffer", "§7 Pipeline")
# ELLIPSIS: an error's fix, appended in parentheses after TensorFlow's text, may be shown as
# "(...)"; NORMALIZE_WHITESPACE lets long outputs wrap.
OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

_FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced code block: its language, first line of code (1-based) and text."""

    section: str
    language: str
    line: int
    text: str


def read_blocks(text: str) -> list[Block]:
    """Fenced code blocks of a markdown text, each tagged with its enclosing ``## `` heading."""
    blocks: list[Block] = []
    section = ""
    fence: tuple[str, int, list[str]] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        match = _FENCE.match(line)
        if fence is not None:
            if match and not match.group(1):
                language, start, lines = fence
                blocks.append(Block(section, language, start, "\n".join(lines) + "\n"))
                fence = None
            else:
                fence[2].append(line)
        elif match:
            fence = (match.group(1), number + 1, [])
        elif line.startswith("## "):
            section = line[3:].strip()
    assert fence is None, f"unclosed code fence opened before line {fence[1]}"
    return blocks


BLOCKS = read_blocks(PAGE.read_text(encoding="utf-8"))
PYTHON = [b for b in BLOCKS if b.language == "python"]
SECTIONS = sorted({b.section for b in PYTHON if b.section != SETUP_SECTION},
                  key=lambda s: [b.section for b in PYTHON].index(s))


def run_blocks(blocks: list[Block]) -> tuple[int, int, str]:
    """Run ``blocks`` as doctests in one namespace: (failed, attempted, report)."""
    parser = doctest.DocTestParser()
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    globs: dict = {"__name__": "semantics_examples"}
    for block in blocks:
        test = parser.get_doctest(block.text, globs, f"{PAGE.name}:{block.line}", str(PAGE),
                                  block.line - 1)
        runner.run(test, out=report.append, clear_globs=False)
        globs = test.globs
    result = runner.summarize(verbose=False)
    return result.failed, result.attempted, "".join(report)


def test_the_page_has_a_setup_block_and_examples_in_every_numbered_section():
    sections = {b.section for b in PYTHON}
    assert SETUP_SECTION in sections
    missing = [s for s in NUMBERED_SECTIONS if s not in sections]
    assert missing == [], f"sections without a runnable example: {missing}"


def test_every_python_block_is_a_doctest():
    # A python block without ">>>" would be shown to readers but never run.
    silent = [b.line for b in PYTHON if ">>> " not in b.text]
    assert silent == [], f"python blocks with no >>> example, at lines {silent}"


def test_the_runner_catches_a_wrong_output():
    """Guard against a runner that cannot fail: a wrong expected value must be reported."""
    wrong = Block("check", "python", 1, ">>> 1 + 1\n3\n")
    failed, attempted, report = run_blocks([wrong])
    assert (failed, attempted) == (1, 1)
    assert "Expected:\n    3\nGot:\n    2" in report


@pytest.mark.parametrize("section", SECTIONS)
def test_section_examples(section, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = [b for b in PYTHON if b.section == SETUP_SECTION]
    blocks += [b for b in PYTHON if b.section == section]
    failed, attempted, report = run_blocks(blocks)
    assert attempted > 0
    assert failed == 0, report
