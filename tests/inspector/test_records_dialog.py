"""Tools > Records…: a file of structs shown as records (one row per record, one column per field
element), from a C struct, a field list or a numpy description; refusals said, the last table kept."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QComboBox, QDialog, QLabel, QPlainTextEdit, QPushButton, QSpinBox, QTableView

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

DTYPE = np.dtype({"names": ["ts", "ch", "gain", "bits", "m"], "formats": ["<u4", ("<i2", (4,)), "<f4", "<u1", "<i4"],
                  "offsets": [0, 4, 12, 16, 20], "itemsize": 24})
C_TEXT = """enum mode { IDLE, RUN, FAULT = 7 };
struct sample { uint32_t ts; int16_t ch[4]; float gain; uint8_t flags:3; uint8_t level:5; enum mode m; };"""


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    window.show()
    data = np.zeros(1000, DTYPE)
    data["ts"] = np.arange(1000) * 10
    data["ch"][:, 2] = -np.arange(1000)
    data["gain"] = 1.5
    data["bits"] = 0b10110_101  # flags 5, level 22
    data["m"] = [1, 7] * 500
    path = tmp_path / "log.bin"
    path.write_bytes(b"HEADER16........" + data.tobytes() + b"xyz")
    assert window.open_paths([str(path)], DecodeParams(dtype="uint8"))
    return window


def _cell(dialog, row, name):
    model = dialog.findChild(QTableView, "records.table").model()
    columns = [model.headerData(c, Qt.Orientation.Horizontal).split("\n")[0] for c in range(model.columnCount())]
    return model.data(model.index(row, columns.index(name)))


def test_a_c_struct_shows_its_records(window):
    dialog = window.show_records_dialog()
    dialog.findChild(QPlainTextEdit, "records.source").setPlainText(C_TEXT)
    dialog.findChild(QSpinBox, "records.header").setValue(16)
    dialog.findChild(QPushButton, "records.show").click()
    model = dialog.findChild(QTableView, "records.table").model()
    assert model.rowCount() == 1000
    assert model.headerData(1, Qt.Orientation.Horizontal) == "ch[0]\nint16_t[4] @4"
    assert model.headerData(7, Qt.Orientation.Horizontal) == "level\nuint8_t:5 @ bit 3 @16"
    assert _cell(dialog, 999, "ts") == "9990" and _cell(dialog, 3, "ch[2]") == "-3"
    assert _cell(dialog, 0, "gain") == "1.5"
    assert (_cell(dialog, 0, "flags"), _cell(dialog, 0, "level")) == ("5", "22")
    assert (_cell(dialog, 0, "m"), _cell(dialog, 1, "m")) == ("RUN (1)", "FAULT (7)")
    assert dialog.findChild(QLabel, "records.summary").text() == "1,000 records of 24 bytes, 6 fields; 3 trailing bytes"


def test_a_field_list_and_a_refusal_that_keeps_the_table(window):
    dialog = window.show_records_dialog()
    dialog.findChild(QComboBox, "records.kind").setCurrentText("field list")
    source = dialog.findChild(QPlainTextEdit, "records.source")
    source.setPlainText("ts:u32, ch:i16[4], gain:f32, size:24")
    dialog.findChild(QSpinBox, "records.header").setValue(16)
    dialog.findChild(QPushButton, "records.show").click()
    assert _cell(dialog, 7, "ts") == "70"
    source.setPlainText("ts:u33")
    dialog.findChild(QPushButton, "records.show").click()
    error = dialog.findChild(QLabel, "records.error")
    assert error.isVisible() and "not a type this tool decodes" in error.text()
    assert _cell(dialog, 7, "ts") == "70"  # the last good table stays
    dialog.findChild(QComboBox, "records.kind").setCurrentText("numpy dtype")
    source.setPlainText("[('ts', '<u4'), ('ch', '<i2', (4,))]")
    dialog.findChild(QSpinBox, "records.header").setValue(16 + 24)  # skip one record
    dialog.findChild(QPushButton, "records.show").click()
    assert not error.isVisible() and _cell(dialog, 0, "ts") == "10"


def test_a_field_becomes_the_windows_tensor(window):
    dialog = window.show_records_dialog()
    dialog.findChild(QPlainTextEdit, "records.source").setPlainText(C_TEXT)
    dialog.findChild(QSpinBox, "records.header").setValue(16)
    dialog.findChild(QPushButton, "records.show").click()
    table = dialog.findChild(QTableView, "records.table")
    button = dialog.findChild(QPushButton, "records.showField")
    table.setCurrentIndex(table.model().index(0, 6))  # flags: a bit field has no view
    assert not button.isEnabled()
    table.setCurrentIndex(table.model().index(0, 3))  # ch[2]: the field ch, all its elements
    assert button.isEnabled()
    button.click()
    view = window.document.result.view
    assert view.shape == (1000, 4) and view.dtype == np.int16
    np.testing.assert_array_equal(view[:, 2], -np.arange(1000))  # the last record included
    window.document.undo()
    assert window.document.params.dtype == "uint8"


def test_a_structured_npy_opens_as_records(qtbot, tmp_path):
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    window.show()
    data = np.zeros(50, [("ts", "<u4"), ("acc", "<f4", (3,)), ("ok", "?")])
    data["ts"] = np.arange(50) * 2
    data["acc"][:, 1] = -1.25
    np.save(tmp_path / "imu.npy", data)
    assert window.open_paths([str(tmp_path / "imu.npy")])
    assert window.document.result.view.shape == (50, 17)  # the records' bytes, one row each
    dialogs = [d for d in window.findChildren(QDialog, "records") if d.model.layout is not None]
    assert dialogs, "the records table opens by itself"
    dialog = dialogs[0]
    assert dialog.findChild(QComboBox, "records.kind").currentText() == "numpy dtype"
    assert _cell(dialog, 49, "ts") == "98" and _cell(dialog, 3, "acc[1]") == "-1.25"
