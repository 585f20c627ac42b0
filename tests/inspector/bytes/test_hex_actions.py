"""The hex view's actions from the keyboard: copy as hex / Python bytes, go to offset, header offset."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QInputDialog

from core.files.sources import open_source
from inspector.bytes.hex_actions import COPY_LIMIT, HexActions, bytes_as_hex, bytes_as_python, parse_offset
from inspector.widgets.hex_view import HexView


@pytest.fixture
def view(qtbot, tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(b"AB\x00\xff" + bytes(range(16, 52)))  # 40 bytes
    w = HexView()
    qtbot.addWidget(w)
    w.set_reader(open_source([str(path)]))
    w.resize(760, 300)
    w.show()
    qtbot.waitExposed(w)
    w.setFocus()
    return w


def test_formats():
    assert bytes_as_hex(b"\x00\x01\xff") == "00 01 ff"
    assert bytes_as_python(b"\x00A'\xff") == "b\"\\x00A'\\xff\""
    assert bytes_as_python(b"") == "b''"


@pytest.mark.parametrize(("text", "offset"), [("7", 7), ("0x1f", 31), ("1_0", 10), ("-1", 39), (" 0 ", 0)])
def test_parse_offset(text, offset):
    assert parse_offset(text, 40) == offset


@pytest.mark.parametrize(
    ("text", "message"),
    [("40", "offset 40 is outside the file: its bytes are 0 to 39"),
     ("-41", "offset -41 is outside the file"),
     ("x", "'x' is not an offset: type a byte number such as 4096 or 0x1000")],
)
def test_parse_offset_refuses_with_the_fix(text, message):
    with pytest.raises(ValueError, match=message):
        parse_offset(text, 40)


def test_ctrl_c_and_ctrl_shift_c_copy_the_selection(view, qtbot):
    actions = HexActions(view)
    notes = []
    actions.message.connect(notes.append)
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert notes[-1] == "select bytes in the Bytes panel to copy them"
    view.select_bytes(1, 3)
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.clipboard().text() == "42 00 ff"
    assert notes[-1] == "copied 3 bytes as hex"
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert QApplication.clipboard().text() == "b'B\\x00\\xff'"
    assert notes[-1] == "copied 3 bytes as a Python bytes literal"


def test_copy_refuses_more_than_the_limit(view, monkeypatch):
    actions = HexActions(view)
    notes = []
    actions.message.connect(notes.append)
    monkeypatch.setattr("inspector.bytes.hex_actions.COPY_LIMIT", 4)
    view.select_bytes(0, 9)
    QApplication.clipboard().setText("before")
    assert actions.copy("hex") is None
    assert notes[-1] == "10 bytes are selected: copy at most 4 at once"
    assert QApplication.clipboard().text() == "before"
    assert COPY_LIMIT == 1 << 20


def test_ctrl_g_goes_to_an_offset_and_selects_the_byte(view, qtbot, monkeypatch):
    actions = HexActions(view)
    clicked = []
    view.bytesSelected.connect(lambda index, offset: clicked.append((index, offset)))
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *args, **kwargs: ("0x21", True)))
    qtbot.keyClick(view, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    assert view.selection() == (33, 33)
    assert clicked == [(0, 33)]
    notes = []
    actions.message.connect(notes.append)
    assert not actions.go_to("99")
    assert notes == ["offset 99 is outside the file: its bytes are 0 to 39"]
    assert view.selection() == (33, 33)


def test_ctrl_shift_h_offers_the_selected_byte_as_header_offset(view, qtbot):
    actions = HexActions(view)
    chosen, notes = [], []
    actions.headerOffsetChosen.connect(chosen.append)
    actions.message.connect(notes.append)
    keys = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(view, Qt.Key.Key_H, keys)
    assert chosen == [] and notes == ["click a byte in the Bytes panel first: it becomes the header offset"]
    view.select_bytes(4, 7)
    qtbot.keyClick(view, Qt.Key.Key_H, keys)
    assert chosen == [4]
