"""The window's docks as one table: what each dock is, where it goes, its key, when it shows.

:data:`DEFAULT_DOCKS` lists the docks of :class:`inspector.main_window.MainWindow`, one
:class:`DockSpec` each, in the order they are built, docked and listed in the View menu. The
table drives the docks' construction, the View menu's *Go to* entries and show / hide toggles,
the Alt+N focus keys, the first-run and reset layouts (area, tab groups, the docks hidden until
what they show is open) and the saved layout's version (:func:`layout_version`). Adding a dock
is one entry here plus its widget; docs/ui-names.md lists the same docks (a test compares them).

Rules
-----
- Every dock is ``dock.<name>``; a dock with ``scroll`` holds its widget in a scroll area
  ``dock.<name>.scroll`` (a panel of fields scrolls instead of setting a minimum size on the
  window; plots, tables and the hex view compress by themselves).
- A factory builds the dock's widget from a :class:`DockContext` only (the document, the
  comparison, the settings); the window wires what joins widgets to each other or to itself.
- ``tab_with`` names the dock whose tab group it joins (same area, listed before it). The
  group's first dock is in front, unless a member's ``in_front`` says otherwise.
- ``shown`` says when a dock is visible: always, or only while what it shows is open
  (:class:`Shown`); such a dock appears, joins its tab group and comes to the front when that
  opens, and hides when it closes.
- The table is the window's central widget, not a dock: its focus key (:data:`TABLE_FOCUS`)
  comes first in :func:`focus_keys`.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtWidgets import QWidget

from inspector.bytes.data_inspector import DataInspector
from inspector.compare.models_panel import ModelComparePanel
from inspector.compare.panel import ComparePanel
from inspector.compare.plot import ComparisonPlot
from inspector.panels.bookmarks_panel import BookmarksPanel
from inspector.panels.decode_panel import DecodePanel
from inspector.panels.model_panel import ModelPanel
from inspector.panels.statistics_panel import StatisticsPanel
from inspector.panels.tensors_panel import TensorsPanel
from inspector.plot.panel import PlotPanel
from inspector.slice_editor.editor import SliceEditor
from inspector.state.comparison import Comparison
from inspector.state.document import Document
from inspector.state.model_comparison import ModelComparison
from inspector.state.model_scan import ModelScan
from inspector.state.settings_store import SettingsStore
from inspector.widgets.hex_view import HexView

__all__ = ["DEFAULT_DOCKS", "TABLE_FOCUS", "DockContext", "DockSpec", "Shown", "check_docks", "focus_keys",
           "layout_version"]


@dataclass(frozen=True)
class DockContext:
    """What a dock's widget is built from (and what decides when a dock shows)."""

    document: Document
    comparison: Comparison
    settings: SettingsStore
    models: ModelComparison
    scan: ModelScan


class Shown(Enum):
    """When a dock is visible (the words are those of docs/ui-names.md's rows)."""

    ALWAYS = "always"
    WITH_CONTAINER = "shown while a container file is open"
    WITH_COMPARISON = "shown once B is opened"
    WITH_MODEL_COMPARISON = "shown while two models are compared"
    WITH_MODEL = "shown while a container file is open or a folder is scanned"

    def is_met(self, context: DockContext) -> bool:
        """Whether what the dock shows is open now."""
        if self is Shown.WITH_CONTAINER:
            return context.document.container is not None
        if self is Shown.WITH_COMPARISON:
            return context.comparison.is_open
        if self is Shown.WITH_MODEL_COMPARISON:
            return context.models.is_open
        if self is Shown.WITH_MODEL:
            return context.scan.available
        return True

    def changed(self, context: DockContext) -> SignalInstance | None:
        """The signal emitted when :meth:`is_met` may change (None: never)."""
        if self is Shown.WITH_CONTAINER:
            return context.document.containerChanged
        if self is Shown.WITH_COMPARISON:
            return context.comparison.filesChanged
        if self is Shown.WITH_MODEL_COMPARISON:
            return context.models.opened
        if self is Shown.WITH_MODEL:
            return context.scan.targetChanged
        return None


@dataclass(frozen=True)
class DockSpec:
    """One dock of the window.

    Attributes
    ----------
    name:
        ``dock.<name>`` is its objectName and its key in the saved layout.
    title:
        Its title bar and its View menu toggle.
    area:
        Where it is docked in the first-run and reset layouts.
    factory:
        Builds its widget.
    focus_text, focus_key:
        View > Go to ``focus_text`` (with its ``&`` mnemonic) and the key that shows the dock and
        focuses it; both None for a dock with no focus key.
    focus:
        The control its focus key focuses, given the widget (None: its first focusable control).
    tab_with:
        The dock whose tab group it joins (None: a dock of its own).
    in_front:
        Whether it is the group's tab in front in the first-run and reset layouts (None: only
        the group's first dock is).
    scroll:
        The widget sits in a scroll area ``dock.<name>.scroll``.
    shown:
        When it is visible.
    height_when_shown:
        A dock shown later takes this share of the window's height when it appears, the first
        dock of its area the rest (None: Qt's share).
    """

    name: str
    title: str
    area: Qt.DockWidgetArea
    factory: Callable[[DockContext], QWidget]
    focus_text: str | None = None
    focus_key: str | None = None
    focus: Callable[[QWidget], QWidget | None] | None = None
    tab_with: str | None = None
    in_front: Callable[[DockContext], bool] | None = None
    scroll: bool = False
    shown: Shown = Shown.ALWAYS
    height_when_shown: float | None = None


TABLE_FOCUS = ("table", "&Table", "Alt+1")
"""The central table's View menu entry and key: (name, menu text, key)."""


