"""The slice editor's pieces without the widget: entry editing, table model, feedback text."""


import pytest
from PySide6.QtCore import Qt

from core.errors import SliceError
from core.slicing.expr import parse_slice
from core.slicing.feedback import describe, highlight_html
from core.slicing.spec import SliceSpec
from inspector.slice_editor.entries_model import (
    SliceEntriesModel,
    insert_entry,
    remove_entry,
    swap_entries,
    with_bit,
    with_mask,
    with_value,
)


def test_insert_entry_adds_a_full_range_and_shifts_later_bits():
    spec = parse_slice("[2, ..., 5:8, tf.newaxis]")
    assert insert_entry(spec, 1) == parse_slice("[2, :, ..., 5:8, tf.newaxis]")
    assert insert_entry(spec, 4) == parse_slice("[2, ..., 5:8, tf.newaxis, :]")
    assert insert_entry(SliceSpec.full(), 0) == parse_slice("[:]")


def test_bits_beyond_the_spec_stay_beyond_it():
    spec = SliceSpec((1,), (2,), (1,), shrink_axis_mask=1, end_mask=0b100)  # bit 2: beyond
    grown = insert_entry(spec, 0)
    assert grown.end_mask == 0b1001 and len(grown) == 2  # new entry's bit 0 + old bit 2 -> 3
    assert remove_entry(grown, 0) == spec


def test_bit_31_is_the_sign_of_an_int32_mask():
    spec = SliceSpec.full()
    assert with_bit(spec, "begin_mask", 31, True).begin_mask == -(2**31)
    assert with_bit(with_mask(spec, "begin_mask", -1), "begin_mask", 31, False).begin_mask == (
        2**31 - 1
    )
    full = SliceSpec((0,) * 31, (0,) * 31, (1,) * 31, end_mask=-(2**31))
    assert remove_entry(full, 0).end_mask == 2**30  # bit 31 -> bit 30


def test_remove_and_swap_move_values_and_bits_together():
    spec = parse_slice("[2, ..., 5:8:2, tf.newaxis]")
    assert remove_entry(spec, 1) == parse_slice("[2, 5:8:2, tf.newaxis]")
    assert swap_entries(spec, 0, 2) == parse_slice("[5:8:2, ..., 2, tf.newaxis]")
    assert swap_entries(spec, 3, 2) == parse_slice("[2, ..., tf.newaxis, 5:8:2]")


def test_value_edits_are_validated_by_the_spec():
    spec = parse_slice("[1:3]")
    assert with_value(spec, "strides", 0, -1) == parse_slice("[1:3:-1]")
    with pytest.raises(SliceError, match="does not fit in int64"):
        with_value(spec, "end", 0, 2**63)
    with pytest.raises(SliceError):
        with_mask(spec, "shrink_axis_mask", 2**31)
    with pytest.raises(SliceError):
        insert_entry(SliceSpec((0,) * 31, (0,) * 31, (1,) * 31), 0)


def test_model_reports_edits_without_changing_itself(qtbot):
    model = SliceEntriesModel()
    model.set_spec(parse_slice("[1:3, ...]"))
    edited, rejected = [], []
    model.specEdited.connect(edited.append)
    model.editRejected.connect(rejected.append)
    assert model.rowCount() == 2 and model.columnCount() == 9
    assert model.index(0, 1).data(Qt.ItemDataRole.EditRole) == "1"
    assert model.index(1, 0).data() == "ellipsis"
    assert model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole) == "as an item: 1:3"
    assert model.setData(model.index(0, 2), " 9_000_000_000 ")
    assert edited == [parse_slice("[1:9000000000, ...]")]
    assert model.spec() == parse_slice("[1:3, ...]")  # unchanged until set_spec
    assert not model.setData(model.index(0, 3), "two")
    assert rejected == [
        "stride of entry 0 'two' is not an integer (type a whole number such as -1 or 5)"
    ]
    assert model.setData(
        model.index(1, 8), Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole
    )
    assert edited[-1].shrink_axis_mask == 2
    assert not model.flags(model.index(0, 0)) & Qt.ItemFlag.ItemIsEditable


def test_describe_reports_engine_errors_and_notes():
    feedback = describe(parse_slice("[::0]"), (3,))
    assert feedback.error.startswith("strides[0] must be non-zero")
    assert feedback.output_rows == () and feedback.summary == "input (3,) -> no output"
    reversed_ = describe(parse_slice("[::-1, 1]"), (3, 4, 2))
    assert reversed_.summary == "input (3, 4, 2) -> output (3, 2)"
    assert reversed_.input_rows[2] == (
        "input dim 2 (size 2): taken whole by the implicit ellipsis after the last entry "
        "-> output dim 1"
    )
    assert reversed_.notes == (
        "no ellipsis in the spec: an implicit one after the last entry takes input dim 2 whole",
    )


def test_highlight_marks_the_culprit_or_an_insertion_point():
    assert highlight_html("[1, <x]", 4, 1).count("&lt;") == 1
    marked = highlight_html("[1, 2", 5, 0)
    assert marked.startswith('<span style="white-space:pre">[1, 2<span')
    assert "<b>&nbsp;&nbsp;</b>" in marked
