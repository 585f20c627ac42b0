"""core.scan.field_statistics: each field's figures equal compute_statistics of that field as the
tensor (the pipeline's view from RecordLayout.field_params), figure by figure; a bit field's
equal those of its values as gcc's own reader gives them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from core.errors import Cancelled, CoreError, SourceError
from core.files.sources import open_source
from core.pipeline.params import DecodeParams
from core.pipeline.pipeline import Pipeline
from core.records.c_decl import parse_c_layout
from core.records.field_list import parse_numpy_layout
from core.scan.field_statistics import field_statistics
from core.scan.statistics import compute_statistics

# Special values in every float field; a big-endian double; an array; bool and one-byte ints
# (exact value counts); a uint64 beyond 2**53; float16 subnormals.
DESCRIPTION = [("f", "<f4"), ("d", ">f8"), ("ch", "<i2", (2,)), ("ok", "?"), ("k", "i1"), ("big", ">u8"),
               ("h", "<f2"), ("z", "<c8")]


@pytest.fixture(scope="module")
def numpy_records(tmp_path_factory):
    """A 7-byte header, 2.5 million records written by numpy's tofile (``ch``'s 5 million values
    are two blocks of a scan), 3 trailing bytes; and numpy's own reading of them."""
    rng = np.random.default_rng(7)
    n = 2_500_000
    data = np.zeros(n, DESCRIPTION)
    data["f"] = rng.standard_normal(n).astype(np.float32) * 1e3
    data["f"][::1000] = np.nan
    data["f"][7], data["f"][8] = np.inf, -np.inf
    data["f"][9:20] = 0.0
    data["f"][20] = 1e-42  # subnormal float32
    data["d"] = rng.standard_normal(n) * 1e-5 + 3.0
    data["d"][5] = np.nan
    data["ch"] = rng.integers(-30000, 30000, (n, 2))
    data["ok"] = rng.random(n) < 0.3
    data["k"] = rng.integers(-128, 128, n)
    data["big"] = np.uint64(2**63) + rng.integers(0, 2**40, n).astype(np.uint64)
    data["h"] = (rng.standard_normal(n) * 1e-6).astype(np.float16)
    data["z"] = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    path = tmp_path_factory.mktemp("numpy_records") / "log.bin"
    with open(path, "wb") as out:
        out.write(b"HEADER!")
        data.tofile(out)
        out.write(b"xyz")
    return path, np.fromfile(path, DESCRIPTION, offset=7, count=n)


#: Types TensorFlow's DecodePaddedRaw refuses, so the pipeline cannot make such a field *the*
#: tensor (field_params gives a fixed_length): their oracle is the strided view of a memory map.
NOT_PADDED = ("bool", "complex64", "complex128")


def _as_the_tensor(path, layout, name, header, **options):
    """compute_statistics of the field shown as the tensor: the pipeline's view of its params
    (for the types of NOT_PADDED, the field's strided view of a memory map of the file)."""
    leaf = layout.field_named(name)
    if leaf.dtype in NOT_PADDED:
        data = np.memmap(path, np.uint8, "r")
        count = (data.size - header) // layout.itemsize
        view = np.ndarray((count,) + leaf.shape, leaf.numpy_dtype(), data, header + leaf.offset,
                          (layout.itemsize,) + tuple(np.empty(leaf.shape, leaf.numpy_dtype()).strides))
        return compute_statistics(view, **options)
    with Pipeline([str(path)]) as pipeline:
        result = pipeline.run(DecodeParams(**layout.field_params(name, header)))
        assert result.view.shape[1:] == leaf.shape
        return compute_statistics(result.view, reader=result.block_reader(), **options)


