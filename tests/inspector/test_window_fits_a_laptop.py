"""Issue 15, item 11: with a file open and every dock visible the window fits 1024 x 640, and a
long file name elides instead of widening the window (it used to need 1305 x 907, and more than
2,300 px with a long name)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QLabel

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

# The longest name a Linux file system takes is 255 bytes: 250 characters and ".bin".
LONG_NAME = ("a_very_long_recording_name_" * 10)[:250] + ".bin"
DOCKS = ("decode", "slice", "plot", "hex", "inspector", "statistics", "bookmarks")


@pytest.fixture
def settings(tmp_path):
    return SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))


def open_window(qtbot, settings, paths, size=(1280, 800)):
    configure_pyqtgraph()
    window = MainWindow(settings)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    assert window.open_paths([str(p) for p in paths], DecodeParams(dtype="float32", shape=(3, 40, 64)))
    return window


@pytest.fixture
def long_named_file(tmp_path):
    path = tmp_path / LONG_NAME
    np.arange(3 * 40 * 64, dtype=np.float32).tofile(path)
    return path


def test_a_long_name_with_every_dock_visible_fits_1024_by_640(qtbot, settings, long_named_file, tmp_path):
    other = tmp_path / ("b" * 200 + ".bin")
    other.write_bytes(long_named_file.read_bytes())
    window = open_window(qtbot, settings, [long_named_file, other])
    window.document.select((2, 39, 63))  # the status bar names the file of the selection too
    assert all(window.docks[name].isVisible() for name in DOCKS)
    hint = window.minimumSizeHint()
    assert hint.width() <= 1024 and hint.height() <= 640, hint
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == (1024, 640))
    assert window.minimumSize().width() <= 1024 and window.minimumSize().height() <= 640
    # Every dock is still on screen, inside the window, with room to show something.
    for name in DOCKS:
        dock = window.docks[name]
        if not dock.visibleRegion().isEmpty():
            assert dock.geometry().right() < 1024 and dock.geometry().bottom() < 640, name
            assert dock.width() >= 60 and dock.height() >= 60, (name, dock.size())


def test_the_status_bar_elides_the_name_in_the_middle(qtbot, settings, long_named_file):
    window = open_window(qtbot, settings, [long_named_file], size=(1024, 640))
    window.document.select((0, 0, 1))
    label = window.statusBar().file_label
    assert label.text() == f"{LONG_NAME} (30.0 KiB)"  # the whole text, for tests and copying
    # Laid out: the label has the 40 characters it asks for, which cannot hold the name.
    qtbot.waitUntil(lambda: label.width() >= label.sizeHint().width())
    assert label.is_elided()
    shown = label.shown_text()
    assert "…" in shown
    head, tail = shown.split("…")
    assert LONG_NAME.startswith(head) and len(head) >= 10
    assert tail.endswith(".bin (30.0 KiB)")  # title-bar fashion: the end stays readable
    assert label.width() <= 1024 // 2
    selection = window.statusBar().selection_label
    assert selection.text().startswith("[0, 0, 1] = 1.0   bytes 4..7 (0x4) of a_very_long")
    assert selection.shown_text().startswith("[0, 0, 1] = 1.0   bytes 4..7 (0x4) of ")


def test_a_small_first_window_puts_decode_and_slice_in_tabs(qtbot, settings, long_named_file):
    window = open_window(qtbot, settings, [long_named_file], size=(1024, 640))
    window.dock_layout.apply_default_layout()
    assert window.docks["slice"] in window.tabifiedDockWidgets(window.docks["decode"])
    window.resize(1366, 900)
    qtbot.waitUntil(lambda: window.height() == 900)
    window.dock_layout.apply_default_layout()  # what a reset does on a bigger screen: one above the other
    assert window.tabifiedDockWidgets(window.docks["decode"]) == []
    decode, slice_dock = window.docks["decode"], window.docks["slice"]
    qtbot.waitUntil(lambda: decode.geometry().bottom() < slice_dock.geometry().top())
    assert decode.geometry().left() == slice_dock.geometry().left()
    assert decode.isVisible() and slice_dock.isVisible()


def test_a_layout_saved_before_the_bookmarks_dock_is_not_restored(qtbot, settings, long_named_file):
    window = open_window(qtbot, settings, [long_named_file])
    old_state = window.saveState(1)  # version 1: saved before the Bookmarks dock existed
    window.close()
    settings.set_window_state(window.saveGeometry(), old_state)
    again = MainWindow(settings)
    qtbot.addWidget(again)
    assert again.dock_layout.needs_default_layout  # the first-run layout tabs Bookmarks beside the inspector


def test_a_layout_saved_under_the_old_dock_names_is_not_restored(qtbot, settings, long_named_file):
    window = open_window(qtbot, settings, [long_named_file])
    for dock in window.docks.values():
        dock.setObjectName(dock.objectName().replace(".", "_"))  # as before issue 15
    old_state = window.saveState()  # version 0, as saved before issue 15
    window.close()  # saves the current layout (version 1)...
    settings.set_window_state(window.saveGeometry(), old_state)  # ...replaced by an old one
    again = MainWindow(settings)
    qtbot.addWidget(again)
    assert again.dock_layout.needs_default_layout


def test_an_error_quoting_a_long_path_wraps_inside_the_window(qtbot, settings, long_named_file):
    window = open_window(qtbot, settings, [long_named_file], size=(1024, 640))
    missing = str(long_named_file) + ".missing"
    assert not window.open_paths([missing])
    banner = window.findChild(QLabel, "window.banner")
    assert banner.isVisible() and missing in banner.text()
    hint = window.minimumSizeHint()
    assert hint.width() <= 1024 and hint.height() <= 640, hint
    assert banner.width() < 1024
    assert missing in banner.toolTip()  # the whole path, where the line cuts it
