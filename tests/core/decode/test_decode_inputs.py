"""decode_raw: input forms, error order and messages, bool, NaN payloads, copies."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from core.budget import BudgetError
from core.decode.decode_raw import decode_raw
from core.errors import DecodeError

ALLOWED = ("half, float, double, int32, uint16, uint8, int16, int8, int64, complex64, "
           "complex128, bool, bfloat16")
PADDED_ALLOWED = "half, float, double, int32, uint16, uint8, int16, int8, int64, bfloat16"


# -- input forms ------------------------------------------------------------------------------
def test_str_is_utf8_encoded():
    assert decode_raw("é", "uint8").tolist() == [0xC3, 0xA9]


def test_bytearray_and_memoryview_are_viewed():
    buffer = bytearray(b"\x01\x00\x02\x00")
    result = decode_raw(buffer, "uint16")
    assert result.tolist() == [1, 2]
    buffer[0] = 7  # a view: the caller's buffer shows through
    assert result.tolist() == [7, 2]
    assert decode_raw(memoryview(b"\x01\x00"), "int16").tolist() == [1]


def test_nested_lists_of_mixed_bytes_and_str():
    result = decode_raw([[b"ab", "cd"], [bytearray(b"ef"), np.bytes_(b"gh")]], "uint8")
    assert result.shape == (2, 2, 2)
    assert bytes(result.reshape(-1)) == b"abcdefgh"


def test_tuples_and_empty_lists():
    assert decode_raw((b"ab", b"cd"), "uint16").shape == (2, 1)
    assert decode_raw([], "float").shape == (0, 0)
    assert decode_raw([[], []], "float").shape == (2, 0, 0)
    assert decode_raw([], "float", fixed_length=8).shape == (0, 2)


def test_object_array_of_any_rank_keeps_zero_sizes():
    array = np.empty((2, 0, 3), dtype=object)
    assert decode_raw(array, "int32").shape == (2, 0, 3, 0)
    assert decode_raw(array, "int32", fixed_length=8).shape == (2, 0, 3, 2)
    scalar = np.array(b"\x01\x00\x00\x00", dtype=object)
    assert decode_raw(scalar, "int32").tolist() == [1]


def test_unicode_array_is_utf8_encoded():
    assert decode_raw(np.array(["a", "é"]), "uint8", fixed_length=2).tolist() == [[97, 0], [0xC3, 0xA9]]


def test_ragged_nest_is_refused_with_tf_message():
    with pytest.raises(DecodeError, match=r"^Can't convert non-rectangular Python sequence to Tensor\."):
        decode_raw([[b"a"], [b"b", b"c"]], "uint8")
    with pytest.raises(DecodeError, match="non-rectangular"):
        decode_raw([b"a", [b"b"]], "uint8")


def test_non_bytes_elements_are_refused():
    with pytest.raises(DecodeError, match="element 1 of input_bytes is int"):
        decode_raw([b"a", 3], "uint8")
    with pytest.raises(DecodeError, match="float32 array"):
        decode_raw(np.zeros(3, np.float32), "uint8")
    with pytest.raises(DecodeError, match="last dimension"):
        decode_raw(np.array(5, np.uint8), "uint8")
    with pytest.raises(DecodeError, match="not bytes, str"):
        decode_raw(3.5, "uint8")


def test_uint8_array_means_elements_of_its_last_dimension():
    data = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    result = decode_raw(data, "uint32", extended_types=True)
    assert result.shape == (2, 3, 1)
    assert np.shares_memory(result, data)
    assert result[1, 2, 0] == int.from_bytes(bytes([20, 21, 22, 23]), "little")


def test_uint8_array_with_strided_rows_is_still_a_view():
    data = np.arange(48, dtype=np.uint8).reshape(4, 12)[::2, 2:10]  # rows strided, items contiguous
    result = decode_raw(data, "float32", little_endian=False)
    assert np.shares_memory(result, data)
    assert result.dtype == np.dtype(">f4")
    assert result.tobytes() == np.ascontiguousarray(data).tobytes()


def test_uint8_array_with_strided_bytes_is_copied():
    data = np.arange(16, dtype=np.uint8)[::2].reshape(2, 4)
    result = decode_raw(data, "uint16")
    assert not np.shares_memory(result, data)
    assert result.tolist() == [[0x0200, 0x0604], [0x0A08, 0x0E0C]]


# -- numpy S arrays: items lose their trailing NULs, as tf.constant(arr) sees them ------------
def test_s_array_items_are_stripped_of_trailing_nuls():
    array = np.array([b"ab", b"a\x00"])  # numpy stores b"a" for the second item
    with pytest.raises(DecodeError, match="element 1 has size 2 != 1"):
        decode_raw(array, "uint8")
    assert decode_raw(array, "uint8", fixed_length=2).tolist() == [[97, 98], [97, 0]]


def test_s_array_with_equal_stripped_lengths_is_a_view():
    array = np.array([[b"ab", b"cd"], [b"ef", b"gh"]], dtype="S4")
    result = decode_raw(array, "uint16", little_endian=False)
    assert result.shape == (2, 2, 1)
    assert result[1, 0, 0] == int.from_bytes(b"ef", "big")
    assert np.shares_memory(result, array)


def test_s_array_padding_and_truncation():
    array = np.array([b"\x01\x02\x03", b"\x04"], dtype="S3")
    assert decode_raw(array, "uint8", fixed_length=2).tolist() == [[1, 2], [4, 0]]
    assert decode_raw(array, "uint8", fixed_length=5).tolist() == [[1, 2, 3, 0, 0], [4, 0, 0, 0, 0]]
    assert np.shares_memory(decode_raw(array, "uint8", fixed_length=3), array)


def test_s_array_raw_records_through_the_uint8_view():
    array = np.array([b"a\x00", b"bc"], dtype="S2")
    raw = array[..., None].view(np.uint8)
    assert decode_raw(raw, "uint8").tolist() == [[97, 0], [98, 99]]


# -- error order and messages -----------------------------------------------------------------
def test_disallowed_type_message_is_tf_text_plus_fix():
    with pytest.raises(DecodeError) as info:
        decode_raw(b"abcd", "uint32")
    text = str(info.value)
    assert text.startswith(f"Value for attr 'out_type' of uint32 is not in the list of allowed "
                           f"values: {ALLOWED} (")
    assert text.endswith(")")
    assert info.value.field == "dtype"


@pytest.mark.parametrize("name", ["bool", "complex64", "complex128"])
def test_fixed_length_refuses_bool_and_complex_before_checking_fixed_length(name):
    with pytest.raises(DecodeError) as info:
        decode_raw(b"abcd", name, fixed_length=3)  # 3 is also a bad fixed_length: type first
    assert str(info.value).startswith(
        f"Value for attr 'out_type' of {name} is not in the list of allowed values: "
        f"{PADDED_ALLOWED} (")


def test_fixed_length_multiple_is_checked_before_positive_even_on_empty_input():
    with pytest.raises(DecodeError, match=r"^fixed_length \(-3\) must be a multiple of the size "
                                          r"of out_type \(2\) \("):
        decode_raw([], "uint16", fixed_length=-3)
    with pytest.raises(DecodeError, match=r"^fixed_length \(-2\) must be greater than zero\. \("):
        decode_raw([], "uint16", fixed_length=-2)
    with pytest.raises(DecodeError, match=r"^fixed_length \(0\) must be greater than zero\. \("):
        decode_raw(np.zeros((0, 4), np.uint8), "int32", fixed_length=0)


def test_fixed_length_must_be_an_integer():
    with pytest.raises(DecodeError, match="whole number") as info:
        decode_raw(b"ab", "uint8", fixed_length=2.0)
    assert info.value.field == "fixed_length"
    with pytest.raises(DecodeError, match="whole number"):
        decode_raw(b"ab", "uint8", fixed_length=True)
    assert decode_raw(b"ab", "uint8", fixed_length=np.int64(1)).tolist() == [97]


def test_same_size_message_quotes_first_size_then_the_offending_one():
    with pytest.raises(DecodeError) as info:
        decode_raw([b"ab", b"ab", b"abcd"], "uint8")
    assert str(info.value).startswith(
        "DecodeRaw requires input strings to all be the same size, but element 2 has size 2 != 4 (")
    with pytest.raises(DecodeError, match="element 1 has size 5 != 6"):
        decode_raw(["short", "longer"], "uint8")  # TF's own test
    with pytest.raises(DecodeError, match="element 1 has size 0 != 2"):
        decode_raw([b"", b"ab"], "uint16")


def test_same_size_is_checked_before_the_multiple():
    with pytest.raises(DecodeError, match="same size"):
        decode_raw([b"abc", b"a"], "uint16")


def test_spec_not_multiple_message_exactly():
    with pytest.raises(DecodeError) as info:
        decode_raw(b"abc", "uint16")
    assert str(info.value) == ("Input to DecodeRaw has length 3 that is not a multiple of 2, the "
                               "size of uint16 (choose a record size or fixed_length that is a "
                               "multiple of 2)")


def test_half_with_fixed_length_is_decoded_despite_tf_defect():
    assert decode_raw(b"\x00\x3c", "half", fixed_length=4).tolist() == [1.0, 0.0]


def test_little_endian_must_be_a_bool():
    with pytest.raises(DecodeError, match="little_endian"):
        decode_raw(b"ab", "uint16", little_endian="yes")


# -- bool ------------------------------------------------------------------------------------
def test_bool_any_nonzero_byte_is_true_and_copies():
    data = np.array([[0, 1, 2, 255]], dtype=np.uint8)
    result = decode_raw(data, "bool")
    assert result.tolist() == [[False, True, True, True]]
    assert result.view(np.uint8).tolist() == [[0, 1, 1, 1]]  # valid numpy bools
    assert not np.shares_memory(result, data)


def test_bool_zero_one_bytes_are_viewed():
    data = np.array([[0, 1, 1, 0]], dtype=np.uint8)
    result = decode_raw(data, "bool")
    assert np.shares_memory(result, data)
    assert result.tolist() == [[False, True, True, False]]


# -- NaN payloads and byte order --------------------------------------------------------------
@pytest.mark.parametrize(("name", "bits", "uint"), [
    ("float16", 0x7C01, np.uint16), ("bfloat16", 0x7F81, np.uint16),
    ("float32", 0x7F800001, np.uint32), ("float32", 0xFFC12345, np.uint32),
    ("float64", 0x7FF0000000000001, np.uint64),
])
@pytest.mark.parametrize("little", [True, False])
@pytest.mark.parametrize("fixed_extra", [None, 0, 8])
def test_nan_payloads_survive_views_and_padding(name, bits, uint, little, fixed_extra):
    size = np.dtype(uint).itemsize
    raw = int(bits).to_bytes(size, "little" if little else "big")
    fixed = None if fixed_extra is None else size + fixed_extra
    result = decode_raw(raw, name, little, fixed)
    native = result.astype(result.dtype.newbyteorder("="))
    assert native[:1].view(uint)[0] == bits
    with np.errstate(invalid="ignore"):  # a signalling NaN may warn when inspected
        assert np.isnan(native[0])


def test_complex_swaps_each_component():
    data = np.array([1 + 2j], dtype=">c8").tobytes()
    assert decode_raw(data, "complex64", little_endian=False).tolist() == [1 + 2j]
    assert decode_raw(np.array([3 - 4j], "<c16").tobytes(), "complex128").tolist() == [3 - 4j]


def test_big_endian_result_is_a_view_with_explicit_byte_order():
    data = b"\x3f\x80\x00\x00"
    result = decode_raw(data, "float", little_endian=False)
    assert result.dtype == np.dtype(">f4") and result.dtype.byteorder == ">"
    assert result.tolist() == [1.0]
    assert np.shares_memory(result, np.frombuffer(data, np.uint8))


def test_big_endian_bfloat16_is_a_view_named_bfloat16():
    data = b"\x3f\x80\x40\x00"
    result = decode_raw(data, "bfloat16", little_endian=False)
    assert result.dtype.name == "bfloat16"
    assert not result.dtype.isnative
    assert result.astype(ml_dtypes.bfloat16).astype(np.float32).tolist() == [1.0, 2.0]


def test_read_only_input_gives_read_only_result():
    result = decode_raw(b"\x00\x01", "uint8")
    assert not result.flags.writeable


# -- copies and the budget --------------------------------------------------------------------
def test_padding_copies_once_and_leaves_the_input_alone():
    data = np.array([[1, 2]], dtype=np.uint8)
    result = decode_raw(data, "uint16", fixed_length=6)
    assert result.tolist() == [[0x0201, 0, 0]]
    assert result.base is not None and result.base.base is None  # a view of one fresh buffer
    assert data.tolist() == [[1, 2]]


def test_absurd_fixed_length_is_refused_by_the_budget_before_allocating():
    with pytest.raises(BudgetError) as info:
        decode_raw([b"abcd"] * 4, "uint8", fixed_length=2**30)
    assert str(info.value).startswith(
        "padding to fixed_length 1073741824 would copy 4.0 GiB, above the 2.0 GiB copy "
        "budget (choose a smaller fixed_length")
    assert info.value.field == "fixed_length"


def test_absurd_fixed_length_on_empty_input_needs_no_memory():
    assert decode_raw([], "uint8", fixed_length=2**31 - 1).shape == (0, 2**31 - 1)


def test_truncating_fixed_length_never_copies_even_when_huge_input():
    data = np.zeros((3, 1 << 20), dtype=np.uint8)
    result = decode_raw(data, "float64", fixed_length=16)
    assert np.shares_memory(result, data) and result.shape == (3, 2)


def test_bool_scan_stops_at_the_first_byte_above_one():
    from core.decode.decode_raw import _any_byte_above_one

    data = np.zeros(100, dtype=np.uint8)
    data[::3] = 1
    assert not _any_byte_above_one(data, chunk=7)
    data[99] = 2  # in the last chunk
    assert _any_byte_above_one(data, chunk=7)
    strided = np.zeros((4, 8), dtype=np.uint8)[:, ::2]
    assert not _any_byte_above_one(strided)
    assert not _any_byte_above_one(np.zeros(0, dtype=np.uint8))


def test_bool_garbage_over_the_budget_is_refused_with_the_fix(tmp_path, monkeypatch):
    import core.budget
    from core import DecodeParams, Pipeline
    from core.errors import BudgetError

    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 1024)
    path = tmp_path / "garbage.bin"
    with open(path, "wb") as f:
        f.write(b"\x07")
        f.truncate(1 << 20)
    with Pipeline(path) as pipeline, pytest.raises(BudgetError, match="any nonzero byte is True") as info:
        pipeline.run(DecodeParams(dtype="bool"))
    assert info.value.field == "dtype" and "choose uint8" in str(info.value)


def test_a_numpy_bytes_scalar_loses_its_trailing_nuls_as_in_numpy_and_tf():
    """``np.bytes_`` is a 0-d ``S`` item: ``tf.constant(np.bytes_(b"ab\\0\\0"))`` holds ``b"ab"``."""
    assert decode_raw(np.bytes_(b"ab\x00\x00"), "uint8").tolist() == [97, 98]
    assert decode_raw(np.bytes_(b"a\x00b\x00"), "uint8").tolist() == [97, 0, 98]  # inner NULs stay
    assert decode_raw(b"ab\x00\x00", "uint8").tolist() == [97, 98, 0, 0]  # plain bytes keep them
