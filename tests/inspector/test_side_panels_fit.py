"""Side panels are sized to their contents first (issue 31, items 11 and 12): at 1024x640,
1280x800 and 1366x768, with a container open, a comparison open and every dock shown, no combo
box, line edit or button of the Decode, Slice, Tensors and Compare docks is narrower than its
contents' size hint, and no dock scrolls sideways."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QAbstractScrollArea, QAbstractSpinBox, QComboBox, QLineEdit, QPushButton

from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

CHECKED_DOCKS = ("decode", "slice", "tensors", "compare")


@pytest.fixture
def container(tmp_path):
    from safetensors.numpy import save_file

    path = tmp_path / "model.safetensors"
    save_file({"encoder.layers.0.attention.query.weight": np.arange(4 * 3 * 40 * 50, dtype=np.float32).reshape(4, 3, 40, 50),
               "encoder.layers.0.attention.query.bias": np.zeros(50, dtype=np.float32)}, str(path))
    return path


def _contents_width(widget):
    """A line edit's size hint is a fixed 17 characters whatever it holds: its contents are its
    text (or placeholder) plus its frame; every other control's size hint is its contents."""
    if isinstance(widget, QLineEdit):
        text = widget.text() or widget.placeholderText()
        margins = widget.textMargins()
        return widget.fontMetrics().horizontalAdvance(text) + margins.left() + margins.right() + 12
    return widget.sizeHint().width()


def _too_narrow(dock):
    found = []
    for kind in (QComboBox, QLineEdit, QPushButton, QAbstractSpinBox):
        for widget in dock.findChildren(kind):
            if not widget.isVisibleTo(dock) or widget.visibleRegion().isEmpty():
                continue
            if isinstance(widget.parent(), QAbstractSpinBox):
                continue  # the spin box's own line edit: the spin box is checked
            if widget.width() < _contents_width(widget):
                found.append(f"{widget.objectName() or type(widget).__name__}: {widget.width()} < "
                             f"{_contents_width(widget)}")
    return found


def _scrolls_sideways(dock):
    return [area.objectName() or type(area).__name__ for area in dock.findChildren(QAbstractScrollArea)
            if area.isVisibleTo(dock) and area.horizontalScrollBar().isVisible()
            and type(area).__name__ in ("QScrollArea", "DockScrollArea")]


@pytest.mark.parametrize("size", [(1024, 640), (1280, 800), (1366, 768)])
def test_side_panels_fit_their_contents(qtbot, tmp_path, container, size):
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    assert window.open_paths([str(container)])
    assert window.comparison.open_b([str(container)])
    window.slice_editor.expression_edit.setText("[1, ::2, tf.newaxis, ::-1]")  # as typed in the issue
    qtbot.waitUntil(lambda: window.docks["compare"].isVisible() or not window.docks["compare"].visibleRegion().isEmpty())
    problems = {}
    for name in CHECKED_DOCKS:
        dock = window.docks[name]
        dock.show()
        dock.raise_()
        qtbot.wait(20)
        narrow, sideways = _too_narrow(dock), _scrolls_sideways(dock)
        if narrow or sideways:
            problems[name] = narrow + [f"scrolls sideways: {s}" for s in sideways]
    assert problems == {}, "\n".join(f"{k}: {v}" for k, v in problems.items())
