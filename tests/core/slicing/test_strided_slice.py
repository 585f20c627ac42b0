"""core.slicing.strided_slice: TensorFlow's strided slice, organised like TF's StridedSliceChecker.

Numpy basic indexing is the oracle wherever an index expression expresses the spec; the mask-only
combinations and every error message are hand-derived golden cases (docs/semantics.md §4), with the
reasoning in a comment.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from core.errors import CoreError, SliceError
from core.slicing.spec import SliceSpec, strided_slice


def data(shape):
    """``arange`` data that owns its memory, so a view's ``.base`` is exactly this array."""
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape).copy()


def assert_view(result, x):
    """An ndarray (0-d included), sharing x's memory, whose base chain reaches x."""
    assert isinstance(result, np.ndarray)
    if result.size:
        assert np.shares_memory(result, x)
    chain = []
    base = result
    while base is not None:
        chain.append(base)
        base = base.base
    assert any(b is x for b in chain), "result is not a view of x"


def check(x, key, **masks_and_values):
    """Apply SliceSpec.from_index(key) and compare with numpy's x[key] (the oracle)."""
    spec = SliceSpec.from_index(key)
    result = spec.apply(x)
    expected = x[key]
    assert result.shape == np.shape(expected)
    np.testing.assert_array_equal(result, expected)
    assert_view(result, x)
    direct = strided_slice(
        x,
        spec.begin,
        spec.end,
        spec.strides,
        begin_mask=spec.begin_mask,
        end_mask=spec.end_mask,
        ellipsis_mask=spec.ellipsis_mask,
        new_axis_mask=spec.new_axis_mask,
        shrink_axis_mask=spec.shrink_axis_mask,
    )
    np.testing.assert_array_equal(direct, expected)
    assert_view(direct, x)
    return result


def message(excinfo) -> str:
    return str(excinfo.value)


# ------------------------------------------------------------------------------- basic


class TestBasic:
    def test_full_ranges_and_steps(self):
        x = data((5, 6, 7))
        for key in [
            np.s_[:],
            np.s_[1:3],
            np.s_[1:3, 2:5],
            np.s_[::2, 1::3, :-1],
            np.s_[-3:, :2, 1:6:2],
            np.s_[0:5:4],
            np.s_[1:-1, -5:-1:2],
        ]:
            check(x, key)

    def test_clamping_like_python(self):
        x = data((5,))
        for key in [np.s_[-100:100], np.s_[3:100], np.s_[-100:2], np.s_[7:9], np.s_[-9:-7]]:
            check(x, key)
        # begin -100 -> -95 -> clamped to 0; end 100 -> clamped to 5: the whole axis.
        np.testing.assert_array_equal(strided_slice(x, [-100], [100], [1]), [0, 1, 2, 3, 4])

    def test_catalogue_product(self):
        # numpy's test_indexing style: every pair of items from a catalogue on a 2-D array.
        x = data((4, 5))
        items = [0, -1, 3, np.s_[:], np.s_[1:3], np.s_[::-1], np.s_[-2::-2], np.s_[3:0:-1], None]
        for a, b in itertools.product(items, repeat=2):
            check(x, (a, b))

    def test_all_indices_gives_0d_view(self):
        x = data((3, 4))
        result = check(x, (1, 2))
        assert result.shape == () and result[()] == 6
        assert isinstance(result, np.ndarray) and not isinstance(result, np.generic)
        result[()] = -1  # writes through: it is a view
        assert x[1, 2] == -1

    def test_non_array_input_is_converted(self):
        np.testing.assert_array_equal(strided_slice([[1, 2], [3, 4]], [1], [2], [1]), [[3, 4]])

    def test_default_strides_are_ones(self):
        x = data((6,))
        np.testing.assert_array_equal(strided_slice(x, [1], [4]), [1, 2, 3])

    def test_numpy_integer_arrays_accepted(self):
        x = data((6,))
        result = strided_slice(x, np.array([1]), np.array([5], np.int64), np.array([2], np.int32))
        np.testing.assert_array_equal(result, [1, 3])


# --------------------------------------------------------------------------- degenerate


