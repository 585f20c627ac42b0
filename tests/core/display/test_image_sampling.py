"""Image sampling: exact float copies, bounded strided subsamples, one level estimate for every display."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from core.display.image_sampling import estimate_levels, image_values, subsample, subsample_strides


@pytest.mark.parametrize(
    ("shape", "budget"),
    [((10_000, 10_000), 100_000), ((1, 10**8), 100_000), ((10**8, 1), 100_000), ((300, 300), 100_000),
     ((0, 5), 10), ((10**7,), 1000)],
)
def test_subsample_strides_respect_the_budget(shape, budget):
    strides = subsample_strides(shape, budget)
    assert int(np.prod([-(-n // s) for n, s in zip(shape, strides)])) <= budget
    if int(np.prod(shape)) <= budget:
        assert strides == (1,) * len(shape)


def test_subsample_strides_concrete():
    assert subsample_strides((10_000, 10_000), 100_000) == (32, 32)  # 313 x 313 = 97,969
    assert subsample_strides((1, 10**8), 100_000) == (1, 1024)  # the single row is kept
    assert subsample_strides((10**7,), 1000) == (16384,)
    assert subsample_strides((), 10) == ()


def test_subsample_is_a_bounded_view_of_a_huge_plane():
    plane = np.broadcast_to(np.arange(20_000, dtype="f4"), (50_000, 20_000))  # 1e9 cells, no RAM
    sample = subsample(plane, 100_000)
    assert sample.size <= 100_000 and np.shares_memory(sample, plane)
    low, high = estimate_levels(plane, max_samples=100_000)
    assert low == 0.0 and 19_000 < high < 20_000
    assert subsample(np.arange(10**7)[None, :], 1000).shape == (1, 611)  # stride 16384


def test_estimate_levels_ignores_nan_and_inf():
    data = np.arange(20, dtype=np.float64).reshape(4, 5)
    data[0, 0], data[0, 1], data[3, 4] = np.nan, -np.inf, np.inf
    assert estimate_levels(data) == (2.0, 18.0)
    assert estimate_levels(np.full((3, 3), 7, np.int16)) == (6.5, 7.5)
    assert estimate_levels(np.full((3, 3), np.nan)) == (0.0, 1.0)
    assert estimate_levels(np.array([np.nan, np.inf])) == (0.0, 1.0)
    big = np.random.default_rng(0).normal(size=(2000, 2000))
    low, high = estimate_levels(big)
    assert big.min() <= low < high <= big.max()


def test_estimate_levels_of_every_kind_of_plane():
    assert estimate_levels(np.array([3 + 4j, 0j])) == (0.0, 5.0)  # magnitude by default
    assert estimate_levels(np.array([3 + 4j, 1 - 2j]), "im") == (-2.0, 4.0)
    assert estimate_levels(np.array(2.5)) == (2.0, 3.0)  # 0-d: constant
    assert estimate_levels(np.array([[True, False]])) == (0.0, 1.0)
    assert estimate_levels(np.array([1.5, -2], ml_dtypes.bfloat16)) == (-2.0, 1.5)
    assert estimate_levels(np.array([0, 2**63], ">u8")) == (0.0, 2.0**63)
    with pytest.raises(TypeError):
        estimate_levels(np.array(["a", "b"]))


def test_image_values_are_exact_float_copies():
    source = np.arange(6, dtype=">i2").reshape(2, 3)
    out = image_values(source)
    assert out.dtype == np.float32 and out.flags.c_contiguous and not np.shares_memory(out, source)
    np.testing.assert_array_equal(out, source)
    assert image_values(np.array([[2**60]], np.int64)).dtype == np.float64
    np.testing.assert_array_equal(image_values(np.array([[3 + 4j]]), "im"), [[4.0]])
