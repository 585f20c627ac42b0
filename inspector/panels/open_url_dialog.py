"""File > Open URL…: open a remote file (``https://``, ``s3://``, ``gs://``, ``hf://``, any fsspec
protocol) or a glob of them by typing or choosing a recent URL.

The field lists the recent URLs (newest first; a URL carrying credentials is never remembered,
:mod:`inspector.state.settings_store`). Text that is no URL is said under the field and the
dialog stays open; whether the URL can be opened is the window's to find out (its message then
shows in the window, as for a file). *Cache* is the size of the one block cache every remote
file reads through (the ``remote/cache_mib`` setting, within
:data:`inspector.state.settings_store.CACHE_MIB_RANGE`); :meth:`cache_mib` after ``accept``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from core.files.remote import is_url
from inspector.state.settings_store import CACHE_MIB_RANGE
from inspector.widgets import palette

__all__ = ["OpenUrlDialog"]


class OpenUrlDialog(QDialog):
    """The URL field and its recent URLs (module docstring); :meth:`url` after ``accept``."""

    def __init__(self, parent: QWidget | None = None, *, recent: list[str] | tuple[str, ...] = (),
                 cache_mib: int = 256) -> None:
        super().__init__(parent)
        self.setObjectName("openUrl")
        self.setWindowTitle("Open URL")
        self.field = QComboBox(self, objectName="openUrl.url")
        self.field.setEditable(True)
        self.field.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.field.addItems(list(recent))
        self.field.setCurrentIndex(-1)
        self.field.lineEdit().setPlaceholderText("https://host/model.safetensors, s3://bucket/shards/*.tfrecord, hf://...")
        self.field.setMinimumWidth(520)
        self.error = QLabel(self, objectName="openUrl.error")
        self.error.setTextFormat(Qt.PlainText)
        self.error.setWordWrap(True)
        self.error.setStyleSheet(palette.inline_style("error"))
        self.error.hide()
        hint = QLabel("Read in place: only the bytes shown are fetched. Credentials come from each protocol's "
                      "own configuration (e.g. AWS_PROFILE, ~/.aws), never from the URL.", self)
        hint.setWordWrap(True)
        self.cache = QSpinBox(self, objectName="openUrl.cacheMib")
        self.cache.setRange(*CACHE_MIB_RANGE)
        self.cache.setSingleStep(64)
        self.cache.setSuffix(" MiB")
        self.cache.setValue(cache_mib)
        self.cache.setToolTip("Memory the remote files' block cache may hold (least recently used blocks go first)")
        cache_row = QHBoxLayout()
        cache_row.addWidget(QLabel("Cache", self))
        cache_row.addWidget(self.cache)
        cache_row.addStretch(1)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self, objectName="openUrl.buttons")
        buttons.button(QDialogButtonBox.Ok).setText("Open")
        buttons.accepted.connect(self._on_accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("URL", self))
        layout.addWidget(self.field)
        layout.addWidget(self.error)
        layout.addWidget(hint)
        layout.addLayout(cache_row)
        layout.addWidget(buttons)

    def url(self) -> str:
        """The URL as typed (spaces around it removed)."""
        return self.field.currentText().strip()

    def cache_mib(self) -> int:
        """The block cache's size chosen, in MiB."""
        return self.cache.value()

    def _on_accept(self) -> None:
        url = self.url()
        if not url:
            return self._refuse("type a URL, e.g. https://host/path/model.safetensors")
        if not is_url(url):
            return self._refuse("not a URL (it needs a scheme such as https:// or s3://); open local files with "
                                "File > Open…")
        self.accept()

    def _refuse(self, message: str) -> None:
        self.error.setText(message)
        self.error.show()
