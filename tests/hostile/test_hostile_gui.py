"""Issue #10 in the GUI: hostile files and inputs show a message, keep the last view, never crash.

In-process (fast): every entry of the catalogue of ``tests/hostile/test_hostile_inputs.py`` is
opened in a :class:`MainWindow` that already shows a good file, the way File > Open would: the
engine's message appears in the window's message banner and under the decode field responsible,
and the previous view stays on screen. Decode-panel edits, slice expressions (pasted as a user
would), a 1 TiB sparse file and corrupt settings are driven the same way.

In subprocesses (a crash must not take pytest down): ``python -m inspector BAD --screenshot
out.png`` for a representative set of inputs exits 0 and writes the PNG with no traceback, and a
file truncated under an open window gives a message instead of SIGBUS.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QApplication

import core.budget
from core.errors import CoreError
from core.pipeline.pipeline import DecodeParams
from core.slicing.expr import parse_slice
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore
from inspector.widgets.plain_text import display_name

ROOT = Path(__file__).resolve().parents[2]


def _load_catalogue():
    """The catalogue lives with the engine tests; load that module by path (no package)."""
    spec = importlib.util.spec_from_file_location(
        "hostile_inputs_catalogue", ROOT / "tests" / "hostile" / "test_hostile_inputs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


HOSTILE = _load_catalogue()
CATALOGUE = HOSTILE.CATALOGUE
GOOD_VALUES = np.arange(24, dtype="<u2")
GOOD_PARAMS = DecodeParams(dtype="uint16", record_size=8)  # a (6, 4) table


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@pytest.fixture(autouse=True)
def default_budget(monkeypatch):
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", HOSTILE.DEFAULT_BUDGET)
    monkeypatch.setattr(core.budget, "_ENV_ERROR", None)


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    w = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    w.show()
    yield w
    w.close()


@pytest.fixture
def good(window, tmp_path):
    """A good file, open and shown: the view every failure below must keep."""
    path = tmp_path / "good.bin"
    GOOD_VALUES.tofile(path)
    assert window.open_paths([str(path)], GOOD_PARAMS)
    assert_good_view(window)
    return str(path)


def table(window) -> np.ndarray:
    model = window.table_panel.model
    return np.array([[model.value_at(r, c) for c in range(model.columnCount())]
                     for r in range(model.rowCount())])


def assert_good_view(window) -> None:
    np.testing.assert_array_equal(table(window), GOOD_VALUES.reshape(6, 4))
    np.testing.assert_array_equal(window.plot_panel.image_item.image, GOOD_VALUES.reshape(6, 4))


def is_syntax_error(text: str) -> bool:
    try:
        parse_slice(text)
    except CoreError:
        return True
    return False


def banner(window) -> str:
    return window.message_label.text() if window.message_label.isVisible() else ""


def still_previous(paths) -> str:
    """The banner's end while newly opened files cannot be decoded (the title names the old)."""
    name = display_name(paths[0]) + (f" + {len(paths) - 1} more" if len(paths) > 1 else "")
    return f"The view still shows the previous file; {escape(name)} is shown once this is fixed."


def field_error(window, field: str) -> str:
    label = window.decode_panel.error_labels[field]
    return label.text() if label.isVisible() else ""


