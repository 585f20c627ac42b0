"""Slice expressions: ``parse_slice(text)`` and ``format_slice(spec)`` (docs/semantics.md §5).

Grammar (whitespace -- space, tab, newline, CR, FF, VT -- is allowed between any two tokens)::

    expression := '[' [items] ']' | [items] | explicit
    items      := item (',' item)* [',']              at most 31 items
    item       := index | range | '...' | newaxis
    index      := int
    range      := [bound] ':' [bound] [':' [bound]]   start:stop or start:stop:step
    bound      := int | 'None'                       None is the same as leaving it out
    newaxis    := 'tf' '.' 'newaxis' | 'np' '.' 'newaxis' | 'newaxis' | 'None'
    int        := ['+' | '-'] digits                 ASCII digits 0-9, must fit in int64
    explicit   := 'strided_slice' '(' arg (',' arg)* [','] ')'
    arg        := ('begin' | 'end' | 'strides') '=' '[' [int (',' int)* [',']] ']'
                | ('begin_mask' | 'end_mask' | 'ellipsis_mask' | 'new_axis_mask'
                   | 'shrink_axis_mask') '=' int

Items build exactly the spec TensorFlow's ``x[...]`` builds: an integer ``i`` -> begin ``i``, end
``i+1``, stride 1 and the shrink bit (so ``-1`` -> end 0); an omitted start/stop (or one
written ``None``, as Python allows: ``x[None:2]``, ``x[::None]``) -> 0 with the begin/end mask
bit; an omitted step -> 1; ``None`` alone is a new axis; ``...`` and a new axis -> ``0, 0, 1`` with their bit.
``""`` and ``"[]"`` are the empty spec (the whole tensor). Two ellipses parse (two bits) and
fail only when applied, as in TensorFlow.

The ``explicit`` form is our addition for specs no index expression produces (a shrink bit with
a begin mask, a new axis and a shrink on one bit, bits beyond the spec, a masked begin with a
nonzero value...): ``strided_slice(begin=[1, 0], end=[2, 0], strides=[1, 1], begin_mask=1,
shrink_axis_mask=1)``. ``begin`` and ``end`` are required, ``strides`` defaults to ones, masks
to 0, each argument at most once, in any order. With it, ``parse_slice(format_slice(s)) == s``
for *every* spec.

The parser is hand-written (a lazy tokenizer and a loop, no ``eval``, no recursion), linear in
the input's length, and reports the first error as a :class:`SliceSyntaxError` whose message
names the 1-based column and whose ``column`` (0-based) and ``length`` attributes let a GUI
underline the culprit.

Canonical spelling (:func:`format_slice`): ``[`` items joined by ``", "`` ``]``; an index as
the integer; a range as ``start:stop`` with a masked part left empty and the step shown only when
it is not 1 (``:``, ``2:``, ``:5``, ``::-1``, ``1:8:3``); ``...``; ``tf.newaxis``; the empty
spec as ``[]``; anything else in the explicit form, with only the nonzero masks.
"""

from __future__ import annotations

from core.errors import SliceError, SliceSyntaxError
from core.slicing.analysis import analyze
from core.slicing.spec import SliceSpec
from core.slicing.tokens import Lexer, syntax_error, unexpected
from core.slicing.validate import INT64_MAX, INT64_MIN, MASK_NAMES, MAX_ENTRIES, bit, set_bits

__all__ = ["format_item", "format_slice", "is_expressible", "one_axis_selection", "parse_slice", "stored_slice_text"]

_ITEM_HINT = "an item is an integer, start:stop[:step], ..., or tf.newaxis"
_EXPLICIT_ARGS = ("begin", "end", "strides", *MASK_NAMES)


