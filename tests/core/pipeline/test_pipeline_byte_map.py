"""PipelineResult.byte_offset and element_at_byte: every view element maps back to its bytes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from core.errors import CoreError
from core.pipeline.pipeline import DecodeParams, Pipeline


class Slice:
    """A duck-typed slice spec (the real one is core.SliceSpec)."""

    def __init__(self, function):
        self.apply = function


def _files(tmp_path, *contents: bytes) -> list[str]:
    paths = []
    for i, content in enumerate(contents):
        path = tmp_path / f"f{i}.bin"
        path.write_bytes(content)
        paths.append(str(path))
    return paths


def _check_every_element(result, contents: list[bytes]):
    """Forward and inverse mapping agree, and the mapped bytes are the element's bytes."""
    view = result.view
    itemsize = view.dtype.itemsize
    for index in np.ndindex(view.shape):
        file_index, offset, nbytes = result.byte_offset(index)
        # slices, not a scalar: a numpy scalar would be converted to native byte order
        raw = view[tuple(slice(i, i + 1) for i in index)].tobytes() if index else view.tobytes()
        real = contents[file_index][offset:offset + nbytes]
        assert len(real) == nbytes
        if view.dtype.kind != "b":
            assert raw == real + b"\0" * (itemsize - nbytes), index
        if nbytes:
            assert result.element_at_byte(file_index, offset) == index
            assert result.element_at_byte(file_index, offset + nbytes - 1) == index


def test_plain_file(tmp_path):
    content = bytes(range(16))
    with Pipeline(_files(tmp_path, content)) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint16"))
        assert result.byte_offset((3,)) == (0, 6, 2)
        assert result.byte_offset(-1) == (0, 14, 2)
        assert result.element_at_byte(0, 7) == (3,)
        _check_every_element(result, [content])


def test_big_endian(tmp_path):
    content = bytes(range(16))
    with Pipeline(_files(tmp_path, content)) as pipeline:
        result = pipeline.run(DecodeParams(dtype="int32", little_endian=False))
        assert result.view[1] == 0x04050607
        assert result.byte_offset((1,)) == (0, 4, 4)
        _check_every_element(result, [content])


def test_record_size_and_offset(tmp_path):
    content = bytes(range(40))
    with Pipeline(_files(tmp_path, content)) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint16", offset=4, record_size=6))
        assert result.input_shape == (6,)
        assert result.byte_offset((1, 2)) == (0, 4 + 6 + 4, 2)
        assert result.element_at_byte(0, 3) is None  # header
        assert result.element_at_byte(0, 15) == (1, 2)
        _check_every_element(result, [content])


def test_trailing_bytes_map_to_nothing(tmp_path):
    content = bytes(range(11))
    with Pipeline(_files(tmp_path, content)) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint8", record_size=4))
        assert result.trailing_bytes == (3,)
        assert result.element_at_byte(0, 8) is None
        assert result.element_at_byte(0, 7) == (1, 3)


def test_reshape(tmp_path):
    content = bytes(range(24))
    with Pipeline(_files(tmp_path, content)) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint16", shape=(3, -1)))
        assert result.view.shape == (3, 4)
        assert result.byte_offset((2, 1)) == (0, 18, 2)
        assert result.element_at_byte(0, 19) == (2, 1)
        _check_every_element(result, [content])


def test_sliced_view(tmp_path):
    content = bytes(range(40))
    with Pipeline(_files(tmp_path, content)) as pipeline:
        spec = Slice(lambda a: a[1:, ::2])
        result = pipeline.run(DecodeParams(dtype="uint16", little_endian=False, record_size=8), spec)
        assert result.view.shape == (4, 2)
        assert result.byte_offset((0, 1)) == (0, 12, 2)
        assert result.element_at_byte(0, 12) == (0, 1)
        assert result.element_at_byte(0, 10) is None  # sliced away (odd column)
        assert result.element_at_byte(0, 2) is None  # sliced away (first record)
        assert result.zero_copy
        _check_every_element(result, [content])


def test_negative_step_and_new_axis_slices(tmp_path):
    content = bytes(range(48))
    with Pipeline(_files(tmp_path, content)) as pipeline:
        params = DecodeParams(dtype="int16", shape=(2, 3, 4))
        result = pipeline.run(params, Slice(lambda a: a[::-1, None, 1, ::-2]))
        assert result.view.shape == (2, 1, 2)
        assert result.byte_offset((0, 0, 0)) == (0, 2 * (12 + 4 + 3), 2)
        _check_every_element(result, [content])


def test_zero_dimensional_view(tmp_path):
    content = bytes(range(8))
    with Pipeline(_files(tmp_path, content)) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint16"), Slice(lambda a: a[2, ...]))
        assert result.view.shape == ()
        assert result.byte_offset(()) == (0, 4, 2)
        assert result.element_at_byte(0, 5) == ()
        assert result.element_at_byte(0, 6) is None


