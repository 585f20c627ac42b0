"""HexView: row text, highlight and scrolling, clicks, huge sparse files, and reading only
through its reader (never opening or mapping a file itself)."""

from __future__ import annotations

import builtins
import os
import resource

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QAbstractSlider, QApplication

from core.files.sources import open_source
from inspector.widgets.hex_view import BYTES_PER_ROW, HexView

LEFT = Qt.MouseButton.LeftButton


@pytest.fixture
def view(qtbot):
    w = HexView()
    qtbot.addWidget(w)
    w.resize(760, 300)
    w.show()
    qtbot.waitExposed(w)
    return w


@pytest.fixture
def forty(tmp_path):
    path = tmp_path / "forty.bin"
    path.write_bytes(bytes(range(40)))
    return str(path)


def test_rows_show_offset_hex_and_ascii(view, forty):
    view.set_reader(open_source([forty]))
    assert view.row_count() == 3
    assert view.row_text(0) == (
        "00000000  00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f  ................"
    )
    assert view.row_text(2) == "00000020  20 21 22 23 24 25 26 27  " + " " * 23 + "   !\"#$%&'"
    with pytest.raises(IndexError):
        view.row_text(3)
    assert view.message() == ""


def test_ascii_column_and_offset_width_adapt(view, tmp_path):
    path = tmp_path / "text.bin"
    path.write_bytes(b"Hello, \x7fworld\x00!\xff" + bytes(16))
    view.set_reader(open_source([str(path)]))
    assert view.row_text(0).endswith("  Hello, .world.!.")
    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        f.truncate(2**32 + 1)  # last offset 0x100000000: 9 hex digits
    view.set_reader(open_source([str(big)]))
    assert view.row_text(0).startswith("000000000  00 00")


def test_empty_file_and_no_reader_show_an_empty_view(view, tmp_path, forty):
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    view.set_reader(open_source([forty, str(empty)]))
    view.set_file_index(1)
    assert view.row_count() == 0 and view.message() == "empty.bin is empty (0 bytes)"
    view.grab()  # paints without raising
    view.set_reader(None, "forty.bin changed on disk; the view was cleared until you reload")
    assert view.file_index() == -1 and view.row_count() == 0
    assert view.message() == "forty.bin changed on disk; the view was cleared until you reload"
    view.grab()
    with pytest.raises(IndexError):
        view.set_file_index(0)


def test_a_closed_source_shows_why_instead_of_raising(view, forty):
    source = open_source([forty])
    view.set_reader(source)
    source.close()
    assert view.row_text(0).startswith("00000000  " + " " * 10)  # nothing read
    assert view.message() == "cannot read the file: the files were closed (open them again)"


def test_highlight_scrolls_and_marks(view, tmp_path):
    path = tmp_path / "ramp.bin"
    path.write_bytes(bytes(i % 256 for i in range(64 * 1024)))
    view.set_reader(open_source([str(path)]))
    assert view.first_visible_row() == 0
    view.highlight(0, 0x1234, 4)
    assert view.highlighted() == (0, 0x1234, 4)
    assert view.first_visible_row() == 0x123
    assert view.verticalScrollBar().value() == 0x123
    assert view.byte_rect(0x1234) is not None and view.byte_rect(0) is None
    # Marked pixels: the highlighted byte's cell is painted in the highlight colour.
    image = view.viewport().grab().toImage()
    rect = view.byte_rect(0x1235)
    assert image.pixelColor(rect.left() + 1, rect.top() + 1).name() == "#ffd666"
    # A visible target does not scroll; near the end the view clamps to the last page.
    view.highlight(0, 0x1240, 1)
    assert view.first_visible_row() == 0x123
    view.highlight(0, 64 * 1024 - 1, 1)
    assert view.first_visible_row() == 4096 - view.visible_row_count()
    view.clear_highlight()
    assert view.highlighted() is None


def test_highlight_switches_file(view, forty, tmp_path):
    other = tmp_path / "other.bin"
    other.write_bytes(b"\xff" * 100)
    view.set_reader(open_source([forty, str(other)]))
    view.highlight(1, 90, 2)
    assert view.file_index() == 1 and view.highlighted() == (1, 90, 2)
    assert view.row_text(5).startswith("00000050  ff ff")
    with pytest.raises(IndexError):
        view.highlight(2, 0, 1)


def test_click_emits_file_index_and_offset(view, qtbot, forty, tmp_path):
    other = tmp_path / "other.bin"
    other.write_bytes(bytes(100))
    view.set_reader(open_source([str(other), forty]))
    view.set_file_index(1)
    with qtbot.waitSignal(view.bytesSelected) as blocker:
        qtbot.mouseClick(view.viewport(), LEFT, pos=view.byte_rect(0x13).center())
    assert blocker.args == [1, 0x13]
    assert view.selection() == (0x13, 0x13)
    with qtbot.waitSignal(view.bytesSelected) as blocker:
        qtbot.mouseClick(view.viewport(), LEFT, pos=view.ascii_rect(0x21).center())
    assert blocker.args == [1, 0x21]
    # The header row and the offset column are not bytes.
    assert view.offset_at(QPoint(2, 2)) is None
    assert view.offset_at(QPoint(5, view.byte_rect(0).center().y())) is None


