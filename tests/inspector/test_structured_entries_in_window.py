"""Records a container holds (a structured npz member, an HDF5 compound dataset) open in the
records window when their entry is chosen: stored ones as a view of the file, compressed ones in a
new window of their bytes."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QItemSelectionModel, QSettings, Qt
from PySide6.QtWidgets import QPushButton, QTableView, QTreeView

from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

RECORDS = np.zeros(6, [("t", "<u4"), ("x", "<f4", (2,)), ("ok", "?")])
RECORDS["t"] = np.arange(6) * 100
RECORDS["x"][:, 1] = -0.5 * np.arange(6)
RECORDS["ok"] = [True, False] * 3


def _window(qtbot, tmp_path):
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    window.show()
    return window


def _cells(dialog, column):
    model = dialog.findChild(QTableView, "records.table").model()
    names = [model.headerData(c, Qt.Orientation.Horizontal).split("\n")[0] for c in range(model.columnCount())]
    return [model.data(model.index(r, names.index(column))) for r in range(model.rowCount())]


def test_a_stored_structured_member_shows_its_records_over_the_file(qtbot, tmp_path):
    path = tmp_path / "log.npz"
    np.savez(path, weights=np.arange(10, dtype=np.float32), samples=RECORDS)
    window = _window(qtbot, tmp_path)
    assert window.open_paths([str(path)])
    qtbot.waitUntil(lambda: window.document.container is not None, timeout=10_000)
    window.document.choose_tensor("samples")
    assert window.document.result.view.shape == (6, 13)  # the records' bytes, one row each
    dialog = window._records_dialog
    assert dialog is not None and dialog.isVisible()
    assert _cells(dialog, "t") == ["0", "100", "200", "300", "400", "500"]
    assert _cells(dialog, "x[1]")[3] == "-1.5" and _cells(dialog, "ok")[:2] == ["True", "False"]
    assert window.document.records.count == 6  # the member's records, not up to the end of the zip
    window.document.choose_tensor("weights")  # another entry: its records end
    assert window.document.records.choice is None


def test_an_hdf5_compound_dataset_shows_its_records(qtbot, tmp_path):
    h5py = pytest.importorskip("h5py")
    path = tmp_path / "log.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("samples", data=RECORDS)
    window = _window(qtbot, tmp_path)
    assert window.open_paths([str(path)])
    qtbot.waitUntil(lambda: window.document.container is not None, timeout=30_000)
    window.document.choose_tensor("samples")
    dialog = window._records_dialog
    assert dialog is not None
    assert _cells(dialog, "t")[-1] == "500" and _cells(dialog, "x[1]")[5] == "-2.5"


def test_a_compressed_structured_member_opens_as_records_in_a_new_window(qtbot, tmp_path):
    path = tmp_path / "log.npz"
    np.savez_compressed(path, samples=RECORDS)
    window = _window(qtbot, tmp_path)
    assert window.open_paths([str(path)])
    qtbot.waitUntil(lambda: window.document.container is not None, timeout=10_000)
    tree = window.findChild(QTreeView, "tensors.tree")
    model = tree.model()
    tree.selectionModel().setCurrentIndex(model.index(0, 0, model.index(0, 0)), QItemSelectionModel.ClearAndSelect)
    window.findChild(QPushButton, "tensors.openValues").click()
    [other] = window._other_windows.values()
    dialog = other._records_dialog
    assert dialog is not None
    assert _cells(dialog, "t") == ["0", "100", "200", "300", "400", "500"]


def test_statistics_of_a_members_records_count_its_records_only(qtbot, tmp_path):
    path = tmp_path / "log.npz"
    np.savez(path, samples=RECORDS, weights=np.full(1000, 7, dtype=np.float32))
    window = _window(qtbot, tmp_path)
    assert window.open_paths([str(path)])
    qtbot.waitUntil(lambda: window.document.container is not None, timeout=10_000)
    window.document.choose_tensor("samples")
    dialog = window._records_dialog
    with qtbot.waitSignal(dialog.tools.resultsShown, timeout=60_000):
        dialog.findChild(QPushButton, "records.statistics").click()
    assert dialog.tools.statistics_text("t", "count") == "6"
    assert dialog.tools.statistics_text("t", "max") == "500"


def test_a_structured_npy_with_a_string_member_shows_its_bytes_in_the_window(qtbot, tmp_path):
    data = np.zeros(3, [("id", "<u2"), ("tag", "S3"), ("v", "<f4")])
    data["id"] = [7, 8, 9]
    data["tag"] = [b"abc", b"de", b"f"]
    data["v"] = [0.5, 1.5, 2.5]
    np.save(tmp_path / "tags.npy", data)
    window = _window(qtbot, tmp_path)
    assert window.open_paths([str(tmp_path / "tags.npy")])
    dialog = window._records_dialog
    assert dialog is not None
    assert _cells(dialog, "id") == ["7", "8", "9"] and _cells(dialog, "v") == ["0.5", "1.5", "2.5"]
    assert _cells(dialog, "tag[0]") == ["97", "100", "102"]  # its bytes: 'a', 'd', 'f'
