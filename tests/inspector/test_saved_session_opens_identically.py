"""A session saved before the display options moved into the state layer opens identically.

``saved_sessions/view_session/`` was written by File > Save Session with the code of commit
0724924 (``saved_sessions/make_view_session.py`` says how); this test opens it in today's window
and checks everything it shows: files and slice, the plane (axes and fixed indices), the plot
mode and line, the table's format, decimals and heat map, the selection, the bookmarks and the
comparison.
"""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QFrame, QSpinBox

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

SAVED = os.path.join(os.path.dirname(__file__), "saved_sessions", "view_session")
CUBE = (np.arange(120, dtype=np.float32) - 60) / 8  # what make_view_session.py writes as A


@pytest.fixture
def session(tmp_path) -> str:
    """The committed folder copied, its files given the times the session recorded (a checkout
    gives them new ones, which the session would flag as changed)."""
    folder = tmp_path / "view_session"
    shutil.copytree(SAVED, folder)
    path = folder / "view.session.json"
    data = json.loads(path.read_text())
    for record in (*data["files"], *data["comparison"]["files"]):
        os.utime(folder / record["path"], ns=(record["mtime_ns"], record["mtime_ns"]))
    return str(path)


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    w = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    w.show()
    return w


def test_the_committed_session_names_its_files_relatively():
    with open(os.path.join(SAVED, "view.session.json"), encoding="utf-8") as file:
        data = json.load(file)
    assert [f["path"] for f in data["files"]] == ["cube.bin"]
    assert [f["path"] for f in data["comparison"]["files"]] == ["golden.bin"]
    np.testing.assert_array_equal(np.fromfile(os.path.join(SAVED, "cube.bin"), np.float32), CUBE)


def test_a_session_saved_before_this_change_opens_identically(qtbot, window, session):
    folder = os.path.dirname(session)
    assert window.session_actions.open_session(session)
    assert window.findChild(QFrame, "session.banner").isHidden()  # nothing changed, nothing missing
    document = window.document
    assert document.paths == (os.path.join(folder, "cube.bin"),)
    assert document.params == DecodeParams(dtype="float32", shape=(2, 3, 4, 5))
    assert document.slice_text == "[:, :, 1:]" and document.result.view.shape == (2, 3, 3, 5)
    view = CUBE.reshape(2, 3, 4, 5)[:, :, 1:]

    axes = document.display_axes
    assert (axes.row_axis, axes.col_axis, axes.indices) == (3, 1, (1, 0, 2, 0))
    assert window.findChild(QComboBox, "plot.mode").currentText() == "line along axis 2"
    assert (window.plot_panel.mode, window.plot_panel.line_axis) == ("line", 2)
    np.testing.assert_array_equal(window.plot_panel.curve.getData()[1], view[1, 2, :, 3])

    options = document.view_options.value  # the display choices are the document's
    assert (options.plot_line_axis, options.table_format, options.table_decimals, options.heat_map) == \
        (2, "scientific", 3, True)
    assert window.findChild(QComboBox, "table.format").currentText() == "scientific"
    decimals = window.findChild(QSpinBox, "table.decimals")
    assert (decimals.value(), decimals.isEnabled()) == (3, True)
    assert window.findChild(QCheckBox, "table.heatMap").isChecked()
    model = window.table_panel.model
    assert model.heat_map and model.number_format == ("scientific", 3)
    assert document.selection == (1, 2, 2, 3)
    current = window.table_panel.view.currentIndex()
    assert model.element_index(current) == (1, 2, 2, 3)
    assert model.data(current, Qt.ItemDataRole.ToolTipRole).startswith("[1, 2, 2, 3] = ")
    qtbot.waitUntil(lambda: model.value_source is not None)  # the comparison finished
    assert model.data(current) == "0.000e+00"  # the table shows |A - B|: B is A there
    assert model.headerData(0, Qt.Orientation.Horizontal) == "0"  # columns along axis 1
    assert model.rowCount() == 5 and model.columnCount() == 3  # rows along axis 3

    assert document.bookmarks.names() == ("element [1, 2, 2, 3]", "second channel", "first row")
    element, region, head = document.bookmarks.items
    assert (element.index, element.slice_text) == ((1, 2, 2, 3), "[:, :, 1:]")
    assert (region.kind, region.slice_text, region.note) == ("region", "[:, 1]", "all of channel 1")
    assert (head.kind, head.byte_range, head.colour) == ("bytes", (0, 20), "#2f9e44")
    assert not window.docks["bookmarks"].isHidden()

    comparison = window.comparison
    assert comparison.paths == (os.path.join(folder, "golden.bin"),) and comparison.quantity == "abs"
    settings = comparison.settings
    assert (settings.rtol, settings.atol, settings.nan_policy, settings.shift) == (None, 0.3, "mismatch", 0)


def test_saving_it_again_writes_the_same_file(window, session):
    """Same keys, same values: a session saved now opens in the code that wrote the old one."""
    assert window.session_actions.open_session(session)
    again = os.path.join(os.path.dirname(session), "again.session.json")
    assert window.session_actions.save(again)
    with open(session, encoding="utf-8") as old, open(again, encoding="utf-8") as new:
        assert new.read() == old.read()
