"""find_next / parse_query: the table's find bar, searching views of any size in bounded memory."""

from __future__ import annotations

import tracemalloc

import ml_dtypes
import numpy as np
import pytest

from core.errors import Cancelled, CoreError, SourceError
from core.pipeline.pipeline import DecodeParams, Pipeline
from core.scan.search import SearchQuery, find_next, parse_query


def cube() -> np.ndarray:
    values = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    values[1, 0, 2] = np.nan
    values[0, 2, 1] = np.inf
    values[1, 1, 1] = -np.inf
    return values


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("7", SearchQuery("=", 7)),
        ("= -1.5e3", SearchQuery("=", -1500.0)),
        ("0x1f", SearchQuery("=", 31)),
        ("1_000", SearchQuery("=", 1000)),
        ("NaN", SearchQuery("nan")),
        (" inf ", SearchQuery("inf", sign=0)),
        ("-Inf", SearchQuery("inf", sign=-1)),
        ("+inf", SearchQuery("inf", sign=1)),
        ("> 2.5", SearchQuery(">", 2.5)),
        (">=3", SearchQuery(">=", 3)),
        ("<-2", SearchQuery("<", -2)),
        ("<= 0", SearchQuery("<=", 0)),
        ("== 4", SearchQuery("=", 4)),
    ],
)
def test_parse_query(text, query):
    assert parse_query(text) == query


@pytest.mark.parametrize("text", ["", "abc", "> nan", "1,2", "><3"])
def test_bad_query_names_the_forms(text):
    with pytest.raises(CoreError, match="type a number .* nan, inf, or a comparison") as info:
        parse_query(text)
    assert info.value.field == "find"


def test_forward_search_in_c_order_starts_after_the_current_element_and_wraps():
    values = cube()
    assert find_next(values, parse_query("nan")) == (1, 0, 2)
    assert find_next(values, parse_query("inf")) == (0, 2, 1)
    assert find_next(values, parse_query("-inf")) == (1, 1, 1)
    assert find_next(values, parse_query("+inf"), (0, 2, 1)) == (0, 2, 1)  # the only one: wraps to itself
    # > 20: inf at (0,2,1), then 21, 22, 23 at (1,2,1..3)
    assert find_next(values, parse_query("> 20")) == (0, 2, 1)
    assert find_next(values, parse_query("> 20"), (0, 2, 1)) == (1, 2, 1)
    assert find_next(values, parse_query("> 20"), (1, 2, 1)) == (1, 2, 2)
    assert find_next(values, parse_query("> 20"), (1, 2, 3)) == (0, 2, 1)  # wrapped
    assert find_next(values, parse_query("5"), (0, 1, 1)) == (0, 1, 1)
    assert find_next(values, parse_query("99")) is None


def test_backward_search_walks_the_reverse_order():
    values = cube()
    assert find_next(values, parse_query("> 20"), (1, 2, 2), backward=True) == (1, 2, 1)
    assert find_next(values, parse_query("> 20"), (1, 2, 1), backward=True) == (0, 2, 1)
    assert find_next(values, parse_query("> 20"), None, backward=True) == (1, 2, 3)
    assert find_next(values, parse_query("< 2"), (0, 0, 0), backward=True) == (1, 1, 1)  # -inf, wrapped


@pytest.mark.parametrize("chunk", [1, 3, 5, 1 << 20])
def test_every_block_size_finds_the_same_element(chunk):
    values = cube()[:, ::-1, ::2]  # strided and reversed: C order of the view, not of memory
    # the view is [[[8, 10], [4, 6], [0, 2]], [[20, 22], [16, 18], [12, nan]]]
    assert find_next(values, parse_query("< 5"), (0, 0, 1), chunk_elements=chunk) == (0, 1, 0)
    assert find_next(values, parse_query("nan"), chunk_elements=chunk) == (1, 2, 1)
    assert find_next(values, parse_query(">= 16"), (1, 0, 1), chunk_elements=chunk) == (1, 1, 0)


