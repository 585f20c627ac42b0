"""core.compare.scanner: figures, lists, histogram, pairing, bounded blocks, progress, cancel."""

import json
import tracemalloc

import numpy as np
import pytest

from core.compare.blockstats import Scratch, Shared, _fast, _general
from core.compare.rules import resolve_rules
from core.compare.scanner import Side, compare_results, compare_sides, window_differences
from core.errors import Cancelled, CoreError
from core.pipeline.pipeline import DecodeParams, Pipeline


def figures(result) -> str:
    """Every figure as JSON text (NaN-safe equality of two results), the mean and RMS rounded:
    float64 sums merged in another order may differ in the last bit."""
    document = result.to_json()
    for name in ("mean_absolute", "rms"):
        if isinstance(document[name], float):
            document[name] = f"{document[name]:.12g}"
    return json.dumps(document, sort_keys=True)


def tricky(n=5000, seed=1):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n).astype(np.float32)
    b = a.copy()
    b[::97] += np.float32(1e-3)
    b[::389] = 0.0
    a[::389][::2] = 0.0
    a[7], b[7] = np.nan, np.nan
    a[11] = np.nan
    b[13] = np.inf
    a[17], b[17] = -np.inf, -np.inf
    a[19], b[19] = -0.0, 0.0
    a[23], b[23] = np.inf, -np.inf
    b[29] = a[29] + 2.0  # the worst finite error
    return a, b


def test_hand_checked_small_comparison():
    a = np.array([[1.0, 2.0, 3.0], [4.0, np.nan, 6.0]], np.float32)
    b = np.array([[1.0, 2.5, 3.0], [0.0, np.nan, 6.0 + 1e-6]], np.float32)
    r = compare_sides(Side(a), Side(b))
    assert (r.compared, r.mismatched, r.finite_pairs) == (6, 2, 5)
    assert r.summary() == "Mismatched elements: 2 / 6 (33.3%)"
    assert (r.max_absolute.value, r.max_absolute.index_a) == (4.0, (1, 0))
    assert (r.max_relative.value, r.max_relative.index_a) == (np.inf, (1, 0))  # 4 / 0
    assert (r.max_ulp.value, r.max_ulp.index_a) == (0x40800000, (1, 0))  # 4.0 against 0.0
    assert r.categories_a.nan == r.categories_b.nan == 1
    assert [m.index_a for m in r.first] == [(0, 1), (1, 0)]
    assert [m.index_a for m in r.worst] == [(1, 0), (0, 1)]
    assert (r.first[0].a, r.first[0].b, r.first[0].absolute, r.first[0].relative) == (2.0, 2.5, 0.5, float(np.float32(0.2)))  # float32 work type
    assert r.mean_absolute == pytest.approx((0.5 + 4.0 + 1e-6) / 5, rel=1e-6)
    assert r.rms == pytest.approx(np.sqrt((0.25 + 16.0) / 5), rel=1e-6)
    assert not r.equal


def test_histogram_by_powers_of_two():
    a = np.array([1.0, 1.75, 2.5, 4.0, 1e-40], np.float32)
    b = np.array([1.0, 1.0, 1.0, 1.0, 0.0], np.float32)
    h = compare_sides(Side(a), Side(b)).histogram
    assert (h.exact, h.below_normal) == (1, 1)  # 0, and 1e-40 below float32's smallest normal
    assert h.exponents == (0, 1, 2) and h.counts == (1, 1, 1)  # 0.75, 1.5, 3.0
    assert h.bins()[2:] == [(0.5, 1.0, 1), (1.0, 2.0, 1), (2.0, 4.0, 1)]