class TestDegenerate:
    def test_empty_ranges(self):
        x = data((5, 4))
        for key in [np.s_[3:1], np.s_[2:2], np.s_[1:3:-1], np.s_[0:0, 1:3], np.s_[4:4, ::-1]]:
            result = check(x, key)
            assert result.size == 0

    def test_zero_size_dimensions(self):
        x = data((0, 3, 0))
        for key in [np.s_[:], np.s_[:, 1], np.s_[..., ::-1], np.s_[None, :, 1:2], np.s_[5:, -1]]:
            check(x, key)

    def test_shrink_on_zero_size_dimension_fails(self):
        with pytest.raises(SliceError) as e:
            SliceSpec.from_index(0).apply(data((0, 3)))
        assert message(e) == (
            "slice index 0 of dimension 0 out of bounds. "
            "(dimension 0 has size 0 and cannot be indexed)"
        )


# ----------------------------------------------------------------------- negative strides


class TestNegativeStrides:
    def test_reverse_and_step(self):
        x = data((5, 6))
        for key in [
            np.s_[::-1],
            np.s_[::-2],
            np.s_[3::-1],
            np.s_[:1:-1],
            np.s_[4:0:-2],
            np.s_[-1:-6:-1],
            np.s_[100:-100:-1],
            np.s_[:, ::-3],
            np.s_[3:-1:-1],
        ]:
            check(x, key)

    def test_end_minus_one_means_before_index_zero(self):
        # begin -1 -> 4; end -6 -> -1, inside [-1, 4]: -1 is "before index 0", so all 5
        # elements are taken backwards (a Python slice needs stop None here, not -1).
        x = data((5,))
        np.testing.assert_array_equal(strided_slice(x, [-1], [-6], [-1]), [4, 3, 2, 1, 0])
        # end -1 (unmasked) -> 4 after adding dim: [3, 4) backwards is empty.
        assert strided_slice(x, [3], [-1], [-1]).shape == (0,)
        # A masked end with a negative stride is "before 0" as well.
        np.testing.assert_array_equal(
            strided_slice(x, [3], [0], [-1], end_mask=1), [3, 2, 1, 0]
        )

    def test_masked_begin_with_negative_stride_is_last_element(self):
        x = data((4,))
        np.testing.assert_array_equal(
            strided_slice(x, [0], [1], [-1], begin_mask=1), [3, 2]
        )


# ----------------------------------------------------------------------------- ellipsis


class TestEllipsis:
    def test_ellipsis_positions(self):
        x = data((2, 3, 4, 5))
        for key in [
            np.s_[...],
            np.s_[..., 1],
            np.s_[1, ...],
            np.s_[1, ..., 2],
            np.s_[..., ::-1, 1:3],
            np.s_[0, 1, 2, 3, ...],
            np.s_[0, ..., 1, 2, 3],
            np.s_[..., None, 0],
            np.s_[None, ..., None],
        ]:
            check(x, key)

    def test_ellipsis_expanding_to_nothing(self):
        x = data((2, 3))
        check(x, np.s_[0, ..., 1])

    def test_explicit_ellipsis_equals_implicit(self):
        # x[3:5] == x[3:5, ...] (the implicit ellipsis of the seed's ellipsisMask doc)
        x = data((6, 3, 2))
        short = SliceSpec.from_index(np.s_[3:5]).apply(x)
        np.testing.assert_array_equal(short, SliceSpec.from_index(np.s_[3:5, ...]).apply(x))

    def test_seed_example_2_ellipsis_5_8(self):
        # Seed: for a 4-D foo, foo[2, ..., 5:8] implies foo[2, :, :, 5:8].
        x = data((3, 4, 5, 9))
        np.testing.assert_array_equal(
            SliceSpec.from_index(np.s_[2, ..., 5:8]).apply(x), x[2, :, :, 5:8]
        )

    def test_stride_zero_on_ellipsis_is_ignored(self):
        # Entry 0 is the ellipsis: its begin/end/stride (0!) are never read by BuildDenseSpec.
        x = data((2, 3))
        result = strided_slice(x, [5], [9], [0], ellipsis_mask=1)
        np.testing.assert_array_equal(result, x)
        assert_view(result, x)


# ----------------------------------------------------------------------------- new axis