def test_equality_rounds_the_query_to_the_view_type():
    values = np.array([0.3, 0.1, 0.2], np.float32)
    assert find_next(values, parse_query("0.1")) == (1,)  # 0.1 != float32(0.1) in float64
    halves = np.array([1.0, 1.0078125, 1.5], ml_dtypes.bfloat16)  # steps of 2**-7 near 1
    assert find_next(halves, parse_query("1.008")) == (1,)  # bfloat16(1.008) == 1.0078125


def test_integers_compare_exactly_and_are_never_nan():
    values = np.array([0, 2**63 - 1, -(2**63)], np.int64)
    assert find_next(values, parse_query(str(2**63 - 1))) == (1,)
    assert find_next(values, parse_query(str(2**63 - 2))) is None
    assert find_next(values, parse_query("< -9e18")) == (2,)
    assert find_next(values, parse_query("nan")) is None
    assert find_next(np.array([2**64 - 1], np.uint64), parse_query(str(2**64 - 1))) == (0,)
    assert find_next(np.array([1, 2], np.uint8), parse_query("1.5")) is None
    assert find_next(np.array([1, 2], np.uint8), parse_query("300")) is None
    assert find_next(np.array([False, True]), parse_query("1")) == (1,)


def test_complex_equality_nan_and_magnitude():
    values = np.array([1 + 1j, 3 + 0j, complex(0, np.nan), 0 + 5j], np.complex64)
    assert find_next(values, parse_query("3")) == (1,)
    assert find_next(values, parse_query("nan")) == (2,)
    assert find_next(values, parse_query("> 4")) == (3,)  # |5j| = 5


def test_zero_d_and_empty_views():
    assert find_next(np.array(3.0), parse_query("3")) == ()
    assert find_next(np.zeros((0, 4)), parse_query("0")) is None


def test_refuses_non_numbers_and_bad_starts():
    with pytest.raises(CoreError, match="only numbers can be searched"):
        find_next(np.array([b"ab"]), parse_query("1"))
    with pytest.raises(CoreError, match=r"search start \(5,\) is not an index of shape \(3,\)"):
        find_next(np.zeros(3), parse_query("1"), (5,))


def test_cancel_and_progress():
    calls = []
    assert find_next(np.zeros(10), parse_query("1"), chunk_elements=4, progress=lambda d, t: calls.append((d, t))) is None
    assert calls == [(4, 10), (8, 10), (10, 10)]
    with pytest.raises(Cancelled):
        find_next(np.zeros(10), parse_query("1"), chunk_elements=4, cancelled=lambda: True)


def test_a_big_sparse_file_is_searched_in_bounded_memory(tmp_path):
    path = tmp_path / "big.bin"
    size = 64 << 20
    with open(path, "wb") as f:  # sparse: costs no disk
        f.truncate(size)
        f.seek(size - 8)
        f.write(np.array([7.5], "<f4").tobytes())  # element 16_777_214 of the float32 file
    pipeline = Pipeline([str(path)])
    try:
        result = pipeline.run(DecodeParams(dtype="float32", shape=(4096, 4096)))
        chunk = 1 << 16
        tracemalloc.start()
        try:
            found = find_next(result.view, parse_query("7.5"), reader=result.block_reader(1 << 20), chunk_elements=chunk)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert found == (4095, 4094)
        assert peak < 4 << 20  # a few blocks and the 1 MiB read buffer, never the 64 MiB view
    finally:
        del result
        pipeline.close()


def test_a_file_that_shrinks_during_the_search_raises_source_error(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(np.arange(1024, dtype="<f4").tobytes())
    pipeline = Pipeline([str(path)])
    try:
        result = pipeline.run(DecodeParams(dtype="float32"))
        reader = result.block_reader()
        assert find_next(result.view, parse_query("1000"), reader=reader) == (1000,)
        with open(path, "r+b") as f:
            f.truncate(100)
        with pytest.raises(SourceError, match="changed on disk"):
            find_next(result.view, parse_query("1000"), reader=reader)
    finally:
        del result
        pipeline.close()
