"""load_buffer / wrap: by reference, shared both ways, copy-on-write (docs/semantics.md §6).

Every promise is observed through the caller's own memory: ``np.shares_memory``, the caller's
bytes after a write, and the hash of a memory-mapped file.
"""

from __future__ import annotations

import hashlib
import struct

import numpy as np
import pytest

from core.dtypes.data_type import DataType
from core.errors import IllegalArgumentError
from core.tflite.tensor_buffer import TensorBuffer

BYTE_SIZE = "The size of byte buffer and the shape do not match. Expected: "


def floats_le(*values: float) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


# -------------------------------------------------------------------------- byte layout
def test_bytes_are_little_endian_elements():
    buffer = TensorBuffer.create_fixed_size((2,), DataType.FLOAT32)
    buffer.load_buffer(floats_le(1.5, -2.0))
    assert buffer.get_float_array().tolist() == [1.5, -2.0]
    shorts = TensorBuffer.create_fixed_size((2,), DataType.INT16)
    shorts.load_buffer(b"\x01\x02\xff\xff")
    assert shorts.get_int_array().tolist() == [513, -1]
    assert shorts.array.dtype.byteorder in ("<", "=")


def test_size_mismatch_message_is_tflites_with_a_fix():
    buffer = TensorBuffer.create_fixed_size((2, 3), DataType.FLOAT32)
    with pytest.raises(IllegalArgumentError) as caught:
        buffer.load_buffer(bytes(20))
    message = str(caught.value)
    assert message.startswith(BYTE_SIZE + "24 Actual: 20 (")
    assert message.endswith(")")
    assert caught.value.field == "shape"


def test_fixed_buffer_requires_its_shape_dynamic_adopts_any():
    fixed = TensorBuffer.create_fixed_size((2, 3), DataType.FLOAT32)
    fixed.load_buffer(bytes(24))
    fixed.load_buffer(bytes(24), (2, 3))
    with pytest.raises(IllegalArgumentError, match=r"^Cannot load shape \(3, 2\) into a fixed"):
        fixed.load_buffer(bytes(24), (3, 2))
    assert fixed.shape == (2, 3)
    dynamic = TensorBuffer.create_dynamic(DataType.FLOAT32)
    with pytest.raises(IllegalArgumentError, match=r"Expected: 0 Actual: 24 \("):
        dynamic.load_buffer(bytes(24))  # the current shape (0,) holds no bytes
    dynamic.load_buffer(floats_le(*range(6)), (3, 2))
    assert (dynamic.shape, dynamic.flat_size) == ((3, 2), 6)
    assert dynamic.array.tolist() == [[0, 1], [2, 3], [4, 5]]
    dynamic.load_buffer(floats_le(7, 8), (2,))
    with pytest.raises(IllegalArgumentError, match=r"Expected: 8 Actual: 12"):
        dynamic.load_buffer(bytes(12))
    dynamic.load_buffer(bytes(12), (3,))
    assert dynamic.shape == (3,)
    with pytest.raises(IllegalArgumentError, match=r"^Values in TensorBuffer shape should be"):
        dynamic.load_buffer(bytes(12), (-3,))


@pytest.mark.parametrize(
    ("bad", "error", "pattern"),
    [
        (None, TypeError, r"^Byte buffer cannot be null\. \("),
        ("abcd", IllegalArgumentError, r"not str"),
        ([1, 2, 3, 4], IllegalArgumentError, r"not list"),
        (np.zeros(1, np.float32), IllegalArgumentError, r"use TensorBuffer\.wrap"),
        (np.zeros(8, np.uint8)[::2], IllegalArgumentError, r"not C-contiguous"),
        (memoryview(bytes(8))[::2], IllegalArgumentError, r"not C-contiguous"),
    ],
)
def test_bad_byte_buffers(bad, error, pattern):
    buffer = TensorBuffer.create_fixed_size((4,), DataType.UINT8)
    with pytest.raises(error, match=pattern):
        buffer.load_buffer(bad)
    assert buffer.array.tolist() == [0, 0, 0, 0] and not buffer.is_copy_on_write


def test_any_contiguous_bytes_like_object():
    import array

    words = array.array("H", [1, 2])  # 4 bytes: 01 00 02 00
    buffer = TensorBuffer.create_fixed_size((1,), DataType.INT32)
    buffer.load_buffer(words)
    assert buffer.get_int_array().tolist() == [0x00020001]
    matrix = np.arange(8, dtype=np.uint8).reshape(2, 4)
    buffer.load_buffer(matrix[1])  # 4 5 6 7
    assert buffer.get_int_array().tolist() == [0x07060504]