# ------------------------------------------------------------------ the catalogue, in-process
@pytest.mark.parametrize("case", CATALOGUE, ids=[c.id for c in CATALOGUE])
def test_opening_a_hostile_input_shows_its_message_and_keeps_the_view(window, good, tmp_path, case):
    folder = tmp_path / "bad"
    folder.mkdir()
    paths = case.files(folder)
    message = case.text(paths)
    try:
        params = DecodeParams(**case.params)
    except CoreError:  # shape text: the decode panel parses it as it is typed, not the document
        assert case.field == "shape"
        params = DecodeParams(**{k: v for k, v in case.params.items() if k != "shape"})
        assert window.open_paths(paths, params, case.slice_text)
        paste(window.decode_panel.shape_field, case.params["shape"])
        assert field_error(window, "shape") == message and banner(window) == ""
        window.grab()
        return
    opened = window.open_paths(paths, params, case.slice_text)
    QApplication.processEvents()  # paints the window: a crash in a paint would show here
    if len(case.slice_text or "") < 1000:  # Qt lays out a 32k-character line edit in ~1 s
        window.grab()
    if case.error is None:
        assert opened and banner(window) == ""
        result = window.document.result
        assert tuple(result.view.shape) == case.shape
        if case.first is not None:
            assert window.table_panel.model.value_at(0, 0) == case.first
        return
    if case.field == "files" and "is not a usable .npy file" in message:
        # The file opens (explicit options may read its bytes raw), the header's problem shows.
        assert opened
        assert field_error(window, "files") == message
        assert banner(window) == f"<b>File:</b> {escape(message)} {still_previous(paths)}"
        window.document.update_params(offset=0, dtype="uint8")
        assert banner(window) == "" and window.document.result is not None
        with open(paths[0], "rb") as f:
            assert bytes(window.document.result.view) == f.read()
        return
    if case.field == "files":  # nothing was opened: the good document is still the document
        assert not opened
        assert window.document.paths == (good,)
        assert banner(window) == f"<b>File:</b> {escape(message)} The last good view is still shown."
        assert field_error(window, "files") == message
    elif case.field == "slice":  # opened; the slice text cannot be used, so nothing decodes
        assert opened
        assert banner(window) == f"<b>Slice:</b> {escape(message)} {still_previous(paths)}"
        if is_syntax_error(case.slice_text):  # the editor shows it too (others need a shape)
            assert window.slice_editor.error_text() == message
    else:  # opened; the decode parameters are refused next to their field
        assert opened
        assert banner(window) == f"<b>Decode:</b> {escape(message)} {still_previous(paths)}"
        assert field_error(window, case.field) == message
    assert_good_view(window)  # the table and the plot still show the last good data


# ------------------------------------------------------------------- decode panel edits
def paste(line_edit, text: str) -> None:
    """What a user's paste does: replace the text and emit ``textEdited``."""
    QApplication.clipboard().setText(text)
    line_edit.selectAll()
    line_edit.paste()


@pytest.mark.parametrize("field, text, where, message", [
    ("record_size_field", "0", "record_size",
     "record_size 0 must be greater than zero (use the number of bytes in one record, or no "
     "record size)"),
    ("record_size_field", "-8", "record_size",
     "record_size -8 must be greater than zero (use the number of bytes in one record, or no "
     "record size)"),
    ("record_size_field", "64", "record_size",
     "record_size 64 is larger than the 48 bytes of data in '{good}' after offset 0 (use a "
     "record size of at most 48, or a smaller offset)"),
    ("record_size_field", "abc", "record_size",
     "record_size must be an integer number of bytes, not 'abc' (or empty)"),
    ("record_size_field", "7", "record_size",
     "Input to DecodeRaw has length 7 that is not a multiple of 2, the size of uint16 (choose a "
     "record size or fixed_length that is a multiple of 2)"),
    ("offset_field", "99999999999999999999999", "offset",
     "offset 99999999999999999999999 is past the end of '{good}' (48 bytes) (use an offset of at "
     "most 48)"),
    ("offset_field", "-1", "offset", "offset -1 is negative (use 0 or more bytes to skip)"),
    ("fixed_length_field", "3", "fixed_length",
     "fixed_length (3) must be a multiple of the size of out_type (2) (choose a fixed_length "
     "that is a multiple of 2, e.g. 2)"),
    ("fixed_length_field", "0", "fixed_length",
     "fixed_length (0) must be greater than zero. (use a positive multiple of 2, or no "
     "fixed_length)"),
    ("fixed_length_field", "1099511627776", "fixed_length",
     "fixed_length (1099511627776) does not fit TensorFlow's 32-bit fixed_length attribute "
     "(use at most 2147483647 bytes, or no fixed_length)"),
    ("shape_field", "5,-1", "shape",
     "Input to reshape is a tensor with 24 values, but the requested shape requires a multiple "
     "of 5 (the dimensions must multiply to 24: choose sizes among its divisors 1, 2, 3, 4, 6, "
     "8, 12, 24, or -1 for one dimension)"),
    ("shape_field", "y" * 100_000, "shape",  # a paste: QLineEdit keeps 32,767 characters
     "in shape '" + "y" * 80 + "...', dimension 1 ('" + "y" * 40 + "...') is not an integer "
     "(write dimensions as integers separated by commas, e.g. 4,-1,3)"),
])
def test_bad_decode_panel_edits_show_next_to_the_field_and_keep_the_view(
    window, good, qtbot, field, text, where, message
):
    panel = window.decode_panel
    if field == "fixed_length_field":
        panel.fixed_length_check.setChecked(True)
    paste(getattr(panel, field), text)  # one edit (typing '64' would decode '6' first)
    assert field_error(window, where) == message.format(good=good)
    assert window.document.result.view.shape == (6, 4)
    window.grab()
    assert_good_view(window)


