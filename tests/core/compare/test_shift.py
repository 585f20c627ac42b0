"""core.compare.shift: a known misaligned pair is realigned, and the shifted comparison pairs A[k] with B[k + s]."""

import numpy as np
import pytest

from core.compare.scanner import Side, compare_sides
from core.compare.shift import suggest_shift
from core.errors import CoreError
from core.pipeline.pipeline import DecodeParams, Pipeline


def signal(n=3000, seed=2):
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


def test_a_header_of_five_elements_is_found_and_realigned(tmp_path):
    a = signal()
    (tmp_path / "a.bin").write_bytes(a.tobytes())
    (tmp_path / "b.bin").write_bytes(b"HEADER--HEADER--HEAD" + a.tobytes())  # 20 bytes = 5 float32
    with Pipeline([tmp_path / "a.bin"]) as pa, Pipeline([tmp_path / "b.bin"]) as pb:
        ra, rb = pa.run(DecodeParams(dtype="float32")), pb.run(DecodeParams(dtype="float32"))
        suggestion = suggest_shift(Side.of(ra), Side.of(rb), max_shift=64)
        assert (suggestion.shift, suggestion.equal_fraction, suggestion.pairs) == (5, 1.0, 3000)
        assert suggestion.correlation == pytest.approx(1.0)
        aligned = compare_sides(Side.of(ra), Side.of(rb), shift=5)
    assert (aligned.shape, aligned.compared, aligned.mismatched) == ((3000,), 3000, 0)


def test_negative_shift_when_a_has_the_extra_leading_values():
    a = signal()
    b = a[3:].copy()
    b[100] += 1.0
    suggestion = suggest_shift(Side(a), Side(b), max_shift=16)
    assert suggestion.shift == -3 and suggestion.equal_fraction > 0.999
    r = compare_sides(Side(a), Side(b), shift=-3)
    assert (r.compared, r.mismatched) == (2997, 1)
    m = r.first[0]
    assert (m.index_a, m.index_b, m.a, m.b) == ((103,), (100,), float(a[103]), float(b[100]))
    assert r.lines()[1] == "shift: A[k] against B[k + -3] (flat C order)"


def test_shift_reads_n_dimensional_views_flat_and_reports_their_indices():
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    b = np.concatenate([[99, 98], np.arange(24, dtype=np.int32)]).reshape(2, 13)
    b[1, 5] = -1  # flat 18 of B = flat 16 of A
    r = compare_sides(Side(a), Side(b), shift=2)
    assert (r.compared, r.mismatched) == (24, 1)
    assert (r.first[0].index_a, r.first[0].index_b) == ((2, 4), (1, 5))


def test_views_that_cannot_be_read_flat_and_too_short_sides():
    a = np.arange(20.0).reshape(4, 5)[:, ::2]
    with pytest.raises(CoreError, match="cannot be read flat without a copy") as caught:
        compare_sides(Side(a), Side(np.arange(12.0)), shift=1)
    assert caught.value.field == "slice"
    with pytest.raises(CoreError, match="too short to suggest a shift"):
        suggest_shift(Side(np.arange(4.0)), Side(np.arange(4.0)), max_shift=2)
