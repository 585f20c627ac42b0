"""A "Copy as" button: the current slice as TensorFlow, numpy or TF Java source text.

The texts are the engine's (:func:`core.slicing.source_code.to_tf`, ``to_numpy``, ``to_java``);
this module only offers them and puts the chosen one on the clipboard.
"""

from __future__ import annotations

from functools import partial

from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QMenu, QToolButton, QWidget

from core.slicing.expr import is_expressible
from core.slicing.source_code import to_java, to_numpy, to_tf
from core.slicing.spec import SliceSpec
from core.slicing.validate import MASK_NAMES

__all__ = ["COPY_KINDS", "SliceCopyButton", "copy_text"]

#: The kinds :func:`copy_text` knows, with their menu labels.
COPY_KINDS = {
    "tf": "TensorFlow call (tf.strided_slice)",
    "numpy": "numpy expression (x[...])",
    "java": "Java StridedSlice.Options",
}


def copy_text(spec: SliceSpec, kind: str) -> str:
    """``spec`` as source text: ``"tf"`` -> ``to_tf(spec, "x")``, ``"numpy"`` ->
    ``to_numpy(spec, "x")``, ``"java"`` -> ``to_java(spec)`` (``""`` when every mask is 0).

    Raises
    ------
    ValueError
        For another ``kind``.
    SliceError
        For ``"numpy"`` when no index expression expresses ``spec``.
    """
    if kind == "tf":
        return to_tf(spec, "x")
    if kind == "numpy":
        return to_numpy(spec, "x")
    if kind == "java":
        return to_java(spec)
    raise ValueError(f"copy kind must be one of {', '.join(COPY_KINDS)}, not {kind!r}")


class SliceCopyButton(QToolButton):
    """Tool button with a menu of :data:`COPY_KINDS`; choosing one copies that text.

    The numpy entry is disabled, with a tool tip saying why, for specs no index expression
    expresses; the Java entry likewise when every mask is 0 (there are no options to pass).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._spec = SliceSpec.full()
        self.setText("Copy as")
        self.setToolTip("Copy the slice as TensorFlow, numpy or Java source")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self)
        menu.setToolTipsVisible(True)
        self._actions: dict[str, QAction] = {}
        for kind, label in COPY_KINDS.items():
            action = menu.addAction(label)
            action.triggered.connect(partial(self._on_copy, kind))
            self._actions[kind] = action
        self.setMenu(menu)
        self.set_spec(self._spec)

    def copy_actions(self) -> dict[str, QAction]:
        """The menu's actions by kind (a new dict)."""
        return dict(self._actions)

    def set_spec(self, spec: SliceSpec) -> None:
        """Offer ``spec``'s texts; enables or disables the numpy and Java entries."""
        self._spec = spec
        expressible = is_expressible(spec)
        numpy_action = self._actions["numpy"]
        numpy_action.setEnabled(expressible)
        numpy_action.setToolTip(
            "x[...] as numpy indexes it"
            if expressible
            else "No index expression produces this spec (its masks say more than x[...] "
            "can): copy the TensorFlow call instead"
        )
        has_masks = any(getattr(spec, name) for name in MASK_NAMES)
        java_action = self._actions["java"]
        java_action.setEnabled(has_masks)
        java_action.setToolTip(
            "StridedSlice.Options for the nonzero masks"
            if has_masks
            else "Every mask is 0: StridedSlice needs no options"
        )
        self._actions["tf"].setToolTip("tf.strided_slice(x, begin=..., all five masks)")

    def _on_copy(self, kind: str) -> None:
        # The menu only offers what copy_text accepts for this spec (numpy is disabled
        # exactly when to_numpy would raise).
        QGuiApplication.clipboard().setText(copy_text(self._spec, kind))
