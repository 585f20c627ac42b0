"""Window, round 3 (issue 31): the compare plot (NaN colour, log scale, colour bar, "no
differences", the table's colours of a comparison) and the plot dock (tab labels, the mode
combo, the levels bar in colour, the Statistics panel waiting for Compute)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QCheckBox, QLabel

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore
from inspector.widgets import palette


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    return window


def _compared(window, qtbot, tmp_path, a, b):
    (tmp_path / "a.bin").write_bytes(np.asarray(a, dtype="<f4").tobytes())
    (tmp_path / "b.bin").write_bytes(np.asarray(b, dtype="<f4").tobytes())
    assert window.open_paths([str(tmp_path / "a.bin")], DecodeParams(dtype="float32", shape=np.shape(a)))
    assert window.comparison.open_b([str(tmp_path / "b.bin")])
    qtbot.waitUntil(lambda: window.comparison.result is not None and not window.comparison.is_running)
    qtbot.wait(1)


NOT_FINITE = "#bdbdbd"  # palette.DIFF_NOT_FINITE
NOT_FINITE_RGBA = (189, 189, 189, 255)


def test_a_nan_difference_is_grey_not_the_top_colour_and_the_bar_gives_the_scale(window, qtbot, tmp_path):
    a = np.zeros((3, 4), dtype=np.float32)
    b = a.copy()
    b[0, 1] = 0.25
    b[2, 3] = 2.0  # the largest error
    b[1, 2] = np.nan
    b[2, 0] = np.inf
    _compared(window, qtbot, tmp_path, a, b)
    plot = window.compare_plot
    assert plot.mode == "image"
    image = plot.image_item.image
    assert image[2, 3] == 2.0 and image[0, 1] == 0.25
    assert image[1, 2] == 0.0 and image[2, 0] == 0.0  # the bottom of the scale, never the top (2.0)
    overlay = plot.not_finite_item.image
    assert palette.DIFF_NOT_FINITE == NOT_FINITE
    assert tuple(overlay[1, 2]) == NOT_FINITE_RGBA
    assert tuple(overlay[2, 0]) == NOT_FINITE_RGBA
    assert overlay[2, 3, 3] == 0 and overlay[0, 0, 3] == 0  # transparent over finite differences
    assert plot.colour_bar.levels() == (0.0, 2.0)
    assert plot.colour_bar.getAxis("left").labelText == "|A - B|"
    assert plot.colour_bar.isVisible()
    legend = plot.findChild(QLabel, "compare.imageLegend")
    assert legend.isVisible() and "NaN or ±inf difference" in legend.text()
    assert NOT_FINITE in legend.text()


def test_the_log_scale_box_is_a_view_option_and_shows_small_errors(window, qtbot, tmp_path):
    a = np.ones((2, 3), dtype=np.float32)
    b = a.copy()
    b[0, 0] = 1.5  # |A - B| = 0.5
    b[1, 1] = np.float32(1) + np.float32(2 ** -20)  # a tiny error: 2**-20 = 9.5367e-07
    _compared(window, qtbot, tmp_path, a, b)
    plot = window.compare_plot
    box = plot.findChild(QCheckBox, "compare.logScale")
    assert box.isVisible() and not box.isChecked()
    box.click()
    assert window.document.view_options.value.compare_log_scale is True
    image = plot.image_item.image
    smallest = math.log10(2 ** -20)  # -6.0206
    assert image[0, 0] == pytest.approx(math.log10(0.5))
    assert image[1, 1] == pytest.approx(smallest)
    assert image[0, 1] == pytest.approx(smallest - 1)  # an exact match: a decade below the smallest
    low, high = plot.colour_bar.levels()
    assert (low, high) == (pytest.approx(smallest - 1), pytest.approx(math.log10(0.5)))
    assert plot.colour_bar.getAxis("left").labelText == "log10 |A - B|"
    window.document.view_options.choose(compare_log_scale=False)  # from the state: the box follows
    assert not box.isChecked() and plot.image_item.image[0, 0] == 0.5


def test_an_all_equal_comparison_says_no_differences(window, qtbot, tmp_path):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    _compared(window, qtbot, tmp_path, a, a.copy())
    plot = window.compare_plot
    window.docks["comparePlot"].raise_()
    qtbot.wait(1)
    note = plot.findChild(QLabel, "compare.noDifferences")
    assert note.isVisible()
    assert note.text() == "no differences: A and B are equal in every compared element"
    assert not plot.findChild(type(plot._image_widget), "compare.image").isVisible()


def test_the_table_colours_a_nan_pair_alike_in_the_difference_and_the_a_views(window, qtbot, tmp_path):
    a = np.array([[1, 2, np.nan], [3, 4, 5]], dtype=np.float32)
    b = np.array([[1, np.nan, 7], [3, 4.5, 5]], dtype=np.float32)
    _compared(window, qtbot, tmp_path, a, b)
    model = window.table_panel.model
    grey = QColor(NOT_FINITE)

    def background(row, col):
        return model.data(model.index(row, col), Qt.ItemDataRole.BackgroundRole)

    for quantity in ("abs", "a", "b"):
        window.comparison.set_quantity(quantity)
        qtbot.wait(1)
        assert background(0, 1) == grey, quantity  # A finite, B NaN
        assert background(0, 2) == grey, quantity  # A NaN, B finite
        assert background(0, 0) is None and background(1, 2) is None, quantity  # equal pairs
        assert background(1, 1) is not None and background(1, 1) != grey, quantity  # 4 against 4.5
