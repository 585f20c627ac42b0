"""Target shapes (core.decode.reshape): parsing, -1 inference, TF's messages, always a view."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.decode.reshape import format_shape, parse_shape, resolve_shape
from core.errors import ShapeError


@pytest.mark.parametrize(("text", "shape"), [
    ("2,3", (2, 3)), (" 2 , 3 ", (2, 3)), ("(2, 3)", (2, 3)), ("[4]", (4,)), ("(3,)", (3,)),
    ("3,", (3,)), ("", ()), ("()", ()), ("-1", (-1,)), ("2x3x4", (2, 3, 4)), ("0,5", (0, 5)),
    ("+2,-1", (2, -1)),
])
def test_parse_shape(text, shape):
    assert parse_shape(text) == shape


@pytest.mark.parametrize(("text", "pattern"), [
    ("2,,3", r"^in shape '2,,3', dimension 2 is empty \("),
    ("a,3", r"^in shape 'a,3', dimension 1 \('a'\) is not an integer \("),
    ("2.5", r"'2\.5'\) is not an integer"),
    ("-1,-1", r"^Only one input size may be -1, not both 0 and 1 \("),
    ("3,-2", r"^Size 1 must be non-negative, not -2 \("),
    (",".join(["1"] * 65), r"65 dimensions"),
])
def test_parse_shape_errors(text, pattern):
    with pytest.raises(ShapeError, match=pattern) as info:
        parse_shape(text)
    assert info.value.field == "shape"


def test_resolve_shape_infers_minus_one():
    assert resolve_shape((2, -1), 6) == (2, 3)
    assert resolve_shape("-1", 0) == (0,)
    assert resolve_shape((0, 4), 0) == (0, 4)
    assert resolve_shape((), 1) == ()


@pytest.mark.parametrize(("shape", "size", "message"), [
    ((4,), 6, ("Input to reshape is a tensor with 6 values, but the requested shape has 4 (the "
              "dimensions must multiply to 6: choose sizes among its divisors 1, 2, 3, 6, or -1 "
              "for one dimension)")),
    ((-1, 4), 6, ("Input to reshape is a tensor with 6 values, but the requested shape requires a "
                 "multiple of 4 (the dimensions must multiply to 6: choose sizes among its "
                 "divisors 1, 2, 3, 6, or -1 for one dimension)")),
    ((0, -1), 0, ("Reshape cannot infer the missing input size for an empty tensor unless all "
                 "specified input sizes are non-zero (replace -1 by an explicit size)")),
    ((2,), 0, ("Input to reshape is a tensor with 0 values, but the requested shape has 2 (there "
              "are no values: use a shape containing 0, e.g. 0)")),
])
def test_resolve_shape_messages(shape, size, message):
    with pytest.raises(ShapeError) as info:
        resolve_shape(shape, size)
    assert str(info.value) == message


def test_resolve_shape_refuses_non_integers():
    with pytest.raises(ShapeError, match="not a sequence of integers"):
        resolve_shape((2, "x"), 6)
    with pytest.raises(ShapeError, match="not a sequence of integers"):
        resolve_shape((True, 6), 6)


def test_divisor_suggestions_stay_short_for_big_counts():
    with pytest.raises(ShapeError) as info:
        resolve_shape((7,), 2**33)
    assert "divisors 1, 2, 4, 8, 16, 32, 268435456, 536870912" in str(info.value)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=0, max_size=4), st.data())
def test_roundtrip_and_inference(dims, data):
    shape = tuple(dims)
    size = int(np.prod(shape, dtype=np.int64))
    assert parse_shape(format_shape(shape)) == shape
    if shape and size:
        position = data.draw(st.integers(0, len(shape) - 1))
        with_minus = shape[:position] + (-1,) + shape[position + 1:]
        assert resolve_shape(with_minus, size) == shape
