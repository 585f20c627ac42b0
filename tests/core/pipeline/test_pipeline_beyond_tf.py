"""Types beyond TF through the pipeline: steps, byte provenance (nibbles), view as, statistics
and export (docs/semantics.md §2a)."""

import ml_dtypes
import numpy as np
import pytest

from core.dtypes.table import FLOAT8_NAMES
from core.errors import TensorBufferError
from core.export.arrays import export_view
from core.pipeline.pipeline import DecodeParams, Pipeline
from core.scan.statistics import compute_statistics


@pytest.fixture
def packed_file(tmp_path):
    path = tmp_path / "packed.bin"
    path.write_bytes(b"\x21\x43\x65\x87" + b"\x00\x00\x80" + b"\xff\xff\x7f")
    return path


def test_int4_provenance_names_the_byte_and_its_half(packed_file):
    with Pipeline(packed_file) as pipeline:
        result = pipeline.run(DecodeParams(dtype="int4", length=4))
        assert result.view.tolist() == [1, 2, 3, 4, 5, 6, 7, -8]
        assert result.params.dtype == "int4" and not result.zero_copy
        assert result.steps[1] == ("decode: decode_raw(input shape (), int4) -> (8,) int8; copied "
                                   "once: int4 (two values per byte) unpacked into one int8 per "
                                   "value")
        located = [(result.byte_offset(i), result.byte_map.nibble(result.view, i)) for i in range(4)]
        assert located == [((0, 0, 1), "low"), ((0, 0, 1), "high"),
                           ((0, 1, 1), "low"), ((0, 1, 1), "high")]
        assert result.element_at_byte(0, 3) == (6,)  # the low nibble's value of byte 3
        assert result.element_at_byte(0, 4) is None  # past the length
        sliced = pipeline.run(DecodeParams(dtype="int4", length=4, shape=(4, 2)),
                              _Slice(lambda t: t[1:, 1]))
        assert sliced.view.tolist() == [4, 6, -8]
        assert sliced.byte_offset(2) == (0, 3, 1)
        assert sliced.byte_map.nibble(sliced.view, 2) == "high"
        assert (sliced.nibble(0), sliced.nibble(-1)) == ("high", "high")
        assert result.nibble(6) == "low"
    with Pipeline(packed_file) as pipeline:
        assert pipeline.run(DecodeParams(dtype="uint8")).nibble(0) is None


def test_int24_provenance_is_three_bytes_in_records(packed_file):
    with Pipeline(packed_file) as pipeline:
        result = pipeline.run(DecodeParams(dtype="int24", offset=4, record_size=3))
        assert result.view.tolist() == [[-8388608], [8388607]]
        assert result.byte_offset((1, 0)) == (0, 7, 3)
        assert result.byte_map.nibble(result.view, (1, 0)) is None
        assert result.element_at_byte(0, 9) == (1, 0)
        assert "int24 (3 bytes per value) unpacked into one int32 per value" in result.steps[1]
        big = pipeline.run(DecodeParams(dtype="uint24", offset=4, little_endian=False))
        assert big.view.tolist() == [0x000080, 0xFFFF7F]
        assert "uint24, big-endian" in big.steps[1]


def test_int24_length_error_blames_the_record_size(packed_file):
    with Pipeline(packed_file) as pipeline, pytest.raises(Exception) as info:
        pipeline.run(DecodeParams(dtype="int24", record_size=2))
    assert info.value.field == "record_size"
    assert "not a multiple of 3, the size of int24" in str(info.value)


def test_view_as_float8_is_refused_and_packed_types_convert_their_values(packed_file):
    with Pipeline(packed_file) as pipeline:
        with pytest.raises(TensorBufferError) as info:
            pipeline.run(DecodeParams(dtype="float8_e4m3fn", view_as="float32"))
        assert str(info.value) == (
            "view as FLOAT32: TFLite's TensorBuffer has no float8_e4m3fn type, so there is no "
            "create_from to reproduce (clear view as, or decode the bytes as uint8 to view them "
            "as another type)")
        assert info.value.field == "view_as"
        result = pipeline.run(DecodeParams(dtype="int24", offset=4, view_as="float32"))
        assert result.view.dtype == np.float32
        assert result.view.tolist() == [-8388608.0, 8388607.0]
        result = pipeline.run(DecodeParams(dtype="int4", length=4, view_as="uint8"))
        assert result.view.tolist() == [1, 2, 3, 4, 5, 6, 7, 0]  # -8 clamps to 0


@pytest.mark.parametrize("name", FLOAT8_NAMES)
def test_float8_statistics_count_subnormals_below_ml_dtypes_smallest_normal(tmp_path, name):
    path = tmp_path / "all.bin"
    path.write_bytes(bytes(range(256)))
    with Pipeline(path) as pipeline:
        result = pipeline.run(DecodeParams(dtype=name))
        assert result.zero_copy and result.buffer is None
        stats = compute_statistics(result.view, reader=result.block_reader())
    values = np.frombuffer(bytes(range(256)), getattr(ml_dtypes, name)).astype(np.float64)
    tiny = float(ml_dtypes.finfo(getattr(ml_dtypes, name)).smallest_normal)
    finite = values[np.isfinite(values)]
    assert stats.subnormal_count == int(np.count_nonzero((finite != 0) & (np.abs(finite) < tiny)))
    assert stats.nan_count == int(np.count_nonzero(np.isnan(values)))
    assert (stats.min, stats.max) == (float(values[~np.isnan(values)].min()),
                                      float(values[~np.isnan(values)].max()))


def test_float8_e4m3fn_has_14_subnormals():
    # 7 nonzero mantissas with a zero exponent, both signs
    stats = compute_statistics(np.frombuffer(bytes(range(256)), ml_dtypes.float8_e4m3fn))
    assert stats.subnormal_count == 14 and stats.nan_count == 2 and stats.max == 448.0


def test_float8_export_npy_bin_csv(tmp_path):
    data = np.frombuffer(bytes(range(256)), ml_dtypes.float8_e5m2)
    export_view(data, tmp_path / "a.npy", "npy")
    loaded = np.load(tmp_path / "a.npy")
    assert loaded.dtype == np.dtype("V1")  # as np.save writes it: view it as the ml_dtypes type
    assert loaded.view(ml_dtypes.float8_e5m2).view(np.uint8).tolist() == list(range(256))
    export_view(data, tmp_path / "a.bin", "bin")
    assert (tmp_path / "a.bin").read_bytes() == bytes(range(256))  # the stored bytes
    export_view(data[:4], tmp_path / "a.csv", "csv")
    # 0x01 is 2**-16, 0x02 2**-15, 0x03 1.5 * 2**-15: the shortest texts that read back
    assert (tmp_path / "a.csv").read_text().split() == ["0.0", "2e-05", "3e-05", "5e-05"]
    export_view(data, tmp_path / "w.npy", "npy", dtype="float32")
    widened = np.load(tmp_path / "w.npy")
    assert np.array_equal(widened, data.astype(np.float32), equal_nan=True)
    with pytest.raises(Exception, match="as they are or as float32"):
        export_view(data, tmp_path / "x.npy", "npy", dtype="int8")


def test_int24_export_writes_the_decoded_int32_values(packed_file, tmp_path):
    with Pipeline(packed_file) as pipeline:
        result = pipeline.run(DecodeParams(dtype="int24", offset=4))
        export_view(result.view, tmp_path / "s.npy", "npy", reader=result.block_reader())
    assert np.load(tmp_path / "s.npy").tolist() == [-8388608, 8388607]


class _Slice:
    """A slice spec from a function returning a view."""

    def __init__(self, function):
        self.apply = function

