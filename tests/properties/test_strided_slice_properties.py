"""Property tests: numpy basic indexing is the oracle for every expressible spec (docs/semantics.md §4, §5).

Random shapes (rank 0-4, zero-size dimensions included) and random index expressions; each spec is
built twice (``SliceSpec.from_index`` on the index tuple, and ``parse_slice`` on its text with a
random spelling) and compared with ``x[idx]`` on ``arange`` data, including view-ness and
``analyze``'s shape-only answers.
"""

from __future__ import annotations

import numpy as np
from hypothesis import event, given, settings
from hypothesis import strategies as st

from core.errors import SliceError
from core.slicing.expr import format_slice, is_expressible, parse_slice
from core.slicing.source_code import to_numpy
from core.slicing.spec import SliceSpec

SPACES = st.sampled_from(["", "", "", " ", "  ", "\t", "\n"])
NEWAXIS_SPELLINGS = ["tf.newaxis", "np.newaxis", "newaxis", "None", "tf . newaxis"]


def data(shape):
    return np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape).copy()


def assert_view(result, x):
    assert isinstance(result, np.ndarray)
    if result.size:
        assert np.shares_memory(result, x)
    base = result
    while base is not None and base is not x:
        base = base.base
    assert base is x


def int_text(value, sign_space):
    if value < 0:
        return "-" + sign_space + str(-value)
    return str(value)


@st.composite
def items(draw):
    """``(index item, text)`` pairs."""
    kind = draw(st.sampled_from(["int", "int", "slice", "slice", "slice", "ellipsis", "newaxis"]))
    space = lambda: draw(SPACES)
    if kind == "int":
        value = draw(st.integers(-6, 6))
        return value, int_text(value, space())
    if kind == "ellipsis":
        return Ellipsis, "..."
    if kind == "newaxis":
        return None, draw(st.sampled_from(NEWAXIS_SPELLINGS))
    part = st.one_of(st.none(), st.integers(-8, 8))
    start, stop = draw(part), draw(part)
    step = draw(st.one_of(st.none(), st.sampled_from([-3, -2, -1, 1, 2, 3])))
    text = "" if start is None else int_text(start, space())
    text += space() + ":" + space() + ("" if stop is None else int_text(stop, space()))
    if step is not None or draw(st.booleans()):
        text += space() + ":" + space() + ("" if step is None else int_text(step, space()))
    return slice(start, stop, step), text


@st.composite
def expressions(draw):
    pairs = draw(st.lists(items(), max_size=6))
    if sum(item is Ellipsis for item, _ in pairs) > 1 and draw(st.integers(0, 3)):
        # keep most cases valid; sometimes keep two ellipses (TF and numpy both refuse)
        first = next(i for i, (item, _) in enumerate(pairs) if item is Ellipsis)
        pairs = [p for i, p in enumerate(pairs) if p[0] is not Ellipsis or i == first]
    key = tuple(item for item, _ in pairs)
    separator = draw(SPACES) + "," + draw(SPACES)
    text = separator.join(t for _, t in pairs)
    if draw(st.booleans()):
        text = "[" + draw(SPACES) + text + draw(SPACES) + "]"
    elif pairs and draw(st.booleans()):
        text += ","  # a trailing comma, as in x[1,]
    return key, draw(SPACES) + text + draw(SPACES)


SHAPES = st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple)


@settings(max_examples=400, deadline=None)
@given(shape=SHAPES, expression=expressions())
def test_numpy_is_the_oracle(shape, expression):
    key, text = expression
    x = data(shape)
    spec = SliceSpec.from_index(key)
    assert parse_slice(text) == spec
    assert parse_slice(format_slice(spec)) == spec
    assert is_expressible(spec)
    try:
        expected = x[key]
    except (IndexError, ValueError):
        expected = None
    event("numpy refuses" if expected is None else "numpy accepts")
    if expected is None:
        try:
            spec.apply(x)
        except SliceError as error:
            message = str(error)
        else:
            raise AssertionError(f"numpy refuses x{list(key)} on {shape} but we do not")
        try:
            spec.analyze(shape)
        except SliceError as error:
            assert str(error) == message
        else:
            raise AssertionError("analyze accepted what apply refused")
        return
    result = spec.apply(x)
    assert result.shape == np.shape(expected)
    np.testing.assert_array_equal(result, expected)
    assert result.dtype == x.dtype
    assert_view(result, x)
    analysis = spec.analyze(shape)
    assert analysis.output_shape == result.shape
    # every output element maps back to the input element it views
    if result.size:
        for out_index in [(0,) * result.ndim, tuple(n - 1 for n in result.shape)]:
            assert x[analysis.source_index(out_index)] == result[out_index]


@st.composite
def raw_specs(draw):
    """Arbitrary specs, most of them not expressible as an index expression."""
    n = draw(st.integers(0, 5))
    values = st.lists(st.integers(-7, 7), min_size=n, max_size=n).map(tuple)
    strides = st.lists(st.sampled_from([-3, -2, -1, 1, 1, 1, 2, 3, 0]), min_size=n, max_size=n)
    mask = st.integers(0, (1 << (n + 2)) - 1)
    return SliceSpec(
        draw(values),
        draw(values),
        tuple(draw(strides)),
        begin_mask=draw(mask),
        end_mask=draw(mask),
        ellipsis_mask=draw(st.sampled_from([0, 0, 1 << draw(st.integers(0, n + 1))])),
        new_axis_mask=draw(mask),
        shrink_axis_mask=draw(mask),
    )


@settings(max_examples=300, deadline=None)
@given(shape=SHAPES, spec=raw_specs())
def test_analyze_agrees_with_apply_on_any_spec(shape, spec):
    x = data(shape)
    assert parse_slice(format_slice(spec)) == spec
    try:
        result = spec.apply(x)
    except SliceError as error:
        event("refused")
        try:
            spec.analyze(shape)
        except SliceError as again:
            assert str(again) == str(error)
            return
        raise AssertionError("analyze accepted what apply refused")
    event("expressible" if is_expressible(spec) else "mask-only")
    assert_view(result, x)
    analysis = spec.analyze(shape)
    assert analysis.output_shape == result.shape
    assert len(analysis.input_dims) == len(shape)
    assert [d.length for d in analysis.output_dims] == list(result.shape)
    if result.size:
        corner = tuple(n - 1 for n in result.shape)
        assert x[analysis.source_index(corner)] == result[corner]
    if is_expressible(spec):
        # the numpy export reproduces apply() (eval is for tests only, never in product code)
        np.testing.assert_array_equal(eval(to_numpy(spec, "x"), {"x": x, "np": np}), result)
