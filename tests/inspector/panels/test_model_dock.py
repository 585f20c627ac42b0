"""The Model dock: every tensor of the open container scanned on a worker, rows streamed in,
sortable, filterable, problems highlighted; a row shows its tensor."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QCheckBox, QLineEdit, QPushButton, QTableView
from safetensors.numpy import save_file

from core.models.rows import SCAN_COLUMNS
from inspector.main_window import MainWindow
from inspector.panels.model_panel import ModelPanel
from inspector.state.document import Document
from inspector.state.model_scan import ModelScan
from inspector.state.settings_store import SettingsStore
from inspector.widgets import palette


@pytest.fixture
def model_file(tmp_path):
    """Five tensors: one with a NaN and an infinity, one of zeros, one constant, two ordinary."""
    weight = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5
    broken = np.array([1.0, np.nan, 2.0, np.inf], np.float32)
    path = tmp_path / "model.safetensors"
    save_file({"a.weight": weight, "b.broken": broken, "c.zeros": np.zeros(6, np.float32),
               "d.constant": np.full(5, 7, np.float32), "e.bias": np.array([0.5, -0.25], np.float32)}, str(path))
    return str(path)


@pytest.fixture
def window(qtbot, tmp_path):
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    return window


def _wait_done(qtbot, scan):
    qtbot.waitUntil(lambda: scan.status in ("done", "cancelled", "failed"), timeout=20_000)


def _column(panel, name):
    model, column = panel.model, SCAN_COLUMNS.index(name)
    return [model.index(r, column).data() for r in range(model.rowCount())]


def test_opening_a_small_container_scans_it_and_flags_its_problems(window, qtbot, model_file):
    assert window.open_paths([model_file])
    panel = window.findChild(ModelPanel)
    _wait_done(qtbot, panel.scan)
    assert panel.scan.status == "done"
    assert not window.docks["model"].isHidden()
    assert _column(panel, "name") == ["a.weight", "b.broken", "c.zeros", "d.constant", "e.bias"]
    assert _column(panel, "flags") == ["", "nan inf", "zeros constant", "constant", ""]
    assert _column(panel, "min") == ["-5.5", "1.0", "0.0", "7.0", "-0.25"]  # NaN and Inf left out
    assert _column(panel, "nan") == ["0", "1", "0", "0", "0"]
    assert _column(panel, "mean")[0] == "0"  # -5.5 ... 5.5
    assert panel.summary.text() == "5 tensors: 3 flagged (nan 1, inf 1, zeros 1, constant 2), 0 errors"
    model = panel.model
    assert model.index(1, 0).data(Qt.BackgroundRole) == QColor(palette.MESSAGE_COLORS["error"].background)
    assert model.index(2, 0).data(Qt.BackgroundRole) == QColor(palette.MESSAGE_COLORS["warning"].background)
    assert model.index(0, 0).data(Qt.BackgroundRole) is None


def test_sorting_filtering_and_choosing_a_row(window, qtbot, model_file):
    assert window.open_paths([model_file])
    panel = window.findChild(ModelPanel)
    _wait_done(qtbot, panel.scan)
    table = window.findChild(QTableView, "model.table")
    table.sortByColumn(SCAN_COLUMNS.index("max"), Qt.DescendingOrder)
    assert _column(panel, "name") == ["b.broken", "d.constant", "a.weight", "e.bias", "c.zeros"]  # inf first
    table.sortByColumn(SCAN_COLUMNS.index("name"), Qt.DescendingOrder)
    assert _column(panel, "name")[0] == "e.bias"
    window.findChild(QCheckBox, "model.problemsOnly").setChecked(True)
    assert sorted(_column(panel, "name")) == ["b.broken", "c.zeros", "d.constant"]
    window.findChild(QLineEdit, "model.filter").setText("ZER")
    assert _column(panel, "name") == ["c.zeros"]
    assert panel.summary.text().endswith("; 1 shown")
    with qtbot.waitSignal(panel.tensorChosen) as chosen:
        table.activated.emit(panel.model.index(0, 0))
    assert chosen.args == ["c.zeros"]
    assert window.document.current_entry.name == "c.zeros"  # the window shows it, as the Tensors dock would
    assert window.document.result.view.tolist() == [0.0] * 6


def test_a_large_container_waits_for_the_scan_button_and_cancel_stops_short(qtbot, tmp_path):
    path = tmp_path / "big.safetensors"
    header = {f"t{i}": {"dtype": "F32", "shape": [1 << 22], "data_offsets": [i << 24, (i + 1) << 24]}
              for i in range(16)}
    text = json.dumps(header).encode()
    with open(path, "wb") as file:  # 256 MiB of sparse data: zeros on read, no disk
        file.write(struct.pack("<Q", len(text)) + text)
        file.truncate(8 + len(text) + (16 << 24))
    document = Document()
    scan = ModelScan(document, auto_bytes=1 << 20)
    panel = ModelPanel(scan)
    qtbot.addWidget(panel)
    document.open_files([str(path)])
    assert scan.status == "idle" and scan.rows == []
    assert panel.summary.text() == "Scan reads every tensor of the open file."
    button = panel.findChild(QPushButton, "model.scan")
    assert button.isEnabled() and button.text() == "Scan"
    button.click()
    assert scan.running and not button.isEnabled()
    panel.findChild(QPushButton, "model.cancel").click()
    _wait_done(qtbot, scan)
    assert scan.status == "cancelled" and len(scan.rows) < 16
    assert panel.summary.text().endswith("(cancelled: incomplete)")
    assert button.text() == "Scan again" and button.isEnabled()
    document.close_files()
    assert scan.status == "idle" and panel.model.rowCount() == 0 and not button.isEnabled()


def test_rows_appear_while_the_scan_runs(qtbot, tmp_path):
    """Rows reach the table in batches while the worker is still scanning (not all at the end)."""
    path = tmp_path / "many.safetensors"
    header = {f"t{i:03d}": {"dtype": "F32", "shape": [1 << 20], "data_offsets": [i << 22, (i + 1) << 22]}
              for i in range(64)}
    text = json.dumps(header).encode()
    with open(path, "wb") as file:
        file.write(struct.pack("<Q", len(text)) + text)
        file.truncate(8 + len(text) + (64 << 22))
    document = Document()
    scan = ModelScan(document, auto_bytes=0)
    batches = []
    scan.rowsAdded.connect(lambda rows: batches.append((len(rows), scan.running)))
    document.open_files([str(path)])
    scan.start()
    _wait_done(qtbot, scan)
    assert scan.status == "done" and len(scan.rows) == 64
    assert sum(n for n, _ in batches) == 64
    assert [r.tensor.name for r in scan.rows] == [f"t{i:03d}" for i in range(64)]  # in the file's order
    assert all(r.flags == ("zeros", "constant") for r in scan.rows)
    document.close_files()


def test_a_folder_of_dumps_is_scanned_and_a_row_opens_its_file(window, qtbot, tmp_path):
    folder = tmp_path / "dumps"
    folder.mkdir()
    for i in (1, 2, 10):
        np.save(folder / f"layer{i}.npy", np.full((2, 3), i, np.float32) if i != 2 else np.array([np.nan, 1], np.float32))
    (folder / "notes.txt").write_text("not a tensor")
    window.scan_models([str(folder)])
    scan = window.model_scan
    _wait_done(qtbot, scan)
    panel = window.findChild(ModelPanel)
    assert not window.docks["model"].isHidden()
    assert _column(panel, "name") == ["layer1.npy", "layer2.npy", "layer10.npy"]  # natural order
    assert panel.summary.text() == "dumps: 3 tensors: 3 flagged (nan 1, constant 2), 0 errors"
    assert "notes.txt" in panel.problems.text()  # skipped, with its reason
    close = window.findChild(QPushButton, "model.close")
    assert not close.isHidden()
    panel.table.activated.emit(panel.model.index(2, 0))
    assert window.document.paths == (str(folder / "layer10.npy"),)
    assert window.document.result.view.tolist() == [[10.0] * 3] * 2
    assert len(scan.rows) == 3 and scan.status == "done"  # the folder's scan stays
    close.click()
    assert scan.follows_document and scan.rows == [] and close.isHidden()
    assert window.docks["model"].isHidden()  # an .npy file is no container: nothing to scan