class TestNewAxis:
    def test_seed_example(self):
        # Seed: foo[:4, tf.newaxis, :2] has shape (4, 1, 2).
        x = data((6, 3))
        assert check(x, np.s_[:4, None, :2]).shape == (4, 1, 2)

    def test_new_axes_everywhere(self):
        x = data((2, 3))
        for key in [np.s_[None], np.s_[None, None], np.s_[:, None], np.s_[None, 1, None, ::-1]]:
            check(x, key)

    def test_scalar_input_with_new_axis_only(self):
        # x[tf.newaxis] on a 0-d input: entry 0 is a new axis (consumes no dim), the implicit
        # ellipsis expands to min(0 - 1 + 1 + 0, 0) = 0 dims -> shape (1,).
        x = np.array(7.5)
        result = strided_slice(x, [0], [0], [1], new_axis_mask=1)
        assert result.shape == (1,) and result[0] == 7.5
        assert_view(result, x)
        both = strided_slice(x, [0, 0, 0], [0, 0, 0], [1, 1, 1], ellipsis_mask=2, new_axis_mask=5)
        assert both.shape == (1, 1)

    def test_scalar_input_with_empty_spec(self):
        # The empty spec is an implicit ellipsis taking zero dims: the 0-d input itself, as a view.
        x = np.array(3, dtype=np.int16)
        result = strided_slice(x, [], [], [])
        assert result.shape == () and result.dtype == np.int16 and result[()] == 3
        assert_view(result, x)

    def test_stride_zero_on_new_axis_is_ignored(self):
        # Entry 0 is a new axis (stride 0 never read); entry 1 is a full range of dim 0.
        x = data((3,))
        result = strided_slice(
            x, [0, 0], [0, 0], [0, 1], begin_mask=2, end_mask=2, new_axis_mask=1
        )
        assert result.shape == (1, 3)
        np.testing.assert_array_equal(result[0], x)


# ------------------------------------------------------------------------------ shrink


class TestShrink:
    def test_indices(self):
        x = data((3, 4, 5))
        keys = [np.s_[0], np.s_[-1], np.s_[2, -4], np.s_[:, 3], np.s_[..., -5], np.s_[1, 2, 3]]
        for key in keys:
            check(x, key)

    def test_seed_example_shrink_mask_2(self):
        # Seed: foo[:, 3, :] gives shrink_axis_mask 2.
        assert SliceSpec.from_index(np.s_[:, 3, :]).shrink_axis_mask == 2

    def test_shrink_ignores_masks_and_end(self):
        # begin_mask and end_mask bits of a shrink entry are ignored, and so is end: TF takes
        # begin (3) and re-creates end as begin + 1.
        x = data((5, 2))
        result = strided_slice(x, [3], [0], [1], begin_mask=1, end_mask=1, shrink_axis_mask=1)
        np.testing.assert_array_equal(result, x[3])
        assert_view(result, x)

    def test_stride_above_one_on_shrink_is_ignored(self):
        # interval 1, stride 3: size = 1 / 3 + (1 % 3 != 0) = 1; the element at begin.
        x = data((5,))
        result = strided_slice(x, [2], [3], [3], shrink_axis_mask=1)
        assert result.shape == () and result[()] == 2
        assert_view(result, x)

    def test_negative_shrink_index(self):
        # -1 -> dim - 1; end 0 (as x[-1] produces) is ignored.
        x = data((4, 2))
        np.testing.assert_array_equal(strided_slice(x, [-1], [0], [1], shrink_axis_mask=1), x[3])


# ------------------------------------------------------------------------ combined masks


