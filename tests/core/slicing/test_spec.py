"""core.slicing.spec.SliceSpec and its shape-only analysis (docs/semantics.md §4, §5).

The analysis cases are golden: derived by hand from docs/semantics.md §4, reasoning in comments.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from core.errors import SliceError
from core.slicing.analysis import InputDim, OutputDim
from core.slicing.spec import SliceSpec


def data(shape):
    return np.arange(int(np.prod(shape))).reshape(shape).copy()


# -------------------------------------------------------------------------- construction


class TestConstruction:
    def test_defaults_and_normalisation(self):
        spec = SliceSpec([1, np.int64(2)], (3, 4))
        assert spec.begin == (1, 2) and spec.end == (3, 4) and spec.strides == (1, 1)
        assert all(type(v) is int for v in spec.begin + spec.end + spec.strides)
        assert spec == SliceSpec((1, 2), (3, 4), (1, 1))
        assert hash(spec) == hash(SliceSpec((1, 2), (3, 4), (1, 1)))
        assert len(spec) == 2

    def test_full_is_the_empty_spec(self):
        assert SliceSpec.full() == SliceSpec() == SliceSpec((), (), ())
        assert len(SliceSpec.full()) == 0
        x = data((2, 3))
        result = SliceSpec.full().apply(x)
        np.testing.assert_array_equal(result, x)
        assert result.base is x

    def test_frozen(self):
        spec = SliceSpec((1,), (2,))
        with pytest.raises(AttributeError):
            spec.begin = (0,)  # type: ignore[misc]

    def test_picklable(self):
        spec = SliceSpec((1, 0), (2, 0), (1, -1), begin_mask=2, shrink_axis_mask=1)
        assert pickle.loads(pickle.dumps(spec)) == spec

    def test_shape_independent_errors_at_construction(self):
        with pytest.raises(SliceError) as e:
            SliceSpec((0, 0), (1,), (1,))
        assert str(e.value) == (
            "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [2], "
            "[1], and [1] instead. (give begin, end and strides the same number of entries)"
        )
        with pytest.raises(SliceError, match="out of range for an int32"):
            SliceSpec((0,), (1,), shrink_axis_mask=-(1 << 31) - 1)
        with pytest.raises(SliceError, match="does not fit in int64"):
            SliceSpec((0,), (-(1 << 63) - 1,))

    def test_two_ellipses_construct_then_fail_when_applied(self):
        spec = SliceSpec((0, 0), (0, 0), (1, 1), ellipsis_mask=3)
        with pytest.raises(SliceError) as e:
            spec.apply(data((2,)))
        assert str(e.value) == (
            "Multiple ellipses in slice spec not allowed (keep a single '...': ellipsis_mask "
            "has bits 0, 1 set)"
        )
        with pytest.raises(SliceError, match="^Multiple ellipses"):
            spec.analyze((2,))


class TestFromIndex:
    def test_tf_slice_helper_rules(self):
        # x[1:, tf.newaxis, -1, ..., ::2]
        spec = SliceSpec.from_index((slice(1, None), None, -1, Ellipsis, slice(None, None, 2)))
        assert spec == SliceSpec(
            (1, 0, -1, 0, 0),
            (0, 0, 0, 0, 0),
            (1, 1, 1, 1, 2),
            begin_mask=0b10000,
            end_mask=0b10001,
            ellipsis_mask=0b01000,
            new_axis_mask=0b00010,
            shrink_axis_mask=0b00100,
        )

    def test_single_items_and_empty_tuple(self):
        assert SliceSpec.from_index(3) == SliceSpec((3,), (4,), (1,), shrink_axis_mask=1)
        assert SliceSpec.from_index(()) == SliceSpec()
        assert SliceSpec.from_index(Ellipsis) == SliceSpec((0,), (0,), (1,), ellipsis_mask=1)

    @pytest.mark.parametrize("item", [True, 1.5, "1", [1], slice(0.5, 2)])
    def test_refuses_other_items(self, item):
        with pytest.raises(SliceError, match="item 0"):
            SliceSpec.from_index(item)

    def test_too_many_items(self):
        with pytest.raises(SliceError, match=r"shapes \[32\], \[32\], and \[32\]"):
            SliceSpec.from_index((0,) * 32)
        assert len(SliceSpec.from_index((0,) * 31)) == 31


def test_entry_kind_follows_precedence():
    spec = SliceSpec(
        (0,) * 5, (0,) * 5, (1,) * 5, ellipsis_mask=0b00001, new_axis_mask=0b00011,
        shrink_axis_mask=0b00111,
    )
    kinds = [spec.entry_kind(i) for i in range(5)]
    assert kinds == ["ellipsis", "new_axis", "index", "range", "range"]
    with pytest.raises(IndexError):
        spec.entry_kind(5)


# ------------------------------------------------------------------------------ analyze


class TestAnalyzeGolden:
    def test_begin_mask_with_shrink(self):
        # (4, 5) with begin [1, 0], end [2, 0], begin_mask 1, shrink 1: dim 0 shrinks at 1
        # (begin_mask ignored), dim 1 is [0, 0) -> length 0.
        spec = SliceSpec((1, 0), (2, 0), (1, 1), begin_mask=1, shrink_axis_mask=1)
        a = spec.analyze((4, 5))
        assert a.output_shape == (0,)
        assert a.output_dims == (OutputDim("slice", 0, 1, 1, 0, 0, 1),)
        assert a.input_dims == (
            InputDim(4, "shrink", 0, index=1),
            InputDim(5, "slice", 1, output_dim=0),
        )
        assert a.notes == ("begin_mask bit 0 ignored because entry 0 shrinks",)

    def test_new_axis_and_shrink_on_one_bit(self):
        # (3, 4): entry 0 is a new axis (wins over shrink), entry 1 shrinks dim 0 at 2, the
        # implicit ellipsis takes dim 1 -> (1, 4).
        spec = SliceSpec((1, 2), (2, 3), (1, 1), new_axis_mask=1, shrink_axis_mask=3)
        a = spec.analyze((3, 4))
        assert a.output_shape == (1, 4)
        assert a.output_dims == (
            OutputDim("new_axis", 1, 0),
            OutputDim("slice", 4, None, 1, 0, 4, 1),
        )
        assert a.input_dims == (
            InputDim(3, "shrink", 1, index=2),
            InputDim(4, "ellipsis", None, output_dim=1, implicit=True),
        )
        assert a.notes == (
            "entry 0: new_axis and shrink both set; new axis wins",
            "begin 1 and end 2 of entry 0 ignored because it is a new axis",
            "no ellipsis in the spec: an implicit one after the last entry takes input dim 1 "
            "whole",
        )

    def test_bits_beyond_the_spec(self):
        spec = SliceSpec(
            (0, 1, 2), (1, 2, 3), end_mask=0b1100000, ellipsis_mask=0b10000,
            shrink_axis_mask=0b1000,
        )
        a = spec.analyze((5, 5, 5))
        assert a.output_shape == (1, 1, 1)
        assert a.notes == (
            "bits 5, 6 of end_mask are beyond the spec's 3 entries and are ignored",
            "bit 4 of ellipsis_mask is beyond the spec's 3 entries and is ignored "
            "(it still counts toward the one-ellipsis limit)",
            "bit 3 of shrink_axis_mask is beyond the spec's 3 entries and is ignored",
        )

    def test_shrink_ignores_stride_end_and_masks(self):
        # entry 0 shrinks at 2 of dim 0 (size 5): its begin_mask, end 0 and stride 3 are
        # ignored; entry 1 is the ellipsis (stride 0 and end 5 ignored) taking dim 1; entry 2
        # is 1:4 of dim 2 -> (6, 3).
        spec = SliceSpec(
            (2, 0, 1), (0, 5, 4), (3, 0, 1), begin_mask=0b011, ellipsis_mask=0b010,
            shrink_axis_mask=0b001,
        )
        a = spec.analyze((5, 6, 7))
        assert a.output_shape == (6, 3)
        assert a.input_dims == (
            InputDim(5, "shrink", 0, index=2),
            InputDim(6, "ellipsis", 1, output_dim=0),
            InputDim(7, "slice", 2, output_dim=1),
        )
        assert a.notes == (
            "begin_mask bit 0 ignored because entry 0 shrinks",
            "end 0 of shrink entry 0 ignored (a shrink takes the single element at begin)",
            "stride 3 on shrink entry 0 is ignored",
            "begin_mask bit 1 ignored because entry 1 is the ellipsis",
            "end 5 of entry 1 ignored because it is the ellipsis",
            "stride 0 on ellipsis entry 1 is ignored",
        )

    def test_masked_begin_value_and_negative_stride(self):
        # (6,): begin 4 is masked away; stride -2 starts at dim-1 = 5; end 1 -> 5, 3 (2 elems).
        spec = SliceSpec((4,), (1,), (-2,), begin_mask=1)
        a = spec.analyze((6,))
        assert a.output_dims == (OutputDim("slice", 2, 0, 0, 5, 1, -2),)
        assert a.notes == ("begin 4 of entry 0 ignored because begin_mask bit 0 is set",)

    def test_end_before_zero_is_minus_one(self):
        a = SliceSpec.from_index(slice(None, None, -1)).analyze((3,))
        assert a.output_dims == (OutputDim("slice", 3, 0, 0, 2, -1, -1),)

    def test_expression_notes_are_quiet(self):
        # A spec an index expression wrote has no precedence to explain.
        a = SliceSpec.from_index((1, Ellipsis, slice(None, None, -2), None)).analyze((3, 4, 5, 6))
        assert a.output_shape == (4, 5, 3, 1)
        assert a.notes == ()

    def test_scalar(self):
        a = SliceSpec.full().analyze(())
        assert a.output_shape == () and a.input_dims == () and a.output_dims == ()
        assert a.source_index(()) == ()
        a = SliceSpec.from_index(None).analyze(())
        assert a.output_shape == (1,)
        assert a.source_index((0,)) == ()

    def test_source_index(self):
        # x[1, ::-2, None] on (2, 5): output (3, 1); output (2, 0) is input (1, 0).
        a = SliceSpec.from_index((1, slice(None, None, -2), None)).analyze((2, 5))
        assert a.source_index((0, 0)) == (1, 4)
        assert a.source_index((2, 0)) == (1, 0)
        with pytest.raises(IndexError):
            a.source_index((3, 0))
        with pytest.raises(IndexError):
            a.source_index((0,))

    def test_errors_match_apply(self):
        spec = SliceSpec.from_index((0, 0))
        with pytest.raises(SliceError) as e:
            spec.analyze((3,))
        assert str(e.value).startswith(
            "Index out of range using input dim 1; input has only 1 dims"
        )


def test_analyze_matches_apply_on_a_catalogue():
    shapes = [(), (0,), (3,), (2, 0, 4), (3, 4, 5)]
    keys = [(), 0, -1, slice(None, None, -1), None, Ellipsis, (Ellipsis, None), (1, Ellipsis, 2),
            (slice(1, None), None, slice(None, -1, 2))]
    for shape in shapes:
        for key in keys:
            spec = SliceSpec.from_index(key)
            try:
                result = spec.apply(np.empty(shape))
            except SliceError as error:
                with pytest.raises(SliceError) as again:
                    spec.analyze(shape)
                assert str(again.value) == str(error)
            else:
                assert spec.analyze(shape).output_shape == result.shape