# --------------------------------------------------------------------- writable: shared
def test_bytearray_is_shared_both_ways_until_a_resize():
    memory = bytearray(floats_le(1.0, 2.0))
    buffer = TensorBuffer.create_dynamic(DataType.FLOAT32)
    buffer.load_buffer(memory, (2,))
    caller = np.frombuffer(memory, dtype="<f4")
    assert np.shares_memory(buffer.array, caller) and not buffer.is_copy_on_write
    memory[0:4] = floats_le(5.0)  # the caller writes, the buffer sees it
    assert buffer.get_float_array().tolist() == [5.0, 2.0]
    buffer.load_array(np.array([7.0, 8.0], np.float32))  # same flat size: written into memory
    assert bytes(memory) == floats_le(7.0, 8.0)
    buffer.load_array(np.array([1.0, 2.0], np.float32), (2, 1))  # reshape, still shared
    assert bytes(memory) == floats_le(1.0, 2.0) and buffer.shape == (2, 1)
    buffer.load_array(np.array([3.0, 4.0, 5.0], np.float32), (3,))  # resize: detached
    assert bytes(memory) == floats_le(1.0, 2.0)
    assert not np.shares_memory(buffer.array, caller)
    assert buffer.get_float_array().tolist() == [3.0, 4.0, 5.0]


def test_fixed_buffer_writes_into_a_writable_numpy_array():
    memory = np.zeros(8, dtype=np.uint8)
    buffer = TensorBuffer.create_fixed_size((2,), DataType.INT32)
    buffer.load_buffer(memory)
    assert np.shares_memory(buffer.array, memory)
    buffer.load_array([1, -1])
    assert memory.tolist() == [1, 0, 0, 0, 255, 255, 255, 255]
    assert np.shares_memory(buffer.buffer, memory)  # the raw-bytes view is the caller's memory


def test_writable_memoryview_is_shared():
    memory = bytearray(4)
    buffer = TensorBuffer.create_fixed_size((4,), DataType.UINT8)
    buffer.load_buffer(memoryview(memory))
    buffer.load_array([300, -5, 7.9, 255])
    assert bytes(memory) == bytes([255, 0, 7, 255])


# ------------------------------------------------------------------ read-only: copy-on-write
@pytest.mark.parametrize(
    "make", [bytes, lambda b: memoryview(bytearray(b)).toreadonly()], ids=["bytes", "readonly-view"]
)
def test_read_only_sources_are_copy_on_write(make):
    source = make(floats_le(1.0, 2.0, 3.0))
    original = bytes(source)
    buffer = TensorBuffer.create_fixed_size((3,), DataType.FLOAT32)
    buffer.load_buffer(source)
    caller = np.frombuffer(source, dtype="<f4")
    assert np.shares_memory(buffer.array, caller)  # shared for reading
    assert buffer.is_copy_on_write
    assert not buffer.array.flags.writeable and not buffer.buffer.flags.writeable
    assert buffer.get_float_array().tolist() == [1.0, 2.0, 3.0]
    buffer.load_array(np.array([4.0, 5.0, 6.0], np.float32))  # first write: private copy
    assert bytes(source) == original
    assert not np.shares_memory(buffer.array, caller)
    assert not buffer.is_copy_on_write and buffer.array.flags.writeable
    assert buffer.get_float_array().tolist() == [4.0, 5.0, 6.0]


def test_read_only_view_of_writable_memory_is_never_written():
    memory = bytearray(floats_le(1.0, 2.0))
    buffer = TensorBuffer.create_fixed_size((2,), DataType.FLOAT32)
    buffer.load_buffer(memoryview(memory).toreadonly())
    memory[0:4] = floats_le(9.0)  # the caller may still write its own memory
    assert buffer.get_float_array().tolist() == [9.0, 2.0]
    buffer.load_array(np.array([3.0, 4.0], np.float32))
    assert bytes(memory) == floats_le(9.0, 2.0)


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_read_only_memmap_is_never_written(tmp_path):
    path = tmp_path / "tensor.bin"
    path.write_bytes(floats_le(1.0, 2.0, 3.0, 4.0))
    before = digest(path)
    mapped = np.memmap(path, mode="r", dtype=np.uint8)
    buffer = TensorBuffer.create_fixed_size((2, 2), DataType.FLOAT32)
    buffer.load_buffer(mapped)
    assert np.shares_memory(buffer.array, mapped) and buffer.is_copy_on_write
    assert buffer.array.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    buffer.load_array(np.array([9.0, 9.0, 9.0, 9.0], np.float32))
    assert not np.shares_memory(buffer.array, mapped)
    assert mapped.tobytes() == floats_le(1.0, 2.0, 3.0, 4.0)
    del mapped
    assert digest(path) == before


