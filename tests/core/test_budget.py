"""The copy budget: explicit, overridable, refusing absurd copies before allocating."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core import budget
from core.errors import BudgetError, CoreError

ROOT = Path(__file__).resolve().parents[2]


def test_default_is_two_gib():
    assert budget._DEFAULT == 2 * 1024**3


def test_message_names_the_copy_the_budget_and_the_fix():
    with pytest.raises(BudgetError) as info:
        budget.check_copy_budget(2**40, "padding to fixed_length 1099511627776",
                                 "choose a smaller fixed_length", field="fixed_length")
    assert str(info.value) == (
        "padding to fixed_length 1099511627776 would copy 1.0 TiB, above the 2.0 GiB copy budget "
        "(choose a smaller fixed_length, or raise the budget with TENSOR_INSPECTOR_COPY_BUDGET)")
    assert info.value.field == "fixed_length"
    assert isinstance(info.value, CoreError)


def test_copies_within_the_budget_pass(monkeypatch):
    monkeypatch.setattr(budget, "COPY_BUDGET_BYTES", 100)
    budget.check_copy_budget(100, "x", "y")
    with pytest.raises(BudgetError, match="101 bytes, above the 100 bytes copy budget"):
        budget.check_copy_budget(101, "x", "y")


@pytest.mark.parametrize(("text", "value"), [
    ("4096", 4096), ("4GiB", 4 * 1024**3), ("4 G", 4 * 1024**3), ("1.5GB", 1_500_000_000),
    ("512MiB", 512 * 1024**2), ("2k", 2048),
])
def test_parse_byte_count(text, value):
    assert budget.parse_byte_count(text) == value


@pytest.mark.parametrize("text", ["", "lots", "-5", "4 parsecs"])
def test_parse_byte_count_refuses(text):
    with pytest.raises(ValueError):
        budget.parse_byte_count(text)


def _run(env_value: str) -> subprocess.CompletedProcess:
    code = (
        "import core.budget as b\n"
        "print(b.COPY_BUDGET_BYTES)\n"
        "try:\n    b.check_copy_budget(10, 'x', 'y')\nexcept Exception as e:\n    print(e)\n"
    )
    env = dict(os.environ, TENSOR_INSPECTOR_COPY_BUDGET=env_value)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=True)


def test_environment_variable_overrides_the_budget():
    lines = _run("8").stdout.splitlines()
    assert lines[0] == "8"
    assert lines[1].startswith("x would copy 10 bytes, above the 8 bytes copy budget (y")


def test_unparseable_environment_variable_is_reported_not_ignored():
    lines = _run("plenty").stdout.splitlines()
    assert "TENSOR_INSPECTOR_COPY_BUDGET='plenty' is not a byte count" in lines[1]


def test_a_400_digit_environment_variable_is_reported_not_a_traceback_at_import():
    out = _run("9" * 400)
    lines = out.stdout.splitlines()
    assert lines[0] == str(2 * 1024**3)  # the default stays in force
    assert "is not a byte count" in lines[1] and "TENSOR_INSPECTOR_COPY_BUDGET" in lines[1]
    assert out.stderr == ""


@pytest.mark.parametrize("text", ["\u0664", "1\u0660", "\uff18"])  # Arabic-Indic 4, 10, fullwidth 8
def test_digits_of_other_scripts_are_refused(text):
    with pytest.raises(ValueError, match="is not a byte count"):
        budget.parse_byte_count(text)


@pytest.mark.parametrize("text, expected", [("1.5GB", 1_500_000_000), ("0.5K", 512), ("2 gib", 2**31),
                                            ("8EB", None), ("9" * 25, None)])
def test_byte_counts_are_exact_and_bounded(text, expected):
    if expected is None:
        with pytest.raises(ValueError, match="larger than any memory|not a byte count"):
            budget.parse_byte_count(text)
    else:
        assert budget.parse_byte_count(text) == expected
