"""Where the window's docks go: built from the table of docks, the first-run layout, View > Reset
layout, the docks shown while what they show is open, and the saved layout.

:class:`DockLayout` builds and places the docks of a table of :class:`~inspector.docks.DockSpec`
in a main window; it is given the window, the table and the :class:`~inspector.docks.DockContext`
(document, comparison, settings), and reads nothing else of the window. Rules:

- Docks are added in the table's order, each in its area. Tab groups are formed once the window
  is shown (by the first-run layout, or when a dock shown later appears): a dock tabbed while the
  window is built, or tabbed and hidden before it is first shown, leaves Qt a stale tab bar
  painted over the panels. A group's first dock is in front, unless a member's ``in_front`` says
  otherwise.
- A dock shown only while something is open (:class:`~inspector.docks.Shown`) appears when it
  opens: it joins its tab group (after the group's always-shown docks, which keeps the tabs in the
  table's order), comes to the front and takes ``height_when_shown`` of the window's height; it
  hides when that closes.
- The saved layout is restored only when it was saved under the table's
  :func:`~inspector.docks.layout_version`; otherwise, and on a first start, the first-run layout
  is applied once the window is shown.
- The first-run layout sizes the left docks to their contents first (the widest size hint of
  the docks shown there, at most :data:`SIDE_SHARE` of the width; a dock shown later widens the
  column the same way), the others in proportion to the window: below :data:`COMPACT_HEIGHT`
  Decode and Slice are tabs; below :data:`COMPACT_WIDTH` the plot gets less width. The table
  gets what is left.
- Reset layout puts every dock back in its area and group, visible, except the docks of what is
  not open (Tensors without a container, Compare without a B); each group of always-shown docks
  shows its front tab again.
- Tab labels are never shortened (Qt's dock tab bars elide them to "P…", "Statist…" in a narrow
  dock): every tab bar of the window shows each title whole, and a bar too narrow for all its tabs
  gets scroll arrows (:func:`show_whole_tab_titles`, applied to each tab bar as Qt makes it).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QFrame, QMainWindow, QScrollArea, QStyle, QTabBar, QWidget

from inspector.docks import DockContext, DockSpec, Shown, check_docks, layout_version
from inspector.widgets.focus_frame import first_focusable

COMPACT_HEIGHT = 720
"""Below this window height the first-run layout puts Decode and Slice in tabs."""
COMPACT_WIDTH = 1200
"""Below this window width the first-run layout gives the plot less room (the table needs its own)."""
SIDE_SHARE = 0.38
"""The most of the window's width the left docks take to fit their contents."""


def show_whole_tab_titles(bar: QTabBar) -> None:
    """``bar`` shows every tab's title whole (no "…"), with scroll arrows when they do not fit."""
    bar.setElideMode(Qt.TextElideMode.ElideNone)
    bar.setUsesScrollButtons(True)


