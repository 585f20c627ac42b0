"""Slice text lives only at the edges; inside, a SliceSpec (docs/architecture.md, "One way each").

Text becomes a spec where a person or a file wrote it: typing (the slice editor, the document's
``set_slice_text``), the command lines, sessions and bookmarks, the public Python API. Everything
else passes :class:`core.slicing.spec.SliceSpec`. "Blank text is the whole tensor" has one home,
:func:`core.slicing.expr.parse_slice` (and its inverse :func:`core.slicing.expr.stored_slice_text`),
and "the whole tensor is no slice" one other, :meth:`Pipeline.run` with ``SliceSpec.is_full``: no
caller repeats either rule.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: The modules where slice text is read: what a user typed, a command line, a session file, the
#: public API's ``slice=`` argument.
EDGES = {
    "core/api.py",
    "core/cli/diff.py",
    "core/cli/kerchunk.py",
    "core/cli/show.py",
    "core/session/placement.py",
    "inspector/app.py",
    "inspector/slice_editor/editor.py",
    "inspector/state/document.py",
}


def _modules():
    for package in ("core", "inspector"):
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _calls(tree: ast.AST, name: str):
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call) and _name(node.func) == name]


def test_slice_text_is_parsed_only_at_the_edges():
    found = {module for module, tree in _modules() if module != "core/slicing/expr.py"
             and _calls(tree, "parse_slice")}
    assert found - EDGES == set(), "parse slice text at an edge; pass a SliceSpec inside"
    assert found == EDGES  # every listed edge still reads text (the list stays true)


def _is_strip_test(node: ast.AST) -> bool:
    return any(isinstance(inner, ast.Call) and _name(inner.func) == "strip" for inner in ast.walk(node))


def test_no_caller_repeats_that_blank_text_is_the_whole_tensor():
    repeats = []
    for module, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, (ast.IfExp, ast.If)) and _is_strip_test(node.test) and _calls(node, "parse_slice"):
                repeats.append(f"{module}:{node.lineno}")
    assert repeats == []


def test_no_caller_repeats_that_the_whole_tensor_is_no_slice():
    repeats = []
    for module, tree in _modules():
        if module.startswith("core/slicing/"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and any(
                    isinstance(part, ast.Call) and _name(part.func) == "full"
                    for part in [node.left, *node.comparators]):
                repeats.append(f"{module}:{node.lineno}")
    assert repeats == [], "use SliceSpec.is_full, stored_slice_text, or pass the spec to Pipeline.run"


@pytest.mark.parametrize("text", ["", "  ", "[]"])
def test_blank_text_and_the_empty_index_are_the_whole_tensor_and_no_slice(tmp_path, text):
    import numpy as np

    from core.pipeline.pipeline import DecodeParams, Pipeline
    from core.slicing.expr import parse_slice, stored_slice_text

    spec = parse_slice(text)
    assert spec.is_full and stored_slice_text(spec) == ""
    assert stored_slice_text(parse_slice("[1:]")) == "[1:]"
    path = tmp_path / "a.bin"
    path.write_bytes(bytes(range(6)))
    with Pipeline([str(path)]) as pipeline:
        result = pipeline.run(DecodeParams(shape=(2, 3)), spec)
        assert result.slice_spec is None and result.steps[-1] == "slice: none (the whole tensor)"
        np.testing.assert_array_equal(result.view, [[0, 1, 2], [3, 4, 5]])
