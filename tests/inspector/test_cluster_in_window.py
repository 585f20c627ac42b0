"""Tools > Dask cluster… in the window: a local cluster of worker processes (real, started by
the window), its state and dashboard link in the status bar, the statistics computed there equal
to this machine's, the choice remembered, and back to this machine."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QDialogButtonBox, QLabel, QRadioButton, QSpinBox

pytest.importorskip("distributed")

from core.pipeline.pipeline import DecodeParams
from core.scan.statistics import compute_statistics
from core.slicing.expr import format_slice
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore


def test_statistics_run_on_a_local_cluster_chosen_in_the_dialog(qtbot, tmp_path, monkeypatch):
    import inspector.panels.statistics_panel as panel
    import inspector.table.panel as table_panel
    from core.scan.cluster import BlockRunner

    scans = []

    class CountingRunner(BlockRunner):  # the real runner; counts the passes it ran here
        def scan(self, *args, **kwargs):
            scans.append(self.target)
            return super().scan(*args, **kwargs)

    monkeypatch.setattr(panel, "BlockRunner", CountingRunner)
    monkeypatch.setattr(table_panel, "BlockRunner", CountingRunner)
    configure_pyqtgraph()
    settings = SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))
    window = MainWindow(settings)
    qtbot.addWidget(window)
    window.show()
    values = np.random.default_rng(7).standard_normal(200_000).astype(np.float32)
    values[[5, 9, 20 * 500 + 4]] = [np.nan, np.inf, np.nan]
    path = tmp_path / "values.bin"
    values.tofile(path)
    dialog = window.show_cluster_dialog()
    dialog.findChild(QRadioButton, "cluster.useLocal").setChecked(True)
    dialog.findChild(QSpinBox, "cluster.workers").setValue(1)
    dialog.findChild(QDialogButtonBox, "cluster.buttons").button(QDialogButtonBox.Ok).click()
    label = window.statusBar().findChild(QLabel, "status.cluster")
    assert label.isVisible() and "connecting to a local cluster of 1 worker processes" in label.text()
    qtbot.waitUntil(lambda: window.document.cluster.cluster() is not None, timeout=60_000)
    assert "cluster: a local cluster of 1 worker processes, 1 workers" in label.text()
    assert "dashboard</a>" in label.text() and "http://" in label.text()
    assert "dashboard" in dialog.findChild(QLabel, "cluster.state").text()
    assert (settings.cluster_scheduler(), settings.cluster_workers()) == ("", 1)
    assert window.open_paths([str(path)], DecodeParams(dtype="float32", shape=(400, 500)), "10:, ::2")
    window.statistics_panel.compute()
    qtbot.waitUntil(lambda: window.statistics_panel.statistics is not None and not window.statistics_panel.is_running(),
                    timeout=60_000)
    result = window.document.result
    here = compute_statistics(result.view, reader=result.block_reader())
    assert window.statistics_panel.statistics == here
    assert here.count == 390 * 250
    assert len(scans) == 2 and format_slice(scans[0].slice_spec) == "[10:, ::2]"  # both passes ran on the cluster
    searched = []
    monkeypatch.setattr(CountingRunner, "results", lambda self, *a, **k: searched.append(1) or
                        BlockRunner.results(self, *a, **k))
    bar = window.table_panel.find_bar
    bar.query_edit.setText("nan")
    bar.find()
    qtbot.waitUntil(lambda: window.document.selection == (10, 2), timeout=60_000)  # row 20, column 4 of the file
    assert searched  # the search ran on the cluster
    dialog.findChild(QRadioButton, "cluster.here").setChecked(True)
    dialog.findChild(QDialogButtonBox, "cluster.buttons").button(QDialogButtonBox.Ok).click()
    assert window.document.cluster.cluster() is None and not label.isVisible()
