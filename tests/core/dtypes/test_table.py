"""The one type table: every derived list and lookup agrees with TF, numpy and TFLite facts."""

import ml_dtypes
import numpy as np
import pytest

from core.dtypes.data_type import DataType
from core.dtypes.table import (
    ENGINE_TYPES,
    EXTENDED_TYPES,
    FLOAT8_NAMES,
    TF_DECODE_PADDED_RAW_TYPES,
    TF_DECODE_RAW_TYPES,
    TYPE_ROWS,
    is_tf_decode_type,
    packed_row,
    resolve_dtype,
    row_for_npy_code,
    row_for_numpy_kind,
    tf_name,
    type_row,
)
from core.errors import DecodeError, IllegalArgumentError


def test_tf_attr_lists_are_tfs_own_order():
    # tensorflow/core/ops/parsing_ops.cc: DecodeRaw and DecodePaddedRaw out_type attrs.
    assert TF_DECODE_RAW_TYPES == (
        "half", "float", "double", "int32", "uint16", "uint8", "int16", "int8", "int64",
        "complex64", "complex128", "bool", "bfloat16")
    assert TF_DECODE_PADDED_RAW_TYPES == (
        "half", "float", "double", "int32", "uint16", "uint8", "int16", "int8", "int64", "bfloat16")
    assert EXTENDED_TYPES == ("uint32", "uint64", *FLOAT8_NAMES, "int4", "uint4", "int24", "uint24")


def test_engine_types_in_gui_order():
    assert ENGINE_TYPES == (
        "float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8", "uint16",
        "complex64", "complex128", "bfloat16", "bool", "uint32", "uint64", "float8_e4m3fn",
        "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz", "float8_e3m4",
        "float8_e4m3", "float8_e8m0fnu", "float8_e5m3fnu", "int4", "uint4", "int24", "uint24")


@pytest.mark.parametrize("name, itemsize, npy, numpy_code, tf_code", [
    ("float32", 4, "f4", "np.float32", "tf.float32"),
    ("float16", 2, "f2", "np.float16", "tf.float16"),
    ("bfloat16", 2, None, "ml_dtypes.bfloat16", "tf.bfloat16"),
    ("complex128", 16, "c16", "np.complex128", "tf.complex128"),
    ("bool", 1, "b1", "np.bool", "tf.bool"),
    ("uint64", 8, "u8", "np.uint64", "tf.uint64"),
])
def test_row_columns(name, itemsize, npy, numpy_code, tf_code):
    row = type_row(name)
    assert (row.itemsize, row.npy_code, row.numpy_code, row.tf_code) == (itemsize, npy, numpy_code, tf_code)


@pytest.mark.parametrize("row", TYPE_ROWS, ids=lambda row: row.name)
def test_every_spelling_of_a_row_resolves_to_its_dtype(row):
    for spelling in (row.name, row.tf_name, *row.aliases, row.name.upper(), f"tf.{row.tf_name}"):
        assert resolve_dtype(spelling, extended_types=True) == row.dtype
    assert is_tf_decode_type(row.name) is (row.name not in EXTENDED_TYPES)
    if not row.tensor_buffer:  # float8, int4, int24: beyond TFLite's DataType too
        with pytest.raises(IllegalArgumentError, match="Unknown data type"):
            DataType.parse(row.name)
        # a packed type's dtype is the wider type of its decoded values (int4 -> int8)
        assert (packed_row(row.name) is row) is row.packed
        if not row.packed:
            assert tf_name(row.dtype) == row.tf_name
        return
    assert tf_name(row.dtype) == row.tf_name
    member = DataType.parse(row.name)
    assert member.name == row.data_type and member.numpy_dtype == row.dtype
    assert member.tf_name == row.tf_name and member.type_size == row.itemsize


@pytest.mark.parametrize("row", [r for r in TYPE_ROWS if r.npy_code], ids=lambda row: row.name)
def test_npy_codes_are_numpys(row):
    assert np.dtype("<" + row.npy_code).newbyteorder("=") == row.dtype
    assert row_for_npy_code(row.npy_code) is row
    assert row_for_numpy_kind(row.dtype.kind, row.itemsize) is row


def test_bfloat16_has_no_npy_code_and_no_numpy_kind():
    assert type_row("bfloat16").dtype == np.dtype(ml_dtypes.bfloat16)
    assert row_for_npy_code("V2") is None
    assert row_for_numpy_kind("V", 2) is None
    assert row_for_npy_code("f16") is None  # longdouble


def test_data_type_members_in_tflite_order():
    assert [m.name for m in DataType] == [
        "FLOAT16", "BFLOAT16", "FLOAT32", "FLOAT64", "INT8", "INT16", "INT32", "INT64",
        "UINT8", "UINT16", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BOOL", "STRING"]


# ------------------------------------------------------------------ float layouts, words, byte order
def _finfo(dtype: np.dtype):
    try:
        return np.finfo(dtype)
    except (TypeError, ValueError):
        return ml_dtypes.finfo(dtype)


@pytest.mark.parametrize("row", [r for r in TYPE_ROWS if r.kind in ("float", "complex")], ids=lambda r: r.name)
def test_float_layouts_are_finfos(row):
    part = row.part.dtype if row.part is not None else row.dtype
    info = _finfo(part)
    assert (row.mantissa_bits, row.exponent_bits, row.min_exponent) == (info.nmant, info.nexp, info.minexp)
    assert row.smallest_normal == float(info.smallest_normal)


def test_float_layouts_by_hand():
    assert (type_row("float16").mantissa_bits, type_row("float16").exponent_bits) == (10, 5)
    assert type_row("float16").smallest_normal == 2.0**-14
    assert (type_row("bfloat16").mantissa_bits, type_row("bfloat16").exponent_bits) == (7, 8)
    assert type_row("complex64").part is type_row("float32")
    assert type_row("complex128").part is type_row("float64")
    assert type_row("float32").part is None


def test_integer_and_bool_rows_have_no_float_layout():
    for row in TYPE_ROWS:
        if row.kind in ("int", "uint", "bool"):
            assert (row.mantissa_bits, row.exponent_bits, row.smallest_normal) == (0, 0, None), row.name


def test_byte_order_matters_for_values_stored_in_more_than_one_byte():
    assert [r.name for r in TYPE_ROWS if not r.byte_order_matters] == [
        "int8", "uint8", "bool", *FLOAT8_NAMES, "int4", "uint4"]


def test_name_words_name_one_type_each_and_are_not_decode_types():
    words = [word for row in TYPE_ROWS for word in row.name_words]
    assert len(words) == len(set(words))
    assert type_row("float32").name_words == ("float32", "f32", "fp32", "float", "single")
    assert type_row("int64").name_words == ("int64", "i64", "s64", "long")
    assert type_row("uint64").name_words == ()  # no word in file names means uint64 (yet)
    for word in ("long", "f32", "fp16", "byte"):  # hints in a file name, not out_types
        with pytest.raises(DecodeError):
            resolve_dtype(word, extended_types=True)
