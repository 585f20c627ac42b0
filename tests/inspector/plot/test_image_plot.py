"""ImagePlot: strided display of big planes, true indices, levels from a subsample."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from inspector.plot.image_plot import MAX_SIDE, ImagePlot
from inspector.plot.panel import configure_pyqtgraph


@pytest.fixture
def image_plot(qtbot) -> ImagePlot:
    configure_pyqtgraph()
    widget = ImagePlot()
    qtbot.addWidget(widget)
    widget.resize(800, 600)
    return widget


@pytest.fixture(scope="module")
def big_plane() -> np.ndarray:
    rows, cols = 4100, 2600
    return np.add.outer(np.arange(rows, dtype=np.float32) * 10_000, np.arange(cols, dtype=np.float32))


def test_big_plane_is_strided_and_maps_back_to_true_indices(image_plot, big_plane):
    image_plot.set_plane(big_plane)
    r0, r1, c0, c1, sr, sc = image_plot.window
    assert (r0, r1, c0, c1, sr, sc) == (0, 4100, 0, 2600, 8, 4)  # MAX_SIDE 1024
    np.testing.assert_array_equal(image_plot.image_item.image, big_plane[::8, ::4])
    assert max(image_plot.image_item.image.shape) <= MAX_SIDE
    # A displayed pixel covers sr x sc elements; view coordinates stay element coordinates.
    rect = image_plot.image_item.mapRectToParent(image_plot.image_item.boundingRect())
    assert (rect.left(), rect.top(), rect.width(), rect.height()) == (0, 0, 650 * 4, 513 * 8)
    assert image_plot.cell_at(1001.7, 3003.2) == (3003, 1001)
    assert image_plot.cell_at(-0.1, 5) is None and image_plot.cell_at(5, 4100) is None


def test_zooming_in_rereads_at_full_resolution(image_plot, big_plane):
    image_plot.set_plane(big_plane)
    image_plot.view_box.setRange(xRange=(1000, 1100), yRange=(3000, 3050), padding=0)
    image_plot.refresh_window()
    r0, r1, c0, c1, sr, sc = image_plot.window
    assert (sr, sc) == (1, 1)
    assert r0 <= 3000 and 3050 <= r1 and c0 <= 1000 and 1100 <= c1
    assert r1 - r0 <= MAX_SIDE and c1 - c0 <= MAX_SIDE
    np.testing.assert_array_equal(image_plot.image_item.image, big_plane[r0:r1, c0:c1])
    # Levels stay those of the whole plane (estimated once from its subsample).
    low, high = image_plot.levels()
    assert low == 0 and high >= big_plane.max() - 10_000 * 40
    # Panning inside the window does not re-read.
    image = image_plot.image_item.image
    image_plot.view_box.setRange(xRange=(1010, 1110), yRange=(3010, 3060), padding=0)
    image_plot.refresh_window()
    assert image_plot.image_item.image is image


def test_mark_pans_to_an_offscreen_cell(image_plot, big_plane):
    image_plot.set_plane(big_plane)
    image_plot.view_box.setRange(xRange=(0, 100), yRange=(0, 100), padding=0)
    image_plot.mark((4000, 2500))
    (x0, x1), (y0, y1) = image_plot.view_box.viewRange()
    assert x0 <= 2500.5 <= x1 and y0 <= 4000.5 <= y1
    assert image_plot.marked == (4000, 2500)


def test_histogram_ignores_inf_and_uses_whole_bins_for_ints(image_plot):
    data = np.arange(100, dtype=np.float32).reshape(10, 10)
    data[0, 0], data[0, 1] = np.inf, np.nan
    image_plot.set_plane(data)
    edges, counts = image_plot.image_item.getHistogram()
    assert edges[0] == 2 and counts.sum() == 98
    assert np.array_equal(edges, np.floor(edges))
    image_plot.set_plane(np.full((4, 4), np.nan))
    assert image_plot.image_item.getHistogram() == (None, None)


def test_nan_inf_and_extreme_levels_paint_without_numpy_warnings(qtbot):
    """NaN, inf and the whole float32 range are shown on purpose: pyqtgraph prints no warning."""
    widget = ImagePlot()
    qtbot.addWidget(widget)
    widget.resize(400, 300)
    # Levels spanning the whole float32 range (random bytes read as float32 give such): their
    # difference overflows in pyqtgraph's rescale
    plane = np.array([[-3e38, np.nan, 1.0, 2.0], [3.0, 4.0, np.inf, 3e38], [0.0, 1e-30, 5.0, -np.inf]],
                     dtype=np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        configure_pyqtgraph()  # its filter goes in front of "always"
        widget.set_plane(plane)
        widget.show()
        widget.grab()
    assert [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)] == []
    np.testing.assert_array_equal(widget.image_item.image, plane)
