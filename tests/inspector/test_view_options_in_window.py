"""The window's display choices are the document's view options: panels follow them, the Edit
menu undoes a plot-mode change, File > Close empties every view through the document, and the
window's title and banner render the document's "what is shown"."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QSpinBox

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

CUBE = DecodeParams(dtype="float32", shape=(2, 3, 4))


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    w = MainWindow(SettingsStore(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    path = tmp_path / "cube.bin"
    np.arange(24, dtype=np.float32).tofile(path)
    assert w.open_paths([str(path)], CUBE)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_panels_follow_the_view_options(window):
    options = window.document.view_options
    options.choose(table_format="fixed", table_decimals=2, heat_map=True)
    assert window.findChild(QComboBox, "table.format").currentText() == "fixed"
    decimals = window.findChild(QSpinBox, "table.decimals")
    assert (decimals.value(), decimals.isEnabled()) == (2, True)
    assert window.findChild(QCheckBox, "table.heatMap").isChecked()
    model = window.table_panel.model
    assert model.data(model.index(1, 3)) == "7.00" and model.heat_levels == (0.0, 11.0)
    options.choose(plot_line_axis=0)
    assert window.findChild(QComboBox, "plot.mode").currentText() == "line along axis 0"
    assert window.plot_panel.mode == "line"
    np.testing.assert_array_equal(window.plot_panel.curve.getData()[1], [0.0, 12.0])
    options.choose(histogram_log_scale=True)
    assert window.findChild(QCheckBox, "stats.logScale").isChecked()
    assert window.statistics_panel.histogram_view.plot.getAxis("left").logMode


def test_the_users_choices_are_written_to_the_view_options(window):
    window.findChild(QComboBox, "table.format").setCurrentText("scientific")
    window.findChild(QComboBox, "plot.mode").setCurrentText("line along axis 2")
    window.findChild(QCheckBox, "plot.squarePixels").setChecked(True)
    value = window.document.view_options.value
    assert (value.table_format, value.plot_line_axis, value.square_pixels) == ("scientific", 2, True)


def test_a_plot_mode_change_is_undone_from_the_edit_menu(window):
    window.findChild(QComboBox, "plot.mode").setCurrentText("line along axis 1")  # as the user would
    assert window.plot_panel.mode == "line"
    assert window.menus.undo_action.text() == "&Undo plot mode"
    window.menus.undo_action.trigger()
    assert window.plot_panel.mode == "image" and window.plot_panel.line_axis is None
    assert window.findChild(QComboBox, "plot.mode").currentText() == "image (rows × cols)"
    assert window.menus.redo_action.text() == "&Redo plot mode"
    window.menus.redo_action.trigger()
    assert window.plot_panel.line_axis == 1
    np.testing.assert_array_equal(window.plot_panel.curve.getData()[1], [0.0, 4.0, 8.0])


def test_close_file_leaves_every_view_empty_and_the_history_cleared(window):
    window.document.update_params(little_endian=False)
    window.document.view_options.choose(plot_line_axis=1)
    assert window.document.history.can_undo
    assert len(window.data_inspector.data()) == 16 and window.hex_view.file_size() == 96
    window.close_file()
    assert window.table_panel.model.array.size == 0
    assert window.plot_panel.mode == "empty"
    assert window.data_inspector.data() == b"" and window.hex_view.file_size() == 0
    assert window.statistics_panel.statistics is None and not window.statistics_panel.is_running()
    assert not window.document.history.can_undo and not window.menus.undo_action.isEnabled()
    assert window.document.error is None and window.findChild(QLabel, "window.banner").isHidden()
    assert window.windowTitle() == "tensor-inspector"
    assert window.document.view_options.value.plot_line_axis is None  # nothing shown: the image


def test_the_title_names_the_files_the_views_show(window, tmp_path):
    odd = tmp_path / "odd.bin"
    odd.write_bytes(bytes(7))
    assert window.open_paths([str(odd)], CUBE)  # cannot be decoded as the cube: the cube stays
    assert window.windowTitle() == "cube.bin — tensor-inspector"
    banner = window.findChild(QLabel, "window.banner").text()
    assert "The last good view is still shown" not in banner
    assert "The view still shows the previous file; odd.bin is shown once this is fixed." in banner
    window.document.update_params(dtype="uint8", shape=None)
    assert window.windowTitle() == "odd.bin — tensor-inspector"
