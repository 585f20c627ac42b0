"""The session file's public names in one place (the contract the GUI and the command use).

- :class:`~core.session.records.SessionFile`, :class:`~core.session.records.Session` (with
  ``with_files``), :func:`~core.session.records.capture_file`: the values;
- :func:`~core.session.document.save_session`: write one (atomically, never over an inspected
  file);
- :func:`~core.session.loading.load_session` -> :class:`~core.session.loading.LoadedSession`
  (``missing``, ``changed`` as :class:`~core.session.loading.FileChangeNote`, ``with_located``).

The JSON format and its rules: docs/sessions.md.
"""

from core.session.bookmark import Bookmark
from core.session.document import MAX_BOOKMARKS, MAX_FILES, save_session
from core.session.loading import MAX_NESTING, FileChangeNote, LoadedSession, load_session
from core.session.records import (
    MAX_SESSION_BYTES,
    SESSION_FORMAT,
    SESSION_VERSION,
    Session,
    SessionFile,
    capture_file,
)

__all__ = [
    "Bookmark", "FileChangeNote", "LoadedSession", "MAX_BOOKMARKS", "MAX_FILES", "MAX_NESTING",
    "MAX_SESSION_BYTES", "SESSION_FORMAT", "SESSION_VERSION", "Session", "SessionFile",
    "capture_file", "load_session", "save_session",
]