# -------------------------------------------------------------------------------- wrap
def test_wrap_of_a_big_endian_memmap_view_is_zero_copy(tmp_path):
    path = tmp_path / "waves_be.bin"
    header = b"HDR!"
    path.write_bytes(header + struct.pack(">6f", 1.5, -2.25, 254.9, 255.5, -0.5, 1e20))
    before = digest(path)
    mapped = np.memmap(path, mode="r", dtype=np.uint8)
    view = mapped[4:].view(">f4").reshape(2, 3)
    buffer = TensorBuffer.wrap(view)
    assert buffer.data_type is DataType.FLOAT32 and buffer.is_dynamic
    assert buffer.shape == (2, 3) and buffer.flat_size == 6
    assert np.shares_memory(buffer.array, mapped)
    assert buffer.array.dtype == np.dtype(">f4")
    assert type(buffer.array) is np.ndarray
    assert buffer.get_float_array().tolist() == np.array(
        [1.5, -2.25, 254.9, 255.5, -0.5, 1e20], np.float32
    ).tolist()
    assert buffer.get_int_array().tolist() == [1, -2, 254, 255, 0, 2147483647]
    assert buffer.get_float_value(2) == np.float32(254.9)
    assert buffer.is_copy_on_write
    assert buffer.buffer.tobytes() == path.read_bytes()[4:]  # raw bytes, big-endian, no copy
    assert np.shares_memory(buffer.buffer, mapped)
    as_uint8 = TensorBuffer.create_from(buffer, DataType.UINT8)
    assert as_uint8.array.tolist() == [[1, 0, 254], [255, 0, 255]]
    buffer.load_array(np.zeros(6, np.float32), (3, 2))
    assert not np.shares_memory(buffer.array, mapped)
    del view, mapped
    assert digest(path) == before


def test_wrap_of_a_writable_big_endian_array_writes_big_endian():
    memory = np.zeros(2, dtype=">i4")
    buffer = TensorBuffer.wrap(memory, fixed=True)
    assert not buffer.is_dynamic
    buffer.load_array([1, -2])
    assert memory.tobytes() == b"\x00\x00\x00\x01\xff\xff\xff\xfe"
    assert np.shares_memory(buffer.array, memory)
    memory[0] = 300
    assert buffer.get_int_value(0) == 300
    with pytest.raises(IllegalArgumentError, match=r"^Cannot load shape"):
        buffer.load_array([1, 2], (1, 2))


def test_wrap_keeps_any_type_and_rejects_non_arrays():
    for data_type in DataType:
        if data_type is DataType.STRING:
            continue
        array = np.ones((2, 1), dtype=data_type.numpy_dtype)
        buffer = TensorBuffer.wrap(array)
        assert buffer.data_type is data_type and buffer.shape == (2, 1)
        assert np.shares_memory(buffer.array, array)
    with pytest.raises(TypeError, match=r"^The array to wrap cannot be null"):
        TensorBuffer.wrap(None)
    with pytest.raises(TypeError, match=r"not list"):
        TensorBuffer.wrap([1, 2])
    with pytest.raises(IllegalArgumentError, match=r"Unknown data type"):
        TensorBuffer.wrap(np.array([object()]))


def test_wrap_of_a_strided_array_detaches_when_it_cannot_reshape_in_place():
    base = np.zeros((4, 4), dtype=np.float32)
    strided = base[:, :2]  # element (i, j) at byte 16 i + 4 j: no single stride covers it
    buffer = TensorBuffer.wrap(strided)
    buffer.load_array(np.ones(8, np.float32))  # same shape: written in place
    assert base[:, :2].tolist() == [[1, 1]] * 4 and base[:, 2:].tolist() == [[0, 0]] * 4
    buffer.load_array(np.full(8, 2, np.float32), (2, 4))  # numpy cannot view it as (2, 4)
    assert buffer.shape == (2, 4) and buffer.get_float_array().tolist() == [2] * 8
    assert base[:, :2].tolist() == [[1, 1]] * 4  # detached, the caller is untouched
    assert not np.shares_memory(buffer.array, base)


def test_array_is_a_view_without_copy():
    buffer = TensorBuffer.create_fixed_size((2, 2), DataType.UINT8)
    view = buffer.array
    view[0, 1] = 9
    assert buffer.get_int_value(1) == 9
    view.shape = (4,)  # changing the returned view's shape does not change the buffer
    assert buffer.shape == (2, 2) and buffer.array.shape == (2, 2)
