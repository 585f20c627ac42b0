"""Pipeline.run (docs/semantics.md §7): defaults, steps, zero copy, errors with fields, changed files."""

from __future__ import annotations

import os

import numpy as np
import pytest

from core import budget
from core.errors import (
    BudgetError,
    CoreError,
    DecodeError,
    ShapeError,
    SliceError,
    SourceError,
)
from core.pipeline.pipeline import DecodeParams, Pipeline, PipelineResult


class Slice:
    def __init__(self, function):
        self.apply = function


@pytest.fixture
def raw_file(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(np.arange(24, dtype=">f4").tobytes() + b"xyz")
    return str(path)


def test_defaults_on_a_raw_file(raw_file):
    with Pipeline([raw_file]) as pipeline:
        result = pipeline.run(DecodeParams())
        assert isinstance(result, PipelineResult)
        assert result.params == DecodeParams(dtype="uint8", little_endian=True, offset=0,
                                             shape=(99,))
        assert result.input_shape == ()
        assert result.element_length == 99
        assert result.decoded.shape == result.tensor.shape == result.view.shape == (99,)
        assert result.trailing_bytes == (0,)
        assert result.zero_copy


def test_full_run_is_a_view_of_the_file_map(raw_file):
    with Pipeline([raw_file]) as pipeline:
        params = DecodeParams(dtype="float", little_endian=False, record_size=16, shape=(2, 3, 4))
        result = pipeline.run(params, Slice(lambda a: a[1, :, 1:3]))
        assert result.decoded.shape == (6, 4)
        assert result.trailing_bytes == (3,)
        assert result.view.tolist() == [[13.0, 14.0], [17.0, 18.0], [21.0, 22.0]]
        assert result.view.dtype == np.dtype(">f4")
        assert result.zero_copy
        data = pipeline.source.data(0)
        for array in (result.decoded, result.tensor, result.view):
            assert np.shares_memory(array, data)
        assert result.params.dtype == "float"  # given values are kept as given
        assert result.steps == (
            (f"source: '{raw_file}' (99 bytes), data from byte 0, records of 16 bytes -> input "
            f"shape (6,); not decoded: 3 trailing bytes in '{raw_file}'"),
            ("decode: decode_raw(input shape (6,), float (float32), big-endian) -> (6, 4) float32; "
            "view of the file map (no copy)"),
            "reshape: (6, 4) -> (2, 3, 4) (view)",
            "slice: (2, 3, 4) -> (3, 2)",
        )


def test_shape_text_and_lists_are_normalised():
    assert DecodeParams(shape="4,-1").shape == (4, -1)
    assert DecodeParams(shape=[2, 3]).shape == (2, 3)
    assert hash(DecodeParams(shape=[2, 3])) == hash(DecodeParams(shape=(2, 3)))
    with pytest.raises(ShapeError):
        DecodeParams(shape="4,,x")


def test_view_as_is_stored_and_reported(raw_file):
    with Pipeline([raw_file]) as pipeline:
        result = pipeline.run(DecodeParams(view_as="FLOAT32"))
        assert result.params.view_as == "FLOAT32"
        assert result.steps[-1] == ("view as FLOAT32: TensorBuffer.create_from UINT8 -> FLOAT32 "
                                    f"(copy of the {result.view.shape} view only)")
        assert result.view.dtype == np.float32
        np.testing.assert_array_equal(result.view, result.sliced.astype(np.float32))


@pytest.mark.parametrize(("params", "error", "field", "start"), [
    (DecodeParams(dtype="nope"), DecodeError, "dtype", "Value for attr 'out_type' of nope"),
    (DecodeParams(dtype="uint32", extended_types=False), DecodeError, "dtype",
     "Value for attr 'out_type' of uint32"),
    (DecodeParams(dtype="bool", fixed_length=4), DecodeError, "dtype", "Value for attr 'out_type' of bool"),
    (DecodeParams(dtype="uint16", fixed_length=3), DecodeError, "fixed_length", "fixed_length (3) must be"),
    (DecodeParams(dtype="uint16", fixed_length=0), DecodeError, "fixed_length", "fixed_length (0) must be"),
    (DecodeParams(dtype="uint16"), DecodeError, "fixed_length",
     "Input to DecodeRaw has length 99 that is not a multiple of 2, the size of uint16"),
    (DecodeParams(dtype="float", record_size=6), DecodeError, "record_size",
     "Input to DecodeRaw has length 6 that is not a multiple of 4"),
    (DecodeParams(offset=100), SourceError, "offset", "offset 100 is past the end"),
    (DecodeParams(record_size=0), SourceError, "record_size", "record_size 0 must be"),
    (DecodeParams(shape=(7, -1)), ShapeError, "shape", "Input to reshape is a tensor with 99 values"),
    (DecodeParams(shape=(5,)), ShapeError, "shape", ("Input to reshape is a tensor with 99 values, "
                                                     "but the requested shape has 5 (")),
])
def test_errors_carry_their_field(raw_file, params, error, field, start):
    with Pipeline([raw_file]) as pipeline:
        with pytest.raises(error) as info:
            pipeline.run(params)
        assert str(info.value).startswith(start)
        assert str(info.value).endswith(")")
        assert info.value.field == field


@pytest.mark.parametrize(("size", "dtype", "offset", "expected"), [
    (8, "int16", 1, "length 7 that is not a multiple of 2, the size of int16 (the header offset 1 "
                    "leaves 7 of the file's 8 bytes: choose a header offset that leaves a multiple "
                    "of 2 bytes, e.g. 0 or 2)"),
    (8, "int32", 3, "length 5 that is not a multiple of 4, the size of int32 (the header offset 3 "
                    "leaves 5 of the file's 8 bytes: choose a header offset that leaves a multiple "
                    "of 4 bytes, e.g. 0 or 4)"),
    (16, "int32", 6, "length 10 that is not a multiple of 4, the size of int32 (the header offset "
                     "6 leaves 10 of the file's 16 bytes: choose a header offset that leaves a "
                     "multiple of 4 bytes, e.g. 4 or 8)"),
])
def test_an_offset_that_cuts_a_value_is_blamed_on_the_offset(tmp_path, size, dtype, offset, expected):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(size))
    with Pipeline([path]) as pipeline, pytest.raises(DecodeError) as info:
        pipeline.run(DecodeParams(dtype=dtype, offset=offset))
    assert info.value.field == "offset"
    assert str(info.value) == "Input to DecodeRaw has " + expected


