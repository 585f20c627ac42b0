"""TablePanel driven as a user would: click cells, type in the go-to box, change the format,
press Ctrl+C; and through its API: set_array, select_element."""


import numpy as np
import pytest
from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QSpinBox,
    QToolButton,
)

from inspector.state.display_axes import DisplayAxes, normalize_index
from inspector.table.panel import TablePanel, parse_index
from inspector.widgets import palette


@pytest.fixture
def panel(qtbot):
    widget = TablePanel()
    qtbot.addWidget(widget)
    widget.resize(900, 500)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def child(panel, cls, name):
    return panel.findChild(cls, name)


def click_cell(qtbot, panel, row, col):
    view = panel.view
    index = panel.model.index(row, col)
    view.scrollTo(index)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                     pos=view.visualRect(index).center())


def go_to(qtbot, panel, text):
    edit = child(panel, QLineEdit, "table.goTo")
    edit.clear()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)


def selected_cells(panel):
    return sorted((i.row(), i.column()) for i in panel.view.selectionModel().selectedIndexes())


# ---------------------------------------------------------------------------- parse_index
@pytest.mark.parametrize(
    "text, shape, expected",
    [("1, 2, 3", (2, 3, 4), (1, 2, 3)), ("(1,2,3)", (2, 3, 4), (1, 2, 3)),
     ("[1 2 -1]", (2, 3, 4), (1, 2, 3)), ("7", (10,), (7,)), ("-1", (10,), (9,)),
     ("3_000_000_000", (2**32,), (3_000_000_000,)), ("", (), ()), ("()", (), ())],
)
def test_parse_index_accepts(text, shape, expected):
    assert parse_index(text, shape) == expected


@pytest.mark.parametrize(
    "text, shape, error, message",
    [("1, 2", (2, 3, 4), ValueError, r"expected 3 indices \(one per axis of shape \(2, 3, 4\)\), got 2"),
     ("1.5", (10,), ValueError, r"'1.5' is not an integer index"),
     ("10", (10,), IndexError, "index 10 is out of bounds for axis 0 with size 10"),
     ("0, -4", (2, 3), IndexError, "index -4 is out of bounds for axis 1 with size 3")],
)
def test_parse_index_rejects_with_numpy_messages(text, shape, error, message):
    with pytest.raises(error, match=message):
        parse_index(text, shape)
    if error is IndexError:  # same text as numpy's own
        with pytest.raises(IndexError, match=message):
            np.zeros(shape)[tuple(int(t) for t in text.split(","))]


def test_normalize_index():
    assert normalize_index((np.int64(1), -1), (3, 5)) == (1, 4)
    with pytest.raises(ValueError, match="expected 2 indices"):
        normalize_index((1,), (3, 5))


# ---------------------------------------------------------------------------- selection
def test_select_element_switches_plane_and_selects_without_emitting(panel, qtbot):
    a = np.arange(4 * 5 * 6, dtype="f4").reshape(4, 5, 6)
    panel.set_array(a)
    with qtbot.assertNotEmitted(panel.elementSelected):
        panel.select_element((3, 2, 1))
    assert panel.display_axes.indices[0] == 3
    assert panel.axes_bar.index_editors(0)[1].value() == 3
    current = panel.view.currentIndex()
    assert (current.row(), current.column()) == (2, 1)
    assert selected_cells(panel) == [(2, 1)]
    assert panel.model.data(current) == str(a[3, 2, 1])
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 4"):
        panel.select_element((4, 0, 0))


def test_user_click_emits_full_index(panel, qtbot):
    a = np.arange(3 * 4 * 5).reshape(3, 4, 5)
    panel.set_array(a)
    panel.display_axes.set_axes(2, 0)  # rows = axis 2, columns = axis 0
    panel.display_axes.set_index(1, 3)
    with qtbot.waitSignal(panel.elementSelected) as blocker:
        click_cell(qtbot, panel, 4, 2)
    assert blocker.args == [(2, 3, 4)]
    with qtbot.waitSignal(panel.elementSelected) as blocker:
        qtbot.keyClick(panel.view, Qt.Key.Key_Up)
    assert blocker.args == [(2, 3, 3)]


