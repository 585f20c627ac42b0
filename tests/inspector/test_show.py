"""inspector.show(obj): the window on objects in memory, blocking and not, and its handle."""

import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QEventLoop, QSettings, QTimer
from PySide6.QtWidgets import QApplication, QLineEdit

import inspector
from core.errors import SliceError, SourceError
from inspector.main_window import MainWindow
from inspector.show import event_loop_running
from inspector.state.settings_store import SettingsStore

ROOT = Path(__file__).resolve().parents[2]


class WithArray:
    """Like a PyTorch tensor (numpy converts it through ``__array__``)."""

    def __init__(self, values):
        self._values = values

    def __array__(self, dtype=None, copy=None):
        return self._values


class WithNumpy:
    """Like a TensorFlow eager tensor (``.numpy()``)."""

    def __init__(self, values):
        self._values = values

    def numpy(self):
        return self._values


@pytest.fixture
def settings(tmp_path):
    return SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))


@pytest.fixture
def show(qtbot, settings):
    """inspector.show with test settings, not blocking unless told; its windows are closed
    and deleted by qtbot at teardown, before conftest's sweep of top-level widgets."""
    def show(obj, **options):
        options.setdefault("block", False)
        handle = inspector.show(obj, settings=settings, **options)
        if handle.window is not None:
            qtbot.addWidget(handle.window)
        return handle
    return show


def _close_windows():
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, MainWindow):
            widget.close()


def test_importing_inspector_does_not_import_qt():
    code = ("import sys, inspector\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6')))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert callable(inspector.show)


FLOATS = np.arange(12, dtype=np.float32).reshape(3, 4)


@pytest.mark.parametrize("obj, options, expected, title", [
    (b"\x01\x00\x02\x00", {"dtype": "int16"}, np.array([1, 2], np.int16), "<bytes>"),
    (bytearray(b"\x05\x06"), {}, np.array([5, 6], np.uint8), "<bytearray>"),
    (memoryview(b"\x07\x08\x09"), {}, np.array([7, 8, 9], np.uint8), "<memoryview>"),
    ([b"\x01\x02", b"\x03\x04"], {}, np.array([[1, 2], [3, 4]], np.uint8), "<list[0]: bytes> + 1 more"),
    (FLOATS, {}, FLOATS, "<numpy float32 (3, 4)>"),
    (np.array([-1, 300], np.int16), {}, np.array([-1, 300], np.int16), "<numpy int16 (2,)>"),
    (np.array([True, False]), {}, np.array([True, False]), "<numpy bool (2,)>"),
    (np.array([1, 256], "<u2"), {"dtype": "uint8"}, np.array([1, 0, 0, 1], np.uint8), "<numpy uint16 (2,)>"),
    (WithArray(FLOATS), {}, FLOATS, "<WithArray float32 (3, 4)>"),
    (WithNumpy(FLOATS[0]), {}, FLOATS[0], "<WithNumpy float32 (4,)>"),
])
def test_each_kind_of_object_is_shown(show, obj, options, expected, title):
    handle = show(obj, **options)
    assert handle.is_open
    np.testing.assert_array_equal(handle.view, expected)
    assert handle.view.dtype == expected.dtype
    assert handle.window.windowTitle() == f"{title} — tensor-inspector"
    assert handle.window.document.on_disk is False
    assert handle.selection == (0,) * expected.ndim  # the first element, as for a file


def test_round_trip_slice_from_the_script_reads_back_numpys_values(show):
    values = np.arange(24, dtype=np.float64).reshape(4, 6)
    handle = show(values)
    handle.set_slice("[1:, ::2]")
    np.testing.assert_array_equal(handle.view, values[1:, ::2])
    assert handle.slice_text == "[1:, ::2]"
    editor = handle.window.findChild(QLineEdit, "slice.expression")
    assert editor.text() == "[1:, ::2]"  # the window follows the script
    handle.select((2, 1))
    assert handle.selection == (2, 1)
    assert handle.window.document.selection == (2, 1)
    assert handle.result.byte_offset((2, 1)) == (0, (3 * 6 + 2) * 8, 8)  # values[3, 2]
    handle.set_slice("")
    handle.set_params(dtype="uint8")
    assert handle.view.shape == (192,)
    assert handle.params.dtype == "uint8"
    handle.window.document.undo()  # the script's edits are ordinary undoable edits
    assert handle.view.shape == (4, 6)


def test_what_the_user_does_in_the_window_reads_back(show):
    handle = show(np.arange(10, dtype=np.int32))
    handle.window.document.set_slice_text("[::3]")
    handle.window.document.select((2,))
    assert handle.view.tolist() == [0, 3, 6, 9]
    assert (handle.slice_text, handle.selection) == ("[::3]", (2,))


def test_refused_edits_raise_and_the_window_shows_them(show):
    handle = show(np.zeros((2, 3), np.float32))
    with pytest.raises(SliceError):
        handle.set_slice("[5]")
    assert "out of bounds" in handle.error or "out of range" in handle.error
    handle.set_slice("[1]")
    assert handle.error is None and handle.view.shape == (3,)
    with pytest.raises(IndexError, match="not an element of the view of shape"):
        handle.select((3,))
    with pytest.raises(TypeError, match="unknown options"):
        handle.set_params(dtyp="int8")
    with pytest.raises(TypeError, match="unknown options"):
        inspector.show(b"x", block=False, dtyp="int8")


def test_an_object_that_cannot_be_shown_raises_and_leaves_no_window(show):
    with pytest.raises(SourceError, match="cannot show a float"):
        show(2.5)
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]


def test_blocking_show_returns_when_the_window_is_closed(show):
    closed_from_the_loop = []

    def close():
        closed_from_the_loop.append(QApplication.activeModalWidget() is None)
        _close_windows()

    QTimer.singleShot(0, close)  # runs inside show()'s event loop
    handle = show(np.arange(6, dtype=np.uint8), block=True, slice="[1::2]")
    assert closed_from_the_loop == [True]
    assert not handle.is_open
    assert handle.view.tolist() == [1, 3, 5]  # the last view, still readable
    assert handle.slice_text == "[1::2]"
    with pytest.raises(RuntimeError, match="the window was closed"):
        handle.set_slice("[0]")


def test_wait_blocks_until_the_window_closes(show):
    handle = show(b"abc")
    QTimer.singleShot(0, handle.close)
    handle.wait()
    assert not handle.is_open


def test_no_block_where_ipython_runs_a_qt_event_loop(show, monkeypatch):
    shell = types.SimpleNamespace(active_eventloop="qt6")
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    assert event_loop_running() is True
    QTimer.singleShot(0, _close_windows)  # if show() blocked, this would close the window
    handle = show(b"abc", block=None)
    assert handle.is_open  # returned at once: the window is still there
    shell.active_eventloop = None  # IPython without %gui qt: a script-like call blocks
    assert event_loop_running() is False


def test_event_loop_running_inside_a_running_loop(qtbot, monkeypatch):
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert event_loop_running() is False
    seen = []
    loop = QEventLoop()

    def inside():
        seen.append(event_loop_running())
        loop.quit()

    QTimer.singleShot(0, inside)
    loop.exec()
    assert seen == [True]


def test_several_calls_share_one_application_and_keep_no_settings(show, settings):
    app = QApplication.instance()
    first = show(b"one")
    second = show(np.ones(3, np.float32))
    assert QApplication.instance() is app
    assert first.is_open and second.is_open
    assert first.window is not second.window
    second.close()
    assert first.is_open
    assert settings.decode_settings(("<bytes>",)) is None
