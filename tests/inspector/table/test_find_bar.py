"""The table's find bar driven from the keyboard: type a query, Enter / Shift+Enter, Escape."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QLineEdit, QSpinBox

from inspector.table.panel import TablePanel


@pytest.fixture
def panel(qtbot):
    widget = TablePanel()
    qtbot.addWidget(widget)
    values = np.arange(12, dtype=np.float32).reshape(3, 4)
    values[1, 2] = np.nan
    values[2, 1] = np.inf
    widget.set_array(values)
    widget.resize(800, 400)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def search(qtbot, panel, key=Qt.Key.Key_Return, modifier=Qt.KeyboardModifier.NoModifier):
    edit = panel.findChild(QLineEdit, "table.find")
    with qtbot.waitSignal(panel.find_bar.searchFinished, timeout=5000) as blocker:
        qtbot.keyClick(edit, key, modifier)
    return blocker.args[0]


def current_cell(panel):
    index = panel.view.currentIndex()
    return index.row(), index.column()


def test_find_bar_is_hidden_until_opened_and_escape_returns_to_the_table(panel, qtbot):
    bar = panel.find_bar
    assert not bar.isVisible()
    bar.open()
    edit = panel.findChild(QLineEdit, "table.find")
    assert bar.isVisible() and edit.hasFocus()
    qtbot.keyClick(edit, Qt.Key.Key_Escape)
    assert not bar.isVisible()
    assert panel.view.hasFocus()


def test_enter_finds_the_next_match_and_selects_it(panel, qtbot):
    panel.find_bar.open()
    qtbot.keyClicks(panel.findChild(QLineEdit, "table.find"), "nan")
    assert search(qtbot, panel) == (1, 2)
    assert current_cell(panel) == (1, 2)
    message = panel.findChild(QLabel, "table.findMessage")
    assert message.text() == "NaN at [1, 2]"


def test_threshold_search_walks_forward_wraps_and_goes_back_with_shift(panel, qtbot):
    panel.find_bar.open()
    qtbot.keyClicks(panel.findChild(QLineEdit, "table.find"), "> 8")
    # row 2 is 8, inf, 10, 11; NaN at [1, 2] never compares
    assert search(qtbot, panel) == (2, 1)
    assert search(qtbot, panel) == (2, 2)
    assert search(qtbot, panel) == (2, 3)
    assert search(qtbot, panel) == (2, 1)  # wrapped
    assert panel.find_bar.message() == "> 8 at [2, 1] (wrapped around)"
    assert search(qtbot, panel, modifier=Qt.KeyboardModifier.ShiftModifier) == (2, 3)
    assert current_cell(panel) == (2, 3)


def test_no_match_and_bad_query_are_reported_in_the_bar(panel, qtbot):
    edit = panel.findChild(QLineEdit, "table.find")
    panel.find_bar.open()
    qtbot.keyClicks(edit, "99")
    assert search(qtbot, panel) is None
    assert panel.find_bar.message() == "no element equals 99"
    edit.clear()
    qtbot.keyClicks(edit, "abc")
    assert search(qtbot, panel) is None
    assert panel.find_bar.message().startswith("cannot search for 'abc': type a number")


def test_tab_leaves_the_table_instead_of_walking_its_cells(panel, qtbot):
    view = panel.view
    view.setFocus()
    view.setCurrentIndex(panel.model.index(0, 0))
    qtbot.keyClick(view, Qt.Key.Key_Tab)
    assert not view.hasFocus()
    assert current_cell(panel) == (0, 0)
    qtbot.keyClick(panel.focusWidget(), Qt.Key.Key_Backtab)
    assert view.hasFocus()


def test_restored_view_options_reach_the_controls_and_stale_values_are_ignored(panel):
    options = panel.view_options
    options.restore(options.value.with_valid({"table_format": "scientific", "table_decimals": 3, "heat_map": True}))
    assert (panel.findChild(QComboBox, "table.format").currentText(),
            panel.findChild(QSpinBox, "table.decimals").value(),
            panel.findChild(QCheckBox, "table.heatMap").isChecked()) == ("scientific", 3, True)
    assert panel.model.number_format == ("scientific", 3)
    assert panel.model.data(panel.model.index(0, 1)) == "1.000e+00"
    options.restore(options.value.with_valid({"table_format": "no such format", "table_decimals": 99,
                                              "heat_map": None}))
    value = options.value
    assert (value.table_format, value.table_decimals, value.heat_map) == ("scientific", 3, True)


def test_a_match_in_a_view_replaced_during_the_search_is_dropped(panel, qtbot):
    panel.find_bar.open()
    qtbot.keyClicks(panel.findChild(QLineEdit, "table.find"), "nan")
    panel.view.setCurrentIndex(panel.model.index(0, 0))
    with qtbot.waitSignal(panel.find_bar.searchFinished, timeout=5000) as blocker:
        panel.find_bar.find()
        panel.set_array(np.zeros((3, 4), np.float32))  # before the worker's answer arrives
    assert blocker.args == [None]
    assert panel.find_bar.message() == "the view changed during the search: search again (F3)"
    assert current_cell(panel) == (0, 0)
