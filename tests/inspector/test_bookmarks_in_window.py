"""Bookmarks in the window: the dock (found by objectName), Ctrl+D, choosing, and the marks in the
hex view, the table and the plot (read from the models and items, not from pixels)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QComboBox, QDockWidget, QLineEdit, QPushButton, QTableView

from core.pipeline.pipeline import DecodeParams
from core.session.bookmark import Bookmark
from inspector.bytes.marks import MARK_ALPHA
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore
from inspector.table.model import ArrayTableModel

GRID = DecodeParams(dtype="float32", shape=(4, 6))  # element k is the float k, at bytes 4k..4k+3


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    path = tmp_path / "grid.bin"
    np.arange(24, dtype=np.float32).tofile(path)
    w = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    assert w.open_paths([str(path)], GRID)
    return w


def find(window, kind, name):
    widget = window.findChild(kind, name)
    assert widget is not None, name
    return widget


def marked_cells(window) -> dict[tuple[int, ...], str]:
    model = window.table_panel.model
    cells = {}
    for row in range(model.rowCount()):
        for col in range(model.columnCount()):
            colour = model.data(model.index(row, col), ArrayTableModel.BookmarkRole)
            if colour is not None:
                cells[model.element_index(model.index(row, col))] = colour.name()
    return cells


def test_ctrl_d_bookmarks_the_selection_and_choosing_it_restores_the_view(window, qtbot):
    window.document.select((2, 3))
    window.table_panel.view.setFocus()
    qtbot.keyClick(window.table_panel.view, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    items = window.document.bookmarks.items
    assert [(b.name, b.kind, b.index, b.params) for b in items] == [("element [2, 3]", "element", (2, 3), GRID)]
    listing = find(window, QTableView, "bookmarks.list")
    assert listing.model().index(0, 2).data() == "[2, 3]"
    window.document.set_slice_text("[1:, ::2]")
    window.document.update_params(dtype="int32")
    listing.setCurrentIndex(listing.model().index(0, 0))
    find(window, QPushButton, "bookmarks.addRegion").click()
    assert window.document.bookmarks.items[1].slice_text == "[1:, ::2]"
    listing.setCurrentIndex(listing.model().index(0, 0))
    listing.doubleClicked.emit(listing.model().index(0, 0))
    assert window.document.params == GRID and window.document.slice_text == ""
    assert window.document.selection == (2, 3)
    assert window.table_panel.model.data(window.table_panel.view.currentIndex()) == "15.0"
    window.menus.undo_action.trigger()
    assert window.document.params.dtype == "int32" and window.document.slice_text == "[1:, ::2]"
    window.menus.redo_action.trigger()
    assert window.document.selection == (2, 3) and window.document.params == GRID


def test_name_note_and_colour_fields_edit_the_current_bookmark_undoably(window, qtbot):
    window.document.select((0, 1))
    find(window, QPushButton, "bookmarks.addElement").click()
    name = find(window, QLineEdit, "bookmarks.name")
    name.selectAll()
    qtbot.keyClicks(name, "peak")
    qtbot.keyClick(name, Qt.Key.Key_Return)
    qtbot.keyClicks(find(window, QLineEdit, "bookmarks.note"), "look here")
    colour = find(window, QComboBox, "bookmarks.colour")
    colour.activated.emit(2)
    bookmark = window.document.bookmarks.items[0]
    assert (bookmark.name, bookmark.note, bookmark.colour) == ("peak", "look here", colour.itemData(2))
    window.document.undo()  # the colour
    window.document.undo()  # the note, typed in one go
    assert window.document.bookmarks.items[0].note == "" and name.text() == "peak"
    window.document.undo()  # the name, typed in one go
    assert name.text() == "element [0, 1]"


def test_delete_removes_the_current_bookmark(window, qtbot):
    window.document.select((0, 1))
    find(window, QPushButton, "bookmarks.addElement").click()
    find(window, QPushButton, "bookmarks.addRegion").click()
    listing = find(window, QTableView, "bookmarks.list")
    window.docks["bookmarks"].raise_()
    listing.setFocus()
    listing.setCurrentIndex(listing.model().index(0, 0))
    qtbot.keyClick(listing, Qt.Key.Key_Delete)
    assert window.document.bookmarks.names() == ("region [all]",)


def test_the_filter_keeps_matching_bookmarks(window):
    window.document.select((0, 1))
    find(window, QPushButton, "bookmarks.addElement").click()
    find(window, QPushButton, "bookmarks.addRegion").click()
    find(window, QLineEdit, "bookmarks.filter").setText("REGION")
    listing = find(window, QTableView, "bookmarks.list")
    assert listing.model().rowCount() == 1 and listing.model().index(0, 0).data() == "region [all]"


def test_hex_view_colours_a_byte_range_bookmark_and_choosing_selects_it(window):
    hex_view = window.hex_view
    hex_view.select_bytes(8, 13)
    added = find(window, QPushButton, "bookmarks.addBytes")
    added.click()
    bookmark = window.document.bookmarks.items[0]
    assert (bookmark.kind, bookmark.byte_range, bookmark.name) == ("bytes", (8, 6), "bytes 0x8..0xd")
    expected = QColor(bookmark.colour)
    expected.setAlpha(MARK_ALPHA)
    window.document.select((0, 0))  # the highlight moves away: only the mark colours bytes 8..13
    assert [hex_view.mark_colour(o) for o in range(7, 15)] == [None] + [expected] * 6 + [None]
    window.document.update_params(dtype="int8", shape=None)  # bytes are bytes: still marked
    assert hex_view.mark_colour(8) == expected
    hex_view.select_bytes(0, 0)
    assert window.document.bookmarks.choose("bytes 0x8..0xd")
    assert hex_view.selection() == (8, 13)
    assert window.document.selection == (0, 2)  # element 2 holds bytes 8..11


def test_hex_view_colours_the_bytes_of_element_and_region_bookmarks(window):
    document = window.document
    document.bookmarks.add(Bookmark("e", "element", params=GRID, index=(0, 1), colour="#ff0000"))
    document.bookmarks.add(Bookmark("r", "region", params=GRID, slice_text="[1, 0:2]", colour="#00ff00"))
    red, green = QColor("#ff0000"), QColor("#00ff00")
    red.setAlpha(MARK_ALPHA)
    green.setAlpha(MARK_ALPHA)
    assert [window.hex_view.mark_colour(o) for o in (3, 4, 7, 8)] == [None, red, red, None]
    # Elements 6 and 7 (row 1, columns 0 and 1) are bytes 24..31.
    assert [window.hex_view.mark_colour(o) for o in (23, 24, 31, 32)] == [None, green, green, None]


def test_table_marks_exactly_the_bookmarked_cell(window):
    document = window.document
    document.bookmarks.add(Bookmark("e", "element", params=GRID, index=(2, 3), colour="#ff0000"))
    assert marked_cells(window) == {(2, 3): "#ff0000"}
    document.set_slice_text("[2]")  # a plain view: the element is (3,) of it
    assert marked_cells(window) == {(3,): "#ff0000"}
    document.set_slice_text("[1]")
    assert marked_cells(window) == {}
    document.set_slice_text("")
    document.bookmarks.add(Bookmark("r", "region", params=GRID, slice_text="[0:2, 4:]", colour="#00ff00"))
    assert marked_cells(window) == {(2, 3): "#ff0000", (0, 4): "#00ff00", (0, 5): "#00ff00",
                                    (1, 4): "#00ff00", (1, 5): "#00ff00"}
    document.update_params(dtype="int32")  # other params: their indices mean other elements
    assert marked_cells(window) == {}


def test_plot_has_a_marker_at_the_elements_x_and_a_region(window, qtbot):
    document = window.document
    document.set_slice_text("[1]")  # a line: 6, 7, ... 11
    document.bookmarks.add(Bookmark("e", "element", params=GRID, index=(1, 4), colour="#ff0000"))
    document.bookmarks.add(Bookmark("r", "region", params=GRID, slice_text="[:, 1:3]", colour="#00ff00"))
    marks = window.plot_bookmarks
    qtbot.waitUntil(lambda: len(marks.line_markers.data) == 1)
    assert window.plot_panel.mode == "line"
    assert (marks.line_markers.data["x"][0], marks.line_markers.data["y"][0]) == (4.0, 10.0)
    assert [r.getRegion() for r in marks.line_regions] == [(0.5, 2.5)]
    document.set_slice_text("")  # the image of the 4 x 6 grid
    qtbot.waitUntil(lambda: window.plot_panel.mode == "image" and len(marks.image_markers.data) == 1)
    assert (marks.image_markers.data["x"][0], marks.image_markers.data["y"][0]) == (4.5, 1.5)
    assert [r.rect().getRect() for r in marks.image_regions] == [(1.0, 0.0, 2.0, 4.0)]
    assert len(marks.line_markers.data) == 0


def test_the_dock_is_in_the_view_menu_and_alt_8_focuses_it(window, qtbot):
    dock = find(window, QDockWidget, "dock.bookmarks")
    assert dock.toggleViewAction() in window.menus.view_menu.actions()
    window.focus_panel("bookmarks")
    assert dock.isVisible() and dock.isAncestorOf(window.focusWidget())


def test_opening_other_files_clears_the_list(window, tmp_path):
    window.document.select((0, 1))
    find(window, QPushButton, "bookmarks.addElement").click()
    other = tmp_path / "other.bin"
    other.write_bytes(bytes(96))
    assert window.open_paths([str(other)], GRID)
    assert window.document.bookmarks.items == ()
    assert find(window, QTableView, "bookmarks.list").model().rowCount() == 0


def test_the_bookmarks_tab_shows_once_and_no_stray_tab_bar_is_left(window, qtbot):
    from PySide6.QtWidgets import QTabBar

    window.resize(1280, 800)
    window.dock_layout.apply_default_layout()
    assert window.docks["bookmarks"] in window.tabifiedDockWidgets(window.docks["inspector"])

    def shown():
        return sorted(tuple(bar.tabText(i) for i in range(bar.count())) for bar in window.findChildren(QTabBar)
                      if bar.isVisible() and window.rect().contains(bar.geometry()))

    qtbot.waitUntil(lambda: len(shown()) == 2)
    assert shown() == [("Data inspector", "Bookmarks"), ("Plot", "Statistics")]


def test_a_taken_name_shows_its_suffix_when_typing_ends_and_undo_shows_at_once(window, qtbot):
    add = find(window, QPushButton, "bookmarks.addElement")
    window.document.select((0, 1))
    add.click()
    window.document.select((0, 2))
    add.click()  # the current row: "element [0, 2]"
    name = find(window, QLineEdit, "bookmarks.name")
    name.selectAll()
    qtbot.keyClicks(name, "element [0, 1]")
    assert name.text() == "element [0, 1]"  # the field keeps what is typed
    assert window.document.bookmarks.names() == ("element [0, 1]", "element [0, 1] (2)")
    qtbot.keyClick(name, Qt.Key.Key_Return)
    assert name.text() == "element [0, 1] (2)"
    window.document.undo()  # the whole typing session
    assert name.text() == "element [0, 2]"