def test_multi_file_batch(tmp_path):
    contents = [bytes(range(12)), bytes(range(100, 112))]
    with Pipeline(_files(tmp_path, *contents)) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint16", record_size=4))
        assert result.input_shape == (2, 3)
        assert result.view.shape == (2, 3, 2)
        assert not result.zero_copy
        assert result.byte_offset((1, 2, 1)) == (1, 10, 2)
        assert result.element_at_byte(1, 5) == (1, 1, 0)
        _check_every_element(result, contents)


def test_padding_reports_the_real_bytes(tmp_path):
    contents = [bytes(range(1, 8)), bytes(range(11, 14))]  # 7 and 3 bytes
    with Pipeline(_files(tmp_path, *contents)) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint16", fixed_length=8))
        assert result.view.shape == (2, 4)
        assert result.byte_offset((0, 3)) == (0, 6, 1)  # one real byte, one padding byte
        assert result.byte_offset((1, 1)) == (1, 2, 1)
        assert result.byte_offset((1, 2)) == (1, 4, 0)  # all padding
        assert result.element_at_byte(1, 2) == (1, 1)
        _check_every_element(result, contents)


def test_single_file_padding_and_truncation(tmp_path):
    content = bytes(range(1, 11))  # records of 5 bytes
    with Pipeline(_files(tmp_path, content)) as pipeline:
        padded = pipeline.run(DecodeParams(dtype="uint16", record_size=5, fixed_length=6))
        assert not padded.zero_copy
        assert padded.byte_offset((1, 2)) == (0, 9, 1)
        _check_every_element(padded, [content])
        truncated = pipeline.run(DecodeParams(dtype="uint16", record_size=5, fixed_length=4))
        assert truncated.zero_copy
        assert truncated.element_at_byte(0, 4) is None  # truncated away
        _check_every_element(truncated, [content])
        flat = pipeline.run(DecodeParams(dtype="uint16", record_size=5, fixed_length=4, shape=(-1,)))
        assert flat.view.tolist() == [0x0201, 0x0403, 0x0706, 0x0908]
        assert flat.byte_offset((2,)) == (0, 5, 2)
        assert flat.element_at_byte(0, 8) == (3,)
        _check_every_element(flat, [content])


def test_bool_copy_maps_back(tmp_path):
    content = bytes([0, 1, 2, 0, 5, 0])
    with Pipeline(_files(tmp_path, content)) as pipeline:
        result = pipeline.run(DecodeParams(dtype="bool", record_size=3))
        assert result.view.tolist() == [[False, True, True], [False, True, False]]
        assert not result.zero_copy
        assert result.byte_offset((1, 1)) == (0, 4, 1)
        _check_every_element(result, [content])


def _valid(dtype, order, record, fixed, shape):
    itemsize = {"uint8": 1, "int16": 2, "float32": 4, "complex64": 8}[dtype]
    if dtype == "complex64" and fixed is not None:
        return False  # TF refuses to pad complex numbers
    return fixed is not None or (record or 48) % itemsize == 0


@pytest.mark.parametrize(("dtype", "order", "record", "fixed", "shape"), [
    case for case in itertools.product(
        ["uint8", "int16", "float32", "complex64"], [True, False], [None, 8, 12], [None, 8, 16],
        [None, (-1,)],
    ) if _valid(*case)
])
def test_mapping_catalogue(tmp_path, dtype, order, record, fixed, shape):
    content = bytes((i * 37 + 11) % 256 for i in range(48))
    with Pipeline(_files(tmp_path, content)) as pipeline:
        params = DecodeParams(dtype=dtype, little_endian=order, record_size=record,
                              fixed_length=fixed, shape=shape)
        for spec in (None, Slice(lambda a: a[..., ::-2])):
            result = pipeline.run(params, spec)
            _check_every_element(result, [content])


def test_out_of_range_indices(tmp_path):
    with Pipeline(_files(tmp_path, bytes(8))) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint16"))
        with pytest.raises(IndexError):
            result.byte_offset((4,))
        with pytest.raises(IndexError):
            result.byte_offset((-5,))
        with pytest.raises(IndexError):
            result.byte_offset((0, 0))
        with pytest.raises(IndexError):
            result.element_at_byte(1, 0)
        assert result.element_at_byte(0, 8) is None
        assert result.element_at_byte(0, -1) is None


def test_a_slice_returning_a_copy_has_no_byte_offsets(tmp_path):
    with Pipeline(_files(tmp_path, bytes(8))) as pipeline:
        result = pipeline.run(DecodeParams(), Slice(lambda a: a[[0, 2]]))
        assert not result.zero_copy
        with pytest.raises(CoreError, match="returned a copy") as info:
            result.byte_offset((0,))
        assert info.value.field == "slice"
