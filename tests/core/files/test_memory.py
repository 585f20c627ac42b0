"""In-memory sources (core/files/memory.py): every kind of object, zero copy, names, errors, and
the features that work on files (provenance, statistics, export, compare) on them too."""

import numpy as np
import pytest

from core.compare.scanner import compare_results
from core.errors import SourceError
from core.export.arrays import export_view
from core.files.memory import MemorySource, is_in_memory, open_memory
from core.pipeline.pipeline import DecodeParams, Pipeline
from core.scan.statistics import compute_statistics
from core.slicing.expr import parse_slice


class WithArray:
    """Like a PyTorch tensor: converted by numpy through ``__array__``."""

    def __init__(self, values):
        self._values = values

    def __array__(self, dtype=None, copy=None):
        return self._values


class WithNumpy:
    """Like a TensorFlow eager tensor: ``.numpy()`` gives the values."""

    def __init__(self, values):
        self._values = values

    def numpy(self):
        return self._values


def run(target, slice_text=None, **params):
    return Pipeline(target).run(DecodeParams(**params), parse_slice(slice_text) if slice_text else None)


def test_bytes_are_one_scalar_string_viewed_without_a_copy():
    data = b"\x01\x00\x02\x00\x03\x00"
    result = run(data, dtype="int16")
    assert result.view.tolist() == [1, 2, 3]
    assert result.zero_copy is True
    assert result.input_shape == ()
    assert result.steps[0].startswith("source: '<bytes>' (6 bytes), data from byte 0")
    assert result.byte_offset(2) == (0, 4, 2)
    assert result.element_at_byte(0, 3) == (1,)


def test_bytearray_is_viewed_read_only_and_a_change_shows_at_the_next_run():
    data = bytearray(b"\x01\x02\x03\x04")
    pipeline = Pipeline(data)
    first = pipeline.run(DecodeParams())
    assert first.view.tolist() == [1, 2, 3, 4]
    assert first.view.flags.writeable is False  # never written through
    assert np.shares_memory(first.view, np.frombuffer(data, np.uint8))
    data[0] = 9  # the caller's buffer stays theirs to change
    assert pipeline.run(DecodeParams()).view.tolist() == [9, 2, 3, 4]
    with pytest.raises(BufferError):
        data.extend(b"more")  # Python refuses to resize a viewed buffer: no dangling view


def test_memoryview_of_floats_is_read_as_its_raw_bytes():
    values = np.array([1.5, -2.0], dtype=np.float32)
    result = run(memoryview(values), dtype="float32")
    assert result.view.tolist() == [1.5, -2.0]
    assert result.steps[0].startswith("source: '<memoryview>' (8 bytes)")
    assert run(memoryview(values)).view.shape == (8,)


def test_non_contiguous_memoryview_is_copied_in_order():
    result = run(memoryview(b"abcdef")[::2])
    assert bytes(result.view) == b"ace"


def test_list_of_bytes_is_a_batch_like_decode_raw_input():
    result = run([b"\x01\x00\x02\x00", b"\x03\x00\x04\x00"], dtype="uint16")
    assert result.view.tolist() == [[1, 2], [3, 4]]
    assert result.input_shape == (2,)
    assert "2 buffers ('<list[0]: bytes>', '<list[1]: bytes>')" in result.steps[0]
    assert result.byte_offset((1, 1)) == (1, 2, 2)  # buffer 1, its bytes 2..3


def test_batch_of_unequal_lengths_needs_fixed_length():
    with pytest.raises(Exception, match="DecodeRaw requires input strings to all be the same size"):
        run([b"ab", b"abc"])
    assert run([b"ab", b"abc"], fixed_length=3).view.tolist() == [[97, 98, 0], [97, 98, 99]]


@pytest.mark.parametrize("dtype, name", [
    ("float32", "float32"), (">f8", "float64"), ("int8", "int8"), ("uint16", "uint16"),
    ("complex64", "complex64"), ("bool", "bool"), ("int64", "int64"),
])
def test_numpy_arrays_are_shown_as_is(dtype, name):
    array = (np.arange(12) % 5).astype(dtype).reshape(3, 4)
    result = run(array)
    assert result.view.dtype.name == np.dtype(dtype).name
    np.testing.assert_array_equal(result.view, array)
    assert result.params.dtype == name
    assert result.from_header == {"dtype", "little_endian", "offset", "shape"}
    assert f"'<numpy {name} (3, 4)>'" in result.steps[0]
    assert "(array's dtype and shape)" in result.steps[0]


def test_a_little_endian_array_is_a_view_and_slices_like_numpy():
    array = np.arange(24, dtype=np.float32).reshape(4, 6)
    result = run(array, "[1:, ::2]")
    np.testing.assert_array_equal(result.view, array[1:, ::2])
    assert result.zero_copy is True
    assert np.shares_memory(result.view, array)
    assert result.byte_offset((0, 1)) == (0, (6 + 2) * 4, 4)  # array[1, 2]