def _statistics(context: DockContext) -> StatisticsPanel:
    return StatisticsPanel(context.document)  # its log scale is a view option of the document


LEFT, RIGHT, BOTTOM = Qt.LeftDockWidgetArea, Qt.RightDockWidgetArea, Qt.BottomDockWidgetArea

DEFAULT_DOCKS: tuple[DockSpec, ...] = (
    DockSpec("decode", "Decode", LEFT, lambda c: DecodePanel(c.document),  # it scrolls itself
             focus_text="&Decode panel", focus_key="Alt+2"),
    DockSpec("slice", "Slice", LEFT, lambda c: SliceEditor(c.document), focus_text="&Slice panel", focus_key="Alt+3",
             focus=lambda editor: editor.expression_edit, scroll=True),
    DockSpec("plot", "Plot", RIGHT, lambda c: PlotPanel(document=c.document), focus_text="&Plot", focus_key="Alt+4"),
    DockSpec("hex", "Bytes", BOTTOM, lambda c: HexView(), focus_text="&Bytes", focus_key="Alt+5",
             focus=lambda view: view),
    DockSpec("inspector", "Data inspector", BOTTOM, lambda c: DataInspector(busy=c.document.busy), focus_text="Data &inspector",
             focus_key="Alt+6", scroll=True),
    DockSpec("statistics", "Statistics", RIGHT, _statistics, focus_text="S&tatistics", focus_key="Alt+7",
             tab_with="plot", scroll=True),
    DockSpec("tensors", "Tensors", LEFT, lambda c: TensorsPanel(c.document), shown=Shown.WITH_CONTAINER,
             height_when_shown=0.4),  # a model's tensors are what one navigates by
    DockSpec("compare", "Compare", LEFT, lambda c: ComparePanel(c.comparison), tab_with="slice", scroll=True,
             shown=Shown.WITH_COMPARISON, height_when_shown=0.75),  # the list needs most of the column
    DockSpec("comparePlot", "Compare plot", RIGHT, lambda c: ComparisonPlot(c.comparison), tab_with="plot",
             shown=Shown.WITH_COMPARISON),
    DockSpec("bookmarks", "Bookmarks", BOTTOM, lambda c: BookmarksPanel(c.document), focus_text="Boo&kmarks",
             focus_key="Alt+8", tab_with="inspector", in_front=lambda c: len(c.document.bookmarks) > 0),
    DockSpec("model", "Model", BOTTOM, lambda c: ModelPanel(c.scan), focus_text="&Model",
             focus_key="Alt+9", focus=lambda panel: panel.table, tab_with="hex",
             shown=Shown.WITH_MODEL, height_when_shown=0.32),  # wide: every figure of every tensor
    DockSpec("modelCompare", "Compare models", BOTTOM, lambda c: ModelComparePanel(c.models), tab_with="hex",
             focus=lambda panel: panel.table, shown=Shown.WITH_MODEL_COMPARISON, height_when_shown=0.45),
)
"""The window's docks (module docstring); a session's bookmarks put the Bookmarks tab in front."""


def focus_keys(docks: Sequence[DockSpec]) -> tuple[tuple[str, str, str], ...]:
    """``(name, menu text, key)`` of the View menu's *Go to* entries: the table, then each dock
    with a focus key, in the table's order."""
    return (TABLE_FOCUS, *((d.name, d.focus_text, d.focus_key) for d in docks if d.focus_key is not None))


def check_docks(docks: Sequence[DockSpec]) -> None:
    """Check that a table of docks is consistent.

    Raises
    ------
    ValueError
        Two docks share a name or a focus key; a dock has a focus key without a menu text (or
        the reverse); ``tab_with`` names no dock listed before it, or one in another area.
    """
    names: dict[str, DockSpec] = {}
    keys = {TABLE_FOCUS[2]: TABLE_FOCUS[0]}
    for dock in docks:
        if dock.name in names or dock.name == TABLE_FOCUS[0]:
            raise ValueError(f"two docks are named {dock.name!r}")
        if (dock.focus_key is None) != (dock.focus_text is None):
            raise ValueError(f"dock {dock.name!r}: give both a focus key and its menu text, or neither")
        if dock.focus_key is not None:
            if dock.focus_key in keys:
                raise ValueError(f"docks {keys[dock.focus_key]!r} and {dock.name!r} both use {dock.focus_key}")
            keys[dock.focus_key] = dock.name
        if dock.tab_with is not None:
            group = names.get(dock.tab_with)
            if group is None:
                raise ValueError(f"dock {dock.name!r} is tabbed with {dock.tab_with!r}, which is not listed before it")
            if group.area != dock.area:
                raise ValueError(f"dock {dock.name!r} is tabbed with {dock.tab_with!r}, which is in another area")
        names[dock.name] = dock


#: Versions given before the version came from the dock names: the set of docks saved under each.
_KNOWN_LAYOUTS = {
    2: frozenset({"decode", "slice", "plot", "hex", "inspector", "statistics", "tensors", "compare", "comparePlot",
                  "bookmarks"}),
}


def layout_version(docks: Sequence[DockSpec]) -> int:
    """The version the window's layout is saved and restored under; it changes with the set of
    dock names, so that a layout saved with other docks is not restored.

    Today's set keeps version 2 (layouts saved before this rule restore); any other set gets a
    number from a checksum of its sorted names (above 1000, clear of the old versions 0-2).
    """
    names = frozenset(dock.name for dock in docks)
    for version, known in _KNOWN_LAYOUTS.items():
        if names == known:
            return version
    return 1000 + zlib.crc32(",".join(sorted(names)).encode()) % (1 << 30)
