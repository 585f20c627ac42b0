"""The one detector of "the open files changed on disk": one watcher, one poll, one signal.

:class:`FileMonitor` watches the files of one :class:`core.files.sources.FileSource` and emits
:attr:`FileMonitor.changed` with a :class:`core.files.file_change.ChangeReport` (the rule of
what changed, and whether the views must be cleared, lives there). Everything that shows file
data follows that one signal through the document: the banner, the hex view, the data
inspector, the status bar, the statistics and the table and plot.

When it checks
--------------
* **File-system events** (one :class:`QFileSystemWatcher` on the files and their folders),
  debounced: a burst of writes is checked once per ``debounce_ms``. A file replaced by a rename
  keeps its watch on the old inode (our map keeps that inode alive): each check moves the watch
  to the inode the path names now, and a deleted file is watched again once it reappears (the
  folder watch notices it).
* **A poll** every ``poll_ms``, for file systems without events.
* **On demand**: :meth:`FileMonitor.peek` before reading bytes for a new selection (a new
  report is then emitted from the event loop).
* **Before every event of the GUI thread** (an application event filter), the SIGBUS guard
  (:mod:`core.files.shrink_guard`) checks *one* descriptor, the next in turn: a constant cost
  per event, whatever the number of files. A shrink found there is protected at once and
  reported from the event loop.

:attr:`changed` is emitted when the report differs from the last one emitted, or when a watched
file itself had an event since (a file changed again is worth showing again); the report of an
unchanged set of files is never emitted. Nothing here opens a file: only ``stat``/``fstat``.
"""

from __future__ import annotations

import os
import weakref

from PySide6.QtCore import QCoreApplication, QEvent, QFileSystemWatcher, QObject, QTimer, Signal

from core.files.file_change import ChangeReport, path_identity
from core.files.sources import Source

__all__ = ["FileMonitor", "POLL_MS"]

POLL_MS = 250
"""How often the open files are checked without a file-system event."""


class FileMonitor(QObject):
    """Watches the files of one source and reports their changes on disk.

    Parameters
    ----------
    parent
        Optional Qt parent.
    poll_ms, debounce_ms
        See the module docstring.

    Signals
    -------
    changed(object)
        A new :class:`core.files.file_change.ChangeReport` (see the module docstring).
    """

    changed = Signal(object)

    def __init__(self, parent: QObject | None = None, *, poll_ms: int = POLL_MS,
                 debounce_ms: int = 100) -> None:
        super().__init__(parent)
        self._source: Source | None = None
        self._report: ChangeReport | None = None
        self._file_event = False
        self._watched: dict[str, tuple[int, int]] = {}  # path -> (device, inode) watched
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_file_event)
        self._watcher.directoryChanged.connect(self._on_directory_event)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(debounce_ms)
        self._debounce.timeout.connect(self.check_now)
        self._poll = QTimer(self)
        self._poll.setInterval(poll_ms)
        self._poll.timeout.connect(self.check_now)

    # ------------------------------------------------------------------ public API
    def watch(self, source: Source | None) -> None:
        """Watch ``source``'s files from now on (None: stop watching); forgets the last report."""
        self._source = source
        self._report = None
        self._file_event = False
        self._debounce.stop()
        watched = self._watcher.files() + self._watcher.directories()
        if watched:
            self._watcher.removePaths(watched)
        self._watched.clear()
        if source is None:
            self._poll.stop()
            _EventGuard.remove(self)
            return
        self._poll.start()
        _EventGuard.add(self)
        self._rewatch()

    def report(self) -> ChangeReport | None:
        """The last report emitted since :meth:`watch` (None: no change seen)."""
        return self._report

    def peek(self) -> ChangeReport | None:
        """Compare the files with their records now, like :meth:`check_now`, but emit a new
        report from the event loop, not from inside the caller (who may be a slot of a view
        that the report's receivers are about to clear)."""
        source = self._source
        if source is None or source.closed:
            return None
        report = ChangeReport.of(source.changes())
        if report is not None and report != self._report:
            QTimer.singleShot(0, self, self.check_now)
        return report

    def check_now(self) -> ChangeReport | None:
        """Compare the files with their records now (two system calls per file at most).

        Emits :attr:`changed` when the report is new (see the module docstring).

        Returns
        -------
        ChangeReport or None
            The changes found now, or None when the files match their records.
        """
        source = self._source
        if source is None or source.closed:
            return None
        self._rewatch()
        report = ChangeReport.of(source.changes())
        if report is not None and (report != self._report or self._file_event):
            self._report = report
            self._file_event = False
            self.changed.emit(report)
        return report

    def watched_paths(self) -> list[str]:
        """The files and folders the watcher follows (for tests and diagnostics)."""
        return self._watcher.files() + self._watcher.directories()

    # ------------------------------------------------------------------ events
    def guard_one(self) -> None:
        """The SIGBUS guard on one file, in turn (called before every event of the GUI thread)."""
        # While Python tears this object down, Qt may still call the filter: attributes can
        # already be gone then.
        source = getattr(self, "_source", None)
        if source is not None and source.shrink_guard.protect_next():
            if self._report is None or not self._report.invalidates_view:
                QTimer.singleShot(0, self, self.check_now)

    def _on_file_event(self, _path: str) -> None:
        self._file_event = True  # the file itself changed again: worth showing again
        self._schedule_check()

    def _on_directory_event(self, _path: str) -> None:
        self._schedule_check()  # a file of ours may have been created, renamed or deleted

    def _schedule_check(self) -> None:
        # Not restarted by later events: a file written continuously is still checked, once
        # per interval.
        if not self._debounce.isActive():
            self._debounce.start()

    def _rewatch(self) -> None:
        """Watch every file of ours that exists (on its *current* inode) and their folders."""
        source = self._source
        paths = source.paths if source is not None and source.on_disk else ()  # memory: none
        folders = {os.path.dirname(os.path.abspath(path)) for path in paths}
        current_folders = self._watcher.directories()
        add = [d for d in folders if d not in current_folders and path_identity(d) is not None]
        current_files = self._watcher.files()
        for path in paths:
            identity = path_identity(path)
            if identity is None:
                self._watched.pop(path, None)
                continue
            if path in current_files:
                if self._watched.get(path) == identity:
                    continue
                self._watcher.removePath(path)
            self._watched[path] = identity
            add.append(path)
        if add:
            self._watcher.addPaths(add)


