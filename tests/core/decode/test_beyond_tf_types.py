"""The types beyond TF (docs/semantics.md §2a): float8, int4/uint4 packed, int24/uint24.

Expected values come from ml_dtypes (float8, int4) and from Python's ``int.from_bytes`` (int24),
bit for bit.
"""

import ml_dtypes
import numpy as np
import pytest

import core.budget
from core.decode.decode_raw import decode_raw
from core.dtypes.table import EXTENDED_TYPES, FLOAT8_NAMES, is_tf_decode_type
from core.errors import BudgetError, DecodeError

ALL_BYTES = bytes(range(256))


def test_every_ml_dtypes_float8_variant_is_a_type_beyond_tf():
    # The table lists ml_dtypes 0.7's variants (known without importing it); a later ml_dtypes
    # may add more, which the table then lacks until they are added.
    installed = {name for name in dir(ml_dtypes) if name.startswith("float8_")}
    version = tuple(int(part) for part in ml_dtypes.__version__.split(".")[:2])
    assert installed <= set(FLOAT8_NAMES) or version > (0, 7), installed - set(FLOAT8_NAMES)
    assert len(FLOAT8_NAMES) == 9 and "float8_e5m3fnu" in FLOAT8_NAMES
    for name in (*FLOAT8_NAMES, "int4", "uint4", "int24", "uint24"):
        assert name in EXTENDED_TYPES and not is_tf_decode_type(name)


@pytest.mark.parametrize("name", FLOAT8_NAMES)
@pytest.mark.parametrize("little_endian", [True, False])
def test_every_float8_bit_pattern_decodes_as_ml_dtypes_reads_it(name, little_endian):
    expected = np.frombuffer(ALL_BYTES, dtype=getattr(ml_dtypes, name))
    got = decode_raw(ALL_BYTES, name, little_endian, extended_types=True)
    assert got.dtype == np.dtype(getattr(ml_dtypes, name)) and got.shape == (256,)
    assert got.view(np.uint8).tolist() == list(range(256))  # the stored bits, untouched
    wide, reference = got.astype(np.float64), expected.astype(np.float64)
    assert np.array_equal(np.isnan(wide), np.isnan(reference))
    assert np.array_equal(wide[~np.isnan(wide)], reference[~np.isnan(reference)])
    assert np.array_equal(np.signbit(wide), np.signbit(reference))


def test_float8_nan_and_infinity_patterns_per_variant():
    def specials(name):
        values = decode_raw(ALL_BYTES, name, extended_types=True).astype(np.float64)
        return (np.flatnonzero(np.isnan(values)).tolist(),
                np.flatnonzero(np.isinf(values)).tolist())
    # e4m3fn: S.1111.111 is NaN, no infinities (OCP FP8)
    assert specials("float8_e4m3fn") == ([0x7F, 0xFF], [])
    # e5m2: IEEE-like: exponent 11111 with mantissa 0 is +-inf, else NaN
    assert specials("float8_e5m2") == ([0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF], [0x7C, 0xFC])
    # fnuz: the "negative zero" pattern 0x80 is the one NaN
    assert specials("float8_e4m3fnuz") == ([0x80], [])
    assert specials("float8_e5m2fnuz") == ([0x80], [])
    assert specials("float8_e4m3b11fnuz") == ([0x80], [])
    # e8m0fnu: exponent only; 0xff is NaN
    assert specials("float8_e8m0fnu") == ([0xFF], [])


def test_float8_decodes_as_a_view():
    data = np.frombuffer(ALL_BYTES, np.uint8).reshape(4, 64)
    got = decode_raw(data, "float8_e4m3fn", extended_types=True)
    assert got.shape == (4, 64) and np.shares_memory(got, data)


@pytest.mark.parametrize("name", ["float8_e4m3fn", "int4", "uint24"])
def test_beyond_tf_types_need_extended_types_with_tfs_message(name):
    with pytest.raises(DecodeError) as info:
        decode_raw(b"\x00" * 6, name)
    assert str(info.value).startswith(f"Value for attr 'out_type' of {name} is not in the list")
    assert f"{name} is beyond TF's decode_raw: enable extended types to use it" in str(info.value)


def test_int4_is_two_values_per_byte_low_nibble_first():
    got = decode_raw(b"\x21\x43\x65\x87\xf0", "int4", extended_types=True)
    assert got.dtype == np.int8
    assert got.tolist() == [1, 2, 3, 4, 5, 6, 7, -8, 0, -1]
    got = decode_raw(b"\x21\x43\x65\x87\xf0", "uint4", extended_types=True)
    assert got.dtype == np.uint8
    assert got.tolist() == [1, 2, 3, 4, 5, 6, 7, 8, 0, 15]


