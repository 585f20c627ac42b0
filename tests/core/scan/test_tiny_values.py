"""core.scan.statistics of views whose values are all subnormal (they crashed: the scale that
brings them near 1 overflowed, in float64 moments and in the float32 histogram)."""

from __future__ import annotations

import numpy as np
import pytest

from core.scan.statistics import compute_statistics


@pytest.mark.parametrize("values", [
    np.array([-1e-310]),
    np.array([5e-324, 1e-310, -2e-320]),
    np.random.default_rng(6).standard_normal(3000) * 1e-310,
    (np.random.default_rng(6).standard_normal(3000) * 1e-39).astype(np.float32),
])
def test_all_subnormal_views(values):
    stats = compute_statistics(values, chunk_elements=1000)
    finite = values.astype(np.float64)
    counts, edges = np.histogram(finite, bins=64)
    assert stats.histogram_counts == tuple(int(c) for c in counts)
    # numpy computes subnormal edges with fewer bits (ours are scaled): equal to a few units
    assert stats.histogram_edges == pytest.approx(tuple(edges), rel=1e-15, abs=1e-321)
    assert (stats.min, stats.max) == (float(finite.min()), float(finite.max()))
    assert stats.mean == pytest.approx(float(finite.mean()), rel=1e-12, abs=0)
    assert stats.subnormal_count == values.size - stats.zero_count


def test_the_std_of_subnormals_does_not_underflow():
    stats = compute_statistics(np.array([0.0, 2e-310]))
    # numpy squares the deviations unscaled and gets 0.0
    assert stats.mean == 1e-310 and stats.std == 1e-310