class TestCombinedMasks:
    def test_begin_mask_with_shrink(self):
        # The spec of the brief: entry 0 shrinks at 1 (its begin_mask bit is ignored); entry 1
        # is begin 0, end 0 unmasked: [0, 0) is empty. Shape (4, 5) -> (0,).
        x = data((4, 5))
        result = strided_slice(x, [1, 0], [2, 0], [1, 1], begin_mask=1, shrink_axis_mask=1)
        assert result.shape == (0,)
        np.testing.assert_array_equal(result, x[1, 0:0])

    def test_new_axis_and_shrink_on_one_bit(self):
        # Bit 0 is in both new_axis and shrink: the new axis wins and consumes no input dim;
        # entry 1 shrinks dim 0 at 2; the implicit ellipsis takes dim 1. Equals x[None, 2].
        x = data((3, 4))
        result = strided_slice(x, [1, 2], [2, 3], [1, 1], new_axis_mask=1, shrink_axis_mask=3)
        assert result.shape == (1, 4)
        np.testing.assert_array_equal(result, x[None, 2])
        assert_view(result, x)

    def test_ellipsis_wins_over_new_axis_and_shrink(self):
        # Bit 0 set in ellipsis, new_axis and shrink: it is the ellipsis (the whole input).
        x = data((2, 3))
        result = strided_slice(
            x, [1], [2], [1], ellipsis_mask=1, new_axis_mask=1, shrink_axis_mask=1
        )
        np.testing.assert_array_equal(result, x)

    def test_bits_beyond_the_spec_are_ignored(self):
        # Spec of 1 entry; bits 1 and 5 of end_mask, bit 1 of shrink, bit 2 of new_axis and
        # bit 3 of ellipsis (the only ellipsis bit) are all beyond it: plain x[1:3].
        x = data((4, 5))
        result = strided_slice(
            x,
            [1],
            [3],
            [1],
            end_mask=0b100010,
            shrink_axis_mask=0b10,
            new_axis_mask=0b100,
            ellipsis_mask=0b1000,
        )
        np.testing.assert_array_equal(result, x[1:3])

    def test_negative_masks_are_32_bit_patterns(self):
        # begin_mask = end_mask = -1: every bit set, so both entries are full ranges.
        x = data((3, 4))
        result = strided_slice(x, [2, 2], [1, 1], [1, -1], begin_mask=-1, end_mask=-1)
        np.testing.assert_array_equal(result, x[:, ::-1])

    def test_short_spec_takes_remaining_dims_whole(self):
        # One entry on a 3-D input: the implicit ellipsis after it takes dims 1 and 2.
        x = data((2, 3, 4))
        np.testing.assert_array_equal(strided_slice(x, [1], [2], [1]), x[1:2])
        np.testing.assert_array_equal(strided_slice(x, [-1], [0], [-1], end_mask=1), x[::-1])

    def test_masked_begin_with_nonzero_value(self):
        # begin 3 is ignored because begin_mask bit 0 is set: x[:2].
        x = data((5,))
        np.testing.assert_array_equal(strided_slice(x, [3], [2], [1], begin_mask=1), [0, 1])

    def test_ellipsis_with_new_axis_after(self):
        # [..., new, 0] on (2, 3, 4): 1 entry after the ellipsis consumes a dim, so the
        # ellipsis takes dims 0, 1 -> (2, 3, 1).
        x = data((2, 3, 4))
        result = strided_slice(
            x, [0, 0, 0], [0, 0, 1], [1, 1, 1],
            ellipsis_mask=1, new_axis_mask=2, shrink_axis_mask=4,
        )
        np.testing.assert_array_equal(result, x[..., None, 0])


# ------------------------------------------------------------------------------- errors