@pytest.mark.parametrize(("name", "reference"), [("int4", ml_dtypes.int4), ("uint4", ml_dtypes.uint4)])
def test_every_byte_unpacks_as_ml_dtypes_reads_each_nibble(name, reference):
    nibbles = np.arange(16, dtype=np.uint8).view(reference).astype(np.int16)  # ml_dtypes' value
    got = decode_raw(ALL_BYTES, name, extended_types=True).reshape(256, 2)
    expected = np.stack([nibbles[np.arange(256) & 15], nibbles[np.arange(256) >> 4]], axis=1)
    assert np.array_equal(got.astype(np.int16), expected)
    # the byte order does not apply to nibbles
    assert np.array_equal(decode_raw(ALL_BYTES, name, False, extended_types=True).reshape(256, 2), got)


def test_int4_odd_byte_counts_are_whole_and_fixed_length_counts_bytes():
    assert decode_raw(b"\x10\x32\x54", "uint4", extended_types=True).tolist() == [0, 1, 2, 3, 4, 5]
    got = decode_raw([b"\x21", b"\x43\x65\x87"], "int4", fixed_length=3, extended_types=True)
    assert got.tolist() == [[1, 2, 0, 0, 0, 0], [3, 4, 5, 6, 7, -8]]  # zero-padded bytes
    got = decode_raw(np.frombuffer(b"\x21\x43\x65", np.uint8).reshape(1, 3), "int4",
                     extended_types=True)
    assert got.shape == (1, 6)


def _int24(triple: bytes, little: bool, signed: bool) -> int:
    return int.from_bytes(triple, "little" if little else "big", signed=signed)


@pytest.mark.parametrize("little", [True, False])
@pytest.mark.parametrize("signed", [True, False])
def test_int24_both_byte_orders_against_int_from_bytes(little, signed):
    rng = np.random.default_rng(24)
    data = bytes(rng.integers(0, 256, 3 * 500, dtype=np.uint8))
    edges = [b"\x00\x00\x80", b"\xff\xff\x7f", b"\xff\xff\xff", b"\x00\x00\x00", b"\x01\x00\x00"]
    if not little:
        edges = [e[::-1] for e in edges]
    data += b"".join(edges)
    name = "int24" if signed else "uint24"
    got = decode_raw(data, name, little, extended_types=True)
    assert got.dtype == (np.int32 if signed else np.uint32) and got.shape == (505,)
    expected = [_int24(data[i:i + 3], little, signed) for i in range(0, len(data), 3)]
    assert got.tolist() == expected
    if signed:  # 0x800000 is the most negative value, 0x7fffff the largest
        assert got[-5:].tolist() == [-8388608, 8388607, -1, 0, 1]
    else:
        assert got[-5:].tolist() == [8388608, 8388607, 16777215, 0, 1]


def test_int24_sign_extension_at_0x800000_in_both_orders():
    assert decode_raw(b"\x00\x00\x80", "int24", True, extended_types=True).tolist() == [-8388608]
    assert decode_raw(b"\x80\x00\x00", "int24", False, extended_types=True).tolist() == [-8388608]
    assert decode_raw(b"\x80\x00\x00", "int24", True, extended_types=True).tolist() == [128]


def test_int24_length_not_a_multiple_of_3_names_the_fix():
    with pytest.raises(DecodeError) as info:
        decode_raw(b"\x00" * 7, "int24", extended_types=True)
    assert str(info.value) == (
        "Input to DecodeRaw has length 7 that is not a multiple of 3, the size of int24 (choose "
        "a record size or length that is a multiple of 3, e.g. 6)")
    assert info.value.field == "fixed_length"
    with pytest.raises(DecodeError, match=r"^fixed_length \(4\) must be a multiple of the size "
                                          r"of out_type \(3\) \(choose a fixed_length that is a "
                                          r"multiple of 3, e.g. 3\)"):
        decode_raw(b"\x00" * 6, "uint24", fixed_length=4, extended_types=True)
    assert decode_raw(b"", "int24", extended_types=True).shape == (0,)


def test_unpacking_is_checked_against_the_copy_budget(monkeypatch):
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 1000)
    assert decode_raw(b"\x00" * 750, "int24", extended_types=True).nbytes == 1000
    with pytest.raises(BudgetError, match=r"^unpacking int24 values into int32 would copy"):
        decode_raw(b"\x00" * 753, "int24", extended_types=True)
    with pytest.raises(BudgetError, match=r"^unpacking uint4 values into uint8 would copy") as info:
        decode_raw(b"\x00" * 501, "uint4", extended_types=True)
    assert info.value.field == "dtype"
