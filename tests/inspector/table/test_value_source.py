"""ArrayTableModel's value-source hook: other values in the same cells (a comparison's), with
their own type and background, and the array's own values back when the source is removed."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from inspector.table.model import ArrayTableModel


class Doubled:
    """Shows twice the array's value as float64; paints index (1, 2) red."""

    dtype = np.dtype(np.float64)

    def __init__(self, array):
        self.array, self.asked = array, []

    def value(self, index):
        self.asked.append(index)
        return np.float64(2 * self.array[index])

    def background(self, index):
        return QColor("#ff0000") if index == (1, 2) else None


def test_a_value_source_replaces_the_values_and_backgrounds(qtbot):
    array = np.arange(12, dtype=np.int16).reshape(3, 4)
    model = ArrayTableModel()
    model.set_array(array)
    changed = []
    model.dataChanged.connect(lambda *args: changed.append(args))
    source = Doubled(array)
    model.set_value_source(source)
    assert changed  # the page repaints
    assert model.data(model.index(1, 2)) == "12.0"  # float64 text, not int16
    assert model.data(model.index(1, 2), model.ValueRole) == 12.0
    assert source.asked[-1] == (1, 2)  # the full element index of the cell
    assert model.data(model.index(1, 2), Qt.ItemDataRole.BackgroundRole).name() == "#ff0000"
    assert model.data(model.index(0, 0), Qt.ItemDataRole.BackgroundRole) is None
    assert "float64" in model.data(model.index(1, 2), Qt.ItemDataRole.ToolTipRole)
    model.set_value_source(None)
    assert model.value_source is None
    assert model.data(model.index(1, 2)) == "6"