def test_echoed_select_element_keeps_selection_and_scroll(panel, qtbot):
    panel.set_array(np.arange(1000).reshape(200, 5))
    panel.elementSelected.connect(panel.select_element)  # as the main window's round trip
    click_cell(qtbot, panel, 0, 0)
    view, scroll_bar = panel.view, panel.view.verticalScrollBar()
    bottom = view.rowAt(view.viewport().height() - 5)  # last visible row: no re-centring
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                     Qt.KeyboardModifier.ShiftModifier,
                     view.visualRect(panel.model.index(bottom, 1)).center())
    assert scroll_bar.value() == 0
    assert len(selected_cells(panel)) == 2 * (bottom + 1)
    assert panel.copy_selection().splitlines()[:2] == ["0\t1", "5\t6"]


def test_zero_d_click_emits_empty_tuple(panel, qtbot):
    panel.set_array(np.array(4.5))
    with qtbot.waitSignal(panel.elementSelected) as blocker:
        panel.view.selectionModel().setCurrentIndex(
            panel.model.index(0, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect)
    assert blocker.args == [()]


def test_same_shape_keeps_selection_and_axes(panel, qtbot):
    a = np.arange(2 * 3 * 4).reshape(2, 3, 4)
    panel.set_array(a)
    panel.display_axes.set_axes(2, 0)
    click_cell(qtbot, panel, 3, 1)
    resets = []
    panel.model.modelReset.connect(lambda: resets.append(True))
    panel.set_array(a * 10)
    assert not resets and selected_cells(panel) == [(3, 1)]
    assert panel.model.data(panel.view.currentIndex()) == str(a[1, 0, 3] * 10)
    panel.set_array(np.zeros((5, 6, 7)))  # same ndim: axis choice kept
    assert (panel.display_axes.row_axis, panel.display_axes.col_axis) == (2, 0)
    assert (panel.model.rowCount(), panel.model.columnCount()) == (7, 5)


def test_shared_display_axes(qtbot):
    axes = DisplayAxes()
    panel = TablePanel(display_axes=axes)
    qtbot.addWidget(panel)
    panel.set_array(np.zeros((2, 3, 4)))
    assert panel.display_axes is axes and axes.shape == (2, 3, 4)
    axes.set_index(0, 1)
    assert panel.axes_bar.index_editors(0)[0].value() == 1


# ---------------------------------------------------------------------------- go-to box
def test_go_to_box_selects_and_reports_errors_inline(panel, qtbot):
    panel.set_array(np.arange(24).reshape(2, 3, 4))
    message = child(panel, QLabel, "table.message")
    go_to(qtbot, panel, "1, 2, 3")
    assert panel.display_axes.indices[0] == 1
    assert (panel.view.currentIndex().row(), panel.view.currentIndex().column()) == (2, 3)
    assert message.text() == ""
    go_to(qtbot, panel, "1, 2")
    assert message.text() == "expected 3 indices (one per axis of shape (2, 3, 4)), got 2"
    assert palette.ERROR in message.styleSheet()
    go_to(qtbot, panel, "0, 0, 9")  # numpy's words, told as describe_error tells an IndexError
    assert message.text() == ("index out of range: index 9 is out of bounds for axis 2 with size 4 "
                              "(use an index inside the shape)")
    assert QApplication.activeModalWidget() is None  # no dialog


def test_go_to_beyond_two_to_the_31_on_a_sparse_memmap(panel, qtbot, tmp_path):
    path = tmp_path / "sparse.bin"
    with open(path, "wb") as f:
        f.seek(3_000_000_001)
        f.write(b"\x07")
        f.truncate(2**32)
    mm = np.memmap(path, dtype=np.uint8, mode="r")
    panel.set_array(mm)
    model = panel.model
    assert model.rowCount() <= model.page_size[0]
    page_label = child(panel, QLabel, "table.pageLabel")
    assert page_label.text() == "rows 0\u2013999,999 of 4,294,967,296"
    go_to(qtbot, panel, "3000000000")
    current = panel.view.currentIndex()
    assert model.headerData(current.row(), Qt.Orientation.Vertical) == "3000000000"
    assert model.data(current) == "0"
    assert model.data(model.index(current.row() + 1, 0)) == "7"
    assert page_label.text() == "rows 3,000,000,000\u20133,000,999,999 of 4,294,967,296"
    with qtbot.waitSignal(panel.elementSelected) as blocker:
        qtbot.keyClick(panel.view, Qt.Key.Key_Down)
    assert blocker.args == [(3_000_000_001,)]
    up = child(panel, QToolButton, "table.pageUp")
    down = child(panel, QToolButton, "table.pageDown")
    assert up.isVisibleTo(panel) and not child(panel, QToolButton, "table.pageLeft").isVisibleTo(panel)
    qtbot.mouseClick(up, Qt.MouseButton.LeftButton)
    assert model.row_offset == 2_999_000_000
    assert model.headerData(0, Qt.Orientation.Vertical) == "2999000000"
    panel.select_element((2**32 - 1,))
    assert page_label.text() == "rows 4,294,000,000–4,294,967,295 of 4,294,967,296"
    assert not down.isEnabled() and up.isEnabled()


# ---------------------------------------------------------------------------- controls
def test_format_combo_and_decimals(panel, qtbot):
    panel.set_array(np.array([[1.5, -2.0]], dtype=">f4"))
    combo = child(panel, QComboBox, "table.format")
    decimals = child(panel, QSpinBox, "table.decimals")
    assert [combo.itemText(i) for i in range(combo.count())] == [
        "auto", "fixed", "scientific", "hex", "raw bits"]
    assert not decimals.isEnabled()
    combo.setCurrentText("fixed")
    decimals.setValue(2)
    assert decimals.isEnabled()
    assert panel.model.data(panel.model.index(0, 1)) == "-2.00"
    combo.setCurrentText("hex")
    assert not decimals.isEnabled()
    assert panel.model.data(panel.model.index(0, 0)) == "0x3fc00000"
    combo.setCurrentText("raw bits")  # wide text: columns widen to fit it
    text = panel.model.data(panel.model.index(0, 0))
    width = panel.view.fontMetrics().horizontalAdvance(text)
    assert panel.view.columnWidth(0) >= width


def test_heat_map_checkbox(panel, qtbot):
    panel.set_array(np.arange(6.0).reshape(2, 3))
    check = child(panel, QCheckBox, "table.heatMap")
    qtbot.mouseClick(check, Qt.MouseButton.LeftButton)
    assert panel.model.heat_map and panel.model.heat_levels == (0.0, 5.0)
    assert panel.model.data(panel.model.index(0, 0), Qt.ItemDataRole.BackgroundRole) is not None


# ---------------------------------------------------------------------------- clipboard
def test_ctrl_c_copies_bounding_box_as_tsv(panel, qtbot):
    a = np.array([[1.5, -2.0, np.nan, 4.0], [0.1, 1e-40, 3.0, 5.0], [7, 8, 9, 10]], dtype="f4")
    panel.set_array(a)
    model = panel.model
    selection = QItemSelection(model.index(0, 1), model.index(0, 2))
    selection.select(model.index(1, 1), model.index(1, 1))  # box = rows 0-1 x cols 1-2
    panel.view.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)
    QApplication.clipboard().clear()
    qtbot.keyClick(panel.view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.clipboard().text() == "-2.0\tnan\n1e-40\t3.0"
    assert child(panel, QLabel, "table.message").text() == "copied 4 cells"


def test_copy_refuses_too_many_cells(panel, qtbot, monkeypatch):
    panel.set_array(np.zeros((40, 30), dtype="i2"))
    monkeypatch.setattr(panel.model, "TSV_MAX_CELLS", 100)
    panel.view.selectAll()
    assert panel.copy_selection() is None
    message = child(panel, QLabel, "table.message")
    assert message.text() == (
        "selection has 1,200 cells; copying is limited to 100: select fewer rows or columns")


def test_render_three_d_panel(panel, qtbot, tmp_path):
    a = np.sin(np.linspace(0, 6, 3 * 8 * 6, dtype="f4")).reshape(3, 8, 6)
    a[0, 0, 1], a[0, 1, 0], a[0, 1, 1] = np.nan, -np.inf, -0.0
    panel.set_array(a)
    qtbot.mouseClick(child(panel, QCheckBox, "table.heatMap"), Qt.MouseButton.LeftButton)
    image = panel.grab()
    assert not image.isNull() and image.width() == 900
    assert image.save(str(tmp_path / "table_panel.png"))
