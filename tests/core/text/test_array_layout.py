"""core.text.array_layout: numpy's array2string layout, streamed from the printed values' texts."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from core.text.array_layout import layout_pieces, printed_indices


def _layout(array: np.ndarray, edge: int | None, width: int = 100, pad: int = 0) -> str:
    def text(value) -> str:
        return str(value).rjust(pad)
    if array.ndim == 0:
        words = iter([text(array[()])])
    else:
        kept = [[i for part in printed_indices(n, edge) for i in part] for n in array.shape]
        shown = array[np.ix_(*kept)] if array.size else array
        words = (text(value) for value in shown.reshape(-1))
    return "".join(layout_pieces(array.shape, words, edge, width))


def test_hand_checked_layouts():
    assert _layout(np.array(7), None) == "7"
    assert _layout(np.zeros((2, 0), int), None) == "[]"
    assert _layout(np.arange(6).reshape(2, 3), None) == "[[0 1 2]\n [3 4 5]]"
    assert _layout(np.arange(8).reshape(2, 2, 2), None) == "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]"
    assert _layout(np.arange(10), 2) == "[0 1 ... 8 9]"
    assert _layout(np.arange(12), None, width=10, pad=2) == "[ 0  1  2\n  3  4  5\n  6  7  8\n  9 10 11]"


@pytest.mark.parametrize("shape", [(1,), (5,), (40,), (3, 7), (12, 5), (2, 3, 4), (7, 1, 12), (3, 3, 3, 3)])
@pytest.mark.parametrize("threshold", [1, 10, 1000])
@pytest.mark.parametrize("width", [100, 24])
def test_equals_numpy_array2string(shape, threshold, width):
    array = np.arange(int(np.prod(shape))).reshape(shape) * 37 - 500
    edge = max(1, int(threshold ** (1.0 / array.ndim)) // 2)
    expected = np.array2string(array, formatter={"all": lambda v: str(v).rjust(5)},
                               threshold=threshold, edgeitems=edge, max_line_width=width)
    summarised = edge if array.size > threshold else None
    assert _layout(array, summarised, width, pad=5) == expected


def test_the_values_are_consumed_lazily():
    taken = []
    words = (taken.append(i) or str(i) for i in itertools.count())
    pieces = layout_pieces((1_000_000,), words)
    first = next(pieces) + next(pieces)
    assert first == ("[0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 "
                     "29 30 31 32 33 34 35\n")
    assert len(taken) == 37  # one line's worth and the word that did not fit, not a million