def test_a_budget_refusal_of_view_as_shows_next_to_view_as(window, good, monkeypatch):
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 16)
    combo = window.decode_panel.view_as_combo
    combo.setCurrentIndex(combo.findData("FLOAT64"))
    assert field_error(window, "view_as") == (
        "viewing (6, 4) values as FLOAT64 would copy 192 bytes, above the 16 bytes copy budget "
        "(slice the tensor to fewer values first, or raise the budget with "
        "TENSOR_INSPECTOR_COPY_BUDGET)")
    assert_good_view(window)


# ------------------------------------------------------------------------ slice expressions
@pytest.mark.parametrize("text, message", [
    (HOSTILE.CODE, f"unexpected '__import__' at column 1 {HOSTILE.ITEM_HINT}"),
    ("[" * 50_000, f"unexpected '[' at column 2 {HOSTILE.ITEM_HINT}"),
    ("0:1, " * 20_000, "item 32 is one too many at column 156 (a slice has at most 31 items, "
                       "because TensorFlow's masks are 32-bit)"),
    ("9" * 30, "integer does not fit in int64 at column 1 (use a value in "
                    "[-9223372036854775808, 9223372036854775807])"),
    ("١:٢", f"unexpected '١' at column 1 {HOSTILE.ITEM_HINT}"),
    ("\U0001F600, 1", f"unexpected '\U0001F600' at column 1 {HOSTILE.ITEM_HINT}"),
    ("1,\t\x00", "unexpected '\\x00' at column 4 (an item is an integer, start:stop[:step], "
                 "..., or tf.newaxis)"),
    ("[1, 2, 3]", "Index out of range using input dim 2; input has only 2 dims (the spec "
                  "indexes 3 dimensions but the input has 2: remove entries)"),
])
def test_hostile_slice_text_shows_an_error_and_keeps_the_view(window, good, text, message):
    HOSTILE.PWNED.unlink(missing_ok=True)
    paste(window.slice_editor.expression_edit, text)
    QApplication.processEvents()  # paints the window (Qt takes ~1 s to lay out 32k characters)
    assert window.slice_editor.error_text() == message
    assert_good_view(window)
    assert not HOSTILE.PWNED.exists()


def test_random_unicode_slice_text_never_breaks_the_window(window, good):
    rng = np.random.default_rng(10)
    for _ in range(20):
        points = rng.integers(1, 0x10FFFF, rng.integers(1, 200))
        text = "".join(chr(p) for p in points if not 0xD800 <= p < 0xE000)  # QString: no surrogates
        paste(window.slice_editor.expression_edit, text)
        assert window.slice_editor.error_text()  # none of these parses
    window.document.set_slice_text("\ud800")  # a lone surrogate straight into the document
    assert banner(window).startswith("<b>Slice:</b> unexpected '\\ud800' at column 1")
    window.grab()
    assert_good_view(window)


# ------------------------------------------------------------------------ 1 TiB sparse file
def test_a_1_tib_sparse_file_is_shown(window, tmp_path):
    [path] = HOSTILE.sparse_tib(tmp_path)
    assert window.open_paths([path], DecodeParams(dtype="float32", record_size=4096))
    assert banner(window) == ""
    model = window.table_panel.model
    assert window.document.result.view.shape == (268_435_456, 1024)
    assert (model.value_at(0, 0), model.value_at(0, 1)) == (1.5, 2.5)
    assert window.plot_panel.mode == "image"
    assert window.plot_panel.image_item.image.shape[0] <= 2048  # a strided sample, never all
    window.document.select((200_000_000, 2))
    assert window.statusBar().selection_label.text() == (
        "[200000000, 2] = -7.25   bytes 819200000008..819200000011 (0xbebc200008) of sparse.bin")
    assert window.statusBar().file_label.text() == "sparse.bin (1.0 TiB)"
    window.grab()


# ------------------------------------------------------------------------ corrupt settings
GARBAGE = [  # written to every key: recent files, last directory, window layout, decode settings
    None, -1, 3.5, True, "x" * 100_000, "\x00", ["a", None], {"a": 1},
    QByteArray(os.urandom(64)), "[" * 100_000 + "]" * 100_000, "null",
    json.dumps({"params": {"dtype": "nope", "shape": ["a"]}}),
    json.dumps({"params": {"shape": [2**80]}}),
    json.dumps({"params": {"record_size": -4, "offset": 2**70}, "slice": "[[["}),
    json.dumps({"params": {"fixed_length": 2**40}}),
    json.dumps({"params": [], "slice": 5}),
    '{"params": {"dtype": NaN}}',
    json.dumps({"params": {"little_endian": 2, "view_as": "zzz"}}),
]


