"""Compare in the window, driven as a user would: open A, compare with B, read the dock, the
table, the plot and the hex view's neighbour (B's bytes) back.

A and B are ten float32 values that differ in three places (hand-checked):

====  ===  =====  =========================================
 i     A    B      |A - B| (float32)
====  ===  =====  =========================================
 2     2    2.5    0.5
 5     5    5.001  0.00099992752 (5.001 is 5.00099992752 in float32)
 7     7    9      2
====  ===  =====  =========================================

float32 defaults (rtol 1.3e-6, atol 1e-5) reject all three: 3 / 10 (30%).
"""

from __future__ import annotations

import errno
import subprocess
import sys

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QPushButton, QTableWidget

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

A = np.arange(10, dtype=np.float32)
B = A.copy()
B[2], B[5], B[7] = 2.5, 5.001, 9.0


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    w = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    return w


@pytest.fixture
def files(tmp_path):
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    A.tofile(a)
    B.tofile(b)
    return str(a), str(b)


def compared(window, qtbot, files, shape=None):
    """Open A, compare it with B, wait for the result."""
    assert window.open_paths([files[0]], DecodeParams(dtype="float32", shape=shape))
    assert window.comparison.open_b([files[1]])
    qtbot.waitUntil(lambda: window.comparison.result is not None)
    return window.comparison.result


def label(window, name: str) -> str:
    return window.findChild(QLabel, name).text()


def _visible_tab_bars(window) -> list[list[str]]:
    from PySide6.QtWidgets import QTabBar

    return sorted([bar.tabText(i) for i in range(bar.count())]
                  for bar in window.findChildren(QTabBar) if bar.isVisible() and bar.count() > 1)


def test_the_compare_tabs_appear_with_b_only_and_no_stale_tab_bar_remains(window, qtbot, files):
    # A dock tabbed then hidden before the window is shown left Qt a stale "Slice | Compare"
    # tab bar painted over the Slice dock, with no B open.
    window.resize(1400, 860)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: len(_visible_tab_bars(window)) == 2)  # the default layout tabs Bookmarks
    assert _visible_tab_bars(window) == [["Data inspector", "Bookmarks"], ["Plot", "Statistics"]]
    compared(window, qtbot, files)
    qtbot.waitUntil(lambda: len(_visible_tab_bars(window)) == 3)
    assert _visible_tab_bars(window) == [["Data inspector", "Bookmarks"], ["Plot", "Statistics", "Compare plot"],
                                         ["Slice", "Compare"]]
    window.menus.reset_layout_action.trigger()  # keeps the compare docks while B is open
    qtbot.waitUntil(lambda: len(_visible_tab_bars(window)) == 3)
    assert _visible_tab_bars(window) == [["Data inspector", "Bookmarks"], ["Plot", "Statistics", "Compare plot"],
                                         ["Slice", "Compare"]]
    window.comparison.close_b()
    window.menus.reset_layout_action.trigger()  # no B: no Compare docks, no Tensors dock
    qtbot.waitUntil(lambda: len(_visible_tab_bars(window)) == 2)
    assert _visible_tab_bars(window) == [["Data inspector", "Bookmarks"], ["Plot", "Statistics"]]
    assert window.docks["compare"].isHidden() and window.docks["tensors"].isHidden()


def test_summary_in_numpys_words_and_the_docks_appear(window, qtbot, files):
    result = compared(window, qtbot, files)
    assert result.mismatched == 3
    assert label(window, "compare.summary") == "Mismatched elements: 3 / 10 (30%)"
    assert "rtol=1.3e-06, atol=1e-05 (float32 defaults)" in label(window, "compare.rule")
    assert "Max absolute difference: 2 at A[7]" in label(window, "compare.figures")
    assert not window.docks["compare"].isHidden() and not window.docks["comparePlot"].isHidden()


def test_mismatch_list_by_error_then_by_index(window, qtbot, files):
    compared(window, qtbot, files)
    table = window.findChild(QTableWidget, "compare.mismatches")
    column = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert column == ["[7]", "[2]", "[5]"]  # largest error first
    assert [table.item(r, 3).text() for r in range(3)] == ["2", "0.5", "0.000999928"]
    sort = window.findChild(QComboBox, "compare.sortBy")
    sort.setCurrentIndex(sort.findData("index"))
    assert [table.item(r, 0).text() for r in range(table.rowCount())] == ["[2]", "[5]", "[7]"]