@pytest.mark.parametrize("chunk", [1, 3, 64, 1000, 1 << 20])
@pytest.mark.parametrize("workers", [1, 2])
def test_blocks_of_any_size_give_the_whole_array_result(chunk, workers):
    a, b = tricky(2000)
    whole = compare_sides(Side(a), Side(b), chunk_elements=1 << 22, workers=1, list_limit=7)
    chunked = compare_sides(Side(a), Side(b), chunk_elements=chunk, workers=workers, list_limit=7)
    assert figures(chunked) == figures(whole)
    assert whole.mismatched == int(np.count_nonzero(~np.isclose(a, b, rtol=1.3e-6, atol=1e-5, equal_nan=True)))
    assert whole.worst[0].flat in (11, 13, 23)  # non-finite mismatches rank first
    assert [m.flat for m in whole.first] == sorted(m.flat for m in whole.first)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fast_path_and_general_path_agree(dtype):
    rng = np.random.default_rng(4)
    a = (rng.standard_normal(4096) * 10.0 ** rng.integers(-30, 30, 4096)).astype(dtype)
    b = a + (rng.standard_normal(4096) * np.abs(a) * 1e-5).astype(dtype)
    b[::5] = -b[::5]
    b[::9] = 0.0
    a[::11] = -0.0
    rules = resolve_rules(a.dtype, b.dtype)
    fast = _fast(100, a, b, rules, Shared(20), Scratch(), agreement=True)
    general = _general(100, a, b, rules, Shared(20), agreement=True)
    assert fast is not None
    for name in ("n", "zeros", "peak_b"):
        assert getattr(fast.agreement, name) == getattr(general.agreement, name), name
    assert np.array_equal(fast.agreement.fine, general.agreement.fine)
    for name in ("mismatched", "finite", "max_abs", "max_rel", "max_ulp", "exact", "below", "first", "worst"):
        assert getattr(fast, name) == getattr(general, name), name
    assert fast.sum_abs == pytest.approx(general.sum_abs, rel=1e-12)
    assert np.array_equal(fast.exponents, general.exponents)
    assert np.array_equal(fast.categories, general.categories)


def test_mixed_types_and_integers():
    a = np.arange(10, dtype=np.float16)
    b = np.arange(10, dtype=np.float32) + np.float32(0.004)
    r = compare_sides(Side(a), Side(b))
    # float16 defaults (the looser side): 0.004 > 1e-5 + 1e-3 * (k + 0.004) only for k = 0..3
    assert r.rules.common == np.float32 and r.mismatched == 4
    assert r.mismatched == 10 - int(np.isclose(a.astype(np.float32), b, rtol=1e-3, atol=1e-5).sum())
    i = np.array([np.iinfo(np.int64).min, 0, 7], np.int64)
    u = np.array([0, 0, 7], np.uint64)
    r = compare_sides(Side(i), Side(u))
    assert (r.mismatched, r.max_ulp.value, r.max_ulp.index_a) == (1, 2**63, (0,))


def test_broadcast_pairs_as_numpy_and_reports_both_indices():
    a = np.array([[1.0], [2.0], [3.0]], np.float64)  # (3, 1)
    b = np.array([1.0, 2.0, 3.0, 4.0], np.float64)  # (4,)
    r = compare_sides(Side(a), Side(b))
    assert r.shape == (3, 4) and r.compared == 12
    assert r.mismatched == int(np.count_nonzero(~np.isclose(*np.broadcast_arrays(a, b), rtol=1e-7, atol=1e-7)))
    assert r.notes == ("broadcast: A (3, 1) and B (4,) compared as (3, 4) (numpy's rule)",)
    m = r.first[0]
    assert (m.flat, m.index_a, m.index_b, m.a, m.b) == (1, (0, 0), (1,), 1.0, 2.0)


def test_shapes_that_do_not_broadcast_are_refused():
    with pytest.raises(CoreError, match=r"A has shape \(3, 4\) and B has shape \(5,\): they neither match nor broadcast") as caught:
        compare_sides(Side(np.zeros((3, 4))), Side(np.zeros(5)))
    assert caught.value.field == "shape"


def test_empty_nan_only_and_zero_dimensional():
    empty = compare_sides(Side(np.zeros(0, np.float32)), Side(np.zeros(0, np.float32)))
    assert (empty.compared, empty.mismatched, empty.equal, empty.max_absolute) == (0, 0, True, None)
    assert empty.summary() == "Mismatched elements: 0 / 0 (0%)"
    nans = np.full(10, np.nan, np.float32)
    r = compare_sides(Side(nans), Side(nans.copy()))
    assert (r.equal, r.finite_pairs, r.max_absolute, r.mean_absolute, r.categories_a.nan) == (True, 0, None, None, 10)
    assert "no pair of finite values: no error figures" in r.lines()
    assert compare_sides(Side(nans), Side(nans.copy()), nan_policy="mismatch").mismatched == 10
    r = compare_sides(Side(np.array(2.0)), Side(np.array(1.0)))
    assert (r.shape, r.compared, r.mismatched, r.first[0].index_a) == ((), 1, 1, ())


