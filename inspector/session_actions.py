"""File > Save Session…, Open Session…, Apply Session to Other Files…, and ``tensor-inspector S.json``.

The window's half of sessions (the file format and its rules are the engine's,
:mod:`core.session.session_file`, docs/sessions.md). Rules:

- **Saving** captures what the window shows: the document's snapshot (:meth:`Document.snapshot
  <inspector.state.document.Document.snapshot>`: files, decode parameters and container tensor,
  slice, display axes, selected element, view options, bookmarks; the session's ``display`` as
  :func:`inspector.state.snapshot.session_display` writes it) and the comparison when one is
  open (B's files, B's decode overrides, tolerances, ULP, bitwise, NaN rule, shift, what the
  table shows). Objects in memory cannot be saved (there are no files to name).
- **Opening** a session opens its files with its settings and bookmarks. A file that moved is
  asked for once, with a file dialog per missing file (the engine then looks for the other
  missing files beside it); cancelling aborts and the session banner says why. Files that
  changed since the session was saved (size, time or content) are flagged in the session banner
  with what changed; the session still opens. A file whose record has a SHA-256 (and the same
  size) is hashed on a worker thread after the session opened (a 1 TiB file never blocks the
  window): the banner shows the progress and *Stop checking*, then the verdict (a stopped check
  says that the content was not compared). B's files that moved are asked for too; a
  comparison whose B file is not given is left out
  and the banner says so.
- **Applying** a session to other files ("use this layout for these files") opens the chosen
  files with the session's layout, display, comparison and bookmarks
  (:meth:`Session.with_files <core.session.session_file.Session.with_files>`).
- **Showing** a session (opened or applied) opens its files as the user would (remembered in
  Open Recent), then restores the document's snapshot of it (:meth:`Document.restore
  <inspector.state.document.Document.restore>`, :func:`inspector.state.snapshot.from_session`),
  then the comparison.
- A file named on the command line is a session when its content says so
  (``"format": "tensor-inspector-session"``, :mod:`core.session.sniff`), whatever its name.
- Every problem is shown in the session banner (``session.banner``) and never raised out of a
  menu action.
"""

from __future__ import annotations

import dataclasses
import os
import weakref
from collections.abc import Sequence

from PySide6.QtCore import QObject
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFileDialog, QWidget

from core.errors import Cancelled, CoreError, SessionError, describe_error
from core.session.loading import LoadedSession
from core.session.session_file import Session, load_session, save_session
from core.text.byte_sizes import format_bytes
from core.text.names import printable_name
from inspector.panels.session_banner import SessionBanner
from inspector.state.background_task import BackgroundTask
from inspector.state.snapshot import from_session, to_session
from inspector.widgets.actions import command_action
from inspector.widgets.plain_text import display_name

__all__ = ["SESSION_FILTER", "SessionActions"]

SESSION_FILTER = "Sessions (*.json);;All files (*)"


