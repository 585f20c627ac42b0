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
* **A poll** every ``poll_ms`` per :data:`FILES_PER_POLL` files (250 ms for up to 512 files,
  4.5 s for 9,000), for file systems without events: each poll compares every file with its
  record (two system calls per file) but moves the watches of only :data:`FILES_PER_POLL` of
  them, in turn, so a batch of thousands of files costs a bounded share of the GUI thread.
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
"""How often up to :data:`FILES_PER_POLL` open files are checked without a file-system event."""

FILES_PER_POLL = 512
"""Files whose watch one poll moves to their current inode (in turn); the poll's interval grows
by :data:`POLL_MS` per this many files."""


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
        self._folders: set[str] = set()  # the folders of the files (computed once per watch)
        self._next_poll = 0  # the first file the next poll re-watches
        self._poll_ms = poll_ms
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_file_event)
        self._watcher.directoryChanged.connect(self._on_directory_event)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(debounce_ms)
        self._debounce.timeout.connect(self.check_now)
        self._poll = QTimer(self)
        self._poll.setInterval(poll_ms)
        self._poll.timeout.connect(self._on_poll)

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
        self._next_poll = 0
        if source is None:
            self._folders = set()
            self._poll.stop()
            _EventGuard.remove(self)
            return
        paths = source.paths if source.on_disk else ()
        self._folders = {os.path.dirname(os.path.abspath(path)) for path in paths}
        self._poll.start(self._poll_ms * max(1, -(-len(paths) // FILES_PER_POLL)))
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

    def poll_interval(self) -> int:
        """Milliseconds between two polls now (module docstring: grows with the file count)."""
        return self._poll.interval()

    def _on_poll(self) -> None:
        self.check_now(rewatch_limit=FILES_PER_POLL)

    def check_now(self, rewatch_limit: int | None = None) -> ChangeReport | None:
        """Compare the files with their records now (two system calls per file at most).

        ``rewatch_limit``: move the watches of only that many files, in turn (the poll); None:
        of every file (a file-system event, a check on demand).

        Emits :attr:`changed` when the report is new (see the module docstring).

        Returns
        -------
        ChangeReport or None
            The changes found now, or None when the files match their records.
        """
        source = self._source
        if source is None or source.closed:
            return None
        self._rewatch(rewatch_limit)
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

    def _rewatch(self, limit: int | None = None) -> None:
        """Watch every file of ours that exists (on its *current* inode) and their folders;
        only ``limit`` files, in turn, when given.

        One ``stat`` per file and set lookups only (no list membership test per file: 9,000
        files cost milliseconds, not seconds); the watcher is asked only for what changed.
        """
        source = self._source
        paths = source.paths if source is not None and source.on_disk else ()  # memory: none
        if limit is not None and len(paths) > limit:
            start = self._next_poll % len(paths)
            self._next_poll = start + limit
            paths = (paths + paths)[start:start + limit]
        current_folders = set(self._watcher.directories())
        add = [d for d in self._folders if d not in current_folders and path_identity(d) is not None]
        current_files = set(self._watcher.files())
        remove = []
        for path in paths:
            identity = path_identity(path)
            if identity is None:
                self._watched.pop(path, None)
                continue
            if path in current_files:
                if self._watched.get(path) == identity:
                    continue
                remove.append(path)
            self._watched[path] = identity
            add.append(path)
        if remove:
            self._watcher.removePaths(remove)
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
