"""Spec editing (core.slicing.editing): values, mask bits and entries, with hand-written specs."""

import pytest

from core.errors import SliceError
from core.slicing.editing import (
    insert_entry,
    parse_entry_value,
    remove_entry,
    signed32,
    swap_entries,
    with_bit,
    with_mask,
    with_value,
)
from core.slicing.expr import parse_slice
from core.slicing.spec import SliceSpec


def test_signed32_reads_bit_31_as_the_sign():
    assert signed32(0) == 0
    assert signed32(0b101) == 5
    assert signed32(0x7FFF_FFFF) == 2**31 - 1
    assert signed32(0x8000_0000) == -(2**31)
    assert signed32(0xFFFF_FFFF) == -1
    assert signed32(0x1_0000_0001) == 1  # bits above 31 are dropped


def test_with_value_sets_one_field_of_one_entry():
    spec = parse_slice("[1:3, 4]")
    assert with_value(spec, "begin", 0, -2) == SliceSpec((-2, 4), (3, 5), (1, 1), shrink_axis_mask=2)
    assert with_value(spec, "end", 1, 9) == SliceSpec((1, 4), (3, 9), (1, 1), shrink_axis_mask=2)
    assert with_value(spec, "strides", 0, -1) == parse_slice("[1:3:-1, 4]")


def test_with_value_refuses_what_the_spec_refuses():
    spec = parse_slice("[1:3]")
    with pytest.raises(SliceError, match="does not fit in int64"):
        with_value(spec, "end", 0, 2**63)
    with pytest.raises(IndexError, match="entry 1 is out of range for a spec of 1 entries"):
        with_value(spec, "begin", 1, 0)
    with pytest.raises(ValueError, match="'stride' is not one of begin, end, strides"):
        with_value(spec, "stride", 0, 2)


def test_with_mask_replaces_the_whole_mask():
    spec = parse_slice("[1:3, 4]")
    assert with_mask(spec, "begin_mask", 0b11) == SliceSpec(
        (1, 4), (3, 5), (1, 1), begin_mask=3, shrink_axis_mask=2
    )
    assert with_mask(spec, "shrink_axis_mask", 0) == SliceSpec((1, 4), (3, 5), (1, 1))
    with pytest.raises(SliceError, match="out of range for an int32"):
        with_mask(spec, "shrink_axis_mask", 2**31)
    with pytest.raises(ValueError, match="'shrink' is not one of begin_mask"):
        with_mask(spec, "shrink", 1)


def test_with_bit_sets_and_clears_one_bit():
    spec = parse_slice("[1:3, 4]")  # shrink_axis_mask == 0b10
    assert with_bit(spec, "shrink_axis_mask", 0, True).shrink_axis_mask == 0b11
    assert with_bit(spec, "shrink_axis_mask", 1, False) == SliceSpec((1, 4), (3, 5), (1, 1))
    assert with_bit(spec, "shrink_axis_mask", 1, True) == spec  # already set
    assert with_bit(spec, "end_mask", 5, True).end_mask == 0b100000  # beyond the spec: kept


def test_bit_31_is_the_sign_of_an_int32_mask():
    spec = SliceSpec.full()
    assert with_bit(spec, "begin_mask", 31, True).begin_mask == -(2**31)
    assert with_bit(with_mask(spec, "begin_mask", -1), "begin_mask", 31, False).begin_mask == (
        2**31 - 1
    )
    full = SliceSpec((0,) * 31, (0,) * 31, (1,) * 31, end_mask=-(2**31))
    assert remove_entry(full, 0).end_mask == 2**30  # bit 31 -> bit 30
    with pytest.raises(ValueError, match="bit 32 is not a bit of a 32-bit mask"):
        with_bit(spec, "begin_mask", 32, True)


def test_insert_entry_adds_a_full_range_and_shifts_later_bits():
    spec = parse_slice("[2, ..., 5:8, tf.newaxis]")
    assert insert_entry(spec, 0) == parse_slice("[:, 2, ..., 5:8, tf.newaxis]")
    assert insert_entry(spec, 1) == parse_slice("[2, :, ..., 5:8, tf.newaxis]")
    assert insert_entry(spec, 4) == parse_slice("[2, ..., 5:8, tf.newaxis, :]")
    assert insert_entry(SliceSpec.full(), 0) == SliceSpec((0,), (0,), (1,), begin_mask=1, end_mask=1)


def test_insert_entry_refuses_a_32nd_entry_and_a_position_past_the_end():
    with pytest.raises(SliceError, match="at most 31 entries"):
        insert_entry(SliceSpec((0,) * 31, (0,) * 31, (1,) * 31), 0)
    with pytest.raises(IndexError, match="entry 3 is out of range for a spec of 2 entries"):
        insert_entry(parse_slice("[1, 2]"), 3)


def test_bits_beyond_the_spec_stay_beyond_it():
    spec = SliceSpec((1,), (2,), (1,), shrink_axis_mask=1, end_mask=0b100)  # bit 2: beyond
    grown = insert_entry(spec, 0)
    assert grown.end_mask == 0b1001 and len(grown) == 2  # new entry's bit 0 + old bit 2 -> 3
    assert grown.shrink_axis_mask == 0b10
    assert remove_entry(grown, 0) == spec


def test_remove_entry_drops_values_and_bits_together():
    spec = parse_slice("[2, ..., 5:8:2, tf.newaxis]")
    assert remove_entry(spec, 0) == parse_slice("[..., 5:8:2, tf.newaxis]")
    assert remove_entry(spec, 1) == parse_slice("[2, 5:8:2, tf.newaxis]")
    assert remove_entry(spec, 3) == parse_slice("[2, ..., 5:8:2]")
    assert remove_entry(parse_slice("[7]"), 0) == SliceSpec.full()
    with pytest.raises(IndexError, match="entry 0 is out of range for a spec of 0 entries"):
        remove_entry(SliceSpec.full(), 0)


def test_swap_entries_moves_values_and_bits_together():
    spec = parse_slice("[2, ..., 5:8:2, tf.newaxis]")
    assert swap_entries(spec, 0, 2) == parse_slice("[5:8:2, ..., 2, tf.newaxis]")
    assert swap_entries(spec, 3, 2) == parse_slice("[2, ..., tf.newaxis, 5:8:2]")
    assert swap_entries(spec, 1, 1) == spec
    with pytest.raises(IndexError, match="entry 4 is out of range"):
        swap_entries(spec, 3, 4)


def test_mask_only_entries_keep_their_exact_bits_when_moved():
    # A shrink entry with a begin mask: no index expression writes it, the bits must survive.
    spec = SliceSpec((1, 0), (2, 0), (1, 1), begin_mask=0b11, end_mask=0b10, shrink_axis_mask=0b01)
    assert swap_entries(spec, 0, 1) == SliceSpec(
        (0, 1), (0, 2), (1, 1), begin_mask=0b11, end_mask=0b01, shrink_axis_mask=0b10
    )


def test_parse_entry_value_reads_typed_integers():
    assert parse_entry_value(" 9_000_000_000 ", "end of entry 0") == 9_000_000_000
    assert parse_entry_value("-1", "begin of entry 2") == -1
    with pytest.raises(SliceError) as raised:
        parse_entry_value("two", "stride of entry 0")
    assert raised.value.message == (
        "stride of entry 0 'two' is not an integer (type a whole number such as -1 or 5)"
    )
    with pytest.raises(SliceError, match="is not an integer"):
        parse_entry_value("1.5", "end of entry 0")
