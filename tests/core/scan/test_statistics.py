"""core.scan.statistics: numpy as the oracle on catalogues of dtypes, layouts and chunk sizes."""

from __future__ import annotations

import dataclasses
import itertools
import math
import tracemalloc

import ml_dtypes
import numpy as np
import pytest

from core.errors import Cancelled, CoreError, SourceError
from core.scan.blocks import iter_blocks, memory_order
from core.scan.statistics import compute_statistics

BF16 = np.dtype(ml_dtypes.bfloat16)


def _oracle(values: np.ndarray, bins: int = 64) -> dict:
    """Expected statistics from whole-array numpy calls (the rules of the module docstring)."""
    x = np.asarray(values)
    if x.dtype.kind == "c":
        x = np.abs(x.astype(np.complex128))
    if x.dtype.kind == "b":
        x = x.view(np.uint8) != 0
    f = x.astype(np.float64).ravel()
    finite = f[np.isfinite(f)]
    out = dict(count=x.size, finite_count=finite.size, nan_count=int(np.isnan(f).sum()),
               posinf_count=int((f == np.inf).sum()), neginf_count=int((f == -np.inf).sum()),
               zero_count=int((f == 0).sum()))
    if np.count_nonzero(~np.isnan(f)):
        if x.dtype.kind in "iub":
            out["min"], out["max"] = int(x.min()), int(x.max())
        else:
            out["min"], out["max"] = float(np.nanmin(f)), float(np.nanmax(f))
    if finite.size:
        out["mean"], out["std"] = float(finite.mean()), float(finite.std())
        counts, edges = np.histogram(finite, bins=bins)
        out["histogram_counts"] = tuple(int(c) for c in counts)
        out["histogram_edges"] = tuple(float(e) for e in edges)
    return out


def _check(stats, values, bins=64):
    expected = _oracle(values, bins)
    for name in ("count", "finite_count", "nan_count", "posinf_count", "neginf_count",
                 "zero_count", "histogram_counts"):
        if name in expected:
            assert getattr(stats, name) == expected[name], name
    for name in ("min", "max"):
        if name in expected:
            assert getattr(stats, name) == expected[name], name
            assert type(getattr(stats, name)) is type(expected[name])
    if "mean" in expected:
        assert stats.mean == pytest.approx(expected["mean"], rel=1e-12, abs=1e-300)
        assert stats.std == pytest.approx(expected["std"], rel=1e-9, abs=1e-300)
        assert stats.histogram_edges == pytest.approx(expected["histogram_edges"], rel=1e-15)
    else:
        assert stats.mean is None and stats.std is None
        assert stats.histogram_counts == () and stats.histogram_edges == ()


def _base_values(dtype: np.dtype) -> np.ndarray:
    rng = np.random.default_rng(7)
    if dtype.kind == "b":
        return rng.integers(0, 2, 60).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, 60, dtype=dtype.newbyteorder("="), endpoint=True)
    if dtype.kind == "c":
        v = rng.normal(size=60) + 1j * rng.normal(size=60)
        v[[3, 9]] = [complex(np.nan, 1), complex(np.inf, np.nan)]
        return v.astype(dtype)
    v = rng.normal(scale=100, size=60)
    v[[1, 5, 8, 13]] = [np.nan, np.inf, -np.inf, -0.0]
    v[20] = 0.0
    return v.astype(dtype)


DTYPES = [np.dtype(t) for t in ("<f4", ">f4", "<f8", ">f8", "<f2", "<i1", "<i2", ">i4", ">i8",
                                "<u1", ">u2", "<u4", "<u8", "?", "<c8", ">c16")] + [BF16]
