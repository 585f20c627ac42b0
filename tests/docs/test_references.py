"""What the code cites exists: sections of docs/semantics.md, repository paths, engine modules.

Docstrings and comments in ``core/``, ``inspector/`` and ``tests/`` cite the rules as
``docs/semantics.md §N`` (several as ``§2, §4`` or ``§6 and §7``), a top-level section as
``docs/semantics.md, "Errors"`` and a subsection as ``docs/semantics.md §6, "Extension"``. Each
must name a heading of the page. Paths such as ``core/files/sources.py`` or ``docs/bad_inputs.md``
written in ``core/``, ``inspector/``, ``docs/*.md`` and the README must exist, and so must the modules named in Sphinx roles
(``:mod:`core.files.sources```, ``:class:`core.pipeline.pipeline.Pipeline```) or as literals.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "semantics.md"

_CITATION = re.compile(
    r"docs/semantics\.md"
    r"(?P<sections>\s*§\d+(?:(?:\s*,\s*|\s+and\s+)§\d+)*)?"
    r"(?:\s*,\s*\"(?P<name>[^\"]+)\")?"
)
# A repository path: a top-level folder of this repository, not preceded by a path or name
# character (so TensorFlow's "tensorflow/core/util/strided_slice_op.cc" is not ours).
_PATH = re.compile(r"(?<![\w./-])(?:core|inspector|docs|tests|resources|benchmarks)/[\w./-]*\w")
# A dotted name of ours in a Sphinx role or a literal: :class:`core.x.Y`, ``core.x``.
_ROLE = re.compile(r"(?::(?:mod|class|func|meth|data|attr|exc):`~?|``)((?:core|inspector)\.[\w.]*\w)`")


def _python_files(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def page_headings() -> tuple[set[str], dict[str, set[str]]]:
    """Top-level (``## ``) heading texts, and per ``§N`` the texts of its ``### `` headings."""
    top: set[str] = set()
    subsections: dict[str, set[str]] = {}
    current = ""
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            top.add(current)
            subsections[current.split()[0]] = set()
        elif line.startswith("### ") and current:
            subsections[current.split()[0]].add(line[4:].strip())
    return top, subsections


def citation_problems(text: str, where: str) -> list[str]:
    """Every citation of docs/semantics.md in ``text`` that names no heading of the page."""
    top, subsections = page_headings()
    numbered = {key for key in subsections if key.startswith("§")}
    problems = []
    for match in _CITATION.finditer(text):
        cited = re.findall(r"§\d+", match.group("sections") or "")
        line = f"{where}:{_line_of(text, match.start())}"
        problems += [f"{line}: {s} is not a section" for s in cited if s not in numbered]
        name = match.group("name")
        if name is None:
            continue
        if cited and cited[-1] in numbered:
            if name not in subsections[cited[-1]]:
                problems.append(f'{line}: {cited[-1]} has no subsection "{name}"')
        elif not cited and name not in top:
            problems.append(f'{line}: no section "{name}"')
    return problems


def test_the_page_numbers_sections_one_to_seven_and_has_errors():
    top, _ = page_headings()
    assert {f"§{n}" for n in range(1, 8)} <= {h.split()[0] for h in top}
    assert "Errors" in top


def test_a_wrong_citation_is_reported():
    """The checker itself: one good and three bad citations."""
    text = ('see docs/semantics.md §2 and §9,\n'
            'docs/semantics.md, "Nope" and docs/semantics.md §6, "Extension"\n'
            'docs/semantics.md §4, "Errors"')
    assert citation_problems(text, "x.py") == [
        "x.py:1: §9 is not a section",
        'x.py:2: no section "Nope"',
        'x.py:3: §4 has no subsection "Errors"',
    ]


@pytest.mark.parametrize("folder", ["core", "inspector", "tests"])
def test_every_citation_names_a_section_of_the_page(folder):
    problems = []
    # This file writes wrong citations on purpose, to test the checker.
    for path in (p for p in _python_files(folder) if p != Path(__file__).resolve()):
        problems += citation_problems(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert problems == []


def test_the_code_cites_the_page():
    cited = [p for p in _python_files("core") if "docs/semantics.md" in p.read_text(encoding="utf-8")]
    assert len(cited) >= 10  # the engine's modules cite their rules; a rename would drop them all


def missing_paths(files: list[Path]) -> list[str]:
    """``file:line: path`` for every repository path written in ``files`` that does not exist."""
    missing = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        for match in _PATH.finditer(text):
            written = match.group(0).rstrip(".")
            if not (ROOT / written).exists():
                missing.append(f"{path.relative_to(ROOT)}:{_line_of(text, match.start())}: {written}")
    return missing


@pytest.mark.parametrize("folder", ["core", "inspector"])
def test_every_repository_path_written_in_the_code_exists(folder):
    assert missing_paths(_python_files(folder)) == []


def test_every_repository_path_written_in_the_docs_exists():
    assert missing_paths(sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]) == []


def test_the_path_pattern_skips_other_repositories():
    text = "(``tensorflow/core/util/strided_slice_op.cc``), core/files/sources.py."
    assert [m.group(0).rstrip(".") for m in _PATH.finditer(text)] == ["core/files/sources.py"]


@cache
def _module_names(path: Path) -> frozenset[str]:
    """Names a module defines or imports at its top level (classes, functions, assignments), and
    the names its ``__all__`` exports (``core`` loads them on first use, PEP 562)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets) and \
                    isinstance(node.value, (ast.List, ast.Tuple)):
                names.update(e.value for e in node.value.elts if isinstance(e, ast.Constant))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return frozenset(names)


def _module_file(parts: list[str]) -> Path | None:
    base = ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def role_problem(target: str) -> str | None:
    """Why a dotted ``core.`` / ``inspector.`` reference does not resolve, or None.

    The longest prefix that is a module must exist, and the next name must be defined or
    imported at that module's top level (attributes of that name are not checked).
    """
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        module = _module_file(parts[:cut])
        if module is None:
            continue
        if cut == len(parts):
            return None
        if parts[cut] in _module_names(module):
            return None
        return f"{'.'.join(parts[:cut])} has no {parts[cut]}"
    return f"no module {parts[0]}"


@pytest.mark.parametrize("folder", ["core", "inspector"])
def test_every_module_named_in_a_docstring_exists(folder):
    problems = []
    for path in _python_files(folder):
        text = path.read_text(encoding="utf-8")
        for match in _ROLE.finditer(text):
            problem = role_problem(match.group(1))
            if problem:
                problems.append(f"{path.relative_to(ROOT)}:{_line_of(text, match.start())}: {problem}")
    assert problems == []


def test_the_reference_pattern_reads_roles_and_literals():
    text = ":class:`~core.spec.SliceSpec`, ``core.errors``, ``core.``, :func:`strided_slice`"
    assert [m.group(1) for m in _ROLE.finditer(text)] == ["core.spec.SliceSpec", "core.errors"]


def test_role_problem_reports_missing_modules_and_names():
    assert role_problem("core.files.sources") is None
    assert role_problem("core.pipeline.pipeline.Pipeline.run") is None
    assert role_problem("core.files.nowhere") == "core.files has no nowhere"
    assert role_problem("core.files.sources.NoSuchThing") == "core.files.sources has no NoSuchThing"
