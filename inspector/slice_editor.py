"""SliceEditor: edit a ``tf.strided_slice`` spec as an expression, a grid or five mask integers.

The three editors show one :class:`core.slice_spec.SliceSpec` and stay in two-way sync: a
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
from functools import partial
from typing import Sequence

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QFontDatabase,
    QGuiApplication,
    QInputMethodEvent,
    QKeySequence,
    QTextCharFormat,
    QUndoCommand,
    QUndoStack,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QTableView,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.errors import SliceError
from core.slice_expr import format_slice, parse_slice
from core.slice_spec import SliceSpec
from core.slice_tokens import SliceSyntaxError
from core.slice_validate import MASK_NAMES, MAX_ENTRIES
from inspector.int_field import IntField
from inspector.slice_entries_model import (
    CENTERED_CHECK_COLUMNS,
    CheckBoxDelegate,
    SliceEntriesModel,
    insert_entry,
    remove_entry,
    swap_entries,
    with_mask,
)
from inspector.slice_feedback import describe, highlight_html

__all__ = ["SliceEditor"]

_COPY_KINDS = ("tf", "numpy", "java")
_EXPRESSION = "expression"
_MERGE_ID = 0x511CE  # QUndoCommand.id() of typing commands; -1 means "never merge"
_ERROR_COLOR = "#c62828"
_CTRL = Qt.KeyboardModifier.ControlModifier
_SHIFT = Qt.KeyboardModifier.ShiftModifier
_UNDO_KEYS = [QKeySequence(_CTRL | Qt.Key.Key_Z)]
_REDO_KEYS = [QKeySequence(_CTRL | _SHIFT | Qt.Key.Key_Z), QKeySequence(_CTRL | Qt.Key.Key_Y)]


def _history_key(event) -> str | None:
    """``"undo"`` / ``"redo"`` when a key press is one of their shortcuts, else None."""
    combo = QKeySequence(event.keyCombination())
    if combo in _UNDO_KEYS or event.matches(QKeySequence.StandardKey.Undo):
        return "undo"
    if combo in _REDO_KEYS or event.matches(QKeySequence.StandardKey.Redo):
        return "redo"
    return None


class _SpecCommand(QUndoCommand):
    """One slice edit: ``old`` -> ``new``. Typing commands of one session merge."""

    def __init__(self, editor: "SliceEditor", old, new, text, merge_key, source) -> None:
        super().__init__(text)
        self._editor, self._old, self._new = editor, old, new
        self._merge_key = merge_key
        self._source: str | None = source  # the view that already shows `new` (first redo)

    def id(self) -> int:  # noqa: A003 (Qt API)
        return _MERGE_ID if self._merge_key is not None else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, _SpecCommand) or other._merge_key != self._merge_key:
            return False
        self._new = other._new
        self.setObsolete(self._new == self._old)  # typed back to where it started
        return True

    def redo(self) -> None:
        source, self._source = self._source, None
        self._editor._show(self._new, source=source, emit=True, from_history=source is None)

    def undo(self) -> None:
        self._editor._show(self._old, source=None, emit=True, from_history=True)


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
        self._valid = True
        self._input_error = ""  # syntax error or refused value: the spec did not change
        self._error_span: tuple[int, int] | None = None
        self._feedback = describe(self._spec, None)
        self._typing_field: str | None = None
        self._session = 0
        self._stack = QUndoStack(self)
        self._build()
        self._show(self._spec, source=None, emit=False)

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
        self._undo_action.setShortcuts(_UNDO_KEYS)
        self._undo_action.triggered.connect(self._stack.undo)
        self._stack.canUndoChanged.connect(self._undo_action.setEnabled)
        self._redo_action = QAction("Redo", self)
        self._redo_action.setShortcuts(_REDO_KEYS)
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
        self._copy_actions: dict[str, QAction] = {}
        copy_menu = QMenu(self)
        copy_menu.setToolTipsVisible(True)
        for kind, label in (
            ("tf", "TensorFlow call (tf.strided_slice)"),
            ("numpy", "numpy expression (x[...])"),
            ("java", "Java StridedSlice.Options"),
        ):
            action = copy_menu.addAction(label)
            action.triggered.connect(partial(self._on_copy, kind))
            self._copy_actions[kind] = action
        copy_button = QToolButton(self)
        copy_button.setText("Copy as")
        copy_button.setMenu(copy_menu)
        copy_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)

        top = QHBoxLayout()
        top.addWidget(self._expression, 1)
        for widget in (undo_button, redo_button, reset_button, copy_button):
            top.addWidget(widget)

        self._error_label = QLabel(self)
        self._error_label.setWordWrap(True)
        self._error_label.setTextFormat(Qt.TextFormat.RichText)
        self._error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self._model = SliceEntriesModel(self)
        self._model.specEdited.connect(self._on_grid_edited)
        self._model.editRejected.connect(self._on_value_rejected)
        self._table = QTableView(self)
        self._table.setModel(self._model)
        self._check_delegate = CheckBoxDelegate(self._table)
        for column in CENTERED_CHECK_COLUMNS:
            self._table.setItemDelegateForColumn(column, self._check_delegate)
        self._table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self._table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self._table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents
        )
        self._table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        selection = self._table.selectionModel()
        selection.currentRowChanged.connect(self._on_current_row_changed)
        selection.selectionChanged.connect(self._on_current_row_changed)
        self._model.modelReset.connect(self._update_buttons)

        self._add_button = QPushButton("Add", self)
        self._add_button.setToolTip("Insert a full-range entry (:) after the selected one")
        self._add_button.clicked.connect(self._on_add)
        self._remove_button = QPushButton("Remove", self)
        self._remove_button.clicked.connect(self._on_remove)
        self._up_button = QPushButton("Up", self)
        self._up_button.clicked.connect(partial(self._on_move, -1))
        self._down_button = QPushButton("Down", self)
        self._down_button.clicked.connect(partial(self._on_move, 1))
        buttons = QVBoxLayout()
        for button in (self._add_button, self._remove_button, self._up_button, self._down_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        grid_row = QHBoxLayout()
        grid_row.addWidget(self._table, 1)
        grid_row.addLayout(buttons)

        self._mask_fields: dict[str, IntField] = {}
        masks = QGridLayout()
        for column, name in enumerate(MASK_NAMES):
            field = IntField("0", self)
            field.setClearButtonEnabled(False)
            field.setFont(mono)
            field.valueEdited.connect(partial(self._on_mask_edited, name))
            field.editingFinished.connect(self._on_mask_finished)
            masks.addWidget(QLabel(name, self), 0, column)
            masks.addWidget(field, 1, column)
            self._mask_fields[name] = field

        self._feedback_view = QTextBrowser(self)
        self._feedback_view.setOpenLinks(False)
        self._feedback_view.setMinimumHeight(120)

        for line in (self._expression, *self._mask_fields.values()):
            line.installEventFilter(self)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self._error_label)
        layout.addLayout(grid_row, 2)
        layout.addLayout(masks)
        layout.addWidget(self._feedback_view, 3)

    # ------------------------------------------------------------------ public API

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
        self._end_typing()
        self._emitted = spec
        self._show(spec, source=None, emit=False)

    def set_text(self, text: str) -> None:
        """Show the expression ``text`` without emitting or recording an undo step.

        A valid expression is parsed and shown in canonical form. One that does not parse is
        left in the expression line with its error shown inline (see :meth:`error_text`);
        the spec stays what it was. Never raises for bad text.
        """
        self._end_typing()
        try:
            spec = parse_slice(text)
        except SliceSyntaxError as error:
            self._expression.setText(text)
            self._set_input_error(error.message, (error.column, error.length))
            return
        self._emitted = spec
        self._show(spec, source=None, emit=False)

    def set_input_shape(self, shape: Sequence[int] | None) -> None:
        """Analyse against a new input shape (``None``: no tensor yet) and refresh feedback.

        If the spec the user left pending (well-formed but refused by the old shape) is valid
        for the new one, :attr:`specChanged` is emitted for it.
        """
        self._shape = None if shape is None else tuple(int(d) for d in shape)
        self._analyse(emit=True)

    def copy_text(self, kind: str) -> str:
        """The current spec as code: ``"tf"`` (``spec.to_tf("x")``), ``"numpy"``
        (``spec.to_numpy("x")``) or ``"java"`` (``spec.to_java()``, ``""`` when all masks are 0).

        Raises
        ------
        ValueError
            For another ``kind``.
        SliceError
            For ``"numpy"`` when no index expression expresses the spec.
        """
        if kind == "tf":
            return self._spec.to_tf("x")
        if kind == "numpy":
            return self._spec.to_numpy("x")
        if kind == "java":
            return self._spec.to_java()
        raise ValueError(f"copy kind must be one of {', '.join(_COPY_KINDS)}, not {kind!r}")

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
            step = _history_key(event)
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
            self._set_input_error(error.message, (error.column, error.length))
            return
        self._commit(spec, "type slice", field=_EXPRESSION)

    def _on_expression_finished(self) -> None:
        self._end_typing()
        if not self._input_error:
            self._set_line_text(self._expression, format_slice(self._spec))

    def _on_mask_edited(self, name: str, value) -> None:
        if value is None:
            self._set_input_error(f"{name} is empty (type an integer; 0 sets no bits)")
            return
        if isinstance(value, str):
            self._set_input_error(f"{name} {value!r} is not an integer (type e.g. 5 or 0x5)")
            return
        try:
            spec = with_mask(self._spec, name, value)
        except SliceError as error:
            self._set_input_error(error.message)
            return
        self._commit(spec, f"edit {name}", field=f"mask:{name}")

    def _on_mask_finished(self) -> None:
        self._end_typing()

    def _on_grid_edited(self, spec: SliceSpec) -> None:
        self._commit(spec, "edit entry")

    def _on_value_rejected(self, message: str) -> None:
        self._set_input_error(message)

    def _on_add(self) -> None:
        row = self._current_row()
        row = len(self._spec) if row is None else row + 1
        self._commit(insert_entry(self._spec, row), "add entry")
        self._select_row(row)

    def _on_remove(self) -> None:
        row = self._current_row()
        if row is None:
            return
        self._commit(remove_entry(self._spec, row), f"remove entry {row}")
        if len(self._spec):
            self._select_row(min(row, len(self._spec) - 1))

    def _on_move(self, delta: int) -> None:
        row = self._current_row()
        if row is None or not 0 <= row + delta < len(self._spec):
            return
        direction = "up" if delta < 0 else "down"
        self._commit(swap_entries(self._spec, row, row + delta), f"move entry {row} {direction}")
        self._select_row(row + delta)

    def _on_reset(self) -> None:
        self._commit(SliceSpec.full(), "reset slice")

    def _on_copy(self, kind: str) -> None:
        try:
            text = self.copy_text(kind)
        except SliceError as error:
            self._set_input_error(error.message)
            return
        QGuiApplication.clipboard().setText(text)

    def _on_current_row_changed(self, *_args) -> None:
        self._update_buttons()

    def _on_history_changed(self, *_args) -> None:
        undo, redo = self._stack.undoText(), self._stack.redoText()
        self._undo_action.setToolTip(f"Undo {undo} (Ctrl+Z)" if undo else "Nothing to undo")
        self._redo_action.setToolTip(
            f"Redo {redo} (Ctrl+Shift+Z)" if redo else "Nothing to redo"
        )

    # ------------------------------------------------------------------ state

    def _commit(self, spec: SliceSpec, text: str, field: str | None = None, source=None) -> None:
        """Record a well-formed user change; ``field`` names a typing field whose consecutive
        edits merge into one command (the field itself is not rewritten)."""
        source = field or source
        if field is None:
            self._end_typing()
        if spec == self._spec:
            self._show(spec, source=source, emit=True)  # clears a stale input error
            return
        key = self._typing_key(field) if field else None
        # The view typed in (expression or a mask field) keeps its text: the cursor stays put.
        self._stack.push(_SpecCommand(self, self._spec, spec, text, key, source))

    def _typing_key(self, field: str) -> tuple[str, int]:
        if self._typing_field != field:
            self._session += 1
            self._typing_field = field
        return field, self._session

    def _end_typing(self) -> None:
        self._typing_field = None

    def _show(self, spec: SliceSpec, source: str | None, emit: bool, from_history=False) -> None:
        """Make ``spec`` current, rewrite every view but ``source``, analyse, maybe emit."""
        if from_history:
            self._end_typing()
        self._spec = spec
        self._input_error, self._error_span = "", None
        if source != _EXPRESSION:
            self._set_line_text(self._expression, format_slice(spec))
        self._model.set_spec(spec)  # always: the model only shows, it never edits itself
        for name, field in self._mask_fields.items():
            value = getattr(spec, name)
            if source != f"mask:{name}":
                field.set_value(value)
            field.setToolTip(f"{name} = {value & 0xFFFFFFFF:#034b} (bit i = entry i)")
        self._analyse(emit)

    def _analyse(self, emit: bool) -> None:
        """Ask the engine about the current spec and shape; emit it when valid and new."""
        self._feedback = describe(self._spec, self._shape)
        self._valid = not self._feedback.error
        self._update_buttons()
        self._render()
        if emit and self._valid and self._spec != self._emitted:
            self._emitted = self._spec  # first: a slot may call back into set_input_shape
            self.specChanged.emit(self._spec)

    def _set_input_error(self, message: str, span: tuple[int, int] | None = None) -> None:
        self._input_error, self._error_span = message, span
        self._render()

    def _render(self) -> None:
        error = self.error_text()
        message = f'<span style="color:{_ERROR_COLOR}">{html.escape(error)}</span>'
        if self._error_span is not None:
            shown = highlight_html(self._expression.text(), *self._error_span)
            self._error_label.setText(
                f'<tt style="font-size:large">{shown}</tt><br>{message}'
                '<br><i style="color:gray">(the grid shows the last slice that parsed)</i>'
            )
        else:
            self._error_label.setText(message)
        self._error_label.setVisible(bool(error))
        self._mark_expression(self._error_span)
        self._feedback_view.setHtml(self._feedback.html())

    def _mark_expression(self, span: tuple[int, int] | None) -> None:
        """Underline the culprit inside the line edit itself (input-method text formats)."""
        attributes = []
        if span is not None:
            column, length = span
            fmt = QTextCharFormat()
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            fmt.setUnderlineColor(QColor(_ERROR_COLOR))
            fmt.setBackground(QColor("#ffd7d7"))
            fmt.setForeground(QColor(_ERROR_COLOR))
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

    def _current_row(self) -> int | None:
        index = self._table.selectionModel().currentIndex()
        selected = self._table.selectionModel().hasSelection()
        return index.row() if index.isValid() and selected else None

    def _select_row(self, row: int) -> None:
        if 0 <= row < len(self._spec):
            self._table.selectRow(row)
            self._table.setCurrentIndex(self._model.index(row, 0))
        self._update_buttons()

    def _update_buttons(self) -> None:
        row, n = self._current_row(), len(self._spec)
        self._add_button.setEnabled(n < MAX_ENTRIES)
        self._remove_button.setEnabled(row is not None)
        self._up_button.setEnabled(row is not None and row > 0)
        self._down_button.setEnabled(row is not None and row < n - 1)
        numpy_action = self._copy_actions["numpy"]
        expressible = self._spec.is_expressible()
        numpy_action.setEnabled(expressible)
        numpy_action.setToolTip(
            "x[...] as numpy indexes it"
            if expressible
            else "No index expression produces this spec (its masks say more than x[...] "
            "can): copy the TensorFlow call instead"
        )
        java_action = self._copy_actions["java"]
        has_masks = any(getattr(self._spec, name) for name in MASK_NAMES)
        java_action.setEnabled(has_masks)
        java_action.setToolTip(
            "StridedSlice.Options for the nonzero masks"
            if has_masks
            else "Every mask is 0: StridedSlice needs no options"
        )
