"""File names and messages shown as text, never interpreted: no rich text, no mnemonics, no control characters.

A file name may hold anything but ``/`` and NUL. Qt interprets text in three places where a name
can end up: a ``QLabel`` or tool tip guesses rich text (``Qt::mightBeRichText``), so a file named
``<h1 style="color:green">FILE VERIFIED OK</h1>.bin`` would print those words in large green
letters; a menu entry turns ``&`` into a keyboard mnemonic; and control characters (newlines,
escape sequences) break a line or vanish. Rules:

- Every label that shows a name or a message is plain text (:func:`make_plain`); a label that
  must stay rich text (the main banner's ``<b>``) escapes what it shows (:func:`html_text`).
- Names are shown as :func:`display_name` gives them: the base name through
  :func:`core.text.names.printable_name` (control characters escaped).
- Tool tips that show names or messages go through :func:`tooltip_text`; menu entries through
  :func:`menu_text`.
"""

from __future__ import annotations

import html
import os

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from core.text.names import printable_name

__all__ = ["display_name", "html_text", "make_plain", "menu_text", "tooltip_text"]


def display_name(path: str | os.PathLike) -> str:
    """The base name of ``path`` (the path itself if it has none), control characters escaped."""
    text = os.fspath(path)
    return printable_name(os.path.basename(text) or text)


def make_plain(*labels: QLabel) -> None:
    """Show the text of ``labels`` as plain text, whatever it looks like."""
    for label in labels:
        label.setTextFormat(Qt.TextFormat.PlainText)


def html_text(text: str) -> str:
    """``text`` escaped for a rich-text label (``<``, ``>`` and ``&``; quotes need no escaping there)."""
    return html.escape(text, quote=False)


def tooltip_text(text: str) -> str:
    """A tool tip showing ``text`` literally (tool tips guess rich text; this one is escaped
    rich text, with its line breaks kept). ``""`` stays ``""`` (no tool tip)."""
    if not text:
        return ""
    return "<qt>" + html.escape(text).replace("\n", "<br>") + "</qt>"


def menu_text(text: str) -> str:
    """``text`` for a menu entry: control characters escaped, ``&`` shown rather than taken
    as a mnemonic."""
    return printable_name(text).replace("&", "&&")
