"""The type table (SPEC section 1): names, aliases, extended types, GUI helpers."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from core.dtypes import (
    ENGINE_TYPES,
    check_padded_type,
    engine_name,
    is_tf_decode_type,
    resolve_dtype,
    tf_name,
)
from core.errors import DecodeError

TF_TO_NUMPY = {
    "half": np.float16, "float": np.float32, "double": np.float64, "bfloat16": ml_dtypes.bfloat16,
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
    "uint16": np.uint16, "complex64": np.complex64, "complex128": np.complex128, "bool": np.bool_,
}


@pytest.mark.parametrize(("tf", "numpy_type"), TF_TO_NUMPY.items())
def test_tf_names_numpy_names_and_dtypes_are_aliases(tf, numpy_type):
    expected = np.dtype(numpy_type)
    assert resolve_dtype(tf) == expected
    assert resolve_dtype(expected.name) == expected
    assert resolve_dtype(expected) == expected
    assert resolve_dtype(numpy_type) == expected
    assert resolve_dtype(f"tf.{tf}") == expected
    assert tf_name(expected) == tf
    assert is_tf_decode_type(tf) and is_tf_decode_type(expected.name)


def test_bfloat16_comes_from_ml_dtypes():
    assert resolve_dtype("bfloat16").name == "bfloat16"
    assert resolve_dtype("bfloat16").type is ml_dtypes.bfloat16


def test_resolved_dtype_is_native_whatever_the_given_byte_order():
    assert resolve_dtype(np.dtype(">f4")) == np.dtype("=f4")
    assert resolve_dtype(np.dtype(">f4")).isnative


@pytest.mark.parametrize("name", ["uint32", "uint64"])
def test_extended_types_need_the_flag(name):
    with pytest.raises(DecodeError) as info:
        resolve_dtype(name)
    assert str(info.value).startswith(
        f"Value for attr 'out_type' of {name} is not in the list of allowed values: half, float, "
        "double, int32, uint16, uint8, int16, int8, int64, complex64, complex128, bool, bfloat16 (")
    assert info.value.field == "dtype"
    assert resolve_dtype(name, extended_types=True) == np.dtype(name)
    assert not is_tf_decode_type(name)
    assert tf_name(name) == name


@pytest.mark.parametrize("bad", ["string", "float8", "int4", "nonsense", np.dtype("U4"),
                                 np.dtype("datetime64[s]"), float, object()])
def test_unknown_types_raise_the_attr_message(bad):
    with pytest.raises(DecodeError, match=r"^Value for attr 'out_type' of .+ is not in the list"):
        resolve_dtype(bad, extended_types=True)
    assert not is_tf_decode_type(bad)


def test_engine_types_order_for_a_gui():
    assert ENGINE_TYPES[0] == "float32"
    assert ENGINE_TYPES[-3:] == ("bool", "uint32", "uint64")
    assert ENGINE_TYPES.index("bfloat16") == len(ENGINE_TYPES) - 4
    assert len(ENGINE_TYPES) == 15 and len(set(ENGINE_TYPES)) == 15
    assert [engine_name(n) for n in ENGINE_TYPES] == list(ENGINE_TYPES)
    assert [n for n in ENGINE_TYPES if not is_tf_decode_type(n)] == ["uint32", "uint64"]


def test_padded_type_check_allows_extended_types():
    check_padded_type(np.dtype(np.uint32))
    with pytest.raises(DecodeError, match="of complex64 is not"):
        check_padded_type(np.dtype(np.complex64))
