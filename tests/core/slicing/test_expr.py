"""core.slicing.expr: the slice expression grammar and its canonical formatting (docs/semantics.md §5)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from core.errors import SliceError, SliceSyntaxError
from core.slicing.expr import format_slice, is_expressible, parse_slice
from core.slicing.spec import SliceSpec

S = SliceSpec.from_index  # the spec TensorFlow's x[...] builds, for comparison


# ------------------------------------------------------------------------------- parsing


class TestParse:
    @pytest.mark.parametrize("text", ["tf.newaxis", "np.newaxis", "newaxis", "None", "tf .newaxis",
                                      " np. newaxis "])
    def test_newaxis_spellings(self, text):
        assert parse_slice(text) == SliceSpec((0,), (0,), (1,), new_axis_mask=1)

    @pytest.mark.parametrize("text", ["", "[]", "  ", "[ ]", "\t[\n]\n"])
    def test_empty_expression_is_the_whole_tensor(self, text):
        assert parse_slice(text) == SliceSpec.full()

    def test_integers_follow_tf(self):
        # i -> begin i, end i+1, stride 1, shrink bit; so -1 -> end 0
        assert parse_slice("3") == SliceSpec((3,), (4,), (1,), shrink_axis_mask=1)
        assert parse_slice("-1") == SliceSpec((-1,), (0,), (1,), shrink_axis_mask=1)
        assert parse_slice("+2") == parse_slice("2")
        assert parse_slice("- 2") == parse_slice("-2")
        assert parse_slice("007") == parse_slice("7")

    def test_ranges_with_empty_parts(self):
        assert parse_slice(":") == SliceSpec((0,), (0,), (1,), begin_mask=1, end_mask=1)
        assert parse_slice("::") == parse_slice(":")
        assert parse_slice("1:") == SliceSpec((1,), (0,), (1,), end_mask=1)
        assert parse_slice(":-1") == SliceSpec((0,), (-1,), (1,), begin_mask=1)
        assert parse_slice("::-1") == SliceSpec((0,), (0,), (-1,), begin_mask=1, end_mask=1)
        assert parse_slice("1:5:2") == SliceSpec((1,), (5,), (2,))
        assert parse_slice("1:5:") == SliceSpec((1,), (5,), (1,))
        assert parse_slice("0:0:0") == SliceSpec((0,), (0,), (0,))  # parses; fails when applied

    def test_ellipsis_and_two_ellipses(self):
        assert parse_slice("...") == SliceSpec((0,), (0,), (1,), ellipsis_mask=1)
        two = parse_slice("..., ...")
        assert two.ellipsis_mask == 0b11
        with pytest.raises(SliceError, match="^Multiple ellipses in slice spec not allowed"):
            two.apply(np.zeros((2, 2)))

    def test_matches_tf_getitem(self):
        cases = {
            "2, ..., 5:8, tf.newaxis": (2, Ellipsis, slice(5, 8), None),
            "[1:, None, -1]": (slice(1, None), None, -1),
            "[::2, -3:-1, 4]": (slice(None, None, 2), slice(-3, -1), 4),
            " [ 1 ,\t: \n, ... ] ": (1, slice(None), Ellipsis),
        }
        for text, key in cases.items():
            assert parse_slice(text) == S(key), text

    def test_whitespace_anywhere_and_brackets_optional(self):
        reference = parse_slice("[1:2:-1,...,tf.newaxis]")
        for text in ["1:2:-1,...,tf.newaxis", "  1 : 2 : - 1 , ... , tf . newaxis  ",
                     "[\t1\t:\t2\t:-1,\n...,\rtf.newaxis]", "\f[1:2:-1,...,tf.newaxis]\v"]:
            assert parse_slice(text) == reference

    def test_trailing_comma(self):
        assert parse_slice("1,") == parse_slice("[1,]") == parse_slice("1")

    def test_int64_limits(self):
        assert parse_slice("-9223372036854775808").begin == (-(1 << 63),)
        assert parse_slice("9223372036854775807:").begin == ((1 << 63) - 1,)
        assert len(parse_slice(", ".join(["0"] * 31))) == 31


# --------------------------------------------------------------------------------- errors


SYNTAX_ERRORS = [
    # (text, message, column (0-based), length)
    ("[1, x]", "unexpected 'x' at column 5 (an item is an integer, start:stop[:step], ..., or "
     "tf.newaxis)", 4, 1),
    ("1 2", "unexpected '2' at column 3 (separate items with ',')", 2, 1),
    ("[1", "missing ']' at column 3 (close the '[' at column 1)", 2, 0),
    ("[1,", "missing ']' at column 4 (close the '[' at column 1)", 3, 0),
    ("1]", "unexpected ']' at column 2 (there is no '[' to close)", 1, 1),
    ("[1]]", "unexpected ']' at column 4 (nothing may follow the closing ']')", 3, 1),
    ("1,,2", "unexpected ',' at column 3 (an item is an integer, start:stop[:step], ..., or "
     "tf.newaxis)", 2, 1),
    ("[,]", "unexpected ',' at column 2 (an item is an integer, start:stop[:step], ..., or "
     "tf.newaxis)", 1, 1),
    ("1:2:3:4", "unexpected ':' at column 6 (a slice is at most start:stop:step)", 5, 1),
    ("tf.foo", "unexpected 'foo' at column 4 (write tf.newaxis)", 3, 3),
    ("np newaxis", "unexpected 'newaxis' at column 4 (write np.newaxis)", 3, 7),
    ("tf", "unexpected end of expression at column 3 (write tf.newaxis)", 2, 0),
    ("- x", "unexpected 'x' at column 3 ('-' must be followed by digits)", 2, 1),
    ("--1", "unexpected '-' at column 2 ('-' must be followed by digits)", 1, 1),
    ("1.5", "unexpected '.' at column 2 (separate items with ',')", 1, 1),
    (". . .", "unexpected '.' at column 1 (an item is an integer, start:stop[:step], ..., or "
     "tf.newaxis)", 0, 1),
    ("0x10", "unexpected 'x10' at column 2 (separate items with ',')", 1, 3),
    ("1_000", "unexpected '_000' at column 2 (separate items with ',')", 1, 4),
    ("NONE", "unexpected 'NONE' at column 1 (an item is an integer, start:stop[:step], ..., or "
     "tf.newaxis)", 0, 4),
    ("\u0663", "unexpected '\u0663' at column 1 (an item is an integer, start:stop[:step], ..., "
     "or tf.newaxis)", 0, 1),  # an Arabic-Indic digit is not a digit here
    ("1,\u202e", "unexpected '\\u202e' at column 3 (an item is an integer, start:stop[:step], "
     "..., or tf.newaxis)", 2, 1),
    ("9223372036854775808", "integer does not fit in int64 at column 1 (use a value in "
     "[-9223372036854775808, 9223372036854775807])", 0, 19),
    ("1:- 9223372036854775809", "integer does not fit in int64 at column 3 (use a value in "
     "[-9223372036854775808, 9223372036854775807])", 2, 21),
    ("9223372036854775807", "index 9223372036854775807 at column 1 (its end 9223372036854775808 "
     "would not fit in int64; use an index below 9223372036854775807)", 0, 19),
    (", ".join(["0"] * 32), "item 32 is one too many at column 94 (a slice has at most 31 items, "
     "because TensorFlow's masks are 32-bit)", 93, 1),
]


@pytest.mark.parametrize(("text", "expected", "column", "length"), SYNTAX_ERRORS)
def test_syntax_errors(text, expected, column, length):
    with pytest.raises(SliceSyntaxError) as e:
        parse_slice(text)
    assert str(e.value) == expected
    assert (e.value.column, e.value.length) == (column, length)
    assert isinstance(e.value, SliceError) and e.value.field == "slice"


def test_syntax_error_pickles_with_its_position():
    with pytest.raises(SliceSyntaxError) as e:
        parse_slice("[1, x]")
    import pickle

    again = pickle.loads(pickle.dumps(e.value))
    assert (str(again), again.column, again.length) == (str(e.value), 4, 1)


def test_non_string_is_refused():
    with pytest.raises(SliceError, match="must be a str"):
        parse_slice(b"1")  # type: ignore[arg-type]


class TestHostileInput:
    """Clean SliceErrors, quickly (linear time, no recursion), for input meant to break things."""

    @pytest.mark.parametrize(
        ("text", "column"),
        [
            ("__import__('os').system('true')", 0),
            ("[" * 100_000, 1),
            ("(" * 100_000, 0),
            ("]" * 100_000, 0),
            ("9" * 100_000, 0),
            ("-" + "9" * 100_000, 0),
            ("1," * 50_000, 62),
            ("1:" * 50_000, 5),
            ("." * 100_000, 3),
            ("x" * 100_000, 0),
            (" " * 99_999 + "x", 99_999),
            ("lambda: 0", 0),
            ("eval('1')", 0),
            ("\x00", 0),
            ("\ud800", 0),
        ],
    )
    def test_hostile(self, text, column):
        with pytest.raises(SliceSyntaxError) as e:
            parse_slice(text)
        assert e.value.column == column
        assert len(str(e.value)) < 300  # the culprit is quoted truncated, not in full

    def test_explicit_form_with_huge_lists(self):
        text = "strided_slice(begin=[" + "1," * 50_000 + "], end=[1], strides=[1])"
        with pytest.raises(SliceSyntaxError) as e:
            parse_slice(text)
        assert str(e.value).startswith(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
            "[50000], [1], and [1] instead."
        )
        assert (e.value.column, e.value.length) == (0, len(text))

    def test_random_unicode(self):
        rng = random.Random(4)
        for _ in range(300):
            text = "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(1, 40)))
            try:
                parse_slice(text)
            except SliceSyntaxError as e:
                assert 0 <= e.column <= len(text)


# ------------------------------------------------------------------------------ formatting


class TestFormat:
    @pytest.mark.parametrize(
        ("text", "canonical"),
        [
            ("", "[]"),
            ("[:]", "[:]"),
            ("::", "[:]"),
            ("1:5:1", "[1:5]"),
            ("::-1", "[::-1]"),
            ("2:", "[2:]"),
            (":-5", "[:-5]"),
            ("1:8:3", "[1:8:3]"),
            ("- 1", "[-1]"),
            ("0:0", "[0:0]"),
            ("2,...,5:8,None", "[2, ..., 5:8, tf.newaxis]"),
            ("np.newaxis, newaxis", "[tf.newaxis, tf.newaxis]"),
            ("..., ...", "[..., ...]"),
            ("+3:+4:+2,", "[3:4:2]"),
        ],
    )
    def test_canonical_spellings(self, text, canonical):
        assert format_slice(parse_slice(text)) == canonical
        assert parse_slice(canonical) == parse_slice(text)

    @pytest.mark.parametrize(
        ("spec", "text"),
        [
            # a shrink bit with a begin mask
            (SliceSpec((1, 0), (2, 0), (1, 1), begin_mask=1, shrink_axis_mask=1),
             "strided_slice(begin=[1, 0], end=[2, 0], strides=[1, 1], begin_mask=1, "
             "shrink_axis_mask=1)"),
            # new_axis and shrink on one bit
            (SliceSpec((0,), (0,), (1,), new_axis_mask=1, shrink_axis_mask=1),
             "strided_slice(begin=[0], end=[0], strides=[1], new_axis_mask=1, "
             "shrink_axis_mask=1)"),
            # end != begin + 1 on a shrink
            (SliceSpec((2,), (7,), (1,), shrink_axis_mask=1),
             "strided_slice(begin=[2], end=[7], strides=[1], shrink_axis_mask=1)"),
            # bits beyond the length
            (SliceSpec((1,), (3,), end_mask=0b100),
             "strided_slice(begin=[1], end=[3], strides=[1], end_mask=4)"),
            # a masked begin with a nonzero value
            (SliceSpec((3,), (0,), begin_mask=1, end_mask=1),
             "strided_slice(begin=[3], end=[0], strides=[1], begin_mask=1, end_mask=1)"),
            # a stride on a shrink, a stride on a new axis, a negative mask
            (SliceSpec((1,), (2,), (2,), shrink_axis_mask=1),
             "strided_slice(begin=[1], end=[2], strides=[2], shrink_axis_mask=1)"),
            (SliceSpec((0,), (0,), (0,), new_axis_mask=1),
             "strided_slice(begin=[0], end=[0], strides=[0], new_axis_mask=1)"),
            (SliceSpec((0,), (0,), begin_mask=-1),
             "strided_slice(begin=[0], end=[0], strides=[1], begin_mask=-1)"),
        ],
    )
    def test_mask_only_specs_use_the_explicit_form(self, spec, text):
        assert not is_expressible(spec)
        assert format_slice(spec) == text
        assert parse_slice(text) == spec
        assert format_slice(spec) == text

    def test_explicit_form_grammar(self):
        expected = SliceSpec((1, 0), (2, 0), (1, 1), begin_mask=1, shrink_axis_mask=1)
        assert parse_slice(
            " strided_slice ( shrink_axis_mask = 1 , begin_mask=1, end = [2, 0,], begin=[1,0], ) "
        ) == expected
        # strides default to ones, masks to 0; an expressible spec may be written this way too
        assert parse_slice("strided_slice(begin=[1], end=[2], shrink_axis_mask=1)") == S(1)

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("strided_slice", "unexpected end of expression at column 14"),
            ("strided_slice(begin=[1])", "strided_slice(...) lacks end at column 1"),
            ("strided_slice()", "strided_slice(...) lacks begin and end at column 1"),
            ("strided_slice(begin=[1], begin=[2], end=[3])", "begin given twice at column 26"),
            ("strided_slice(start=[1])", "unexpected 'start' at column 15"),
            ("strided_slice(begin=1, end=[2])", "unexpected '1' at column 21"),
            ("strided_slice(begin=[1], end=[2], begin_mask=[1])", "unexpected '[' at column 46"),
            ("strided_slice(begin=[1] end=[2])", "unexpected 'end' at column 25"),
            ("strided_slice(begin=[1], end=[2]) 1", "unexpected '1' at column 35"),
            ("strided_slice(begin=[1 2], end=[2])", "unexpected '2' at column 24"),
            ("strided_slice(begin=[1], end=[2], begin_mask=4294967296)",
             "Attr begin_mask has value 4294967296 out of range for an int32"),
            ("[strided_slice(begin=[1], end=[2])]", "unexpected 'strided_slice' at column 2"),
        ],
    )
    def test_explicit_form_errors(self, text, expected):
        with pytest.raises(SliceSyntaxError) as e:
            parse_slice(text)
        assert str(e.value).startswith(expected)


# ------------------------------------------------------------------------------ round trips


NEWAXES = ["tf.newaxis", "np.newaxis", "newaxis", "None"]


def random_expression(rng: random.Random) -> str:
    def space():
        return rng.choice(["", "", " ", "  ", "\t", "\n"])

    def integer():
        value = rng.choice([rng.randint(-9, 9), rng.randint(-(1 << 63), (1 << 63) - 2)])
        text = str(abs(value))
        if value < 0:
            return "-" + space() + text
        return rng.choice(["", "+"]) + text

    items = []
    for _ in range(rng.randint(0, 8)):
        kind = rng.random()
        if kind < 0.3:
            items.append(integer())
        elif kind < 0.45:
            items.append("...")
        elif kind < 0.55:
            items.append(rng.choice(NEWAXES))
        else:
            parts = [integer() if rng.random() < 0.6 else "" for _ in range(rng.randint(2, 3))]
            items.append((space() + ":" + space()).join(parts))
    text = (space() + "," + space()).join(items)
    if items and rng.random() < 0.1:
        text += ","
    if rng.random() < 0.5:
        text = "[" + space() + text + space() + "]"
    return space() + text + space()


def random_spec(rng: random.Random) -> SliceSpec:
    n = rng.randint(0, 6)

    def values():
        return tuple(rng.choice([0, 0, 1, -1, rng.randint(-20, 20)]) for _ in range(n))

    def mask():
        choice = rng.random()
        if choice < 0.4:
            return 0
        if choice < 0.9:
            return rng.randrange(1 << n) if n else 0
        return rng.randrange(-(1 << 31), 1 << 31)

    return SliceSpec(values(), values(), values(), mask(), mask(), mask(), mask(), mask())


def test_ten_thousand_random_expressions_round_trip():
    rng = random.Random(20240605)
    for _ in range(10_000):
        text = random_expression(rng)
        spec = parse_slice(text)
        canonical = format_slice(spec)
        assert is_expressible(spec), text
        assert parse_slice(canonical) == spec, text
        assert format_slice(parse_slice(canonical)) == canonical


def test_every_spec_round_trips():
    rng = random.Random(7)
    for _ in range(5_000):
        spec = random_spec(rng)
        text = format_slice(spec)
        assert parse_slice(text) == spec, text
        assert text.startswith("[") == is_expressible(spec)


@pytest.mark.parametrize(("text", "same_as"), [
    ("None:2", ":2"), ("::None", ":"), ("1:None:None", "1:"), ("None:None:-1, None", "::-1, tf.newaxis"),
    ("None, None:2", "tf.newaxis, :2"), ("[None::]", "[:]"), ("3:None:2", "3::2"),
])
def test_none_as_a_bound_is_an_omitted_bound(text, same_as):
    """Python and TF accept ``x[None:2]``: a None start/stop sets the mask bit, a None step is 1."""
    assert parse_slice(text) == parse_slice(same_as)


def test_none_start_spec_values():
    assert parse_slice("None:2") == SliceSpec((0,), (2,), (1,), begin_mask=1)
