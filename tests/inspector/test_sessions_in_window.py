"""Sessions in the window: save -> close -> open restores files, settings, display, comparison and
bookmarks; a moved file is asked for once; a changed file is flagged; a layout applied to other
files; a session named on the command line (told by its content)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QFrame, QLabel

from core.pipeline.pipeline import DecodeParams
from core.session.bookmark import Bookmark
from inspector.app import open_startup_files
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

CUBE = DecodeParams(dtype="float32", shape=(2, 3, 4))


@pytest.fixture
def files(tmp_path):
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    np.arange(24, dtype=np.float32).tofile(a)
    (np.arange(24, dtype=np.float32) + 0.25).tofile(b)
    return str(a), str(b)


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    w = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    w.show()
    return w


def banner_text(window) -> str:
    banner = window.findChild(QFrame, "session.banner")
    return "" if banner.isHidden() else window.findChild(QLabel, "session.message").text()


def set_up_view(window, path_a, path_b):
    assert window.open_paths([path_a], CUBE, "[:, 1:]")  # view (2, 2, 4)
    window.document.display_axes.set_axes(0, 2)
    window.document.display_axes.set_index(1, 1)
    window.plot_panel.set_line_axis(2)
    window.document.view_options.choose(table_format="hex", table_decimals=3, heat_map=True)
    window.document.select((1, 1, 3))
    window.bookmarks_panel.add_element()
    window.document.bookmarks.add(Bookmark("head", "bytes", byte_range=(0, 8), note="first two", colour="#2f9e44"))
    assert window.comparison.open_b([path_b])
    window.comparison.update_settings(atol=0.5, shift=1)
    window.comparison.set_quantity("abs")


def test_save_close_open_restores_everything(window, files, tmp_path):
    a, b = files
    set_up_view(window, a, b)
    session = str(tmp_path / "s.json")
    assert window.session_actions.save(session)
    marks = window.document.bookmarks.items
    window.comparison.close_b()
    window.close_file()
    assert window.document.paths == () and window.document.bookmarks.items == ()

    assert window.session_actions.open_session(session)
    document = window.document
    assert document.paths == (a,) and document.params == CUBE and document.slice_text == "[:, 1:]"
    axes = document.display_axes
    assert (axes.row_axis, axes.col_axis, axes.indices[1]) == (0, 2, 1)
    assert window.plot_panel.line_axis == 2
    options = document.view_options.value
    assert (options.table_format, options.table_decimals, options.heat_map) == ("hex", 3, True)
    assert document.selection == (1, 1, 3)
    assert document.bookmarks.items == marks
    assert window.comparison.paths == (b,) and window.comparison.quantity == "abs"
    assert (window.comparison.settings.atol, window.comparison.settings.shift) == (0.5, 1)
    assert banner_text(window) == ""


def test_a_moved_file_is_asked_for_once(window, files, tmp_path, monkeypatch):
    a, _b = files
    assert window.open_paths([a], CUBE)
    session = str(tmp_path / "s.json")
    assert window.session_actions.save(session)
    window.close_file()
    moved = tmp_path / "moved"
    moved.mkdir()
    new = str(moved / "a.bin")
    os.rename(a, new)
    asked = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *args, **kw: (asked.append(args[1]), (new, ""))[1])
    assert window.session_actions.open_session(session)
    assert window.document.paths == (new,) and len(asked) == 1 and "a.bin" in asked[0]


def test_a_moved_b_file_is_asked_for_and_cancelling_leaves_the_comparison_out(window, files, tmp_path, monkeypatch):
    a, b = files
    assert window.open_paths([a], CUBE)
    assert window.comparison.open_b([b])
    session = str(tmp_path / "s.json")
    assert window.session_actions.save(session)
    window.comparison.close_b()
    window.close_file()
    moved = tmp_path / "golden"
    moved.mkdir()
    new_b = str(moved / "b.bin")
    os.rename(b, new_b)
    asked = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *args, **kw: (asked.append(args[1]), (new_b, ""))[1])
    assert window.session_actions.open_session(session)
    assert window.document.paths == (a,) and window.comparison.paths == (new_b,)
    assert len(asked) == 1 and "b.bin (B, the comparison's reference)" in asked[0]
    window.comparison.close_b()
    window.close_file()
    os.rename(new_b, str(tmp_path / "gone.bin"))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *args, **kw: ("", ""))
    assert window.session_actions.open_session(session)  # A still opens, without B
    assert window.document.paths == (a,) and window.comparison.paths == ()
    assert f"the comparison was left out: {b} (B) not found" in banner_text(window)


def test_cancelling_the_question_aborts_with_a_clear_banner(window, files, tmp_path, monkeypatch):
    a, _b = files
    assert window.open_paths([a], CUBE)
    session = str(tmp_path / "s.json")
    assert window.session_actions.save(session)
    window.close_file()
    os.remove(a)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *args, **kw: ("", ""))
    assert not window.session_actions.open_session(session)
    assert window.document.paths == ()
    assert banner_text(window).startswith("Session s.json not opened: ")
    assert "a.bin was not found and no new place was given" in banner_text(window)


def test_a_changed_file_is_flagged_with_what_changed(window, files, tmp_path):
    a, _b = files
    assert window.open_paths([a], CUBE)
    session = str(tmp_path / "s.json")
    assert window.session_actions.save(session)
    window.close_file()
    with open(a, "ab") as file:
        file.write(bytes(4))
    assert window.session_actions.open_session(session)
    text = banner_text(window)
    assert text.startswith("Session s.json: ") and "a.bin" in text
    assert "96 bytes then, 100 now" in text


def test_apply_a_session_to_other_files(window, files, tmp_path):
    a, b = files
    assert window.open_paths([a], CUBE, "[1]")
    window.document.select((2, 3))
    window.bookmarks_panel.add_element()
    session = str(tmp_path / "s.json")
    assert window.session_actions.save(session)
    window.close_file()
    assert window.session_actions.apply_to_files(session, [b])
    document = window.document
    assert document.paths == (b,) and document.params == CUBE and document.slice_text == "[1]"
    assert document.bookmarks.names() == ("element [2, 3]",)
    assert document.bookmarks.choose("element [2, 3]")
    assert float(document.result.view[2, 3]) == 23.25


def test_saving_objects_in_memory_is_refused_in_the_banner(window):
    assert window.open_object(np.arange(6, dtype=np.int8))
    assert not window.session_actions.save("/nonexistent/s.json")
    assert banner_text(window).startswith("Session not saved: Nothing to save")


def test_a_session_on_the_command_line_is_told_by_its_content(window, files, tmp_path):
    a, _b = files
    assert window.open_paths([a], CUBE, "[0]")
    session = str(tmp_path / "view.data")  # any name: the content says it is a session
    assert window.session_actions.save(session)
    window.close_file()
    assert open_startup_files(window, [session], DecodeParams(), None) == [a]
    assert window.document.slice_text == "[0]" and window.document.params == CUBE
    other = tmp_path / "plain.json"
    other.write_text('{"format": "something else"}')
    assert open_startup_files(window, [str(other)], DecodeParams(), None) == [str(other)]
    assert window.document.paths == (str(other),)


def test_a_file_outside_the_sessions_folder_is_named_in_the_banner(window, tmp_path):
    import json

    from core.session.session_file import Session, capture_file, save_session

    (tmp_path / "shared").mkdir()
    (tmp_path / "elsewhere").mkdir()
    target = tmp_path / "elsewhere" / "data.bin"
    np.arange(4, dtype=np.float32).tofile(target)
    session = tmp_path / "shared" / "s.json"
    save_session(Session(files=(capture_file(str(target)),), params=DecodeParams(dtype="float32")), str(session))
    document = json.loads(session.read_text())
    document["files"][0]["path"] = "../elsewhere/data.bin"  # a received session climbing out
    session.write_text(json.dumps(document))
    assert window.session_actions.open_session(str(session))
    assert (f"files[0] '../elsewhere/data.bin' leads out of the session's folder "
            f"'{os.path.realpath(tmp_path / 'shared')}': it opens '{os.path.realpath(target)}'") in banner_text(window)
