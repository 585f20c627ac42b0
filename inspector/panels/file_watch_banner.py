"""A banner that says when an open file changed on disk, with *Reload* and *Dismiss*.

A :class:`QFileSystemWatcher` watches the document's files and their folders; every event
(debounced, writers emit many) compares ``os.stat`` of each path with the :class:`FileInfo`
recorded when the file was opened (``document.pipeline.source.files``):

=================  ===========================================================  ===========
path now           banner text                                                  problem?
=================  ===========================================================  ===========
missing            ``data.bin was deleted; the view was cleared until you        yes
                   reload``
smaller            ``data.bin shrank from 1,024 to 100 bytes; the view was       yes
                   cleared until you reload``
another inode      ``data.bin was replaced on disk``                            no
bigger             ``data.bin grew from 1,024 to 2,048 bytes on disk``          no
other mtime        ``data.bin changed on disk``                                 no
=================  ===========================================================  ===========

A *problem* means the pages the view maps may no longer exist: touching them could kill the
process with SIGBUS (a shrink), or the data is gone (a delete). On the transition into a problem
the banner emits :attr:`FileWatchBanner.filesInvalidated` once, so the main window blanks what
shows the mapped data; :meth:`FileWatchBanner.file_problem` re-checks on demand, before any
mapped page is read. A replaced file is not a problem: the map still holds the old file (the
document refuses to *decode* again until it is reloaded, see ``FileSource.check_unchanged``).

Atomic saves (write elsewhere, rename over) leave the watch on the old inode (the map keeps it
alive, so it is never reported deleted); each check moves the watch to the path's current inode.
A deleted file drops out of the watcher and is added back when the path exists again (the folder
watch notices the new file).

Limits: the check sees the path, not the mapped inode; an old inode truncated before being
replaced goes unnoticed (the engine's ``check_unchanged`` sees it through the descriptor). A
file truncated and rewritten to its old size between two checks reads as "changed", and a read
of the truncated pages *during* that window can still fault.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QFileSystemWatcher, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from core.errors import describe_error
from core.files.safe_open import FileInfo
from inspector.state.document import Document
from inspector.widgets import palette

__all__ = ["FileWatchBanner", "describe_file_change"]

_CLEARED = "; the view was cleared until you reload"


def describe_file_change(info: FileInfo) -> tuple[str, bool] | None:
    """How the file at ``info.path`` differs from its record: ``(text, is_problem)`` or None.

    Parameters
    ----------
    info
        The file as recorded at open.

    Returns
    -------
    tuple or None
        None when size, mtime and identity all match; else the banner text (see the module
        table) and whether the mapped view is no longer safe or meaningful to read.
    """
    name = os.path.basename(info.path)
    try:
        now = os.stat(info.path)
    except FileNotFoundError:
        return f"{name} was deleted{_CLEARED}", True
    except OSError as error:
        return f"{name} cannot be checked: {describe_error(error).message}", False
    if (now.st_dev, now.st_ino) != (info.device, info.inode):
        return f"{name} was replaced on disk", False
    if now.st_size < info.size:
        return f"{name} shrank from {info.size:,} to {now.st_size:,} bytes{_CLEARED}", True
    if now.st_size > info.size:
        return f"{name} grew from {info.size:,} to {now.st_size:,} bytes on disk", False
    if now.st_mtime_ns != info.mtime_ns:
        return f"{name} changed on disk", False
    return None


class FileWatchBanner(QFrame):
    """Hidden until a watched file changes; then a message, *Reload* and *Dismiss*.

    Parameters
    ----------
    document
        The document whose files are watched (follows its ``filesChanged`` signal).
    parent
        Optional parent widget.
    debounce_ms
        Events closer than this are checked once (a writer emits one event per write).

    Signals
    -------
    filesInvalidated()
        A file shrank or disappeared: stop showing (and reading) the mapped view. Emitted once
        per change into that state; cleared when the document opens files again.
    """

    filesInvalidated = Signal()

    def __init__(self, document: Document, parent: QWidget | None = None, *,
                 debounce_ms: int = 100) -> None:
        super().__init__(parent)
        self.setObjectName("fileWatchBanner")
        self._document = document
        self._files: tuple[FileInfo, ...] = ()
        self._invalidated = False
        self._message = ""
        self._dismissed: str | None = None  # text the user dismissed; no event on a file since
        self._watched: dict[str, tuple[int, int]] = {}  # path -> (device, inode) watched
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_file_event)
        self._watcher.directoryChanged.connect(self._on_directory_event)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self.check_now)
        self._build()
        document.filesChanged.connect(self._on_files_changed)
        self._on_files_changed()

    # ------------------------------------------------------------------ public API
    def file_problem(self) -> str | None:
        """Re-check the files now: the message when one shrank or is gone, else None.

        Cheap (one ``os.stat`` per file) and free of side effects: call it before reading mapped
        pages. When it finds a problem the banner has not shown yet, the banner catches up
        from the event loop (and emits :attr:`filesInvalidated` then).
        """
        for info in self._files:
            change = describe_file_change(info)
            if change is not None and change[1]:
                if not self._invalidated:
                    QTimer.singleShot(0, self, self.check_now)
                return change[0]
        return None

    def message(self) -> str:
        """The text the banner shows (or last showed); '' when nothing changed."""
        return self._message

    def check_now(self) -> None:
        """Compare the files with their records and update the banner (events call this)."""
        self._rewatch()
        changes = [c for c in map(describe_file_change, self._files) if c is not None]
        if not changes:
            return
        problems = [c for c in changes if c[1]]
        text = (problems or changes)[0][0]
        if len(changes) > 1:
            text += f" (and {len(changes) - 1} more file{'s' if len(changes) > 2 else ''})"
        if text != self._dismissed:
            self._show(text)
        if problems and not self._invalidated:
            self._invalidated = True
            self.filesInvalidated.emit()

    # ------------------------------------------------------------------ construction
    def _build(self) -> None:
        self.setFrameShape(QFrame.StyledPanel)
        self.setStyleSheet(palette.frame_style("fileWatchBanner", "warning"))
        self.label = QLabel()
        self.label.setObjectName("fileWatchMessage")
        self.label.setWordWrap(True)
        self.reload_button = QPushButton("Reload")
        self.reload_button.setObjectName("fileWatchReload")
        self.reload_button.clicked.connect(self._on_reload_clicked)
        self.dismiss_button = QPushButton("Dismiss")
        self.dismiss_button.setObjectName("fileWatchDismiss")
        self.dismiss_button.clicked.connect(self._on_dismiss_clicked)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.reload_button)
        layout.addWidget(self.dismiss_button)
        self.hide()

    # ------------------------------------------------------------------ events
    def _on_files_changed(self) -> None:
        pipeline = self._document.pipeline
        self._files = () if pipeline is None or not self._document.paths else pipeline.source.files
        self._invalidated = False
        self._message = ""
        self._dismissed = None
        self.hide()
        self._timer.stop()
        watched = self._watcher.files() + self._watcher.directories()
        if watched:
            self._watcher.removePaths(watched)
        self._watched.clear()
        self._rewatch()

    def _on_file_event(self, _path: str) -> None:
        self._dismissed = None  # the file itself changed again: worth showing again
        self._schedule_check()

    def _on_directory_event(self, _path: str) -> None:
        self._schedule_check()  # a file of ours may have been created, renamed or deleted

    def _on_reload_clicked(self) -> None:
        self._document.reload()

    def _on_dismiss_clicked(self) -> None:
        self._dismissed = self._message
        self.hide()

    # ------------------------------------------------------------------ helpers
    def _schedule_check(self) -> None:
        # Not restarted by later events: a file written continuously is still checked, once
        # per interval.
        if not self._timer.isActive():
            self._timer.start()

    def _rewatch(self) -> None:
        """Watch every file of ours that exists (on its *current* inode) and their folders.

        A file replaced by a rename keeps its watch on the old inode (our map keeps that inode
        alive, so inotify never reports it deleted): the watch is moved to the new one.
        """
        folders = {os.path.dirname(os.path.abspath(info.path)) for info in self._files}
        add = [d for d in folders if os.path.isdir(d) and d not in self._watcher.directories()]
        for info in self._files:
            try:
                st = os.stat(info.path)
            except OSError:
                self._watched.pop(info.path, None)
                continue
            identity = (st.st_dev, st.st_ino)
            if info.path in self._watcher.files():
                if self._watched.get(info.path) == identity:
                    continue
                self._watcher.removePath(info.path)
            self._watched[info.path] = identity
            add.append(info.path)
        if add:
            self._watcher.addPaths(add)

    def _show(self, text: str) -> None:
        self._message = text
        self.label.setText(text)
        self.show()
