"""SliceEditor: edit a ``tf.strided_slice`` spec as an expression, a grid or five mask integers.

The three editors show one :class:`core.slicing.spec.SliceSpec` and stay in two-way sync: a
change in any of them rewrites the others (the one being typed in is left alone, so the cursor
does not jump). The widget holds no slicing rules: the engine parses (:func:`parse_slice`),
prints (:func:`format_slice`), validates (:class:`SliceSpec`) and explains
(:meth:`SliceSpec.analyze`); the widget shows what it says.

The expression text
-------------------
What the user types in the expression line stays exactly as typed: ``1, 2`` stays ``1, 2``
(not ``[1, 2]``), ``::2`` stays ``::2`` and an emptied line stays empty (the whole tensor),
whatever happens to the keyboard focus (Enter, Tab, another window). Every text that parses
becomes the document's spec at once, so the view follows each keystroke; a text that does not
parse shows its error under the line and changes nothing (the grid and the view keep the last
slice that parsed). The line is rewritten in canonical form (:func:`format_slice`) only when
the spec changes by other means -- the grid, the mask integers, Reset, undo / redo, files
opened, :meth:`SliceEditor.set_spec` -- or on request, with the *Tidy* button.

Typing a begin (end) value into the grid of an entry whose begin_mask (end_mask) bit is set
clears that bit, since TensorFlow would otherwise ignore the value; the explanation says so
under *Last edit* until the next edit.

States and signals
------------------
- The spec shown is always the document's (:attr:`Document.slice_spec`); the editor keeps no
  copy and writes through :meth:`Document.set_slice_spec`.
- *Well-formed* spec: it parses / constructs. Every well-formed user change is one undo
  command on the document's history (consecutive keystrokes in the same field merge into one;
  Enter, leaving the field, or any other edit ends the merge). Ctrl+Z / Ctrl+Shift+Z (Ctrl+Y)
  in the editor's fields and grid undo / redo the document, not the line edit's text. A
  syntax error or a refused value is shown inline and changes nothing: the grid keeps showing
  the last well-formed spec and the document keeps its view.
- *Valid* spec: well-formed and, once an input shape is known, accepted by
  ``spec.analyze(shape)``. :attr:`SliceEditor.specChanged` is emitted for each user change
  (typing, clicking, undo, redo, reset) that makes a valid spec different from the last one
  emitted or set from outside. A well-formed spec the shape refuses (``[7]`` on a dimension of
  5) shows the engine's message and emits nothing; if a later input shape (a new result, or
  :meth:`set_input_shape`) makes that pending spec valid, it is emitted then.
- :meth:`set_spec` / :meth:`set_text` (from the outside) set the document's spec (one undo
  step) and emit nothing.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QFontDatabase,
    QInputMethodEvent,
    QTextCharFormat,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.errors import SliceError, SliceSyntaxError, describe_error
from core.slicing.editing import with_mask
from core.slicing.expr import format_slice, parse_slice
from core.slicing.feedback import describe, highlight_html
from core.slicing.spec import SliceSpec
from inspector.slice_editor.copy_button import SliceCopyButton, copy_text
from inspector.slice_editor.entries_view import SliceEntriesView
from inspector.slice_editor.mask_fields import MaskFields
from inspector.state.commands import CommandStack
from inspector.state.document import Document
from inspector.widgets import palette
from inspector.widgets.history_keys import history_step

__all__ = ["SliceEditor"]

_EXPRESSION = "expression"


class SliceEditor(QWidget):
    """Expression line, entry grid, mask integers and live engine feedback for one slice spec.

    Parameters
    ----------
    document : Document, optional
        The document whose slice spec is shown and edited (its results give the input
        shape). Without one the editor makes its own (no files: tests, standalone use).
    parent : QWidget, optional

    Signals
    -------
    specChanged(object)
        A valid :class:`SliceSpec` the user just produced (see the module docstring for
        exactly when); informational, the document already has it.
    """

    specChanged = Signal(object)

    def __init__(self, document: Document | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document if document is not None else Document(self)
        self._emitted = self._document.slice_spec
        self._shape: tuple[int, ...] | None = None
        self._input_error = ""  # syntax error or refused value: the spec did not change
        self._error_span: tuple[int, int] | None = None
        self._feedback = describe(self._emitted, None)
        self._committing = False
        self._committed_by: str | None = None  # the field whose edit is being committed
        self._pending_note = ""  # what the grid edit being committed did besides its value
        self._edit_note = ""  # shown under "Last edit" in the explanation until the next edit
        self._build()
        self._document.sliceChanged.connect(self._on_document_slice)
        self._document.resultChanged.connect(lambda result: self.set_input_shape(result.tensor_shape))
        self._document.filesChanged.connect(self._on_files_changed)
        self._document.historyChanged.connect(self._on_history_changed)
        result = self._document.result
        self._shape = None if result is None else tuple(result.tensor_shape)
        self._show(self._document.slice_spec, shown_by=None, emit=False)
        self._show_unparsed()
        self._on_history_changed()

    # ------------------------------------------------------------------ construction

    def _build(self) -> None:
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self._expression = QLineEdit(self, objectName="slice.expression")
        self._expression.setFont(mono)
        self._expression.setPlaceholderText("[2, ..., 5:8, tf.newaxis]    ([] = whole tensor)")
        self._expression.setToolTip(
            "Index expression as in x[...]: integers, start:stop:step, ..., tf.newaxis; "
            "or strided_slice(begin=[..], end=[..], ...) for mask-only specs"
        )
        self._expression.textEdited.connect(self._on_expression_edited)
        self._expression.editingFinished.connect(self._on_expression_finished)

        # No shortcuts on these actions: the keys are handled by eventFilter (and, in the main
        # window, by its Edit menu), so the same key is never bound twice.
        self._undo_action = QAction("Undo", self)
        self._undo_action.triggered.connect(self._document.undo)
        self._redo_action = QAction("Redo", self)
        self._redo_action.triggered.connect(self._document.redo)
        undo_button = QToolButton(self, objectName="slice.undo")
        redo_button = QToolButton(self, objectName="slice.redo")
        undo_button.setDefaultAction(self._undo_action)
        redo_button.setDefaultAction(self._redo_action)
        for button in (undo_button, redo_button):
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)

        self._tidy_button = tidy_button = QPushButton("Tidy", self, objectName="slice.tidy")
        tidy_button.setToolTip(
            "Rewrite the expression in canonical form, e.g. 1, ::2 -> [1, ::2] (the slice "
            "does not change; what you type is otherwise kept as typed)"
        )
        tidy_button.clicked.connect(self._on_tidy)
        self._reset_button = reset_button = QPushButton("Reset", self, objectName="slice.reset")
        reset_button.setToolTip("Empty spec: the whole tensor")
        reset_button.clicked.connect(self._on_reset)
        self._copy_button = copy_button = SliceCopyButton(self)
        copy_button.setObjectName("slice.copyAs")
        self._copy_actions = copy_button.copy_actions()

        # The expression has a line of its own: a typed expression is shown whole at any width.
        top = QVBoxLayout()
        top.addWidget(self._expression)
        buttons = QHBoxLayout()
        for widget in (tidy_button, undo_button, redo_button, reset_button, copy_button):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        top.addLayout(buttons)

        self._error_label = QLabel(self)
        self._error_label.setObjectName("slice.error")
        self._error_label.setWordWrap(True)
        self._error_label.setTextFormat(Qt.TextFormat.RichText)
        self._error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self._entries = SliceEntriesView(self)
        self._entries.specEdited.connect(self._on_entries_edited)
        self._entries.editRejected.connect(self._on_value_rejected)
        self._entries.maskBitCleared.connect(self._on_mask_bit_cleared)

        self._masks = MaskFields(self)
        self._masks.maskEdited.connect(self._on_mask_edited)
        self._masks.editingFinished.connect(self._on_mask_finished)
        self._mask_fields = self._masks.fields()

        self._feedback_view = QTextBrowser(self, objectName="slice.explanation")
        self._feedback_view.setOpenLinks(False)
        self._feedback_view.setMinimumHeight(120)

        for line in (self._expression, *self._mask_fields.values(), self._entries.table):
            line.installEventFilter(self)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self._error_label)
        layout.addWidget(self._entries, 2)
        layout.addWidget(self._masks)
        layout.addWidget(self._feedback_view, 3)

    # ------------------------------------------------------------------ public API

    @property
    def expression_edit(self) -> QLineEdit:
        """The expression line (for tests and for focusing it from a shortcut)."""
        return self._expression

    @property
    def document(self) -> Document:
        """The document whose slice this editor shows and edits."""
        return self._document

    @property
    def history(self) -> CommandStack:
        """The document's edit history (slice and decode edits)."""
        return self._document.history

    def spec(self) -> SliceSpec:
        """The spec shown by the grid: the document's, the last well-formed one (valid or not
        for the shape)."""
        return self._document.slice_spec

    def text(self) -> str:
        """``format_slice(self.spec())``: the canonical text of :meth:`spec`.

        The expression line may hold another text for the same spec (``1, 2`` for ``[1, 2]``:
        what the user typed is kept) or, after a syntax error, text that does not parse.
        """
        return format_slice(self.spec())

    def set_spec(self, spec: SliceSpec) -> None:
        """Make ``spec`` the document's slice (one undo step) without emitting :attr:`specChanged`.

        Raises
        ------
        TypeError
            When ``spec`` is not a :class:`SliceSpec`.
        """
        if not isinstance(spec, SliceSpec):
            raise TypeError(f"set_spec takes a SliceSpec, not {type(spec).__name__}")
        self._document.end_typing()
        self._emitted = spec
        if spec == self.spec() and self._document.unparsed_slice_text is None:
            self._show(spec, shown_by=None, emit=False)
        else:
            self._document.set_slice_spec(spec, label="set slice")  # -> _on_document_slice

    def set_text(self, text: str) -> None:
        """Parse ``text`` and :meth:`set_spec` it (shown in canonical form), emitting nothing.

        Text that does not parse is left in the expression line with its error shown inline
        (see :meth:`error_text`); the spec stays what it was. Never raises for bad text.
        """
        try:
            spec = parse_slice(text)
        except SliceSyntaxError as error:
            self._document.end_typing()
            self._expression.setText(text)
            self._set_input_error(describe_error(error).message, (error.column, error.length))
            return
        self.set_spec(spec)

    def set_input_shape(self, shape: Sequence[int] | None) -> None:
        """Analyse against a new input shape (``None``: no tensor yet) and refresh feedback.

        If the spec the user left pending (well-formed but refused by the old shape) is valid
        for the new one, :attr:`specChanged` is emitted for it.
        """
        self._shape = None if shape is None else tuple(int(d) for d in shape)
        self._analyse(emit=True)

    def copy_text(self, kind: str) -> str:
        """The current spec as code: ``"tf"`` (``to_tf(spec, "x")``), ``"numpy"``
        (``to_numpy(spec, "x")``) or ``"java"`` (``to_java(spec)``, ``""`` when all masks are 0).

        Raises
        ------
        ValueError
            For another ``kind``.
        SliceError
            For ``"numpy"`` when no index expression expresses the spec.
        """
        return copy_text(self.spec(), kind)

    def error_text(self) -> str:
        """The inline error: a syntax error or refused value first, else the engine's error
        for the current shape; ``""`` when all is well."""
        return self._input_error or self._feedback.error

    def error_span(self) -> tuple[int, int] | None:
        """``(column, length)`` of the syntax error underlined in the expression, or None."""
        return self._error_span

    def explanation_text(self) -> str:
        """The live feedback as plain text: shapes, output dims, input dims, notes, and under
        ``Last edit:`` what the last grid edit did besides its value (a cleared mask bit)."""
        text = self._feedback.plain_text()
        return f"{text}\nLast edit:\n  {self._edit_note}" if self._edit_note else text

    def tidy(self) -> None:
        """Rewrite the expression line in canonical form (the *Tidy* button); the spec is
        unchanged. Text that does not parse is left as it is, with its error."""
        if self._error_span is None:
            self._set_line_text(self._expression, format_slice(self.spec()))

    # ------------------------------------------------------------------ Qt overrides

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # A QLineEdit keeps Ctrl+Z / Ctrl+Shift+Z for its own text; here they mean the document
        # (every field applies live, so the line's own undo would only desynchronise it).
        if event.type() == QEvent.Type.KeyPress:
            step = history_step(event)
            if step == "undo":
                self._document.undo()
                return True
            if step == "redo":
                self._document.redo()
                return True
        return super().eventFilter(watched, event)

    # ------------------------------------------------------------------ user edits

    def _on_expression_edited(self, text: str) -> None:
        try:
            spec = parse_slice(text)
        except SliceSyntaxError as error:
            self._set_input_error(describe_error(error).message, (error.column, error.length))
            return
        self._commit(spec, "type slice", field=_EXPRESSION)

    def _on_expression_finished(self) -> None:
        # Enter or focus out (also when the window loses focus) ends the undo step; the text
        # stays as typed (Tidy rewrites it).
        self._document.end_typing()

    def _on_tidy(self) -> None:
        self._document.end_typing()
        self.tidy()

    def _on_mask_edited(self, name: str, value: object) -> None:
        if value is None:
            self._set_input_error(f"{name} is empty (type an integer; 0 sets no bits)")
            return
        if isinstance(value, str):
            self._set_input_error(f"{name} {value!r} is not an integer (type e.g. 5 or 0x5)")
            return
        try:
            spec = with_mask(self.spec(), name, value)
        except SliceError as error:
            self._set_input_error(describe_error(error).message)
            return
        self._commit(spec, f"edit {name}", field=f"mask:{name}")

    def _on_mask_finished(self) -> None:
        self._document.end_typing()

    def _on_entries_edited(self, spec: SliceSpec, text: str) -> None:
        self._commit(spec, text)

    def _on_value_rejected(self, message: str) -> None:
        self._set_input_error(message)

    def _on_mask_bit_cleared(self, note: str) -> None:
        self._pending_note = note  # shown by the _show of the edit that follows at once

    def _on_reset(self) -> None:
        self._commit(SliceSpec.full(), "reset slice")

    def _on_history_changed(self) -> None:
        history = self._document.history
        self._undo_action.setEnabled(history.can_undo)
        self._redo_action.setEnabled(history.can_redo)
        undo, redo = history.undo_label, history.redo_label
        self._undo_action.setToolTip(f"Undo {undo} (Ctrl+Z)" if undo else "Nothing to undo")
        self._redo_action.setToolTip(f"Redo {redo} (Ctrl+Shift+Z)" if redo else "Nothing to redo")

    # ------------------------------------------------------------------ state

    def _commit(self, spec: SliceSpec, text: str, field: str | None = None) -> None:
        """Write a well-formed user change to the document (one undo command).

        ``field`` names the line edit typed in (``"expression"`` or ``"mask:<name>"``): it keeps
        its text (the cursor stays put) and its consecutive edits merge into one command.
        """
        if field is None:
            self._document.end_typing()
        if spec == self.spec() and self._document.unparsed_slice_text is None:
            self._show(spec, shown_by=field, emit=True)  # clears a stale input error
            return
        self._committing, self._committed_by = True, field
        try:
            self._document.set_slice_spec(spec, field=field, label=text)  # -> _on_document_slice
        finally:
            self._committing, self._committed_by = False, None

    def _on_files_changed(self) -> None:
        """Other files: no input shape until they decode; their spec comes from outside."""
        self._emitted = self.spec()
        self._shape = None
        self._analyse(emit=False)

    def _on_document_slice(self, spec: SliceSpec) -> None:
        """The document's spec changed: by this editor, an undo/redo, or from outside."""
        if self._committing:
            self._show(spec, shown_by=self._committed_by, emit=True)
        elif self._document.history.replaying:  # an undo or redo: a user change too
            self._show(spec, shown_by=None, emit=True)
        else:  # from outside (files opened, set_spec): nothing to tell
            self._emitted = spec
            self._show(spec, shown_by=None, emit=False)
            self._show_unparsed()

    def _show_unparsed(self) -> None:
        """Text the document was opened with that does not parse: shown with its error."""
        text = self._document.unparsed_slice_text
        if text is None:
            return
        try:
            parse_slice(text)
        except SliceSyntaxError as error:
            self._expression.setText(text)
            self._set_input_error(error.message, (error.column, error.length))

    def _show(self, spec: SliceSpec, shown_by: str | None, emit: bool) -> None:
        """Show ``spec`` (the document's), rewrite every view but ``shown_by``, analyse, maybe emit."""
        self._input_error, self._error_span = "", None
        self._edit_note, self._pending_note = self._pending_note, ""
        if shown_by != _EXPRESSION:
            self._set_line_text(self._expression, format_slice(spec))
        self._entries.set_spec(spec)  # always: the grid only shows, it never edits itself
        keep = shown_by[len("mask:") :] if shown_by and shown_by.startswith("mask:") else None
        self._masks.set_spec(spec, keep=keep)
        self._analyse(emit)

    def _analyse(self, emit: bool) -> None:
        """Ask the engine about the current spec and shape; emit it when valid and new."""
        spec = self.spec()
        self._feedback = describe(spec, self._shape)
        self._copy_button.set_spec(spec)
        self._render()
        if emit and not self._feedback.error and spec != self._emitted:
            self._emitted = spec  # first: a slot may call back into set_input_shape
            self.specChanged.emit(spec)

    def _set_input_error(self, message: str, span: tuple[int, int] | None = None) -> None:
        self._input_error, self._error_span = message, span
        self._render()

    def _render(self) -> None:
        error = self.error_text()
        message = palette.colored_html(html.escape(error), "error")
        if self._error_span is not None:
            shown = highlight_html(self._expression.text(), *self._error_span, color=palette.ERROR,
                                   shade=palette.ERROR_SHADE)
            self._error_label.setText(
                f'<tt style="font-size:large">{shown}</tt><br>{message}'
                f'<br><i style="color:{palette.MUTED}">(nothing changed: the grid shows the last '
                "slice that parsed, the table and plot the last good view)</i>"
            )
        else:
            self._error_label.setText(message)
        self._error_label.setVisible(bool(error))
        self._tidy_button.setEnabled(self._error_span is None)
        self._mark_expression(self._error_span)
        scroll = self._feedback_view.verticalScrollBar()
        position = scroll.value()  # setHtml scrolls to the top; keep the reader's place
        shown = self._feedback.html(error_color=palette.ERROR, note_color=palette.NOTE)
        if self._edit_note:
            shown += (f"<p style='margin-bottom:0'><b>Last edit</b></p>"
                      f"<ul><li style='color:{palette.NOTE}'>{html.escape(self._edit_note)}</li></ul>")
        self._feedback_view.setHtml(shown)
        scroll.setValue(position)

    def _mark_expression(self, span: tuple[int, int] | None) -> None:
        """Underline the culprit inside the line edit itself (input-method text formats)."""
        attributes = []
        if span is not None:
            column, length = span
            fmt = QTextCharFormat()
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            fmt.setUnderlineColor(QColor(palette.ERROR))
            fmt.setBackground(QColor(palette.ERROR_SHADE))
            fmt.setForeground(QColor(palette.ERROR))
            start = column - self._expression.cursorPosition()
            attributes.append(
                QInputMethodEvent.Attribute(
                    QInputMethodEvent.AttributeType.TextFormat, start, max(length, 1), fmt
                )
            )
        QCoreApplication.sendEvent(self._expression, QInputMethodEvent("", attributes))

    @staticmethod
    def _set_line_text(line: QLineEdit, text: str) -> None:
        if line.text() != text:
            line.setText(text)
            if not line.hasFocus():  # show a long explicit form from its start
                line.setCursorPosition(0)