LAYOUTS = {
    "contiguous": lambda a: a.reshape(3, 4, 5),
    "strided": lambda a: a.reshape(6, 10)[::2, 1::3],
    "transposed": lambda a: a.reshape(3, 4, 5).transpose(2, 0, 1),
    "reversed": lambda a: a.reshape(6, 10)[::-1, ::-2],
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("chunk", [1, 7, 1 << 22])
def test_matches_numpy(dtype, layout, chunk):
    view = LAYOUTS[layout](_base_values(dtype).astype(dtype))
    _check(compute_statistics(view, chunk_elements=chunk), view)


def test_float32_golden_values():
    x = np.array([1, 2, np.nan, np.inf, -0.0, 1e-40, 3], dtype=">f4")
    s = compute_statistics(x, bins=4)
    assert (s.count, s.finite_count, s.nan_count, s.posinf_count, s.neginf_count) == (7, 5, 1, 1, 0)
    assert (s.zero_count, s.subnormal_count) == (1, 1)
    assert s.min == -0.0 and s.max == math.inf  # nanmin / nanmax: Inf counts, NaN does not
    assert s.mean == pytest.approx((1 + 2 + 3 + float(np.float32(1e-40))) / 5)
    assert s.histogram_edges == (-0.0, 0.75, 1.5, 2.25, 3.0)
    assert s.histogram_counts == (2, 1, 1, 1)
    assert s.quantity == "value" and s.dtype == "float32"


@pytest.mark.parametrize("dtype, tiny", [
    (np.float16, 6e-5), (BF16, 1e-39), (np.float32, 1e-39), (np.float64, 1e-310),
])
def test_subnormal_threshold_is_that_of_the_type(dtype, tiny):
    normal = 1e-3
    x = np.array([tiny, -tiny, normal, 0.0], dtype=dtype)
    assert compute_statistics(x).subnormal_count == 2


def test_complex_uses_the_magnitude():
    s = compute_statistics(np.array([3 + 4j, -6 - 8j, complex(np.nan, np.inf)], np.complex64))
    assert s.quantity == "magnitude"
    assert (s.min, s.max, s.mean) == (5.0, math.inf, 7.5)
    assert (s.posinf_count, s.nan_count, s.finite_count) == (1, 0, 2)


def test_integer_extremes_are_exact_python_ints():
    x = np.array([2**63 + 5, 2**64 - 1, 2**64 - 2], dtype=">u8")
    s = compute_statistics(x, chunk_elements=1)
    assert (s.min, s.max) == (2**63 + 5, 2**64 - 1)
    assert type(s.min) is int
    y = np.array([-(2**63), 2**63 - 1], dtype=np.int64)
    assert (compute_statistics(y).min, compute_statistics(y).max) == (-(2**63), 2**63 - 1)


def test_bool_follows_tf_byte_rule():
    raw = np.frombuffer(bytes([0, 2, 1, 255, 0]), dtype=np.uint8).view(np.bool_)
    s = compute_statistics(raw)
    assert (s.min, s.max, s.zero_count, s.mean) == (0, 1, 2, 0.6)


def test_constant_view_histogram_range():
    s = compute_statistics(np.full(5, 7, np.int16), bins=2)
    assert s.histogram_edges == (6.5, 7.0, 7.5)
    assert s.histogram_counts == (0, 5)  # numpy: the value sits on the middle edge, right bin
    assert s.std == 0.0


def test_huge_values_do_not_overflow():
    x = np.array([1.5e308, -1.5e308, 1.5e308, -1.5e308])
    s = compute_statistics(x, bins=2, chunk_elements=3)
    assert (s.mean, s.std) == (0.0, 1.5e308)
    assert s.histogram_counts == (2, 2)
    assert s.histogram_edges == (-1.5e308, 0.0, 1.5e308)


def test_variance_of_offset_data_is_stable():
    x = 1e9 + np.array([4.0, 7.0, 13.0, 16.0] * 1000)
    s = compute_statistics(x, chunk_elements=3)
    assert s.mean == pytest.approx(1e9 + 10.0, rel=1e-15)
    assert s.std == pytest.approx(math.sqrt(22.5), rel=1e-9)


@pytest.mark.parametrize("values", [np.zeros((0, 3), np.float32), np.zeros((4, 0), np.int8)])
def test_empty(values):
    s = compute_statistics(values)
    assert s.count == 0 and (s.min, s.max, s.mean, s.std) == (None, None, None, None)
    assert s.histogram_counts == ()


def test_all_nan_and_all_infinite():
    s = compute_statistics(np.full(3, np.nan, np.float32))
    assert (s.nan_count, s.min, s.max, s.mean) == (3, None, None, None)
    s = compute_statistics(np.array([np.inf, -np.inf]))
    assert (s.min, s.max, s.finite_count, s.mean, s.histogram_counts) == (
        -math.inf, math.inf, 0, None, ())


def test_zero_d_view():
    s = compute_statistics(np.array(2.5, dtype=">f8"))
    assert (s.count, s.min, s.max, s.mean, s.std) == (1, 2.5, 2.5, 2.5, 0.0)


@pytest.mark.parametrize("values", [np.array([b"ab"]), np.zeros(2, dtype="i4,f4"),
                                    np.array([object()])])
def test_non_numeric_is_refused(values):
    with pytest.raises(CoreError, match="Statistics need numbers"):
        compute_statistics(values)


def test_progress_covers_both_passes():
    calls = []
    compute_statistics(np.arange(10.0), chunk_elements=4,
                       progress=lambda d, t: calls.append((d, t)))
    assert calls == [(4, 20), (8, 20), (10, 20), (14, 20), (18, 20), (20, 20)]


def test_progress_ends_at_total_without_finite_values():
    calls = []
    compute_statistics(np.full(3, np.nan), progress=lambda d, t: calls.append((d, t)))
    assert calls == [(3, 6), (6, 6)]


def test_cancel_between_chunks():
    calls = []
    asked = itertools.count(1)

    def cancelled():  # cancel from the third question on
        return next(asked) > 2

    with pytest.raises(Cancelled):
        compute_statistics(np.arange(10.0), chunk_elements=4, cancelled=cancelled,
                           progress=lambda d, t: calls.append(d))
    assert calls == [4, 8]
    assert not issubclass(Cancelled, CoreError)


def test_check_runs_before_every_chunk_and_propagates():
    seen = []

    def check():
        seen.append(1)
        if len(seen) == 2:
            raise SourceError("file changed (reopen it)")

    with pytest.raises(SourceError):
        compute_statistics(np.arange(10.0), chunk_elements=4, check=check)
    assert len(seen) == 2


# ----------------------------------------------------------------------------- blocks
SHAPES = [(), (0,), (5,), (3, 0, 2), (4, 5), (2, 3, 4), (3, 1, 7)]


@pytest.mark.parametrize("shape, chunk", list(itertools.product(SHAPES, [1, 2, 5, 6, 100])))
def test_iter_blocks_covers_in_c_order_without_copies(shape, chunk):
    base = np.arange(2 * math.prod(shape)).astype(np.int32)
    x = base[::2].reshape(shape)
    blocks = list(iter_blocks(x, chunk))
    assert all(b.size <= chunk and np.shares_memory(b, base) for b in blocks)
    joined = np.concatenate([b.ravel() for b in blocks]) if blocks else np.zeros(0, np.int32)
    np.testing.assert_array_equal(joined, x.ravel())


def test_memory_order_follows_strides():
    x = np.arange(24).reshape(2, 3, 4).transpose(2, 0, 1)[::-1]
    y = memory_order(x)
    assert np.shares_memory(x, y)
    assert list(y.ravel()) == list(range(24))


def test_bounded_memory_on_a_strided_memory_map(tmp_path):
    path = tmp_path / "big.bin"
    size = 64 << 20
    with open(path, "wb") as f:  # sparse: costs no disk
        f.truncate(size)
    mm = np.memmap(path, dtype=">f4", mode="r")
    view = mm.reshape(-1, 1024)[:, ::2].T  # strided, transposed, non-native: 32 MiB of values
    chunk = 1 << 16
    tracemalloc.start()
    try:
        s = compute_statistics(view, chunk_elements=chunk)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert s.count == size // 8 and s.zero_count == s.count and s.max == 0.0
    assert peak < 8 * chunk * 8  # a few float64 blocks, never the 64 MiB view
    del mm


def test_big_endian_bfloat16_view():
    values = np.array([1.5, -2.0, 1e-39, np.nan], BF16)
    swapped = np.frombuffer(values.byteswap().tobytes(), dtype=BF16.newbyteorder(">"))
    s = compute_statistics(swapped)
    assert s.dtype == "bfloat16"
    assert (s.min, s.max, s.nan_count, s.subnormal_count) == (-2.0, 1.5, 1, 1)


def test_shrunk_file_raises_source_error_instead_of_sigbus(tmp_path):
    from core.files.sources import open_source

    path = tmp_path / "data.bin"
    path.write_bytes(np.arange(1024, dtype="<f4").tobytes())
    source = open_source(str(path))
    try:
        view = source.layout().arrays[0].view("<f4")
        assert compute_statistics(view, check=source.check_unchanged).max == 1023.0
        with open(path, "r+b") as f:
            f.truncate(100)
        with pytest.raises(SourceError):
            compute_statistics(view, check=source.check_unchanged)
    finally:
        del view
        source.close()


# ----------------------------------------------------------------------------- complex quantities
def test_complex_statistics_of_each_quantity():
    from core.scan.statistics import COMPLEX_QUANTITIES

    z = np.array([3 + 4j, -1 + 0j, 0j, 1j], dtype=np.complex64)
    by_quantity = {q: compute_statistics(z, bins=4, quantity=q) for q in COMPLEX_QUANTITIES}
    assert by_quantity["magnitude"].quantity == "magnitude"
    assert (by_quantity["magnitude"].min, by_quantity["magnitude"].max) == (0.0, 5.0)
    assert (by_quantity["real"].min, by_quantity["real"].max, by_quantity["real"].mean) == (-1.0, 3.0, 0.5)
    assert (by_quantity["imaginary"].min, by_quantity["imaginary"].max) == (0.0, 4.0)
    assert by_quantity["phase"].max == pytest.approx(np.pi) and by_quantity["phase"].min == 0.0
    db = by_quantity["dB"]
    # 20*log10(5) = 13.979..., |-1| and |1j| give 0 dB, 0 gives -inf
    assert db.max == pytest.approx(20 * np.log10(5.0)) and db.min == -np.inf
    assert (db.neginf_count, db.finite_count) == (1, 3)


def test_real_data_ignores_the_quantity_and_a_bad_quantity_is_refused():
    assert compute_statistics(np.array([1.0, -2.0]), quantity="phase").quantity == "value"
    with pytest.raises(CoreError, match="quantity must be one of magnitude, real"):
        compute_statistics(np.array([1j]), quantity="angle")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_without_the_histogram_every_other_figure_is_the_same_from_one_read(dtype):
    view = LAYOUTS["strided"](_base_values(dtype).astype(dtype))
    full = compute_statistics(view, chunk_elements=7)
    reads = []
    bare = compute_statistics(view, chunk_elements=7, histogram=False,
                              progress=lambda done, total: reads.append((done, total)))
    assert bare.histogram_edges == () and bare.histogram_counts == () and bare.complete
    assert dataclasses.replace(bare, histogram_edges=full.histogram_edges,
                               histogram_counts=full.histogram_counts) == full
    assert reads[-1] == (2 * view.size, 2 * view.size)  # progress still ends at its total
