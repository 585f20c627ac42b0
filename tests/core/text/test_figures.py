"""core.text.figures: the digits of each kind of derived figure, with the texts they give."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from core.text.figures import (
    format_correlation,
    format_difference,
    format_factor,
    format_fit,
    format_moment,
    format_percentage,
    format_progress,
    format_score,
    format_share,
)


@pytest.mark.parametrize(("value", "text"), [
    (0.00099992752, "0.000999928"), (1.3e-06, "1.3e-06"), (1e-05, "1e-05"), (2.0, "2"), (0.5, "0.5"),
    (123456789.0, "1.23457e+08"), (0.0, "0"), (float("nan"), "nan"), (float("inf"), "inf"),
])
def test_a_difference_has_six_significant_digits(value, text):
    assert format_difference(value) == text


@pytest.mark.parametrize(("value", "text"), [
    (2.3456789, "2.345679"), (1e10 / 3, "3.333333e+09"), (4.5, "4.5"), (-0.125, "-0.125"), (0.0, "0"),
])
def test_a_moment_has_seven_significant_digits(value, text):
    assert format_moment(value) == text


@pytest.mark.parametrize(("part", "whole", "text"), [
    (0, 0, "0%"), (0, 6, "0%"), (1, 6, "16.7%"), (1, 40, "2.5%"), (3, 10, "30%"), (39, 39, "100%"),
    (12, 1_000_000, "0.0012%"), (1, 100_000, "0.001%"), (1, 200_000, "<0.001%"),
    (9_999, 10_000, "99.99%"), (99_999, 100_000, ">99.99%"), (19_994, 20_000, "99.97%"),
    (2**62 - 1, 2**62, ">99.99%"),  # the float quotient is 1.0: still not all of them
])
def test_a_share_is_never_zero_or_all_when_it_is_neither(part, whole, text):
    assert format_share(part, whole) == text


@pytest.mark.parametrize(("fraction", "text"), [
    (0.0, "0%"), (1.0, "100%"), (0.975, "97.5%"), (0.0312, "3.12%"), (0.4, "40%"), (1e-9, "<0.001%"),
    (0.99999, ">99.99%"), (float("nan"), "nan%"),
])
def test_a_percentage_of_a_fraction_follows_the_share_rule(fraction, text):
    assert format_percentage(fraction) == text


@pytest.mark.parametrize(("fraction", "text"), [
    (0.0, "0%"), (0.034, "3%"), (0.42, "42%"), (0.996, "99%"), (1.0, "100%"), (1.2, "100%"), (-0.1, "0%"),
])
def test_progress_is_whole_percent_rounded_down(fraction, text):
    assert format_progress(fraction) == text


@pytest.mark.parametrize(("points", "text"), [(10.64, "10.6"), (0.8, "0.8"), (0.05, "0.1"), (-1.25, "-1.2")])
def test_a_score_has_one_decimal(points, text):
    assert format_score(points) == text


def test_a_correlation_has_two_decimals_and_a_sign_on_request():
    assert format_correlation(0.9731) == "0.97"
    assert format_correlation(-0.5) == "-0.50"
    assert format_correlation(0.123, signed=True) == "+0.12"
    assert format_correlation(-0.123, signed=True) == "-0.12"


def test_a_factor_has_one_decimal():
    assert format_factor(2.0) == "2.0"
    assert format_factor(1 / 0.3) == "3.3"


def test_a_layout_fit_has_two_decimals():
    assert format_fit(0.9412) == "0.94"
    assert format_fit(0.9875) == "0.99"  # a check's (3 + 0.45 + 0.5) / 4
    assert format_fit(1.0) == "1.00" and format_fit(0.0) == "0.00"


_FLOAT_SPEC = re.compile(r"[eEfFgG%]$")
_OWNERS = {"core/text", "core/text/byte_sizes.py"}  # the formatters themselves


def float_format_specs(source: str) -> list[str]:
    """``line: spec`` of every float format spec (``:.3g``, ``:.1%``, ``:g``...) in an f-string,
    a ``format(x, spec)`` call or a ``"{:spec}".format`` template of ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        spec = None
        if isinstance(node, ast.FormattedValue) and isinstance(node.format_spec, ast.JoinedStr):
            spec = "".join(v.value for v in node.format_spec.values if isinstance(v, ast.Constant))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "format"
              and len(node.args) == 2 and isinstance(node.args[1], ast.Constant)):
            spec = str(node.args[1].value)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"
              and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)):
            specs = re.findall(r"\{[^{}:]*:([^{}]*)\}", node.func.value.value)
            spec = next((s for s in specs if _FLOAT_SPEC.search(s)), None)
        if spec is not None and _FLOAT_SPEC.search(spec):
            found.append((node.lineno, spec))
    return [f"{line}: {spec}" for line, spec in sorted(found)]


def test_the_scan_finds_float_specs():
    assert float_format_specs('a = f"{x:.3g} {n:,} {s!r:.80} {b:02X}"\nb = format(y, ".1%")\nc = "{:g}".format(z)\n') == [
        "1: .3g", "2: .1%", "3: g"]


def test_derived_figures_get_their_digits_from_core_text():
    root = Path(__file__).resolve().parents[3]
    problems = []
    for package in ("core", "inspector"):
        for path in sorted((root / package).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            if any(relative == owner or relative.startswith(owner + "/") for owner in _OWNERS):
                continue
            problems += [f"{relative}:{spec}" for spec in float_format_specs(path.read_text(encoding="utf-8"))]
    assert problems == [], "format through core.text.figures (or number_format for values):\n" + "\n".join(problems)
