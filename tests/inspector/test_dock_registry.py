"""The table of docks (inspector/docks.py) drives the window: a dock added to a copy of the table
gets its View menu entries, its focus key and its place in the reset layout without any other
change; the table's checks, its layout version, and docs/ui-names.md's dock rows."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QDockWidget, QLineEdit, QVBoxLayout, QWidget

from core.pipeline.pipeline import DecodeParams
from inspector.docks import DEFAULT_DOCKS, DockSpec, Shown, check_docks, focus_keys, layout_version
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

PAGE = Path(__file__).resolve().parents[2] / "docs" / "ui-names.md"
RIGHT, BOTTOM, LEFT = Qt.DockWidgetArea.RightDockWidgetArea, Qt.DockWidgetArea.BottomDockWidgetArea, \
    Qt.DockWidgetArea.LeftDockWidgetArea


class Notes(QWidget):
    """A dummy panel: one text field."""

    def __init__(self, document) -> None:
        super().__init__()
        self.document = document
        self.text = QLineEdit(self, objectName="notes.text")
        QVBoxLayout(self).addWidget(self.text)


NOTES = DockSpec("notes", "Notes", RIGHT, lambda c: Notes(c.document), focus_text="&Notes", focus_key="Alt+0",
                 tab_with="plot")
#: A dock of its own at the bottom, shown only while B is open, with no focus key.
B_NOTES = DockSpec("bNotes", "B notes", BOTTOM, lambda c: Notes(c.document), shown=Shown.WITH_COMPARISON)


@pytest.fixture
def settings(tmp_path):
    return SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "data.bin"
    np.arange(24, dtype="<f4").tofile(path)
    return str(path)


def make_window(qtbot, settings, docks=DEFAULT_DOCKS):
    configure_pyqtgraph()
    window = MainWindow(settings, docks=docks)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)  # activation is asynchronous
    return window


def tab_texts(window, dock):
    return sorted(d.windowTitle() for d in [dock, *window.tabifiedDockWidgets(dock)])


# ---------------------------------------------------------------------------- a dock added in a test
def test_a_dock_added_to_the_table_has_its_menu_entries_focus_key_and_place(qtbot, settings, data_file):
    window = make_window(qtbot, settings, (*DEFAULT_DOCKS, NOTES))
    assert window.open_paths([data_file], DecodeParams(dtype="float32", shape=(4, 6)))
    dock = window.findChild(QDockWidget, "dock.notes")
    assert dock is window.docks["notes"] and dock.windowTitle() == "Notes"
    notes = dock.widget()
    assert isinstance(notes, Notes) and notes.document is window.document  # built by its factory
    # View menu: a Go to entry with its key after the last one's (Model's, before Ctrl+L), and a
    # toggle after the last dock's (Compare models').
    actions = window.menus.view_menu.actions()
    texts = [a.text() for a in actions]
    go_to = actions[texts.index("Go to &Notes")]
    assert go_to.shortcut().toString() == "Alt+0"
    assert texts.index("Go to &Notes") == texts.index("Go to &Model") + 1
    assert actions.index(dock.toggleViewAction()) == actions.index(window.docks["modelCompare"].toggleViewAction()) + 1
    # Its key shows it and focuses its field, from the table.
    dock.hide()
    window.table_panel.view.setFocus()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_0, Qt.KeyboardModifier.AltModifier)
    assert dock.isVisible()
    assert QApplication.focusWidget() is notes.text
    # The first-run layout tabbed it beside the Plot, the Plot in front.
    qtbot.waitUntil(lambda: tab_texts(window, window.docks["plot"]) == ["Notes", "Plot", "Statistics"])
    # Reset layout: back in its area and group, visible, after being floated and hidden.
    dock.setFloating(True)
    dock.hide()
    window.menus.reset_layout_action.trigger()
    assert dock.isVisible() and not dock.isFloating()
    assert window.dockWidgetArea(dock) == RIGHT
    assert tab_texts(window, dock) == ["Notes", "Plot", "Statistics"]
    assert not window.docks["plot"].visibleRegion().isEmpty()  # the group's first dock in front
    assert dock.visibleRegion().isEmpty()
    # Help > Keyboard shortcuts lists its key (read from the actions).
    assert ("Alt+0", "Go to Notes") in window.show_shortcuts().rows()


def test_a_dock_shown_while_b_is_open_follows_the_comparison_and_the_reset(qtbot, settings, data_file, tmp_path):
    window = make_window(qtbot, settings, (*DEFAULT_DOCKS, B_NOTES))
    assert window.open_paths([data_file], DecodeParams(dtype="float32", shape=(4, 6)))
    dock = window.docks["bNotes"]
    assert dock.isHidden()
    assert "bNotes" not in [name for name, _text, _key in focus_keys(window.dock_layout.specs)]
    b = tmp_path / "b.bin"
    np.zeros(24, "<f4").tofile(b)
    window.comparison.open_b([str(b)])
    qtbot.waitUntil(dock.isVisible)
    assert window.dockWidgetArea(dock) == BOTTOM and window.tabifiedDockWidgets(dock) == []
    window.menus.reset_layout_action.trigger()
    assert dock.isVisible() and window.dockWidgetArea(dock) == BOTTOM
    window.comparison.close_b()
    assert dock.isHidden()
    window.menus.reset_layout_action.trigger()  # no B: stays hidden
    assert dock.isHidden() and not window.docks["hex"].isHidden()


def test_a_layout_saved_with_other_docks_is_not_restored(qtbot, settings, data_file):
    first = make_window(qtbot, settings)
    first.close()  # saves the layout of the default docks (version 2)
    same = MainWindow(settings)
    qtbot.addWidget(same)
    assert not same.dock_layout.needs_default_layout  # the same docks: restored
    more = MainWindow(settings, docks=(*DEFAULT_DOCKS, NOTES))
    qtbot.addWidget(more)
    assert more.dock_layout.needs_default_layout  # another set of docks: the first-run layout


# ---------------------------------------------------------------------------- the table
def test_the_default_table_is_consistent_and_keys_are_alt_1_to_9():
    check_docks(DEFAULT_DOCKS)
    assert focus_keys(DEFAULT_DOCKS) == (
        ("table", "&Table", "Alt+1"), ("decode", "&Decode panel", "Alt+2"), ("slice", "&Slice panel", "Alt+3"),
        ("plot", "&Plot", "Alt+4"), ("hex", "&Bytes", "Alt+5"), ("inspector", "Data &inspector", "Alt+6"),
        ("statistics", "S&tatistics", "Alt+7"), ("bookmarks", "Boo&kmarks", "Alt+8"), ("model", "&Model", "Alt+9"))
    assert [(d.name, d.tab_with) for d in DEFAULT_DOCKS if d.tab_with] == [
        ("statistics", "plot"), ("compare", "slice"), ("comparePlot", "plot"), ("bookmarks", "inspector"),
        ("model", "hex"), ("modelCompare", "hex")]
    assert {d.name: d.shown for d in DEFAULT_DOCKS if d.shown is not Shown.ALWAYS} == {
        "tensors": Shown.WITH_CONTAINER, "compare": Shown.WITH_COMPARISON, "comparePlot": Shown.WITH_COMPARISON,
        "model": Shown.WITH_MODEL, "modelCompare": Shown.WITH_MODEL_COMPARISON}


@pytest.mark.parametrize("docks, message", [
    ((*DEFAULT_DOCKS, dataclasses.replace(NOTES, name="plot")), "two docks are named 'plot'"),
    ((*DEFAULT_DOCKS, dataclasses.replace(NOTES, name="table")), "two docks are named 'table'"),
    ((*DEFAULT_DOCKS, dataclasses.replace(NOTES, focus_key="Alt+8")), "docks 'bookmarks' and 'notes' both use Alt+8"),
    ((*DEFAULT_DOCKS, dataclasses.replace(NOTES, focus_key="Alt+9")), "docks 'model' and 'notes' both use Alt+9"),
    ((*DEFAULT_DOCKS, dataclasses.replace(NOTES, focus_key="Alt+1")), "docks 'table' and 'notes' both use Alt+1"),
    ((*DEFAULT_DOCKS, dataclasses.replace(NOTES, focus_text=None)), "give both a focus key and its menu text"),
    ((*DEFAULT_DOCKS, dataclasses.replace(NOTES, tab_with="nowhere")), "tabbed with 'nowhere', which is not listed"),
    ((*DEFAULT_DOCKS, dataclasses.replace(NOTES, tab_with="hex")), "tabbed with 'hex', which is in another area"),
    ((NOTES, *DEFAULT_DOCKS), "tabbed with 'plot', which is not listed before it"),
])
def test_an_inconsistent_table_is_refused(docks, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        check_docks(docks)


def test_the_layout_version_follows_the_set_of_dock_names():
    old = tuple(d for d in DEFAULT_DOCKS if d.name not in ("model", "modelCompare"))
    assert layout_version(old) == 2  # the docks of the layouts saved before the table restore
    assert layout_version(tuple(reversed(old))) == 2  # the order is not the set
    assert layout_version(DEFAULT_DOCKS) > 1000  # with the Model docks: not restored from before
    with_notes = layout_version((*DEFAULT_DOCKS, NOTES))
    assert with_notes > 1000 and with_notes == layout_version((*DEFAULT_DOCKS, dataclasses.replace(NOTES, title="N")))
    assert layout_version((*DEFAULT_DOCKS, B_NOTES)) not in (2, with_notes)
    assert layout_version(old[:-1]) not in (0, 1, 2)  # without Bookmarks: not the old version 1


# ---------------------------------------------------------------------------- docs/ui-names.md
def dock_rows() -> dict[str, tuple[str, str]]:
    """``name: (widget kind, what it does)`` of the page's dock table."""
    section = PAGE.read_text(encoding="utf-8").split("## dock\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        match = re.match(r"^\| `([^`]+)` \| (\w+) \| (.+) \|$", line)
        if match:
            rows[match.group(1)] = (match.group(2), match.group(3))
    return rows


def test_the_page_lists_every_dock_of_the_table_with_its_key_group_and_when_shown():
    rows = dock_rows()
    expected = {f"dock.{d.name}" for d in DEFAULT_DOCKS} | {f"dock.{d.name}.scroll" for d in DEFAULT_DOCKS if d.scroll}
    assert set(rows) == expected
    titles = {d.name: d.title for d in DEFAULT_DOCKS}
    for dock in DEFAULT_DOCKS:
        kind, text = rows[f"dock.{dock.name}"]
        assert kind == "QDockWidget"
        assert dock.title.lower() in text.lower(), dock.name
        if dock.focus_key is not None:
            assert dock.focus_key in text, dock.name
        if dock.shown is not Shown.ALWAYS:
            assert dock.shown.value in text, dock.name
        if dock.tab_with is not None:
            assert f"a tab beside the {titles[dock.tab_with]}".lower() in text.lower(), dock.name
        if dock.scroll:
            assert rows[f"dock.{dock.name}.scroll"][0] == "QScrollArea"
