"""Guess layout in the window: the banner for a raw file with nothing remembered, the dialog's
ranked candidates and reasons (guessed off the GUI thread), and Apply as one undoable edit."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFrame, QListWidget, QPlainTextEdit, QPushButton

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.panels.guess_dialog import GuessDialog
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.document import Document
from inspector.state.settings_store import SettingsStore


@pytest.fixture
def settings(tmp_path):
    return SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))


@pytest.fixture
def window(qtbot, settings):
    configure_pyqtgraph()
    w = MainWindow(settings)
    qtbot.addWidget(w)
    yield w
    w.document.close_files()


@pytest.fixture
def image_file(tmp_path):
    y, x = np.mgrid[0:60, 0:90]
    values = (np.sin(x / 8.0) * np.cos(y / 13.0) * 1000).astype(">i2")
    path = tmp_path / "capture.bin"
    path.write_bytes(values.tobytes())
    return str(path)


def banner(window):
    return window.findChild(QFrame, "guess.banner")


def wait_for_guess(qtbot, dialog: GuessDialog):
    if dialog.task is not None:
        with qtbot.waitSignal(dialog.task.finished, timeout=20_000):
            pass
    qtbot.waitUntil(lambda: dialog.report is not None or dialog.task is None)


def test_banner_offered_for_a_raw_file_with_nothing_remembered(window, image_file):
    assert window.open_paths([image_file])
    assert not banner(window).isHidden()
    assert "Layout unknown: capture.bin is shown as raw bytes" in window.findChild(
        QFrame, "guess.banner").label.text()


def test_no_banner_with_explicit_or_remembered_settings(window, image_file, tmp_path):
    assert window.open_paths([image_file], DecodeParams(dtype="int16"))
    assert banner(window).isHidden()
    npy = tmp_path / "a.npy"
    np.save(npy, np.arange(10.0))
    assert window.open_paths([str(npy)])
    assert banner(window).isHidden()


def test_dont_show_again_turns_the_banner_off(window, settings, image_file, tmp_path):
    assert window.open_paths([image_file])
    window.findChild(QPushButton, "guess.turnOff").click()
    assert banner(window).isHidden()
    assert settings.guess_banner_enabled() is False
    other = tmp_path / "other.bin"
    other.write_bytes(bytes(range(256)) * 4)
    assert window.open_paths([str(other)])
    assert banner(window).isHidden()


def test_guess_button_lists_candidates_and_apply_is_undoable(window, qtbot, image_file):
    assert window.open_paths([image_file])
    window.findChild(QPushButton, "guess.open").click()
    dialog = window.guess_dialog
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    assert banner(window).isHidden()
    wait_for_guess(qtbot, dialog)
    candidates = dialog.findChild(QListWidget, "guess.candidates")
    assert candidates.count() >= 3
    assert candidates.item(0).text().startswith("1. int16, big-endian, shape 60x90")
    reasons = dialog.findChild(QPlainTextEdit, "guess.reasons").toPlainText()
    assert "rows of 90 items" in reasons and "About the file:" in reasons
    before = window.document.params
    dialog.findChild(QPushButton, "guess.apply").click()
    params = window.document.params
    assert (params.dtype, params.little_endian, params.shape) == ("int16", False, (60, 90))
    assert window.document.result.view.shape == (60, 90)
    assert window.document.result.view[10, 20] == int(np.sin(20 / 8.0) * np.cos(10 / 13.0) * 1000)
    window.menus.undo_action.trigger()
    assert window.document.params == before


def test_guess_action_has_a_shortcut_and_reports_an_empty_file(window, qtbot, tmp_path):
    assert window.menus.guess_action.shortcut().toString() == "Ctrl+Shift+G"
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    assert window.open_paths([str(empty)])
    window.menus.guess_action.trigger()
    dialog = window.guess_dialog
    wait_for_guess(qtbot, dialog)
    assert dialog.status_label.text() == "No convincing layout: the file is empty: there is nothing to guess from."
    assert dialog.findChild(QListWidget, "guess.candidates").count() == 0
    assert not dialog.findChild(QPushButton, "guess.apply").isEnabled()


def test_dialog_without_files_says_so(qtbot):
    document = Document()
    dialog = GuessDialog(document)
    qtbot.addWidget(dialog)
    dialog.start()
    assert dialog.task is None
    assert dialog.status_label.text() == "Open a file first: there is nothing to guess."


def test_double_click_applies(window, qtbot, image_file):
    assert window.open_paths([image_file])
    dialog = window.show_guess_dialog()
    wait_for_guess(qtbot, dialog)
    candidates = dialog.findChild(QListWidget, "guess.candidates")
    candidates.setCurrentRow(1)
    chosen = dialog.current_candidate()
    candidates.itemDoubleClicked.emit(candidates.item(1))
    assert window.document.params == chosen.params


def test_an_object_in_memory_says_guessing_needs_a_file(qtbot, tmp_path):
    from PySide6.QtCore import QSettings

    from inspector.main_window import MainWindow
    from inspector.state.settings_store import SettingsStore

    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    assert window.document.open_object(b"\x00\x01\x02\x03" * 64)
    dialog = window.show_guess_dialog()
    assert dialog.status_label.text().startswith("Guessing reads files: the bytes shown come from a Python object.")
    assert dialog.candidate_list.count() == 0


def test_a_zero_padded_64_byte_header_named_hdr64_is_the_dialogs_first_candidate(window, qtbot, tmp_path):
    """Issue 31 item 3 in the window: the banner's Guess… lists offset 64, float32 big-endian,
    120x160 first, and Apply shows the frame's values."""
    rng = np.random.default_rng(31)
    r, c = np.mgrid[0:120, 0:160]
    frame = (0.5 * r + 0.25 * c + 20.0 + rng.normal(0.0, 0.8, (120, 160))).astype(">f4")
    path = tmp_path / "frame_hdr64_120x160_f32_be.bin"
    path.write_bytes(b"FRM1" + bytes(60) + frame.tobytes())
    assert window.open_paths([str(path)])
    assert not banner(window).isHidden()
    window.findChild(QPushButton, "guess.open").click()
    dialog = window.guess_dialog
    wait_for_guess(qtbot, dialog)
    candidates = dialog.findChild(QListWidget, "guess.candidates")
    assert candidates.item(0).text().startswith("1. float32, big-endian, header 64 bytes, shape 120x160")
    assert "header 4 bytes" not in candidates.item(0).text()
    dialog.findChild(QPushButton, "guess.apply").click()
    params = window.document.params
    assert (params.dtype, params.little_endian, params.offset, params.shape) == ("float32", False, 64, (120, 160))
    view = window.document.result.view
    assert float(view[0, 0]) == float(frame[0, 0]) and float(view[119, 159]) == float(frame[119, 159])
