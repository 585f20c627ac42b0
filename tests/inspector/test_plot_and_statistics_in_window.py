"""The plot and statistics docks in the main window: the histogram's log scale is remembered
between sessions, and the plot readout prints a complex value as the table does."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QCheckBox

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore


@pytest.fixture
def settings_path(tmp_path):
    return str(tmp_path / "settings.ini")


def new_window(qtbot, settings_path):
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(settings_path, QSettings.IniFormat)))
    qtbot.addWidget(window)
    return window


def test_the_histogram_log_scale_is_remembered(qtbot, settings_path):
    first = new_window(qtbot, settings_path)
    check = first.findChild(QCheckBox, "stats.logScale")
    assert not check.isChecked()  # linear on first run
    check.setChecked(True)
    first.close()
    second = new_window(qtbot, settings_path)
    assert second.findChild(QCheckBox, "stats.logScale").isChecked()
    assert second.document.view_options.value.histogram_log_scale
    assert second.statistics_panel.histogram_view.plot.getAxis("left").logMode
    second.statistics_panel.set_log_scale(False)
    second.close()
    assert not new_window(qtbot, settings_path).statistics_panel.log_scale


def test_the_readout_prints_complex_values_as_the_table(qtbot, settings_path, tmp_path):
    path = tmp_path / "c.bin"
    values = np.array([1 + 2j, 0.5 - 0.25j, 3, 1e-3j, complex(-0.0, np.inf)], dtype=np.complex64)
    values.tofile(path)
    window = new_window(qtbot, settings_path)
    assert window.open_paths([str(path)], DecodeParams(dtype="complex64"))
    model = window.table_panel.model
    expected = ["1.0+2.0j", "0.5-0.25j", "3.0+0.0j", "0.0+0.001j", "-0.0+infj"]
    for i, text in enumerate(expected):
        assert model.data(model.index(i, 0), Qt.ItemDataRole.DisplayRole) == text
        window.document.select((i,))
        assert window.plot_panel.readout_text() == f"selected index ({i},) value {text}"
        assert window.statusBar().selection_label.text().startswith(f"[{i}] = {text}   ")
