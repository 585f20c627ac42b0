"""The window's menus and their keys: File, Edit, View, Tools, Help.

:class:`WindowMenus` is a mixin of :class:`inspector.main_window.MainWindow`: it builds the menus
from the window's panels and actions (the window owns what they trigger). Undo / redo work from
anywhere in the window, even in a text field (:class:`HistoryKeys`); the View menu moves the
focus to each panel (:data:`FOCUS_KEYS`).
"""

from __future__ import annotations

import weakref

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow

from inspector.panels.help_dialogs import open_readme, readme_location
from inspector.widgets.history_keys import REDO_KEYS, UNDO_KEYS, history_step
from inspector.widgets.plain_text import menu_text

#: View menu focus actions: (panel, menu text, shortcut). The table is the central widget.
FOCUS_KEYS = (
    ("table", "&Table", "Alt+1"),
    ("decode", "&Decode panel", "Alt+2"),
    ("slice", "&Slice panel", "Alt+3"),
    ("plot", "&Plot", "Alt+4"),
    ("hex", "&Bytes", "Alt+5"),
    ("inspector", "Data &inspector", "Alt+6"),
    ("statistics", "S&tatistics", "Alt+7"),
    ("bookmarks", "Boo&kmarks", "Alt+8"),
)



class WindowMenus:
    """Builds the menu bar of the main window (module docstring)."""

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.open_action = QAction("&Open…", self, shortcut=QKeySequence.Open, triggered=self._on_open_triggered)
        file_menu.addAction(self.open_action)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        file_menu.addSeparator()
        for action in self.session_actions.actions:
            file_menu.addAction(action)
        file_menu.addSeparator()
        self.reload_action = QAction("Re&load", self, shortcut=QKeySequence.Refresh, triggered=self.document.reload)
        file_menu.addAction(self.reload_action)
        self.export_action = QAction("&Export view…", self, shortcut="Ctrl+E", triggered=self._on_export_triggered)
        file_menu.addAction(self.export_action)
        self.close_action = QAction("&Close", self, shortcut="Ctrl+W", triggered=self.close_file)
        file_menu.addAction(self.close_action)
        file_menu.addAction(self.compare_action)
        file_menu.addSeparator()
        self.reopen_action = QAction("Reopen last files on &start", self, checkable=True)
        self.reopen_action.setChecked(self.settings.reopen_last_files())
        self.reopen_action.toggled.connect(self.settings.set_reopen_last_files)
        file_menu.addAction(self.reopen_action)
        file_menu.addSeparator()
        file_menu.addAction(QAction("&Quit", self, shortcut="Ctrl+Q", triggered=self.close))
        edit_menu = self.menuBar().addMenu("&Edit")
        self.undo_action = QAction("&Undo", self, triggered=self.document.undo)
        self.undo_action.setShortcuts(_key_list(QKeySequence.StandardKey.Undo, UNDO_KEYS))
        self.redo_action = QAction("&Redo", self, triggered=self.document.redo)
        self.redo_action.setShortcuts(_key_list(QKeySequence.StandardKey.Redo, REDO_KEYS))
        for action in (self.undo_action, self.redo_action):
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            edit_menu.addAction(action)
        edit_menu.addSeparator()
        self.document.historyChanged.connect(self._on_history_changed)
        self._on_history_changed()
        self._history_keys = HistoryKeys(self)
        for kind, label in (("numpy", "Copy view as &numpy code"), ("tensorflow", "Copy view as &TensorFlow code")):
            edit_menu.addAction(QAction(label, self, triggered=lambda _=False, k=kind: self._copy_code(k)))
        edit_menu.addSeparator()
        find_bar = self.table_panel.find_bar
        self.find_action = QAction("&Find in table…", self, shortcut=QKeySequence.Find, triggered=self._open_find_bar)
        self.find_next_action = QAction("Find &next", self, shortcut=QKeySequence.FindNext,
                                        triggered=lambda: find_bar.find(backward=False))
        self.find_previous_action = QAction("Find pre&vious", self, shortcut=QKeySequence.FindPrevious,
                                            triggered=lambda: find_bar.find(backward=True))
        for action in (self.find_action, self.find_next_action, self.find_previous_action):
            edit_menu.addAction(action)
        bytes_menu = edit_menu.addMenu("&Bytes")
        for action in self.hex_actions.actions:
            bytes_menu.addAction(action)
        edit_menu.addSeparator()
        for action in (self.bookmarks_panel.add_element_action, self.bookmarks_panel.add_region_action,
                       self.bookmarks_panel.add_bytes_action):
            edit_menu.addAction(action)
        edit_menu.addAction(QAction("Copy &comparison as numpy code", self, triggered=lambda _=False: self.compare_panel.copy_code()))

        self.view_menu = self.menuBar().addMenu("&View")
        self.focus_actions: dict[str, QAction] = {}
        for name, text, key in FOCUS_KEYS:
            action = QAction(f"Go to {text}", self, shortcut=key, triggered=lambda _=False, n=name: self.focus_panel(n))
            self.view_menu.addAction(action)
            self.focus_actions[name] = action
        self.slice_focus_action = QAction("Go to slice &expression", self, shortcut="Ctrl+L",
                                          triggered=self.focus_slice_expression)
        self.view_menu.addAction(self.slice_focus_action)
        self.view_menu.addSeparator()
        for dock in self.docks.values():
            self.view_menu.addAction(dock.toggleViewAction())
        self.view_menu.addSeparator()
        self.reset_layout_action = QAction("&Reset layout", self, triggered=self.reset_layout)
        self.view_menu.addAction(self.reset_layout_action)

        tools_menu = self.menuBar().addMenu("&Tools")
        self.guess_action = QAction("&Guess layout…", self, shortcut="Ctrl+Shift+G", triggered=self.show_guess_dialog)
        tools_menu.addAction(self.guess_action)
        help_menu = self.menuBar().addMenu("&Help")
        self.shortcuts_action = QAction("&Keyboard shortcuts", self, shortcut=QKeySequence.HelpContents,
                                        triggered=self.show_shortcuts)
        self.readme_action = QAction("&User guide (README)", self, triggered=open_readme)
        self.readme_action.setEnabled(readme_location() is not None)
        self.sample_action = QAction("Open the embedded &sample", self, triggered=self.open_sample)
        self.about_action = QAction("&About tensor-inspector", self, triggered=self.show_about)
        for action in (self.shortcuts_action, self.readme_action, self.sample_action, self.about_action):
            help_menu.addAction(action)

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.recent_files()
        if not recent:
            self.recent_menu.addAction("(none)").setEnabled(False)
        for path in recent:
            self.recent_menu.addAction(menu_text(path), lambda p=path: self.open_paths([p]))



class HistoryKeys(QObject):
    """Undo / redo keys pressed anywhere in the window undo the document.

    A focused line edit claims Ctrl+Z for its own text (it accepts the ShortcutOverride
    event), so the Edit menu's shortcut would not fire there. Every field applies live, so the
    document's undo must win: the key press that reaches such a widget is taken here first (an
    application event filter, limited to this window) and triggers the Edit menu's action.
    """

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
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
        action = window.undo_action if step == "undo" else window.redo_action
        if action.isEnabled():
            action.trigger()
        return True



def _key_list(standard: QKeySequence.StandardKey, extra: list[QKeySequence]) -> list[QKeySequence]:
    """The platform's bindings for ``standard`` plus ``extra``, without duplicates."""
    keys = list(QKeySequence.keyBindings(standard))
    return keys + [key for key in extra if key not in keys]
