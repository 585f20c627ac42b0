"""Decode panel: edits the decode parameters of the document and explains the result.

Every change applies live through :meth:`Document.update_params`. When the engine refuses a
combination, the document's :class:`core.errors.ErrorReport` appears under the field it names
(``ErrorReport.field``) in the palette's colour for its severity, whole (wrapped, and as the
label's tool tip; the panel scrolls when it gets long), and the last good view stays on screen.
No rule is decided here.

Text fields keep what the user typed (``0x40`` stays ``0x40``): the document's parameters are
written back into a field only when they differ from what its text means (an undo, a redo,
another file). A text that does not parse is reported under its field until it parses; what is
shown under each field is rebuilt from the document's error and the fields' texts every time,
so no message outlives its cause.

An empty field means "the value in effect": its placeholder shows the built-in default, or the
value the files' header supplied (``PipelineResult.from_header``), e.g. ``128 (from header)``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from core.decode.reshape import format_shape, parse_shape
from core.decode.shape_suggestions import suggest_shapes
from core.dtypes.data_type import DataType
from core.dtypes.table import ENGINE_TYPES, is_tf_decode_type
from core.errors import CoreError, ErrorReport, describe_error
from core.pipeline.pipeline import DecodeParams, PipelineResult
from inspector.state.document import Document
from inspector.widgets import palette
from inspector.widgets.int_field import IntField
from inspector.widgets.plain_text import html_text, make_plain

BEYOND_TF = " (beyond TF)"
FROM_HEADER = " (from header)"
#: objectName suffix (``decode.<name>``, ``decode.error.<name>``) of each DecodeParams field.
OBJECT_NAMES = {
    "dtype": "dtype", "little_endian": "byteOrder", "fixed_length": "fixedLength",
    "offset": "offset", "record_size": "recordSize", "shape": "shape", "view_as": "viewAs",
    "files": "files",
}
#: What an empty text field means when the files' header supplies nothing.
EMPTY_MEANS = {
    "fixed_length": "bytes per element",
    "offset": "0 (header bytes to skip)",
    "record_size": "whole file is one element",
    "shape": "e.g. 3,48,64 or -1,64",
}


class DecodePanel(QWidget):
    """Dtype, byte order, fixed length, header offset, record size, target shape, view-as."""

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._updating = False

        self.dtype_combo = QComboBox()
        for name in ENGINE_TYPES:
            label = name if is_tf_decode_type(name) else name + BEYOND_TF
            self.dtype_combo.addItem(label, name)
            if not is_tf_decode_type(name):
                index = self.dtype_combo.count() - 1
                self.dtype_combo.setItemData(
                    index, "Not a tf.io.decode_raw type: TensorFlow would refuse it", Qt.ToolTipRole
                )
        self.byte_order_combo = QComboBox()
        self.byte_order_combo.addItem("little-endian", True)
        self.byte_order_combo.addItem("big-endian", False)

        self.fixed_length_check = QCheckBox("fixed_length")
        self.fixed_length_field = IntField(EMPTY_MEANS["fixed_length"])
        self.offset_field = IntField(EMPTY_MEANS["offset"])
        self.record_size_field = IntField(EMPTY_MEANS["record_size"])
        self.shape_field = QLineEdit()
        self.shape_field.setPlaceholderText(EMPTY_MEANS["shape"])
        self.text_fields: dict[str, QLineEdit] = {
            "fixed_length": self.fixed_length_field, "offset": self.offset_field,
            "record_size": self.record_size_field, "shape": self.shape_field,
        }
        self.infer_button = QPushButton("-1")
        self.infer_button.setToolTip("Infer the first dimension: prefix the shape with -1")
        self.suggest_combo = QComboBox()
        self.suggest_combo.setToolTip("Shapes that factor the element count")
        self.view_as_combo = QComboBox()
        self.view_as_combo.addItem("(as decoded)", None)
        for data_type in DataType:
            if data_type.name != "STRING":
                self.view_as_combo.addItem(data_type.name, data_type.name)

        self.error_labels: dict[str, QLabel] = {}
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        self._add_row(form, "dtype", "Type", self.dtype_combo)
        self._add_row(form, "little_endian", "Byte order", self.byte_order_combo)
        fixed = QHBoxLayout()
        fixed.addWidget(self.fixed_length_check)
        fixed.addWidget(self.fixed_length_field, 1)
        self._add_row(form, "fixed_length", "Fixed length", fixed)
        self._add_row(form, "offset", "Header offset", self.offset_field)
        self._add_row(form, "record_size", "Record size", self.record_size_field)
        shape = QHBoxLayout()
        shape.addWidget(self.shape_field, 1)
        shape.addWidget(self.infer_button)
        shape.addWidget(self.suggest_combo)
        self._add_row(form, "shape", "Target shape", shape)
        self._add_row(form, "view_as", "View as", self.view_as_combo)
        self._add_row(form, "files", "", QWidget())

        self.info_label = QLabel()
        self.info_label.setTextFormat(Qt.RichText)  # its own <b> headings; no file name in it
        self.info_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.info_label.setWordWrap(True)
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.addLayout(form)
        layout.addWidget(self.info_label)
        layout.addStretch(1)
        # A dock squeezes its widget to the minimum height, which ignores wrapped labels' height
        # for their width: in a scroll area the content gets the height its messages need.
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.NoFrame)
        self.scroll_area.setFocusPolicy(Qt.NoFocus)  # Tab goes to the fields, not their frame
        self.scroll_area.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll_area)
        self._name_widgets()

        self.dtype_combo.currentIndexChanged.connect(self._on_dtype_changed)
        self.byte_order_combo.currentIndexChanged.connect(self._on_byte_order_changed)
        self.fixed_length_check.toggled.connect(lambda _checked: self._on_fixed_length_changed(None))
        self.fixed_length_field.valueEdited.connect(lambda _value: self._on_fixed_length_changed("fixed_length"))
        self.offset_field.valueEdited.connect(lambda v: self._on_int_edited("offset", v))
        self.record_size_field.valueEdited.connect(lambda v: self._on_int_edited("record_size", v))
        self.shape_field.textEdited.connect(self._on_shape_edited)
        self.infer_button.clicked.connect(self._on_infer_clicked)
        self.suggest_combo.activated.connect(self._on_suggestion_chosen)
        self.view_as_combo.currentIndexChanged.connect(self._on_view_as_changed)
        for line in (self.fixed_length_field, self.offset_field, self.record_size_field, self.shape_field):
            line.editingFinished.connect(document.end_typing)  # the next keystroke is a new undo step
        document.filesChanged.connect(self._on_files_changed)
        document.paramsChanged.connect(self._on_params_changed)
        document.resultChanged.connect(self._on_result_changed)
        document.errorChanged.connect(self._on_error_changed)
        self._on_params_changed(document.params)
        if document.result is not None:
            self._on_result_changed(document.result)

    # ------------------------------------------------------------------ layout helpers
    def _name_widgets(self) -> None:
        """Stable objectNames (docs/ui-names.md, table "decode")."""
        named = {
            "dtype": self.dtype_combo, "byteOrder": self.byte_order_combo,
            "fixedLengthEnabled": self.fixed_length_check, "fixedLength": self.fixed_length_field,
            "offset": self.offset_field, "recordSize": self.record_size_field,
            "shape": self.shape_field, "inferShape": self.infer_button,
            "shapeSuggestions": self.suggest_combo, "viewAs": self.view_as_combo,
            "info": self.info_label, "scrollArea": self.scroll_area,
        }
        for name, widget in named.items():
            widget.setObjectName(f"decode.{name}")

    def _add_row(self, form: QFormLayout, field: str, label: str, editor) -> None:
        error = QLabel()
        make_plain(error)
        error.setObjectName(f"decode.error.{OBJECT_NAMES[field]}")
        error.setStyleSheet(palette.inline_style("error"))
        error.setWordWrap(True)
        error.setTextInteractionFlags(Qt.TextSelectableByMouse)
        error.hide()
        self.error_labels[field] = error
        column = QVBoxLayout()
        column.setSpacing(1)
        if isinstance(editor, QWidget):
            column.addWidget(editor)
        else:
            column.addLayout(editor)
        column.addWidget(error)
        form.addRow(label, column)

    # ------------------------------------------------------------------ user edits
    def _update(self, field: str | None = None, **changes: object) -> None:
        """One undoable edit; ``field`` names the line edit typed in (its keystrokes merge)."""
        if not self._updating:
            self._document.update_params(field=field, **changes)

    def _on_dtype_changed(self, _index: int) -> None:
        self._update(dtype=self.dtype_combo.currentData())

    def _on_byte_order_changed(self, _index: int) -> None:
        self._update(little_endian=self.byte_order_combo.currentData())

    def _on_fixed_length_changed(self, typed: str | None) -> None:
        if self._updating:
            return
        enabled = self.fixed_length_check.isChecked()
        self.fixed_length_field.setEnabled(enabled)
        value = self.fixed_length_field.value() if enabled else None
        typo_or_waiting = isinstance(value, str) or (enabled and value is None)  # typo: reported
        if not typo_or_waiting:
            self._update(typed, fixed_length=value)
        self._show_errors()

    def _on_int_edited(self, field: str, value: object) -> None:
        if not isinstance(value, str):
            self._update(field, **{field: value})
        self._show_errors()

    def _on_shape_edited(self, text: str, typed: str | None = "shape") -> None:
        shape = _shape_of(text)
        if not isinstance(shape, CoreError):
            self._update(typed, shape=shape)
        self._show_errors()

    def _on_infer_clicked(self) -> None:
        """Replace the first dimension by -1 (or start a shape ``-1``): numpy infers it."""
        parts = [p.strip() for p in self.shape_field.text().split(",") if p.strip()]
        text = ",".join(["-1"] + parts[1:])
        self.shape_field.setText(text)
        self._on_shape_edited(text, typed=None)

    def _on_suggestion_chosen(self, index: int) -> None:
        shape = self.suggest_combo.itemData(index)
        if shape:
            text = ",".join(str(d) for d in shape)
            self.shape_field.setText(text)
            self._on_shape_edited(text, typed=None)

    def _on_view_as_changed(self, _index: int) -> None:
        self._update(view_as=self.view_as_combo.currentData())

    # ------------------------------------------------------------------ document events
    def _on_files_changed(self) -> None:
        """Nothing of the previous files stays: a disabled fixed_length's text, header values."""
        self.fixed_length_field.clear()  # not an edit: clear() does not emit textEdited
        self._show_values_in_effect(None)
        self._show_errors()

    def _on_params_changed(self, params: DecodeParams) -> None:
        self._updating = True
        try:
            self._show_params(params)
        finally:
            self._updating = False
        self._show_errors()  # a field rewritten from the document may parse again

    def _show_params(self, params: DecodeParams) -> None:
        dtype = params.dtype or "uint8"
        index = self.dtype_combo.findData(_canonical_dtype(dtype))
        if index >= 0:
            self.dtype_combo.setCurrentIndex(index)
        little = True if params.little_endian is None else params.little_endian
        self.byte_order_combo.setCurrentIndex(0 if little else 1)
        self.fixed_length_check.setChecked(params.fixed_length is not None)
        self.fixed_length_field.setEnabled(params.fixed_length is not None)
        if params.fixed_length is not None:
            self.fixed_length_field.set_value(params.fixed_length)
        self.offset_field.set_value(params.offset)
        self.record_size_field.set_value(params.record_size)
        if _shape_of(self.shape_field.text()) != params.shape:  # "(3, 4)" and "3,4," stay as typed
            self.shape_field.setText("" if params.shape is None else format_shape(params.shape))
        index = self.view_as_combo.findData(params.view_as.upper() if params.view_as else None)
        self.view_as_combo.setCurrentIndex(max(index, 0))

    def _on_result_changed(self, result: PipelineResult) -> None:
        # Resolved values (e.g. from a .npy header) are shown, but not written back as choices.
        self._updating = True
        try:
            index = self.dtype_combo.findData(_canonical_dtype(result.params.dtype or "uint8"))
            if index >= 0:
                self.dtype_combo.setCurrentIndex(index)
            self.byte_order_combo.setCurrentIndex(0 if result.params.little_endian in (None, True) else 1)
        finally:
            self._updating = False
        self._show_values_in_effect(result)
        count = int(result.decoded.size)
        self.suggest_combo.clear()
        self.suggest_combo.addItem("suggest…", None)
        for shape in suggest_shapes(count):
            self.suggest_combo.addItem(" x ".join(str(d) for d in shape), shape)
        trailing = sum(result.trailing_bytes)
        lines = [
            f"<b>Input</b> {_input_text(result.input_shape, result.element_length)}",
            f"<b>Decoded</b> {_shape_text(result.decoded.shape)} {result.decoded.dtype.name}"
            f" = {count:,} values",
            f"<b>Tensor</b> {_shape_text(result.tensor_shape)} &nbsp; <b>View</b> {_shape_text(result.view.shape)}",
            *([] if self._document.current_entry is not None else  # the container's other tensors
              [f"<b>Trailing bytes</b> {trailing:,}" + (" (not decoded)" if trailing else "")]),
            "<b>Zero-copy</b> " + ("yes: a view of the file" if result.zero_copy else "no: a copy was made"),
        ]
        entry = self._document.current_entry
        if entry is not None:
            container = self._document.container.format  # type: ignore[union-attr]
            lines.insert(0, f"<b>Tensor</b> {html_text(repr(entry.name))} of the {container} file: "
                            "type, byte order, offset, length and shape from its header (edit a "
                            "field to look at the bytes another way)")
        if result.transposed:
            lines.append("<b>Fortran order</b> shown transposed: the C-order reading of the "
                         "bytes (np.load gives the transpose)")
        self.info_label.setText("<br>".join(lines))

    def _on_error_changed(self, _error: ErrorReport | None) -> None:
        self._show_errors()

    def _show_values_in_effect(self, result: PipelineResult | None) -> None:
        """Placeholders of the empty fields: the header's value when it supplied one (e.g.
        ``128 (from header)``), else what an empty field means; the combos' tool tips too."""
        from_header = result.from_header if result is not None else frozenset()
        for field, line in self.text_fields.items():
            value = getattr(result.params, field) if field in from_header else None
            if value is None:
                line.setPlaceholderText(EMPTY_MEANS[field])
            else:
                shown = format_shape(value) if field == "shape" else str(value)
                line.setPlaceholderText(shown + FROM_HEADER)
        for field, combo in (("dtype", self.dtype_combo), ("little_endian", self.byte_order_combo)):
            combo.setToolTip(combo.currentText() + FROM_HEADER if field in from_header else "")

    def _typing_errors(self) -> dict[str, str]:
        """Per field, why its text is not a value (fields that parse, or are disabled, have none)."""
        errors = {}
        for field in ("offset", "record_size"):
            value = self.text_fields[field].value()
            if isinstance(value, str):
                errors[field] = f"{field} must be an integer number of bytes, not {value!r} (or empty)"
        value = self.fixed_length_field.value()
        if self.fixed_length_check.isChecked() and isinstance(value, str):
            errors["fixed_length"] = f"fixed_length must be an integer number of bytes, not {value!r}"
        shape = _shape_of(self.shape_field.text())
        if isinstance(shape, CoreError):
            errors["shape"] = describe_error(shape).message
        return errors

    def _show_errors(self) -> None:
        """Show the document's error under the field it names and, over it, the fields' own
        typing errors; hide every other label. Rebuilt from scratch: nothing stays stale."""
        shown: dict[str, tuple[str, str]] = {}
        error = self._document.error
        if error is not None and error.field != "slice":  # slice errors: the slice editor's
            field = error.field if error.field in self.error_labels else "files"
            shown[field] = (error.message, error.severity)
        for field, message in self._typing_errors().items():
            shown[field] = (message, "error")
        for field, label in self.error_labels.items():
            if field not in shown:
                label.hide()
                continue
            message, severity = shown[field]
            label.setStyleSheet(palette.inline_style(severity))
            label.setText(message)
            label.setToolTip(message)
            label.show()


def _canonical_dtype(name: str) -> str:
    from core.dtypes.table import engine_name

    try:  # the engine name, not the dtype's: int4 is decoded into int8 but stays int4
        return engine_name(name)
    except CoreError:
        return name


def _shape_text(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _input_text(shape: tuple[int, ...], element_length: int) -> str:
    """``1 string of 36,864 bytes`` / ``(1000,) strings of 4,096 bytes`` (decode_raw's input)."""
    if not shape:
        return f"1 string of {element_length:,} bytes (a scalar)"
    return f"{_shape_text(shape)} strings of {element_length:,} bytes"


def _shape_of(text: str) -> tuple[int, ...] | None | CoreError:
    """The shape a Target shape text means: None when empty, else :func:`parse_shape`'s tuple,
    or the error saying why it is not a shape."""
    if not text.strip():
        return None
    try:
        return tuple(parse_shape(text))
    except CoreError as error:
        return error
