"""Where the window's docks go: the first-run layout, View > Reset layout, and the saved layout.

:class:`DockLayout` is a mixin of :class:`inspector.main_window.MainWindow` (it uses the window's
``docks``, ``settings``, ``document``, ``decode_panel`` and ``_initial_state``). Rules:

- Every dock is named ``dock.<name>`` (the key of its saved place); a panel of fields sits in a
  scroll area, so it scrolls instead of setting a minimum size on the window.
- The saved layout is restored only when it was saved under :data:`_LAYOUT_VERSION`; otherwise,
  and on a first start, the first-run layout is applied once the window is shown.
- The first-run layout sizes the docks in proportion to the window: below
  :data:`COMPACT_HEIGHT` Decode and Slice are tabs; below :data:`COMPACT_WIDTH` the plot gets less
  width; Bookmarks is a tab beside the data inspector (in front when a session brought some).
- Reset layout puts every dock back, except the docks of what is not open (Tensors without a
  container, Compare without a B).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QFrame, QScrollArea, QStyle, QWidget

COMPACT_HEIGHT = 720
"""Below this window height the first-run layout puts Decode and Slice in tabs."""
COMPACT_WIDTH = 1200
"""Below this window width the first-run layout gives the plot less room (the table needs its own)."""

_LAYOUT_VERSION = 2
"""Version of the saved dock layout, raised when the set of docks changes (2: the Bookmarks dock):
a layout saved by an older version (other dock names such as ``dock_decode``, or without a dock
of today) is not restored; the first-run layout is used instead, with every dock in its place."""


class DockLayout:
    """The dock layout rules of the main window (module docstring)."""

    def _add_dock(self, name: str, title: str, widget: QWidget, area: Qt.DockWidgetArea,
                  scroll: bool = False) -> QDockWidget:
        """Dock ``widget`` as ``dock.<name>``; ``scroll``: inside a scroll area, so that a panel
        of fields scrolls instead of setting a minimum size on the window (plots, tables and the
        hex view compress by themselves)."""
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock.{name}")
        if scroll:
            area_widget = QScrollArea()
            area_widget.setObjectName(f"dock.{name}.scroll")
            area_widget.setWidgetResizable(True)
            area_widget.setFrameShape(QFrame.Shape.NoFrame)
            area_widget.setFocusPolicy(Qt.NoFocus)  # Tab goes to the fields, not their frame
            area_widget.setWidget(widget)
            widget = area_widget
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        self.docks[name] = dock
        return dock

    def reset_layout(self) -> None:
        """Every panel back in its place and size of a first start (View > Reset layout)."""
        for dock in self.docks.values():
            dock.setFloating(False)
        self.restoreState(self._initial_state)
        for dock in self.docks.values():
            dock.show()
        # ... except the panels of what is not open: the Tensors dock without a container, and
        # the Compare docks without a B (tabbed again beside Slice and Plot when there is one).
        self.docks["tensors"].setVisible(self.document.container is not None)
        self._on_compare_files_changed()
        self.docks["plot"].raise_()
        self.apply_default_layout()

    def _restore_layout(self) -> None:
        """The saved layout, or a first-run layout that gives the plot room beside the table."""
        geometry, state = self.settings.window_state()
        if geometry is not None:
            self.restoreGeometry(geometry)
        self._needs_default_layout = state is None or not self.restoreState(state, _LAYOUT_VERSION)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._needs_default_layout:
            self._needs_default_layout = False
            QTimer.singleShot(0, self.apply_default_layout)  # dock sizes apply once laid out

    def apply_default_layout(self) -> None:
        """Dock sizes in proportion to the window. A window lower than :data:`COMPACT_HEIGHT`
        (a laptop screen) stacks Decode and Slice as tabs, each then tall enough to use; a
        window narrower than :data:`COMPACT_WIDTH` gives the plot less of its width."""
        width, height = self.width(), self.height()
        decode, slice_dock = self.docks["decode"], self.docks["slice"]
        tabbed = slice_dock in self.tabifiedDockWidgets(decode)
        if height < COMPACT_HEIGHT and not tabbed:
            self.tabifyDockWidget(decode, slice_dock)
            decode.raise_()
        elif height >= COMPACT_HEIGHT and tabbed:
            self.addDockWidget(Qt.LeftDockWidgetArea, slice_dock, Qt.Vertical)  # below decode
        left_share, plot_share = (0.28, 0.4) if width >= COMPACT_WIDTH else (0.3, 0.22)
        # Wide enough for the decode fields without scrolling sideways, if a third of the width allows.
        fields = self.decode_panel.minimumSizeHint().width() + self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        left = max(int(width * left_share), min(fields + 8, int(width * 0.34)))
        self.resizeDocks([decode, self.docks["plot"]], [left, int(width * plot_share)], Qt.Horizontal)
        if height >= COMPACT_HEIGHT:
            self.resizeDocks([decode, slice_dock], [int(height * 0.42), int(height * 0.58)], Qt.Vertical)
        self.resizeDocks([self.docks["hex"]], [int(height * 0.26)], Qt.Vertical)
        self.resizeDocks([self.docks["hex"], self.docks["inspector"]], [int(width * 0.55), int(width * 0.45)], Qt.Horizontal)
        inspector, bookmarks = self.docks["inspector"], self.docks["bookmarks"]
        if bookmarks not in self.tabifiedDockWidgets(inspector) and not bookmarks.isFloating() \
                and self.dockWidgetArea(bookmarks) == self.dockWidgetArea(inspector):
            self.tabifyDockWidget(inspector, bookmarks)  # a tab beside the data inspector
            (bookmarks if len(self.document.bookmarks) else inspector).raise_()  # a session's in front

    def save_layout(self) -> None:
        """Remember the window's geometry and dock layout (on close)."""
        self.settings.set_window_state(self.saveGeometry(), self.saveState(_LAYOUT_VERSION))