def test_next_and_previous_select_the_element_in_the_document(window, qtbot, files):
    compared(window, qtbot, files)
    # The window's keys (an offscreen window never becomes active, so the actions are triggered).
    assert window.next_mismatch_action.shortcut().toString() == "F8"
    assert window.previous_mismatch_action.shortcut().toString() == "Shift+F8"
    assert window.next_mismatch_action.shortcutContext() == Qt.ShortcutContext.WindowShortcut
    window.next_mismatch_action.trigger()
    assert window.document.selection == (7,)
    window.findChild(QPushButton, "compare.next").click()
    assert window.document.selection == (2,)
    window.findChild(QPushButton, "compare.previous").click()
    assert window.document.selection == (7,)
    window.previous_mismatch_action.trigger()  # wraps around to the last entry
    assert window.document.selection == (5,)
    # The hex view shows A's bytes; the dock shows where B's value lies in B's file.
    window.compare_panel.visit(0)
    assert label(window, "compare.bBytes") == "A[7] = 7.0, B[7] = 9.0, bytes 28–31 (0x1c–0x1f) of b.bin"
    assert window.hex_view.highlighted() == (0, 28, 4)  # A's element 7: bytes 28-31 of a.bin


def test_both_byte_ranges_are_highlighted_a_in_the_bytes_dock_b_in_the_compare_dock(window, qtbot, tmp_path):
    from inspector.widgets.hex_view import HexView

    a, b = tmp_path / "a.bin", tmp_path / "b_with_header.bin"
    A.tofile(a)
    b.write_bytes(b"HEADER!!" + B.tobytes())  # B's values start at byte 8
    assert window.open_paths([str(a)], DecodeParams(dtype="float32"))
    hex_b = window.findChild(HexView, "compare.hexB")
    assert hex_b is not None and not hex_b.isVisibleTo(window)  # no B yet
    assert window.comparison.open_b([str(b)], {"offset": 8})
    qtbot.waitUntil(lambda: window.comparison.result is not None)
    assert window.comparison.result.mismatched == 3
    assert hex_b.isVisibleTo(window) and hex_b.file_size() == 48
    window.compare_panel.visit(0)  # the worst mismatch: element 7
    assert window.hex_view.highlighted() == (0, 28, 4)  # A: bytes 28-31 of a.bin
    assert hex_b.highlighted() == (0, 36, 4)  # B: 8 header bytes + 7 * 4
    assert window.comparison.b_bytes.bytes_at(0, 36, 4) == np.float32(9.0).tobytes()
    assert label(window, "compare.bBytes") == "A[7] = 7.0, B[7] = 9.0, bytes 36–39 (0x24–0x27) of b_with_header.bin"
    window.comparison.close_b()
    assert not hex_b.isVisibleTo(window) and hex_b.highlighted() is None


def test_table_shows_the_difference_of_the_visible_cells(window, qtbot, files):
    compared(window, qtbot, files)
    model = window.table_panel.model
    assert window.comparison.quantity == "abs"  # the default: |A - B|
    values = [model.data(model.index(r, 0), model.ValueRole) for r in range(10)]
    np.testing.assert_allclose(values, [0, 0, 0.5, 0, 0, 0.00099992752, 0, 2, 0, 0], rtol=1e-7)
    assert model.data(model.index(7, 0)) == "2.0"
    # float32 differences keep float32's digits (float64's would be 0.0009999275207519531)
    assert model.data(model.index(5, 0)) == "0.0009999275"
    # Diverging colours: a < b is blue (DIFF_BELOW side), equal cells have none.
    assert model.data(model.index(0, 0), Qt.ItemDataRole.BackgroundRole) is None
    colour = model.data(model.index(7, 0), Qt.ItemDataRole.BackgroundRole)
    assert colour.blue() > colour.red()
    assert model.value_source.tiles_read() == 1  # one tile of 10 elements, read with pread
    show = window.findChild(QComboBox, "compare.show")
    show.setCurrentIndex(show.findData("b"))
    assert model.data(model.index(7, 0), model.ValueRole) == 9.0
    show.setCurrentIndex(show.findData("ulp"))
    assert model.data(model.index(2, 0), model.ValueRole) == 2**21  # 2 to 2.5: 0.5 / 2**-22 (the float32 spacing in [2, 4))
    window.comparison.close_b()
    assert model.value_source is None and model.data(model.index(7, 0), model.ValueRole) == 7.0


