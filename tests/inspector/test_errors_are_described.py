"""No module of the app formats an exception itself: every one is shown through
``core.errors.describe_error`` (docs/architecture.md, "One error route").

The scan reads every module under ``inspector/`` and looks at the names that hold an exception:
the name an ``except ... as name`` binds, and a parameter annotated as an exception
(``error: BaseException`` in a task's ``failed`` slot). Such a name may be handed on, compared,
raised or passed to ``describe_error``; it may not be turned into text directly: ``str(name)``,
``repr(name)``, ``f"{name}"``, ``"..." % name``, ``"...".format(name)``, ``name.args``,
``print(name)``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "inspector"
_EXCEPTION_ANNOTATIONS = {"BaseException", "Exception", "CoreError", "OSError", "ValueError"}


def _exception_names(tree: ast.AST) -> list[tuple[ast.AST, str]]:
    """(scope, name) for every name that holds an exception in ``tree``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.name:
            found.append((node, node.name))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs):
                annotation = ast.unparse(arg.annotation) if arg.annotation is not None else ""
                if set(annotation.replace("|", " ").split()) & _EXCEPTION_ANNOTATIONS:
                    found.append((node, arg.arg))
    return found


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def formatted_exceptions(source: str) -> list[str]:
    """``line: code`` of every place in ``source`` that turns an exception into text itself."""
    tree = ast.parse(source)
    problems = []
    for scope, name in _exception_names(tree):
        for node in ast.walk(scope):
            bad = None
            if isinstance(node, ast.Call):
                func = node.func
                callee = func.id if isinstance(func, ast.Name) else None
                if callee in ("str", "repr", "print") and any(_is(a, name) for a in node.args):
                    bad = node
                elif (isinstance(func, ast.Attribute) and func.attr == "format"
                      and any(_is(a, name) for a in (*node.args, *(k.value for k in node.keywords)))):
                    bad = node
            elif isinstance(node, ast.FormattedValue) and _is(node.value, name):
                bad = node
            elif isinstance(node, ast.Attribute) and node.attr == "args" and _is(node.value, name):
                bad = node
            elif (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)
                  and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)
                  and (_is(node.right, name) or (isinstance(node.right, ast.Tuple)
                                                  and any(_is(e, name) for e in node.right.elts)))):
                bad = node
            if bad is not None:
                problems.append(f"{bad.lineno}: {ast.get_source_segment(source, bad)}")
    return problems


@pytest.mark.parametrize(
    "source, expected",
    [("try:\n    f()\nexcept ValueError as error:\n    show(str(error))\n", ["4: str(error)"]),
     ("try:\n    f()\nexcept OSError as exc:\n    show(f'cannot: {exc}')\n", ["4: f'cannot: {exc}'"]),
     ("try:\n    f()\nexcept OSError as e:\n    show(e.args[0])\n", ["4: e.args"]),
     ("try:\n    f()\nexcept OSError as e:\n    show('%s' % e)\n", ["4: '%s' % e"]),
     ("try:\n    f()\nexcept OSError as e:\n    show('{}'.format(e))\n", ["4: '{}'.format(e)"]),
     ("def failed(self, error: BaseException) -> None:\n    self.label.setText(repr(error))\n",
      ["2: repr(error)"]),
     ("try:\n    f()\nexcept OSError as error:\n    show(describe_error(error).message)\n", []),
     ("try:\n    f()\nexcept OSError as error:\n    raise CoreError('x') from error\n", []),
     ("def failed(self, error: BaseException) -> None:\n    report(error)\n", [])],
)
def test_the_scan_finds_an_exception_formatted_by_hand(source, expected):
    assert formatted_exceptions(source) == expected


def test_no_app_module_formats_an_exception_itself():
    problems = [f"{path.relative_to(ROOT)}:{problem}"
                for path in sorted(APP.rglob("*.py"))
                for problem in formatted_exceptions(path.read_text(encoding="utf-8"))]
    assert problems == [], "show describe_error(error).message instead:\n" + "\n".join(problems)
