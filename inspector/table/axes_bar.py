"""Widget that edits a :class:`DisplayAxes`: which axes are rows / columns, and the fixed indices.

As napari's ``QtDims`` and silx's ``ArrayTableWidget`` axis selectors: the widget only writes
the model (``set_axes`` / ``set_index``) and redraws itself from the model's ``changed``
signal, so any number of views can share one :class:`DisplayAxes`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from inspector.state.display_axes import DisplayAxes
from inspector.widgets.plain_text import make_plain

_INT_MAX = 2**31 - 1


class AxesBar(QWidget):
    """Row-axis and column-axis combo boxes plus a slider and spin box per fixed axis.

    Rules
    -----
    - 0-d and 1-d data: nothing to choose, every part is hidden (the bar takes no space).
    - N-d: the two combos list ``"axis k (length)"``; choosing for rows the axis currently
      used for columns (or vice versa) swaps them (:meth:`DisplayAxes.set_axes`). One row of
      ``label | slider | spin box | "/ last index"`` per fixed axis, in axis order.
    - A label shows the displayed plane as a numpy index, e.g. ``"[2, :, :]"``, with ``".T"``
      appended when the row axis comes after the column axis (the plane is transposed).
    - Axes longer than ``2**31`` (Qt's int limit) get a proportional slider (coarse steps) and a
      spin box holding integers as doubles (exact up to 2**53), so every index is reachable.
    - Zero-length fixed axes get disabled editors.

    Parameters
    ----------
    display_axes : DisplayAxes
        The state to edit (shared with the table and the plot).
    parent : QWidget, optional
    """

    def __init__(self, display_axes: DisplayAxes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._axes = display_axes
        self._structure: tuple | None = None
        self._editors: dict[int, tuple[QSlider, QAbstractSpinBox, int]] = {}

        self._choosers = QWidget(self)
        self._row_combo = QComboBox(self._choosers, objectName="table.rowAxis")
        self._row_combo.setToolTip("Axis shown along the table rows")
        self._col_combo = QComboBox(self._choosers, objectName="table.columnAxis")
        self._col_combo.setToolTip("Axis shown along the table columns")
        self._slice_label = QLabel(self._choosers)
        make_plain(self._slice_label)
        self._slice_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        choosers = QHBoxLayout(self._choosers)
        choosers.setContentsMargins(0, 0, 0, 0)
        choosers.addWidget(QLabel("rows", self._choosers))
        choosers.addWidget(self._row_combo)
        choosers.addWidget(QLabel("columns", self._choosers))
        choosers.addWidget(self._col_combo)
        choosers.addWidget(self._slice_label)
        choosers.addStretch(1)

        self._sliders = QWidget(self)
        self._grid = QGridLayout(self._sliders)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setColumnStretch(1, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._choosers)
        layout.addWidget(self._sliders)

        self._row_combo.activated.connect(self._on_row_axis_chosen)
        self._col_combo.activated.connect(self._on_col_axis_chosen)
        self._axes.changed.connect(self._on_axes_changed)
        self._on_axes_changed()

    # ------------------------------------------------------------------------ public
    @property
    def display_axes(self) -> DisplayAxes:
        return self._axes

    @property
    def row_combo(self) -> QComboBox:
        return self._row_combo

    @property
    def col_combo(self) -> QComboBox:
        return self._col_combo

    @property
    def slice_text(self) -> str:
        """The numpy index of the displayed plane, as shown (``""`` below 2-d)."""
        return self._slice_label.text()

    def index_editors(self, axis: int) -> tuple[QSlider, QAbstractSpinBox]:
        """(slider, spin box) of fixed axis ``axis``.

        Raises
        ------
        KeyError
            If ``axis`` is not a fixed axis.
        """
        slider, spin, _ = self._editors[axis]
        return slider, spin

    # ------------------------------------------------------------------------ handlers
    def _on_row_axis_chosen(self, position: int) -> None:
        self._axes.set_axes(self._row_combo.itemData(position), self._axes.col_axis)

    def _on_col_axis_chosen(self, position: int) -> None:
        self._axes.set_axes(self._axes.row_axis, self._col_combo.itemData(position))

    def _on_slider_moved(self, axis: int, value: int) -> None:
        _, _, length = self._editors[axis]
        if length - 1 > _INT_MAX:  # proportional slider
            value = round(value * (length - 1) / _INT_MAX)
        self._axes.set_index(axis, value)

    def _on_spin_changed(self, axis: int, value: float) -> None:
        self._axes.set_index(axis, int(value))

    def _on_axes_changed(self) -> None:
        axes = self._axes
        structure = (axes.shape, axes.row_axis, axes.col_axis)
        if structure != self._structure:
            self._structure = structure
            self._rebuild()
        self._show_indices()

    # ------------------------------------------------------------------------ internals
    def _rebuild(self) -> None:
        axes = self._axes
        for combo, current in ((self._row_combo, axes.row_axis), (self._col_combo, axes.col_axis)):
            combo.blockSignals(True)
            combo.clear()
            for axis, length in enumerate(axes.shape):
                combo.addItem(f"axis {axis} ({length})", axis)
            if current is not None:
                combo.setCurrentIndex(current)
            combo.blockSignals(False)
        while self._grid.count():
            item = self._grid.takeAt(0)
            if item.widget() is not None:
                item.widget().hide()  # deleted later: until then it must not paint over its successor
                item.widget().deleteLater()
        self._editors.clear()
        for line, axis in enumerate(axes.fixed_axes() if axes.ndim >= 2 else ()):
            self._add_editor(line, axis, axes.shape[axis])
        self._choosers.setVisible(axes.ndim >= 2)
        self._sliders.setVisible(bool(self._editors))

    def _add_editor(self, line: int, axis: int, length: int) -> None:
        slider = QSlider(Qt.Orientation.Horizontal, self._sliders)
        slider.setRange(0, min(max(length - 1, 0), _INT_MAX))
        if length - 1 > _INT_MAX:
            spin: QAbstractSpinBox = QDoubleSpinBox(self._sliders)
            spin.setDecimals(0)
        else:
            spin = QSpinBox(self._sliders)
        spin.setRange(0, max(length - 1, 0))
        spin.setKeyboardTracking(False)  # typing "123" jumps once, not to 1, 12, 123
        slider.setObjectName(f"table.axis{axis}Slider")
        spin.setObjectName(f"table.axis{axis}Index")
        for editor in (slider, spin):
            editor.setEnabled(length > 0)
            editor.setToolTip(f"Index along axis {axis} (0 to {length - 1})")
        self._grid.addWidget(QLabel(f"axis {axis}", self._sliders), line, 0)
        self._grid.addWidget(slider, line, 1)
        self._grid.addWidget(spin, line, 2)
        self._grid.addWidget(QLabel(f"/ {max(length - 1, 0)}", self._sliders), line, 3)
        slider.valueChanged.connect(lambda v, a=axis: self._on_slider_moved(a, v))
        spin.valueChanged.connect(lambda v, a=axis: self._on_spin_changed(a, v))
        self._editors[axis] = (slider, spin, length)

    def _show_indices(self) -> None:
        axes = self._axes
        for axis, (slider, spin, length) in self._editors.items():
            index = axes.indices[axis]
            position = round(index * _INT_MAX / (length - 1)) if length - 1 > _INT_MAX else index
            for editor, value in ((slider, position), (spin, index)):
                editor.blockSignals(True)
                editor.setValue(value)
                editor.blockSignals(False)
        if axes.ndim < 2:
            self._slice_label.setText("")
            return
        key = [":" if a in (axes.row_axis, axes.col_axis) else str(i)
               for a, i in enumerate(axes.indices)]
        transposed = ".T" if axes.row_axis > axes.col_axis else ""
        self._slice_label.setText(f"[{', '.join(key)}]{transposed}")