@pytest.mark.parametrize("garbage", GARBAGE, ids=[f"garbage{i}" for i in range(len(GARBAGE))])
def test_corrupt_settings_never_stop_the_app(qtbot, tmp_path, garbage):
    path = tmp_path / "good.bin"
    GOOD_VALUES.tofile(path)
    ini = str(tmp_path / "settings.ini")
    raw = QSettings(ini, QSettings.IniFormat)
    key = "decode/" + str(path).replace("/", "\\")
    for name in ("recent_files", "last_directory", "window/geometry", "window/state", key):
        raw.setValue(name, garbage)
    raw.sync()
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(ini, QSettings.IniFormat)))
    qtbot.addWidget(window)
    window.show()
    assert window.open_paths([str(path)])  # restores (or ignores) the stored decode settings
    window.menus.recent_menu.aboutToShow.emit()  # lists the (filtered) recent files
    assert os.path.isdir(window.settings.last_directory())
    window.grab()
    result, error = window.document.result, window.document.error
    assert result is not None or escape(error.message) in banner(window)
    window.close()  # saves good settings over the garbage
    reopened = SettingsStore(QSettings(ini, QSettings.IniFormat))
    assert reopened.recent_files()[0] == str(path)


def test_garbage_ini_text_never_stops_the_app(qtbot, tmp_path):
    path = tmp_path / "good.bin"
    GOOD_VALUES.tofile(path)
    ini = tmp_path / "settings.ini"
    ini.write_bytes(
        b"\x00\xff garbage [[[\n=====\n[General]\n"
        b"recent_files=@Variant(\\0\\0\\0\\x7f\\0\\0\\0\\aQPixmap\\0\\xff\\xff)\n"
        b"last_directory=@ByteArray(\\xff\\xfe)\n[window]\ngeometry=@Variant(garbage)\n"
        b"state=@Rect(1 2 3)\n[decode]\n"
        + str(path).replace("/", "\\\\").encode()[2:] + b"=@Variant(\\0\\0\\0\\x1c\\xff)\n")
    window = MainWindow(SettingsStore(QSettings(str(ini), QSettings.IniFormat)))
    qtbot.addWidget(window)
    window.show()
    assert window.open_paths([str(path)], GOOD_PARAMS)
    window.menus.recent_menu.aboutToShow.emit()
    window.grab()
    assert_good_view(window)


# -------------------------------------------------------------------------- subprocesses
def gui_env(tmp_path: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != core.budget.ENV_VAR}
    env.update(QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"),
               PYTHONPATH=str(ROOT))
    return env


SCREENSHOT_CASES = {  # catalogue id -> extra command-line options
    "missing file": [], "directory": [], "/dev/zero": [], "FIFO": [], "empty file": [],
    "1 TiB sparse file": [], "fixed_length absurd (2**40)": [], ".npy holding pickled objects": [],
    "path with spaces and non-ASCII": [],
}


