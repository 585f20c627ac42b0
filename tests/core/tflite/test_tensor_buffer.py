"""TensorBuffer: the seed examples, factories, shapes and loading rules (docs/semantics.md §6).

The seeds are TFLite Support's Java ``TensorBuffer`` page (seeds 000 and 001). Their dynamic
example quotes ``The size of byte buffer and the shape do not match.`` for a wrong-length
``loadArray``; the real message (docs/semantics.md §6) is ``The size of the array to be loaded does not match
the specified shape.``
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.dtypes.data_type import DataType
from core.errors import CoreError, IllegalArgumentError, TensorBufferError
from core.tflite.tensor_buffer import TensorBuffer

ARRAY_SIZE = "The size of the array to be loaded does not match the specified shape. ("
NON_NEGATIVE = "Values in TensorBuffer shape should be non-negative. ("
FIXED = "Cannot load shape"


def state(buffer: TensorBuffer) -> tuple:
    """Everything observable about a buffer, to prove a failed call changed nothing."""
    return (
        buffer.shape,
        buffer.flat_size,
        buffer.is_dynamic,
        buffer.data_type,
        buffer.is_copy_on_write,
        buffer.array.dtype.str,
        buffer.buffer.tobytes(),
        buffer.array.__array_interface__["data"][0],
    )


# ------------------------------------------------------------------------------- seeds
def test_seed_dynamic_example():
    buffer = TensorBuffer.create_dynamic(DataType.FLOAT32)
    assert buffer.shape == (0,)
    buffer.load_array(np.array([1, 2, 3], np.float32), [3])
    assert buffer.shape == (3,)
    buffer.load_array(np.array([1, 2, 3, 4, 5], np.float32), [5])
    assert buffer.shape == (5,)
    buffer.load_array(np.array([5, 4, 3, 2, 1], np.float32))
    assert buffer.get_float_array().tolist() == [5, 4, 3, 2, 1]
    before = state(buffer)
    with pytest.raises(IllegalArgumentError) as caught:
        buffer.load_array(np.array([3, 2, 1], np.float32))
    assert str(caught.value).startswith(ARRAY_SIZE)  # not the seed's "byte buffer" message
    assert state(buffer) == before


def test_seed_fixed_size_examples():
    matrix = TensorBuffer.create_fixed_size([2, 3], DataType.FLOAT32)
    assert (matrix.shape, matrix.flat_size, matrix.is_dynamic) == ((2, 3), 6, False)
    assert matrix.get_float_array().tolist() == [0.0] * 6
    scalar = TensorBuffer.create_fixed_size([], DataType.UINT8)
    assert (scalar.shape, scalar.flat_size) == ((), 1)
    assert scalar.get_int_array().tolist() == [0]
    empty = TensorBuffer.create_fixed_size([0], DataType.UINT8)
    assert (empty.shape, empty.flat_size) == ((0,), 0)
    assert empty.get_int_array().tolist() == []


def test_seed_get_value_examples():
    buffer = TensorBuffer.create_fixed_size([2, 3], DataType.FLOAT32)
    buffer.load_array(np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], np.float32))
    assert buffer.get_float_value(3) == 3.0
    assert buffer.get_int_value(3) == 3
    assert isinstance(buffer.get_float_value(3), float)
    assert isinstance(buffer.get_int_value(3), int)


def test_seed_float_to_int_example():
    buffer = TensorBuffer.create_fixed_size([2], DataType.FLOAT32)
    buffer.load_array(np.array([400.32, 23.04], np.float32))
    assert buffer.get_int_array().tolist() == [400, 23]


@pytest.mark.parametrize("with_shape", [False, True])
def test_seed_uint8_clamping_examples(with_shape):
    shape = [2] if with_shape else None
    buffer = TensorBuffer.create_fixed_size([2], DataType.UINT8)
    buffer.load_array(np.array([400, -23], np.int32), shape)
    assert buffer.get_int_array().tolist() == [255, 0]
    buffer.load_array(np.array([400.32, -23.04], np.float32), shape)
    assert buffer.get_int_array().tolist() == [255, 0]
    assert buffer.get_float_array().tolist() == [255.0, 0.0]


def test_seed_type_sizes():
    assert TensorBuffer.create_dynamic(DataType.FLOAT32).type_size == 4
    assert TensorBuffer.create_dynamic(DataType.UINT8).type_size == 1
    assert TensorBuffer.create_dynamic("complex128").type_size == 16
    assert TensorBuffer.create_dynamic("bfloat16").type_size == 2


# --------------------------------------------------------------------------- factories
def test_constructor_is_private():
    with pytest.raises(TypeError, match=r"create_fixed_size"):
        TensorBuffer()


@pytest.mark.parametrize("data_type", [m for m in DataType if m is not DataType.STRING], ids=str)
def test_every_numeric_type_is_supported(data_type):
    buffer = TensorBuffer.create_fixed_size((2, 2), data_type)
    assert buffer.array.dtype == data_type.numpy_dtype
    assert buffer.data_type is data_type
    assert buffer.buffer.tobytes() == bytes(4 * data_type.type_size)
    buffer.load_array([1, 0, 1, 0])
    assert buffer.get_int_array().tolist() == [1, 0, 1, 0]


def test_string_is_refused_everywhere():
    for factory in (
        lambda: TensorBuffer.create_fixed_size((1,), DataType.STRING),
        lambda: TensorBuffer.create_dynamic("string"),
        lambda: TensorBuffer.create_from(TensorBuffer.create_dynamic("uint8"), DataType.STRING),
        lambda: TensorBuffer.wrap(np.array([b"ab"])),
    ):
        with pytest.raises(IllegalArgumentError, match=r"does not support data type: STRING \("):
            factory()


@pytest.mark.parametrize("shape", [(-1,), (2, -3), [0, -1]])
def test_negative_shape_is_refused(shape):
    with pytest.raises(IllegalArgumentError) as caught:
        TensorBuffer.create_fixed_size(shape, DataType.FLOAT32)
    assert str(caught.value).startswith(NON_NEGATIVE)
    assert caught.value.field == "shape"


def test_shapes_accept_ints_of_any_kind():
    assert TensorBuffer.create_fixed_size(np.array([2, 3]), "uint8").shape == (2, 3)
    assert TensorBuffer.create_fixed_size(4, "uint8").shape == (4,)
    assert TensorBuffer.create_fixed_size((np.int64(2), 1), "uint8").shape == (2, 1)
    assert all(type(n) is int for n in TensorBuffer.create_fixed_size(np.array([2]), "uint8").shape)
    with pytest.raises(TypeError):
        TensorBuffer.create_fixed_size((2.0,), "uint8")
    with pytest.raises(TypeError):
        TensorBuffer.create_fixed_size(None, "uint8")


def test_zero_sized_dimensions():
    buffer = TensorBuffer.create_fixed_size((3, 0, 2), DataType.FLOAT32)
    assert buffer.flat_size == 0 and buffer.array.shape == (3, 0, 2)
    buffer.load_array([])
    buffer.load_buffer(b"")
    assert buffer.get_float_array().tolist() == []


def test_shape_is_a_tuple_the_caller_cannot_change_the_buffer_through():
    shape = [2, 3]
    buffer = TensorBuffer.create_fixed_size(shape, DataType.FLOAT32)
    shape[0] = 7
    assert buffer.shape == (2, 3)
    got = buffer.shape
    assert isinstance(got, tuple)
    got += (1,)
    assert buffer.shape == (2, 3)


def test_create_from_is_a_deep_copy_of_the_same_kind():
    fixed = TensorBuffer.create_fixed_size((2, 2), DataType.FLOAT32)
    fixed.load_array(np.array([1.5, -2.5, 300.7, 4], np.float32))
    copy = TensorBuffer.create_from(fixed, DataType.UINT8)
    assert (copy.shape, copy.is_dynamic, copy.data_type) == ((2, 2), False, DataType.UINT8)
    assert copy.array.tolist() == [[1, 0], [255, 4]]
    same = TensorBuffer.create_from(fixed, "float32")
    assert not np.shares_memory(same.array, fixed.array)
    fixed.load_array([9, 9, 9, 9])
    assert same.get_float_array().tolist() == [1.5, -2.5, np.float32(300.7), 4]
    dynamic = TensorBuffer.create_dynamic(DataType.UINT8)
    dynamic.load_array([1, 2, 3], (3, 1))
    dynamic_copy = TensorBuffer.create_from(dynamic, DataType.FLOAT32)
    assert (dynamic_copy.shape, dynamic_copy.is_dynamic) == ((3, 1), True)
    dynamic_copy.load_array([1.0, 2.0], (2,))  # still resizable
    with pytest.raises(TypeError, match=r"Cannot create a buffer from null\. \("):
        TensorBuffer.create_from(None, DataType.FLOAT32)
    with pytest.raises(TypeError, match=r"not ndarray"):
        TensorBuffer.create_from(np.zeros(2), DataType.FLOAT32)


# ---------------------------------------------------------------------- load_array rules
def test_fixed_buffer_accepts_only_its_own_shape():
    buffer = TensorBuffer.create_fixed_size((2, 3), DataType.FLOAT32)
    buffer.load_array(np.arange(6, dtype=np.float32))
    buffer.load_array(np.arange(6, dtype=np.float32) + 1, (2, 3))
    before = state(buffer)
    for shape in [(3, 2), (6,), (1, 2, 3)]:
        with pytest.raises(IllegalArgumentError) as caught:
            buffer.load_array(np.zeros(6, np.float32), shape)
        assert str(caught.value).startswith(FIXED) and "create_dynamic" in str(caught.value)
        assert state(buffer) == before
    with pytest.raises(IllegalArgumentError) as caught:
        buffer.load_array(np.zeros(5, np.float32))
    assert str(caught.value).startswith(ARRAY_SIZE)
    with pytest.raises(IllegalArgumentError) as caught:
        buffer.load_array(np.zeros(5, np.float32), (2, 3))
    assert str(caught.value).startswith(ARRAY_SIZE)
    assert state(buffer) == before
    assert buffer.get_float_array().tolist() == [1, 2, 3, 4, 5, 6]


def test_dynamic_buffer_reallocates_only_when_the_flat_size_changes():
    buffer = TensorBuffer.create_dynamic(DataType.INT16)
    buffer.load_array([1, 2, 3, 4, 5, 6], (2, 3))
    storage = buffer.array
    buffer.load_array([6, 5, 4, 3, 2, 1], (3, 2))  # same flat size: same memory, new shape
    assert buffer.shape == (3, 2) and np.shares_memory(buffer.array, storage)
    assert storage.tolist() == [[6, 5, 4], [3, 2, 1]]
    buffer.load_array([7, 8, 9, 10, 11, 12], (6,))
    assert np.shares_memory(buffer.array, storage)
    buffer.load_array([1, 2], (2,))  # new flat size: new memory
    assert not np.shares_memory(buffer.array, storage)
    assert (buffer.shape, buffer.flat_size) == ((2,), 2)
    buffer.load_array([3, 4])  # no shape: the current one
    assert buffer.array.tolist() == [3, 4]
    before = state(buffer)
    with pytest.raises(IllegalArgumentError) as caught:
        buffer.load_array([1, 2, 3])
    assert str(caught.value).startswith(ARRAY_SIZE) and "pass shape=" in str(caught.value)
    with pytest.raises(IllegalArgumentError) as caught:
        buffer.load_array([1, 2, 3], (2, 2))
    assert str(caught.value).startswith(ARRAY_SIZE)
    with pytest.raises(IllegalArgumentError) as caught:
        buffer.load_array([1, 2, 3], (-1, -3))
    assert str(caught.value).startswith(NON_NEGATIVE)
    assert state(buffer) == before


def test_new_dynamic_buffer_needs_a_shape_for_values():
    buffer = TensorBuffer.create_dynamic(DataType.FLOAT32)
    buffer.load_array([])  # flat size 0 matches
    with pytest.raises(IllegalArgumentError, match=r"^The size of the array"):
        buffer.load_array([1.0])


def test_values_are_copied():
    values = np.array([1.0, 2.0], np.float32)
    buffer = TensorBuffer.create_fixed_size((2,), DataType.FLOAT32)
    buffer.load_array(values)
    values[0] = 99
    assert buffer.get_float_array().tolist() == [1.0, 2.0]
    assert not np.shares_memory(buffer.array, values)


def test_nd_values_are_taken_flat():
    buffer = TensorBuffer.create_fixed_size((2, 2), DataType.UINT8)
    buffer.load_array(np.array([[1, 2], [3, 4]]))
    assert buffer.get_int_array().tolist() == [1, 2, 3, 4]
    buffer.load_array([[5, 6], [7, 8]])
    assert buffer.array.tolist() == [[5, 6], [7, 8]]


@pytest.mark.parametrize(
    "values", ["abc", b"ab", ["a", "b"], [[1, 2], [3]], [object(), object()], [2**64, -1]]
)
def test_bad_values_are_refused_without_change(values):
    buffer = TensorBuffer.create_fixed_size((2,), DataType.FLOAT32)
    before = state(buffer)
    with pytest.raises(IllegalArgumentError):
        buffer.load_array(values)
    assert state(buffer) == before


def test_missing_values_are_a_type_error():
    buffer = TensorBuffer.create_fixed_size((2,), DataType.FLOAT32)
    with pytest.raises(TypeError, match=r"^The array to be loaded cannot be null\. \("):
        buffer.load_array(None)


# ------------------------------------------------------------------------------ getters
@pytest.mark.parametrize("index", [-1, 6, 100])
def test_index_out_of_range_is_an_index_error(index):
    buffer = TensorBuffer.create_fixed_size((2, 3), DataType.FLOAT32)
    with pytest.raises(IndexError, match=r"flat size 6 \(use 0 <= index < 6\)"):
        buffer.get_float_value(index)
    with pytest.raises(IndexError):
        buffer.get_int_value(index)


def test_index_must_be_an_integer():
    buffer = TensorBuffer.create_fixed_size((2,), DataType.FLOAT32)
    with pytest.raises(TypeError):
        buffer.get_float_value(1.0)
    assert buffer.get_int_value(np.int64(1)) == 0


def test_getters_of_a_scalar_and_an_empty_buffer():
    scalar = TensorBuffer.create_fixed_size((), DataType.FLOAT64)
    scalar.load_array([-7.9])
    assert scalar.get_int_value(0) == -7 and scalar.get_float_value(0) == np.float32(-7.9)
    assert scalar.get_float_array().shape == (1,)
    empty = TensorBuffer.create_fixed_size((0,), DataType.FLOAT32)
    with pytest.raises(IndexError):
        empty.get_int_value(0)


def test_get_arrays_are_fresh():
    buffer = TensorBuffer.create_fixed_size((2,), DataType.FLOAT32)
    first = buffer.get_float_array()
    first[0] = 5
    assert buffer.get_float_array().tolist() == [0.0, 0.0]
    assert not np.shares_memory(buffer.get_float_array(), buffer.array)
    assert not np.shares_memory(buffer.get_int_array(), buffer.array)


def test_get_value_reads_the_right_element_of_a_strided_wrap():
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    buffer = TensorBuffer.wrap(base[::2, 1::2])  # [[1, 3, 5], [13, 15, 17]]
    assert [buffer.get_int_value(i) for i in range(6)] == [1, 3, 5, 13, 15, 17]
    assert buffer.get_float_array().tolist() == [1, 3, 5, 13, 15, 17]
    assert buffer.buffer.tobytes() == np.array([1, 3, 5, 13, 15, 17], "<f8").tobytes()


# ------------------------------------------------------------------------------- errors
def test_error_hierarchy():
    assert issubclass(IllegalArgumentError, TensorBufferError)
    assert issubclass(TensorBufferError, CoreError) and issubclass(CoreError, ValueError)


def test_repr():
    assert repr(TensorBuffer.create_fixed_size((2, 3), "uint8")) == (
        "TensorBuffer(UINT8, shape=(2, 3), fixed)"
    )
    dynamic = TensorBuffer.create_dynamic("float32")
    assert repr(dynamic) == "TensorBuffer(FLOAT32, shape=(0,), dynamic)"


def test_modules_do_not_import_qt():
    code = (
        "import sys, core.tflite.tensor_buffer, core.tflite.conversions, core.dtypes.data_type;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')];"
        "assert not bad, bad"
    )
    root = Path(__file__).resolve().parents[3]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)


def test_load_array_bytes_hint_points_to_load_buffer():
    buffer = TensorBuffer.create_fixed_size((2,), DataType.UINT8)
    with pytest.raises(IllegalArgumentError, match=r"use load_buffer"):
        buffer.load_array(b"\x01\x02")