def test_changing_the_slice_compares_again(window, qtbot, files):
    compared(window, qtbot, files)
    window.document.set_slice_text("5:")
    qtbot.waitUntil(lambda: window.comparison.result is not None)
    assert label(window, "compare.summary") == "Mismatched elements: 2 / 5 (40%)"
    assert [m.index_a for m in window.comparison.result.first] == [(0,), (2,)]


def test_a_tolerance_changes_the_count(window, qtbot, files):
    compared(window, qtbot, files)
    atol = window.findChild(QLineEdit, "compare.atol")
    atol.setText("0.6")
    atol.editingFinished.emit()
    qtbot.waitUntil(lambda: window.comparison.result is not None)
    assert label(window, "compare.summary") == "Mismatched elements: 1 / 10 (10%)"
    atol.setText("lots")
    atol.editingFinished.emit()
    assert label(window, "compare.error") == "atol: 'lots' is not a number (for example 1e-5; empty: the default)"


def test_b_decode_override_skips_a_header(window, qtbot, files, tmp_path):
    headed = tmp_path / "b_with_header.bin"
    headed.write_bytes(b"HDR!" + B.tobytes())
    assert window.open_paths([files[0]], DecodeParams(dtype="float32"))
    assert window.comparison.open_b([str(headed)])
    qtbot.waitUntil(lambda: window.comparison.error is not None or window.comparison.result is not None)
    assert window.comparison.error is not None  # 44 bytes: 11 values against 10
    offset = window.findChild(QLineEdit, "compare.bOffset")
    offset.setText("4")
    offset.editingFinished.emit()
    qtbot.waitUntil(lambda: window.comparison.result is not None)
    assert label(window, "compare.summary") == "Mismatched elements: 3 / 10 (30%)"
    assert window.comparison.effective_b_params.offset == 4 and window.document.params.offset is None


def test_b_that_does_not_decode_gives_a_message(window, qtbot, files, tmp_path):
    odd = tmp_path / "odd.bin"
    odd.write_bytes(b"1234567")  # 7 bytes: not whole float32 values
    assert window.open_paths([files[0]], DecodeParams(dtype="float32"))
    assert window.comparison.open_b([str(odd)])
    error = label(window, "compare.error")
    assert error.startswith("B: ") and "7" in error
    assert window.comparison.result is None
    assert not window.comparison.open_b([str(tmp_path / "missing.bin")])
    assert label(window, "compare.error").startswith("B: ") and "missing.bin" in label(window, "compare.error")


def test_a_file_that_changes_during_the_comparison_is_reported(window, qtbot, files):
    compared(window, qtbot, files)
    with open(files[1], "ab") as f:
        f.write(b"\0" * 4)  # B grows after it was opened
    window.comparison.update_settings(atol=0.1)  # compares again, checking the files first
    qtbot.waitUntil(lambda: window.comparison.error is not None)
    assert "changed on disk" in label(window, "compare.error")
    assert window.comparison.result is None


def test_plot_overlays_a_and_b_with_the_difference_below(window, qtbot, files):
    compared(window, qtbot, files)
    plot = window.compare_plot
    assert plot.mode == "line"
    np.testing.assert_array_equal(plot.curve_a.getData()[1], A)
    np.testing.assert_array_equal(plot.curve_b.getData()[1], B)
    assert plot.curve_difference.getData()[1][7] == -2.0


def test_a_plot_that_cannot_read_says_what_describe_error_says(window, qtbot, files, monkeypatch):
    compared(window, qtbot, files)
    plot = window.compare_plot

    def unreadable(key):
        raise OSError(errno.EIO, "Input/output error", files[1])

    monkeypatch.setattr(window.comparison, "window", unreadable)
    plot.redraw()
    assert plot.mode == "empty"
    assert plot.findChild(QLabel, "compare.plotMessage").text() == (
        f"cannot read the values: input/output error reading '{files[1]}' (the disk or network share "
        "may be failing; copy the file elsewhere)")


def test_plot_shows_the_absolute_difference_as_an_image_in_2d(window, qtbot, files):
    compared(window, qtbot, files, shape=(2, 5))
    plot = window.compare_plot
    assert plot.mode == "image"
    image = plot.image_item.image
    assert image.shape == (2, 5)
    assert image[1, 2] == 2.0 and image[0, 2] == 0.5 and image[0, 0] == 0.0


def test_copy_comparison_as_numpy_code_reproduces_the_summary(window, qtbot, files):
    compared(window, qtbot, files)
    code = window.compare_panel.copy_code()
    assert "np.isclose" in code
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "Mismatched elements: 3 / 10 (30%)"


