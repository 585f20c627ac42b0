"""DecodePanel on documents opened on temporary files (issue 15, items 2, 5, 8 and 10): fields keep
what is typed (``0x40`` decodes offset 64 and stays ``0x40``), no error outlives its cause, empty
fields show the value in effect (``128 (from header)`` for a .npy file), an odd offset is reported
under *Header offset*, error text is shown whole, and every control has its documented name."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QLineEdit, QWidget

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.panels.decode_panel import DecodePanel
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.background_task import shutdown_tasks
from inspector.state.document import Document
from inspector.state.settings_store import SettingsStore
from inspector.widgets.int_field import parse_int_text

UI_NAMES = Path(__file__).resolve().parents[3] / "docs" / "ui-names.md"


@pytest.fixture
def raw_file(tmp_path):
    path = tmp_path / "ramp.bin"
    path.write_bytes(bytes(range(256)))
    return str(path)


@pytest.fixture
def npy_file(tmp_path):
    path = tmp_path / "grid.npy"
    np.save(path, np.arange(12, dtype="<i2").reshape(3, 4))  # format 1.0: the data start at 128
    return str(path)


def make_panel(qtbot, paths, params: DecodeParams | None = None) -> tuple[Document, DecodePanel]:
    document = Document()
    assert document.open_files(paths, params)
    panel = DecodePanel(document)
    qtbot.addWidget(panel)
    return document, panel


def field(panel: QWidget, name: str) -> QLineEdit:
    line = panel.findChild(QLineEdit, f"decode.{name}")
    assert line is not None, name
    return line


def type_keys(qtbot, line: QLineEdit, text: str) -> None:
    """Type ``text`` key by key at the end of the field, as a user would."""
    line.setFocus()
    line.end(False)
    qtbot.keyClicks(line, text)


def shown_errors(panel: DecodePanel) -> dict[str, str]:
    return {name: label.text() for name, label in panel.error_labels.items() if not label.isHidden()}


# -- item 2: what is typed stays typed, and applies ---------------------------------------------
@pytest.mark.parametrize(("name", "param", "typed", "value"), [
    ("offset", "offset", "0x40", 64),
    ("offset", "offset", "64", 64),
    ("offset", "offset", "0X1_0", 16),
    ("offset", "offset", "0b11", 3),
    ("recordSize", "record_size", "0x10", 16),
    ("recordSize", "record_size", "1_6", 16),
])
def test_typed_integers_apply_and_stay_as_typed(qtbot, raw_file, name, param, typed, value):
    document, panel = make_panel(qtbot, [raw_file])
    line = field(panel, name)
    type_keys(qtbot, line, typed)
    assert getattr(document.params, param) == value
    assert line.text() == typed
    assert document.error is None and shown_errors(panel) == {}


def test_hex_offset_decodes_from_byte_64(qtbot, raw_file):
    document, panel = make_panel(qtbot, [raw_file])
    type_keys(qtbot, field(panel, "offset"), "0x40")
    assert document.result.params.offset == 64
    assert document.result.view.shape == (192,)  # 256 - 64 bytes as uint8
    assert int(document.result.view[0]) == 64


def test_hex_fixed_length_applies_and_stays(qtbot, raw_file):
    document, panel = make_panel(qtbot, [raw_file], DecodeParams(record_size=16))
    panel.findChild(QCheckBox, "decode.fixedLengthEnabled").setChecked(True)
    type_keys(qtbot, field(panel, "fixedLength"), "0x8")
    assert document.params.fixed_length == 8
    assert field(panel, "fixedLength").text() == "0x8"
    assert document.result.view.shape == (16, 8)


@pytest.mark.parametrize(("typed", "shape"), [("2,128", (2, 128)), ("(4, 64)", (4, 64)), ("4x64", (4, 64))])
def test_target_shape_stays_as_typed(qtbot, raw_file, typed, shape):
    document, panel = make_panel(qtbot, [raw_file])
    type_keys(qtbot, field(panel, "shape"), typed)
    assert document.params.shape == shape
    assert field(panel, "shape").text() == typed
    assert document.result.tensor.shape == shape


def test_an_error_goes_as_soon_as_the_text_parses(qtbot, raw_file):
    document, panel = make_panel(qtbot, [raw_file])
    line = field(panel, "offset")
    type_keys(qtbot, line, "0x")
    assert shown_errors(panel) == {"offset": "offset must be an integer number of bytes, not '0x' (or empty)"}
    type_keys(qtbot, line, "4")
    assert shown_errors(panel) == {}
    assert document.params.offset == 4


def test_an_error_goes_when_the_text_returns_to_the_applied_value(qtbot, raw_file):
    document, panel = make_panel(qtbot, [raw_file])
    line = field(panel, "recordSize")
    type_keys(qtbot, line, "16q")
    assert list(shown_errors(panel)) == ["record_size"]
    qtbot.keyClick(line, Qt.Key.Key_Backspace)  # back to "16": the parameters do not change
    assert line.text() == "16" and document.params.record_size == 16
    assert shown_errors(panel) == {}


def test_a_shape_error_goes_when_the_shape_is_fixed(qtbot, raw_file):
    document, panel = make_panel(qtbot, [raw_file])
    line = field(panel, "shape")
    type_keys(qtbot, line, "4,a")
    assert list(shown_errors(panel)) == ["shape"]
    qtbot.keyClick(line, Qt.Key.Key_Backspace)
    qtbot.keyClicks(line, "64")
    assert shown_errors(panel) == {} and document.params.shape == (4, 64)


def test_undo_redo_and_another_file_still_update_the_fields(qtbot, raw_file, tmp_path):
    document, panel = make_panel(qtbot, [raw_file])
    line = field(panel, "offset")
    type_keys(qtbot, line, "0x40")
    document.end_typing()
    document.update_params(offset=64)  # the same value from elsewhere: the text stays
    assert line.text() == "0x40"
    document.undo()
    assert document.params.offset is None and line.text() == ""
    document.redo()
    assert document.params.offset == 64 and line.text() == "64"
    other = tmp_path / "other.bin"
    other.write_bytes(bytes(32))
    assert document.open_files([str(other)], DecodeParams(offset=8, shape=(3, 8)))
    assert line.text() == "8"
    assert field(panel, "shape").text() == "3,8"


def test_parse_int_text_rules():
    assert parse_int_text(" 0x40 ") == 64
    assert parse_int_text("-0x10") == -16
    assert parse_int_text("0o17") == 15
    assert parse_int_text("010") == 10
    assert parse_int_text("1_000") == 1000
    assert parse_int_text("") is None
    assert parse_int_text("0x") == "0x"
    assert parse_int_text("4.5") == "4.5"


# -- item 5: empty fields show the value in effect ----------------------------------------------
def test_npy_header_values_show_as_placeholders(qtbot, npy_file):
    document, panel = make_panel(qtbot, [npy_file])
    offset, shape = field(panel, "offset"), field(panel, "shape")
    assert document.params.offset is None and document.result.params.offset == 128
    assert (offset.text(), offset.placeholderText()) == ("", "128 (from header)")
    assert (shape.text(), shape.placeholderText()) == ("", "3,4 (from header)")
    assert panel.findChild(QComboBox, "decode.dtype").toolTip() == "int16 (from header)"
    assert field(panel, "recordSize").placeholderText() == "whole file is one element"


def test_values_the_user_sets_are_not_marked_from_header(qtbot, npy_file):
    document, panel = make_panel(qtbot, [npy_file])
    type_keys(qtbot, field(panel, "shape"), "12")
    assert field(panel, "shape").placeholderText() == "e.g. 3,48,64 or -1,64"
    assert field(panel, "offset").placeholderText() == "128 (from header)"


def test_a_raw_file_after_an_npy_file_shows_the_defaults(qtbot, npy_file, raw_file):
    document, panel = make_panel(qtbot, [npy_file])
    assert document.open_files([raw_file])
    assert field(panel, "offset").placeholderText() == "0 (header bytes to skip)"
    assert field(panel, "shape").placeholderText() == "e.g. 3,48,64 or -1,64"
    assert panel.findChild(QComboBox, "decode.dtype").toolTip() == ""


def test_a_disabled_fixed_length_keeps_nothing_from_the_previous_file(qtbot, raw_file, npy_file):
    document, panel = make_panel(qtbot, [raw_file])
    check = panel.findChild(QCheckBox, "decode.fixedLengthEnabled")
    check.setChecked(True)
    type_keys(qtbot, field(panel, "fixedLength"), "8")
    assert document.params.fixed_length == 8
    assert document.open_files([npy_file])
    assert not check.isChecked()
    assert field(panel, "fixedLength").text() == "" and not field(panel, "fixedLength").isEnabled()


# -- item 8: the field the user changed ---------------------------------------------------------
def test_odd_offset_on_int16_is_reported_under_the_offset(qtbot, tmp_path):
    path = tmp_path / "eight.bin"
    path.write_bytes(bytes(range(8)))
    document, panel = make_panel(qtbot, [str(path)], DecodeParams(dtype="int16"))
    type_keys(qtbot, field(panel, "offset"), "1")
    label = panel.findChild(QLabel, "decode.error.offset")
    assert not label.isHidden()
    assert label.text() == ("Input to DecodeRaw has length 7 that is not a multiple of 2, the size "
                            "of int16 (the header offset 1 leaves 7 of the file's 8 bytes: choose a "
                            "header offset that leaves a multiple of 2 bytes, e.g. 0 or 2)")
    assert panel.findChild(QLabel, "decode.error.fixedLength").isHidden()


# -- item 10: error text is shown whole ---------------------------------------------------------
def test_a_long_error_is_shown_whole_in_the_window(qtbot, tmp_path):
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    path = tmp_path / "eight.bin"
    path.write_bytes(bytes(range(8)))
    try:
        window.resize(1200, 800)
        window.show()
        qtbot.waitExposed(window)
        assert window.open_paths([str(path)])
        window.dock_layout.apply_default_layout()
        window.document.update_params(dtype="int16", offset=1)
        label = window.findChild(QLabel, "decode.error.offset")
        message = window.document.error.message
        assert label.text() == message and label.toolTip() == message
        assert label.wordWrap()
        # the label gets the height its wrapped text needs at its width (at least two lines here)
        qtbot.waitUntil(lambda: label.isVisible()
                        and label.height() >= label.heightForWidth(label.width())
                        > 1.5 * label.fontMetrics().height(), timeout=3000)
    finally:
        shutdown_tasks()


# -- stable names -------------------------------------------------------------------------------
def test_every_control_has_its_documented_name(qtbot, raw_file):
    _document, panel = make_panel(qtbot, [raw_file])
    expected = {
        "decode.dtype": QComboBox, "decode.byteOrder": QComboBox,
        "decode.fixedLengthEnabled": QCheckBox, "decode.fixedLength": QLineEdit,
        "decode.offset": QLineEdit, "decode.recordSize": QLineEdit, "decode.shape": QLineEdit,
        "decode.shapeSuggestions": QComboBox, "decode.viewAs": QComboBox,
        "decode.error.offset": QLabel, "decode.error.fixedLength": QLabel,
        "decode.error.files": QLabel, "decode.info": QLabel,
    }
    for name, kind in expected.items():
        assert panel.findChild(kind, name) is not None, name
    named = {w.objectName() for w in panel.findChildren(QWidget) if w.objectName().startswith("decode.")}
    documented = set(re.findall(r"^\| `(decode\.[\w.]+)` \|", UI_NAMES.read_text(), re.MULTILINE))
    assert named == documented


def test_the_type_combo_lists_the_types_beyond_tf_marked(qtbot):
    from core.dtypes.table import EXTENDED_TYPES
    from inspector.panels.decode_panel import BEYOND_TF

    panel = DecodePanel(Document())
    qtbot.addWidget(panel)
    combo = panel.findChild(QComboBox, "decode.dtype")
    labels = {combo.itemData(i): combo.itemText(i) for i in range(combo.count())}
    for name in ("float8_e4m3fn", "float8_e5m2", "int4", "uint4", "int24", "uint24"):
        assert labels[name] == name + BEYOND_TF
    assert all(labels[name].endswith(BEYOND_TF) for name in EXTENDED_TYPES)
    assert labels["float32"] == "float32"
    from inspector.panels.decode_panel import _canonical_dtype

    # a packed type keeps its name (its decoded dtype is int8 / int32)
    assert [_canonical_dtype(n) for n in ("int4", "int24", "half", "float8_e5m2")] == [
        "int4", "int24", "float16", "float8_e5m2"]
