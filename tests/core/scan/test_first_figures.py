"""core.scan.statistics: the extremes of a big view first (core.scan.extremes), exact and equal
to the final figures; what they prove about the counts; progress, cancel and check in that stage."""

from __future__ import annotations

import itertools
import math

import ml_dtypes
import numpy as np
import pytest

from core.errors import Cancelled, SourceError
from core.scan.statistics import compute_statistics

MOMENTS_AND_HISTOGRAM = ("mean", "std", "histogram")


def run(values, **kwargs):
    """(partials, result) of compute_statistics with the extremes first at any size."""
    partials = []
    kwargs.setdefault("extremes_first_above", 0)
    result = compute_statistics(values, partial=partials.append, **kwargs)
    return partials, result


def same(a, b) -> bool:
    """Equal, of the same type, and the same zero (0.0 is not -0.0 here)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and a == 0:
        return math.copysign(1, a) == math.copysign(1, b)
    return a == b


def test_floats_with_nan_inf_and_signed_zeros():
    x = np.array([3.0, np.nan, -0.0, 0.0, np.inf, 2.5, -7.25])
    partials, result = run(x, chunk_elements=3)
    first, moments = partials
    assert (first.count, first.min, first.max) == (7, -7.25, math.inf)
    assert first.complete is False and first.histogram_counts == () and first.mean is None
    # no -Inf (the minimum is finite) is all the extremes prove here
    assert first.neginf_count == 0
    assert first.pending == ("finite_count", "nan_count", "posinf_count", "zero_count", "subnormal_count",
                             *MOMENTS_AND_HISTOGRAM)
    assert first.nan_count is None and first.posinf_count is None and first.zero_count is None
    assert moments.pending == ("histogram",) and moments.mean == pytest.approx(-1.75 / 5)
    assert (moments.nan_count, moments.posinf_count, moments.zero_count) == (1, 1, 2)
    assert result.complete and result.pending == ()
    assert (result.min, result.max) == (-7.25, math.inf)


def test_what_the_extremes_prove_about_the_counts():
    partials, result = run(np.array([1.5, 2.0, 4.0], dtype=np.float32))
    first = partials[0]
    assert (first.count, first.min, first.max) == (3, 1.5, 4.0)
    assert (first.finite_count, first.nan_count, first.posinf_count, first.neginf_count, first.zero_count,
            first.subnormal_count) == (3, 0, 0, 0, 0, 0)
    assert first.pending == MOMENTS_AND_HISTOGRAM
    assert (result.finite_count, result.zero_count, result.mean) == (3, 0, 2.5)
    # a negative range below -smallest normal: no zero, no subnormal either
    first = run(np.array([-3.0, -1e-30, np.nan], dtype=np.float32))[0][0]
    assert (first.min, first.max) == (-3.0, np.float32(-1e-30).item())
    assert first.zero_count == 0 and first.subnormal_count == 0 and first.nan_count is None
    # a range that reaches a subnormal: both counts wait for pass 1
    first = run(np.array([1e-40, 1.0], dtype=np.float32))[0][0]
    assert first.pending == ("zero_count", "subnormal_count", *MOMENTS_AND_HISTOGRAM)


@pytest.mark.parametrize("values", [[0.0, -0.0], [-0.0, 0.0], [np.nan, -0.0, 0.0], [0.0, np.nan, -0.0],
                                    [-0.0, -0.0, np.nan, 0.0, 1.0], [np.nan, 0.0, -1.0, -0.0, np.nan]])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("chunk", [1, 2, 100])
def test_a_zero_extreme_is_the_zero_pass_1_finds(values, dtype, chunk):
    x = np.array(values, dtype=dtype)
    partials, result = run(x, chunk_elements=chunk)
    reference = compute_statistics(x, chunk_elements=chunk, extremes_first_above=x.size)  # no first stage
    assert same(partials[0].min, result.min) and same(partials[0].max, result.max)
    assert same(result.min, reference.min) and same(result.max, reference.max)


@pytest.mark.parametrize("dtype, pattern, unsigned", [(np.float32, 0x7F800001, np.uint32),
                                                      (np.float64, 0x7FF0000000000001, np.uint64)])
def test_signalling_nans_do_not_hide_the_extremes(dtype, pattern, unsigned):
    x = np.arange(1, 1001, dtype=dtype)
    x[500] = np.nan
    x.view(unsigned)[[990, 2]] = pattern  # signalling NaNs where 991 and 3 were
    first = run(x)[0][0]
    assert (first.min, first.max) == (1.0, 1000.0)
    assert first.nan_count is None and first.posinf_count == 0 and first.zero_count == 0


def test_empty_and_all_nan_views():
    partials, result = run(np.zeros(0, np.float32))
    assert partials == [] and result.count == 0 and result.min is None and result.complete
    calls = []
    partials, result = run(np.full(5, np.nan), chunk_elements=2, progress=lambda d, t: calls.append((d, t)))
    # the first stage proves everything: no partial, no second read
    assert partials == []
    assert (result.count, result.nan_count, result.finite_count, result.zero_count, result.min, result.mean) == \
        (5, 5, 0, 0, None, None)
    assert result.complete and result.histogram_counts == ()
    assert calls[-1] == (10, 10) and calls == sorted(calls)


def test_integers_bool_and_narrow_floats():
    first = run(np.array([-32768, 5, 32767, 0], dtype=np.int16))[0][0]  # the one-pass (table) kind
    assert (first.min, first.max, type(first.min)) == (-32768, 32767, int)
    assert (first.finite_count, first.nan_count, first.subnormal_count) == (4, 0, 0)
    assert first.pending == ("zero_count", *MOMENTS_AND_HISTOGRAM)
    partials, result = run(np.array([2**63 - 1, -(2**63), 7], dtype=np.int64), chunk_elements=2)
    assert (partials[0].min, partials[0].max) == (-(2**63), 2**63 - 1) == (result.min, result.max)
    first = run(np.array([3, 9], dtype=np.uint32))[0][0]
    assert (first.min, first.max, first.zero_count) == (3, 9, 0)
    first = run(np.zeros(4, np.int32))[0][0]
    assert (first.min, first.max, first.zero_count) == (0, 0, 4)
    flags = np.array([0, 2, 1], dtype=np.uint8).view(np.bool_)  # a byte 2 is True
    first = run(flags)[0][0]
    assert (first.min, first.max) == (0, 1)
    first = run(np.array([1, 1], dtype=np.uint8).view(np.bool_))[0][0]
    assert (first.min, first.max, first.zero_count) == (1, 1, 0)
    half = np.array([65504, -2.5, np.nan], dtype=np.float16)
    first = run(half)[0][0]
    assert (first.min, first.max) == (-2.5, 65504.0)
    brain = np.array([1.5, -3e38, np.nan], dtype=ml_dtypes.bfloat16)
    first = run(brain)[0][0]
    assert first.min == float(np.float32(brain[1])) and first.max == 1.5


def test_complex_and_sparse_views_get_the_moments_first():
    z = np.array([3 + 4j, 1j], dtype=np.complex64)
    partials, _ = run(z)
    assert [p.pending for p in partials] == [("histogram",)]
    x = np.arange(40.0)[::4]  # the bytes span 4x the values: a second read would cost as much
    partials, _ = run(x)
    assert [p.pending for p in partials] == [("histogram",)]
    partials, _ = run(np.arange(40.0)[::2])  # twice: still cheap
    assert len(partials) == 2


def test_only_views_above_the_size_get_the_extremes_first():
    assert len(run(np.arange(10.0), extremes_first_above=10)[0]) == 1
    assert len(run(np.arange(10.0), extremes_first_above=9)[0]) == 2


CATALOGUE = [
    np.random.default_rng(1).standard_normal(3000).astype(np.float32),
    np.where(np.arange(3000) % 7 == 0, np.nan, np.random.default_rng(2).standard_normal(3000)),
    np.concatenate([np.full(100, -np.inf), np.random.default_rng(3).uniform(-1, 1, 2000), [np.inf, np.nan]]),
    np.random.default_rng(4).integers(-1000, 1000, 3000).astype(np.int32),
    np.random.default_rng(5).integers(0, 2**16, 3000).astype(np.uint16),
    (np.random.default_rng(6).standard_normal(3000) * 1e-39).astype(np.float32),  # subnormals
    np.random.default_rng(7).standard_normal((30, 100)).astype(">f4").T,  # big-endian, transposed
    np.random.default_rng(8).integers(-(2**63), 2**63 - 1, 3000, dtype=np.int64),
    np.where(np.arange(3000) % 5 == 0, np.nan, np.random.default_rng(9).standard_normal(3000)).astype(np.float16),
]


@pytest.mark.parametrize("index", range(len(CATALOGUE)))
@pytest.mark.parametrize("chunk", [7, 1000, 1 << 22])
def test_later_figures_are_those_of_the_scan_without_the_first_stage(index, chunk):
    x = CATALOGUE[index]
    partials, result = run(x, chunk_elements=chunk)
    reference = compute_statistics(x, chunk_elements=chunk, extremes_first_above=x.size)
    assert result == reference
    first = partials[0]
    assert same(first.min, result.min) and same(first.max, result.max) and first.count == result.count
    for name in ("finite_count", "nan_count", "posinf_count", "neginf_count", "zero_count", "subnormal_count"):
        assert getattr(first, name) in (None, getattr(result, name)), name
        assert (getattr(first, name) is None) == (name in first.pending), name
    if len(partials) > 1:
        later = partials[1]
        assert later.pending == ("histogram",)
        assert (later.mean, later.std, later.min, later.nan_count) == \
            (result.mean, result.std, result.min, result.nan_count)


def test_progress_gives_the_first_stage_an_eighth():
    calls = []
    compute_statistics(np.arange(16.0), chunk_elements=4, extremes_first_above=0,
                       progress=lambda d, t: calls.append((d, t)))
    # first stage: 4 blocks onto [0, 4]; the two passes onto [4, 32] (4 + done * 28 // 32)
    assert [d for d, _t in calls] == [1, 2, 3, 4, 7, 11, 14, 18, 21, 25, 28, 32]
    assert {t for _d, t in calls} == {32}


def test_cancel_and_check_work_in_the_first_stage():
    calls = []
    asked = itertools.count(1)

    def cancelled():  # cancel from the third question on
        return next(asked) > 2

    with pytest.raises(Cancelled):
        run(np.arange(16.0), chunk_elements=4, cancelled=cancelled, progress=lambda d, t: calls.append(d))
    assert calls == [1, 2]  # the two blocks read, in the first stage's eighth
    seen = []

    def check():
        seen.append(1)
        if len(seen) == 2:
            raise SourceError("file changed (reopen it)")

    partials = []
    with pytest.raises(SourceError):
        compute_statistics(np.arange(16.0), chunk_elements=4, check=check, partial=partials.append,
                           extremes_first_above=0)
    assert partials == [] and len(seen) == 2


def test_a_caller_can_stop_after_the_first_figures():
    partials = []
    with pytest.raises(Cancelled):
        compute_statistics(np.arange(100.0), chunk_elements=10, extremes_first_above=0,
                           partial=partials.append, cancelled=lambda: bool(partials))
    assert len(partials) == 1 and (partials[0].min, partials[0].max) == (0.0, 99.0)


def test_a_dense_block_bigger_than_the_default_span_is_read_in_one_piece(tmp_path, monkeypatch):
    from core.pipeline.pipeline import DecodeParams, Pipeline
    from core.scan.blocks import DEFAULT_MAX_SPAN, BlockReader

    x = np.random.default_rng(9).standard_normal(3 << 20).astype(np.float32)  # 12 MiB: one block
    assert x.nbytes > DEFAULT_MAX_SPAN
    path = tmp_path / "x.bin"
    x.tofile(path)
    expected = compute_statistics(x, extremes_first_above=0)
    pipeline = Pipeline([str(path)])
    try:
        result = pipeline.run(DecodeParams(dtype="float32"))

        def copy_refused(self, view):
            raise AssertionError("a block was read in pieces and copied whole")

        monkeypatch.setattr(BlockReader, "read", copy_refused)
        partials = []
        got = compute_statistics(result.view, reader=result.block_reader(), extremes_first_above=0,
                                 partial=partials.append)
        del result
    finally:
        pipeline.close()
    assert got == expected and (partials[0].min, partials[0].max) == (expected.min, expected.max)


def test_pass_1_finds_the_extremes_again_beyond_those_kept(monkeypatch):
    import core.scan.statistics as statistics

    x = CATALOGUE[1]  # float64 with NaN
    reference = compute_statistics(x, chunk_elements=100, extremes_first_above=x.size)
    monkeypatch.setattr(statistics, "KEEP_EXTREMES_UP_TO", 5)  # 30 blocks of one sub-block each
    partials, result = run(x, chunk_elements=100)
    assert result == reference and (partials[0].min, partials[0].max) == (reference.min, reference.max)
