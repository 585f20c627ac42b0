"""Which two axes of an N-d view are on screen, and the fixed index of every other axis.

Shared by the table and the plot so that both show the same plane (as napari's ``Dims`` model):
widgets change this model and listen to :attr:`DisplayAxes.changed`; they never talk to each
other. Pure bookkeeping: it never copies data, :meth:`plane` returns a numpy view.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject, Signal

from core.errors import CoreError


class DisplayAxes(QObject):
    """Display state of an N-d array.

    - 0-d: no display axis; the single element is shown.
    - 1-d: ``row_axis == 0`` and ``col_axis is None`` (one column, index header).
    - N-d (N >= 2): two distinct axes; ``row_axis < col_axis`` is not required (choosing rows=2,
      cols=0 shows the transposed plane). Every other axis is fixed at ``indices[axis]``.
    """

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._shape: tuple[int, ...] = ()
        self._row_axis: int | None = None
        self._col_axis: int | None = None
        self._indices: list[int] = []

    # ----------------------------------------------------------------------------- state
    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def row_axis(self) -> int | None:
        return self._row_axis

    @property
    def col_axis(self) -> int | None:
        return self._col_axis

    @property
    def indices(self) -> tuple[int, ...]:
        return tuple(self._indices)

    def reset(self, shape: tuple[int, ...]) -> None:
        """Adopt a new array shape, keeping the previous choices where they still fit.

        Default for N >= 2 is the last two axes (rows = N-2, columns = N-1), like numpy prints.
        Fixed indices are clamped into range.
        """
        shape = tuple(int(d) for d in shape)
        ndim = len(shape)
        old = (self._shape, self._row_axis, self._col_axis, list(self._indices))
        if len(self._shape) != ndim:
            self._indices = [0] * ndim
            if ndim == 0:
                self._row_axis, self._col_axis = None, None
            elif ndim == 1:
                self._row_axis, self._col_axis = 0, None
            else:
                self._row_axis, self._col_axis = ndim - 2, ndim - 1
        self._shape = shape
        self._indices = [min(i, max(d - 1, 0)) for i, d in zip(self._indices, shape)]
        if old != (self._shape, self._row_axis, self._col_axis, self._indices):
            self.changed.emit()

    def set_axes(self, row_axis: int, col_axis: int) -> None:
        """Choose the row and column axes (N >= 2 only); equal axes swap the previous pair."""
        if self.ndim < 2:
            return
        if not (0 <= row_axis < self.ndim and 0 <= col_axis < self.ndim):
            raise ValueError(f"axes ({row_axis}, {col_axis}) out of range for {self.ndim}-d data")
        if row_axis == col_axis:
            # Picking the column axis as row axis (or vice versa) swaps them.
            if row_axis == self._col_axis:
                col_axis = self._row_axis
            else:
                row_axis = self._col_axis
        if (row_axis, col_axis) != (self._row_axis, self._col_axis):
            self._row_axis, self._col_axis = row_axis, col_axis
            self.changed.emit()

    def set_index(self, axis: int, index: int) -> None:
        """Fix a non-displayed axis at ``index`` (clamped into the axis)."""
        if not 0 <= axis < self.ndim:
            return
        index = min(max(int(index), 0), max(self._shape[axis] - 1, 0))
        if self._indices[axis] != index:
            self._indices[axis] = index
            self.changed.emit()

    def fixed_axes(self) -> tuple[int, ...]:
        """Axes that are not on screen (their index is chosen by :meth:`set_index`)."""
        return tuple(a for a in range(self.ndim) if a not in (self._row_axis, self._col_axis))

    # ----------------------------------------------------------------------------- mapping
    def plane(self, array: np.ndarray) -> np.ndarray:
        """The displayed part of ``array`` as a view: 0-d, 1-d (rows) or 2-d (rows x columns)."""
        if array.ndim != self.ndim:
            raise ValueError(f"array has {array.ndim} dims, display state has {self.ndim}")
        if self.ndim == 0:
            return array
        if any(array.shape[a] == 0 for a in self.fixed_axes()):
            # No element exists in any plane; show an empty table (there is nothing to copy).
            return np.empty((0, 0) if self.ndim >= 2 else (0,), dtype=array.dtype)
        key = tuple(
            slice(None) if axis in (self._row_axis, self._col_axis) else self._indices[axis]
            for axis in range(self.ndim)
        )
        plane = array[key]
        if self.ndim >= 2 and self._row_axis > self._col_axis:
            plane = plane.T
        return plane

    def full_index(self, row: int = 0, col: int = 0) -> tuple[int, ...]:
        """The element index in the full array of plane cell (row, col)."""
        index = list(self._indices)
        if self._row_axis is not None:
            index[self._row_axis] = int(row)
        if self._col_axis is not None:
            index[self._col_axis] = int(col)
        return tuple(index)

    def locate(self, index: tuple[int, ...]) -> tuple[int, int]:
        """Show the plane containing element ``index`` and return its (row, col) cell.

        Moves the fixed axes to ``index``'s values (emitting :attr:`changed` if that changes
        the plane). For 1-d data the column is 0; for 0-d data the cell is (0, 0).
        """
        if len(index) != self.ndim:
            raise ValueError(f"index {index} does not match {self.ndim}-d data")
        moved = False
        for axis in self.fixed_axes():
            value = int(index[axis])
            if self._indices[axis] != value:
                self._indices[axis] = value
                moved = True
        if moved:
            self.changed.emit()
        row = int(index[self._row_axis]) if self._row_axis is not None else 0
        col = int(index[self._col_axis]) if self._col_axis is not None else 0
        return row, col


def normalize_index(index: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, ...]:
    """Check a full element index against ``shape`` and make negative entries non-negative.

    Raises
    ------
    CoreError
        If ``index`` does not have one entry per axis.
    IndexError
        If an entry is out of bounds (numpy's message).
    """
    if len(index) != len(shape):
        raise CoreError(
            f"expected {len(shape)} {'index' if len(shape) == 1 else 'indices'} "
            f"(one per axis of shape {tuple(shape)}), "
            f"got {len(index)}"
        )
    result = []
    for axis, (value, size) in enumerate(zip(index, shape)):
        value = int(value)
        if not -size <= value < size:
            raise IndexError(f"index {value} is out of bounds for axis {axis} with size {size}")
        result.append(value + size if value < 0 else value)
    return tuple(result)