def test_every_figure_equals_the_fields_statistics_as_the_tensor(numpy_records):
    path, data = numpy_records
    layout = parse_numpy_layout(repr(DESCRIPTION))
    with open_source(path) as source:
        found = list(field_statistics(source, layout, header=7))
    assert [f.name for f in found] == ["f", "d", "ch", "ok", "k", "big", "h", "z"]
    for figures in found:
        expected = _as_the_tensor(path, layout, figures.name, 7)
        assert figures.statistics == expected, figures.name  # every figure, the histogram too
        assert figures.shape == data[figures.name].shape and not figures.computed
    by_name = {f.name: f.statistics for f in found}
    # the figures mean what they say (numpy on numpy's own reading of the file)
    f = data["f"]
    finite = f[np.isfinite(f)]
    s = by_name["f"]
    assert (s.count, s.nan_count, s.posinf_count, s.neginf_count) == (2_500_000, 2500, 1, 1)
    assert s.zero_count == int(np.count_nonzero(finite == 0)) == 11 and s.subnormal_count == 1
    assert s.min == -np.inf and s.max == np.inf
    assert s.mean == pytest.approx(float(finite.astype(np.float64).mean()), rel=1e-12)
    assert s.std == pytest.approx(float(finite.astype(np.float64).std()), rel=1e-9)
    assert by_name["d"].nan_count == 1 and by_name["d"].dtype == "float64"
    assert by_name["ch"].count == 5_000_000
    assert (by_name["ch"].min, by_name["ch"].max) == (int(data["ch"].min()), int(data["ch"].max()))
    assert by_name["ok"].mean == pytest.approx(float(data["ok"].mean()), rel=1e-12)
    assert by_name["big"].max == int(data["big"].max()) > 2**63
    assert by_name["h"].subnormal_count == int(np.count_nonzero((data["h"] != 0) & (abs(data["h"]) < 2**-14)))
    assert by_name["z"].quantity == "magnitude"


def test_chosen_fields_without_histogram_and_progress(numpy_records):
    path, _data = numpy_records
    layout = parse_numpy_layout(repr(DESCRIPTION))
    seen = []
    with open_source(path) as source:
        found = list(field_statistics(source, layout, header=7, fields=["k", "d"], histogram=False,
                                      progress=lambda done, total: seen.append((done, total))))
    assert [f.name for f in found] == ["k", "d"]
    assert found[1].statistics == _as_the_tensor(path, layout, "d", 7, histogram=False)
    assert found[1].statistics.histogram_counts == ()
    total = 2 * 2_500_000 * 2
    assert all(t == total for _d, t in seen) and seen[-1] == (total, total)
    assert [d for d, _t in seen] == sorted(d for d, _t in seen)  # never goes back


