"""What the user can do with the bytes of the hex view: copy, go to an offset, use as header offset.

:class:`HexActions` puts the actions on a :class:`~inspector.widgets.hex_view.HexView` (its
context menu, with shortcuts active while the view has the focus) and the main window lists them
in its menus.

Rules
-----
- Copy as hex (Ctrl+C): the selected bytes as two-digit lowercase hex separated by spaces,
  ``"00 01 ff"``; copy as Python bytes (Ctrl+Shift+C): a Python ``bytes`` literal that evaluates
  to exactly those bytes, ``b'\\x00\\x01\\xff'`` (``repr``). At most :data:`COPY_LIMIT` bytes are
  copied; more are refused with a message, never truncated silently.
- Go to offset (Ctrl+G): :func:`parse_offset` reads decimal or ``0x`` hex (``_`` separators
  allowed), negative offsets count from the end of the file; the byte there becomes the
  selection, as if clicked (so the data inspector follows).
- Use as header offset (Ctrl+Shift+H): the first selected byte's offset becomes the document's
  header offset through :attr:`HexActions.headerOffsetChosen`, which the main window connects to
  :meth:`inspector.bytes.link.BytesLink.use_as_header_offset` (an undoable document edit).
- Every problem is reported through :attr:`HexActions.message`, never raised out of a slot.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QInputDialog

from core.errors import CoreError, describe_error
from inspector.widgets.actions import without_arguments
from inspector.widgets.hex_view import HexView

__all__ = ["COPY_LIMIT", "HexActions", "bytes_as_hex", "bytes_as_python", "parse_offset"]

#: Most bytes one copy puts on the clipboard.
COPY_LIMIT = 1 << 20


def bytes_as_hex(data: bytes) -> str:
    """``b"\\x00\\x01\\xff"`` -> ``"00 01 ff"``."""
    return data.hex(" ")


def bytes_as_python(data: bytes) -> str:
    """A Python bytes literal for ``data``: ``b"\\x00A"`` -> ``"b'\\x00A'"``."""
    return repr(bytes(data))


def parse_offset(text: str, size: int) -> int:
    """A byte offset typed by the user: decimal or ``0x`` hex, ``_`` allowed, negative from the end.

    Raises
    ------
    CoreError
        The text is not an integer, or the offset is not in ``[0, size)`` (the message gives
        the valid range).
    """
    body = text.strip().replace("_", "")
    try:
        offset = int(body, 0)
    except ValueError:
        raise CoreError(f"{text.strip()!r} is not an offset: type a byte number such as 4096 or 0x1000") from None
    if offset < 0:
        offset += size
    if not 0 <= offset < size:
        raise CoreError(f"offset {text.strip()} is outside the file: its bytes are 0 to {size - 1:,}"
                         if size else "the file is empty: there is no byte to go to")
    return offset


class HexActions(QObject):
    """The hex view's actions (see the module rules).

    Signals
    -------
    headerOffsetChosen(int)
        The byte offset the user chose as header offset.
    message(str)
        A one-line note for the status bar (what was copied, or why not).
    """

    headerOffsetChosen = Signal("qint64")
    message = Signal(str)

    def __init__(self, hex_view: HexView, parent: QObject | None = None) -> None:
        super().__init__(parent if parent is not None else hex_view)
        self._view = hex_view
        self.copy_hex_action = self._add("Copy bytes as &hex", QKeySequence.StandardKey.Copy,
                                         lambda: self.copy("hex"))
        self.copy_python_action = self._add("Copy bytes as &Python bytes", "Ctrl+Shift+C",
                                            lambda: self.copy("python"))
        self.go_to_action = self._add("&Go to offset…", "Ctrl+G", self._ask_offset)
        self.header_offset_action = self._add("Use byte as &header offset", "Ctrl+Shift+H",
                                              self.use_as_header_offset)
        hex_view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)

    def _add(self, text: str, key, slot) -> QAction:
        action = QAction(text, self._view)
        action.setShortcut(QKeySequence(key))
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.triggered.connect(without_arguments(slot))
        self._view.addAction(action)
        return action

    @property
    def actions(self) -> list[QAction]:
        return [self.copy_hex_action, self.copy_python_action, self.go_to_action, self.header_offset_action]

    def copy(self, kind: str) -> str | None:
        """Copy the selection as ``"hex"`` or ``"python"``; the text copied, or None (and why)."""
        try:
            data = self._view.selected_bytes(COPY_LIMIT)
        except ValueError as error:
            self.message.emit(describe_error(error).message)
            return None
        if not data:
            self.message.emit("select bytes in the Bytes panel to copy them")
            return None
        text = bytes_as_hex(data) if kind == "hex" else bytes_as_python(data)
        QApplication.clipboard().setText(text)
        what = "hex" if kind == "hex" else "a Python bytes literal"
        self.message.emit(f"copied {len(data):,} byte{'s' if len(data) != 1 else ''} as {what}")
        return text

    def go_to(self, text: str) -> bool:
        """Select the byte at the offset typed in ``text``; False (and why) if it is not one."""
        try:
            offset = parse_offset(text, self._view.file_size())
        except ValueError as error:
            self.message.emit(describe_error(error).message)
            return False
        self._view.select_bytes(offset, offset)
        self._view.setFocus()
        return True

    def use_as_header_offset(self) -> None:
        """The first selected byte becomes the header offset (through :attr:`headerOffsetChosen`)."""
        selection = self._view.selection()
        if selection is None:
            self.message.emit("click a byte in the Bytes panel first: it becomes the header offset")
            return
        self.headerOffsetChosen.emit(selection[0])

    def _ask_offset(self) -> None:
        size = self._view.file_size()
        if size == 0:
            self.message.emit("no bytes to go to: open a non-empty file")
            return
        text, ok = QInputDialog.getText(self._view, "Go to offset",
                                        f"Byte offset (0 to {size - 1:,}; 0x for hex, negative from the end):")
        if ok and text.strip():
            self.go_to(text)
