"""Whole-tensor agreement figures (core.compare.agreement) against numpy's formulas, in one pass."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.compare.agreement import fine_histogram
from core.compare.scanner import Side, compare_sides


def _agreement(a, b, **options):
    return compare_sides(Side(np.asarray(a)), Side(np.asarray(b)), agreement=True, **options).agreement


def test_hand_checked_figures():
    # a = (1, 2, 3, 4), b = (1, 2, 3, 5): d = (0, 0, 0, -1)
    g = _agreement(np.array([1, 2, 3, 4], np.float64), np.array([1, 2, 3, 5], np.float64))
    assert g.pairs == 4
    assert g.cosine == pytest.approx(34 / math.sqrt(30 * 39), rel=1e-15)  # Σab=34, Σa²=30, Σb²=39
    # means 2.5 and 2.75; cov·n = Σ(a-ma)(b-mb) = 6.5, M2a = 5, M2b = 8.75
    assert g.pearson == pytest.approx(6.5 / math.sqrt(5 * 8.75), rel=1e-15)
    assert g.snr_db == pytest.approx(10 * math.log10(39 / 1), rel=1e-15)
    assert g.psnr_db == pytest.approx(10 * math.log10(25 / 0.25), rel=1e-15)  # peak 5, MSE 1/4
    assert g.peak_b == 5.0
    assert g.quantile("median") == 0.0  # 3 of 4 errors are exactly 0
    assert g.quantile("p99") == 1.0  # the 4th: |d| = 1, a bin's lower edge: exact


def test_identical_tensors_have_infinite_snr_and_unit_correlation():
    a = np.linspace(-3, 7, 1001, dtype=np.float32)
    g = _agreement(a, a.copy())
    assert (g.snr_db, g.psnr_db) == (math.inf, math.inf)
    assert g.cosine == pytest.approx(1.0, abs=1e-15) and g.pearson == pytest.approx(1.0, abs=1e-15)
    assert g.quantiles == (("median", 0.0), ("p99", 0.0))


def test_undefined_figures_are_none_never_nan():
    nan = np.full(10, np.nan, np.float32)
    g = _agreement(nan, nan)
    assert g.pairs == 0 and g.cosine is None and g.pearson is None and g.snr_db is None and g.psnr_db is None
    assert g.quantile("median") is None
    empty = _agreement(np.zeros(0, np.float32), np.zeros(0, np.float32))
    assert empty.pairs == 0 and empty.cosine is None
    zeros = _agreement(np.zeros(5, np.float32), np.ones(5, np.float32))
    assert zeros.cosine is None and zeros.pearson is None  # a side all zero, a side constant
    assert zeros.snr_db == pytest.approx(0.0, abs=1e-12)  # Σb² = Σd² = 5
    reference_zero = _agreement(np.ones(5, np.float32), np.zeros(5, np.float32))
    assert reference_zero.snr_db == -math.inf and reference_zero.psnr_db == -math.inf


def test_non_finite_pairs_are_left_out_and_integers_are_compared_as_numbers():
    a = np.array([1.0, np.nan, 3.0, np.inf], np.float32)
    b = np.array([1.0, 2.0, 4.0, 1.0], np.float32)
    g = _agreement(a, b)
    assert g.pairs == 2 and g.cosine == pytest.approx(13 / math.sqrt(10 * 17), rel=1e-7)
    ints = _agreement(np.array([0, 10, 20], np.int8), np.array([0, 10, 22], np.int16))
    assert ints.pairs == 3 and ints.snr_db == pytest.approx(10 * math.log10(584 / 4), rel=1e-15)
    assert ints.quantile("p99") == 2.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, width=32), min_size=1, max_size=3000), st.integers(0, 2**32 - 1),
       st.sampled_from([1 << 7, 1 << 10, 1 << 18]))
def test_figures_agree_with_numpy_whatever_the_blocks(values, seed, chunk):
    a = np.array(values, np.float32)
    rng = np.random.default_rng(seed)
    b = (a + rng.standard_normal(a.size).astype(np.float32) * np.float32(0.01)).astype(np.float32)
    g = _agreement(a, b, chunk_elements=chunk)
    wa, wb = a.astype(np.float64), b.astype(np.float64)
    assert g.pairs == a.size
    if wa @ wa > 0 and wb @ wb > 0:
        assert g.cosine == pytest.approx(wa @ wb / math.sqrt((wa @ wa) * (wb @ wb)), rel=1e-9, abs=1e-12)
    errors = np.sort(np.abs(a - b).astype(np.float64))
    for name, q in (("median", 0.5), ("p99", 0.99)):
        true = errors[max(1, math.ceil(q * a.size)) - 1]
        assert true * (1 - 1 / 64) <= g.quantile(name) <= true, name
    mse = float(np.mean((wa - wb) ** 2))
    if mse > 0:
        # Σd² is summed from float32 differences (the work type): within 1e-6 dB of float64's
        assert g.snr_db == pytest.approx(10 * math.log10((wb @ wb) / (mse * a.size)), rel=1e-9, abs=1e-6)


def test_fine_histogram_bins_a_power_of_two_in_64():
    values = np.array([1.0, 1.0 + 1 / 64, 1.0 + 1 / 128, 2.0], np.float32)
    counts = fine_histogram(values)
    one = 127 << 6  # float32 exponent of 1.0, 6 mantissa bits of 0
    assert counts[one] == 2 and counts[one + 1] == 1 and counts[one + 64] == 1 and counts.sum() == 4


def test_sums_over_several_pieces_with_a_ragged_end_agree_with_float64():
    # 2**17 + 2**11 + 5 pairs: pieces of block_sums' chunk and a last row only partly filled
    # (its tail is zeros and must add nothing); one block, so the sums are block_sums' alone.
    n = (1 << 17) + (1 << 11) + 5
    rng = np.random.default_rng(7)
    a = rng.normal(3.0, 0.5, n).astype(np.float32)  # a mean far from 0: the moments must hold
    b = (a + rng.normal(0, 0.01, n)).astype(np.float32)
    g = _agreement(a, b, chunk_elements=1 << 18)
    wa, wb = a.astype(np.float64), b.astype(np.float64)
    assert g.pairs == n and g.peak_b == float(np.abs(b).max())
    assert g.cosine == pytest.approx(wa @ wb / math.sqrt((wa @ wa) * (wb @ wb)), rel=1e-12)
    ca, cb = wa - wa.mean(), wb - wb.mean()
    assert g.pearson == pytest.approx(ca @ cb / math.sqrt((ca @ ca) * (cb @ cb)), rel=1e-9)