class _EventGuard(QObject):
    """The one application event filter: before every event, each watching monitor guards one file.

    One filter for the whole application (not one per document), so an event costs one call
    into Python whatever the number of open documents; monitors are held weakly, so a document
    that goes away stops costing anything.
    """

    _instance: _EventGuard | None = None

    def __init__(self) -> None:
        super().__init__()
        self._monitors: weakref.WeakSet[FileMonitor] = weakref.WeakSet()

    @classmethod
    def add(cls, monitor: FileMonitor) -> None:
        app = QCoreApplication.instance()
        if app is None:
            return
        if cls._instance is None:
            cls._instance = _EventGuard()
            app.installEventFilter(cls._instance)
        cls._instance._monitors.add(monitor)

    @classmethod
    def remove(cls, monitor: FileMonitor) -> None:
        if cls._instance is not None:
            cls._instance._monitors.discard(monitor)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        monitors = getattr(self, "_monitors", None)
        if monitors and event.type() in _READING_EVENTS:
            for monitor in tuple(monitors):
                monitor.guard_one()
        return False


#: The events during which a widget may read mapped bytes (painting, readouts under the mouse,
#: scrolling, timers of plots): the guard runs before these only, not before the many
#: bookkeeping events (child added/removed, deferred deletes, layout requests...).
_READING_EVENTS = frozenset({
    QEvent.Type.Paint, QEvent.Type.UpdateRequest, QEvent.Type.UpdateLater, QEvent.Type.Timer,
    QEvent.Type.MouseMove, QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease,
    QEvent.Type.MouseButtonDblClick, QEvent.Type.HoverMove, QEvent.Type.HoverEnter, QEvent.Type.Wheel,
    QEvent.Type.KeyPress, QEvent.Type.ToolTip, QEvent.Type.Resize, QEvent.Type.Show,
    QEvent.Type.GraphicsSceneMouseMove, QEvent.Type.GraphicsSceneHoverMove, QEvent.Type.GraphicsSceneWheel,
    QEvent.Type.MetaCall,
})
