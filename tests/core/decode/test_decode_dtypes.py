"""The type table (docs/semantics.md §1): names, aliases, extended types, GUI helpers."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from core.dtypes.table import (
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


@pytest.mark.parametrize("bad", ["string", "float8", "int2", "nonsense", np.dtype("U4"),
                                 np.dtype("datetime64[s]"), float, object()])
def test_unknown_types_raise_the_attr_message(bad):
    with pytest.raises(DecodeError, match=r"^Value for attr 'out_type' of .+ is not in the list"):
        resolve_dtype(bad, extended_types=True)
    assert not is_tf_decode_type(bad)


def test_engine_types_order_for_a_gui():
    assert ENGINE_TYPES[0] == "float32"
    assert ENGINE_TYPES[12:15] == ("bool", "uint32", "uint64")
    assert ENGINE_TYPES.index("bfloat16") == 11
    assert ENGINE_TYPES[-4:] == ("int4", "uint4", "int24", "uint24")
    assert len(ENGINE_TYPES) == 28 and len(set(ENGINE_TYPES)) == 28
    assert [engine_name(n) for n in ENGINE_TYPES] == list(ENGINE_TYPES)
    assert [n for n in ENGINE_TYPES if not is_tf_decode_type(n)] == list(ENGINE_TYPES[13:])


def test_padded_type_check_allows_extended_types():
    check_padded_type(np.dtype(np.uint32))
    with pytest.raises(DecodeError, match="of complex64 is not"):
        check_padded_type(np.dtype(np.complex64))


# --- Regressions found by differential testing against TensorFlow 2.21 -------------------------
# (tests/against_tensorflow/test_against_tensorflow.py; the expected texts below are TF's, hand-checked.)

PADDED_LIST = "half, float, double, int32, uint16, uint8, int16, int8, int64, bfloat16"


@pytest.mark.parametrize("bad", ["uint32", "uint64", "qint8", "string", "int4", np.uint32])
def test_refused_type_with_fixed_length_quotes_decode_padded_raw_list(bad):
    # TF: tf.io.decode_raw(b"\x01" * 16, tf.uint32, fixed_length=8) builds DecodePaddedRaw and
    # says "Value for attr 'out_type' of uint32 is not in the list of allowed values: half,
    # float, double, int32, uint16, uint8, int16, int8, int64, bfloat16" -- that op's list,
    # not DecodeRaw's. We used to quote DecodeRaw's list (with complex64, complex128, bool).
    from core.decode.decode_raw import decode_raw

    name = bad if isinstance(bad, str) else np.dtype(bad).name
    with pytest.raises(DecodeError) as info:
        decode_raw(b"\x01" * 16, bad, fixed_length=8)
    assert str(info.value).startswith(
        f"Value for attr 'out_type' of {name} is not in the list of allowed values: "
        f"{PADDED_LIST} (")
    with pytest.raises(DecodeError) as info:
        resolve_dtype(bad, padded=True)
    assert f"allowed values: {PADDED_LIST} (" in str(info.value)
    # Without fixed_length, DecodeRaw's list as before.
    with pytest.raises(DecodeError, match=r"allowed values: .*, complex64, complex128, bool, "):
        decode_raw(b"\x01" * 16, bad)


class _FakeTFDType:
    """Duck-types a tf.DType (``name``, ``as_datatype_enum``, ``as_numpy_dtype``) without TF."""

    def __init__(self, name, numpy_type=None):
        self.name = name
        self.as_datatype_enum = 1
        self._numpy_type = numpy_type

    @property
    def as_numpy_dtype(self):
        if self._numpy_type is None:
            raise KeyError(20)  # what tf.resource.as_numpy_dtype does
        return self._numpy_type


@pytest.mark.parametrize(("name", "numpy_type"), [
    ("qint8", np.dtype([("qint8", np.int8)])), ("quint16", np.dtype([("quint16", np.uint16)])),
    ("string", object), ("resource", None), ("variant", None),
])
def test_tf_dtypes_without_numpy_equivalent_are_quoted_by_tf_name(name, numpy_type):
    # TF: decode_raw(..., tf.qint8) -> "... of qint8 is not in the list ...", tf.string ->
    # "of string", tf.resource -> "of resource". We used to say "of void8" / "of object" and
    # crashed with a KeyError on tf.resource / tf.variant.
    with pytest.raises(DecodeError) as info:
        resolve_dtype(_FakeTFDType(name, numpy_type), extended_types=True)
    assert str(info.value).startswith(f"Value for attr 'out_type' of {name} is not in the list")


@pytest.mark.parametrize(("name", "expected"), [
    ("float32", np.float32), ("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16),
    ("bool", np.bool_), ("complex128", np.complex128),
])
def test_tf_dtypes_resolve_by_name(name, expected):
    assert resolve_dtype(_FakeTFDType(name, expected)) == np.dtype(expected)


@pytest.mark.parametrize("bad", [np.object_, np.dtype(object), np.str_, np.bytes_,
                                 np.dtype("S4"), np.dtype("U2")])
def test_numpy_string_types_are_quoted_as_tf_string(bad):
    # TF converts these to tf.string: "Value for attr 'out_type' of string is not in the list".
    with pytest.raises(DecodeError) as info:
        resolve_dtype(bad)
    assert str(info.value).startswith("Value for attr 'out_type' of string is not in the list")


def test_numpy_aliased_integer_types_are_accepted():
    # On Linux np.longlong is a scalar type distinct from np.int64 (dtype.type differs) but its
    # dtype is int64, and TF accepts it: decode_raw(b"\x01" * 16, np.longlong) is int64
    # [72340172838076673, 72340172838076673]. We used to refuse it "of int64".
    from core.decode.decode_raw import decode_raw

    assert resolve_dtype(np.longlong) == np.dtype(np.int64)
    assert resolve_dtype(np.ulonglong, extended_types=True) == np.dtype(np.uint64)
    assert resolve_dtype(np.intc) == np.dtype(np.int32)
    assert decode_raw(b"\x01" * 16, np.longlong).tolist() == [72340172838076673] * 2


@pytest.mark.parametrize(("name", "base"), [("qint8", np.int8), ("quint8", np.uint8),
                                            ("qint16", np.int16), ("quint16", np.uint16),
                                            ("qint32", np.int32)])
def test_tf_quantized_numpy_dtypes_are_quoted_by_tf_name(name, base):
    # tf.qint8.as_numpy_dtype is np.dtype([("qint8", np.int8)]); TF recognises it and says
    # "Value for attr 'out_type' of qint8 is not in the list ...", numpy calls it "void8".
    with pytest.raises(DecodeError) as info:
        resolve_dtype(np.dtype([(name, base)]))
    assert str(info.value).startswith(f"Value for attr 'out_type' of {name} is not in the list")
    with pytest.raises(DecodeError, match=r"^Value for attr 'out_type' of void16 is not"):
        resolve_dtype(np.dtype([("other", np.int16)]))  # any other structured dtype: numpy's name