class _Parser:
    def __init__(self, text: str) -> None:
        self._lexer = Lexer(text)

    def parse(self) -> SliceSpec:
        lexer = self._lexer
        first = lexer.peek()
        if first.kind == "name" and first.text == "strided_slice":
            spec = self._explicit()
            trailing_hint = "nothing may follow the closing ')'"
        else:
            opening = lexer.next() if first.kind == "[" else None
            spec = self._items("]" if opening else "end")
            token = lexer.peek()
            if opening is not None:
                if token.kind == "end":
                    hint = f"close the '[' at column {opening.start + 1}"
                    raise syntax_error("missing ']'", token.start, 0, hint)
                if token.kind != "]":
                    raise unexpected(token, "separate items with ','")
                lexer.next()
            elif token.kind == "]":
                raise unexpected(token, "there is no '[' to close")
            elif token.kind != "end":
                raise unexpected(token, "separate items with ','")
            trailing_hint = "nothing may follow the closing ']'"
        token = lexer.peek()
        if token.kind != "end":
            raise unexpected(token, trailing_hint)
        return spec

    # ------------------------------------------------------------------ index expressions

    def _items(self, closing: str) -> SliceSpec:
        lexer = self._lexer
        begin: list[int] = []
        end: list[int] = []
        strides: list[int] = []
        masks = dict.fromkeys(MASK_NAMES, 0)
        if lexer.peek().kind in (closing, "end"):
            return SliceSpec()  # the caller reports a missing ']'
        while True:
            i = len(begin)
            token = lexer.peek()
            if i == MAX_ENTRIES:
                raise syntax_error(
                    f"item {i + 1} is one too many",
                    token.start,
                    len(token.text),
                    f"a slice has at most {MAX_ENTRIES} items, because TensorFlow's masks are "
                    "32-bit",
                )
            b, e, s, kinds = self._item()
            begin.append(b)
            end.append(e)
            strides.append(s)
            for mask_name in kinds:
                masks[mask_name] |= 1 << i
            if lexer.peek().kind != ",":
                break
            lexer.next()
            if lexer.peek().kind in (closing, "end"):
                break  # a trailing comma, as in x[1,]
        return SliceSpec(tuple(begin), tuple(end), tuple(strides), **masks)

    def _item(self) -> tuple[int, int, int, tuple[str, ...]]:
        """One item as ``(begin, end, stride, mask names whose bit it sets)``."""
        lexer = self._lexer
        token = lexer.peek()
        if token.kind == "...":
            lexer.next()
            return 0, 0, 1, ("ellipsis_mask",)
        none_start = False
        if token.kind == "name":
            lexer.next()
            if token.text == "None" and lexer.peek().kind == ":":
                none_start = True  # x[None:2]: an omitted start, as in Python and TF
            elif token.text in ("None", "newaxis"):
                return 0, 0, 1, ("new_axis_mask",)
            if token.text in ("tf", "np"):
                dot = lexer.next()
                if dot.kind != ".":
                    raise unexpected(dot, f"write {token.text}.newaxis")
                name = lexer.next()
                if name.kind != "name" or name.text != "newaxis":
                    raise unexpected(name, f"write {token.text}.newaxis")
                return 0, 0, 1, ("new_axis_mask",)
            elif not none_start:
                raise unexpected(token, _ITEM_HINT)
        start = None if none_start else self._optional_int()
        if lexer.peek().kind != ":":
            if start is None:
                raise unexpected(lexer.peek(), _ITEM_HINT)
            value, column, stop = start
            if value == INT64_MAX:
                raise syntax_error(
                    f"index {value}",
                    column,
                    stop - column,
                    f"its end {value + 1} would not fit in int64; use an index below {INT64_MAX}",
                )
            return value, value + 1, 1, ("shrink_axis_mask",)
        lexer.next()
        stop = self._optional_bound()
        step = None
        if lexer.peek().kind == ":":
            lexer.next()
            step = self._optional_bound()
            if lexer.peek().kind == ":":
                raise unexpected(lexer.peek(), "a slice is at most start:stop:step")
        masks = tuple(
            name for name, part in (("begin_mask", start), ("end_mask", stop)) if part is None
        )
        return (
            0 if start is None else start[0],
            0 if stop is None else stop[0],
            1 if step is None else step[0],
            masks,
        )

    def _optional_bound(self) -> tuple[int, int, int] | None:
        """A slice's stop or step: an integer, or None when absent or written ``None``."""
        token = self._lexer.peek()
        if token.kind == "name" and token.text == "None":
            self._lexer.next()
            return None
        return self._optional_int()

    def _optional_int(self) -> tuple[int, int, int] | None:
        """An optionally signed integer as ``(value, start, stop)`` columns, or None if absent."""
        lexer = self._lexer
        sign = lexer.peek()
        if sign.kind not in ("+", "-", "int"):
            return None
        if sign.kind != "int":
            lexer.next()
            digits = lexer.next()
            if digits.kind != "int":
                raise unexpected(digits, f"'{sign.text}' must be followed by digits")
        else:
            digits = lexer.next()
            sign = digits
        significant = digits.text.lstrip("0") or "0"
        if len(significant) > 19:  # never call int() on a huge digit string
            value = None
        else:
            value = int(significant)
            value = -value if sign.kind == "-" else value
        if value is None or not INT64_MIN <= value <= INT64_MAX:
            raise syntax_error(
                "integer does not fit in int64",
                sign.start,
                digits.stop - sign.start,
                f"use a value in [{INT64_MIN}, {INT64_MAX}]",
            )
        return value, sign.start, digits.stop

    def _int(self) -> int:
        parsed = self._optional_int()
        if parsed is None:
            raise unexpected(self._lexer.peek(), "expected an integer")
        return parsed[0]

    # ------------------------------------------------------------------ the explicit form

    def _explicit(self) -> SliceSpec:
        lexer = self._lexer
        name = lexer.next()
        usage = "write strided_slice(begin=[...], end=[...], strides=[...], begin_mask=...)"
        token = lexer.next()
        if token.kind != "(":
            raise unexpected(token, usage)
        args: dict[str, object] = {}
        while lexer.peek().kind != ")":
            keyword = lexer.next()
            if keyword.kind != "name" or keyword.text not in _EXPLICIT_ARGS:
                raise unexpected(keyword, "arguments are " + ", ".join(_EXPLICIT_ARGS))
            if keyword.text in args:
                raise syntax_error(
                    f"{keyword.text} given twice",
                    keyword.start,
                    len(keyword.text),
                    f"give {keyword.text} once",
                )
            token = lexer.next()
            if token.kind != "=":
                raise unexpected(token, f"write {keyword.text}=...")
            if keyword.text in ("begin", "end", "strides"):
                args[keyword.text] = self._int_list()
            else:
                args[keyword.text] = self._int()
            token = lexer.peek()
            if token.kind == ",":
                lexer.next()
            elif token.kind != ")":
                raise unexpected(token, "separate arguments with ','")
        closing = lexer.next()
        missing = [k for k in ("begin", "end") if k not in args]
        if missing:
            raise syntax_error(
                f"strided_slice(...) lacks {' and '.join(missing)}",
                name.start,
                closing.stop - name.start,
                "begin=[...] and end=[...] are required",
            )
        try:
            return SliceSpec(**args)  # type: ignore[arg-type]
        except SliceError as error:
            raise SliceSyntaxError(error.message, name.start, closing.stop - name.start) from None

    def _int_list(self) -> tuple[int, ...]:
        lexer = self._lexer
        token = lexer.next()
        if token.kind != "[":
            raise unexpected(token, "write a list such as [1, 0, -1]")
        values: list[int] = []
        while lexer.peek().kind != "]":
            values.append(self._int())
            token = lexer.peek()
            if token.kind == ",":
                lexer.next()
            elif token.kind != "]":
                raise unexpected(token, "separate values with ',' and close the list with ']'")
        lexer.next()
        return tuple(values)


