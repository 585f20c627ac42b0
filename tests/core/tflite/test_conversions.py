"""Conversion tables of TensorBuffer (docs/semantics.md §6), every value derived by hand.

Sources: Java's ``loadArray(float[])`` (float32 values), ``loadArray(int[])`` (integers),
``createFrom`` from FLOAT32, UINT8 and extension types, and the two readers
``getIntArray`` / ``getFloatArray``. Floats are compared bit-exactly enough to tell -0.0 from
0.0 and NaN from everything.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from core.dtypes.data_type import DataType
from core.errors import IllegalArgumentError
from core.tflite.conversions import as_value_array, convert_array, convert_to
from core.tflite.tensor_buffer import TensorBuffer

NAN, INF = float("nan"), float("inf")
I32MIN, I32MAX = -2147483648, 2147483647
I64MIN, I64MAX = -9223372036854775808, 9223372036854775807
U32MAX, U64MAX = 4294967295, 18446744073709551615

# The edge values as Java float literals (float32): 0.99f, 254.9f, 1e20f, 16777217f, ... round.
F32_0_99 = 0.9900000095367431640625
F32_254_9 = 254.899993896484375
F32_1E20 = 100000002004087734272.0
FLOAT_LITERALS = [NAN, INF, -INF, -0.0, 0.5, 0.99, 254.9, 255.5, -0.5, 2.5, 1e20, -1e20,
                  16777217, I32MIN, I32MAX, 256, -1]  # fmt: skip
FLOAT_SOURCE = np.array(FLOAT_LITERALS, dtype=np.float32)
# What the float32 array holds (16777217 -> 16777216, INT_MAX -> 2**31):
FLOAT_SOURCE_EXACT = [NAN, INF, -INF, -0.0, 0.5, F32_0_99, F32_254_9, 255.5, -0.5, 2.5, F32_1E20,
                      -F32_1E20, 16777216, -2147483648, 2147483648, 256, -1]  # fmt: skip

#            NaN  +Inf     -Inf    -0.0 0.5 .99 254.9 255.5 -.5 2.5  1e20    -1e20   16777217
#            INT_MIN  INT_MAX(2**31)  256  -1
FLOAT_TO_INTEGER = {
    DataType.UINT8: [0, 255, 0, 0, 0, 0, 254, 255, 0, 2, 255, 0, 255, 0, 255, 255, 0],
    DataType.INT8: [0, 127, -128, 0, 0, 0, 127, 127, 0, 2, 127, -128, 127, -128, 127, 127, -1],
    DataType.INT16: [0, 32767, -32768, 0, 0, 0, 254, 255, 0, 2, 32767, -32768, 32767, -32768,
                     32767, 256, -1],
    DataType.INT32: [0, I32MAX, I32MIN, 0, 0, 0, 254, 255, 0, 2, I32MAX, I32MIN, 16777216, I32MIN,
                     I32MAX, 256, -1],
    DataType.INT64: [0, I64MAX, I64MIN, 0, 0, 0, 254, 255, 0, 2, I64MAX, I64MIN, 16777216, I32MIN,
                     2147483648, 256, -1],
    DataType.UINT16: [0, 65535, 0, 0, 0, 0, 254, 255, 0, 2, 65535, 0, 65535, 0, 65535, 256, 0],
    DataType.UINT32: [0, U32MAX, 0, 0, 0, 0, 254, 255, 0, 2, U32MAX, 0, 16777216, 0, 2147483648,
                      256, 0],
    DataType.UINT64: [0, U64MAX, 0, 0, 0, 0, 254, 255, 0, 2, U64MAX, 0, 16777216, 0, 2147483648,
                      256, 0],
    DataType.BOOL: [False, True, False, False, False, False, True, True, False, True, True, False,
                    True, False, True, True, False],
}  # fmt: skip

FLOAT_TO_FLOAT = {
    DataType.FLOAT32: FLOAT_SOURCE_EXACT,
    DataType.FLOAT64: FLOAT_SOURCE_EXACT,
    # half: 11-bit significand, max 65504; 0.99f -> 2028/2048, 254.9f -> 2039/8.
    DataType.FLOAT16: [NAN, INF, -INF, -0.0, 0.5, 0.990234375, 254.875, 255.5, -0.5, 2.5, INF, -INF,
                       INF, -INF, INF, 256, -1],
    # bfloat16: 8-bit significand; 0.99f -> 253/256, 254.9f -> 255, 255.5 ties to 256,
    # 1e20f -> 173 * 2**59.
    DataType.BFLOAT16: [NAN, INF, -INF, -0.0, 0.5, 0.98828125, 255, 256, -0.5, 2.5,
                        99727710148492263424.0, -99727710148492263424.0, 16777216, -2147483648,
                        2147483648, 256, -1],
}  # fmt: skip

INT_SOURCE = [0, 1, -1, 2, 255, 256, 16777217, I32MIN, I32MAX, 2**40, -(2**40)]
INT_TO = {
    DataType.UINT8: [0, 1, 0, 2, 255, 255, 255, 0, 255, 255, 0],
    DataType.INT8: [0, 1, -1, 2, 127, 127, 127, -128, 127, 127, -128],
    DataType.INT16: [0, 1, -1, 2, 255, 256, 32767, -32768, 32767, 32767, -32768],
    DataType.INT32: [0, 1, -1, 2, 255, 256, 16777217, I32MIN, I32MAX, I32MAX, I32MIN],
    DataType.INT64: INT_SOURCE,
    DataType.UINT16: [0, 1, 0, 2, 255, 256, 65535, 0, 65535, 65535, 0],
    DataType.UINT32: [0, 1, 0, 2, 255, 256, 16777217, 0, I32MAX, U32MAX, 0],
    DataType.UINT64: [0, 1, 0, 2, 255, 256, 16777217, 0, I32MAX, 2**40, 0],
    DataType.BOOL: [False, True, False, True, True, True, True, False, True, True, False],
    DataType.FLOAT32: [0, 1, -1, 2, 255, 256, 16777216, -2147483648, 2147483648, 2**40, -(2**40)],
    DataType.FLOAT64: [0, 1, -1, 2, 255, 256, 16777217, -2147483648, 2147483647, 2**40, -(2**40)],
    DataType.FLOAT16: [0, 1, -1, 2, 255, 256, INF, -INF, INF, INF, -INF],
    DataType.BFLOAT16: [0, 1, -1, 2, 255, 256, 16777216, -2147483648, 2147483648, 2**40,
                        -(2**40)],
}  # fmt: skip


def as_floats(array: np.ndarray) -> list[float]:
    return [float(v) for v in np.asarray(array).astype(np.float64).reshape(-1)]


def assert_floats(actual: np.ndarray, expected: list[float]) -> None:
    got = as_floats(actual)
    assert len(got) == len(expected)
    for index, (g, e) in enumerate(zip(got, expected)):
        if e != e:
            assert g != g, (index, g, e)
        else:
            assert g == e and np.signbit(g) == np.signbit(e), (index, g, e)


def assert_values(actual: np.ndarray, target: DataType, expected: list) -> None:
    assert actual.dtype == target.numpy_dtype
    if target.is_floating:
        assert_floats(actual, expected)
    elif target.is_complex:
        assert_floats(actual.real, expected)
        assert_floats(actual.imag, [0.0] * len(expected))
    else:
        assert [int(v) if target is not DataType.BOOL else bool(v) for v in actual] == expected


def loaded(values, target: DataType) -> np.ndarray:
    buffer = TensorBuffer.create_fixed_size((len(values),), target)
    buffer.load_array(values)
    return buffer.array


# ------------------------------------------------------------------ loadArray(float[]) path
@pytest.mark.parametrize("target", list(FLOAT_TO_INTEGER), ids=str)
def test_float_array_into_integer_types(target):
    assert_values(loaded(FLOAT_SOURCE, target), target, FLOAT_TO_INTEGER[target])


@pytest.mark.parametrize("target", list(FLOAT_TO_FLOAT), ids=str)
def test_float_array_into_float_types(target):
    assert_values(loaded(FLOAT_SOURCE, target), target, FLOAT_TO_FLOAT[target])


COMPLEX_PARTS = [(DataType.COMPLEX64, DataType.FLOAT32), (DataType.COMPLEX128, DataType.FLOAT64)]


@pytest.mark.parametrize(("target", "part"), COMPLEX_PARTS)
def test_float_array_into_complex_types(target, part):
    assert_values(loaded(FLOAT_SOURCE, target), target, FLOAT_TO_FLOAT[part])


# -------------------------------------------------------------------- loadArray(int[]) path
@pytest.mark.parametrize("target", list(INT_TO), ids=str)
def test_int_array_into_every_type(target):
    assert_values(loaded(INT_SOURCE, target), target, INT_TO[target])
    # numpy integer arrays of any width take the same path.
    assert_values(loaded(np.array(INT_SOURCE, dtype=np.int64), target), target, INT_TO[target])


@pytest.mark.parametrize(("target", "part"), COMPLEX_PARTS)
def test_int_array_into_complex_types(target, part):
    assert_values(loaded(INT_SOURCE, target), target, INT_TO[part])


def test_int32_values_as_java_would_hold_them():
    values = np.array([400, -23, I32MIN, I32MAX], dtype=np.int32)
    assert loaded(values, DataType.UINT8).tolist() == [255, 0, 0, 255]
    assert as_floats(loaded(values, DataType.FLOAT32)) == [400, -23, -2147483648, 2147483648]


def test_bool_arrays_are_the_ints_0_and_1():
    assert loaded([True, False], DataType.FLOAT32).tolist() == [1.0, 0.0]
    assert loaded(np.array([True, False]), DataType.INT8).tolist() == [1, 0]
    assert loaded([True, False], DataType.BOOL).tolist() == [True, False]


def test_integers_beyond_int32_keep_their_value():
    # Decision: Java's int[] cannot hold them; we neither wrap nor saturate them at int32.
    assert as_floats(loaded([2**40], DataType.FLOAT32)) == [1099511627776.0]
    assert loaded([2**40, -(2**40)], DataType.UINT8).tolist() == [255, 0]
    assert loaded([2**62], DataType.INT64).tolist() == [2**62]
    assert loaded([U64MAX, 2**63], DataType.UINT64).tolist() == [U64MAX, 2**63]
    assert loaded([U64MAX], DataType.INT64).tolist() == [I64MAX]
    assert as_floats(loaded([I64MAX], DataType.FLOAT32)) == [2.0**63]


@pytest.mark.parametrize("values", [[2**64], [-(2**63) - 1], [-1, 2**63], [1, 2**70]])
def test_integers_beyond_64_bits_are_refused(values):
    with pytest.raises(IllegalArgumentError, match=r"cannot be loaded: an int array must fit"):
        as_value_array(values)


def test_mixed_lists_follow_numpy():
    # [1, 2.7] is a float64 array for numpy, so the float rule truncates 2.7.
    assert loaded([1, 2.7], DataType.UINT8).tolist() == [1, 2]
    assert as_value_array([1, 2]).dtype == np.int64
    assert as_value_array([2**63]).dtype == np.uint64
    assert as_value_array([1.0, 2]).dtype == np.float64


def test_float64_values_are_rounded_once():
    # A Python float is a double: 2.9999999999 truncates to 2, while Java's float literal
    # 2.9999999999f would already be 3.0f and give 3. Pass float32 arrays for Java's result.
    assert loaded([2.9999999999], DataType.INT32).tolist() == [2]
    assert loaded(np.array([2.9999999999], dtype=np.float32), DataType.INT32).tolist() == [3]
    assert as_floats(loaded([0.1], DataType.FLOAT64)) == [0.1]


def test_complex_values_give_their_real_part_to_real_types():
    values = np.array(
        [1.75 - 2j, complex(-0.0, 1), complex(NAN, 0), 300.5 + 9j], dtype=np.complex64
    )
    assert loaded(values, DataType.UINT8).tolist() == [1, 0, 0, 255]
    assert_floats(loaded(values, DataType.FLOAT32), [1.75, -0.0, NAN, 300.5])
    both = loaded(values, DataType.COMPLEX128)
    assert_floats(both.real, [1.75, -0.0, NAN, 300.5])
    assert_floats(both.imag, [-2.0, 1.0, 0.0, 9.0])


def test_float32_bits_survive_float32():
    bits = np.array([0x7FC01234, 0xFFC00001, 0x7F800001, 0x80000000, 0x00000001], dtype=np.uint32)
    result = loaded(bits.view(np.float32), DataType.FLOAT32)
    assert result.view(np.uint32).tolist() == bits.tolist()
    source = TensorBuffer.create_fixed_size((5,), DataType.FLOAT32)
    source.load_array(bits.view(np.float32))
    copy = TensorBuffer.create_from(source, DataType.FLOAT32)
    assert copy.get_float_array().view(np.uint32).tolist() == bits.tolist()
    assert source.get_float_array().view(np.uint32).tolist() == bits.tolist()


# --------------------------------------------------------------------------- createFrom
def from_buffer(values, source: DataType, target: DataType) -> np.ndarray:
    buffer = TensorBuffer.create_fixed_size((len(values),), source)
    buffer.load_array(values)
    return TensorBuffer.create_from(buffer, target).array


@pytest.mark.parametrize("target", list(FLOAT_TO_INTEGER), ids=str)
def test_create_from_float32_into_integer_types(target):
    assert_values(from_buffer(FLOAT_SOURCE, DataType.FLOAT32, target), target,
                  FLOAT_TO_INTEGER[target])  # fmt: skip


@pytest.mark.parametrize("target", list(FLOAT_TO_FLOAT), ids=str)
def test_create_from_float32_into_float_types(target):
    assert_values(from_buffer(FLOAT_SOURCE, DataType.FLOAT32, target), target,
                  FLOAT_TO_FLOAT[target])  # fmt: skip


def test_create_from_float32_to_uint8_equals_tflite_int_path():
    # TFLite: getIntArray() (Java (int) cast) then loadArray(int[]) clamping to [0, 255].
    source = TensorBuffer.create_fixed_size((17,), DataType.FLOAT32)
    source.load_array(FLOAT_SOURCE)
    via_ints = TensorBuffer.create_fixed_size((17,), DataType.UINT8)
    via_ints.load_array(source.get_int_array())
    direct = TensorBuffer.create_from(source, DataType.UINT8)
    assert direct.array.tolist() == via_ints.array.tolist() == FLOAT_TO_INTEGER[DataType.UINT8]


UINT8_SOURCE = [0, 1, 2, 127, 128, 254, 255]
FROM_UINT8 = {
    DataType.UINT8: UINT8_SOURCE,
    DataType.FLOAT32: UINT8_SOURCE,
    DataType.FLOAT16: UINT8_SOURCE,
    DataType.BFLOAT16: UINT8_SOURCE,
    DataType.FLOAT64: UINT8_SOURCE,
    DataType.INT8: [0, 1, 2, 127, 127, 127, 127],
    DataType.INT16: UINT8_SOURCE,
    DataType.UINT64: UINT8_SOURCE,
    DataType.BOOL: [False, True, True, True, True, True, True],
}


@pytest.mark.parametrize("target", list(FROM_UINT8), ids=str)
def test_create_from_uint8(target):
    assert_values(from_buffer(UINT8_SOURCE, DataType.UINT8, target), target, FROM_UINT8[target])


# FLOAT64 source: 0.1, 1e300, -1e300, 2**53 + 1 (a double cannot hold it: 2**53), -2.5, 1e-50
F64_SOURCE = [0.1, 1e300, -1e300, 2.0**53, -2.5, 1e-50]
FROM_FLOAT64 = {
    DataType.FLOAT32: [0.100000001490116119384765625, INF, -INF, 2.0**53, -2.5, 0.0],
    DataType.FLOAT16: [0.0999755859375, INF, -INF, INF, -2.5, 0.0],
    DataType.BFLOAT16: [0.10009765625, INF, -INF, 2.0**53, -2.5, 0.0],
    DataType.INT64: [0, I64MAX, I64MIN, 2**53, -2, 0],
    DataType.INT32: [0, I32MAX, I32MIN, I32MAX, -2, 0],
    DataType.UINT8: [0, 255, 0, 255, 0, 0],
    DataType.UINT64: [0, U64MAX, 0, 2**53, 0, 0],
    DataType.BOOL: [False, True, False, True, False, False],
}


@pytest.mark.parametrize("target", list(FROM_FLOAT64), ids=str)
def test_create_from_float64(target):
    assert_values(from_buffer(F64_SOURCE, DataType.FLOAT64, target), target, FROM_FLOAT64[target])


INT64_SOURCE = [2**62, -(2**62), I64MAX, I64MIN, 2**24 + 2**16 + 1]
FROM_INT64 = {
    DataType.FLOAT32: [2.0**62, -(2.0**62), 2.0**63, -(2.0**63), 16842752],
    # bfloat16 must round 2**24 + 2**16 + 1 up to 2**24 + 2**17: ml_dtypes' own cast goes
    # through float32 (giving 2**24 + 2**16) and then ties to even (2**24).
    DataType.BFLOAT16: [2.0**62, -(2.0**62), 2.0**63, -(2.0**63), 16908288],
    DataType.INT32: [I32MAX, I32MIN, I32MAX, I32MIN, 16842753],
    DataType.UINT64: [2**62, 0, I64MAX, 0, 16842753],
    DataType.UINT8: [255, 0, 255, 0, 255],
}


@pytest.mark.parametrize("target", list(FROM_INT64), ids=str)
def test_create_from_int64(target):
    values = np.array(INT64_SOURCE, dtype=np.int64)
    assert_values(from_buffer(values, DataType.INT64, target), target, FROM_INT64[target])


def test_create_from_complex64():
    values = np.array([1.75 - 2j, complex(-0.0, 1), complex(NAN, 5)], dtype=np.complex64)
    assert from_buffer(values, DataType.COMPLEX64, DataType.INT32).tolist() == [1, 0, 0]
    assert_floats(from_buffer(values, DataType.COMPLEX64, DataType.FLOAT64), [1.75, -0.0, NAN])
    wide = from_buffer(values, DataType.COMPLEX64, DataType.COMPLEX128)
    assert_floats(wide.real, [1.75, -0.0, NAN])
    assert_floats(wide.imag, [-2.0, 1.0, 5.0])


def test_create_from_bool():
    assert from_buffer([True, False], DataType.BOOL, DataType.FLOAT32).tolist() == [1.0, 0.0]
    assert from_buffer([True, False], DataType.BOOL, DataType.UINT8).tolist() == [1, 0]


# ---------------------------------------------------------------------- getters
def test_get_arrays_of_float32():
    buffer = TensorBuffer.create_fixed_size((17,), DataType.FLOAT32)
    buffer.load_array(FLOAT_SOURCE)
    ints = buffer.get_int_array()
    assert ints.dtype == np.int32 and ints.tolist() == FLOAT_TO_INTEGER[DataType.INT32]
    floats = buffer.get_float_array()
    assert floats.dtype == np.float32
    assert_floats(floats, FLOAT_SOURCE_EXACT)
    for index, expected in enumerate(FLOAT_TO_INTEGER[DataType.INT32]):
        assert buffer.get_int_value(index) == expected
    assert buffer.get_float_value(6) == F32_254_9
    assert np.signbit(buffer.get_float_value(3))


@pytest.mark.parametrize(
    ("source", "values", "ints", "floats"),
    [
        (DataType.UINT8, [0, 1, 128, 255], [0, 1, 128, 255], [0, 1, 128, 255]),
        (DataType.INT8, [-128, -1, 0, 127], [-128, -1, 0, 127], [-128, -1, 0, 127]),
        # Decision: wider integers saturate at int32 (Java's long->int cast would wrap).
        (DataType.INT64, [2**40, -(2**40), 16777217, -5],
         [I32MAX, I32MIN, 16777217, -5], [2.0**40, -(2.0**40), 16777216, -5]),
        (DataType.UINT32, [U32MAX, 0, 2**31, 7], [I32MAX, 0, I32MAX, 7],
         [2.0**32, 0, 2.0**31, 7]),
        (DataType.FLOAT64, [1e300, -1e300, 0.1, -2.5], [I32MAX, I32MIN, 0, -2],
         [INF, -INF, 0.100000001490116119384765625, -2.5]),
        (DataType.FLOAT16, [65504, -0.0, 2.75, -2.75], [65504, 0, 2, -2],
         [65504, -0.0, 2.75, -2.75]),
        (DataType.BOOL, [True, False, True, True], [1, 0, 1, 1], [1, 0, 1, 1]),
        (DataType.COMPLEX128, [3.5 + 4j, -3.5 - 4j, 1e40j, 2**40], [3, -3, 0, I32MAX],
         [3.5, -3.5, 0.0, 2.0**40]),
    ],
)  # fmt: skip
def test_get_arrays_of_other_types(source, values, ints, floats):
    buffer = TensorBuffer.create_fixed_size((len(values),), source)
    buffer.load_array(np.array(values, dtype=source.numpy_dtype))
    assert buffer.get_int_array().dtype == np.int32
    assert buffer.get_int_array().tolist() == ints
    assert buffer.get_float_array().dtype == np.float32
    assert_floats(buffer.get_float_array(), floats)
    assert [buffer.get_int_value(i) for i in range(len(values))] == ints
    assert_floats(np.array([buffer.get_float_value(i) for i in range(len(values))]), floats)


def test_bool_storage_reads_any_nonzero_byte_as_true():
    buffer = TensorBuffer.create_fixed_size((3,), DataType.BOOL)
    buffer.load_buffer(bytes([0, 2, 255]))
    assert buffer.get_int_array().tolist() == [0, 1, 1]
    assert buffer.get_float_array().tolist() == [0.0, 1.0, 1.0]
    assert TensorBuffer.create_from(buffer, DataType.UINT8).array.tolist() == [0, 1, 1]


# ------------------------------------------------------------------------- convert_array
def test_convert_array_matches_create_from():
    for target in list(FLOAT_TO_INTEGER) + list(FLOAT_TO_FLOAT):
        result = convert_array(FLOAT_SOURCE, DataType.FLOAT32, target)
        expected = FLOAT_TO_INTEGER.get(target) or FLOAT_TO_FLOAT[target]
        assert_values(result, target, expected)


def test_convert_array_commutes_with_slicing():
    values = (np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 10) * 37.3
    whole = convert_array(values, "float32", "uint8")
    part = convert_array(values[1, ::2, 1:3], "float32", "uint8")
    assert part.shape == (2, 2)
    assert part.tolist() == whole[1, ::2, 1:3].tolist()


def test_convert_array_reads_any_byte_order():
    big = np.array([1.5, -2.5, 300.0], dtype=">f4")
    result = convert_array(big, DataType.FLOAT32, DataType.INT16)
    assert result.tolist() == [1, -2, 300] and result.dtype.isnative
    same = convert_array(big, DataType.FLOAT32, DataType.FLOAT32)
    assert same.dtype == np.float32 and same.tolist() == [1.5, -2.5, 300.0]
    assert not np.shares_memory(same, big)
    assert convert_array(big, DataType.FLOAT32, DataType.FLOAT32, copy=False) is big


def test_convert_array_zero_size_and_scalar():
    assert convert_array(np.zeros((2, 0), np.float32), "float32", "uint8").shape == (2, 0)
    scalar = convert_array(np.array(254.9, dtype=np.float32), "float32", "uint8")
    assert scalar.shape == () and int(scalar) == 254
    assert int(convert_to(np.array(-1e20), DataType.INT64)) == I64MIN


def test_convert_array_checks_the_source_type():
    with pytest.raises(IllegalArgumentError, match=r"are FLOAT64, not FLOAT32 \(pass the"):
        convert_array(np.zeros(3), DataType.FLOAT32, DataType.UINT8)
    with pytest.raises(IllegalArgumentError, match=r"does not support data type: STRING"):
        convert_array(np.zeros(3, np.float32), DataType.FLOAT32, DataType.STRING)


def test_bfloat16_source():
    values = np.array([1.5, -0.0, 300.0, NAN], dtype=ml_dtypes.bfloat16)
    assert convert_array(values, "bfloat16", "int32").tolist() == [1, 0, 300, 0]
    assert_floats(convert_array(values, "bfloat16", "float16"), [1.5, -0.0, 300.0, NAN])
