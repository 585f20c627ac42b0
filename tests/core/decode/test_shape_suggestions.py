"""core.decode.shape_suggestions: factorisations of a count, and the shape that keeps the same
bytes when the element type changes (hand-checked)."""

from __future__ import annotations

import pytest

from core.decode.shape_suggestions import shape_for_new_type, suggest_shapes


def test_suggestions_are_factorisations_most_square_first():
    assert suggest_shapes(12)[:3] == [(3, 4), (4, 3), (2, 6)]
    assert all(a * b * (c[0] if c else 1) == 12 for a, b, *c in suggest_shapes(12) if len((a, b, *c)) <= 3)


@pytest.mark.parametrize(("shape", "old", "new", "expected"), [
    ((4, 3, 40, 50), 32, 16, (4, 3, 40, 100)),  # int16 over float32: twice the values per row
    ((4, 3, 40, 100), 16, 32, (4, 3, 40, 50)),
    ((10,), 8, 64, None),  # 80 bits: not a whole number of float64 values
    ((2, 16), 8, 64, (2, 2)),
    ((6, 8), 4, 8, (6, 4)),  # int4 -> uint8: two values per byte
    ((3, -1), 32, 16, (3, -1)),  # the last axis adapts by itself
    ((), 32, 16, None),
])
def test_shape_for_new_type(shape, old, new, expected):
    assert shape_for_new_type(shape, old, new) == expected