class DockLayout(QObject):
    """The docks of one main window and their layout rules (module docstring)."""

    def __init__(self, window: QMainWindow, specs: Sequence[DockSpec], context: DockContext) -> None:
        super().__init__(window)
        check_docks(specs)
        # Weak: a strong reference from this child back to its window is a cycle through Qt's
        # ownership that Python's collector cannot see, and every window would leak.
        self._window_ref = weakref.ref(window)
        self.specs: tuple[DockSpec, ...] = tuple(specs)
        self._by_name = {spec.name: spec for spec in self.specs}
        self.context = context
        self.version = layout_version(self.specs)
        self.docks: dict[str, QDockWidget] = {}
        self.widgets: dict[str, QWidget] = {}  # the widget each factory built (inside its scroll area)
        self.needs_default_layout = True
        self._initial_state = None
        # Qt makes a dock tab bar when docks are first tabbed (and sets it to elide right then):
        # it is polished before it is first shown, which is when its titles are made whole.
        window.installEventFilter(self)

    @property
    def _window(self) -> QMainWindow:
        return self._window_ref()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ChildPolished and isinstance(event.child(), QTabBar):
            show_whole_tab_titles(event.child())
        return False

    # ------------------------------------------------------------------ building
    def build(self) -> dict[str, QWidget]:
        """Build every dock's widget and dock it in its area, hidden while what it shows is not
        open; returns the widgets by dock name."""
        for spec in self.specs:
            self._add_dock(spec, spec.factory(self.context))
        self._initial_state = self._window.saveState()  # View > Reset layout goes back to it
        return dict(self.widgets)

    def _add_dock(self, spec: DockSpec, widget: QWidget) -> QDockWidget:
        window = self._window
        dock = QDockWidget(spec.title, window)
        dock.setObjectName(f"dock.{spec.name}")
        self.widgets[spec.name] = widget
        if spec.scroll:
            area_widget = QScrollArea()
            area_widget.setObjectName(f"dock.{spec.name}.scroll")
            area_widget.setWidgetResizable(True)
            area_widget.setFrameShape(QFrame.Shape.NoFrame)
            area_widget.setFocusPolicy(Qt.NoFocus)  # Tab goes to the fields, not their frame
            area_widget.setWidget(widget)
            widget = area_widget
        dock.setWidget(widget)
        window.addDockWidget(spec.area, dock)
        self.docks[spec.name] = dock
        if spec.shown is not Shown.ALWAYS:
            dock.hide()  # until what it shows is open
        return dock

    def restore(self) -> None:
        """Restore the saved geometry and layout (:meth:`window_shown` applies the first-run
        layout instead when there is none, or it was saved with other docks)."""
        window = self._window
        geometry, state = self.context.settings.window_state()
        if geometry is not None:
            window.restoreGeometry(geometry)
        self.needs_default_layout = state is None or not window.restoreState(state, self.version)
        for spec in self.specs:  # a layout saved while B or a model was open shows its docks
            if not spec.shown.is_met(self.context):
                self.docks[spec.name].hide()

    def follow(self, *shown: Shown) -> None:
        """Show and hide the docks shown while something is open, as it opens and closes."""
        for when in shown:
            signal = when.changed(self.context)
            if signal is not None:
                signal.connect(lambda *_args, w=when: self.update_shown(w))

    def save(self) -> None:
        """Remember the window's geometry and dock layout (on close)."""
        window = self._window
        self.context.settings.set_window_state(window.saveGeometry(), window.saveState(self.version))

    # ------------------------------------------------------------------ focus
    def focus(self, name: str) -> QWidget | None:
        """Show dock ``name``, bring it to the front and focus its control; returns the widget
        that got the focus (None if the dock has nothing to focus)."""
        dock, spec = self.docks[name], self._by_name[name]
        dock.show()
        dock.raise_()
        target = spec.focus(self.widgets[name]) if spec.focus is not None else None
        target = target or first_focusable(dock.widget())
        if target is not None:
            target.setFocus(Qt.FocusReason.ShortcutFocusReason)
        return target

    # ------------------------------------------------------------------ shown while open
    def update_shown(self, when: Shown) -> None:
        """The docks shown ``when``: visible while it is met; as they appear they join their tab
        groups, come to the front and take their share of the height."""
        met = when.is_met(self.context)
        specs = [spec for spec in self.specs if spec.shown is when]
        appearing = [spec for spec in specs if met and self.docks[spec.name].isHidden()]
        for spec in specs:
            self.docks[spec.name].setVisible(met)
        if not met:
            return
        for spec in specs:
            if spec.tab_with is not None:
                self._form_group(spec.tab_with)
        for spec in appearing:  # a dock already shown keeps its place in its tab group
            self.docks[spec.name].raise_()
        if any(spec.area == Qt.LeftDockWidgetArea for spec in specs):
            self.fit_side(Qt.LeftDockWidgetArea)  # the panels of fields; plots take their share
        for spec in specs:
            self._take_height_share(spec)

    def _take_height_share(self, spec: DockSpec) -> None:
        """A dock with a :attr:`DockSpec.height_when_shown` takes that share of the window's
        height from the first dock of its area (when it is shown, not tabbed behind another); a
        bottom dock takes it from the table above (when it has less)."""
        dock = self.docks[spec.name]
        if spec.height_when_shown is None or dock.isHidden() or dock.isFloating():
            return
        window = self._window
        if spec.area == Qt.BottomDockWidgetArea:  # the bottom row: its height against the table's
            if window.dockWidgetArea(dock) == spec.area and dock.height() < window.height() * spec.height_when_shown:
                window.resizeDocks([dock], [int(window.height() * spec.height_when_shown)], Qt.Vertical)
            return
        column: list[QDockWidget] = []  # one dock per tab group, in the order of the specs
        for other in self.specs:
            candidate = self.docks[other.name]
            if other.area != spec.area or candidate.isHidden() or candidate.isFloating() \
                    or window.dockWidgetArea(candidate) != spec.area:
                continue
            if not any(candidate in window.tabifiedDockWidgets(d) for d in column):
                column.append(candidate)
        if dock not in column:  # tabbed behind a dock of the column: that group takes the share
            dock = next((d for d in column if dock in window.tabifiedDockWidgets(d)), None)
            if dock is None:
                return
        others = [d for d in column if d is not dock]
        total = sum(d.height() for d in column)
        if not others or total <= 0:
            return
        own = int(total * spec.height_when_shown)
        rest = sum(max(d.height(), 1) for d in others)
        sizes = [max(1, int((total - own) * max(d.height(), 1) / rest)) for d in others]
        window.resizeDocks([*others, dock], [*sizes, own], Qt.Vertical)

    def side_width(self, area: Qt.DockWidgetArea) -> int:
        """The width the docks of ``area`` need to show their contents (the widest contents' size
        hint of its visible docks, with a scroll bar's width), at most :data:`SIDE_SHARE` of the
        window's width but never less than their widest minimum (so that no dock scrolls
        sideways): side panels are sized to their contents first, and the table gets what is
        left."""
        window = self._window
        scroll_bar = window.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        shown = [self.widgets[spec.name] for spec in self.specs
                 if spec.area == area and not self.docks[spec.name].isHidden()
                 and not self.docks[spec.name].isFloating()]
        wanted = max((widget.sizeHint().width() for widget in shown), default=0) + scroll_bar + 8
        needed = max((widget.minimumSizeHint().width() for widget in shown), default=0) + scroll_bar + 8
        return max(min(wanted, int(window.width() * SIDE_SHARE)), needed)

    def fit_side(self, area: Qt.DockWidgetArea) -> None:
        """Widen the docks of ``area`` to :meth:`side_width` when they are narrower (a dock shown
        later, the Tensors or Compare dock, may need more room than the first-run layout gave)."""
        window = self._window
        docked = [self.docks[spec.name] for spec in self.specs if spec.area == area
                  and self.docks[spec.name].isVisible() and not self.docks[spec.name].isFloating()]
        if not docked:
            return
        width = self.side_width(area)
        if min(dock.width() for dock in docked) < width:
            others = [self.docks[spec.name] for spec in self.specs if spec.area != area
                      and spec.area in (Qt.LeftDockWidgetArea, Qt.RightDockWidgetArea)
                      and self.docks[spec.name].isVisible() and not self.docks[spec.name].isFloating()]
            room = window.width() - width - window.centralWidget().minimumSizeHint().width()
            sides = docked
            widths = [width] * len(docked)
            if others:  # the other side gives way, down to its floor
                share = max(room, int(window.width() * 0.18))
                sides, widths = sides + others, widths + [share] * len(others)
            window.resizeDocks(sides, widths, Qt.Horizontal)

    def _members(self, head: str) -> list[DockSpec]:
        return [spec for spec in self.specs if spec.tab_with == head]

    def _form_group(self, head: str) -> bool:
        """Tab the docks of ``head``'s group that are visible now, in the table's order (the ones
        already tabbed, floating or moved to another area are left alone); True if one was tabbed."""
        window, anchor = self._window, self.docks[head]
        tabbed = False
        for spec in self._members(head):
            dock = self.docks[spec.name]
            if spec.shown is not Shown.ALWAYS and not spec.shown.is_met(self.context):
                continue
            if dock not in window.tabifiedDockWidgets(anchor) and not dock.isFloating() \
                    and window.dockWidgetArea(dock) == window.dockWidgetArea(anchor):
                window.tabifyDockWidget(anchor, dock)
                tabbed = True
        return tabbed

    def _raise_front(self, head: str) -> None:
        members = self._members(head)
        front = next((spec.name for spec in members if spec.in_front is not None and spec.in_front(self.context)), head)
        self.docks[front].raise_()

    def _groups_of_always_shown(self) -> list[str]:
        """The heads of the tab groups that have always-shown members, in the table's order."""
        return [head.name for head in self.specs
                if any(spec.shown is Shown.ALWAYS for spec in self._members(head.name))]

    # ------------------------------------------------------------------ first-run and reset
    def window_shown(self) -> None:
        """The window was shown: the first time with nothing restored, apply the first-run layout
        (dock sizes apply once the window is laid out)."""
        if self.needs_default_layout:
            self.needs_default_layout = False
            QTimer.singleShot(0, self.apply_default_layout)

    def reset(self) -> None:
        """Every dock back in its place and size of a first start (View > Reset layout)."""
        window = self._window
        for dock in self.docks.values():
            dock.setFloating(False)
        window.restoreState(self._initial_state)
        for dock in self.docks.values():
            dock.show()
        for head in self._groups_of_always_shown():
            self._form_group(head)
        for when in dict.fromkeys(spec.shown for spec in self.specs if spec.shown is not Shown.ALWAYS):
            self.update_shown(when)
        for head in self._groups_of_always_shown():
            self._raise_front(head)
        self.apply_default_layout()

    def apply_default_layout(self) -> None:
        """Tab groups formed (their front tab raised as a group forms), and dock sizes in
        proportion to the window. A window lower than :data:`COMPACT_HEIGHT` (a laptop screen)
        stacks Decode and Slice as tabs, each then tall enough to use; a window narrower than
        :data:`COMPACT_WIDTH` gives the plot less of its width."""
        window, docks = self._window, self.docks
        for head in self._groups_of_always_shown():
            if self._form_group(head):
                self._raise_front(head)
        width, height = window.width(), window.height()
        decode, slice_dock = docks["decode"], docks["slice"]
        tabbed = slice_dock in window.tabifiedDockWidgets(decode)
        if height < COMPACT_HEIGHT and not tabbed:
            window.tabifyDockWidget(decode, slice_dock)
            decode.raise_()
        elif height >= COMPACT_HEIGHT and tabbed:
            window.addDockWidget(Qt.LeftDockWidgetArea, slice_dock, Qt.Vertical)  # below decode
        plot_share = 0.4 if width >= COMPACT_WIDTH else 0.22
        # The left docks' contents first; the plot its share of what the table can spare.
        left = self.side_width(Qt.LeftDockWidgetArea)
        table = window.centralWidget().minimumSizeHint().width()
        plot = max(min(int(width * plot_share), width - left - table), int(width * 0.18))
        window.resizeDocks([decode, docks["plot"]], [left, plot], Qt.Horizontal)
        window.resizeDocks([docks["hex"]], [int(height * 0.26)], Qt.Vertical)
        window.resizeDocks([docks["hex"], docks["inspector"]], [int(width * 0.55), int(width * 0.45)], Qt.Horizontal)
        if height >= COMPACT_HEIGHT:
            window.resizeDocks([decode, slice_dock], [int(height * 0.42), int(height * 0.58)], Qt.Vertical)
            # A dock shown while open (Tensors, Compare, Model) keeps its share: the bottom row's
            # height first, so that the side columns share out what it leaves them.
            shown_later = [spec for spec in self.specs if spec.shown is not Shown.ALWAYS]
            for spec in sorted(shown_later, key=lambda spec: spec.area != Qt.BottomDockWidgetArea):
                self._take_height_share(spec)
