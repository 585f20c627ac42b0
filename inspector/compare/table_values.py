"""The values the table shows while a comparison is open: A, B, ``|A - B|``, the relative or the
ULP difference, coloured by a diverging map.

Rules
-----
- A value source of :meth:`inspector.table.model.ArrayTableModel.set_value_source`: the table
  asks for one cell at a time; the source reads the *tile* around it (at most
  :data:`TILE_ROWS` x :data:`TILE_COLS` elements of the displayed plane, the other axes fixed)
  with :meth:`Comparison.window` and keeps the last :data:`TILE_CACHE` tiles. So only elements
  on or near the screen are read, whatever the files' sizes.
- Colours: a cell whose values differ is painted from :data:`palette.DIFF_NONE` towards
  :data:`palette.DIFF_ABOVE` (``a > b``) or :data:`palette.DIFF_BELOW` (``a < b``), the
  strength growing with ``sqrt(|a - b| / max |a - b|)`` (the comparison's largest absolute
  difference), so small differences stay visible next to a large one. A mismatched pair
  whose difference is NaN or infinite gets :data:`palette.DIFF_NOT_FINITE` (the rule of
  :mod:`core.compare.difference_image`, as in the comparison plot); equal values get none.
  The colour is the pair's, whatever the table shows (A, B, ``|A - B|``...): a NaN cell of the
  ``|A - B|`` view and the same cell of the A view look the same.
- A tile that cannot be read (a file changed on disk) shows zeros and remembers the error in
  :attr:`ComparisonValues.error`; the Compare dock reports the comparison's own error.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
from PySide6.QtGui import QColor

from core.compare.difference_image import not_finite_differences
from core.compare.elementwise import ElementDifferences
from core.compare.scanner import Window
from inspector.state.comparison import Comparison
from inspector.state.display_axes import DisplayAxes
from inspector.widgets import palette

__all__ = ["ComparisonValues", "diverging_color", "follow_comparison", "TILE_ROWS", "TILE_COLS", "TILE_CACHE"]

TILE_ROWS = 64
TILE_COLS = 32
TILE_CACHE = 16

_ABOVE, _BELOW, _NONE, _NOT_FINITE = (QColor(c) for c in (palette.DIFF_ABOVE, palette.DIFF_BELOW, palette.DIFF_NONE,
                                                             palette.DIFF_NOT_FINITE))


def diverging_color(sign: int, strength: float) -> QColor:
    """The colour of a difference: ``sign`` > 0 (``a > b``) red, < 0 blue, ``strength`` in [0, 1]
    from :data:`palette.DIFF_NONE` (0) to the full colour (1)."""
    end = _ABOVE if sign > 0 else _BELOW
    t = min(max(float(strength), 0.0), 1.0)
    return QColor(*(round(getattr(_NONE, c)() + t * (getattr(end, c)() - getattr(_NONE, c)())) for c in ("red", "green", "blue")))


class ComparisonValues:
    """A value source for the table (rules: module docstring), for one quantity of one result.

    Parameters
    ----------
    comparison
        The comparison to read (its :attr:`~Comparison.quantity` and :attr:`~Comparison.result`
        at construction time; make a new source when they change).
    display_axes
        The axes the table shows (rows and columns of a tile).
    """

    def __init__(self, comparison: Comparison, display_axes: DisplayAxes) -> None:
        self._comparison = comparison
        self._axes = display_axes
        self._quantity = comparison.quantity
        result = comparison.result
        self._largest = result.max_absolute.value if result is not None and result.max_absolute is not None else 0.0
        rules = comparison.rules
        # Differences are written with the digits of the type they were computed in (float32
        # differences of float32 data read 1.7881393e-07, not float64's 1.7881393432617188e-07).
        self.dtype = {"a": rules.dtype_a, "b": rules.dtype_b, "ulp": np.dtype(np.uint64)}.get(
            self._quantity, rules.work)
        self._tiles: OrderedDict[tuple, tuple[tuple[int, ...], Window | None]] = OrderedDict()
        self.error: BaseException | None = None

    @property
    def quantity(self) -> str:
        return self._quantity

    def value(self, index: tuple[int, ...]):
        """The shown quantity at full element ``index``."""
        start, window = self._tile(index)
        if window is None:
            return self.dtype.type(0)
        local = tuple(i - s for i, s in zip(index, start))
        q = self._quantity
        if q == "a":
            return window.a[local]
        if q == "b":
            return window.b[local]
        d = window.differences
        return {"abs": d.absolute, "rel": d.relative, "ulp": d.ulp}[q][local]

    def background(self, index: tuple[int, ...]) -> QColor | None:
        """The diverging colour of the pair at ``index`` (None when its values are equal)."""
        start, window = self._tile(index)
        if window is None:
            return None
        local = tuple(i - s for i, s in zip(index, start))
        absolute = float(window.differences.absolute[local])
        mismatch = bool(window.differences.mismatch[local])
        if not math.isfinite(absolute):
            return QColor(_NOT_FINITE) if not_finite_differences(absolute, mismatch) else None
        a, b = window.a[local], window.b[local]
        sign = 1 if a > b else -1
        if absolute == 0 and not mismatch:
            return None
        strength = math.sqrt(absolute / self._largest) if self._largest > 0 else 1.0
        return diverging_color(sign, max(strength, 0.5 if mismatch else 0.1))

    def tiles_read(self) -> int:
        """Tiles held now (what tests check: only tiles around the visible cells are read)."""
        return len(self._tiles)

    def _tile(self, index: tuple[int, ...]) -> tuple[tuple[int, ...], Window | None]:
        shape = self._axes.shape
        key, start = [], []
        shown = {self._axes.row_axis: TILE_ROWS, self._axes.col_axis: TILE_COLS} if len(shape) >= 2 else {0: TILE_ROWS * TILE_COLS}
        for axis, i in enumerate(index):
            size = shown.get(axis)
            if size is None:
                key.append(i)
                start.append(i)
            else:
                first = i - i % size
                key.append(slice(first, min(first + size, shape[axis])))
                start.append(first)
        tile_key = tuple((k.start, k.stop) if isinstance(k, slice) else k for k in key)
        cached = self._tiles.get(tile_key)
        if cached is not None:
            self._tiles.move_to_end(tile_key)
            return cached
        try:
            window = self._comparison.window(tuple(key))
            # Drop the axes fixed by an integer: the window keeps the sliced axes only.
            window = _expand(window, key)
        except Exception as error:  # a paint must not raise: remember, show zeros
            self.error, window = error, None
        entry = (tuple(start), window)
        self._tiles[tile_key] = entry
        if len(self._tiles) > TILE_CACHE:
            self._tiles.popitem(last=False)
        return entry


def _expand(window: Window, key: list) -> Window:
    """``window`` with a length-1 axis for every integer of ``key``, so it is indexed with the
    full (local) index."""
    where = tuple(np.newaxis if not isinstance(k, slice) else slice(None) for k in key)
    if not where:
        return window
    d = window.differences
    return Window(window.a[where], window.b[where],
                  ElementDifferences(d.absolute[where], d.relative[where], d.ulp[where], d.mismatch[where], d.finite[where]))


def follow_comparison(model, comparison: Comparison) -> None:
    """Make the table ``model`` (an :class:`~inspector.table.model.ArrayTableModel`) show the
    comparison's quantity while a result of A's shape is there, and A's own values otherwise."""

    def update(*_args) -> None:
        if comparison.result is not None and comparison.same_shape and comparison.rules is not None:
            model.set_value_source(ComparisonValues(comparison, model.display_axes))
        elif model.value_source is not None:
            model.set_value_source(None)

    comparison.resultChanged.connect(update)
    comparison.settingsChanged.connect(update)
    comparison.document.filesChangedOnDisk.connect(lambda _report: model.set_value_source(None))
    update()