class SessionActions(QObject):
    """The session menu actions of one main window (duck-typed: its document, comparison,
    settings, status bar, ``open_paths``, and the Bookmarks dock and panel)."""

    def __init__(self, window: QWidget, banner: SessionBanner) -> None:
        super().__init__(window)
        # Weak: a strong reference back to the window would be a cycle through Qt's ownership
        # that keeps every closed window alive until a garbage collection.
        self._window_ref = weakref.ref(window)
        self.banner = banner
        self.save_action = command_action("Save Sess&ion…", window, self.save_dialog, shortcut=QKeySequence("Ctrl+Shift+S"))
        self.open_action = command_action("Open Sessio&n…", window, self.open_dialog)
        self.apply_action = command_action("Apply Session to Other &Files…", window, self.apply_dialog)
        self.actions = (self.open_action, self.save_action, self.apply_action)
        self._hash_task: BackgroundTask | None = None  # the running content check
        self._checked_paths: tuple[str, ...] = ()  # the files shown when it started
        banner.stop_button.clicked.connect(self.stop_checking)
        window.document.filesChanged.connect(self._on_files_changed)

    @property
    def _window(self):
        return self._window_ref()

    # ------------------------------------------------------------------ capture
    def capture(self) -> Session:
        """The :class:`~core.session.session_file.Session` of what the window shows.

        Raises
        ------
        SessionError
            Nothing is open, the view is of objects in memory, or a file cannot be recorded.
        """
        window = self._window
        document = window.document
        if not document.paths or not document.by_name:
            raise SessionError("Nothing to save: open files first (objects in memory have no files to name).",
                               field="session")
        return to_session(document.snapshot(), self._comparison())

    def _comparison(self) -> dict | None:
        comparison = self._window.comparison
        if not comparison.is_open:
            return None
        settings = comparison.settings
        return {"files": list(comparison.paths), "overrides": dict(comparison.b_overrides),
                "rtol": settings.rtol, "atol": settings.atol, "ulp": settings.ulp,
                "bitwise": settings.bitwise, "nan_policy": settings.nan_policy, "shift": settings.shift,
                "quantity": comparison.quantity}

    # ------------------------------------------------------------------ save
    def save_dialog(self) -> None:
        """File > Save Session…: ask where, then :meth:`save`."""
        document = self._window.document
        if not document.paths or not document.by_name:
            self._status("Nothing to save: open files first.")
            return
        stem = os.path.splitext(os.path.basename(document.paths[0].split("?")[0]))[0]
        folder = self._window.settings.last_directory() if document.remote else os.path.dirname(document.paths[0])
        start = os.path.join(folder, f"{stem}.session.json")
        path, _ = QFileDialog.getSaveFileName(self._window, "Save session", start, SESSION_FILTER)
        if path:
            self.save(path)

    def save(self, path: str) -> bool:
        """Write the session of what the window shows to ``path``; False (banner) on failure."""
        try:
            session = self.capture()
            save_session(session, path)
        except CoreError as error:
            self.banner.show_message(f"Session not saved: {describe_error(error).message}", "error")
            return False
        count = len(session.bookmarks)
        self._status(f"Saved the session ({count} bookmark{'s' if count != 1 else ''}) to {printable_name(path)}")
        return True

    # ------------------------------------------------------------------ open
    def open_dialog(self) -> None:
        """File > Open Session…: ask which, then :meth:`open_session`."""
        path, _ = QFileDialog.getOpenFileName(self._window, "Open session", self._window.settings.last_directory(),
                                              SESSION_FILTER)
        if path:
            self.open_session(path)

    def open_session(self, path: str) -> bool:
        """Open session ``path`` (module rules); False when it could not be opened (the banner
        says why, the window keeps what it showed)."""
        name = display_name(path)
        self._drop_check()
        try:
            loaded = load_session(path, check_hashes=False)  # hashes: on a worker, below
            while loaded.missing:  # with_located also finds the other files that moved with it
                index = loaded.missing[0]
                old = loaded.session.files[index].path
                new, _ = QFileDialog.getOpenFileName(
                    self._window, f"Where is {display_name(old)} now? (session {name})", os.path.dirname(path))
                if not new:
                    self.banner.show_message(
                        f"Session {name} not opened: {printable_name(old)} was not found and no new place was "
                        "given. Open the session again and choose where the file is now.", "error")
                    return False
                loaded = loaded.with_located(index, new)
        except CoreError as error:
            self.banner.show_message(f"Session {name} not opened: {describe_error(error).message}", "error")
            return False
        notes = [note.message for note in (*loaded.changed, *loaded.comparison_changed)] + list(loaded.outside)
        session = loaded.session
        if session.comparison is not None and loaded.comparison_missing:
            session = self._locate_b_files(session, loaded.comparison_missing, path, notes)
        if not self.restore(session):
            return False
        self._window.settings.set_last_directory(os.path.dirname(os.path.abspath(path)))
        count, nbytes = loaded.hashes_to_check()
        if count:
            self._check_hashes(loaded, name, count, nbytes)
            return True
        self._show_changes(name, notes)
        return True

    def _show_changes(self, name: str, notes: list[str], extra: str = "") -> None:
        if notes:
            self.banner.show_message(
                f"Session {name}: " + "; ".join(notes) + ". Its settings and bookmarks were made for the files "
                "as they were then." + extra, "warning")
        elif extra:
            self.banner.show_message(f"Session {name}:{extra}", "info")
        else:
            self._status(f"Opened session {name}")

    # ------------------------------------------------------------------ content check (SHA-256)
    def _check_hashes(self, loaded: LoadedSession, name: str, count: int, nbytes: int) -> None:
        """Hash the files the session recorded a SHA-256 of, on a worker (never the GUI thread);
        the banner shows progress and *Stop checking*, then the verdict."""
        files = f"{count} file{'s' if count != 1 else ''}"

        def work(progress, cancelled):  # on the worker: no widget
            def report(done: int, total: int) -> None:
                if cancelled():
                    raise Cancelled()
                progress(done, total)
            return loaded.with_hashes_checked(report)

        def on_progress(done: int, total: int) -> None:
            if self._hash_task is not task:
                return
            self.banner.show_message(f"Session {name}: checking the content of {files} (SHA-256): "
                                     f"{format_bytes(done)} of {format_bytes(total)}", "info", stoppable=True)

        def on_done(checked: LoadedSession) -> None:
            if self._hash_task is not task:
                return  # another session or other files were opened meanwhile
            self._hash_task = None
            self.banner.hide()  # the progress goes; the verdict (if any) follows
            self._show_changes(name, [n.message for n in (*checked.changed, *checked.comparison_changed)])

        def on_cancelled() -> None:
            if self._hash_task is not task:
                return
            self._hash_task = None
            unchecked = [n.message for n in (*loaded.changed, *loaded.comparison_changed)]
            self._show_changes(name, unchecked, f" The content check (SHA-256 of {files}) was stopped: "
                               "their content was not compared with the session's record.")

        def on_failed(error: BaseException) -> None:
            if self._hash_task is not task:
                return
            self._hash_task = None
            self.banner.show_message(f"Session {name}: the content check failed: {describe_error(error).message}",
                                     "warning")

        task = BackgroundTask(work, self)
        task.progressChanged.connect(on_progress)
        task.succeeded.connect(on_done)
        task.cancelled.connect(on_cancelled)
        task.failed.connect(on_failed)
        self._hash_task, self._checked_paths = task, self._window.document.paths
        on_progress(0, nbytes)
        task.start()

    def checking(self) -> bool:
        """Whether the content check of the session just opened is running."""
        return self._hash_task is not None

    def stop_checking(self) -> None:
        """Stop the content check (*Stop checking*): the banner then says it was stopped."""
        if self._hash_task is not None:
            self._hash_task.cancel()

    def _drop_check(self) -> None:
        """Stop the content check and forget it (nothing more is shown of it)."""
        task, self._hash_task = self._hash_task, None
        if task is not None:
            task.cancel()

    def _on_files_changed(self) -> None:
        window = self._window
        if self._hash_task is not None and window is not None and window.document.paths != self._checked_paths:
            self._drop_check()  # other files: the check is about files no longer shown

    def _locate_b_files(self, session: Session, missing: Sequence[int], path: str, notes: list[str]) -> Session:
        """Ask once for each of B's files that moved (B is the comparison's reference); when one
        is not given, the comparison is left out and ``notes`` says so (A's view still opens)."""
        files = list(session.comparison["files"])
        for index in missing:
            old = getattr(files[index], "path", files[index])
            new, _ = QFileDialog.getOpenFileName(
                self._window, f"Where is {display_name(old)} (B, the comparison's reference) now? "
                f"(session {display_name(path)})", os.path.dirname(path))
            if not new:
                notes.append(f"the comparison was left out: {printable_name(old)} (B) not found")
                return _without_comparison(session)
            files[index] = new
        return dataclasses.replace(session, comparison={**session.comparison, "files": files})

    # ------------------------------------------------------------------ apply to other files
    def apply_dialog(self) -> None:
        """File > Apply Session to Other Files…: a session, then the files to show with it."""
        window = self._window
        session_path, _ = QFileDialog.getOpenFileName(window, "Apply which session?", window.settings.last_directory(),
                                                      SESSION_FILTER)
        if not session_path:
            return
        files, _ = QFileDialog.getOpenFileNames(window, f"Files to show with the layout of {display_name(session_path)}",
                                                window.settings.last_directory())
        if files:
            self.apply_to_files(session_path, files)

    def apply_to_files(self, session_path: str, files: Sequence[str]) -> bool:
        """Open ``files`` with the layout, display, comparison and bookmarks of session
        ``session_path`` (its own files need not exist); False (banner) on failure."""
        name = display_name(session_path)
        try:
            loaded = load_session(session_path, check_hashes=False)
            session = loaded.session.with_files([os.path.abspath(f) for f in files])
        except CoreError as error:
            self.banner.show_message(f"Session {name} not applied: {describe_error(error).message}", "error")
            return False
        if session.comparison is not None and loaded.comparison_missing:
            session = _without_comparison(session)
        if not self.restore(session):
            return False
        count = len(session.bookmarks)
        self._status(f"Applied the layout of {name} and its {count} bookmark{'s' if count != 1 else ''}")
        return True

    # ------------------------------------------------------------------ restore
    def restore(self, session: Session) -> bool:
        """Show ``session`` (a :class:`~core.session.session_file.Session` whose files exist):
        files with its parameters and slice, then display and bookmarks (the document's snapshot),
        then the comparison."""
        window = self._window
        document = window.document
        snapshot = from_session(session, document.view_options.value)
        if not window.open_paths(list(snapshot.paths), snapshot.params, snapshot.slice_text) \
                or not document.restore(snapshot):
            error = document.error
            self.banner.show_message(f"The session's files could not be opened: {error.message if error else ''}",
                                     "error")
            return False
        if session.comparison is not None:
            self._restore_comparison(session.comparison)
        if session.bookmarks:  # what the session is about: in view, the first one current
            window.docks["bookmarks"].show()
            window.docks["bookmarks"].raise_()
            window.bookmarks_panel.select_row(0)
        return True

    def _restore_comparison(self, comparison: dict) -> None:
        state = self._window.comparison
        paths = [getattr(f, "path", f) for f in comparison.get("files", ())]
        if not state.open_b(paths, dict(comparison.get("overrides") or {})):
            return  # the comparison's own error is shown in its dock
        settings = {key: comparison[key] for key in ("rtol", "atol", "ulp", "bitwise", "nan_policy", "shift")
                    if key in comparison}
        state.update_settings(**settings)
        try:
            state.set_quantity(comparison.get("quantity", "a"))
        except ValueError:
            pass

    def _status(self, text: str) -> None:
        if self._window.isVisible():  # a message set before the window shows is drawn over the status line
            self._window.statusBar().showMessage(text, 8000)


def _without_comparison(session: Session) -> Session:
    return dataclasses.replace(session, comparison=None)
