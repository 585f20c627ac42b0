"""The main window: assembles the panels as dock widgets around one document and builds the menus.

It computes nothing and pushes no data: every view is built from :class:`Document` and listens
to it (napari's Qt viewer). The Edit menu's Undo / Redo walk the document's history of decode
and slice edits, from anywhere in the window (see :class:`inspector.window_menus.HistoryKeys`).

What the window says matches what it shows, and what it shows is the document's: which files
the views show (:attr:`Document.shown_paths <inspector.state.document.Document.shown_paths>`),
whether a change on disk cleared them (``Document.views_cleared_by``) and every display choice
(``Document.view_options``, remembered between runs through ``Document.snapshot`` /
``Document.restore``). The window keeps none of it; it renders it:

- The title (like the status bar) names the files whose view the table shows: it changes with
  a new view, not when files are opened that cannot be decoded yet (the table then still shows
  the previous file, and the banner says so and names the new files).
- One banner tells what is shown. The red banner (``window.banner``) gives the document's error
  and what the views show meanwhile: the last good view, the previous file (naming the files
  that are not shown yet), nothing (naming the open files), or nothing because the files
  changed on disk. When the files changed on disk and the views were
  cleared, the yellow file-change banner says it (with Reload) and the red one stays hidden
  while its error is that change.

The docks come from a table (:data:`inspector.docks.DEFAULT_DOCKS`, or the ``docks`` given):
:class:`~inspector.window_layout.DockLayout` builds and places them, the window wires the
widgets to each other, and :class:`~inspector.window_menus.WindowMenus` lists them in the View menu.

Keyboard: the View menu moves the focus to each panel (Alt+1 table ... Alt+8 bookmarks,
Ctrl+L the slice expression); a :class:`FocusFrame` shows where the focus is; Tab walks every
panel (the table does not keep it). Help > Keyboard shortcuts lists every key.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from core.errors import CoreError, ErrorReport, describe_error
from core.files.remote import is_url, set_cache_capacity
from core.files.sources import structured_npy
from core.formats.registry import container_path
from core.pipeline.pipeline import DecodeParams
from core.records.choice import RecordsChoice
from core.records.structured import npy_records_text
from core.text.names import printable_name
from inspector.bytes.hex_actions import HexActions
from inspector.bytes.link import BytesLink
from inspector.bytes.marks import follow_bookmarks_in_hex
from inspector.compare.table_values import follow_comparison
from inspector.docks import DEFAULT_DOCKS, DockContext, DockSpec, Shown
from inspector.panels.file_watch_banner import FileWatchBanner
from inspector.panels.guess_banner import GuessBanner
from inspector.panels.help_dialogs import ShortcutsDialog, show_about
from inspector.panels.session_banner import SessionBanner
from inspector.panels.status_bar import StatusBar
from inspector.plot.bookmark_marks import follow_bookmarks_in_plot
from inspector.session_actions import SessionActions
from inspector.state.background_task import shutdown_tasks
from inspector.state.comparison import Comparison
from inspector.state.document import Document, EntryFileView
from inspector.state.model_comparison import ModelComparison
from inspector.state.model_scan import ModelScan
from inspector.state.settings_store import SettingsStore
from inspector.state.snapshot import DocumentSnapshot
from inspector.table.bookmark_marks import follow_bookmarks_in_table
from inspector.table.panel import TablePanel
from inspector.widgets import palette
from inspector.widgets.actions import command_action
from inspector.widgets.elided_label import let_long_words_overflow
from inspector.widgets.focus_frame import FocusFrame
from inspector.widgets.hex_view import HexView
from inspector.widgets.plain_text import display_name, html_text, tooltip_text
from inspector.window_layout import DockLayout
from inspector.window_menus import PanelActions, WindowCommands, WindowMenus
from resources import DEFAULT_SAMPLE, resource_path, sample_settings

if TYPE_CHECKING:  # imported when first used: the first frame does not need them (start-up time)
    from inspector.panels.guess_dialog import GuessDialog

class MainWindow(QMainWindow):
    """Table in the centre; decode, slice and plot panels docked around it (``docks``: the table
    of docks, :data:`~inspector.docks.DEFAULT_DOCKS` with more docks after them, say)."""

    def __init__(self, settings: SettingsStore | None = None, parent: QWidget | None = None, *,
                 docks: Sequence[DockSpec] = DEFAULT_DOCKS) -> None:
        super().__init__(parent)
        self.setWindowTitle("tensor-inspector")
        self.setAcceptDrops(True)
        self.settings = settings if settings is not None else SettingsStore()
        set_cache_capacity(self.settings.remote_cache_mib() << 20)  # the remote files' block cache
        self.document = Document(self)
        self._other_windows: dict[int, MainWindow] = {}  # windows opened from this one, until closed
        self.display_axes = self.document.display_axes

        self.message_label = QLabel()
        self.message_label.setObjectName("window.banner")
        self.message_label.setWordWrap(True)
        let_long_words_overflow(self.message_label)  # a quoted long path must not widen the window
        self.message_label.setTextFormat(Qt.RichText)  # for its <b>: what it shows is escaped
        self.message_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.message_label.setStyleSheet(palette.banner_style("error"))
        self.message_label.hide()
        self.table_panel = TablePanel(document=self.document)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        self.file_watch_banner = FileWatchBanner(self.document)
        layout.addWidget(self.file_watch_banner)
        self.session_banner = SessionBanner(self.document)
        layout.addWidget(self.session_banner)
        self.guess_banner = GuessBanner(self.document)
        self.guess_banner.guessRequested.connect(self.show_guess_dialog)
        self.guess_banner.turnedOff.connect(lambda: self.settings.set_guess_banner_enabled(False))
        layout.addWidget(self.guess_banner)
        self.guess_dialog: GuessDialog | None = None
        layout.addWidget(self.message_label)
        self.hint_label = QLabel(objectName="window.hint")  # the sample / no file: how to open one
        self.hint_label.setWordWrap(True)
        self.hint_label.setStyleSheet(palette.banner_style("info"))
        self.hint_label.hide()
        layout.addWidget(self.hint_label)
        self._sample_paths: tuple[str, ...] = ()
        layout.addWidget(self.table_panel, 1)
        self.setCentralWidget(central)

        self.comparison = Comparison(self.document, self)
        self.model_comparison = ModelComparison(self.comparison, self)
        self.model_scan = ModelScan(self.document, self)
        self.guess_banner.hide_on(self.comparison.filesChanged)
        self.dock_layout = DockLayout(self, docks, DockContext(self.document, self.comparison, self.settings,
                                                               self.model_comparison, self.model_scan))
        self.docks = self.dock_layout.docks  # by name: dock.<name>
        panels = self.dock_layout.build()
        self.decode_panel, self.slice_editor, self.plot_panel = panels["decode"], panels["slice"], panels["plot"]
        self.hex_view, self.data_inspector = panels["hex"], panels["inspector"]
        self.statistics_panel, self.tensors_panel = panels["statistics"], panels["tensors"]
        self.compare_panel, self.compare_plot = panels["compare"], panels["comparePlot"]
        self.bookmarks_panel = panels["bookmarks"]
        self.model_panel, self.model_compare_panel = panels["model"], panels["modelCompare"]
        self.tensors_panel.valuesComputed.connect(self._open_in_new_window)
        self.model_panel.tensorChosen.connect(self.tensors_panel.show_tensor)
        self._wire_compare()
        self._wire_model_compare()
        self._wire_bookmarks()
        self.session_actions = SessionActions(self, self.session_banner)
        self.setStatusBar(StatusBar(self.document))
        self.hex_actions = HexActions(self.hex_view, self)
        self.menus = self._build_menus()
        self.focus_frame = FocusFrame(self)
        for item_view in self.findChildren(QAbstractItemView):
            item_view.setTabKeyNavigation(False)  # Tab moves on to the next control; arrows move between cells

        self.document.resultChanged.connect(self._on_result_changed)
        self.document.errorChanged.connect(self._on_error_changed)
        self.document.filesChanged.connect(self._on_files_changed)
        self._records_dialog = None
        self.document.records.changed.connect(self._on_records)
        self.bytes_link = BytesLink(self.document, self.hex_view, self.data_inspector, self)
        self.bytes_link.message.connect(self._show_status_note)
        self.hex_actions.message.connect(self._show_status_note)
        self.hex_actions.headerOffsetChosen.connect(self.bytes_link.use_as_header_offset)
        self.document.filesChangedOnDisk.connect(self._on_files_changed_on_disk)
        self.dock_layout.follow(Shown.WITH_CONTAINER)
        self.document.containerChanged.connect(self._on_container_changed)
        self.resize(1280, 800)
        self.dock_layout.restore()
        self._restore_display_options()
        self._update_hint()

    # ------------------------------------------------------------------ assembly
    def _build_menus(self) -> WindowMenus:
        commands = WindowCommands(
            open_dialog=self._on_open_triggered, open_url=self.show_open_url_dialog, open_paths=self.open_paths,
            export=self._on_export_triggered,
            close_file=self.close_file, copy_code=self._copy_code, quit=self.close, focus_panel=self.focus_panel,
            focus_slice_expression=self.focus_slice_expression, guess=self.show_guess_dialog,
            cluster=self.show_cluster_dialog, records=self.show_records_dialog,
            shortcuts=self.show_shortcuts, sample=self.open_sample, about=self.show_about)
        bookmarks = self.bookmarks_panel
        panels = PanelActions(
            session=self.session_actions.actions, compare=self.compare_action,
            compare_models=self.compare_models_action, scan_folder=self.scan_folder_action,
            copy_comparison=self.compare_panel.copy_code, hex=self.hex_actions.actions,
            bookmarks=(bookmarks.add_element_action, bookmarks.add_region_action, bookmarks.add_bytes_action),
            find_bar=self.table_panel.find_bar)
        return WindowMenus(self, document=self.document, settings=self.settings, commands=commands, panels=panels,
                           docks=self.dock_layout)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.dock_layout.window_shown()

    # ------------------------------------------------------------------ keyboard
    def focus_panel(self, name: str) -> QWidget | None:
        """Show panel ``name`` (``"table"`` or a dock's name) and give the focus to its control
        (:meth:`DockLayout.focus <inspector.window_layout.DockLayout.focus>`).

        Returns the widget that got the focus (None if the panel has nothing to focus).
        """
        if name not in self.docks:
            target = self.table_panel.view
            target.setFocus(Qt.FocusReason.ShortcutFocusReason)
            return target
        return self.dock_layout.focus(name)

    def focus_slice_expression(self) -> None:
        """Focus the slice expression with its text selected (Ctrl+L, as a browser's address bar)."""
        self.focus_panel("slice")
        self.slice_editor.expression_edit.selectAll()

    def show_shortcuts(self) -> ShortcutsDialog:
        """Help > Keyboard shortcuts (a non-modal dialog listing every key)."""
        dialog = getattr(self, "_shortcuts_dialog", None)
        if dialog is None:
            dialog = self._shortcuts_dialog = ShortcutsDialog(self)
        dialog.show()
        dialog.raise_()
        return dialog

    def show_about(self) -> QMessageBox:
        """Help > About: versions of the app, Python, Qt, numpy, pyqtgraph and the README's place."""
        return show_about(self)

    def _wire_compare(self) -> None:
        """The comparison with a second tensor B: the table's values while it is open, File >
        Compare with… and the F8 / Shift+F8 mismatch keys (its docks show while B is open)."""
        follow_comparison(self.table_panel.model, self.comparison)
        self.compare_panel.openRequested.connect(self._on_compare_triggered)
        self.compare_panel.message.connect(self._show_status_note)
        self.dock_layout.follow(Shown.WITH_COMPARISON)
        self.compare_action = command_action("&Compare with…", self, self._on_compare_triggered)
        self.next_mismatch_action = command_action("Next mismatch", self, self.compare_panel.next_mismatch, shortcut="F8")
        self.previous_mismatch_action = command_action("Previous mismatch", self, self.compare_panel.previous_mismatch, shortcut="Shift+F8")
        for action in (self.next_mismatch_action, self.previous_mismatch_action):
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            self.addAction(action)  # keys that work anywhere in the window, with or without the dock

    def _wire_model_compare(self) -> None:
        """Compare models: File > Compare models…, its dock while two models are compared, and
        the Compare dock's *Back to pairs* (the pair table, in front and focused)."""
        self.compare_models_action = command_action("Compare &models…", self, self.show_compare_models_dialog)
        models, back = self.model_comparison, self.compare_panel.back_button
        self.dock_layout.follow(Shown.WITH_MODEL_COMPARISON, Shown.WITH_MODEL)
        self.scan_folder_action = command_action("Scan &folder…", self, self._on_scan_folder_triggered)
        models.opened.connect(lambda: back.setVisible(models.is_open))
        back.clicked.connect(lambda: self.focus_panel("modelCompare"))

    def show_compare_models_dialog(self):
        """File > Compare models…: choose A and B (files or folders) and the pairing, then
        compare them (the pair table fills in as pairs finish)."""
        from inspector.panels.compare_models_dialog import CompareModelsDialog

        listing = self.document.container
        dialog = CompareModelsDialog(self, path_a="" if listing is None else listing.path,
                                     directory=self.settings.last_directory())
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.compare_models(*dialog.choice()))
        dialog.show()  # not modal, as the window's other dialogs
        return dialog

    def _on_scan_folder_triggered(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Scan every tensor of a folder", self.settings.last_directory())
        if path:
            self.scan_models([path])

    def scan_models(self, paths: Sequence[str]) -> None:
        """Scan every tensor of folders or model files in the Model dock (File > Scan folder…,
        ``tensor-inspector FOLDER``); a row opens its tensor in the window."""
        self.model_scan.scan_paths(paths)
        self.focus_panel("model")

    def compare_models(self, path_a: str, path_b: str, rules=None) -> None:
        """Compare two models or dump folders pair by pair (the Compare models dock shows them)."""
        self.model_comparison.open(os.path.abspath(path_a), os.path.abspath(path_b), rules)

    def _wire_bookmarks(self) -> None:
        """The Bookmarks dock's byte selection (from the hex view) and messages, and the marks of
        the bookmarks in the hex view, the table and the plot."""
        hex_view = self.hex_view  # not a method of the window: the panel must not hold the window
        self.bookmarks_panel.set_byte_selection_source(lambda: _hex_selection(hex_view))
        self.bookmarks_panel.message.connect(self._show_status_note)
        follow_bookmarks_in_table(self.table_panel, self.document)
        self.plot_bookmarks = follow_bookmarks_in_plot(self.plot_panel, self.document)
        follow_bookmarks_in_hex(self.hex_view, self.document)

    def _on_compare_triggered(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Compare the view with (B)", self.settings.last_directory())
        if paths:
            self.comparison.open_b(paths)

    # ------------------------------------------------------------------ opening
    def open_paths(
        self, paths: Sequence[str], params: DecodeParams | None = None, slice_text: str | None = None,
        *, remember: bool = True,
    ) -> bool:
        """Open files as the user would (dialog, drop, command line, recent menu).

        Without explicit ``params``, the settings last used for these files are restored (found
        by real path, so through a link too). ``remember=False`` (the embedded sample) keeps the
        files out of Open Recent and out of the files reopened on start.
        """
        paths = [container_path(os.fspath(p)) if is_url(os.fspath(p))
                 else os.path.abspath(container_path(os.fspath(p))) for p in paths]
        if not paths:
            return False
        self._save_decode_settings()
        # a local .npy of records (a URL is not opened twice for it: its open says what it is)
        structured = structured_npy(paths[0]) if len(paths) == 1 and params is None and not is_url(paths[0]) else None
        if structured is not None:  # a .npy of records: its bytes by record, and the records table
            params = DecodeParams(dtype="uint8", offset=structured.data_offset, record_size=structured.itemsize)
        remembered = self.settings.decode_settings(tuple(paths)) if params is None else None
        if remembered is not None:
            params, remembered_slice = remembered
            slice_text = remembered_slice if slice_text is None else slice_text
        ok = self.document.open_files(paths, params, slice_text or "")
        if ok:  # focus after opening a file is the table (arrow keys move in it at once)
            self.table_panel.view.setFocus(Qt.FocusReason.OtherFocusReason)
        if ok and structured is not None:  # the records window opens by itself (_on_records)
            self._choose_records(RecordsChoice("numpy", npy_records_text(structured.descr_text),
                                               header=structured.data_offset))
        if ok and params is None and self.settings.guess_banner_enabled() and self.document.container is None \
                and not self.document.listing_running and self.document.pipeline.source.npy is None:
            self.guess_banner.offer(paths[0])  # a raw file, nothing remembered: offer a guess
        if ok and remember and any(is_url(p) for p in paths):
            if not all([self.settings.add_recent_url(p) for p in paths]):
                self.statusBar().showMessage("a URL that carries credentials is not remembered (not in Open "
                                              "Recent, nor its settings)", 10_000)
            self.settings.set_last_files([])
        elif ok and remember:
            for path in paths:
                self.settings.add_recent_file(path)
            self.settings.set_last_directory(os.path.dirname(paths[0]))
            self.settings.set_last_files(paths)
        elif ok:
            self.settings.set_last_files([])
        return ok

    def open_object(self, target: object, params: DecodeParams | None = None,
                    slice_text: str = "", name: str | None = None) -> bool:
        """Show an object in memory (:meth:`Document.open_object
        <inspector.state.document.Document.open_object>`, e.g. from :func:`inspector.show`);
        nothing of it is remembered in the settings."""
        self._save_decode_settings()
        return self.document.open_object(target, params, slice_text, name)

    def _open_in_new_window(self, values: np.ndarray | EntryFileView, name: str, record_layout: str = "") -> None:
        """An array computed from the open file (a dequantized tensor), or a remote file's view
        (opened by its URL with its parameters), in a window of its own, deleted when closed
        (kept alive here until then). It is a window of its own with this one as its Qt parent, so
        Qt, not Python, deletes it: with this window at the latest. The bytes of records (a
        compressed structured member: ``record_layout``) show as records there too."""
        window = MainWindow(self.settings, self, docks=self.dock_layout.specs)
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        key = id(window)
        self._other_windows[key] = window
        window.destroyed.connect(lambda *_args: self._other_windows.pop(key, None))
        if isinstance(values, EntryFileView):
            window.open_paths(list(values.paths), values.params, remember=False)
        else:
            window.open_object(values, name=name)
        window.show()
        window.raise_()
        if record_layout and not isinstance(values, EntryFileView):
            window._choose_records(RecordsChoice("numpy", record_layout))

    def open_sample(self, params: DecodeParams | None = None, slice_text: str = "") -> bool:
        """Open the embedded sample with its preset settings (or ``params``), with a hint saying
        that it is a sample and how to open one's own file; it never enters Open Recent."""
        path = os.path.abspath(str(resource_path(DEFAULT_SAMPLE)))
        self._sample_paths = (path,)
        ok = self.open_paths([path], params if params is not None else sample_params(), slice_text, remember=False)
        self.settings.set_sample_shown()
        self._update_hint()
        return ok

    def close_file(self) -> None:
        """File > Close: remember the file's settings, then close through the document (every
        view lets go of its arrays, the history and the error are cleared)."""
        if not self.document.paths:
            return
        self._save_decode_settings()
        self.document.close_files()
        self.settings.set_last_files([])

    def show_guess_dialog(self) -> GuessDialog:
        """Open (or raise) the non-modal *Guess layout* dialog and guess the open files."""
        if self.guess_dialog is None:
            from inspector.panels.guess_dialog import GuessDialog

            self.guess_dialog = GuessDialog(self.document, self)
        self.guess_banner.hide()
        self.guess_dialog.show()
        self.guess_dialog.raise_()
        self.guess_dialog.start()
        return self.guess_dialog

    def _on_open_triggered(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open tensor files", self.settings.last_directory())
        if paths:
            self.open_paths(paths)

    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        urls = event.mimeData().urls()
        paths = [url.toLocalFile() for url in urls if url.isLocalFile()]
        remote = [url.toString() for url in urls if not url.isLocalFile() and is_url(url.toString())]
        if paths or remote:  # local files, or else the URLs dropped (a link from a browser)
            event.acceptProposedAction()
            self.open_paths(paths or remote)

    def show_records_dialog(self):
        """Tools > Records…: the open file as records with named fields (non-modal; one per
        window, raised when open)."""
        from inspector.records_window import RecordsDialog

        dialog = self._records_dialog
        if dialog is None:
            dialog = self._records_dialog = RecordsDialog(self.document, self)
            dialog.setAttribute(Qt.WA_DeleteOnClose)
            dialog.destroyed.connect(self._forget_records_dialog)
        dialog.show()
        dialog.raise_()
        return dialog

    def _forget_records_dialog(self, *_args) -> None:
        self._records_dialog = None

    def _on_records(self) -> None:
        """Records chosen elsewhere (a session, a structured .npy, the command line) show their window."""
        if self.document.records.choice is not None and self._records_dialog is None:
            self.show_records_dialog()

    def _choose_records(self, choice) -> bool:
        """Show the first file as records of ``choice``; False (the reason in the status bar) when refused."""
        try:
            self.document.records.choose(choice)
        except CoreError as error:
            self.statusBar().showMessage(f"records not shown: {describe_error(error).message}", 15_000)
            return False
        return True

    def show_cluster_dialog(self):
        """Tools > Dask cluster…: the non-modal dialog of where whole-data work runs."""
        from inspector.panels.cluster_dialog import ClusterDialog

        dialog = ClusterDialog(self.document.cluster, self, scheduler=self.settings.cluster_scheduler(),
                               workers=self.settings.cluster_workers())
        dialog.setAttribute(Qt.WA_DeleteOnClose)

        def remember() -> None:
            spec = dialog.spec()
            if spec is not None:
                self.settings.set_cluster(spec.scheduler or "", spec.workers or self.settings.cluster_workers())

        dialog.findChild(QDialogButtonBox, "cluster.buttons").accepted.connect(remember)
        dialog.show()
        return dialog

    def show_open_url_dialog(self):
        """File > Open URL…: the non-modal dialog (recent URLs in its field); Open opens the URL."""
        from inspector.panels.open_url_dialog import OpenUrlDialog

        dialog = OpenUrlDialog(self, recent=self.settings.recent_urls(), cache_mib=self.settings.remote_cache_mib())
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self._open_url_accepted(dialog.url(), dialog.cache_mib()))
        dialog.show()
        return dialog

    def _open_url_accepted(self, url: str, cache_mib: int) -> None:
        self.settings.set_remote_cache_mib(cache_mib)
        set_cache_capacity(self.settings.remote_cache_mib() << 20)
        self.open_paths([url])

    # ------------------------------------------------------------------ document events
    def _update_hint(self) -> None:
        paths = self.document.paths
        if not paths:
            text = ("No file is open. Open one with File > Open (Ctrl+O) or drop it on the window; "
                    "Help > Open the embedded sample shows an example.")
        elif paths == self._sample_paths:
            text = (f"This is the embedded sample ({DEFAULT_SAMPLE}) with its preset decode settings. "
                    "To see your own data, open a file with File > Open (Ctrl+O) or drop it on the window.")
        else:
            self.hint_label.hide()
            return
        self.hint_label.setText(text)
        self.hint_label.show()

    def _on_files_changed(self) -> None:
        """Files opened, reloaded or closed: the title waits for their view (or for none)."""
        self._update_hint()
        if not self.document.paths:
            self.setWindowTitle("tensor-inspector")

    def _on_result_changed(self, _result) -> None:
        self.setWindowTitle(f"{_files_title(self.document.shown_paths)} — tensor-inspector")

    def _on_error_changed(self, error: ErrorReport | None) -> None:
        if error is None:
            self.message_label.hide()
            return
        cleared_by = self.document.views_cleared_by
        if cleared_by is not None and error.message == cleared_by.first.error_message \
                and not self.file_watch_banner.isHidden():
            self.message_label.hide()  # the file-change banner says it, with Reload: one banner
            return
        self.message_label.setStyleSheet(palette.banner_style(error.severity))
        where = {"files": "File", "slice": "Slice"}.get(error.field or "", "Decode")
        paths, shown = self.document.paths, self.document.shown_paths
        if cleared_by is not None:
            kept = " The views were cleared until you reload (File > Reload)."
        elif self.document.result is not None:
            kept = " The last good view is still shown."
        elif shown and shown != paths:
            kept = (f" The view still shows the previous file; {_escape(_files_title(paths))} is "
                    "shown once this is fixed.")
        elif paths:
            kept = f" Nothing of {_escape(_files_title(paths))} is shown until this is fixed."
        else:
            kept = ""
        self.message_label.setText(f"<b>{where}:</b> {_escape(error.message)}{kept}")
        self.message_label.setToolTip(tooltip_text(f"{where}: {error.message}{kept}"))  # if cut
        self.message_label.show()

    def _on_export_triggered(self) -> None:
        from inspector.panels.export_dialog import export_current_view

        dialog = export_current_view(self.document, self)
        if dialog is not None:
            dialog.controller.finished.connect(
                lambda path, nbytes: self.statusBar().showMessage(f"Exported {nbytes:,} bytes to {printable_name(path)}", 8000)
            )

    def _copy_code(self, kind: str) -> None:
        from inspector.panels.code_export import copy_snippet_message

        self.statusBar().showMessage(copy_snippet_message(self.document, kind), 8000)

    def _on_files_changed_on_disk(self, report) -> None:
        """The banner says that the views were cleared (each view clears itself on this signal)."""
        if report.invalidates_view and self.document.error is not None:
            self._on_error_changed(self.document.error)  # now the file-change banner shows

    def _on_container_changed(self, _listing) -> None:
        """A container that could not be listed is opened as raw bytes, and the status bar says
        why (the Tensors dock shows while a container is open)."""
        problem = self.document.container_error
        if problem is not None:
            self._show_status_note(f"Shown as raw bytes: {problem.message}")

    def _show_status_note(self, text: str) -> None:
        self.statusBar().showMessage(text, 5000)

    def _save_decode_settings(self) -> None:
        if self.document.paths and self.document.by_name:  # not an object in memory
            self.settings.set_decode_settings(self.document.paths, self.document.params, self.document.slice_text)

    def _restore_display_options(self) -> None:
        """The display choices as last remembered (the plot mode applies to the first view)."""
        remembered = self.settings.view_options(self.document.view_options.value)
        self.document.restore(DocumentSnapshot(view_options=remembered))

    def save_display_options(self) -> None:
        self.settings.set_view_options(self.document.snapshot().view_options)

    def closeEvent(self, event) -> None:
        self._save_decode_settings()
        self.save_display_options()
        self.dock_layout.save()
        self.statistics_panel.cancel()
        self.model_comparison.close()
        self.model_scan.cancel()
        self.comparison.close_b()
        shutdown_tasks()
        self.document.close_files()
        self.document.cluster.close()
        super().closeEvent(event)


def sample_params() -> DecodeParams:
    """The embedded sample's preset decode settings (``resources/samples.json``)."""
    preset = sample_settings()[DEFAULT_SAMPLE]
    return DecodeParams(**{k: tuple(v) if isinstance(v, list) else v for k, v in preset.items()})


def _hex_selection(hex_view: HexView) -> tuple[int, int, int] | None:
    """``(file index, first, last)`` of the bytes selected in the hex view, or None."""
    selection = hex_view.selection()
    return None if selection is None else (hex_view.file_index(), *selection)


def _escape(text: str) -> str:
    return html_text(text)


def _files_title(paths: Sequence[str]) -> str:
    """``"a.bin"``, ``"a.bin + 2 more"`` (names as plain, printable text)."""
    title = display_name(paths[0]) if paths else ""
    return title + (f" + {len(paths) - 1} more" if len(paths) > 1 else "")
