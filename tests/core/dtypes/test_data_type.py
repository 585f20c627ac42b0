"""DataType: names, aliases, sizes and the STRING refusal (docs/semantics.md §1 and §6)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from core.dtypes.data_type import DataType
from core.errors import CoreError, IllegalArgumentError, TensorBufferError

# member, numpy name, TF name, bytes per element, kind
CATALOGUE = [
    (DataType.FLOAT16, "float16", "half", 2, "float"),
    (DataType.BFLOAT16, "bfloat16", "bfloat16", 2, "float"),
    (DataType.FLOAT32, "float32", "float", 4, "float"),
    (DataType.FLOAT64, "float64", "double", 8, "float"),
    (DataType.INT8, "int8", "int8", 1, "int"),
    (DataType.INT16, "int16", "int16", 2, "int"),
    (DataType.INT32, "int32", "int32", 4, "int"),
    (DataType.INT64, "int64", "int64", 8, "int"),
    (DataType.UINT8, "uint8", "uint8", 1, "uint"),
    (DataType.UINT16, "uint16", "uint16", 2, "uint"),
    (DataType.UINT32, "uint32", "uint32", 4, "uint"),
    (DataType.UINT64, "uint64", "uint64", 8, "uint"),
    (DataType.COMPLEX64, "complex64", "complex64", 8, "complex"),
    (DataType.COMPLEX128, "complex128", "complex128", 16, "complex"),
    (DataType.BOOL, "bool", "bool", 1, "bool"),
]


@pytest.mark.parametrize(("member", "numpy_name", "tf_name", "size", "kind"), CATALOGUE)
def test_catalogue(member, numpy_name, tf_name, size, kind):
    assert member.value == numpy_name
    assert member.tf_name == tf_name
    assert member.type_size == size
    assert member.kind == kind
    assert member.numpy_dtype.name == numpy_name
    assert member.numpy_dtype.isnative
    assert member.is_numeric


@pytest.mark.parametrize(("member", "numpy_name", "tf_name", "size", "kind"), CATALOGUE)
def test_every_spelling_parses(member, numpy_name, tf_name, size, kind):
    spellings = [
        member,
        member.name,
        member.name.lower(),
        numpy_name,
        numpy_name.upper(),
        tf_name,
        f"tf.{tf_name}",
        f"np.{numpy_name}",
        member.numpy_dtype,
        member.numpy_dtype.type,
    ]
    if size > 1 and member is not DataType.BFLOAT16:
        spellings += [member.numpy_dtype.newbyteorder(">"), member.numpy_dtype.newbyteorder("<")]
    for spelling in spellings:
        assert DataType.parse(spelling) is member, spelling
        assert DataType(spelling) is member, spelling


def test_tf_names_follow_tensorflow_and_python_types_follow_numpy():
    assert DataType("float") is DataType.FLOAT32  # TF: float is 32-bit
    assert DataType("half") is DataType.FLOAT16
    assert DataType("double") is DataType.FLOAT64
    assert DataType(float) is DataType.FLOAT64  # numpy: Python float is float64
    assert DataType(bool) is DataType.BOOL
    assert DataType(ml_dtypes.bfloat16) is DataType.BFLOAT16
    assert DataType(" Float32 ") is DataType.FLOAT32
    assert DataType("<i2") is DataType.INT16
    assert DataType(np.dtype(">c16")) is DataType.COMPLEX128


def test_only_float32_and_uint8_are_tflite_types():
    assert {m for m in DataType if m.is_tflite} == {DataType.FLOAT32, DataType.UINT8}


def test_kind_predicates():
    assert DataType.BFLOAT16.is_floating and not DataType.BFLOAT16.is_integer
    assert DataType.UINT64.is_integer and not DataType.UINT64.is_floating
    assert not DataType.BOOL.is_integer and not DataType.BOOL.is_floating
    assert DataType.COMPLEX64.is_complex and not DataType.COMPLEX64.is_floating
    assert not DataType.STRING.is_numeric


@pytest.mark.parametrize(
    ("member", "expected"),
    [
        (DataType.INT8, (-128, 127)),
        (DataType.INT16, (-32768, 32767)),
        (DataType.INT32, (-2147483648, 2147483647)),
        (DataType.INT64, (-9223372036854775808, 9223372036854775807)),
        (DataType.UINT8, (0, 255)),
        (DataType.UINT16, (0, 65535)),
        (DataType.UINT32, (0, 4294967295)),
        (DataType.UINT64, (0, 18446744073709551615)),
        (DataType.BOOL, (0, 1)),
    ],
)
def test_int_range(member, expected):
    assert member.int_range == expected


def test_int_range_of_a_float_type_is_an_error():
    with pytest.raises(IllegalArgumentError, match=r"no integer range"):
        DataType.FLOAT32.int_range


def test_string_exists_but_has_no_storage():
    assert DataType("string") is DataType.STRING
    assert DataType(np.dtype("S4")) is DataType.STRING
    assert DataType(np.dtype("U4")) is DataType.STRING
    with pytest.raises(IllegalArgumentError) as caught:
        DataType.STRING.numpy_dtype
    assert str(caught.value).startswith("TensorBuffer does not support data type: STRING (")
    with pytest.raises(IllegalArgumentError):
        DataType.STRING.type_size


@pytest.mark.parametrize(
    "bad", ["float8", "", "int", "uint", "long", None, object, np.longdouble, 3]
)
def test_unknown_names_are_a_clear_error(bad):
    # "int" is refused on purpose: 32-bit in Java, 64-bit in numpy.
    with pytest.raises(IllegalArgumentError) as caught:
        DataType.parse(bad)
    message = str(caught.value)
    assert message.startswith("Unknown data type ")
    assert "(use one of float16, bfloat16, float32" in message
    assert caught.value.field == "dtype"
    assert isinstance(caught.value, TensorBufferError)
    assert isinstance(caught.value, CoreError)
    assert isinstance(caught.value, ValueError)
    with pytest.raises(IllegalArgumentError):
        DataType(bad)


def test_str_is_the_java_name():
    assert str(DataType.UINT8) == "UINT8"
    assert f"{DataType.FLOAT32}" == "FLOAT32"
