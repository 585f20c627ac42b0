"""Quantized tensors in the window (issue 32 item 7): the Tensors dock's sharing and quantization
columns, and a ``NAME (dequantized)`` row that opens in a new window whose table, plot,
statistics and compare show the writer's own dequantized values (PyTorch's
``Tensor.dequantize()``: tests/core/formats/fixtures/pytorch/make_fixtures.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QItemSelectionModel, QSettings, Qt
from PySide6.QtWidgets import QPushButton, QTreeView

from inspector.main_window import MainWindow
from inspector.panels.tensors_panel import COLUMNS
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

FIXTURES = Path(__file__).resolve().parents[2] / "core" / "formats" / "fixtures" / "pytorch"
CHECKPOINT = str(FIXTURES / "quantized_values.pt")


def _torch_values() -> dict[str, np.ndarray]:
    with np.load(FIXTURES / "quantized_values.expected.npz") as saved:
        return {str(n): saved[f"real{i}"] for i, n in enumerate(saved["names"])}


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    return window


def _row_of(model, root, name: str) -> int:
    names = [model.index(r, 0, root).data() for r in range(model.rowCount(root))]
    return names.index(name)


def test_the_dock_shows_kind_sharing_and_quantization_columns(window):
    assert window.open_paths([CHECKPOINT])
    tree = window.findChild(QTreeView, "tensors.tree")
    model, root = tree.model(), tree.model().index(0, 0)
    headers = [model.headerData(c, Qt.Horizontal) for c in range(model.columnCount(root))]
    assert headers == list(COLUMNS) == ["name", "type", "shape", "kind", "offset", "bytes", "sharing",
                                        "quantization", "notes"]
    cells = {model.index(r, 0, root).data(): [model.index(r, c, root).data() for c in range(len(COLUMNS))]
             for r in range(model.rowCount(root))}
    assert cells["qint8"][3] == "view" and cells["qint8"][7] == "scale 0.0123 zp 3"
    assert cells["qint8 (dequantized)"][3] == "computed"
    assert cells["qint8 (dequantized)"][7] == "scale 0.0123 zp 3"
    assert cells["per_channel1"][7] == "per-channel axis 1 (4)"
    assert cells["per_channel1/scales"][7] == "" and cells["per_channel1/scales"][6] == ""
    names = list(cells)
    assert names.index("qint8 (dequantized)") == names.index("qint8") + 1  # right after its integers


def test_the_dequantized_row_opens_with_table_plot_statistics_and_compare(window, qtbot, tmp_path):
    expected = _torch_values()["per_channel0"]  # torch's own dequantize(), float32
    assert window.open_paths([CHECKPOINT])
    tree = window.findChild(QTreeView, "tensors.tree")
    model, root = tree.model(), tree.model().index(0, 0)
    tree.selectionModel().setCurrentIndex(model.index(_row_of(model, root, "per_channel0 (dequantized)"), 0, root),
                                          QItemSelectionModel.ClearAndSelect)
    button = window.findChild(QPushButton, "tensors.openValues")
    assert button.isEnabled()
    button.click()
    [other] = window._other_windows.values()
    qtbot.addWidget(other)
    assert other.document.paths == ("per_channel0 (dequantized) (from torch.qint8)",)
    view = other.document.result.view
    assert view.dtype == np.float32 and view.tobytes() == expected.tobytes()  # bit for bit
    table = other.table_panel.model
    assert table.data(table.index(1, 2), Qt.ItemDataRole.DisplayRole) == str(expected[1, 2])
    assert other.plot_panel.mode == "image"
    np.testing.assert_array_equal(other.plot_panel.image_item.image, expected)
    statistics = other.statistics_panel
    statistics.compute()
    qtbot.waitUntil(lambda: statistics.statistics is not None, timeout=10000)
    assert (statistics.statistics.min, statistics.statistics.max) == (float(expected.min()), float(expected.max()))
    reference = tmp_path / "torch.npy"
    np.save(reference, expected)
    assert other.comparison.open_b([str(reference)])
    qtbot.waitUntil(lambda: other.comparison.result is not None, timeout=10000)
    assert other.comparison.result.compared == expected.size and other.comparison.result.mismatched == 0
    other.comparison.close_b()
    other.close()


def test_the_sharing_column_names_tied_weights_and_the_shard_a_tensor_lives_in(window):
    for path, name, sharing in ((FIXTURES / "tied.pt", "embed.weight", "shares head.weight"),
                                (FIXTURES.parent / "pytorch_sharded" / "pytorch_model.bin.index.json",
                                 "embeddings.LayerNorm.bias", "file pytorch_model-00001-of-00002.bin")):
        assert window.open_paths([str(path)])
        tree = window.findChild(QTreeView, "tensors.tree")
        model, root = tree.model(), tree.model().index(0, 0)
        row = _row_of(model, root, name)
        assert model.index(row, COLUMNS.index("sharing"), root).data() == sharing
        assert model.index(row, COLUMNS.index("quantization"), root).data() == ""
