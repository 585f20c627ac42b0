"""The records window with the rest of the window: a records slice, the hex view's field colours,
the data inspector naming the field, the plot of several fields overlaid, sessions of a layout."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QPlainTextEdit, QPushButton, QSpinBox, QTableView

from core.pipeline.pipeline import DecodeParams
from core.records.choice import RecordsChoice
from core.session.document import session_from_json, session_json
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore
from inspector.state.snapshot import from_session, to_session

C_TEXT = """enum mode { IDLE, RUN, FAULT = 7 };
struct sample { uint32_t ts; int16_t ch[4]; float gain; uint8_t flags:3; uint8_t level:5; enum mode m; };"""
DTYPE = np.dtype({"names": ["ts", "ch", "gain", "bits", "m"], "formats": ["<u4", ("<i2", (4,)), "<f4", "<u1", "<i4"],
                  "offsets": [0, 4, 12, 16, 20], "itemsize": 24})
HEADER = b"HEADER16........"


def _window(qtbot, tmp_path, name="settings.ini"):
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / name), QSettings.IniFormat)))
    qtbot.addWidget(window)
    window.show()
    return window


@pytest.fixture
def log_file(tmp_path):
    data = np.zeros(1000, DTYPE)
    data["ts"] = np.arange(1000) * 10
    data["ch"][:, 2] = -np.arange(1000)
    data["gain"] = np.arange(1000) / 4
    data["bits"] = 0b10110_101  # flags 5, level 22
    data["m"] = [1, 7] * 500
    path = tmp_path / "log.bin"
    path.write_bytes(HEADER + data.tobytes() + b"xyz")
    return path


@pytest.fixture
def window(qtbot, tmp_path, log_file):
    window = _window(qtbot, tmp_path)
    assert window.open_paths([str(log_file)], DecodeParams(dtype="uint8"))
    return window


def _show(dialog, rows=""):
    dialog.findChild(QPlainTextEdit, "records.source").setPlainText(C_TEXT)
    dialog.findChild(QSpinBox, "records.header").setValue(16)
    dialog.findChild(QLineEdit, "records.rows").setText(rows)
    dialog.findChild(QPushButton, "records.show").click()


def _column(model, name):
    return [model.headerData(c, Qt.Orientation.Horizontal).split("\n")[0] for c in range(model.columnCount())].index(name)


def test_a_records_slice_picks_the_rows_and_says_so(window):
    dialog = window.show_records_dialog()
    _show(dialog, "[100:200:10]")
    model = dialog.findChild(QTableView, "records.table").model()
    assert model.rowCount() == 10
    assert [model.headerData(r, Qt.Orientation.Vertical) for r in (0, 1, 9)] == ["100", "110", "190"]
    assert model.data(model.index(1, _column(model, "ts"))) == "1100"
    assert model.data(model.index(9, _column(model, "ch[2]"))) == "-190"
    assert dialog.findChild(QLabel, "records.summary").text() == \
        "1,000 records of 24 bytes, 10 shown ([100:200:10]), 6 fields; 3 trailing bytes"
    _show(dialog, "[::-1]")
    assert model.rowCount() == 1000 and model.headerData(0, Qt.Orientation.Vertical) == "999"
    assert model.data(model.index(0, _column(model, "ts"))) == "9990"
    _show(dialog, "[1000]")  # out of range: said, the last table stays
    error = dialog.findChild(QLabel, "records.error")
    assert error.isVisible() and "out of bounds" in error.text()
    assert model.rowCount() == 1000


def test_a_chosen_cell_marks_its_bytes_and_the_inspector_names_the_field(window):
    dialog = window.show_records_dialog()
    _show(dialog, "[100:200:10]")
    table = dialog.findChild(QTableView, "records.table")
    table.setCurrentIndex(table.model().index(1, _column(table.model(), "gain")))  # record 110
    gain_offset = 16 + 110 * 24 + 12
    assert window.hex_view.highlighted() == (0, gain_offset, 4)
    field = window.data_inspector.findChild(QLabel, "inspector.field")
    assert field.text() == "record 110, gain (float @12), byte 1 of 4 = 27.5"
    table.setCurrentIndex(table.model().index(0, _column(table.model(), "level")))  # a bit field: its unit
    assert window.hex_view.highlighted() == (0, 16 + 100 * 24 + 16, 1)
    assert field.text() == "record 100, flags (uint8_t:3 @ bit 0 @16) = 5; level (uint8_t:5 @ bit 3 @16) = 22"
    # every field's bytes coloured, padding plain, the header plain
    hex_view = window.hex_view
    ts, ch, pad = (hex_view.mark_colour(16 + 24 * 3 + k) for k in (0, 4, 17))
    header = hex_view.mark_colour(5)
    assert ts is not None and ch is not None and ts.name() != ch.name()
    assert pad is None and header is None
    assert hex_view.mark_colour(16 + 24 * 5) == ts  # the same field, the same colour in every record


def test_the_inspector_names_a_clicked_byte_and_forgets_when_the_window_closes(window):
    dialog = window.show_records_dialog()
    _show(dialog)
    window.hex_view.bytesSelected.emit(0, 16 + 2 * 24 + 21)  # a byte of m in record 2
    field = window.data_inspector.findChild(QLabel, "inspector.field")
    assert field.text() == "m (enum mode @20), byte 2 of 4 = RUN (1)".join(["record 2, ", ""])
    dialog.close()
    assert window.document.records.choice is None
    assert window.hex_view.mark_colour(16) is None
    assert not field.isVisibleTo(window.data_inspector)


def test_several_fields_are_plotted_overlaid(window, qtbot):
    dialog = window.show_records_dialog()
    _show(dialog, "[::2]")
    table = dialog.findChild(QTableView, "records.table")
    model = table.model()
    selection = table.selectionModel()
    for name in ("ts", "ch[2]", "flags"):
        selection.select(model.index(0, _column(model, name)), selection.SelectionFlag.Select)
    table.setCurrentIndex(model.index(0, _column(model, "ts")))
    selection.select(model.index(0, _column(model, "ch[2]")), selection.SelectionFlag.Select)
    selection.select(model.index(0, _column(model, "flags")), selection.SelectionFlag.Select)
    dialog.findChild(QPushButton, "records.plotFields").click()
    plot = dialog.plot
    assert plot.isVisible() and plot.names == ("ts", "ch[2]", "flags")
    line = plot.line_plot
    np.testing.assert_array_equal(line.values, np.arange(0, 1000, 2) * 10)
    x, y = line.channel_curves[0].getData()
    np.testing.assert_array_equal(y, -np.arange(0, 1000, 2))
    x, y = line.channel_curves[1].getData()
    assert set(y.tolist()) == {5}
    legend = [label.text for _sample, label in line.plot_item.legend.items]
    assert legend == ["ts", "ch[2]", "flags"]
    dialog.findChild(QLineEdit, "records.rows").setText("[500:]")  # the same fields, other records
    dialog.findChild(QPushButton, "records.show").click()
    np.testing.assert_array_equal(line.values, np.arange(500, 1000) * 10)


def test_a_session_keeps_the_layout_and_reopens_the_records_window(window, qtbot, tmp_path, log_file):
    dialog = window.show_records_dialog()
    dialog.findChild(QComboBox, "records.abi").setCurrentText("arm-eabi")
    _show(dialog, "[3:9:2]")
    session = to_session(window.document.snapshot())
    document = session_json(session, str(tmp_path))
    assert document["records"] == {"kind": "c", "text": C_TEXT, "struct": "", "abi": "arm-eabi", "header": 16,
                                   "little_endian": True, "rows": "[3:9:2]"}
    loaded = session_from_json(document, str(tmp_path))
    other = _window(qtbot, tmp_path, "other.ini")
    assert other.document.restore(from_session(loaded, other.document.view_options.value))
    assert other.document.records.choice == RecordsChoice("c", C_TEXT, "", "arm-eabi", 16, True, "[3:9:2]")
    reopened = other._records_dialog
    assert reopened is not None and reopened.isVisible()
    model = reopened.findChild(QTableView, "records.table").model()
    assert model.rowCount() == 3 and model.data(model.index(2, _column(model, "ts"))) == "70"
    assert reopened.findChild(QComboBox, "records.abi").currentText() == "arm-eabi"
    assert reopened.findChild(QLineEdit, "records.rows").text() == "[3:9:2]"


def test_a_field_with_a_records_slice_becomes_the_tensor_sliced(window):
    dialog = window.show_records_dialog()
    _show(dialog, "[10:20]")
    table = dialog.findChild(QTableView, "records.table")
    table.setCurrentIndex(table.model().index(0, _column(table.model(), "ts")))
    dialog.findChild(QPushButton, "records.showField").click()
    view = window.document.result.view
    np.testing.assert_array_equal(view, np.arange(10, 20) * 10)
    assert window.document.slice_text == "[10:20]"


def test_the_window_command_line_opens_records_and_a_field(window, log_file, tmp_path):
    from core.cli.records import choice_from_args
    from inspector.app import build_parser, show_startup_records

    args = build_parser().parse_args([str(log_file), "--struct", C_TEXT, "--offset", "16", "--abi", "aarch64",
                                      "--field", "gain"])
    choice = choice_from_args(args)
    assert choice == RecordsChoice("c", C_TEXT, "", "aarch64", 16, True, "")
    show_startup_records(window, choice, "gain")
    dialog = window._records_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.findChild(QComboBox, "records.abi").currentText() == "aarch64"
    np.testing.assert_array_equal(window.document.result.view, np.arange(1000) / 4)


@pytest.mark.parametrize("options, message", [
    (["--fields", "ts:u33"], "not a type this tool decodes"),
    (["--struct", "struct s { int a; };", "--field", "b"], "has no field 'b'"),
    (["--struct", "struct s { int a[; };"], "line 1"),
])
def test_the_window_command_line_refuses_a_bad_layout_before_any_window(options, message, tmp_path, log_file):
    import os
    import subprocess
    import sys

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"))
    out = subprocess.run([sys.executable, "-m", "inspector", str(log_file), *options], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], out.stderr


def test_every_overlaid_field_gets_its_exact_overview_on_millions_of_records(qtbot, tmp_path):
    from inspector.plot.line_plot import PYRAMID_THRESHOLD

    count = PYRAMID_THRESHOLD + 1_000_003
    data = np.zeros(count, [("a", "<f4"), ("b", "<i2"), ("c", "<u2")])
    data["a"] = np.sin(np.arange(count, dtype=np.float32) / 1000)
    data["b"][1_234_567] = 1000  # one spike each: a strided preview would miss them
    data["c"][2_500_001] = 777
    path = tmp_path / "big.bin"
    data.tofile(path)
    window = _window(qtbot, tmp_path)
    assert window.open_paths([str(path)], DecodeParams(dtype="uint8"))
    dialog = window.show_records_dialog()
    dialog.findChild(QComboBox, "records.kind").setCurrentText("field list")
    dialog.findChild(QPlainTextEdit, "records.source").setPlainText("a:f32, b:i16, c:u16")
    dialog.findChild(QPushButton, "records.show").click()
    table = dialog.findChild(QTableView, "records.table")
    model, selection = table.model(), table.selectionModel()
    table.setCurrentIndex(model.index(0, 0))
    for column in (1, 2):
        selection.select(model.index(0, column), selection.SelectionFlag.Select)
    line = dialog.plot.line_plot
    with qtbot.waitSignal(line.overviewReady, timeout=60_000):
        dialog.findChild(QPushButton, "records.plotFields").click()
    assert line.pyramid is not None and len(line._channel_pyramids) == 2
    line.refresh()
    (_x, b), (_x2, c) = line.channel_curves[0].getData(), line.channel_curves[1].getData()
    assert len(b) < 10_000 and b.max() == 1000 and c.max() == 777


def test_a_screenshot_shows_the_records_window_over_the_main_window(tmp_path, log_file):
    import os
    import subprocess
    import sys

    from PySide6.QtGui import QImage

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"))
    plain, with_records = tmp_path / "plain.png", tmp_path / "records.png"
    for png, options in ((plain, ["--dtype", "uint8", "--offset", "16", "--record-size", "24"]),
                         (with_records, ["--struct", C_TEXT, "--offset", "16", "--plot-fields", "ts,ch[2],nope"])):
        out = subprocess.run([sys.executable, "-m", "inspector", str(log_file), *options, "--screenshot", str(png)],
                             env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
    assert "warning: --plot-fields: the records have no column nope" in out.stderr
    a, b = QImage(str(plain)), QImage(str(with_records))
    assert a.size() == b.size()
    corner = (a.width() - 200, a.height() - 200)  # where the records window floats
    assert a.pixel(*corner) != b.pixel(*corner)


def test_a_header_struct_comes_before_the_records_and_shows_its_values(qtbot, tmp_path):
    text = ("struct log_header { char magic[4]; uint16_t version; uint16_t flags; uint32_t count; };\n"
            "struct point { float x; float y; };")
    points = np.array([(1.5, -2.0), (3.0, 4.25), (0.0, 7.0)], [("x", "<f4"), ("y", "<f4")])
    path = tmp_path / "points.bin"
    path.write_bytes(b"PTS1" + (2).to_bytes(2, "little") + bytes(2) + (3).to_bytes(4, "little") + points.tobytes())
    window = _window(qtbot, tmp_path)
    assert window.open_paths([str(path)], DecodeParams(dtype="uint8"))
    dialog = window.show_records_dialog()
    dialog.findChild(QPlainTextEdit, "records.source").setPlainText(text)
    dialog.findChild(QLineEdit, "records.struct").setText("point")
    dialog.findChild(QLineEdit, "records.headerStruct").setText("log_header")
    dialog.findChild(QPushButton, "records.show").click()
    model = dialog.findChild(QTableView, "records.table").model()
    assert model.rowCount() == 3 and model.data(model.index(1, _column(model, "y"))) == "4.25"
    line = dialog.findChild(QLabel, "records.headerValues").text()
    assert line == ("header struct log_header (12 bytes at 0): magic[0] = 80, magic[1] = 84, magic[2] = 83, "
                    "magic[3] = 49, version = 2, flags = 0, count = 3")
    assert window.document.records.header == 12
    session = to_session(window.document.snapshot())
    assert session_json(session, str(tmp_path))["records"]["header_struct"] == "log_header"


def test_millions_of_records_are_paged_and_go_to_finds_one(qtbot, tmp_path):
    from inspector.table.records_model import PAGE_ROWS

    count = 2 * PAGE_ROWS + 500_000
    data = np.zeros(count, [("n", "<u4"), ("v", "<i2")])
    data["n"] = np.arange(count)
    path = tmp_path / "many.bin"
    data.tofile(path)
    window = _window(qtbot, tmp_path)
    assert window.open_paths([str(path)], DecodeParams(dtype="uint8"))
    dialog = window.show_records_dialog()
    dialog.findChild(QComboBox, "records.kind").setCurrentText("field list")
    dialog.findChild(QPlainTextEdit, "records.source").setPlainText("n:u32, v:i16")
    dialog.findChild(QPushButton, "records.show").click()
    model = dialog.findChild(QTableView, "records.table").model()
    page = dialog.findChild(QLabel, "records.page")
    assert model.rowCount() == PAGE_ROWS and page.text() == "rows 0–999,999 of 2,500,000"
    go_to = dialog.findChild(QLineEdit, "records.goTo")
    go_to.setText("2,000,123")
    go_to.returnPressed.emit()
    table = dialog.findChild(QTableView, "records.table")
    assert page.text() == "rows 2,000,000–2,499,999 of 2,500,000" and model.rowCount() == 500_000
    assert model.headerData(table.currentIndex().row(), Qt.Orientation.Vertical) == "2000123"
    assert model.data(model.index(table.currentIndex().row(), 0)) == "2000123"
    assert window.hex_view.highlighted() == (0, 2_000_123 * 6, 4)
    dialog.findChild(QPushButton, "records.pagePrevious").click()
    assert page.text() == "rows 1,000,000–1,999,999 of 2,500,000"
    assert model.data(model.index(0, 0)) == "1000000"
    go_to.setText("-1")
    go_to.returnPressed.emit()
    assert model.data(table.currentIndex()) == "2499999"
    go_to.setText("3000000")
    go_to.returnPressed.emit()
    assert "is not one of the records shown" in dialog.findChild(QLabel, "records.error").text()


def test_the_layout_check_judges_the_fields_and_proposes_the_header(window, qtbot):
    dialog = window.show_records_dialog()
    dialog.findChild(QPlainTextEdit, "records.source").setPlainText(C_TEXT)
    dialog.findChild(QSpinBox, "records.header").setValue(13)  # 3 bytes off
    dialog.findChild(QPushButton, "records.show").click()
    check = dialog.findChild(QPushButton, "records.check")
    with qtbot.waitSignal(dialog.tools.resultsShown, timeout=60_000):
        check.click()
    text = dialog.findChild(QPlainTextEdit, "records.checkResult").toPlainText()
    assert text.splitlines()[0].startswith(str(window.document.paths[0]) + ": ")
    assert "the layout does not fit the records from byte 13" in text.splitlines()[0]
    assert "gain:" in text.splitlines()[0]
    use = dialog.findChild(QPushButton, "records.useHeader")
    assert use.isVisible() and use.text() == "Start the records at byte 16"
    use.click()
    assert window.document.records.header == 16
    assert dialog.findChild(QSpinBox, "records.header").value() == 16
    assert not dialog.findChild(QPlainTextEdit, "records.checkResult").toPlainText()  # stale: cleared
    with qtbot.waitSignal(dialog.tools.resultsShown, timeout=60_000):
        check.click()
    first = dialog.findChild(QPlainTextEdit, "records.checkResult").toPlainText().splitlines()[0]
    assert "the layout is plausible" in first
    assert not use.isVisible()


def test_statistics_of_every_field_and_an_export_of_the_records_shown(window, qtbot, tmp_path):
    import csv

    dialog = window.show_records_dialog()
    _show(dialog, "[::100]")
    with qtbot.waitSignal(dialog.tools.resultsShown, timeout=60_000):
        dialog.findChild(QPushButton, "records.statistics").click()
    tools = dialog.tools
    assert (tools.statistics_text("ts", "min"), tools.statistics_text("ts", "max")) == ("0", "9990")
    assert tools.statistics_text("gain", "mean") == "124.875"  # over all 1,000 records, not the slice
    assert tools.statistics_text("ch", "count") == "4,000"  # an array field's elements together
    assert tools.statistics_text("flags", "max") == "5" and tools.statistics_text("level", "min") == "22"
    table = dialog.findChild(QTableView, "records.table")
    model, selection = table.model(), table.selectionModel()
    table.setCurrentIndex(model.index(0, _column(model, "ts")))
    selection.select(model.index(0, _column(model, "m")), selection.SelectionFlag.Select)
    out = tmp_path / "out.csv"
    assert tools.export_to(str(out))
    qtbot.waitUntil(lambda: not tools.running, timeout=30_000)
    with open(out, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["ts", "m"] and rows[1:4] == [["0", "1"], ["1000", "1"], ["2000", "1"]] and len(rows) == 11
    assert dialog.findChild(QLabel, "records.toolStatus").text().startswith("wrote ")
    table.setCurrentIndex(model.index(0, 0))  # one cell: every column
    npy = tmp_path / "out.npy"
    assert tools.export_to(str(npy))
    qtbot.waitUntil(lambda: not tools.running, timeout=30_000)
    back = np.load(npy)
    assert back.dtype.names == ("ts", "ch", "gain", "flags", "level", "m")
    np.testing.assert_array_equal(back["ts"], np.arange(0, 1000, 100) * 10)
    np.testing.assert_array_equal(back["ch"][:, 2], -np.arange(0, 1000, 100))
    assert set(back["level"].tolist()) == {22}