def test_copy_without_b_says_why_and_copies_nothing(window, files):
    assert window.open_paths([files[0]], DecodeParams(dtype="float32"))
    notes = []
    window.compare_panel.message.connect(notes.append)
    assert window.compare_panel.copy_code() is None
    assert notes == ["Cannot copy the comparison as code: nothing is compared: open B first (File > Compare with…)"]
    window.next_mismatch_action.trigger()
    assert notes[-1] == "Nothing is compared"
    assert window.document.selection == (0,)


def test_a_failing_copy_says_what_describe_error_says(window, qtbot, files, monkeypatch):
    compared(window, qtbot, files)

    def refused():
        raise PermissionError(errno.EACCES, "Permission denied", files[1])

    monkeypatch.setattr(window.comparison, "snippet", refused)
    notes = []
    window.compare_panel.message.connect(notes.append)
    assert window.compare_panel.copy_code() is None
    assert notes == [f"Cannot copy the comparison as code: permission denied reading '{files[1]}' "
                     "(make the file readable, e.g. chmod a+r)"]


def test_b_changing_on_disk_while_shown_clears_the_comparison(window, qtbot, files):
    compared(window, qtbot, files)
    with open(files[1], "r+b") as f:
        f.truncate(20)  # B shrinks to 5 values: its view cannot be shown any more
    qtbot.waitUntil(lambda: window.comparison.error is not None, timeout=5000)  # B's file monitor
    assert label(window, "compare.error").startswith("B: ") and "changed on disk" in label(window, "compare.error")
    assert window.comparison.result is None
    model = window.table_panel.model
    assert model.value_source is None  # the table no longer shows differences
    assert window.compare_plot.mode == "empty"


def test_b_byte_order_override(window, qtbot, files, tmp_path):
    big = tmp_path / "b_big.bin"
    B.astype(">f4").tofile(big)
    assert window.open_paths([files[0]], DecodeParams(dtype="float32"))
    assert window.comparison.open_b([str(big)])
    qtbot.waitUntil(lambda: window.comparison.result is not None)
    assert window.comparison.result.mismatched == 9  # read little-endian, only 0.0 reads the same
    order = window.findChild(QComboBox, "compare.bByteOrder")
    order.setCurrentIndex(order.findData(False))  # big-endian
    qtbot.waitUntil(lambda: window.comparison.result is not None)
    assert label(window, "compare.summary") == "Mismatched elements: 3 / 10 (30%)"
    assert window.comparison.b_overrides == {"little_endian": False}
    assert window.document.params.little_endian is None  # A keeps its own settings


def test_a_shift_aligns_misaligned_bytes_and_suggest_finds_it(window, qtbot, tmp_path):
    """B is A behind a 3-value header: the shapes (200,) and (203,) cannot be compared element by
    element; shift 3 (found by Suggest) compares A[k] with B[k + 3] and everything matches."""
    from PySide6.QtWidgets import QSpinBox

    values = np.sin(np.arange(200, dtype=np.float32) / 7)
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    values.tofile(a)
    np.concatenate([np.float32([9, 9, 9]), values]).tofile(b)
    assert window.open_paths([str(a)], DecodeParams(dtype="float32"))
    assert window.comparison.open_b([str(b)])
    error = window.findChild(QLabel, "compare.error")
    qtbot.waitUntil(lambda: "--shift" in error.text() or "shift" in error.text())
    assert window.comparison.result is None
    shift = window.findChild(QSpinBox, "compare.shift")
    window.findChild(QPushButton, "compare.suggestShift").click()
    assert shift.value() == 3
    qtbot.waitUntil(lambda: window.comparison.result is not None and window.comparison.result.shift == 3)
    result = window.comparison.result
    assert (result.mismatched, result.compared) == (0, 200)
    assert label(window, "compare.summary").startswith("Mismatched elements: 0 / 200")


def test_compare_option_at_start_opens_b_and_selects_the_worst_mismatch(window, qtbot, files):
    from inspector.app import _compare_at_start, build_parser

    assert build_parser().parse_args([files[0], "--compare", files[1]]).compare == [files[1]]
    assert window.open_paths([files[0]], DecodeParams(dtype="float32"))
    _compare_at_start(window, [files[1]])
    qtbot.waitUntil(lambda: window.comparison.result is not None)
    assert window.comparison.paths == (files[1],)
    assert window.document.selection == (7,)  # |7 - 9| = 2, the largest difference
    assert window.hex_view.highlighted() == (0, 28, 4)
    assert window.compare_panel.hex_b.highlighted() == (0, 28, 4)
