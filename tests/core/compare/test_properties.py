"""Property tests: the scanner's counts equal numpy.isclose's and numpy.testing.assert_allclose's
verdict, and chunked results equal whole-array results, for any data hypothesis finds."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from core.compare.scanner import Side, compare_sides

SETTINGS = settings(max_examples=150, deadline=3000)


def figures(result) -> str:
    """Every figure as JSON text, the mean and RMS rounded (sums merged in another order)."""
    document = result.to_json()
    for name in ("mean_absolute", "rms"):
        if isinstance(document[name], float):
            document[name] = f"{document[name]:.12g}"
    return json.dumps(document, sort_keys=True)


SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-45, 3.4e38, -3.4e38]


@st.composite
def pairs(draw, dtype):
    """Two arrays of one float type and shape: B is A scaled slightly, or independent."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6))
    elements = st.one_of(st.floats(width=8 * np.dtype(dtype).itemsize, allow_nan=True),
                         st.sampled_from(SPECIAL))
    a = draw(hnp.arrays(dtype, shape, elements=elements))
    scale = draw(st.sampled_from([0.0, 1e-7, 1e-5, 1e-3, 1.0]))
    with np.errstate(all="ignore"):
        b = (a * (1 + scale)).astype(dtype)
    if draw(st.booleans()):
        b = draw(hnp.arrays(dtype, shape, elements=elements))
    return a, b


TOLERANCES = st.one_of(st.just((None, None)), st.tuples(st.sampled_from([0.0, 1e-7, 1e-5, 1e-2]),
                                                          st.sampled_from([0.0, 1e-8, 1e-5, 1.0])))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@SETTINGS
@given(data=st.data(), tolerances=TOLERANCES, equal_nan=st.booleans(), chunk=st.sampled_from([1, 2, 5, 1 << 20]))
def test_mismatch_count_is_numpys_isclose(dtype, data, tolerances, equal_nan, chunk):
    a, b = data.draw(pairs(dtype))
    rtol, atol = tolerances
    r = compare_sides(Side(a), Side(b), rtol=rtol, atol=atol, nan_policy="equal" if equal_nan else "mismatch",
                      chunk_elements=chunk)
    with np.errstate(all="ignore"):
        close = np.isclose(a, b, rtol=r.rules.rtol, atol=r.rules.atol, equal_nan=equal_nan)
    assert r.mismatched == int(np.count_nonzero(~close))
    try:
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(a, b, rtol=r.rules.rtol, atol=r.rules.atol, equal_nan=equal_nan)
        passes = True
    except AssertionError:
        passes = False
    assert r.equal == passes


@SETTINGS
@given(data=st.data(), chunk=st.integers(1, 9), workers=st.sampled_from([1, 2]))
def test_tiny_chunks_give_the_whole_array_result(data, chunk, workers):
    a, b = data.draw(pairs(np.float32))
    whole = compare_sides(Side(a), Side(b), chunk_elements=1 << 20, workers=1, list_limit=5)
    chunked = compare_sides(Side(a), Side(b), chunk_elements=chunk, workers=workers, list_limit=5)
    assert figures(chunked) == figures(whole)
    finite = np.isfinite(a) & np.isfinite(b)
    assert whole.finite_pairs == int(np.count_nonzero(finite))
    if finite.any():
        with np.errstate(all="ignore"):
            error = np.abs(a - b)[finite]
        assert whole.max_absolute.value == float(error.max())


@SETTINGS
@given(a=hnp.arrays(np.int64, st.integers(0, 20)), data=st.data())
def test_integer_mismatches_are_exact_inequality(a, data):
    b = data.draw(hnp.arrays(np.uint64, a.shape))
    r = compare_sides(Side(a), Side(b), chunk_elements=3)
    assert r.mismatched == int(np.count_nonzero(a != b))  # numpy 2 compares int64 with uint64 exactly