def test_lists_are_bounded_and_ties_go_to_the_lower_index():
    a = np.zeros(1000, np.float32)
    b = np.ones(1000, np.float32)
    b[500] = 3.0
    r = compare_sides(Side(a), Side(b), list_limit=4, chunk_elements=16)
    assert [m.flat for m in r.first] == [0, 1, 2, 3]
    assert [m.flat for m in r.worst] == [500, 0, 1, 2]
    assert compare_sides(Side(a), Side(b), list_limit=0).first == ()


def test_progress_and_cancellation():
    a = np.zeros(1000)
    seen = []
    compare_sides(Side(a), Side(a), chunk_elements=100, progress=lambda done, total: seen.append((done, total)))
    assert len(seen) == 10 and seen[-1] == (1000, 1000)
    calls = []
    with pytest.raises(Cancelled, match="comparison cancelled"):
        compare_sides(Side(a), Side(a), chunk_elements=100, cancelled=lambda: len(calls) > 2 or calls.append(1))


def test_files_through_the_pipeline_in_bounded_memory(tmp_path):
    n = 4 << 20  # 16 MiB per side
    a = np.arange(n, dtype=np.float32)
    b = a.copy()
    b[123456] += 1.0
    a.tofile(tmp_path / "a.bin")
    b.astype(">f4").tofile(tmp_path / "b.bin")
    with Pipeline([tmp_path / "a.bin"]) as pa, Pipeline([tmp_path / "b.bin"]) as pb:
        ra = pa.run(DecodeParams(dtype="float32", shape=(1024, -1)))
        rb = pb.run(DecodeParams(dtype="float32", little_endian=False, shape=(1024, -1)))
        tracemalloc.start()
        r = compare_results(ra, rb, chunk_elements=1 << 14)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < 8 << 20  # per worker two 1 MiB read buffers and a few 64 KiB temporaries, not 32 MiB
    assert r.mismatched == 1 and r.first[0].index_a == divmod(123456, 4096)
    assert r.first[0].index_b == r.first[0].index_a


def test_window_differences_reads_only_the_window(tmp_path):
    a = np.linspace(0, 1, 100, dtype=np.float32).reshape(10, 10)
    b = a.copy()
    b[3, 4] += 0.5
    a.tofile(tmp_path / "a.bin")
    b.tofile(tmp_path / "b.bin")
    with Pipeline([tmp_path / "a.bin"]) as pa, Pipeline([tmp_path / "b.bin"]) as pb:
        ra = pa.run(DecodeParams(dtype="float32", shape=(10, 10)))
        rb = pb.run(DecodeParams(dtype="float32", shape=(10, 10)))
        rules = resolve_rules(ra.view.dtype, rb.view.dtype)
        w = window_differences(Side.of(ra), Side.of(rb), rules, (slice(2, 5), slice(3, 6)))
    assert w.a.shape == w.b.shape == w.differences.absolute.shape == (3, 3)
    assert w.differences.mismatch.tolist() == [[False] * 3, [False, True, False], [False] * 3]
    assert w.differences.absolute[1, 1] == pytest.approx(0.5)
    assert w.differences.relative[1, 1] == pytest.approx(0.5 / b[3, 4])


def test_one_worker_runs_in_the_calling_thread_with_progress_and_cancellation():
    import threading

    a = np.arange(1000, dtype=np.float64)
    b = a + (np.arange(1000) % 7 == 0)
    threads, seen = set(), []

    def progress(done, total):
        threads.add(threading.get_ident())
        seen.append((done, total))

    one = compare_sides(Side(a), Side(b), chunk_elements=100, workers=1, list_limit=5, progress=progress)
    two = compare_sides(Side(a), Side(b), chunk_elements=100, workers=2, list_limit=5)
    assert threads == {threading.get_ident()} and seen == [(100 * k, 1000) for k in range(1, 11)]
    assert one == two and one.mismatched == 143  # multiples of 7 below 1000
    calls = []
    with pytest.raises(Cancelled, match="comparison cancelled"):
        compare_sides(Side(a), Side(a), chunk_elements=100, workers=1, progress=progress,
                      cancelled=lambda: len(calls) > 2 or calls.append(1))
    assert seen[-1] == (300, 1000)  # three blocks were done, the fourth was not started