def test_an_offset_is_blamed_in_every_file_of_a_batch(tmp_path):
    paths = [tmp_path / "a.bin", tmp_path / "b.bin"]
    for path in paths:
        path.write_bytes(bytes(8))
    with Pipeline(paths) as pipeline, pytest.raises(DecodeError) as info:
        pipeline.run(DecodeParams(dtype="int16", offset=1))
    assert info.value.field == "offset"
    assert "(the header offset 1 leaves 7 of each file's 8 bytes: " in str(info.value)


def test_a_file_that_ends_in_a_partial_value_is_not_blamed_on_the_offset(tmp_path):
    path = tmp_path / "nine.bin"
    path.write_bytes(bytes(9))  # odd without the offset too: the file ends in half a value
    with Pipeline([path]) as pipeline, pytest.raises(DecodeError) as info:
        pipeline.run(DecodeParams(dtype="int16", offset=2))
    assert info.value.field == "fixed_length"
    assert str(info.value) == ("Input to DecodeRaw has length 7 that is not a multiple of 2, the "
                               "size of int16 (choose a record size or fixed_length that is a "
                               "multiple of 2)")


def test_slice_errors_propagate_unchanged(raw_file):
    failure = SliceError("Attempting to slice scalar input. (drop the slice)", field="slice")

    def refuse(_array):
        raise failure

    with Pipeline([raw_file]) as pipeline:
        with pytest.raises(SliceError) as info:
            pipeline.run(DecodeParams(), Slice(refuse))
        assert info.value is failure


def test_several_files_of_different_lengths_need_fixed_length(tmp_path):
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(b"\x01\x00\x02\x00")
    b.write_bytes(b"\x03\x00")
    with Pipeline([a, b]) as pipeline:
        with pytest.raises(DecodeError) as info:
            pipeline.run(DecodeParams(dtype="uint16"))
        text = str(info.value)
        assert text.startswith("DecodeRaw requires input strings to all be the same size, but "
                               "element 1 has size 4 != 2 (")
        assert f"'{a}' has 4 bytes of data, '{b}' has 2" in text
        assert info.value.field == "fixed_length"
        result = pipeline.run(DecodeParams(dtype="uint16", fixed_length=4))
        assert result.view.tolist() == [[1, 2], [3, 0]]
        assert result.input_shape == (2,) and result.element_length == 4
        assert not result.zero_copy
        assert "2 files stacked" in result.steps[1]


def test_several_equal_files_stack_once(tmp_path):
    paths = []
    for i in range(3):
        paths.append(tmp_path / f"{i}.bin")
        paths[-1].write_bytes(np.full(4, i, dtype="<i2").tobytes())
    with Pipeline(paths) as pipeline:
        result = pipeline.run(DecodeParams(dtype="int16", record_size=4))
        assert result.view.shape == (3, 2, 2)
        assert result.view[:, 0, 0].tolist() == [0, 1, 2]
        assert result.decoded.base is not None and result.decoded.base.base is None


