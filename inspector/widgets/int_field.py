"""A line edit for a 64-bit integer that may be left empty (``None``).

``QSpinBox`` stops at 2**31 - 1, too small for byte offsets in large files; this field accepts any
integer text and leaves range checks to the engine, whose message then appears next to it.

The text is the user's: ``0x40``, ``64`` and ``6_4`` all mean 64, and :meth:`IntField.set_value`
leaves a text alone when it already means the value, so a field never rewrites what is typed
in it (a document echoing ``0x4`` back as ``4`` would turn ``0x40`` into ``40``).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLineEdit, QWidget


def parse_int_text(text: str) -> int | None | str:
    """What an integer field's text means.

    Rules: surrounding spaces and every ``_`` are ignored; empty means ``None``; ``0x`` / ``0o``
    / ``0b`` prefixes (any case, optionally after a sign) give hexadecimal, octal and binary;
    anything else is decimal, leading zeros allowed (``010`` is 10).

    Returns
    -------
    int, None or str
        The integer, ``None`` for an empty text, or ``text`` itself when it is not an integer
        (the caller reports it).
    """
    cleaned = text.strip().replace("_", "")
    if not cleaned:
        return None
    prefixed = cleaned.lstrip("+-")[:2].lower() in ("0x", "0o", "0b")
    try:
        return int(cleaned, 0) if prefixed else int(cleaned, 10)
    except ValueError:
        return text


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
        """The integer, ``None`` when empty, or the raw text when it is not an integer
        (:func:`parse_int_text`)."""
        return parse_int_text(self.text())

    def set_value(self, value: int | None) -> None:
        """Show ``value`` without emitting :attr:`valueEdited`; a text that already means
        ``value`` (``0x40`` for 64) is kept as typed."""
        if self.value() != value:
            self.setText("" if value is None else str(value))

    def _on_text_edited(self, _text: str) -> None:
        self.valueEdited.emit(self.value())
