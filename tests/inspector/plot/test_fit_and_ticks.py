"""Issue 15, item 12: the image fills the plot, index axes tick whole indices, values are never
rescaled by an SI prefix ("value (x0.001)").

Every check reads the real pyqtgraph items of a shown widget: the view box's range, and the
ticks an axis draws for its current range and length (``tickValues`` / ``tickStrings``, what
``AxisItem.generateDrawSpecs`` paints).
"""

from __future__ import annotations

import numpy as np
import pytest

from inspector.plot.image_plot import ImagePlot
from inspector.plot.line_plot import LinePlot
from inspector.plot.panel import PlotPanel, configure_pyqtgraph


def shown(qtbot, widget, width, height):
    configure_pyqtgraph()
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def drawn_ticks(axis) -> list[tuple[float, str]]:
    """``(position, label)`` of every tick the axis draws now, all levels, by position."""
    low, high = sorted(axis.range)
    length = axis.width() if axis.orientation in ("top", "bottom") else axis.height()
    ticks = {}
    for spacing, values in axis.tickValues(low, high, length):
        for value, text in zip(values, axis.tickStrings(values, axis.autoSIPrefixScale, spacing)):
            ticks.setdefault(round(value, 9), text)
    return sorted(ticks.items())


def view_range(plot) -> tuple[tuple[float, float], tuple[float, float]]:
    (x0, x1), (y0, y1) = plot.view_box.viewRange()
    return (round(x0, 6), round(x1, 6)), (round(y0, 6), round(y1, 6))


def test_a_wide_plane_in_a_tall_plot_fills_it_exactly(qtbot):
    # 40 rows x 64 columns in a plot taller than wide: the rows axis used to span about
    # -70..110 (aspect locked); now the view is exactly the plane.
    plot = shown(qtbot, ImagePlot(), 360, 700)
    plot.set_plane(np.arange(40 * 64, dtype=np.float32).reshape(40, 64))
    qtbot.waitUntil(lambda: view_range(plot) == ((0.0, 64.0), (0.0, 40.0)))
    assert not plot.view_box.state["aspectLocked"]
    plot.resize(700, 300)  # still exact after the plot changes shape
    qtbot.waitUntil(lambda: plot.view_box.width() > 450)
    assert view_range(plot) == ((0.0, 64.0), (0.0, 40.0))
    plot.view_box.autoRange()  # pyqtgraph's "view all" (the A button) fits without padding
    assert view_range(plot) == ((0.0, 64.0), (0.0, 40.0))


def test_square_pixels_keep_the_plane_whole_with_bands_beside_it(qtbot):
    plot = shown(qtbot, ImagePlot(), 360, 700)
    plot.set_plane(np.zeros((40, 64), dtype=np.float32))
    plot.set_square_pixels(True)
    assert plot.square_pixels and plot.view_box.state["aspectLocked"]

    def whole_and_square():
        (x0, x1), (y0, y1) = view_range(plot)
        return (x0, x1) == (0.0, 64.0) and y0 < -1 and y1 > 41
    qtbot.waitUntil(whole_and_square)  # all 64 columns across, rows padded to the plot's shape
    plot.set_square_pixels(False)
    qtbot.waitUntil(lambda: view_range(plot) == ((0.0, 64.0), (0.0, 40.0)))


def test_a_small_plane_gets_one_tick_per_element_at_its_middle(qtbot):
    plot = shown(qtbot, ImagePlot(), 500, 400)
    plot.set_plane(np.arange(15, dtype=np.float64).reshape(3, 5))
    qtbot.waitUntil(lambda: view_range(plot) == ((0.0, 5.0), (0.0, 3.0)))
    columns = drawn_ticks(plot.plot_item.getAxis("bottom"))
    rows = drawn_ticks(plot.plot_item.getAxis("left"))
    assert columns == [(0.5, "0"), (1.5, "1"), (2.5, "2"), (3.5, "3"), (4.5, "4")]
    assert rows == [(0.5, "0"), (1.5, "1"), (2.5, "2")]


def test_a_long_axis_ticks_round_indices_and_nothing_outside_the_plane(qtbot):
    plot = shown(qtbot, ImagePlot(), 500, 400)
    plot.set_plane(np.zeros((40, 1000), dtype=np.uint8))
    qtbot.waitUntil(lambda: view_range(plot) == ((0.0, 1000.0), (0.0, 40.0)))
    plot.view_box.setRange(xRange=(-300, 1300), padding=0)  # zoomed out past both ends
    columns = drawn_ticks(plot.plot_item.getAxis("bottom"))
    labels = [int(text) for _position, text in columns]
    assert labels and all(0 <= i < 1000 for i in labels)
    # 1,600 elements across some 440 px: pyqtgraph's levels there are 200 and 50, all whole.
    assert labels == list(range(0, 1000, 50))
    assert all(position == i + 0.5 for (position, _t), i in zip(columns, labels))


def test_a_short_line_gets_whole_index_ticks(qtbot):
    plot = shown(qtbot, LinePlot(), 500, 300)
    plot.set_values(np.array([0.25, 0.5, 0.125]))
    qtbot.waitUntil(lambda: plot.view_box.viewRange()[0][1] < 3)
    ticks = drawn_ticks(plot.plot_item.getAxis("bottom"))
    assert [text for _p, text in ticks] == ["0", "1", "2"]
    assert [p for p, _t in ticks] == [0.0, 1.0, 2.0]


def test_small_values_are_labelled_as_they_are(qtbot):
    # Values of about 0.001: pyqtgraph would relabel the axis "value (x0.001)" and print 1, 2, 3.
    plot = shown(qtbot, LinePlot(), 500, 300)
    plot.set_values(np.array([0.001, 0.002, 0.003]))
    axis = plot.plot_item.getAxis("left")
    qtbot.waitUntil(lambda: plot.view_box.viewRange()[1][1] < 0.01)
    plot.view_box.updateAutoRange()
    assert axis.autoSIPrefixScale == 1.0
    assert "x0.001" not in axis.labelString() and "(" not in axis.labelString()
    texts = [text for _p, text in drawn_ticks(axis)]
    assert "0.002" in texts


@pytest.mark.parametrize("mode", ["image", "line"])
def test_the_panel_names_its_plot_widgets(qtbot, mode):
    panel = shown(qtbot, PlotPanel(), 500, 400)
    panel.set_array(np.arange(12.0).reshape(3, 4))
    if mode == "line":
        panel.set_line_axis(1)
    from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QStackedWidget, QWidget

    assert panel.findChild(QComboBox, "plot.mode") is not None
    assert panel.findChild(QComboBox, "plot.complexPart") is not None
    square = panel.findChild(QCheckBox, "plot.squarePixels")
    assert square is not None and square.isVisible() == (mode == "image")
    assert panel.findChild(QLabel, "plot.readout") is not None
    stack = panel.findChild(QStackedWidget, "plot.view")
    assert stack.currentWidget().findChild(QWidget, f"plot.{mode}") is not None
