"""A TFLite model kept as a C array (xxd -i, as TensorFlow Lite Micro does): the file lists its
arrays, and the model's array opens in a new window straight into its TFLite listing."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QItemSelectionModel, QSettings
from PySide6.QtWidgets import QPushButton, QTreeView

from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

TFLITE = Path(__file__).resolve().parents[1] / "core" / "formats" / "fixtures" / "tflite" / "quantized.tflite"


def _xxd_i(data: bytes, name: str) -> str:
    """What ``xxd -i`` writes (12 bytes a line), so the test needs no xxd."""
    lines = [", ".join(f"0x{b:02x}" for b in data[i:i + 12]) for i in range(0, len(data), 12)]
    return f"unsigned char {name}[] = {{\n  " + ",\n  ".join(lines) + f"\n}};\nunsigned int {name}_len = {len(data)};\n"


def test_a_model_in_a_c_array_opens_into_its_tflite_listing(qtbot, tmp_path):
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    window.show()
    source = tmp_path / "model_data.cc"
    source.write_text(_xxd_i(TFLITE.read_bytes(), "g_model"))
    assert window.open_paths([str(source)])
    qtbot.waitUntil(lambda: window.document.container is not None, timeout=10_000)
    assert window.document.container.format == "c-arrays"
    tree = window.findChild(QTreeView, "tensors.tree")
    model = tree.model()
    tree.selectionModel().setCurrentIndex(model.index(0, 0, model.index(0, 0)), QItemSelectionModel.ClearAndSelect)
    window.findChild(QPushButton, "tensors.openValues").click()
    [other] = window._other_windows.values()
    qtbot.waitUntil(lambda: other.document.container is not None, timeout=10_000)
    assert other.document.paths == ("g_model (parsed)",)
    assert other.document.container.format == "tflite"
    assert len(other.document.container.entries) >= 5
    assert bytes(other.document.pipeline.source.bytes_at(0, 0, 8))[4:] == b"TFL3"
