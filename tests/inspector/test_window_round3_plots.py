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


# ---------------------------------------------------------------------------- item 19: the plot dock
def _dock_tab_bar(window, title):
    from PySide6.QtWidgets import QTabBar

    for bar in window.findChildren(QTabBar):
        if bar.parent() is window and title in [bar.tabText(i) for i in range(bar.count())]:
            return bar
    raise AssertionError(f"no dock tab bar has a tab {title!r}")


def _assert_whole_titles(bar, titles):
    assert [bar.tabText(i) for i in range(bar.count())] == titles
    metrics = bar.fontMetrics()
    for i, title in enumerate(titles):
        # The tab gets the size its whole title needs (Qt elided it to "P…", "Statist…" before).
        assert bar.tabRect(i).width() >= bar.tabSizeHint(i).width() > metrics.horizontalAdvance(title), title
    assert bar.elideMode() == Qt.TextElideMode.ElideNone and bar.usesScrollButtons()


def test_the_plot_docks_tab_titles_are_whole_in_a_narrow_dock(window, qtbot, tmp_path):
    path = tmp_path / "line.bin"
    path.write_bytes(np.arange(12, dtype="<f4").tobytes())
    assert window.open_paths([str(path)], DecodeParams(dtype="float32"))  # 1-d: no plot toolbar
    window.resizeDocks([window.docks["plot"]], [100], Qt.Orientation.Horizontal)
    qtbot.wait(10)
    bar = _dock_tab_bar(window, "Statistics")
    assert bar.width() < sum(bar.tabSizeHint(i).width() for i in range(bar.count()))  # too narrow for the titles
    _assert_whole_titles(bar, ["Plot", "Statistics"])
    assert window.comparison.open_b([str(path)])
    qtbot.waitUntil(lambda: window.comparison.result is not None and not window.comparison.is_running)
    window.resizeDocks([window.docks["plot"]], [100], Qt.Orientation.Horizontal)
    qtbot.wait(10)
    _assert_whole_titles(_dock_tab_bar(window, "Compare plot"), ["Plot", "Statistics", "Compare plot"])


def _text_room(combo):
    from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    return combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                        QStyle.SubControl.SC_ComboBoxEditField, combo).width()


def test_the_plot_mode_combo_shows_its_whole_text_in_a_narrow_dock(window, qtbot, tmp_path):
    from PySide6.QtWidgets import QComboBox

    path = tmp_path / "cube.bin"
    path.write_bytes(np.zeros((2, 3, 4), dtype="<f4").tobytes())
    assert window.open_paths([str(path)], DecodeParams(dtype="float32", shape=(2, 3, 4)))
    window.resizeDocks([window.docks["plot"]], [150], Qt.Orientation.Horizontal)
    qtbot.wait(10)
    combo = window.findChild(QComboBox, "plot.mode")
    assert combo.isVisible() and combo.currentText() == "image (rows × cols)"
    assert combo.width() >= combo.minimumSizeHint().width()
    assert _text_room(combo) >= combo.fontMetrics().horizontalAdvance("image (rows × cols)")
    combo.setCurrentIndex(combo.findText("line along axis 2"))
    assert _text_room(combo) >= combo.fontMetrics().horizontalAdvance("line along axis 2")


def test_a_uint8_colour_image_has_no_levels_bar_and_grey_brings_it_back(window, qtbot, tmp_path):
    path = tmp_path / "frame.bin"
    path.write_bytes(np.arange(6 * 8 * 3, dtype=np.uint8).tobytes())
    assert window.open_paths([str(path)], DecodeParams(dtype="uint8", shape=(6, 8, 3)))
    window.resize(1400, 800)
    qtbot.wait(10)
    image_plot = window.plot_panel.image_plot
    assert image_plot.width() >= 320
    assert image_plot.histogram.isVisible()  # grey: the LUT and its levels
    window.plot_panel.set_colour_mode("RGB")
    qtbot.wait(1)
    assert window.plot_panel.colour_mode == "RGB"
    assert not image_plot.histogram.isVisible()
    window.plot_panel.set_colour_mode(None)
    qtbot.wait(1)
    assert image_plot.histogram.isVisible()


def test_a_float_colour_image_keeps_its_levels_bar_with_a_histogram(window, qtbot, tmp_path):
    path = tmp_path / "chw.bin"
    path.write_bytes((np.arange(3 * 6 * 8, dtype="<f4") / 144).tobytes())
    assert window.open_paths([str(path)], DecodeParams(dtype="float32", shape=(3, 6, 8)))
    window.resize(1400, 800)
    window.plot_panel.set_colour_mode("RGB")
    qtbot.wait(10)
    image_plot = window.plot_panel.image_plot
    assert image_plot.histogram.isVisible()  # its levels are automatic: the bar changes them
    _x, counts = image_plot.histogram.plot.getData()
    assert counts is not None and counts.sum() == 144  # every colour channel value, no alpha


def test_statistics_waiting_for_compute_show_no_histogram_of_the_previous_view(window, qtbot, tmp_path):
    from inspector.panels.statistics_histogram import PLACEHOLDER

    small = tmp_path / "small.bin"
    small.write_bytes(np.arange(100, dtype="<f4").tobytes())
    big = tmp_path / "big.bin"
    with open(big, "wb") as file:
        file.truncate(10_000_001)  # more values than the panel computes by itself (10**7)
    panel = window.statistics_panel
    window.docks["statistics"].raise_()
    assert window.open_paths([str(small)], DecodeParams(dtype="float32"))
    qtbot.waitUntil(lambda: panel.statistics is not None)
    view = panel.histogram_view
    assert view.plot.isVisible() and not view.placeholder.isVisible()
    assert view.histogram.getData()[1].sum() == 100
    assert window.open_paths([str(big)], DecodeParams(dtype="uint8"))
    qtbot.wait(1)
    assert panel.statistics is None and panel.compute_button.isEnabled()
    assert not view.plot.isVisible()  # no axes of the float32 view over an empty plot
    assert view.placeholder.isVisible() and view.placeholder.text() == PLACEHOLDER
    assert PLACEHOLDER == "no histogram yet: the statistics of this view are not computed"
