"""A line edit for a 64-bit integer that may be left empty (``None``).

``QSpinBox`` stops at 2**31 - 1, too small for byte offsets in large files; this field accepts any
integer text and leaves range checks to the engine, whose message then appears next to it.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLineEdit, QWidget


class IntField(QLineEdit):
    """Integer or empty. Emits :attr:`valueEdited` with the new value (``int``, ``None``) or,
    when the text is not an integer, with the text itself so the caller can report it."""

    valueEdited = Signal(object)

    def __init__(self, placeholder: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPlaceholderText(placeholder)
        self.setClearButtonEnabled(True)
        self.textEdited.connect(self._on_text_edited)

    def value(self) -> int | None | str:
        """The integer, ``None`` when empty, or the raw text when it is not an integer."""
        text = self.text().strip().replace("_", "")
        if not text:
            return None
        try:
            return int(text, 0) if text.lower().startswith(("0x", "-0x")) else int(text)
        except ValueError:
            return self.text()

    def set_value(self, value: int | None) -> None:
        """Show ``value`` without emitting :attr:`valueEdited`."""
        text = "" if value is None else str(value)
        if text != self.text():
            self.setText(text)

    def _on_text_edited(self, _text: str) -> None:
        self.valueEdited.emit(self.value())
