"""Every interactive widget of the window has a stable ``area.control`` objectName listed in
docs/ui-names.md (the names are part of the app's interface for automation and accessibility)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QDockWidget,
    QHeaderView,
    QLineEdit,
    QMenuBar,
    QTabBar,
    QWidget,
)

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore
from inspector.widgets.hex_view import HexView

DOC = Path(__file__).resolve().parents[2] / "docs" / "ui-names.md"
INTERACTIVE = (QAbstractButton, QLineEdit, QComboBox, QAbstractSpinBox, QAbstractItemView, QAbstractSlider,
               QDockWidget, pg.GraphicsView, HexView)
NAME = re.compile(r"^[a-z][A-Za-z]*\.[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)?$")
#: Parts Qt builds inside its own widgets (list views of combo boxes, icon buttons of line edits...).
QT_PARTS = {"QComboBoxListView", "QLineEditIconButton", "QTableCornerButton", "QDockWidgetTitleButton"}
#: Containers whose children are Qt's own parts.
QT_CONTAINERS = (QComboBox, QAbstractSpinBox, QTabBar, QMenuBar)

# Every area is named (the issue-15 branches are merged): nothing is allowed to be unnamed.
KNOWN_OLD_NAMES: set[str] = set()
#: (panel class holding the widget, widget class) of still unnamed widgets.
KNOWN_UNNAMED: set[tuple[str, str]] = set()
_PANELS = {panel for panel, _ in KNOWN_UNNAMED}


def documented_names() -> list[re.Pattern]:
    """Every name in the first column of docs/ui-names.md's tables, as patterns (<N>, <field>)."""
    patterns = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| `"):
            continue
        for name in re.findall(r"`([^`]+)`", line.split("|")[1]):
            regex = re.escape(name).replace("<N>", r"\d+").replace("<field>", "[a-zA-Z]+")
            patterns.append(re.compile(f"^{regex}$"))
    return patterns


def is_qt_part(widget: QWidget, window: QWidget) -> bool:
    if widget.objectName().startswith("qt_") or widget.metaObject().className() in QT_PARTS:
        return True
    if isinstance(widget, QHeaderView):
        return True
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        if parent.objectName().startswith("qt_") or isinstance(parent, QT_CONTAINERS):
            return True
        parent = parent.parentWidget()
    return False


def holder(widget: QWidget) -> str:
    parent = widget.parentWidget()
    while parent is not None:
        if type(parent).__name__ in _PANELS:
            return type(parent).__name__
        parent = parent.parentWidget()
    return ""


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    w = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    path = tmp_path / "cube.bin"
    path.write_bytes(np.arange(24, dtype="<f4").tobytes())
    assert w.open_paths([str(path)], DecodeParams(dtype="float32", shape=(2, 3, 4)))
    w.show_shortcuts()
    return w


def interactive_widgets(window):
    return [w for w in window.findChildren(QWidget) if isinstance(w, INTERACTIVE) and not is_qt_part(w, window)]


def test_every_interactive_widget_has_a_documented_area_control_name(window):
    patterns = documented_names()
    problems = []
    for widget in interactive_widgets(window):
        name = widget.objectName()
        if name in KNOWN_OLD_NAMES or (not name and (holder(widget), type(widget).__name__) in KNOWN_UNNAMED):
            continue
        if not NAME.match(name):
            problems.append(f"{type(widget).__name__} in {holder(widget) or 'the window'}: name {name!r} is not area.control")
        elif not any(p.match(name) for p in patterns):
            problems.append(f"{name} is not listed in docs/ui-names.md")
    assert problems == []


def test_names_are_unique_and_the_walk_sees_this_branch_s_areas(window):
    names = [w.objectName() for w in interactive_widgets(window) if NAME.match(w.objectName())]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert {"table.view", "table.format", "table.decimals", "table.heatMap", "table.find", "table.findNext",
            "table.rowAxis", "table.columnAxis", "table.axis0Slider", "table.axis0Index", "hex.view",
            "dock.decode", "dock.slice", "dock.plot", "dock.hex", "dock.inspector", "dock.statistics",
            "help.shortcuts", "help.close"} <= set(names)


def test_every_documented_name_of_this_branch_exists(window):
    """The reverse check for the areas this branch owns: no stale entry in the doc."""
    found = {w.objectName() for w in window.findChildren(QWidget)}
    text = DOC.read_text(encoding="utf-8")
    for area in ("window", "dock", "table", "hex"):
        section = text.split(f"## {area}\n", 1)[1].split("\n## ", 1)[0]
        for line in section.splitlines():
            if line.startswith("| `"):
                for name in re.findall(r"`([^`]+)`", line.split("|")[1]):
                    name = name.replace("<N>", "0")
                    assert name in found, name