def test_drag_selects_a_range_and_emits_its_first_byte(view, qtbot, forty):
    view.set_reader(open_source([forty]))
    start, end = view.byte_rect(0x1A).center(), view.byte_rect(0x05).center()
    with qtbot.waitSignal(view.bytesSelected) as blocker:
        qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
        qtbot.mouseMove(view.viewport(), pos=end)
        # pytest-qt's mouseMove carries no button state; send a real drag event.
        move = QMouseEvent(
            QMouseEvent.Type.MouseMove, QPointF(end), QPointF(view.viewport().mapToGlobal(end)),
            Qt.MouseButton.NoButton, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
        )
        QApplication.sendEvent(view.viewport(), move)
        qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=end)
    assert blocker.args == [0, 0x05]
    assert view.selection() == (0x05, 0x1A)


def test_one_tebibyte_sparse_file_scrolls_to_the_end_without_reading_it(view, tmp_path):
    path = tmp_path / "huge.bin"
    with open(path, "wb") as f:
        f.truncate(2**40)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    view.set_reader(open_source([str(path)]))
    assert view.row_count() == 2**36
    bar = view.verticalScrollBar()
    assert bar.maximum() < 2**31  # scaled: one scrollbar unit covers many rows
    bar.setValue(bar.maximum())
    last = view.first_visible_row() + view.visible_row_count() - 1
    assert last == 2**36 - 1
    zeros = " ".join(["00"] * 8)
    assert view.row_text(last) == f"fffffffff0  {zeros}  {zeros}  " + "." * 16
    assert view.byte_rect(0xFFFFFFFFF0) is not None
    # Arrow and page steps still move by one row / one page although a unit is ~64 rows.
    bar.triggerAction(QAbstractSlider.SliderAction.SliderSingleStepSub)
    assert view.first_visible_row() == 2**36 - view.visible_row_count() - 1
    bar.triggerAction(QAbstractSlider.SliderAction.SliderPageStepSub)
    assert view.first_visible_row() == 2**36 - 2 * view.visible_row_count()
    view.highlight(0, 2**39 + 3, 8)
    assert view.first_visible_row() == 2**39 // BYTES_PER_ROW
    view.grab()
    # Only the visible pages were touched (ru_maxrss is in KiB on Linux).
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before < 64 * 1024


def test_a_file_truncated_under_the_reader_reads_zeros_instead_of_crashing(view, tmp_path):
    path = tmp_path / "shrinks.bin"
    path.write_bytes(bytes(range(256)) * 64)  # 16 KiB: several pages
    source = open_source([str(path)])
    view.set_reader(source)
    view.highlight(0, 16 * 1024 - 16, 16)  # the last row is on screen
    view.grab()
    with open(path, "r+b") as f:
        f.truncate(40)
    view.grab()  # would SIGBUS without the engine's shrink guard (core/files/shrink_guard.py)
    # The view keeps the file as opened (the table's version); past the new end it reads zeros.
    assert view.row_count() == 1024 and view.file_size() == 16 * 1024
    assert view.row_text(1023) == "00003ff0  " + " ".join(["00"] * 8) + "  " + \
        " ".join(["00"] * 8) + "  " + "." * 16
    assert view.row_text(2).startswith("00000020  20 21 22 23 24 25 26 27  ")


def test_the_view_never_opens_or_maps_a_file(view, forty, monkeypatch):
    import mmap

    source = open_source([forty])

    def refuse(*args, **kwargs):
        raise AssertionError(f"the hex view opened or mapped a file: {args}")

    for module, name in ((os, "open"), (os, "stat"), (mmap, "mmap"), (builtins, "open")):
        monkeypatch.setattr(module, name, refuse)
    view.set_reader(source)
    view.highlight(0, 20, 4)
    view.grab()
    assert view.row_text(1).startswith("00000010  10 11 12 13")


def test_wheel_and_keys_scroll(view, qtbot, tmp_path):
    path = tmp_path / "ramp.bin"
    path.write_bytes(bytes(16 * 1000))
    view.set_reader(open_source([str(path)]))
    qtbot.keyClick(view, Qt.Key.Key_Down)
    assert view.first_visible_row() == 1
    qtbot.keyClick(view, Qt.Key.Key_End)
    assert view.first_visible_row() == 1000 - view.visible_row_count()
    qtbot.keyClick(view, Qt.Key.Key_Home)
    assert view.first_visible_row() == 0
    qtbot.keyClick(view, Qt.Key.Key_PageDown)
    assert view.first_visible_row() == view.visible_row_count() - 1


def test_a_file_replaced_on_disk_still_shows_the_opened_bytes(view, tmp_path, forty):
    view.set_reader(open_source([forty]))
    replacement = tmp_path / "new.bin"
    replacement.write_bytes(b"\xaa" * 40)  # same size, different file
    os.replace(replacement, forty)
    view.grab()
    assert view.message() == ""  # the document's file monitor reports it, not the view
    assert view.row_text(0).startswith("00000000  00 01 02 03")  # the same bytes as the table


def test_mouse_wheel_scrolls_three_rows_a_notch(view, tmp_path):
    path = tmp_path / "zeros.bin"
    path.write_bytes(bytes(16 * 1000))
    view.set_reader(open_source([str(path)]))
    centre = QPointF(view.viewport().rect().center())

    def wheel(dy):
        event = QWheelEvent(
            centre, QPointF(view.viewport().mapToGlobal(centre.toPoint())), QPoint(0, 0),
            QPoint(0, dy), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
            Qt.ScrollPhase.NoScrollPhase, False,
        )
        QApplication.sendEvent(view.viewport(), event)

    wheel(-120)
    assert view.first_visible_row() == 3
    wheel(-60)  # half a notch: 1 row now, the remaining half row kept for the next event
    wheel(-60)
    assert view.first_visible_row() == 6
    wheel(240)
    assert view.first_visible_row() == 0