def parse_slice(text: str) -> SliceSpec:
    """Parse a slice expression (grammar in the module docstring) into a :class:`SliceSpec`.

    Examples: ``"2, ..., 5:8, tf.newaxis"``, ``"[::-1, -1]"``, ``""`` (the whole tensor).

    Raises
    ------
    SliceSyntaxError
        (a :class:`SliceError`) for the first syntax error, naming its column; also for an
        integer outside int64, more than 31 items, and explicit-form specs TensorFlow refuses
        before seeing a shape (lengths that differ...).
    """
    if not isinstance(text, str):
        raise SliceSyntaxError(
            f"a slice expression must be a str, not {type(text).__name__} (pass text)", 0, 0
        )
    return _Parser(text).parse()


# ------------------------------------------------------------------------------ formatting


def format_item(spec: SliceSpec, i: int) -> str | None:
    """The canonical item producing entry ``i`` of ``spec`` exactly, or None if none does."""
    begin, end, stride = spec.begin[i], spec.end[i], spec.strides[i]
    ellipsis, new_axis, shrink = (
        bit(spec.ellipsis_mask, i),
        bit(spec.new_axis_mask, i),
        bit(spec.shrink_axis_mask, i),
    )
    begin_masked, end_masked = bit(spec.begin_mask, i), bit(spec.end_mask, i)
    if ellipsis or new_axis:
        if ellipsis + new_axis + shrink + begin_masked + end_masked != 1:
            return None
        if (begin, end, stride) != (0, 0, 1):
            return None
        return "..." if ellipsis else "tf.newaxis"
    if shrink:
        if begin_masked or end_masked or stride != 1 or end != begin + 1:
            return None
        return str(begin)
    if (begin_masked and begin != 0) or (end_masked and end != 0):
        return None
    text = ("" if begin_masked else str(begin)) + ":" + ("" if end_masked else str(end))
    return text if stride == 1 else f"{text}:{stride}"


