"""The five ``tf.strided_slice`` masks as the integers one passes to TensorFlow.

A row of labelled :class:`inspector.widgets.int_field.IntField` line edits (any integer text, hex
``0x..`` included; range checks are the engine's). The widget only reports what was typed;
its owner builds the spec and refreshes the fields with :meth:`MaskFields.set_spec`.
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QGridLayout, QLabel, QWidget

from core.slicing.spec import SliceSpec
from core.slicing.validate import MASK_NAMES
from inspector.widgets.int_field import IntField

__all__ = ["MaskFields", "mask_field_name"]


def mask_field_name(mask: str) -> str:
    """The field's stable object name: ``"begin_mask"`` -> ``"slice.beginMask"``."""
    head, *rest = mask.split("_")
    return "slice." + head + "".join(word.title() for word in rest)


class MaskFields(QWidget):
    """``begin_mask``, ``end_mask``, ``ellipsis_mask``, ``new_axis_mask``, ``shrink_axis_mask``.

    Signals
    -------
    maskEdited(str, object)
        The user typed in the field of that mask; the value is an ``int``, ``None`` (empty)
        or the text itself when it is not an integer.
    editingFinished()
        Enter was pressed in a field or a field lost focus.
    """

    maskEdited = Signal(str, object)
    editingFinished = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self._fields: dict[str, IntField] = {}
        for column, name in enumerate(MASK_NAMES):
            field = IntField("0", self)
            field.setObjectName(mask_field_name(name))
            field.setClearButtonEnabled(False)
            field.setFont(mono)
            field.valueEdited.connect(partial(self.maskEdited.emit, name))
            field.editingFinished.connect(self.editingFinished)
            # Two masks a row, each label beside its field: narrow enough for a side panel.
            row, pair = divmod(column, 2)
            layout.addWidget(QLabel(name, self), row, 2 * pair)
            layout.addWidget(field, row, 2 * pair + 1)
            self._fields[name] = field

    def fields(self) -> dict[str, IntField]:
        """The line edits by mask name (a new dict)."""
        return dict(self._fields)

    def set_spec(self, spec: SliceSpec, keep: str | None = None) -> None:
        """Show ``spec``'s masks, leaving the text of mask ``keep`` (being typed in) alone."""
        for name, field in self._fields.items():
            value = getattr(spec, name)
            if name != keep:
                field.set_value(value)
            field.setToolTip(f"{name} = {value & 0xFFFFFFFF:#034b}: bit i refers to entry i")
