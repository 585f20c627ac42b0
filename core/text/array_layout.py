"""numpy's text layout of an array, streamed: pieces of text in order, never the whole string.

:func:`layout_pieces` gives exactly the text of ``np.array2string(a, formatter={"all": f},
threshold=..., edgeitems=edge, max_line_width=width)`` (numpy 2's layout: brackets, a space
between values, rows wrapped at ``width`` columns, blank lines between blocks of higher
dimensions, ``...`` where a summarised axis skips values), but it takes the values' texts one by
one from an iterator and yields the text in small pieces. Printing ``n`` values therefore costs
memory for one line and time linear in ``n``; ``array2string`` builds every text and the whole
string first (gigabytes for 10^7 values).

Rules, as in numpy: a 0-d array is its one value's text; an array with a zero-length axis is
``[]``; with summarising on (``edge`` not None), an axis longer than ``2 * edge`` shows its first
and last ``edge`` items around ``...``. Every value text must be one line.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

__all__ = ["layout_pieces", "printed_indices"]

_SUMMARY = "..."


def printed_indices(length: int, edge: int | None) -> list[range]:
    """The index ranges of one axis that a layout shows (both ends when it is summarised)."""
    if edge is not None and 2 * edge < length:
        return [range(0, edge), range(length - edge, length)]
    return [range(0, length)]


def layout_pieces(shape: Sequence[int], words: Iterator[str], edge: int | None = None,
                  width: int = 100) -> Iterator[str]:
    """The text of an array of ``shape``, whose printed values' texts ``words`` gives in C order.

    Parameters
    ----------
    shape
        The array's shape.
    words
        The text of every printed value, in C order of the printed values (for a summarised
        array: the values :func:`printed_indices` keeps on each axis). Consumed lazily.
    edge
        ``edgeitems`` when the array is summarised (its size is above numpy's ``threshold``),
        else None.
    width
        ``max_line_width``.

    Returns
    -------
    Iterator[str]
        Pieces whose concatenation is numpy's ``array2string`` text.
    """
    shape = tuple(int(n) for n in shape)
    if not shape:
        yield next(words)
        return
    if math.prod(shape) == 0:
        yield "[]"
        return
    yield from _axis(shape, 0, words, edge, " ", width)


def _items(length: int, edge: int | None) -> Iterator[bool]:
    """Per shown item of an axis: True for a value position, False for the ``...`` marker."""
    parts = printed_indices(length, edge)
    for number, part in enumerate(parts):
        if number:
            yield False
        for _ in part:
            yield True


def _axis(shape: tuple[int, ...], axis: int, words: Iterator[str], edge: int | None,
          indent: str, width: int) -> Iterator[str]:
    # numpy's _formatArray.recurser: the text starts with a hanging indent that is then
    # replaced by "[" -- here the first line is written without it.
    yield "["
    length = shape[axis]
    if axis == len(shape) - 1:
        yield from _row(length, words, edge, indent, width - 1)
    else:
        between = "\n" * (len(shape) - axis - 1) + indent
        for number, is_value in enumerate(_items(length, edge)):
            if number:
                yield between
            if is_value:
                yield from _axis(shape, axis + 1, words, edge, indent + " ", width - 1)
            else:
                yield _SUMMARY
    yield "]"


def _row(length: int, words: Iterator[str], edge: int | None, indent: str,
         line_width: int) -> Iterator[str]:
    """The last axis: values separated by a space, wrapped before ``line_width`` columns."""
    line = indent
    first_line = True
    items = list(_items(length, edge)) if edge is not None else None
    count = len(items) if items is not None else length
    for number in range(count):
        word = next(words) if items is None or items[number] else _SUMMARY
        # numpy's _extendLine: wrap if the word does not fit, unless the line is still empty
        if len(line) + len(word) > line_width and len(line) > len(indent):
            text = line.rstrip() + "\n"
            yield text[len(indent):] if first_line else text
            first_line = False
            line = indent
        line += word
        if number < count - 1:
            line += " "
    yield line[len(indent):] if first_line else line
