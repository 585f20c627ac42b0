"""File > Compare models…: choose model A and model B (a container file or a folder each) and
how their tensors are paired.

Pairing (:class:`core.models.matching.MatchRules`): by name (a shared first component such as
``module.`` removed automatically when that pairs more; prefixes typed in *Strip* removed from
every name first), by order, or by shape. A path that does not exist is said under its field and
the dialog stays open.
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.models.matching import MatchRules
from core.text.names import printable_name
from inspector.widgets import palette

__all__ = ["CompareModelsDialog"]

#: The pairing modes offered, with their labels.
MODES = {"name": "by name", "order": "by order", "shape": "by shape"}


class CompareModelsDialog(QDialog):
    """The two paths and the pairing rules (module docstring); :meth:`choice` after ``accept``."""

    def __init__(self, parent: QWidget | None = None, *, path_a: str = "", directory: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("compareModels")
        self.setWindowTitle("Compare models")
        self._directory = directory
        self.path_a = QLineEdit(path_a, self, objectName="compareModels.a")
        self.path_b = QLineEdit(self, objectName="compareModels.b")
        for edit in (self.path_a, self.path_b):
            edit.setPlaceholderText("a model file (safetensors, PyTorch, ONNX, GGUF...) or a folder of dumps")
            edit.setMinimumWidth(420)
        self.match = QComboBox(self, objectName="compareModels.match")
        for mode, label in MODES.items():
            self.match.addItem(label, mode)
        self.strip = QLineEdit(self, objectName="compareModels.strip")
        self.strip.setPlaceholderText("prefixes to remove from names, comma-separated (e.g. module., model.)")
        self.error = QLabel(self, objectName="compareModels.error")
        self.error.setTextFormat(Qt.PlainText)
        self.error.setWordWrap(True)
        self.error.setStyleSheet(palette.inline_style("error"))
        self.error.hide()
        form = QFormLayout()
        form.addRow("A", self._path_row(self.path_a, "a"))
        form.addRow("B", self._path_row(self.path_b, "b"))
        form.addRow("Pair tensors", self.match)
        form.addRow("Strip", self.strip)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self, objectName="compareModels.buttons")
        buttons.button(QDialogButtonBox.Ok).setText("Compare")
        buttons.accepted.connect(self._on_accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def _path_row(self, edit: QLineEdit, side: str) -> QWidget:
        row = QWidget(self)
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(edit, 1)
        file_button = QPushButton("File…", row, objectName=f"compareModels.{side}File")
        folder_button = QPushButton("Folder…", row, objectName=f"compareModels.{side}Folder")
        file_button.clicked.connect(lambda: self._choose(edit, folder=False))
        folder_button.clicked.connect(lambda: self._choose(edit, folder=True))
        layout.addWidget(file_button)
        layout.addWidget(folder_button)
        return row

    def _choose(self, edit: QLineEdit, *, folder: bool) -> None:
        start = edit.text() or self._directory
        if folder:
            path = QFileDialog.getExistingDirectory(self, "Choose a folder of tensors", start)
        else:
            path, _ = QFileDialog.getOpenFileName(self, "Choose a model file", start)
        if path:
            edit.setText(path)

    def choice(self) -> tuple[str, str, MatchRules]:
        """A's path, B's path and the pairing rules as typed."""
        strip = tuple(word.strip() for word in self.strip.text().split(",") if word.strip())
        return (self.path_a.text().strip(), self.path_b.text().strip(),
                MatchRules(mode=self.match.currentData(), strip=strip))

    def _on_accept(self) -> None:
        a, b, _rules = self.choice()
        for side, path in (("A", a), ("B", b)):
            if not path:
                return self._refuse(f"{side}: give a model file or a folder")
            if not os.path.exists(path):
                return self._refuse(f"{side}: '{printable_name(path)}' does not exist (check the path, or "
                                    "choose it with File… or Folder…)")
        self.accept()

    def _refuse(self, message: str) -> None:
        self.error.setText(message)
        self.error.show()
