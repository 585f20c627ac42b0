"""PlotPanel driven as a user would: set an array, pick axes/modes, click, read the items back."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtWidgets import QComboBox

from inspector.plot.panel import PlotPanel, configure_pyqtgraph
from inspector.state.display_axes import DisplayAxes


@pytest.fixture
def panel(qtbot) -> PlotPanel:
    configure_pyqtgraph()
    widget = PlotPanel()
    qtbot.addWidget(widget)
    widget.resize(800, 500)
    return widget


@pytest.fixture
def shown(qtbot, panel) -> PlotPanel:
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def widget_point(view_box, graphics_view, x: float, y: float) -> QPoint:
    """Widget pixel of view coordinates (x, y)."""
    return graphics_view.mapFromScene(view_box.mapViewToScene(QPointF(x, y)))


def click_line(qtbot, panel: PlotPanel, x: float, y: float) -> None:
    plot = panel.line_plot
    pos = widget_point(plot.view_box, plot.graphics_view, x, y)
    qtbot.mouseClick(plot.graphics_view.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def click_image(qtbot, panel: PlotPanel, row: int, col: int) -> None:
    plot = panel.image_plot
    pos = widget_point(plot.view_box, plot.graphics_view, col + 0.5, row + 0.5)
    qtbot.mouseClick(plot.graphics_view.viewport(), Qt.MouseButton.LeftButton, pos=pos)


# --------------------------------------------------------------------------------- modes
def test_empty_scalar_and_zero_size(panel):
    assert panel.mode == "empty"
    panel.set_array(np.array(3.5, dtype=">f8"))
    assert panel.mode == "scalar"
    assert panel.readout_text() == "index () value 3.5"
    panel.set_array(np.zeros((0, 3), np.float32))
    assert panel.mode == "empty"
    panel.set_array(np.zeros((2, 0, 3), np.float32))
    assert panel.mode == "empty"
    panel.set_array(None)
    assert panel.mode == "empty"


def test_unplottable_dtype_is_rejected(panel):
    with pytest.raises(TypeError, match="numeric"):
        panel.set_array(np.array(["a", "b"]))


# --------------------------------------------------------------------------------- 1-d
def test_small_1d_curve_equals_array(panel):
    data = np.random.default_rng(0).normal(size=1000).astype(np.float32)
    panel.set_array(data)
    assert panel.mode == "line"
    x, y = panel.curve.getData()
    np.testing.assert_array_equal(x, np.arange(1000))
    np.testing.assert_array_equal(y, data)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (np.array([1.5, -2.25, 3.0], ">f4"), [1.5, -2.25, 3.0]),
        (np.array([1.5, -2.25, 3.0], "<f8"), [1.5, -2.25, 3.0]),
        (np.array([1.5, -2.25, 3.0], np.float16), [1.5, -2.25, 3.0]),
        (np.array([1.5, -2.25, 3.0], ml_dtypes.bfloat16), [1.5, -2.25, 3.0]),
        (np.array([-128, 0, 127], np.int8), [-128, 0, 127]),
        (np.array([0, 7, 2**40], ">u8"), [0, 7, 2**40]),
        (np.array([True, False, True]), [1, 0, 1]),
        (np.array([3 + 4j, 1j, -2], ">c8"), [5.0, 1.0, 2.0]),  # complex: magnitude by default
    ],
    ids=["f4-big-endian", "f8", "f2", "bfloat16", "i1", "u8-big-endian", "bool", "complex-abs"],
)
def test_1d_dtype_catalogue(panel, data, expected):
    panel.set_array(data)
    _, y = panel.curve.getData()
    np.testing.assert_array_equal(np.asarray(y, np.float64), np.array(expected, np.float64))


def test_complex_part_combo(panel):
    data = np.array([3 + 4j, 1 - 1j, -2 + 0.5j], np.complex64)
    panel.set_array(data)
    combo = panel.findChild(QComboBox, "plot.complexPart")
    assert combo.isVisibleTo(panel)
    panel.set_complex_part("re")
    np.testing.assert_array_equal(panel.curve.getData()[1], data.real)
    combo.setCurrentText("im")  # as the user would
    assert panel.complex_part == "im"
    np.testing.assert_array_equal(panel.curve.getData()[1], data.imag)
    panel.set_array(np.arange(3.0))
    assert not combo.isVisibleTo(panel) and panel.complex_part == "abs"


def test_toolbar_takes_no_room_when_it_has_nothing_to_offer(shown):
    shown.set_array(np.arange(5.0))  # real 1-d: no mode, part or colour to choose
    assert not shown.toolbar.isVisibleTo(shown)
    assert shown.line_plot.mapTo(shown, QPoint(0, 0)).y() == 0  # the plot starts at the top
    shown.set_array(np.arange(6.0).reshape(2, 3))
    assert shown.toolbar.isVisibleTo(shown)
    assert shown.findChild(QComboBox, "plot.mode").isVisibleTo(shown)
    shown.set_array(np.array([1 + 1j, 2], np.complex64))
    assert shown.toolbar.isVisibleTo(shown)
    assert shown.findChild(QComboBox, "plot.complexPart").isVisibleTo(shown)


# --------------------------------------------------------------------------------- 2-d and N-d
def test_2d_image_equals_array_and_levels_within_range(panel):
    rng = np.random.default_rng(1)
    data = rng.normal(size=(60, 80)).astype(">f4")
    data[3, 4], data[5, 6], data[7, 8] = np.nan, np.inf, -np.inf
    panel.set_array(data)
    assert panel.mode == "image"
    np.testing.assert_array_equal(panel.image_item.image, data)
    low, high = panel.image_plot.levels()
    finite = data[np.isfinite(data)]
    assert finite.min() <= low < high <= finite.max()
    assert (low, high) == (float(finite.min()), float(finite.max()))  # 4800 <= 10**5 samples


def test_bfloat16_image(panel):
    data = (np.arange(12).reshape(3, 4) / 4).astype(ml_dtypes.bfloat16)
    panel.set_array(data)
    np.testing.assert_array_equal(panel.image_item.image, data.astype(np.float32))
    assert panel.image_plot.levels() == (0.0, 2.75)


def test_3d_image_is_the_display_axes_plane(qtbot):
    configure_pyqtgraph()
    axes = DisplayAxes()
    panel = PlotPanel(axes)
    qtbot.addWidget(panel)
    data = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    axes.reset(data.shape)
    axes.set_axes(3, 1)  # rows along axis 3, columns along axis 1: a transposed plane
    axes.set_index(0, 1)
    axes.set_index(2, 2)
    panel.set_array(data)
    np.testing.assert_array_equal(panel.image_item.image, axes.plane(data))
    np.testing.assert_array_equal(panel.image_item.image, data[1, :, 2, :].T)
    assert np.shares_memory(panel.image_plot.plane, data)  # the plane is a view, not a copy
    # The table moves the model; the plot follows.
    axes.set_index(2, 3)
    np.testing.assert_array_equal(panel.image_item.image, data[1, :, 3, :].T)
    axes.set_axes(0, 2)
    np.testing.assert_array_equal(panel.image_item.image, axes.plane(data))


def test_line_along_axis_through_the_selection(panel):
    data = np.arange(4 * 5 * 6, dtype=np.float64).reshape(4, 5, 6)
    panel.set_array(data)
    panel.display_axes.set_index(0, 2)  # rows = axis 1, cols = axis 2, plane 2
    mode_combo = panel.findChild(QComboBox, "plot.mode")
    assert [mode_combo.itemText(i) for i in range(mode_combo.count())] == [
        "image (rows × cols)", "line along axis 0", "line along axis 1", "line along axis 2"]
    mode_combo.setCurrentIndex(2)  # as the user would: "line along axis 1"
    assert panel.mode == "line" and panel.line_axis == 1
    np.testing.assert_array_equal(panel.curve.getData()[1], data[2, :, 0])
    panel.select_element((2, 3, 4))
    np.testing.assert_array_equal(panel.curve.getData()[1], data[2, :, 4])
    assert panel.line_plot.marker.data["x"].tolist() == [3]
    assert panel.line_plot.marker.data["y"].tolist() == [data[2, 3, 4]]
    # The fixed axis follows the shared model.
    panel.display_axes.set_index(0, 1)
    np.testing.assert_array_equal(panel.curve.getData()[1], data[1, :, 4])
    panel.set_line_axis(None)
    assert panel.mode == "image"
    np.testing.assert_array_equal(panel.image_item.image, data[1])
    with pytest.raises(ValueError, match="axis 7"):
        panel.set_line_axis(7)


# --------------------------------------------------------------------------------- selection
def test_select_element_on_3d_switches_plane_and_marks(qtbot, panel):
    data = np.random.default_rng(2).normal(size=(4, 30, 40)).astype(np.float32)
    panel.set_array(data)
    assert panel.display_axes.indices[0] == 0
    with qtbot.assertNotEmitted(panel.elementSelected):
        panel.select_element((2, 10, 20))
    assert panel.display_axes.indices[0] == 2
    np.testing.assert_array_equal(panel.image_item.image, data[2])
    assert panel.image_plot.marked == (10, 20)
    assert panel.image_plot.marker.data["x"].tolist() == [20.5]
    assert panel.image_plot.marker.data["y"].tolist() == [10.5]
    assert panel.selected_index == (2, 10, 20)
    assert panel.readout_text() == f"selected index (2, 10, 20) value {data[2, 10, 20]!s}"
    panel.select_element((-1, -1, 0))
    assert panel.selected_index == (3, 29, 0) and panel.display_axes.indices[0] == 3
    with pytest.raises(IndexError, match="out of bounds for axis 1 with size 30"):
        panel.select_element((0, 30, 0))
    with pytest.raises(ValueError, match="expected 3 indices"):
        panel.select_element((0, 0))


def test_select_element_on_1d_pans_to_it(panel):
    data = np.arange(100_000, dtype=np.float32)
    panel.set_array(data)
    panel.line_plot.view_box.setXRange(0, 1000, padding=0)
    panel.select_element((90_000,))
    x0, x1 = panel.line_plot.view_box.viewRange()[0]
    assert x0 <= 90_000 <= x1
    assert panel.line_plot.marker.data["x"].tolist() == [90_000]
    assert panel.line_plot.selection_line.value() == 90_000


def test_click_on_image_emits_full_index(qtbot, shown):
    data = np.random.default_rng(3).normal(size=(3, 20, 30)).astype(np.float32)
    shown.set_array(data)
    shown.display_axes.set_index(0, 1)
    with qtbot.waitSignal(shown.elementSelected) as blocker:
        click_image(qtbot, shown, row=5, col=7)
    assert blocker.args == [(1, 5, 7)]
    assert shown.image_plot.marked == (5, 7)
    assert shown.readout_text().endswith(f"index (1, 5, 7) value {data[1, 5, 7]!s}")


def test_click_on_line_emits_index(qtbot, shown):
    data = np.sin(np.arange(500) / 20).astype(np.float32)
    shown.set_array(data)
    with qtbot.waitSignal(shown.elementSelected) as blocker:
        click_line(qtbot, shown, 123.2, float(data[123]))
    assert blocker.args == [(123,)]
    assert shown.line_plot.marker.data["x"].tolist() == [123]


def test_hover_reads_out_index_and_value(qtbot, shown):
    data = np.arange(12, dtype=">i4").reshape(3, 4) * 10
    shown.set_array(data)
    plot = shown.image_plot
    pos = widget_point(plot.view_box, plot.graphics_view, 2.5, 1.5)
    qtbot.mouseMove(plot.graphics_view.viewport(), pos)
    qtbot.waitUntil(lambda: shown.readout_text() == "index (1, 2) value 60")


def test_render_offscreen_with_special_values(qtbot, shown):
    data = np.add.outer(np.arange(48.0), np.arange(64.0)).astype(">f4")
    data[0, :3] = [np.nan, np.inf, -np.inf]
    shown.set_array(data)
    assert not shown.grab().isNull()
    shown.set_array(np.where(np.arange(1000) % 100 == 0, np.inf, np.sin(np.arange(1000.0))))
    assert not shown.grab().isNull()
    assert len(shown.line_plot.inf_markers.data) == 10