def test_the_app_survives_every_representative_input_on_its_command_line(tmp_path):
    """All launched at once (each costs ~1.5 s of start-up), then checked one by one."""
    by_id = {case.id: case for case in CATALOGUE}
    runs = []
    for i, name in enumerate(SCREENSHOT_CASES):
        folder = tmp_path / f"case{i}"
        folder.mkdir()
        case = by_id[name]
        paths = case.files(folder)
        png = folder / "shot.png"
        args = case.cli_args(paths) + ["--screenshot", str(png)]
        process = subprocess.Popen([sys.executable, "-m", "inspector", *args], cwd=ROOT,
                                   env=gui_env(folder), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        runs.append((name, process, png, folder))
    problems = []
    for name, process, png, folder in runs:
        out, err = process.communicate(timeout=120)
        if process.returncode != 0 or "Traceback" in err or not png.is_file():
            problems.append(f"{name}: exit {process.returncode}, png {png.is_file()}, stderr {err!r}")
        elif png.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
            problems.append(f"{name}: {png} is not a PNG")
        assert not (folder / "UNPICKLED").exists()
    assert not problems, "\n".join(problems)


def test_unusable_option_values_stop_the_app_with_one_line(tmp_path):
    [path] = HOSTILE.raw("twelve.bin", bytes(12))(tmp_path)
    HOSTILE.PWNED.unlink(missing_ok=True)
    done = subprocess.run([sys.executable, "-m", "inspector", path, "--slice", HOSTILE.CODE,
                           "--screenshot", str(tmp_path / "shot.png")], cwd=ROOT,
                          env=gui_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr == f"error: unexpected '__import__' at column 1 {HOSTILE.ITEM_HINT}\n"
    assert not (tmp_path / "shot.png").exists() and not HOSTILE.PWNED.exists()


TRUNCATE_SCRIPT = textwrap.dedent("""
    import os, sys
    import numpy as np
    from PySide6.QtCore import QElapsedTimer, QSettings
    from PySide6.QtWidgets import QApplication
    from core.pipeline.pipeline import DecodeParams
    from inspector.main_window import MainWindow
    from inspector.plot.panel import configure_pyqtgraph
    from inspector.state.settings_store import SettingsStore

    path, ini, how = sys.argv[1:4]
    app = QApplication([])
    configure_pyqtgraph()
    np.arange(256 * 1024, dtype="<f4").tofile(path)  # 1 MiB
    window = MainWindow(SettingsStore(QSettings(ini, QSettings.IniFormat)))
    window.show()
    window.open_paths([path], DecodeParams(dtype="float32", record_size=4096))
    window.document.select((255, 1000))  # the hex view, inspector and status bar read it too
    app.processEvents()
    if how == "replace":  # saved elsewhere and renamed over: the map keeps the old file
        with open(path + ".new", "wb") as out:
            out.write(b"x" * 8)
        os.replace(path + ".new", path)
    else:
        os.truncate(path, 0)
    if how in ("edit", "replace"):  # the user changes a setting: the engine checks first
        window.decode_panel.dtype_combo.setCurrentIndex(
            window.decode_panel.dtype_combo.findData("int32"))
    else:  # nobody touches anything: the document's poll notices within a moment
        timer = QElapsedTimer()
        timer.start()
        while not window.file_watch_banner.isVisible() and timer.elapsed() < 20000:
            app.processEvents()
    window.table_panel.view.scrollToBottom()  # read rows past the new end
    window.grab()
    print(window.message_label.text() if window.message_label.isVisible() else "")
    print(window.file_watch_banner.message() if window.file_watch_banner.isVisible() else "")
    model = window.table_panel.model
    # The document's file monitor may have cleared the views first (its report): fine too.
    cleared = (model.rowCount(), model.columnCount()) != (256, 1024)
    print("cleared" if cleared else model.value_at(255, 1023), flush=True)
    # Leave without interpreter finalisation: a script that exits with a live MainWindow can
    # crash in PySide's teardown (unrelated to the files; the app's own main() cleans up).
    os._exit(0)
""")


def test_a_file_truncated_under_the_window_never_crashes_it(tmp_path):
    script = tmp_path / "truncate.py"
    script.write_text(TRUNCATE_SCRIPT)
    runs = []
    for how in ("edit", "poll", "replace"):
        path = tmp_path / f"{how}.bin"
        process = subprocess.Popen(
            [sys.executable, str(script), str(path), str(tmp_path / f"{how}.ini"), how], cwd=ROOT,
            env=gui_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        runs.append((how, path, process))
    for how, path, process in runs:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, f"{how}: exit {process.returncode} (-7 is SIGBUS) {err}"
        detail = ("it was replaced by another file" if how == "replace"
                  else "size 1048576 -&gt; 0 bytes")
        message, change, value = out.splitlines()
        # What the banners say must match what the window shows; one banner tells it.
        if value == "cleared":  # the file-change banner says so, with Reload; no second banner
            assert message == ""
            assert change == f"{how}.bin shrank from 1,048,576 to 0 bytes; the view was cleared until you reload"
        else:  # the engine refused the edit first: the red banner says the old view stays
            assert message == (f"<b>File:</b> '{path}' changed on disk since it was opened "
                               f"({detail}) (reload it) The last good view is still shown.")
        # The old inode stays open; the table paints from pread copies of it: the cell shown
        # before the cut (selected) keeps its last good value, never a SIGBUS.
        assert value == "262143.0" if how == "replace" else value in ("262143.0", "cleared")


def test_permission_denied_shows_in_the_window(window, good, tmp_path, monkeypatch):
    [path] = HOSTILE.raw("secret.bin", b"1234")(tmp_path)
    real_open = os.open

    def refuse(p, flags, *args, **kwargs):  # tests run as root: chmod 000 would not stop us
        if os.fspath(p) == path:
            raise PermissionError(13, "Permission denied", path)
        return real_open(p, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    assert not window.open_paths([path])
    message = f"permission denied reading '{path}' (make the file readable, e.g. chmod a+r)"
    assert banner(window) == f"<b>File:</b> {escape(message)} The last good view is still shown."
    assert field_error(window, "files") == message
    assert_good_view(window)
