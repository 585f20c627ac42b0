"""The window's menus and their keys: File, Edit, View, Tools, Help.

:class:`WindowMenus` builds the menu bar of a main window from what it is given: the document and
settings, the window's commands (:class:`WindowCommands`, which the window owns), the actions of
its panels, and its :class:`~inspector.window_layout.DockLayout` (the View menu: a *Go to* entry
with its key for the table and each dock that has one, a show / hide toggle for every dock, in
the table of docks' order — showing a dock this way brings it to the front of its tab group and
gives it the focus — and Reset layout). Undo / redo work from anywhere in the window, even
in a text field (:class:`HistoryKeys`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow

from inspector.docks import focus_keys
from inspector.panels.help_dialogs import open_readme, readme_location
from inspector.state.document import Document
from inspector.state.settings_store import SettingsStore
from inspector.table.find_bar import FindBar
from inspector.widgets.actions import command_action
from inspector.widgets.history_keys import REDO_KEYS, UNDO_KEYS, history_step
from inspector.widgets.plain_text import menu_text
from inspector.window_layout import DockLayout


@dataclass(frozen=True)
class WindowCommands:
    """What the menus trigger that the window does (used while the menus are built, not kept)."""

    open_dialog: Callable[[], object]
    open_url: Callable[[], object]
    open_paths: Callable[[list[str]], object]
    export: Callable[[], object]
    close_file: Callable[[], object]
    copy_code: Callable[[str], object]
    quit: Callable[[], object]
    focus_panel: Callable[[str], object]
    focus_slice_expression: Callable[[], object]
    guess: Callable[[], object]
    cluster: Callable[[], object]
    records: Callable[[], object]
    shortcuts: Callable[[], object]
    sample: Callable[[], object]
    about: Callable[[], object]


@dataclass(frozen=True)
class PanelActions:
    """Actions and commands of the panels that the menus list."""

    session: Sequence[QAction]
    compare: QAction
    compare_models: QAction
    scan_folder: QAction
    copy_comparison: Callable[[], object]
    hex: Sequence[QAction]
    bookmarks: Sequence[QAction]
    find_bar: FindBar


class WindowMenus(QObject):
    """The menu bar of one main window and its actions (module docstring)."""

    def __init__(self, window: QMainWindow, *, document: Document, settings: SettingsStore,
                 commands: WindowCommands, panels: PanelActions, docks: DockLayout) -> None:
        super().__init__(window)
        self._history = document.history
        bar = window.menuBar()
        file_menu = bar.addMenu("&File")
        self.open_action = command_action("&Open…", window, commands.open_dialog, shortcut=QKeySequence.Open)
        file_menu.addAction(self.open_action)
        self.open_url_action = command_action("Open &URL…", window, commands.open_url, shortcut="Ctrl+Shift+O")
        file_menu.addAction(self.open_url_action)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(lambda: _fill_recent_menu(self.recent_menu, settings, commands.open_paths))
        file_menu.addSeparator()
        for action in panels.session:
            file_menu.addAction(action)
        file_menu.addSeparator()
        self.reload_action = command_action("Re&load", window, document.reload, shortcut=QKeySequence.Refresh)
        file_menu.addAction(self.reload_action)
        self.export_action = command_action("&Export view…", window, commands.export, shortcut="Ctrl+E")
        file_menu.addAction(self.export_action)
        self.kerchunk_action = command_action("Export &kerchunk references…", window,
                                              lambda: _open_kerchunk_dialog(document, window))
        self.kerchunk_action.setObjectName("kerchunk.action")
        file_menu.addAction(self.kerchunk_action)
        self.close_action = command_action("&Close", window, commands.close_file, shortcut="Ctrl+W")
        file_menu.addAction(self.close_action)
        file_menu.addAction(panels.compare)
        file_menu.addAction(panels.compare_models)
        file_menu.addAction(panels.scan_folder)
        file_menu.addSeparator()
        self.reopen_action = QAction("Reopen last files on &start", window, checkable=True)
        self.reopen_action.setChecked(settings.reopen_last_files())
        self.reopen_action.toggled.connect(settings.set_reopen_last_files)
        file_menu.addAction(self.reopen_action)
        file_menu.addSeparator()
        file_menu.addAction(command_action("&Quit", window, commands.quit, shortcut="Ctrl+Q"))
        edit_menu = bar.addMenu("&Edit")
        self.undo_action = command_action("&Undo", window, document.undo)
        self.undo_action.setShortcuts(_key_list(QKeySequence.StandardKey.Undo, UNDO_KEYS))
        self.redo_action = command_action("&Redo", window, document.redo)
        self.redo_action.setShortcuts(_key_list(QKeySequence.StandardKey.Redo, REDO_KEYS))
        for action in (self.undo_action, self.redo_action):
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            edit_menu.addAction(action)
        edit_menu.addSeparator()
        document.historyChanged.connect(self._on_history_changed)
        self._on_history_changed()
        self._history_keys = HistoryKeys(window, self.undo_action, self.redo_action)
        for kind, label in (("numpy", "Copy view as &numpy code"), ("tensorflow", "Copy view as &TensorFlow code")):
            edit_menu.addAction(command_action(label, window, lambda k=kind: commands.copy_code(k)))
        edit_menu.addSeparator()
        find_bar = panels.find_bar
        self.find_action = command_action("&Find in table…", window, find_bar.open, shortcut=QKeySequence.Find)
        self.find_next_action = command_action("Find &next", window, lambda: find_bar.find(backward=False), shortcut=QKeySequence.FindNext)
        self.find_previous_action = command_action("Find pre&vious", window, lambda: find_bar.find(backward=True), shortcut=QKeySequence.FindPrevious)
        for action in (self.find_action, self.find_next_action, self.find_previous_action):
            edit_menu.addAction(action)
        bytes_menu = edit_menu.addMenu("&Bytes")
        for action in panels.hex:
            bytes_menu.addAction(action)
        edit_menu.addSeparator()
        for action in panels.bookmarks:
            edit_menu.addAction(action)
        copy_comparison = panels.copy_comparison
        edit_menu.addAction(command_action("Copy &comparison as numpy code", window, copy_comparison))

        self.view_menu = bar.addMenu("&View")
        self.focus_actions: dict[str, QAction] = {}
        for name, text, key in focus_keys(docks.specs):
            action = command_action(f"Go to {text}", window, lambda n=name: commands.focus_panel(n), shortcut=key)
            self.view_menu.addAction(action)
            self.focus_actions[name] = action
        self.slice_focus_action = command_action("Go to slice &expression", window, commands.focus_slice_expression, shortcut="Ctrl+L")
        self.view_menu.addAction(self.slice_focus_action)
        self.view_menu.addSeparator()
        for name, dock in docks.docks.items():
            toggle = dock.toggleViewAction()
            # showing a dock from the menu brings it to the front of its tabs and focuses it
            toggle.triggered.connect(lambda checked, n=name: docks.focus(n) if checked else None)
            self.view_menu.addAction(toggle)
        self.view_menu.addSeparator()
        self.reset_layout_action = command_action("&Reset layout", window, docks.reset)
        self.view_menu.addAction(self.reset_layout_action)

        tools_menu = bar.addMenu("&Tools")
        self.guess_action = command_action("&Guess layout…", window, commands.guess, shortcut="Ctrl+Shift+G")
        tools_menu.addAction(self.guess_action)
        self.cluster_action = command_action("Dask &cluster…", window, commands.cluster)
        tools_menu.addAction(self.cluster_action)
        self.records_action = command_action("&Records…", window, commands.records)
        tools_menu.addAction(self.records_action)
        help_menu = bar.addMenu("&Help")
        self.shortcuts_action = command_action("&Keyboard shortcuts", window, commands.shortcuts, shortcut=QKeySequence.HelpContents)
        self.readme_action = command_action("&User guide (README)", window, open_readme)
        self.readme_action.setEnabled(readme_location() is not None)
        self.sample_action = command_action("Open the embedded &sample", window, commands.sample)
        self.about_action = command_action("&About tensor-inspector", window, commands.about)
        for action in (self.shortcuts_action, self.readme_action, self.sample_action, self.about_action):
            help_menu.addAction(action)

    def _on_history_changed(self) -> None:
        history = self._history
        self.undo_action.setEnabled(history.can_undo)
        self.redo_action.setEnabled(history.can_redo)
        self.undo_action.setText(f"&Undo {history.undo_label}" if history.can_undo else "&Undo")
        self.redo_action.setText(f"&Redo {history.redo_label}" if history.can_redo else "&Redo")


def _fill_recent_menu(menu, settings: SettingsStore, open_paths: Callable[[list[str]], object]) -> None:
    menu.clear()
    recent, urls = settings.recent_files(), settings.recent_urls()
    if not recent and not urls:
        menu.addAction("(none)").setEnabled(False)
    for path in recent:
        menu.addAction(menu_text(path), lambda p=path: open_paths([p]))
    if recent and urls:
        menu.addSeparator()
    for url in urls:
        menu.addAction(menu_text(url), lambda u=url: open_paths([u]))


class HistoryKeys(QObject):
    """Undo / redo keys pressed anywhere in the window undo the document.

    A focused line edit claims Ctrl+Z for its own text (it accepts the ShortcutOverride
    event), so the Edit menu's shortcut would not fire there. Every field applies live, so the
    document's undo must win: the key press that reaches such a widget is taken here first (an
    application event filter, limited to this window) and triggers the Edit menu's action.
    """

    def __init__(self, window: QMainWindow, undo_action: QAction, redo_action: QAction) -> None:
        super().__init__(window)
        self._undo_action, self._redo_action = undo_action, redo_action
        # Weak: a strong reference from this child back to its window is a cycle through Qt's
        # ownership that Python's collector cannot see, and every window would leak.
        self._window = weakref.ref(window)
        app = QCoreApplication.instance()
        if app is not None:
            app.installEventFilter(self)  # removed by Qt when this object is destroyed

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not watched.isWidgetType():
            return False
        window_ref = getattr(self, "_window", None)
        window = window_ref() if window_ref is not None else None
        if window is None or not (watched is window or window.isAncestorOf(watched)):
            return False
        step = history_step(event)
        if step is None:
            return False
        action = self._undo_action if step == "undo" else self._redo_action
        if action.isEnabled():
            action.trigger()
        return True



def _key_list(standard: QKeySequence.StandardKey, extra: list[QKeySequence]) -> list[QKeySequence]:
    """The platform's bindings for ``standard`` plus ``extra``, without duplicates."""
    keys = list(QKeySequence.keyBindings(standard))
    return keys + [key for key in extra if key not in keys]


def _open_kerchunk_dialog(document: Document, window: QMainWindow) -> None:
    """File > Export kerchunk references…: its dialog (imported on first use)."""
    from inspector.panels.kerchunk_dialog import open_kerchunk_dialog

    open_kerchunk_dialog(document, window)
