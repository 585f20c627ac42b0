"""Peak decimation and the min/max pyramid, with numpy (nanmin/nanmax per bucket) as the oracle."""

from __future__ import annotations

import itertools
import warnings

import ml_dtypes
import numpy as np
import pytest

from core.display.line_decimation import (
    MinMaxPyramid,
    bucket_edges,
    peak_decimate,
    real_values,
)


def oracle(values: np.ndarray, offset: int, bucket: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-bucket nanmin/nanmax by plain numpy, buckets aligned to absolute multiples."""
    edges = bucket_edges(offset, offset + len(values), bucket) - offset
    mins, maxs = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices: the oracle says NaN
        for a, b in itertools.pairwise(edges):
            mins.append(np.nanmin(values[a:b].astype(np.float64)))
            maxs.append(np.nanmax(values[a:b].astype(np.float64)))
    return np.array(mins), np.array(maxs)


def noisy(n: int, seed: int = 0) -> np.ndarray:
    """Random float32 data with scattered NaN, an all-NaN run and +-inf."""
    rng = np.random.default_rng(seed)
    data = rng.normal(size=n).astype(np.float32)
    data[rng.random(n) < 0.05] = np.nan
    if n > 400:
        data[300:400] = np.nan  # whole buckets of NaN for small bucket sizes
        data[17] = np.inf
        data[n - 5] = -np.inf
    return data


# --------------------------------------------------------------------------------- edges
@pytest.mark.parametrize(
    ("start", "stop", "bucket", "expected"),
    [
        (0, 10, 4, [0, 4, 8, 10]),
        (3, 10, 4, [3, 4, 8, 10]),
        (4, 8, 4, [4, 8]),
        (5, 6, 4, [5, 6]),
        (7, 7, 4, [7]),
        (0, 3, 1, [0, 1, 2, 3]),
    ],
)
def test_bucket_edges_are_absolute_multiples(start, stop, bucket, expected):
    assert bucket_edges(start, stop, bucket).tolist() == expected


@pytest.mark.parametrize(("start", "stop", "bucket"), [(0, 5, 0), (5, 4, 2)])
def test_bucket_edges_rejects_bad_input(start, stop, bucket):
    with pytest.raises(ValueError):
        bucket_edges(start, stop, bucket)


# --------------------------------------------------------------------------------- decimation
@pytest.mark.parametrize(("n", "bucket", "offset"), list(itertools.product([1, 7, 1000, 4099], [1, 3, 64, 5000], [0, 5, 4096])))
def test_peak_decimate_matches_numpy(n, bucket, offset):
    data = noisy(n, seed=n + bucket)
    peaks = peak_decimate(data, bucket, offset=offset)
    mins, maxs = oracle(data, offset, bucket)
    np.testing.assert_array_equal(peaks.mins, mins)
    np.testing.assert_array_equal(peaks.maxs, maxs)
    assert peaks.starts[0] == offset and peaks.stops[-1] == offset + n
    assert np.all(peaks.stops[:-1] % bucket == 0)


def test_peak_curve_holds_every_bucket_min_and_max():
    data = noisy(10_000, seed=3)
    peaks = peak_decimate(data, 37, offset=11)
    x, y = peaks.curve()
    assert len(x) == len(y) == 2 * len(peaks)
    mins, maxs = oracle(data, 11, 37)
    for k, (a, b) in enumerate(zip(peaks.starts, peaks.stops, strict=True)):
        inside = y[(x >= a) & (x < b)]
        np.testing.assert_array_equal(np.sort(inside), np.sort([mins[k], maxs[k]]))
    # The global extrema survive decimation.
    assert np.nanmax(y) == np.nanmax(data) and np.nanmin(y) == np.nanmin(data)


def test_peak_decimate_all_nan_gives_nan_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        peaks = peak_decimate(np.full(10, np.nan), 4)
    assert np.isnan(peaks.mins).all() and np.isnan(peaks.maxs).all()


def test_peak_decimate_empty_and_errors():
    assert len(peak_decimate(np.empty(0, np.float32), 4)) == 0
    with pytest.raises(ValueError, match="1-d"):
        peak_decimate(np.zeros((2, 2)), 2)


# --------------------------------------------------------------------------------- real values
@pytest.mark.parametrize(
    ("values", "part", "expected_dtype", "expected"),
    [
        (np.array([1.5, -2.0], ">f4"), "abs", np.float32, [1.5, -2.0]),
        (np.array([1.5, -2.0], ml_dtypes.bfloat16), "abs", np.float32, [1.5, -2.0]),
        (np.array([1.5, -2.0], np.float16), "abs", np.float32, [1.5, -2.0]),
        (np.array([2**64 - 1, 3], np.uint64), "abs", np.uint64, [2**64 - 1, 3]),
        (np.array([5, -3], ">i2"), "abs", np.int16, [5, -3]),
        (np.array([True, False]), "abs", np.uint8, [1, 0]),
        (np.array([3 + 4j, -1j], ">c8"), "abs", np.float32, [5.0, 1.0]),
        (np.array([3 + 4j, -1j], np.complex128), "re", np.float64, [3.0, 0.0]),
        (np.array([3 + 4j, -1j], np.complex128), "im", np.float64, [4.0, -1.0]),
    ],
)
def test_real_values_catalogue(values, part, expected_dtype, expected):
    out = real_values(values, part)
    assert out.dtype == expected_dtype and out.dtype.isnative
    np.testing.assert_array_equal(out, np.array(expected, dtype=expected_dtype))


def test_real_values_is_a_view_for_native_floats_and_rejects_bad_input():
    data = np.arange(10, dtype=np.float32)
    assert np.shares_memory(real_values(data), data)
    with pytest.raises(ValueError, match="complex part"):
        real_values(data, "angle")
    with pytest.raises(TypeError, match="numeric"):
        real_values(np.array(["a"]))


def test_real_values_phase_and_decibels_of_complex_data():
    z = np.array([3 + 4j, -1 + 0j, 0j, 1j], dtype=">c8")
    phase = real_values(z, "phase")
    assert phase.dtype == np.float32 and phase.dtype.isnative
    np.testing.assert_array_equal(phase, np.float32([np.arctan2(4, 3), np.pi, 0, np.pi / 2]))
    db = real_values(z, "dB")  # 20*log10(5) = 13.9794..., |z| = 1 is 0 dB, 0 is -inf
    assert db.dtype == np.float32
    np.testing.assert_allclose(db[[0, 1, 3]], [13.979400086720377, 0.0, 0.0], rtol=1e-6)
    assert db[2] == -np.inf


# --------------------------------------------------------------------------------- pyramid
class CountingArray(np.ndarray):
    """A 1-d array that counts the elements read through slicing (as a memmap would be paged)."""

    reads: list[int]

    def __getitem__(self, key):
        out = super().__getitem__(key)
        if isinstance(key, slice):
            self.reads.append(np.size(out))
        return out


def counting(data: np.ndarray) -> CountingArray:
    arr = data.view(CountingArray)
    arr.reads = []
    return arr


@pytest.fixture(scope="module")
def pyramid_data() -> np.ndarray:
    return noisy(100_003, seed=7)


@pytest.fixture(scope="module")
def pyramid(pyramid_data) -> MinMaxPyramid:
    return MinMaxPyramid.build(pyramid_data, base_bucket=16, factor=4, chunk=1000)


def test_pyramid_levels_match_numpy(pyramid, pyramid_data):
    assert pyramid.level_count > 3
    assert len(pyramid.level(pyramid.level_count - 1)[0]) <= pyramid.factor
    for level in range(pyramid.level_count):
        mins, maxs = oracle(pyramid_data, 0, pyramid.level_bucket(level))
        np.testing.assert_array_equal(pyramid.level(level)[0], mins)
        np.testing.assert_array_equal(pyramid.level(level)[1], maxs)


@pytest.mark.parametrize(
    ("start", "stop", "bucket"),
    [
        (0, 100_003, 1024),  # everything, partial last bucket at the end of the data
        (0, 100_003, 16 * 4**6),  # bucket coarser than the top level
        (5, 99_990, 64),
        (1000, 1001, 16),  # one element
        (17, 40, 16),  # partial buckets only, inside one base bucket pair
        (4096, 8192, 4096),  # exactly one aligned bucket
        (333, 70_001, 48),  # multiple of the base bucket but not of a level
        (0, 0, 16),  # empty
        (99_000, 100_003, 256),
    ],
)
def test_pyramid_query_equals_direct_decimation(pyramid, pyramid_data, start, stop, bucket):
    got = pyramid.query(start, stop, bucket)
    want = peak_decimate(pyramid_data[start:stop], bucket, offset=start)
    np.testing.assert_array_equal(got.starts, want.starts)
    np.testing.assert_array_equal(got.stops, want.stops)
    np.testing.assert_array_equal(got.mins, want.mins)
    np.testing.assert_array_equal(got.maxs, want.maxs)


def test_pyramid_query_reads_only_the_unaligned_ends(pyramid_data):
    source = counting(pyramid_data)
    pyr = MinMaxPyramid.build(source, base_bucket=16, factor=4, chunk=4096)
    assert sum(source.reads) == len(pyramid_data)  # built in one pass
    source.reads.clear()
    pyr.query(5, 99_990, 1024)
    assert sum(source.reads) <= 2 * (16 - 1)


def test_pyramid_of_random_sizes_matches_oracle():
    rng = np.random.default_rng(11)
    for _ in range(20):
        n = int(rng.integers(1, 5000))
        data = noisy(n, seed=int(rng.integers(1 << 30)))
        pyr = MinMaxPyramid.build(data, base_bucket=8, factor=2, chunk=64)
        start = int(rng.integers(0, n))
        stop = int(rng.integers(start, n + 1))
        bucket = 8 * int(rng.integers(1, 40))
        got = pyr.query(start, stop, bucket)
        mins, maxs = oracle(data[start:stop], start, bucket)
        np.testing.assert_array_equal(got.mins, mins)
        np.testing.assert_array_equal(got.maxs, maxs)


def test_pyramid_choose_bucket(pyramid):
    # 16, 64, 256, ...: below the base bucket, read directly.
    assert pyramid.choose_bucket(1000, 100) is None
    assert pyramid.choose_bucket(1600, 100) == 16
    assert pyramid.choose_bucket(10_000, 100) == 128  # desired 100 -> 2 x 64
    bucket = pyramid.choose_bucket(100_003, 500)
    assert bucket % 64 == 0 and -(-100_003 // bucket) <= 500


def test_pyramid_build_cancels_and_reports_progress(pyramid_data):
    seen: list[float] = []
    assert MinMaxPyramid.build(pyramid_data, chunk=10_000, should_stop=lambda: len(seen) >= 2, progress=seen.append) is None
    assert seen == pytest.approx([10_112 / 100_003, 20_224 / 100_003])  # chunk rounded to 128s
    seen.clear()
    assert MinMaxPyramid.build(pyramid_data, chunk=50_000, progress=seen.append) is not None
    assert seen[-1] == 1.0 and seen == sorted(seen)


def test_pyramid_rejects_bad_queries(pyramid):
    with pytest.raises(ValueError, match="multiple of the base bucket"):
        pyramid.query(0, 10, 24)
    with pytest.raises(ValueError, match="outside"):
        pyramid.query(0, 200_000, 16)
    with pytest.raises(ValueError, match="1-d"):
        MinMaxPyramid.build(np.zeros((3, 3)))


def test_pyramid_memory_is_capped_by_growing_the_base_bucket(monkeypatch):
    from core.display import line_decimation

    monkeypatch.setattr(line_decimation, "PYRAMID_MEMORY_BYTES", 16 * 1000)  # 1000 buckets
    data = np.random.default_rng(7).standard_normal(1_000_000).astype(np.float32)
    pyramid = line_decimation.MinMaxPyramid.build(data, base_bucket=128, factor=8)
    assert pyramid.base_bucket == 1024  # 128 * 8: 977 buckets of level 0 fit, 7813 did not
    bucket = pyramid.choose_bucket(900_000, 100)
    got = pyramid.query(1000, 901_000, bucket)
    expected = line_decimation.peak_decimate(data[1000:901_000], bucket, offset=1000)
    np.testing.assert_array_equal(got.mins, expected.mins)
    np.testing.assert_array_equal(got.maxs, expected.maxs)


def test_a_base_bucket_longer_than_a_read_is_reduced_from_several_reads(monkeypatch):
    from core.display import line_decimation

    monkeypatch.setattr(line_decimation, "PYRAMID_MEMORY_BYTES", 16 * 100)  # 100 buckets
    data = np.random.default_rng(9).standard_normal(100_000)
    data[54_321] = 1e30
    data[77_777] = np.nan
    reads = []

    def read(block):
        reads.append(len(block))
        return np.array(block)  # a copy, as BlockReader.read returns

    pyramid = line_decimation.MinMaxPyramid.build(data, base_bucket=16, factor=4, chunk=300, read=read)
    assert pyramid.base_bucket == 1024  # 16 * 4**3: 98 buckets fit, 391 did not
    assert max(reads) == 300 and sum(reads) == 100_000  # no read beyond the chunk, all read once
    mins, maxs = pyramid.level(0)
    expected = line_decimation.peak_decimate(data, 1024)
    np.testing.assert_array_equal(mins, expected.mins)
    np.testing.assert_array_equal(maxs, expected.maxs)
    assert maxs[54_321 // 1024] == 1e30


def test_a_read_that_fails_ends_the_build_with_its_error():
    from core.errors import SourceError

    def read(block):
        raise SourceError("'x.bin' changed on disk while being read", field="files")

    with pytest.raises(SourceError, match="changed on disk"):
        MinMaxPyramid.build(np.zeros(1000), read=read)
