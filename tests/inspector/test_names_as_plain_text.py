"""File names are shown as text, never interpreted: no rich text, no mnemonic, no control character.

A file named like an HTML heading used to show "FILE VERIFIED OK" in large green letters in the
status bar. Every label that mentions the file must show the name literally: a plain-text label
holds it as is, a rich-text label (the main banner) escapes it.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from PySide6 import QtGui
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

# A file name cannot hold "/": the heading is closed with a second opening tag, which renders the
# same large green words.
NAME = '<h1 style="color:green">FILE VERIFIED OK<h1>.bin'


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    w = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    yield w
    w.document.close_files()


def rendered(text: str, rich: bool) -> str:
    """What a label or tool tip displays for ``text``."""
    if not rich:
        return text
    document = QTextDocument()
    document.setHtml(text)
    return document.toPlainText()


def is_rich(label: QLabel) -> bool:
    text_format = label.textFormat()
    if text_format == Qt.TextFormat.AutoText:
        return QtGui.Qt.mightBeRichText(label.text())  # Qt's own guess (in QtGui's namespace)
    return text_format == Qt.TextFormat.RichText


def labels_mentioning(window, words: str) -> list[QLabel]:
    return [label for label in window.findChildren(QLabel) if words in label.text()]


def test_a_file_named_like_html_is_shown_literally(window, qtbot, tmp_path):
    path = tmp_path / NAME
    np.arange(64, dtype=np.float32).tofile(path)
    assert window.open_paths([str(path)], DecodeParams(dtype="float32"))
    assert window.windowTitle() == f"{NAME} — tensor-inspector"
    file_label = window.statusBar().file_label
    assert file_label.text() == f"{NAME} (256 bytes)" and not is_rich(file_label)
    assert rendered(file_label.toolTip(), True) == str(path)
    window.document.select((3,))
    assert window.statusBar().selection_label.text().endswith(f"of {NAME}")
    window.menus.recent_menu.aboutToShow.emit()  # the menu is filled when it opens
    recent = [action.text() for action in window.menus.recent_menu.actions()]
    assert recent == [str(path)]  # no "&" to double in this name

    os.truncate(path, 100)  # the banners name the file
    with qtbot.waitSignal(window.document.filesChangedOnDisk, timeout=5000):
        window.document.changes_on_disk()
    mentioning = labels_mentioning(window, "FILE VERIFIED OK")
    names = {label.objectName() for label in mentioning}
    assert {"fileWatch.message", "window.banner"} <= names
    for label in mentioning:
        shown = rendered(label.text(), is_rich(label))
        assert NAME in shown, (label.objectName(), label.text())


def test_control_characters_and_ampersands_in_names_are_escaped(window, tmp_path):
    name = "a&b\nc.bin"
    path = tmp_path / name
    np.arange(4, dtype=np.uint8).tofile(path)
    assert window.open_paths([str(path)], DecodeParams(dtype="uint8"))
    assert window.windowTitle() == "a&b\\nc.bin — tensor-inspector"
    assert window.statusBar().file_label.text() == "a&b\\nc.bin (4 bytes)"
    window.menus.recent_menu.aboutToShow.emit()  # the menu is filled when it opens
    recent = [action.text() for action in window.menus.recent_menu.actions()]
    assert recent == [str(tmp_path / "a&&b\\nc.bin")]  # shown as "a&b\nc.bin", no mnemonic
