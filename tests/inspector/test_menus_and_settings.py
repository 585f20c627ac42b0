"""What users reached for: Help menu, File > Close, View > Reset layout, start-up files, Open
Recent, settings found through a symlink, display choices remembered between sessions."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QLabel, QMessageBox

from core.pipeline.pipeline import DecodeParams
from inspector.app import build_parser, open_startup_files
from inspector.main_window import MainWindow
from inspector.panels.help_dialogs import versions, window_shortcuts
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore
from resources import DEFAULT_SAMPLE, resource_path

README = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")


@pytest.fixture
def settings_path(tmp_path):
    return str(tmp_path / "settings.ini")


def make_window(qtbot, settings_path):
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(settings_path, QSettings.IniFormat)))
    qtbot.addWidget(window)
    return window


@pytest.fixture
def window(qtbot, settings_path):
    return make_window(qtbot, settings_path)


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(np.arange(12, dtype="<i2").tobytes())
    return str(path)


def startup(window, files=()):
    args = build_parser().parse_args(list(files))
    from core.cli import params_from_args

    cli_params, slice_text, _ = params_from_args(args)
    return open_startup_files(window, list(args.files), cli_params, slice_text)


def menu_texts(window):
    return {a.text(): [b.text() for b in a.menu().actions() if b.text()] for a in window.menuBar().actions()}


# ---------------------------------------------------------------------------- Help menu
def test_help_menu_lists_shortcuts_readme_sample_and_about(window):
    assert menu_texts(window)["&Help"] == [
        "&Keyboard shortcuts", "&User guide (README)", "Open the embedded &sample", "&About tensor-inspector"]
    assert window.menus.readme_action.isEnabled()  # a source checkout ships README.md


def test_shortcuts_dialog_lists_every_shortcut(window):
    dialog = window.show_shortcuts()
    rows = dict((name, keys) for keys, name in dialog.rows())
    for name, keys in {"Open": "Ctrl+O", "Close": "Ctrl+W", "Find in table": "Ctrl+F", "Find next": "F3",
                       "Find previous": "Shift+F3", "Go to Table": "Alt+1", "Go to Decode panel": "Alt+2",
                       "Go to Slice panel": "Alt+3", "Go to slice expression": "Ctrl+L",
                       "Copy bytes as Python bytes": "Ctrl+Shift+C", "Go to offset": "Ctrl+G",
                       "Use byte as header offset": "Ctrl+Shift+H", "Keyboard shortcuts": "F1"}.items():
        assert rows[name] == keys, name
    assert rows["Undo"].startswith("Ctrl+Z")
    assert rows["Next / previous control (leaves the table too)"] == "Tab / Shift+Tab"


def test_readme_keyboard_section_lists_every_shortcut_of_the_window(window):
    with open(README, encoding="utf-8") as f:
        text = f.read()
    section = text.split("### Keyboard", 1)[1].split("\n#", 1)[0]
    for keys, name in window_shortcuts(window):
        primary = keys.split(", ")[0]  # alternatives (Undo's Alt+Backspace...) depend on the platform
        assert f"`{primary}`" in section or f"`{keys}`" in section, (keys, name)
        assert name in section, name
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    keys = [key for row in rows for key in re.findall(r"`([^`]+)`", row.split(" | ")[0])]
    assert len(keys) == len(set(keys)), "a key is listed in two rows"
    assert not any("(the same" in row for row in rows)


def test_about_names_the_versions_and_the_readme(window, qtbot):
    import numpy
    from PySide6.QtCore import qVersion

    box = window.show_about()
    assert isinstance(box, QMessageBox) and box.isVisible()
    text = box.text()
    assert f"<td>numpy</td><td>{numpy.__version__}</td>" in text
    assert f"<td>Qt</td><td>{qVersion()}</td>" in text
    assert "<td>tensor-inspector</td><td>0.1.0</td>" in text
    assert re.search(r'href="file://[^"]*/README\.md"', text)
    assert versions()["tensor-inspector"] == "0.1.0"


# ---------------------------------------------------------------------------- File / View
def test_file_close_clears_every_view_and_says_how_to_open_a_file(window, qtbot, data_file):
    window.show()
    assert window.open_paths([data_file])
    assert window.table_panel.model.rowCount() == 24
    window.menus.close_action.trigger()
    assert window.document.paths == ()
    assert window.table_panel.model.array.size == 0
    assert window.plot_panel.mode == "empty"
    assert window.hex_view.file_size() == 0
    assert window.windowTitle() == "tensor-inspector"
    hint = window.findChild(QLabel, "window.hint")
    assert hint.isVisible()
    assert hint.text().startswith("No file is open. Open one with File > Open (Ctrl+O)")
    assert window.settings.last_files() == []
    assert window.menus.close_action.shortcut().toString() == "Ctrl+W"


def test_reset_layout_brings_back_hidden_and_floating_panels(window, qtbot):
    window.show()
    qtbot.waitExposed(window)
    window.docks["hex"].hide()
    window.docks["slice"].setFloating(True)
    window.removeDockWidget(window.docks["decode"])
    window.menus.reset_layout_action.trigger()
    for name, dock in window.docks.items():
        assert not dock.isFloating(), name
    for name in ("decode", "slice", "plot", "hex", "inspector"):
        assert window.docks[name].isVisible(), name
    assert window.dockWidgetArea(window.docks["decode"]) == Qt.DockWidgetArea.LeftDockWidgetArea
    assert window.dockWidgetArea(window.docks["hex"]) == Qt.DockWidgetArea.BottomDockWidgetArea


# ---------------------------------------------------------------------------- start-up
def test_first_launch_shows_the_sample_with_a_hint_then_never_again(qtbot, settings_path):
    first = make_window(qtbot, settings_path)
    assert startup(first) == [str(resource_path(DEFAULT_SAMPLE))]
    hint = first.findChild(QLabel, "window.hint")
    assert not hint.isHidden()
    assert hint.text().startswith(f"This is the embedded sample ({DEFAULT_SAMPLE})")
    assert "File > Open (Ctrl+O)" in hint.text()
    assert first.settings.recent_files() == []  # the sample is not pushed into Open Recent
    first.close()
    second = make_window(qtbot, settings_path)
    assert startup(second) == []
    assert second.document.paths == ()
    assert second.findChild(QLabel, "window.hint").text().startswith("No file is open.")


def test_the_last_file_is_reopened_with_its_settings(qtbot, settings_path, data_file):
    first = make_window(qtbot, settings_path)
    startup(first)
    assert first.open_paths([data_file], DecodeParams(dtype="int16"), "[2:5]")
    first.close()
    second = make_window(qtbot, settings_path)
    assert startup(second) == [data_file]
    assert second.document.params.dtype == "int16"
    np.testing.assert_array_equal(second.document.result.view, [2, 3, 4])
    assert second.findChild(QLabel, "window.hint").isHidden()
    assert second.menus.reopen_action.isChecked()
    second.menus.reopen_action.trigger()  # File > Reopen last files on start: off
    second.close()
    third = make_window(qtbot, settings_path)
    assert third.settings.reopen_last_files() is False
    assert startup(third) == []


def test_a_deleted_last_file_is_not_reopened_and_leaves_open_recent(qtbot, settings_path, data_file, tmp_path):
    other = tmp_path / "other.bin"
    other.write_bytes(b"1234")
    first = make_window(qtbot, settings_path)
    assert first.open_paths([str(other)])
    assert first.open_paths([data_file])
    first.close()
    assert SettingsStore(QSettings(settings_path, QSettings.IniFormat)).recent_files() == [data_file, str(other)]
    os.remove(data_file)
    second = make_window(qtbot, settings_path)
    assert second.settings.recent_files() == [str(other)]
    assert startup(second) == [str(resource_path(DEFAULT_SAMPLE))]  # not the deleted file
    second.menus.recent_menu.aboutToShow.emit()
    assert [a.text() for a in second.menus.recent_menu.actions()] == [str(other)]


def test_a_symlink_finds_the_settings_of_its_file_and_open_recent_lists_it_once(window, data_file, tmp_path):
    link = tmp_path / "link.bin"
    link.symlink_to(data_file)
    assert window.open_paths([data_file], DecodeParams(dtype="int16"), "[1:3]")
    window._save_decode_settings()
    assert window.open_paths([str(link)])
    assert window.document.params.dtype == "int16"
    np.testing.assert_array_equal(window.document.result.view, [1, 2])
    assert window.settings.recent_files() == [str(link)]


def test_table_format_heat_map_and_plot_mode_are_remembered(qtbot, settings_path, tmp_path):
    path = tmp_path / "cube.bin"
    path.write_bytes(np.arange(24, dtype="<f4").tobytes())
    params = DecodeParams(dtype="float32", shape=(2, 3, 4))
    first = make_window(qtbot, settings_path)
    assert first.open_paths([str(path)], params)
    first.document.view_options.choose(table_format="scientific", table_decimals=2, heat_map=True)
    first.plot_panel.set_line_axis(1)
    first.close()
    second = make_window(qtbot, settings_path)
    options = second.document.view_options.value
    assert (options.table_format, options.table_decimals, options.heat_map) == ("scientific", 2, True)
    assert second.open_paths([str(path)], params)
    assert second.table_panel.model.data(second.table_panel.model.index(0, 1)) == "1.00e+00"
    assert second.table_panel.model.heat_map is True
    assert second.plot_panel.line_axis == 1
    assert second.plot_panel.mode == "line"
