"""The Help menu's dialogs: every keyboard shortcut of the window, and About (versions, README).

Rules
-----
- :func:`window_shortcuts` lists the shortcuts of every action of the window that has one (menu
  actions and the actions of its widgets: table copy, hex view copy...), read from the actions
  themselves so the list cannot drift from what the keys do, followed by :data:`WIDGET_KEYS`,
  the keys widgets handle without an action (Tab, arrows, Enter in the find bar...).
- :func:`about_text` names the versions of the app, Python, Qt (PySide6 and the Qt library),
  numpy and pyqtgraph, and where the README is (its local path and a link to it when it ships
  beside the app, which is the case in a source checkout).
"""

from __future__ import annotations

import platform
import re
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, QUrl, qVersion
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from inspector.widgets.plain_text import html_text

#: Keys that widgets handle themselves (no QAction carries them): (keys, what they do).
WIDGET_KEYS: tuple[tuple[str, str], ...] = (
    ("Tab / Shift+Tab", "Next / previous control (leaves the table too)"),
    ("Arrows, Page Up/Down, Home/End", "Move in the table (the status bar shows the selected value)"),
    ("Shift+Arrows", "Extend the table selection"),
    ("Enter / Shift+Enter", "Find bar: next / previous match"),
    ("Esc", "Find bar: close, back to the table"),
    ("Alt+Up / Alt+Down", "Open a combo box's list"),
)


def shortcut_text(action: QAction) -> str:
    """The action's shortcuts in the platform's text, e.g. ``"Ctrl+Z, Ctrl+Shift+Z"``."""
    return ", ".join(key.toString(QKeySequence.SequenceFormat.NativeText) for key in action.shortcuts()
                     if not key.isEmpty())


def window_shortcuts(window: QWidget) -> list[tuple[str, str]]:
    """``(keys, action)`` for every action of ``window`` with a shortcut, then :data:`WIDGET_KEYS`.

    Action texts lose their ``&`` mnemonics and trailing ellipsis; duplicates (one action in two
    menus) are listed once.
    """
    rows, seen = [], set()
    for action in window.findChildren(QAction):
        keys = shortcut_text(action)
        name = re.sub(r"&(?!&)", "", action.text()).replace("…", "").strip()
        if keys and name and (keys, name) not in seen:
            seen.add((keys, name))
            rows.append((keys, name))
    return rows + list(WIDGET_KEYS)


class ShortcutsDialog(QDialog):
    """A two-column table of :func:`window_shortcuts` (Help > Keyboard shortcuts)."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.setWindowTitle("Keyboard shortcuts")
        rows = window_shortcuts(window)
        self.table = QTableWidget(len(rows), 2, self, objectName="help.shortcuts")
        self.table.setHorizontalHeaderLabels(["Keys", "Does"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setTabKeyNavigation(False)
        for row, (keys, name) in enumerate(rows):
            self.table.setItem(row, 0, QTableWidgetItem(keys))
            self.table.setItem(row, 1, QTableWidgetItem(name))
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.button(QDialogButtonBox.StandardButton.Close).setObjectName("help.close")
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(560, 520)

    def rows(self) -> list[tuple[str, str]]:
        """What the table lists, ``(keys, action)`` row by row."""
        return [(self.table.item(r, 0).text(), self.table.item(r, 1).text()) for r in range(self.table.rowCount())]


def readme_location() -> Path | None:
    """The README's path when it ships beside the app (a source checkout), else None."""
    readme = Path(__file__).resolve().parents[2] / "README.md"
    return readme if readme.is_file() else None


def app_version() -> str:
    """The installed distribution's version, else the one in the source tree's pyproject.toml."""
    from importlib import metadata  # ~0.1 s to import: only when the About box asks

    try:
        return metadata.version("tensor-inspector")
    except metadata.PackageNotFoundError:
        pass
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        match = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.read_text(encoding="utf-8"), re.MULTILINE)
    except OSError:
        match = None
    return match.group(1) if match else "unknown"


def versions() -> dict[str, str]:
    """Versions of the app and what it runs on, by name."""
    import numpy
    import pyqtgraph

    return {"tensor-inspector": app_version(), "Python": platform.python_version(),
            "Qt": qVersion(), "PySide6": pyside_version, "numpy": numpy.__version__,
            "pyqtgraph": pyqtgraph.__version__}


def about_text() -> str:
    """The About box's rich text (every value escaped)."""
    lines = "".join(f"<tr><td>{html_text(name)}</td><td>{html_text(value)}</td></tr>"
                    for name, value in versions().items())
    readme = readme_location()
    guide = (f"<a href=\"{html_text(readme.as_uri())}\">{html_text(str(readme))}</a>" if readme is not None
             else "README.md, in the source distribution")
    return (
        "<p><b>tensor-inspector</b>: binary tensor data as <code>tf.io.decode_raw</code> and "
        "<code>tf.strided_slice</code> see it.</p>"
        f"<table>{lines}</table>"
        f"<p>User guide: {guide}</p>"
    )


def show_about(parent: QWidget) -> QMessageBox:
    """Open the About box (window-modal, deleted when closed) and return it."""
    box = QMessageBox(QMessageBox.Icon.Information, "About tensor-inspector", about_text(),
                      QMessageBox.StandardButton.Close, parent)
    box.setObjectName("help.about")
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


def open_readme() -> None:
    """Open the README in the desktop's viewer (Help > User guide), when it ships with the app."""
    readme = readme_location()
    if readme is not None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(readme)))
