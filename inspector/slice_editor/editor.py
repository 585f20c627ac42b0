"""SliceEditor: edit a ``tf.strided_slice`` spec as an expression, a grid or five mask integers.

The three editors show one :class:`core.slicing.spec.SliceSpec` and stay in two-way sync: a
change in any of them rewrites the others (the one being typed in is left alone, so the cursor
does not jump). The widget holds no slicing rules: the engine parses (:func:`parse_slice`),
prints (:func:`format_slice`), validates (:class:`SliceSpec`) and explains
(:meth:`SliceSpec.analyze`); the widget shows what it says.

States and signals
------------------
- *Well-formed* spec: it parses / constructs. Every well-formed user change is one undo
  command (consecutive keystrokes in the same field merge into one; Enter, leaving the field,
  or any other edit ends the merge). A syntax error or a refused value is shown inline and
  changes nothing: the grid keeps showing the last well-formed spec.
- *Valid* spec: well-formed and, once an input shape is known, accepted by
  ``spec.analyze(shape)``. :attr:`SliceEditor.specChanged` is emitted for each user change
  (typing, clicking, undo, redo, reset) that makes a valid spec different from the last one
  emitted or set from outside. A well-formed spec the shape refuses (``[7]`` on a dimension of
  5) shows the engine's message and emits nothing; if a later :meth:`set_input_shape` makes
  that pending spec valid, it is emitted then, so the lead never keeps a stale spec.
- :meth:`set_spec` / :meth:`set_text` (from the outside) emit nothing and record no undo step.
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
    QUndoStack,
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
from inspector.state.slice_history import REDO_KEYS, UNDO_KEYS, SpecCommand, TypingSessions, history_step
from inspector.widgets import palette

__all__ = ["SliceEditor"]

_EXPRESSION = "expression"


class SliceEditor(QWidget):
    """Expression line, entry grid, mask integers and live engine feedback for one slice spec.

    Parameters
    ----------
    parent : QWidget, optional

    Signals
    -------
    specChanged(object)
        A valid :class:`SliceSpec` the user just produced (see the module docstring for
        exactly when). Connect it to the document, e.g.
        ``editor.specChanged.connect(lambda s: document.set_slice_text(format_slice(s)))``.
    """

    specChanged = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._spec = SliceSpec.full()
        self._emitted = self._spec
        self._shape: tuple[int, ...] | None = None
        self._input_error = ""  # syntax error or refused value: the spec did not change
        self._error_span: tuple[int, int] | None = None
        self._feedback = describe(self._spec, None)
        self._typing = TypingSessions()
        self._stack = QUndoStack(self)
        self._build()
        self._show(self._spec, shown_by=None, emit=False)

    # ------------------------------------------------------------------ construction

    def _build(self) -> None:
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self._expression = QLineEdit(self)
        self._expression.setFont(mono)
        self._expression.setPlaceholderText("[2, ..., 5:8, tf.newaxis]    ([] = whole tensor)")
        self._expression.setToolTip(
            "Index expression as in x[...]: integers, start:stop:step, ..., tf.newaxis; "
            "or strided_slice(begin=[..], end=[..], ...) for mask-only specs"
        )
        self._expression.textEdited.connect(self._on_expression_edited)
        self._expression.editingFinished.connect(self._on_expression_finished)

        self._undo_action = QAction("Undo", self)
        self._undo_action.setShortcuts(UNDO_KEYS)
        self._undo_action.triggered.connect(self._stack.undo)
        self._stack.canUndoChanged.connect(self._undo_action.setEnabled)
        self._redo_action = QAction("Redo", self)
        self._redo_action.setShortcuts(REDO_KEYS)
        self._redo_action.triggered.connect(self._stack.redo)
        self._stack.canRedoChanged.connect(self._redo_action.setEnabled)
        for action in (self._undo_action, self._redo_action):
            action.setEnabled(False)
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.addAction(action)
        self._stack.undoTextChanged.connect(self._on_history_changed)
        self._stack.redoTextChanged.connect(self._on_history_changed)
        undo_button, redo_button = QToolButton(self), QToolButton(self)
        undo_button.setDefaultAction(self._undo_action)
        redo_button.setDefaultAction(self._redo_action)
        for button in (undo_button, redo_button):
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)

        self._reset_button = reset_button = QPushButton("Reset", self)
        reset_button.setToolTip("Empty spec: the whole tensor")
        reset_button.clicked.connect(self._on_reset)
        self._copy_button = copy_button = SliceCopyButton(self)
        self._copy_actions = copy_button.copy_actions()

        top = QHBoxLayout()
        top.addWidget(self._expression, 1)
        for widget in (undo_button, redo_button, reset_button, copy_button):
            top.addWidget(widget)

        self._error_label = QLabel(self)
        self._error_label.setObjectName("sliceErrorLabel")
        self._error_label.setWordWrap(True)
        self._error_label.setTextFormat(Qt.TextFormat.RichText)
        self._error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self._entries = SliceEntriesView(self)
        self._entries.specEdited.connect(self._on_entries_edited)
        self._entries.editRejected.connect(self._on_value_rejected)

        self._masks = MaskFields(self)
        self._masks.maskEdited.connect(self._on_mask_edited)
        self._masks.editingFinished.connect(self._on_mask_finished)
        self._mask_fields = self._masks.fields()

        self._feedback_view = QTextBrowser(self)
        self._feedback_view.setOpenLinks(False)
        self._feedback_view.setMinimumHeight(120)

        for line in (self._expression, *self._mask_fields.values()):
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
    def undo_stack(self) -> QUndoStack:
        """The stack of slice edits (one command per committed well-formed change)."""
        return self._stack

    def spec(self) -> SliceSpec:
        """The spec shown by the grid: the last well-formed one (valid or not for the shape)."""
        return self._spec

    def text(self) -> str:
        """``format_slice(self.spec())``: the canonical text of :meth:`spec`.

        While the expression line holds a syntax error this differs from what is typed there.
        """
        return format_slice(self._spec)

    def set_spec(self, spec: SliceSpec) -> None:
        """Show ``spec`` without emitting :attr:`specChanged` or recording an undo step.

        Raises
        ------
        TypeError
            When ``spec`` is not a :class:`SliceSpec`.
        """
        if not isinstance(spec, SliceSpec):
            raise TypeError(f"set_spec takes a SliceSpec, not {type(spec).__name__}")
        self._typing.end()
        self._emitted = spec
        self._show(spec, shown_by=None, emit=False)

    def set_text(self, text: str) -> None:
        """Show the expression ``text`` without emitting or recording an undo step.

        A valid expression is parsed and shown in canonical form. One that does not parse is
        left in the expression line with its error shown inline (see :meth:`error_text`);
        the spec stays what it was. Never raises for bad text.
        """
        self._typing.end()
        try:
            spec = parse_slice(text)
        except SliceSyntaxError as error:
            self._expression.setText(text)
            self._set_input_error(describe_error(error).message, (error.column, error.length))
            return
        self._emitted = spec
        self._show(spec, shown_by=None, emit=False)

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
        return copy_text(self._spec, kind)

    def error_text(self) -> str:
        """The inline error: a syntax error or refused value first, else the engine's error
        for the current shape; ``""`` when all is well."""
        return self._input_error or self._feedback.error

    def error_span(self) -> tuple[int, int] | None:
        """``(column, length)`` of the syntax error underlined in the expression, or None."""
        return self._error_span

    def explanation_text(self) -> str:
        """The live feedback as plain text: shapes, output dims, input dims, notes."""
        return self._feedback.plain_text()

    # ------------------------------------------------------------------ Qt overrides

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # A QLineEdit keeps Ctrl+Z / Ctrl+Shift+Z for its own text; here they mean the slice.
        if event.type() == QEvent.Type.KeyPress:
            step = history_step(event)
            if step == "undo":
                self._stack.undo()
                return True
            if step == "redo":
                self._stack.redo()
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
        self._typing.end()
        if not self._input_error:
            self._set_line_text(self._expression, format_slice(self._spec))

    def _on_mask_edited(self, name: str, value: object) -> None:
        if value is None:
            self._set_input_error(f"{name} is empty (type an integer; 0 sets no bits)")
            return
        if isinstance(value, str):
            self._set_input_error(f"{name} {value!r} is not an integer (type e.g. 5 or 0x5)")
            return
        try:
            spec = with_mask(self._spec, name, value)
        except SliceError as error:
            self._set_input_error(describe_error(error).message)
            return
        self._commit(spec, f"edit {name}", field=f"mask:{name}")

    def _on_mask_finished(self) -> None:
        self._typing.end()

    def _on_entries_edited(self, spec: SliceSpec, text: str) -> None:
        self._commit(spec, text)

    def _on_value_rejected(self, message: str) -> None:
        self._set_input_error(message)

    def _on_reset(self) -> None:
        self._commit(SliceSpec.full(), "reset slice")

    def _on_history_changed(self, *_args) -> None:
        undo, redo = self._stack.undoText(), self._stack.redoText()
        self._undo_action.setToolTip(f"Undo {undo} (Ctrl+Z)" if undo else "Nothing to undo")
        self._redo_action.setToolTip(f"Redo {redo} (Ctrl+Shift+Z)" if redo else "Nothing to redo")

    # ------------------------------------------------------------------ state

    def _commit(self, spec: SliceSpec, text: str, field: str | None = None) -> None:
        """Record a well-formed user change as an undo command.

        ``field`` names the line edit typed in (``"expression"`` or ``"mask:<name>"``): it keeps
        its text (the cursor stays put) and its consecutive edits merge into one command.
        """
        if field is None:
            self._typing.end()
        if spec == self._spec:
            self._show(spec, shown_by=field, emit=True)  # clears a stale input error
            return
        key = self._typing.key(field) if field else None
        self._stack.push(SpecCommand(text, self._spec, spec, self._show_from_history, key, field))

    def _show_from_history(self, spec: SliceSpec, shown_by: str | None) -> None:
        if shown_by is None:  # an undo or redo, not the edit itself: typing starts afresh
            self._typing.end()
        self._show(spec, shown_by=shown_by, emit=True)

    def _show(self, spec: SliceSpec, shown_by: str | None, emit: bool) -> None:
        """Make ``spec`` current, rewrite every view but ``shown_by``, analyse, maybe emit."""
        self._spec = spec
        self._input_error, self._error_span = "", None
        if shown_by != _EXPRESSION:
            self._set_line_text(self._expression, format_slice(spec))
        self._entries.set_spec(spec)  # always: the grid only shows, it never edits itself
        keep = shown_by[len("mask:") :] if shown_by and shown_by.startswith("mask:") else None
        self._masks.set_spec(spec, keep=keep)
        self._analyse(emit)

    def _analyse(self, emit: bool) -> None:
        """Ask the engine about the current spec and shape; emit it when valid and new."""
        self._feedback = describe(self._spec, self._shape)
        self._copy_button.set_spec(self._spec)
        self._render()
        if emit and not self._feedback.error and self._spec != self._emitted:
            self._emitted = self._spec  # first: a slot may call back into set_input_shape
            self.specChanged.emit(self._spec)

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
                f'<br><i style="color:{palette.MUTED}">(the grid shows the last slice that parsed)</i>'
            )
        else:
            self._error_label.setText(message)
        self._error_label.setVisible(bool(error))
        self._mark_expression(self._error_span)
        scroll = self._feedback_view.verticalScrollBar()
        position = scroll.value()  # setHtml scrolls to the top; keep the reader's place
        self._feedback_view.setHtml(self._feedback.html(error_color=palette.ERROR, note_color=palette.NOTE))
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