ERRORS = [
    # (shape, args, kwargs, exact message)
    (
        (3,),
        ([0, 0], [1], [1]),
        {},
        "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [2], [1], "
        "and [1] instead. (give begin, end and strides the same number of entries)",
    ),
    (
        (3,),
        ([0] * 32, [1] * 32, [1] * 32),
        {},
        "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [32], "
        "[32], and [32] instead. (a spec has at most 31 entries, because the masks are 32-bit)",
    ),
    (
        (3,),
        ([[0]], [1], [1]),
        {},
        "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [1,1], "
        "[1], and [1] instead. (pass begin, end and strides as 1-D lists of integers)",
    ),
    (
        (3,),
        (0, [1], [1]),
        {},
        "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [], "
        "[1], and [1] instead. (pass begin, end and strides as 1-D lists of integers)",
    ),
    (
        # bit 2 is beyond the 1-entry spec but still counts: two ellipses
        (3,),
        ([0], [0], [1]),
        {"ellipsis_mask": 0b101},
        "Multiple ellipses in slice spec not allowed (keep a single '...': ellipsis_mask has "
        "bits 0, 2 set)",
    ),
    (
        (),
        ([0], [1], [1]),
        {"shrink_axis_mask": 1},
        "Attempting to slice scalar input. (a 0-d input only takes '...' and tf.newaxis entries)",
    ),
    (
        (),
        ([0], [0], [1]),
        {"begin_mask": 1, "end_mask": 1},
        "Attempting to slice scalar input. (a 0-d input only takes '...' and tf.newaxis entries)",
    ),
    (
        (3,),
        ([0, 0], [1, 1], [1, 1]),
        {},
        "Index out of range using input dim 1; input has only 1 dims (the spec indexes 2 "
        "dimensions but the input has 1: remove entries)",
    ),
    (
        (3,),
        ([0], [2], [0]),
        {},
        "strides[0] must be non-zero (use a positive step, or a negative one to go backwards)",
    ),
    (
        # the index in the message is the *dense* one: the ellipsis took dims 0 and 1
        (2, 3, 4),
        ([0, 0], [0, 1], [1, 0]),
        {"ellipsis_mask": 1},
        "strides[2] must be non-zero (use a positive step, or a negative one to go backwards)",
    ),
    (
        (5,),
        ([7], [8], [1]),
        {"shrink_axis_mask": 1},
        "slice index 7 of dimension 0 out of bounds. (use an index in [-5, 5))",
    ),
    (
        # -6 + 5 = -1 is reported, after adding the dimension
        (5,),
        ([-6], [-5], [1]),
        {"shrink_axis_mask": 1},
        "slice index -1 of dimension 0 out of bounds. (use an index in [-5, 5))",
    ),
    (
        (2, 5),
        ([0, 5], [1, 6], [1, 1]),
        {"shrink_axis_mask": 3},
        "slice index 5 of dimension 1 out of bounds. (use an index in [-5, 5))",
    ),
    (
        (5,),
        ([1], [2], [-1]),
        {"shrink_axis_mask": 1},
        "only stride 1 allowed on non-range indexing. (use stride 1 on an index entry, or "
        "clear its shrink_axis_mask bit)",
    ),
    (
        # stride 0 is checked before the shrink rules
        (5,),
        ([1], [2], [0]),
        {"shrink_axis_mask": 1},
        "strides[0] must be non-zero (use a positive step, or a negative one to go backwards)",
    ),
    (
        (5,),
        ([0], [1], [1]),
        {"begin_mask": 1 << 31},
        "Attr begin_mask has value 2147483648 out of range for an int32 (use a value in "
        "[-2147483648, 2147483647]; bit i refers to entry i)",
    ),
    (
        (5,),
        ([1 << 63], [1], [1]),
        {},
        "begin[0] = 9223372036854775808 does not fit in int64 (use a value in "
        "[-9223372036854775808, 9223372036854775807])",
    ),
    (
        (5,),
        ([1.5], [2], [1]),
        {},
        "begin[0] = 1.5 is not an integer (use an integer)",
    ),
    (
        (5,),
        ([True], [2], [1]),
        {},
        "begin[0] is a bool, not an integer (use an integer)",
    ),
    (
        (5,),
        (np.array([1.0]), [2], [1]),
        {},
        "begin has dtype float64, not an integer type (make begin int32 or int64)",
    ),
]


@pytest.mark.parametrize(("shape", "args", "kwargs", "expected"), ERRORS)
def test_error_messages(shape, args, kwargs, expected):
    x = np.zeros(shape)
    with pytest.raises(SliceError) as e:
        strided_slice(x, *args, **kwargs)
    assert message(e) == expected
    assert e.value.field == "slice"
    assert isinstance(e.value, CoreError) and isinstance(e.value, ValueError)


def test_first_failing_dimension_is_reported():
    # dim 0 fails the shrink bounds check before dim 1's zero stride is looked at.
    with pytest.raises(SliceError, match=r"^slice index 9 of dimension 0 out of bounds\."):
        strided_slice(np.zeros((3, 3)), [9, 0], [10, 1], [1, 0], shrink_axis_mask=1)


def test_numpy_errors_coincide_with_tf_errors():
    # Where numpy refuses an expressible spec, so does TensorFlow.
    x = data((2, 3))
    for key in [np.s_[2], np.s_[0, 0, 0], np.s_[..., ...], np.s_[::0], np.s_[:, -4]]:
        with pytest.raises((IndexError, ValueError)):
            x[key]
        with pytest.raises(SliceError):
            SliceSpec.from_index(key).apply(x)
