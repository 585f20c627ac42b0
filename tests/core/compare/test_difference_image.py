"""What a picture of |A - B| shows (core.compare.difference_image): not-finite differences apart
from the colour scale, the linear and the log scale, and "no differences"."""

from __future__ import annotations

import math

import numpy as np

from core.compare.difference_image import difference_image, not_finite_differences

NAN, INF = float("nan"), float("inf")


def test_a_nan_or_infinite_mismatch_is_not_finite_and_holds_the_lowest_level():
    absolute = np.array([[0.0, 1e-6], [0.5, NAN], [INF, NAN]])
    mismatch = np.array([[False, False], [True, True], [True, False]])  # the last NaN: NaN == NaN
    image = difference_image(absolute, mismatch)
    np.testing.assert_array_equal(image.not_finite, [[False, False], [False, True], [True, False]])
    assert image.levels == (0.0, 0.5)  # the largest *finite* difference is the top, not the NaN
    np.testing.assert_array_equal(image.values, [[0.0, 1e-6], [0.5, 0.0], [0.0, 0.0]])
    assert image.differs and not image.log_scale


def test_the_log_scale_puts_an_exact_match_one_decade_below_the_smallest_error():
    absolute = np.array([0.0, 1e-6, 1e-2, 1.0, NAN])
    mismatch = np.array([False, False, True, True, True])
    image = difference_image(absolute, mismatch, log_scale=True)
    low, high = image.levels
    assert math.isclose(low, -7.0) and math.isclose(high, 0.0)
    np.testing.assert_allclose(image.values, [-7.0, -6.0, -2.0, 0.0, -7.0])
    assert image.not_finite.tolist() == [False, False, False, False, True]
    assert np.isfinite(image.values).all()


def test_equal_arrays_do_not_differ_and_keep_a_usable_scale():
    for log in (False, True):
        image = difference_image(np.zeros((2, 3)), np.zeros((2, 3), bool), log_scale=log)
        assert not image.differs
        assert image.levels == (0.0, 1.0)
        assert (image.values == 0).all() and not image.not_finite.any()
    # NaN against NaN under the "equal" NaN policy and +inf against +inf are no difference either
    image = difference_image(np.array([NAN, NAN, 0.0]), np.array([False, False, False]))
    assert not image.differs and not image.not_finite.any()


def test_only_not_finite_differences_still_differ():
    image = difference_image(np.array([0.0, NAN]), np.array([False, True]), log_scale=True)
    assert image.differs and image.not_finite.tolist() == [False, True] and image.levels == (0.0, 1.0)


def test_not_finite_differences_needs_a_mismatch():
    assert not_finite_differences(np.array([NAN, INF, 1.0, NAN]), np.array([True, True, True, False])).tolist() == [
        True, True, False, False]
