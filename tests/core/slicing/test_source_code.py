"""core.slicing.source_code: a spec as TensorFlow, numpy and TF Java source text (docs/semantics.md §4, §5)."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import SliceError
from core.slicing.expr import parse_slice
from core.slicing.source_code import to_java, to_numpy, to_tf
from core.slicing.spec import SliceSpec

MASK_ONLY = SliceSpec((1, 0), (2, 0), (1, 1), begin_mask=1, shrink_axis_mask=1)


class TestToTf:
    def test_golden(self):
        assert to_tf(parse_slice("2, ..., 5:8, tf.newaxis"), "x") == (
            "tf.strided_slice(x, begin=[2, 0, 5, 0], end=[3, 0, 8, 0], strides=[1, 1, 1, 1], "
            "begin_mask=0, end_mask=0, ellipsis_mask=2, new_axis_mask=8, shrink_axis_mask=1)"
        )
        assert to_tf(MASK_ONLY, "t") == (
            "tf.strided_slice(t, begin=[1, 0], end=[2, 0], strides=[1, 1], begin_mask=1, "
            "end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=1)"
        )

    def test_seed_style_masks(self):
        # foo[:, 3, :] -> shrink_axis_mask 2 (the seed's example), begin/end masks 5
        assert to_tf(SliceSpec.from_index(np.s_[:, 3, :]), "foo") == (
            "tf.strided_slice(foo, begin=[0, 3, 0], end=[0, 4, 0], strides=[1, 1, 1], "
            "begin_mask=5, end_mask=5, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=2)"
        )

    def test_empty_spec_uses_typed_constants(self):
        # tf.constant([]) would be float32, which StridedSlice refuses as an index type
        assert to_tf(SliceSpec.full()) == (
            "tf.strided_slice(x, begin=tf.constant([], tf.int32), end=tf.constant([], tf.int32), "
            "strides=tf.constant([], tf.int32), begin_mask=0, end_mask=0, ellipsis_mask=0, "
            "new_axis_mask=0, shrink_axis_mask=0)"
        )

    def test_values_beyond_int32_make_all_three_int64(self):
        assert to_tf(parse_slice("3000000000:")) == (
            "tf.strided_slice(x, begin=tf.constant([3000000000], tf.int64), "
            "end=tf.constant([0], tf.int64), strides=tf.constant([1], tf.int64), "
            "begin_mask=0, end_mask=1, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0)"
        )

    def test_bad_name(self):
        with pytest.raises(SliceError, match="non-empty string"):
            to_tf(MASK_ONLY, "")


class TestToNumpy:
    @pytest.mark.parametrize(
        ("text", "numpy"),
        [
            ("2, ..., 5:8, tf.newaxis", "x[2, ..., 5:8, np.newaxis]"),
            ("[]", "x[...]"),
            ("::-1, None", "x[::-1, np.newaxis]"),
            ("-1, 1:, :3:2", "x[-1, 1:, :3:2]"),
        ],
    )
    def test_golden(self, text, numpy):
        assert to_numpy(parse_slice(text)) == numpy

    def test_name(self):
        assert to_numpy(parse_slice("1"), "image") == "image[1]"

    def test_mask_only_spec_is_refused(self):
        with pytest.raises(SliceError) as e:
            to_numpy(MASK_ONLY)
        assert str(e.value) == (
            "strided_slice(begin=[1, 0], end=[2, 0], strides=[1, 1], begin_mask=1, "
            "shrink_axis_mask=1) cannot be written as a numpy index (its masks say more than an "
            "index expression can; export it with to_tf() instead)"
        )
        assert e.value.field == "slice"

    @pytest.mark.parametrize(
        "text", ["2, ..., 5:8, tf.newaxis", "[]", "::-1, None", "-1, 1:, :3:2", "..., 0, 0",
                 "None, None, 1::-1"]
    )
    def test_reproduces_apply(self, text):
        x = np.arange(4 * 5 * 6 * 9).reshape(4, 5, 6, 9)
        spec = parse_slice(text)
        # eval here only checks the exported text; product code never evaluates anything
        expected = eval(to_numpy(spec, "x"), {"x": x, "np": np})
        np.testing.assert_array_equal(spec.apply(x), expected)


class TestToJava:
    def test_golden(self):
        spec = SliceSpec((0, 3, 0), (0, 4, 0), begin_mask=5, end_mask=5, shrink_axis_mask=2)
        assert to_java(spec) == (
            "StridedSlice.beginMask(5L), StridedSlice.endMask(5L), "
            "StridedSlice.shrinkAxisMask(2L)"
        )
        assert to_java(parse_slice("..., tf.newaxis")) == (
            "StridedSlice.ellipsisMask(1L), StridedSlice.newAxisMask(2L)"
        )

    def test_all_zero_masks_give_no_options(self):
        assert to_java(parse_slice("1:2")) == ""
        assert to_java(SliceSpec.full()) == ""

    def test_negative_mask(self):
        assert to_java(SliceSpec((0,), (0,), begin_mask=-1)) == "StridedSlice.beginMask(-1L)"