def test_decode_options_read_an_arrays_raw_bytes():
    array = np.array([[1, 256]], dtype="<u2")
    assert run(array, dtype="uint8").view.tolist() == [1, 0, 0, 1]
    assert run(array, dtype="uint16", little_endian=False).view.tolist() == [[256, 1]]


def test_non_contiguous_and_fortran_arrays_are_copied_in_c_order():
    array = np.arange(12, dtype=np.int32).reshape(3, 4)
    np.testing.assert_array_equal(run(array[:, ::2]).view, array[:, ::2])
    np.testing.assert_array_equal(run(np.asfortranarray(array)).view, array)


def test_arrays_of_bytes_are_batches_like_tf_string_tensors():
    strings = np.array([b"\x01\x02", b"\x03\x04"], dtype=object)
    assert run(strings).view.tolist() == [[1, 2], [3, 4]]
    assert run(np.array([b"ab", b"cd"], dtype="S2")).view.tolist() == [[97, 98], [99, 100]]


def test_types_decode_raw_does_not_know_are_shown_as_raw_bytes():
    result = run(np.array(["a"], dtype="<U1"))
    assert result.view.tolist() == [97, 0, 0, 0]
    assert result.from_header == frozenset()


def test_objects_with_array_or_numpy_are_converted_without_their_library():
    values = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    for target, name in ((WithArray(values), "WithArray"), (WithNumpy(values), "WithNumpy")):
        result = run(target)
        np.testing.assert_array_equal(result.view, values)
        assert f"'<{name} float32 (2, 2)>'" in result.steps[0]
        assert result.zero_copy is True


def test_is_in_memory_tells_objects_from_paths(tmp_path):
    assert is_in_memory(b"x") and is_in_memory([b"a", b"b"]) and is_in_memory(np.zeros(2))
    assert is_in_memory(WithNumpy(np.zeros(1)))
    assert not is_in_memory("a.bin") and not is_in_memory(tmp_path) and not is_in_memory(["a", "b"])


@pytest.mark.parametrize("target, message", [
    (42, r"cannot show a int \(give bytes"),
    ([], "the list is empty"),
    ([b"a", 3], "item 1 of the list is a int, not bytes"),
    (np.array([1, "x"], dtype=object), "item 0 of the numpy array of Python objects is a int"),
])
def test_objects_that_cannot_be_shown_are_refused_with_the_fix(target, message):
    with pytest.raises(SourceError, match=message) as caught:
        open_memory(target)
    assert caught.value.field == "files"


def test_a_failing_conversion_is_a_source_error():
    class Broken:
        def numpy(self):
            raise RuntimeError("on the GPU")

    with pytest.raises(SourceError, match=r"Broken.numpy\(\) failed: on the GPU \(convert it"):
        open_memory(Broken())


def test_offset_past_the_end_names_the_buffer():
    with pytest.raises(SourceError, match="offset 9 is past the end of '<bytes>' \\(4 bytes\\)"):
        run(b"abcd", offset=9)


def test_the_source_interface_matches_files():
    source = open_memory(b"abcdef")
    assert isinstance(source, MemorySource)
    assert source.on_disk is False and source.paths == ("<bytes>",)
    assert source.bytes_at(0, 2, 3) == b"cde"
    assert source.bytes_at(0, 5, 10) == b"f"
    assert source.mapped_ranges() == ()
    assert source.changes() == ()
    source.check_unchanged()
    assert source.reopen().paths == ("<bytes>",)
    source.close()
    assert source.closed
    with pytest.raises(SourceError, match="closed"):
        source.check_unchanged()


def test_statistics_export_and_compare_work_on_memory(tmp_path):
    values = np.array([1.0, 2.0, 3.0, 6.0], dtype=np.float32)
    result = run(values)
    stats = compute_statistics(result.view, reader=result.block_reader())
    assert (stats.count, stats.min, stats.max, stats.mean) == (4, 1.0, 6.0, 3.0)
    out = tmp_path / "out.npy"
    export_view(result.view, out, "npy", reader=result.block_reader())
    np.testing.assert_array_equal(np.load(out), values)
    other = run(values + np.float32(1))
    assert compare_results(result, other).mismatched == 4
    assert compare_results(result, run(values.copy())).mismatched == 0


def test_code_snippets_say_an_object_in_memory_has_no_file_to_read():
    from core.errors import ExportError
    from core.export.code_snippets import numpy_snippet

    pipeline = Pipeline(np.arange(4, dtype=np.float32))
    with pytest.raises(ExportError, match=r"<numpy float32 \(4,\)> is an object in memory \(save it"):
        numpy_snippet(pipeline.source, pipeline.run(DecodeParams()))