def test_stacking_respects_the_budget(tmp_path, monkeypatch):
    paths = []
    for i in range(2):
        paths.append(tmp_path / f"{i}.bin")
        paths[-1].write_bytes(bytes(64))
    monkeypatch.setattr(budget, "COPY_BUDGET_BYTES", 100)
    with Pipeline(paths) as pipeline:
        with pytest.raises(BudgetError, match=r"^stacking 2 files into one batch would copy 128 "
                                              r"bytes, above the 100 bytes copy budget") as info:
            pipeline.run(DecodeParams())
        assert info.value.field == "files"


def test_changed_file_is_refused_at_the_next_run(tmp_path):
    path = tmp_path / "a.bin"
    path.write_bytes(bytes(4096 * 4))
    with Pipeline([path]) as pipeline:
        pipeline.run(DecodeParams())
        os.truncate(path, 100)  # the map now reaches past the end: touching it would SIGBUS
        with pytest.raises(SourceError, match=r"changed on disk since it was opened \(size 16384 "
                                              r"-> 100 bytes\) \(reload it\)$") as info:
            pipeline.run(DecodeParams())
        assert info.value.field == "files"


def test_run_after_close_is_refused(raw_file):
    pipeline = Pipeline([raw_file])
    result = pipeline.run(DecodeParams())
    pipeline.close()
    assert result.view[0] == 0x00  # arrays from earlier runs stay valid
    with pytest.raises(SourceError, match="closed"):
        pipeline.run(DecodeParams())


def test_bool_decoding_normalises_bytes(tmp_path):
    path = tmp_path / "b.bin"
    path.write_bytes(bytes([0, 1, 7]))
    with Pipeline([path]) as pipeline:
        result = pipeline.run(DecodeParams(dtype="bool"))
        assert result.view.tolist() == [False, True, True]
        assert not result.zero_copy
        assert "normalised" in result.steps[1]


def test_empty_file(tmp_path):
    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    with Pipeline([path]) as pipeline:
        result = pipeline.run(DecodeParams(dtype="float64"))
        assert result.view.shape == (0,)
        assert result.element_at_byte(0, 0) is None
        padded = pipeline.run(DecodeParams(dtype="float64", fixed_length=16))
        assert padded.view.tolist() == [0.0, 0.0]
        assert padded.byte_offset((1,)) == (0, 8, 0)


# -- huge files -------------------------------------------------------------------------------
@pytest.fixture
def huge_file(tmp_path):
    path = tmp_path / "huge.bin"
    with open(path, "wb") as f:
        f.truncate(8 << 30)  # sparse: no disk, no memory
        f.seek((4 << 30) + 8)
        f.write(np.array([1.5, -2.0], dtype="<f4").tobytes())
    return str(path)


def test_eight_gib_sparse_file_decodes_one_record_without_reading_it_all(huge_file):
    with Pipeline([huge_file]) as pipeline:
        params = DecodeParams(dtype="float32", record_size=1 << 20)
        result = pipeline.run(params, Slice(lambda a: a[4096, 2:4]))
        assert result.decoded.shape == (8192, 1 << 18)
        assert result.view.tolist() == [1.5, -2.0]
        assert result.zero_copy
        assert np.may_share_memory(result.decoded, pipeline.source.data(0))
        assert np.shares_memory(result.view, pipeline.source.data(0))
        assert result.byte_offset((1,)) == (0, (4 << 30) + 12, 4)
        assert result.element_at_byte(0, (4 << 30) + 8) == (0,)


def test_eight_gib_file_as_one_element_is_a_view(huge_file):
    with Pipeline([huge_file]) as pipeline:
        result = pipeline.run(DecodeParams(dtype="float32", shape=(1 << 16, -1)))
        assert result.tensor.shape == (1 << 16, 1 << 15)
        assert result.zero_copy


def test_absurd_padding_is_refused_fast(huge_file):
    with Pipeline([huge_file]) as pipeline:
        with pytest.raises(BudgetError, match=r"padding to fixed_length 1073741824 would copy "
                                              r"16\.0 GiB, above the 2\.0 GiB copy budget"):
            pipeline.run(DecodeParams(fixed_length=1 << 30, record_size=1 << 29))


def test_core_errors_are_value_errors(raw_file):
    with Pipeline([raw_file]) as pipeline:
        with pytest.raises(ValueError):
            pipeline.run(DecodeParams(dtype="nope"))
    assert issubclass(BudgetError, CoreError)
