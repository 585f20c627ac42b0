"""An axis of element indices: whole-number ticks only, at the elements they name.

pyqtgraph's ``AxisItem`` picks tick spacings of ``1, 2, 5 x 10**k`` for any range, so a plane of
3 rows got ticks at 0.5, 1.0, 1.5, ..., and labels scaled by an SI prefix ("x0.001"). An index is
a whole number, so :class:`IndexAxisItem` keeps only spacings of at least 1 (1 when the axis is
so short that pyqtgraph would choose a finer one), never rescales its labels, and labels only
indices inside the array (``0 <= i < length``).

Where the tick of element ``i`` sits depends on the plot:

* a **line** draws element ``i`` at ``x = i``: ticks at whole numbers (``centered=False``);
* an **image** covers element ``i`` with ``[i, i + 1)``: the tick of ``i`` is at the middle of
  its pixel, ``i + 0.5`` (``centered=True``), labelled ``i``.
"""

from __future__ import annotations

import math

import pyqtgraph as pg

__all__ = ["IndexAxisItem"]


class IndexAxisItem(pg.AxisItem):
    """Axis whose ticks are whole element indices.

    Parameters
    ----------
    orientation : str
        ``"left"``, ``"right"``, ``"top"`` or ``"bottom"``, as for ``pyqtgraph.AxisItem``.
    centered : bool
        Element ``i`` covers ``[i, i + 1)`` (images): ticks at ``i + 0.5``. Otherwise ticks at ``i``.
    """

    def __init__(self, orientation: str, *, centered: bool = False, **kwargs) -> None:
        super().__init__(orientation, **kwargs)
        self.enableAutoSIPrefix(False)  # "row (x1000)" would hide the index the user reads
        self._shift = 0.5 if centered else 0.0
        self._length: int | None = None

    @property
    def centered(self) -> bool:
        return self._shift != 0.0

    def set_length(self, length: int | None) -> None:
        """Label only indices ``0 <= i < length`` (None: any index)."""
        self._length = None if length is None else int(length)
        self.picture = None  # pyqtgraph's cached drawing of the ticks
        self.update()

    def tickSpacing(self, minVal: float, maxVal: float, size: float):
        """pyqtgraph's levels with spacing >= 1 (they are then whole), or one level of 1."""
        levels = [(spacing, self._shift) for spacing, _offset in super().tickSpacing(minVal, maxVal, size)
                  if spacing >= 1]
        if not levels and maxVal != minVal:
            levels = [(1.0, self._shift)]
        return levels

    def tickValues(self, minVal: float, maxVal: float, size: float):
        """Tick positions, per level, of whole indices inside the array only."""
        levels = []
        for spacing, values in super().tickValues(minVal, maxVal, size):
            kept = [v for v in values if self._is_index(v - self._shift)]
            levels.append((spacing, kept))
        return levels

    def tickStrings(self, values, scale, spacing) -> list[str]:
        """The index at each tick: ``str(round(value - shift))``."""
        return [str(round(v - self._shift)) for v in values]

    def index_ticks(self) -> list[int]:
        """The indices labelled now (major and minor levels), in order: for tests and readers."""
        low, high = self.range
        length = self.geometry().width() if self.orientation in ("top", "bottom") else self.geometry().height()
        indices = set()
        for _spacing, values in self.tickValues(low, high, length):
            indices.update(round(v - self._shift) for v in values)
        return sorted(indices)

    def _is_index(self, value: float) -> bool:
        whole = round(value)
        if not math.isclose(value, whole, abs_tol=1e-6):
            return False
        return whole >= 0 and (self._length is None or whole < self._length)
