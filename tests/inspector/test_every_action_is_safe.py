"""Every action of every menu, fired once on a window with a file open, runs without an
exception and leaves a consistent window (inspector.widgets.actions: a command never receives
Qt's ``checked`` flag)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QFileDialog

from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore
from inspector.widgets.actions import command_action
from resources import DEFAULT_SAMPLE, resource_path, sample_settings


def _menu_actions(menu):
    for action in menu.actions():
        if action.menu() is not None:
            yield from _menu_actions(action.menu())
        elif not action.isSeparator():
            yield action


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    # every file dialog is answered "Cancel", as a user who changes their mind
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: ("", "")))
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(lambda *a, **k: ([], "")))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: ("", "")))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: ""))
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    path = tmp_path / "data.bin"
    path.write_bytes(np.arange(24, dtype="<f4").tobytes())
    assert window.open_paths([str(path)])
    window.document.update_params(dtype="float32")
    window.show()
    return window


def test_the_sample_menu_entry_opens_the_sample_everywhere(window, qtbot):
    window.menus.sample_action.trigger()
    sample = str(resource_path(DEFAULT_SAMPLE))
    assert window.document.error is None
    assert [p.endswith(sample.rsplit("/", 1)[-1]) for p in window.document.paths] == [True]
    preset = sample_settings()[DEFAULT_SAMPLE]
    assert window.document.params.dtype == preset["dtype"]
    assert window.document.result.view.shape == tuple(preset["shape"])
    assert window.table_panel.model.rowCount() == window.document.result.view.shape[-2]


def test_every_menu_action_runs_once_without_an_exception(window, qtbot):
    quit_action = None
    fired = []
    for top in window.menuBar().actions():
        for action in _menu_actions(top.menu()):
            if action.text() == "&Quit":
                quit_action = action
                continue
            if not action.isEnabled():
                continue
            action.trigger()
            qtbot.wait(1)
            for widget in QApplication.topLevelWidgets():  # non-modal dialogs the action opened
                if widget is not window and widget.isVisible() and widget.isWindow():
                    widget.close()
            fired.append(action.text())
            error = window.document.error
            assert error is None or "unexpected" not in error.message.lower(), (action.text(), error.message)
    assert len(fired) >= 25 and "Open the embedded &sample" in fired
    assert quit_action is not None
    quit_action.trigger()  # closeEvent saves the settings: no exception there either
    assert not window.isVisible()


def test_a_command_with_an_optional_parameter_is_called_without_checked(qtbot):
    received = []

    def open_something(params=None):
        received.append(params)

    parent = QAction("parent")
    action = command_action("Open", parent, open_something)
    action.setCheckable(True)
    action.trigger()  # Qt emits triggered(True) for a checkable action
    assert received == [None]
