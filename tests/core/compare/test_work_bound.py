"""The comparison's bound (docs/compare.md, "How much a comparison may do"): the work is counted
before anything is read, refused past WORK_LIMIT pairs unless lifted, the mismatch lists checked
against the copy budget; the ULP tolerance and the shift search have ranges."""

from __future__ import annotations

import numpy as np
import pytest

import core.budget
from core.compare.rules import MAX_ULP, resolve_rules
from core.compare.scanner import Side, compare_sides, compare_work
from core.compare.shift import MAX_SHIFT, suggest_shift
from core.errors import BudgetError, CoreError


def broadcast_pair():
    # (2**20, 1) against (2**20,): 2**40 pairs, 4 bytes each side per pair
    return Side(np.zeros((1 << 20, 1), np.float32)), Side(np.zeros(1 << 20, np.float32))


def test_the_work_is_counted_before_anything_is_read():
    work = compare_work(*broadcast_pair())
    assert (work.pairs, work.bytes_a, work.bytes_b) == (1 << 40, 4 << 40, 4 << 40)
    assert work.describe() == "1,099,511,627,776 element pairs (4.0 TiB read from A, 4.0 TiB from B)"


def test_past_the_limit_it_is_refused_with_the_count_and_the_fix():
    with pytest.raises(BudgetError) as caught:
        compare_sides(*broadcast_pair(), limit_fix="compare less")
    assert caught.value.field == "compare"
    assert caught.value.message == (
        "comparing 1,099,511,627,776 element pairs (4.0 TiB read from A, 4.0 TiB from B) is above the "
        "limit of 2,147,483,648 pairs of one comparison (compare less)")


def test_the_limit_is_the_callers_to_lift():
    a, b = np.arange(16.0), np.arange(16.0)
    with pytest.raises(BudgetError, match="above the limit of 10 pairs"):
        compare_sides(Side(a), Side(b), work_limit=10)
    assert compare_sides(Side(a), Side(b), work_limit=None).compared == 16


def test_the_mismatch_lists_fit_the_copy_budget(monkeypatch):
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 100_000)
    a, b = np.zeros(1000), np.ones(1000)
    # 2 lists x min(100, 1000) entries x 1024 bytes = 204,800 bytes > 100,000
    with pytest.raises(BudgetError) as caught:
        compare_sides(Side(a), Side(b), list_limit=100)
    assert caught.value.field == "list_limit"
    assert caught.value.message.startswith("listing up to 200 first and worst mismatches would copy 200.0 KiB")
    result = compare_sides(Side(a), Side(b), list_limit=40)  # 81,920 bytes: fits
    assert (result.mismatched, len(result.first), len(result.worst)) == (1000, 40, 40)
    assert [m.flat for m in result.first] == list(range(40))


def test_a_huge_list_limit_on_few_pairs_costs_only_the_pairs():
    result = compare_sides(Side(np.zeros(5)), Side(np.arange(5.0)), list_limit=10**9)
    assert [m.flat for m in result.worst] == [4, 3, 2, 1]


def test_the_lists_merge_across_blocks_like_one_sort():
    rng = np.random.default_rng(3)
    a = rng.normal(size=5000)
    b = a + rng.normal(size=5000) * (rng.random(5000) < 0.3)
    whole = compare_sides(Side(a), Side(b), list_limit=50, chunk_elements=1 << 20)
    blocks = compare_sides(Side(a), Side(b), list_limit=50, chunk_elements=97)
    assert [m.flat for m in blocks.first] == [m.flat for m in whole.first]
    assert [m.flat for m in blocks.worst] == [m.flat for m in whole.worst]
    errors = np.abs(a - b)
    expected = sorted(np.flatnonzero(errors > 1e-7 + 1e-7 * np.abs(b)), key=lambda i: (-errors[i], i))[:50]
    assert [m.flat for m in whole.worst] == expected


@pytest.mark.parametrize("ulp", [10**30, MAX_ULP + 1])
def test_an_ulp_tolerance_out_of_range_names_the_range(ulp):
    with pytest.raises(CoreError) as caught:
        resolve_rules(np.dtype("float32"), np.dtype("float32"), ulp=ulp)
    assert caught.value.field == "ulp"
    assert caught.value.message == (
        f"ulp {ulp:,} is out of range: ULP distances are counted in 64 bits, so a tolerance is a whole "
        "number from 0 to 18,446,744,073,709,551,615 (2**64 - 1, which matches every finite pair)")


def test_the_largest_ulp_tolerance_works():
    rules = resolve_rules(np.dtype("float64"), np.dtype("float64"), ulp=MAX_ULP)
    a = np.array([-1.7e308, 0.0, np.nan])
    b = np.array([1.7e308, 5e-324, 1.0])
    result = compare_sides(Side(a), Side(b), rules)
    assert result.mismatched == 1  # only the NaN against a number


def test_a_shift_search_out_of_range_names_the_range():
    side = Side(np.arange(100.0))
    with pytest.raises(CoreError) as caught:
        suggest_shift(side, side, max_shift=10**12)
    assert caught.value.field == "max_shift"
    assert caught.value.message == (
        "max_shift 1000000000000 is out of range: the shift search tries every shift from -max_shift to "
        "max_shift, so it takes a whole number from 0 to 65,536 (give the shift itself when it is larger)")
    assert suggest_shift(side, Side(np.arange(3.0, 103.0)), max_shift=MAX_SHIFT).shift == -3