def is_expressible(spec: SliceSpec) -> bool:
    """Whether some index expression ``x[...]`` produces exactly ``spec``.

    True when no mask has a bit at or beyond ``len(spec)`` (negative masks set bit 31) and
    every entry is exactly what an item produces (see :func:`parse_slice`).
    """
    n = len(spec)
    if any(b >= n for name in MASK_NAMES for b in set_bits(getattr(spec, name))):
        return False
    return all(format_item(spec, i) is not None for i in range(n))


def stored_slice_text(spec: SliceSpec) -> str:
    """The text a session, a setting or a field keeps for ``spec``: ``""`` for the whole tensor
    (which :func:`parse_slice` reads back as the whole tensor), else :func:`format_slice`. The one
    place that writes "no slice" as blank text; :func:`parse_slice` is the one that reads it."""
    return "" if spec.is_full else format_slice(spec)


def format_slice(spec: SliceSpec) -> str:
    """The canonical text of ``spec``; ``parse_slice(format_slice(spec)) == spec`` always.

    An expressible spec prints as an index expression (``"[2, ..., 5:8, tf.newaxis]"``, the
    empty spec as ``"[]"``); any other in the explicit form, e.g. ``"strided_slice(begin=[1,
    0], end=[2, 0], strides=[1, 1], begin_mask=1, shrink_axis_mask=1)"`` with only the
    nonzero masks.
    """
    if is_expressible(spec):
        return "[" + ", ".join(str(format_item(spec, i)) for i in range(len(spec))) + "]"

    def listed(values: tuple[int, ...]) -> str:
        return "[" + ", ".join(str(v) for v in values) + "]"

    parts = [
        f"begin={listed(spec.begin)}",
        f"end={listed(spec.end)}",
        f"strides={listed(spec.strides)}",
    ]
    parts += [f"{name}={getattr(spec, name)}" for name in MASK_NAMES if getattr(spec, name)]
    return "strided_slice(" + ", ".join(parts) + ")"


def one_axis_selection(text: str, length: int) -> tuple[int, int, int]:
    """``(start, step, count)`` of the elements the slice ``text`` picks from one axis of
    ``length`` (element ``k`` of the result is ``start + k * step``); an empty text (or ``[]``,
    ``[:]``, ``[...]``) picks them all, an index picks one. Used for the records of a record
    layout (docs/records.md).

    Raises
    ------
    SliceError
        ``text`` does not parse, indexes out of range, or does not keep one axis (a new axis, a
        second entry): the message says which.
    """
    text = text.strip()
    if not text or text in ("[]", "[:]", "[...]"):
        return 0, 1, length
    analysis = analyze(parse_slice(text), (length,))
    dims = analysis.output_dims
    if any(d.kind == "new_axis" for d in dims) or len(dims) > 1:
        raise SliceError(f"the slice {text!r} adds an axis: one axis is sliced here (write [a:b:c] or [i])")
    if not dims:
        return int(analysis.input_dims[0].index), 1, 1
    return int(dims[0].start), int(dims[0].step), int(dims[0].length)
