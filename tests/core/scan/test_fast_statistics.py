"""The fast paths of the statistics: bins in the values' own float type (FastBins) and the
pass-1 figures of sub-blocks holding NaN, zeros, subnormals and infinities."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.scan.block_summaries import SUB_BLOCK
from core.scan.histogram import BinIndexer, FastBins
from core.scan.statistics import compute_statistics


def _fast_counts(fast: FastBins, values: np.ndarray, nan=False, infinite=False) -> list[int]:
    n = values.size
    counts = [fast.counts(values, np.empty(n, fast.work), np.empty(n, index), np.empty(n, index),
                          np.empty(n, bool), nan, infinite).tolist() for index in (np.int32, np.intp)]
    assert counts[0] == counts[1]  # the index type changes nothing
    return counts[0]


def _around(value: float, steps: int, dtype) -> np.ndarray:
    """The ``2 * steps + 1`` values of ``dtype`` nearest ``value`` (itself rounded to dtype)."""
    centre = np.array(value, dtype)
    below, above = [centre], [centre]
    for _ in range(steps):
        below.append(np.nextafter(below[-1], dtype(-np.inf)))
        above.append(np.nextafter(above[-1], dtype(np.inf)))
    return np.array(below[::-1] + above[1:], dtype)


def test_float32_values_on_the_edges_and_at_the_maximum():
    f32 = np.float32
    values = np.array([0, 0.25, 0.5, 0.75, 1.0, np.nextafter(f32(0.25), f32(0)),
                       np.nextafter(f32(0.75), f32(1))], f32)
    fast = FastBins.for_range(BinIndexer(0.0, 1.0, 4), np.dtype(f32))
    # bins [0, .25) [.25, .5) [.5, .75) [.75, 1]
    assert _fast_counts(fast, values) == [2, 1, 1, 3]
    assert _fast_counts(fast, values) == np.histogram(values.astype(np.float64), 4, (0, 1))[0].tolist()


@pytest.mark.parametrize("low, high, bins", [(0.0, 0.3, 3), (-1.7, 2.9, 64), (1e-30, 3e-30, 7),
                                             (-3e38, 3e38, 1000), (100.0, 100.5, 5)])
def test_float32_bins_equal_numpys_next_to_every_edge(low, high, bins):
    indexer = BinIndexer(float(np.float32(low)), float(np.float32(high)), bins)
    fast = FastBins.for_range(indexer, np.dtype(np.float32))
    assert fast is not None
    near = np.concatenate([_around(edge, 6, np.float32) for edge in indexer.edges])
    values = near[(near >= indexer.edges[0]) & (near <= indexer.edges[-1])]
    expected = np.histogram(values.astype(np.float64), bins, (indexer.edges[0], indexer.edges[-1]))[0]
    assert _fast_counts(fast, values) == expected.tolist()
    assert _fast_counts(fast, values) == indexer.counts(values).tolist()


def test_float64_and_int64_bins_equal_numpys():
    rng = np.random.default_rng(5)
    values = rng.standard_normal(5000) * 1e3
    values[:200] = np.linspace(values.min(), values.max(), 200)
    indexer = BinIndexer(values.min(), values.max(), 33)
    fast = FastBins.for_range(indexer, np.dtype(np.float64))
    assert _fast_counts(fast, values) == np.histogram(values, 33)[0].tolist()
    ints = rng.integers(-2**62, 2**62, 5000)
    indexer = BinIndexer(float(ints.min()), float(ints.max()), 10)
    fast = FastBins.for_range(indexer, ints.dtype)
    assert _fast_counts(fast, ints) == np.histogram(ints.astype(np.float64), 10)[0].tolist()


def test_non_finite_values_land_in_the_first_and_last_bins():
    values = np.array([0.5, np.nan, -np.inf, np.inf, 3.5, 2.0], np.float32)
    fast = FastBins.for_range(BinIndexer(0.5, 3.5, 3), np.dtype(np.float32))
    # 0.5 | 2.0 | 3.5 in bins 0, 1, 2; NaN and -Inf in bin 0; +Inf in the last bin
    assert _fast_counts(fast, values, nan=True, infinite=True) == [3, 1, 2]


def test_a_range_narrow_next_to_its_magnitude_is_declined_in_float32_only():
    indexer = BinIndexer(1e6, 1e6 + 1, 64)  # float32 resolves 1e6 to 0.0625: 1/16 of the range
    assert FastBins.for_range(indexer, np.dtype(np.float32)) is None
    assert FastBins.for_range(indexer, np.dtype(np.float64)) is not None


def test_narrow_float32_range_falls_back_to_exact_bins():
    values = (np.float32(1e6) + np.arange(17, dtype=np.float32) * np.float32(0.0625))
    s = compute_statistics(values, bins=4)
    assert s.histogram_counts == (4, 4, 4, 5)  # edges 1e6 + 0, .25, .5, .75, 1 (value 1e6+1 is last)


def _special_float32() -> np.ndarray:
    bits = np.array([0x00000000, 0x80000000,              # +0, -0
                     0x00000001, 0x807FFFFF,              # smallest and largest-magnitude subnormal
                     0x00800000,                          # smallest normal (not subnormal)
                     0x7F800000, 0xFF800000,              # +Inf, -Inf
                     0x7FC00000, 0x7FC00001, 0xFFC12345,  # quiet NaNs, payloads, negative
                     0x7F800001, 0x7FBFFFFF],             # signalling NaNs
                    np.uint32)
    return bits.view(np.float32)


@pytest.mark.parametrize("position", [0, 1000, SUB_BLOCK - 6, SUB_BLOCK * 2 + 3])
def test_special_values_counted_like_numpy_predicates(position):
    values = np.random.default_rng(9).standard_normal(SUB_BLOCK * 3).astype(np.float32) + 4
    values[position:position + 12] = _special_float32()
    s = compute_statistics(values, bins=16)
    with np.errstate(invalid="ignore"):  # the signalling NaNs
        f = values.astype(np.float64)
    finite = f[np.isfinite(f)]
    assert (s.nan_count, s.posinf_count, s.neginf_count) == (5, 1, 1)
    assert s.nan_count == int(np.isnan(values).sum())
    assert (s.zero_count, s.subnormal_count) == (2, 2)
    assert s.zero_count == int((values == 0).sum())
    tiny = np.finfo(np.float32).smallest_normal
    assert s.subnormal_count == int(((np.abs(values) < tiny) & (values != 0)).sum())
    assert s.finite_count == values.size - 7
    assert (s.min, s.max) == (-math.inf, math.inf)
    assert s.mean == pytest.approx(finite.mean(), rel=1e-12)
    assert s.std == pytest.approx(finite.std(), rel=1e-9)
    assert s.histogram_counts == tuple(np.histogram(finite, 16)[0].tolist())


@pytest.mark.parametrize("chunk", [1000, SUB_BLOCK + 17, 1 << 22])
def test_nan_sprinkled_float32_with_values_on_edges(chunk):
    rng = np.random.default_rng(11)
    values = np.clip(rng.standard_normal(SUB_BLOCK * 2 + 500), -3.9, 3.9).astype(np.float32)
    values[::997] = np.nan
    values[5], values[6] = -4.0, 4.0  # the range: edges at -4 + k/2 are exact in float32
    values[10:27] = np.arange(-4, 4.5, 0.5, dtype=np.float32)
    s = compute_statistics(values, bins=16, chunk_elements=chunk)
    finite = values[~np.isnan(values)].astype(np.float64)
    assert s.histogram_edges == tuple(np.arange(-4, 4.5, 0.5))
    assert s.histogram_counts == tuple(np.histogram(finite, 16)[0].tolist())
    assert s.nan_count == int(np.isnan(values).sum()) and s.finite_count == finite.size
    assert (s.min, s.max) == (-4.0, 4.0)
    assert s.mean == pytest.approx(finite.mean(), rel=1e-12)
    assert s.std == pytest.approx(finite.std(), rel=1e-9)


@pytest.mark.parametrize("bins", [1, 3, 64, 255, 256])
def test_quantised_float32_many_values_on_edges_and_at_the_maximum(bins):
    values = np.random.default_rng(13).integers(0, 256, SUB_BLOCK + 999).astype(np.float32)
    values[:300] = 255.0  # many at the maximum (the last bin includes it)
    s = compute_statistics(values, bins=bins)
    assert s.histogram_counts == tuple(np.histogram(values.astype(np.float64), bins)[0].tolist())


def test_more_values_on_an_edge_than_one_piece():
    values = np.zeros(SUB_BLOCK + 5, np.float32)  # constant: range 0 +- 0.5, 0 on the middle edge
    assert SUB_BLOCK + 5 > FastBins.PIECE
    s = compute_statistics(values, bins=2)
    assert s.histogram_edges == (-0.5, 0.0, 0.5)
    assert s.histogram_counts == (0, SUB_BLOCK + 5)  # numpy: on an edge, the right bin