def test_bit_fields_are_the_statistics_of_gccs_values(gcc_records):
    layout = parse_c_layout(gcc_records.header, "rec")
    expected = gcc_records.values
    with open_source(gcc_records.folder / "rec.bin") as source:
        found = {f.name: f for f in field_statistics(source, layout)}
    for name in ("flags", "level", "delta"):
        figures = found[name]
        assert figures.computed and figures.shape == (gcc_records.count,)
        assert figures.statistics == compute_statistics(expected[name]), name  # the computed values' own figures
    assert found["flags"].statistics.dtype == "uint8" and found["delta"].statistics.dtype == "int8"
    assert (found["delta"].statistics.min, found["delta"].statistics.max) == (-16, 15)
    assert found["delta"].statistics.mean == pytest.approx(float(expected["delta"].mean()), rel=1e-12)
    for name in ("ts", "ch", "gain", "m", "when"):  # the other fields: as the tensor
        assert found[name].statistics == _as_the_tensor(gcc_records.folder / "rec.bin", layout, name, 0), name
    assert found["gain"].statistics.nan_count == -(-gcc_records.count // 97)  # every 97th gain is NaN
    assert found["m"].statistics.dtype == "int32" and found["m"].statistics.max == 7  # an enum: its integers


def test_a_bit_field_wider_than_two_bytes_takes_the_two_pass_route(tmp_path):
    header = "#include <stdint.h>\nstruct w { uint32_t lo:7; int32_t wide:20; uint32_t hi:5; };"
    layout = parse_c_layout(header, "w")
    units = np.random.default_rng(3).integers(0, 2**32, 50_000, dtype=np.uint64).astype("<u4")
    path = tmp_path / "w.bin"
    path.write_bytes(units.tobytes())
    wide = ((units.astype(np.int64) >> 7) & (2**20 - 1))
    wide = np.where(wide >= 2**19, wide - 2**20, wide).astype(np.int32)  # by hand: bits 7..26, signed
    with open_source(path) as source:
        found = next(field_statistics(source, layout, fields=["wide"]))
    assert found.statistics == compute_statistics(wide)
    assert found.statistics.dtype == "int32" and len(found.statistics.histogram_counts) == 64


def test_bad_requests_are_refused_before_any_read(numpy_records, tmp_path):
    path, _data = numpy_records
    layout = parse_numpy_layout(repr(DESCRIPTION))
    with open_source(path) as source:
        with pytest.raises(CoreError, match="the record has no field 'nope'") as caught:
            field_statistics(source, layout, fields=["nope"])
        assert caught.value.field == "field"
        with pytest.raises(CoreError, match="'k' is named twice"):
            field_statistics(source, layout, fields=["k", "k"])
        with pytest.raises(CoreError, match=r"the header \(1,000,000,000 bytes\) is longer than the file"):
            field_statistics(source, layout, header=10**9)
    small = tmp_path / "small.bin"
    small.write_bytes(bytes(10))
    with open_source(small) as source, pytest.raises(CoreError, match="more than the 10 bytes after the header") \
            as caught:
        field_statistics(source, layout)
    assert caught.value.field == "fields"


def test_cancel_stops_the_scan(numpy_records):
    path, _data = numpy_records
    layout = parse_numpy_layout(repr(DESCRIPTION))
    seen = []
    with open_source(path) as source, pytest.raises(Cancelled):
        list(field_statistics(source, layout, header=7, progress=lambda done, total: seen.append(done),
                              cancelled=lambda: len(seen) >= 2))
    assert len(seen) >= 2


def test_a_file_that_shrank_is_reported(tmp_path):
    path = tmp_path / "cut.bin"
    path.write_bytes(np.arange(1_000_000, dtype="<f8").tobytes())
    layout = parse_numpy_layout("[('a', '<f4'), ('b', '<f4')]")
    with open_source(path) as source:
        scan = field_statistics(source, layout)
        path.write_bytes(b"")  # truncated after the layout was checked
        with pytest.raises(SourceError, match="changed"):
            list(scan)


def test_no_records_give_empty_figures(tmp_path):
    path = tmp_path / "empty.bin"
    path.write_bytes(b"HDR")
    layout = parse_numpy_layout("[('a', '<f4')]")
    with open_source(path) as source:
        (found,) = field_statistics(source, layout, header=3)
    assert found.shape == (0,)
    assert dataclasses.astuple(found.statistics)[2:] == (0, 0, 0, 0, 0, 0, 0, None, None, None, None, (), (), True,
                                                         ())


@pytest.mark.parametrize("size", [1, 2, 4, 8])
@pytest.mark.parametrize("little", [True, False])
@pytest.mark.parametrize("signed", [False, True])
def test_bits_of_equal_python_integer_arithmetic(size, little, signed):
    """Field.bits_of, the values every statistic and export of a bit field is of, against the
    rule computed with Python integers: bits from the least significant (little-endian layout)
    or the most significant (big-endian) bit of the unit, sign-extended when signed."""
    from core.records.layout import Field

    rng = np.random.default_rng(size)
    for width in sorted({1, 3, 8 * size - 1, 8 * size}):
        for bit in sorted({0, 8 * size - width}):
            leaf = Field("x", 0, f"uint{8 * size}", (), little, bit=bit, width=width, signed=signed)
            units = rng.integers(0, 2 ** (8 * size), 500, dtype=np.uint64).astype(leaf.numpy_dtype())
            shift = bit if little else 8 * size - bit - width
            expected = [(int(u) >> shift) & ((1 << width) - 1) for u in units.tolist()]
            if signed:
                expected = [e - (1 << width) if e >= 1 << (width - 1) else e for e in expected]
            values = leaf.bits_of(units)
            assert values.tolist() == expected, (width, bit)
            assert values.dtype == leaf.value_dtype() == np.dtype(f"{'i' if signed else 'u'}"
                                                                  f"{next(n for n in (1, 2, 4, 8) if width <= 8 * n)}")
