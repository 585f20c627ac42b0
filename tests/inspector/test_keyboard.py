"""The window without a mouse: focus shortcuts, Tab through every panel, Ctrl+L, a visible focus
frame, and the main journey (open, type, offset, shape, slice, read a value) with key events only."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QTableView

from inspector.docks import DEFAULT_DOCKS, focus_keys
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore
from inspector.widgets.focus_frame import FRAME_WIDTH

ALT = Qt.KeyboardModifier.AltModifier
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    w = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    qtbot.waitActive(w)
    return w


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(b"\xee\xee" + np.arange(12, dtype="<i2").tobytes())  # 2 header bytes, 12 int16
    return str(path)


def focused():
    return QApplication.focusWidget()


def press(qtbot, key, modifier=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(focused(), key, modifier)


def test_alt_digits_focus_each_panel_and_are_listed_in_the_view_menu(window, qtbot, data_file):
    assert window.open_paths([data_file])
    menu_keys = {a.text(): a.shortcut().toString() for a in window.menus.view_menu.actions() if not a.shortcut().isEmpty()}
    assert menu_keys == {
        "Go to &Table": "Alt+1", "Go to &Decode panel": "Alt+2", "Go to &Slice panel": "Alt+3",
        "Go to &Plot": "Alt+4", "Go to &Bytes": "Alt+5", "Go to Data &inspector": "Alt+6",
        "Go to S&tatistics": "Alt+7", "Go to Boo&kmarks": "Alt+8", "Go to &Model": "Alt+9",
        "Go to slice &expression": "Ctrl+L",
    }
    window.table_panel.view.setFocus()
    expected = {"table": "table.view", "decode": None, "slice": None, "hex": "hex.view"}
    for digit, (name, _text, _key) in enumerate(focus_keys(DEFAULT_DOCKS), start=1):
        press(qtbot, getattr(Qt.Key, f"Key_{digit}"), ALT)
        widget = focused()
        holder = window.table_panel if name == "table" else window.docks[name]
        assert holder.isAncestorOf(widget), name
        if expected.get(name):
            assert widget.objectName() == expected[name]
    press(qtbot, Qt.Key.Key_2, ALT)
    assert focused() is window.decode_panel.dtype_combo


def test_a_hidden_panel_is_shown_by_its_focus_shortcut(window, qtbot, data_file):
    assert window.open_paths([data_file])
    window.docks["hex"].hide()
    window.table_panel.view.setFocus()
    press(qtbot, Qt.Key.Key_5, ALT)
    assert window.docks["hex"].isVisible()
    assert focused() is window.hex_view


def test_ctrl_l_jumps_to_the_slice_expression_with_its_text_selected(window, qtbot, data_file):
    assert window.open_paths([data_file], slice_text="[1:]")
    window.table_panel.view.setFocus()
    press(qtbot, Qt.Key.Key_L, CTRL)
    edit = window.slice_editor.expression_edit
    assert focused() is edit
    assert edit.selectedText() == edit.text() == "[1:]"


def test_tab_leaves_the_table_and_walks_through_the_decode_panel(window, qtbot, data_file):
    assert window.open_paths([data_file])
    view = window.table_panel.view
    view.setFocus()
    press(qtbot, Qt.Key.Key_Tab)
    assert focused() is not view
    panel = window.decode_panel
    press(qtbot, Qt.Key.Key_2, ALT)
    order = [focused()]
    for _ in range(6):
        press(qtbot, Qt.Key.Key_Tab)
        order.append(focused())
    # the fixed-length field is disabled while its box is unticked: Tab skips it
    assert order[:6] == [panel.dtype_combo, panel.byte_order_combo, panel.fixed_length_check,
                         panel.offset_field, panel.record_size_field, panel.shape_field]
    # and Tab goes on through every panel back to the table, stuck nowhere (the data inspector's
    # table used to keep it); about 30 stops, so 60 presses would show a trap
    seen = []
    for _ in range(60):
        press(qtbot, Qt.Key.Key_Tab)
        seen.append(focused())
        if focused() is view:
            break
    assert focused() is view
    for widget in (window.slice_editor.expression_edit, window.hex_view, window.data_inspector):
        assert any(widget is w or widget.isAncestorOf(w) for w in seen), widget


def test_the_focus_frame_surrounds_the_focused_widget(window, qtbot, data_file):
    assert window.open_paths([data_file])
    frame = window.focus_frame
    press_target = window.decode_panel.offset_field
    press_target.setFocus()
    qtbot.waitUntil(lambda: frame.target() is press_target)
    assert frame.isVisible()
    top_left = press_target.mapTo(window, QPoint(0, 0))
    inner = QRect(top_left, press_target.size())
    assert frame.geometry() == inner.adjusted(-FRAME_WIDTH, -FRAME_WIDTH, FRAME_WIDTH, FRAME_WIDTH)
    image = frame.grab().toImage()
    assert image.pixelColor(0, image.height() // 2).name() == "#1a73e8"  # palette.FOCUS
    window.table_panel.view.setFocus()
    qtbot.waitUntil(lambda: frame.target() is window.table_panel.view)


def test_the_main_journey_without_a_mouse(window, qtbot, data_file):
    # Opening is the one step through a dialog (Ctrl+O); everything after it is keys only.
    assert window.open_paths([data_file])
    press(qtbot, Qt.Key.Key_2, ALT)  # Decode panel: the type
    combo = window.decode_panel.dtype_combo
    assert focused() is combo and combo.currentData() == "uint8"
    press(qtbot, Qt.Key.Key_Up)  # uint8 -> int64 -> int32 -> int16 (the list's order)
    press(qtbot, Qt.Key.Key_Up)
    press(qtbot, Qt.Key.Key_Up)
    assert combo.currentData() == "int16"
    for _ in range(3):  # byte order, fixed length, header offset
        press(qtbot, Qt.Key.Key_Tab)
    assert focused() is window.decode_panel.offset_field
    qtbot.keyClicks(focused(), "2")
    press(qtbot, Qt.Key.Key_Tab)  # record size
    press(qtbot, Qt.Key.Key_Tab)  # target shape
    assert focused() is window.decode_panel.shape_field
    qtbot.keyClicks(focused(), "3,4")
    assert window.document.result.view.shape == (3, 4)
    press(qtbot, Qt.Key.Key_L, CTRL)  # the slice
    qtbot.keyClicks(focused(), "[1:, ::2]")
    assert window.document.result.view.shape == (2, 2)
    np.testing.assert_array_equal(window.document.result.view, [[4, 6], [8, 10]])
    press(qtbot, Qt.Key.Key_1, ALT)  # the table: move with arrows, read the status bar
    assert isinstance(focused(), QTableView)
    press(qtbot, Qt.Key.Key_Down)
    press(qtbot, Qt.Key.Key_Right)
    assert window.document.selection == (1, 1)
    status = window.statusBar().selection_label.text()
    assert status.startswith("[1, 1] = 10"), status


def test_ctrl_f_and_f3_find_in_the_table_from_anywhere(window, qtbot, tmp_path):
    path = tmp_path / "floats.bin"
    values = np.array([1.0, np.nan, 3.0, np.inf, np.nan], "<f4")
    path.write_bytes(values.tobytes())
    assert window.open_paths([str(path)])
    window.decode_panel.dtype_combo.setCurrentIndex(window.decode_panel.dtype_combo.findData("float32"))
    window.decode_panel.dtype_combo.setFocus()
    press(qtbot, Qt.Key.Key_F, CTRL)
    edit = window.table_panel.findChild(QLineEdit, "table.find")
    assert focused() is edit
    qtbot.keyClicks(edit, "nan")
    bar = window.table_panel.find_bar
    with qtbot.waitSignal(bar.searchFinished, timeout=5000):
        press(qtbot, Qt.Key.Key_Return)
    assert window.document.selection == (1,)
    with qtbot.waitSignal(bar.searchFinished, timeout=5000):
        press(qtbot, Qt.Key.Key_F3)
    assert window.document.selection == (4,)
    with qtbot.waitSignal(bar.searchFinished, timeout=5000):
        press(qtbot, Qt.Key.Key_F3, SHIFT)
    assert window.document.selection == (1,)
    assert window.statusBar().selection_label.text().startswith("[1] = nan")


def test_ctrl_c_copies_what_has_the_focus(window, qtbot, data_file):
    assert window.open_paths([data_file])  # uint8: 26 bytes, one column
    view = window.table_panel.view
    view.setFocus()
    view.setCurrentIndex(window.table_panel.model.index(2, 0))
    press(qtbot, Qt.Key.Key_Down, SHIFT)
    press(qtbot, Qt.Key.Key_C, CTRL)
    assert QApplication.clipboard().text() == "0\n0"  # bytes 2 and 3 of ee ee 00 00 01 00 ...
    press(qtbot, Qt.Key.Key_5, ALT)
    window.hex_view.select_bytes(0, 2)
    press(qtbot, Qt.Key.Key_C, CTRL)
    assert QApplication.clipboard().text() == "ee ee 00"
    field = window.decode_panel.shape_field
    field.setFocus()
    qtbot.keyClicks(field, "26")
    field.selectAll()
    press(qtbot, Qt.Key.Key_C, CTRL)
    assert QApplication.clipboard().text() == "26"


def test_hex_byte_as_header_offset_from_the_keyboard_is_undoable(window, qtbot, data_file):
    assert window.open_paths([data_file])
    press(qtbot, Qt.Key.Key_5, ALT)
    window.hex_actions.go_to("2")
    assert window.hex_view.selection() == (2, 2)
    press(qtbot, Qt.Key.Key_H, CTRL | SHIFT)
    assert window.document.params.offset == 2
    np.testing.assert_array_equal(window.document.result.view, np.arange(12, dtype="<i2").view(np.uint8))
    press(qtbot, Qt.Key.Key_Z, CTRL)
    assert window.document.params.offset is None or window.document.params.offset == 0
    assert window.document.result.view.shape == (26,)

