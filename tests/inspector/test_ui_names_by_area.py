"""The widget names listed in docs/ui-names.md exist in the window, on widgets of the kind the
page says (issue 15: stable names for automation, accessibility and tests).

Only the areas listed in ``AREAS`` are checked here; each area's table is parsed from the page,
so a renamed widget or a stale row fails this test.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QWidget

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

PAGE = Path(__file__).resolve().parents[2] / "docs" / "ui-names.md"
AREAS = ("dock", "plot", "stats", "hex", "inspector", "tensors", "bookmarks", "session", "status", "model",
         "modelCompare")
_ROW = re.compile(r"^\| `([^`]+)` \| (\w+) \| (.+) \|$")


def documented_names(area: str) -> list[tuple[str, str]]:
    """``(name, widget kind)`` of every row of the page's table for ``area``."""
    rows, in_area = [], False
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            in_area = line[3:].strip() == area
        elif in_area and (match := _ROW.match(line)):
            rows.append((match.group(1), match.group(2)))
    return rows


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    path = tmp_path / "data.bin"
    np.arange(2 * 3 * 4, dtype=np.float32).tofile(path)
    w = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    w.show()
    assert w.open_paths([str(path)], DecodeParams(dtype="float32", shape=(2, 3, 4)))
    # The complex-signal plot pages are built when first used (start-up time): build them.
    assert w.plot_panel.iq_plot is not None and w.plot_panel.constellation_plot is not None
    return w


@pytest.mark.parametrize("area", AREAS)
def test_every_documented_name_is_on_a_widget_of_its_kind(window, area):
    rows = documented_names(area)
    assert len(rows) >= 1
    for name, kind in rows:
        assert name.startswith(f"{area}."), name
        found = window.findChildren(QWidget, name)
        assert len(found) == 1, (name, found)
        assert kind in [cls.__name__ for cls in type(found[0]).__mro__], (name, kind, type(found[0]))


@pytest.mark.parametrize("area", AREAS)
def test_every_named_widget_of_the_area_is_documented(window, area):
    documented = {name for name, _kind in documented_names(area)}
    named = {w.objectName() for w in window.findChildren(QWidget) if w.objectName().startswith(f"{area}.")}
    assert named == documented


def test_the_documented_counts():
    # Hand-counted from docs/ui-names.md: a row lost or added on purpose changes this too.
    assert {area: len(documented_names(area)) for area in AREAS} == {
        "dock": 16, "plot": 17, "stats": 21, "hex": 1, "inspector": 3, "tensors": 5, "bookmarks": 10, "session": 4, "status": 5,
        "model": 10, "modelCompare": 10}
