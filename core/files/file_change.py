"""Has an open file changed on disk? One rule, shared by the engine's checks and the GUI's monitor.

A file is recorded when it is opened (:class:`core.files.safe_open.FileInfo`: size, mtime,
device and inode). :func:`detect_change` compares that record with the file now, first through
the open descriptor (the *mapped* inode, whatever the path names now), then through the path:

==============  ===========================================  =======================================
kind            seen as                                      ``summary`` (banner text)
==============  ===========================================  =======================================
``shrank``      descriptor smaller than recorded              ``data.bin shrank from 1,024 to 100
                                                             bytes; the view was cleared until you
                                                             reload``
``grew``        descriptor larger than recorded               ``data.bin grew from 1,024 to 2,048
                                                             bytes; the view was cleared ...``
``modified``    descriptor's mtime differs (same size)        ``data.bin changed on disk; the view
                                                             was cleared ...``
``deleted``     the path no longer exists                     ``data.bin was deleted; the view was
                                                             cleared ...``
``replaced``    the path names another inode                  ``data.bin was replaced on disk``
``unchecked``   the path cannot be stat'ed (not missing)      ``data.bin cannot be checked (...)``
``closed``      the descriptor is no longer valid             ``data.bin can no longer be read ...``
==============  ===========================================  =======================================

:attr:`FileChange.invalidates_view` is the rule for what a GUI may keep showing: when the mapped
inode itself changed (shrank, grew, modified) the mapped bytes may no longer be the bytes the
views were computed from, so every view must be cleared together until a reload (never the new
bytes in one view next to old numbers in another); a deleted file is treated the same (its data
is gone for the user). A *replaced* file is not: the map still holds the old, intact inode, so
the old views stay consistent (a reload shows the new file). A shrink is also a crash hazard,
see :mod:`core.files.shrink_guard`.

Nothing here opens a file: only ``stat`` of the path and ``fstat`` of the open descriptor, so a
path swapped for a FIFO is reported as ``replaced`` and never blocks.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from core.files.safe_open import FileInfo

__all__ = ["FileChange", "ChangeReport", "detect_change", "path_identity"]

_CLEARED = "; the view was cleared until you reload"
_INVALIDATING = frozenset({"shrank", "grew", "modified", "deleted", "closed"})


@dataclass(frozen=True)
class FileChange:
    """How one open file differs from its record at open (see the module table).

    Attributes
    ----------
    path
        The path as opened.
    kind
        ``"shrank"``, ``"grew"``, ``"modified"``, ``"deleted"``, ``"replaced"``, ``"unchecked"``
        or ``"closed"``.
    old_size, new_size
        The size at open and the mapped inode's size now (equal unless shrank / grew).
    reason
        The OS error text for ``unchecked``, else ''.
    """

    path: str
    kind: str
    old_size: int
    new_size: int
    reason: str = ""

    @property
    def invalidates_view(self) -> bool:
        """Whether views computed from the map must be cleared until a reload."""
        return self.kind in _INVALIDATING

    @property
    def detail(self) -> str:
        """The engine's wording, e.g. ``size 100 -> 50 bytes``, ``it was replaced by another file``."""
        return {
            "shrank": f"size {self.old_size} -> {self.new_size} bytes",
            "grew": f"size {self.old_size} -> {self.new_size} bytes",
            "modified": "it was modified",
            "deleted": "it was deleted or moved",
            "replaced": "it was replaced by another file",
            "unchecked": f"it cannot be checked ({self.reason})",
            "closed": "its descriptor is no longer valid",
        }[self.kind]

    @property
    def error_message(self) -> str:
        """``'x' changed on disk since it was opened (<detail>) (reload it)``."""
        return f"'{self.path}' changed on disk since it was opened ({self.detail}) (reload it)"

    @property
    def summary(self) -> str:
        """The banner's wording (see the module table), naming the file by its base name."""
        name = os.path.basename(self.path) or self.path
        return {
            "shrank": f"{name} shrank from {self.old_size:,} to {self.new_size:,} bytes{_CLEARED}",
            "grew": f"{name} grew from {self.old_size:,} to {self.new_size:,} bytes{_CLEARED}",
            "modified": f"{name} changed on disk{_CLEARED}",
            "deleted": f"{name} was deleted{_CLEARED}",
            "replaced": f"{name} was replaced on disk",
            "unchecked": f"{name} cannot be checked ({self.reason})",
            "closed": f"{name} can no longer be read{_CLEARED}",
        }[self.kind]


def detect_change(info: FileInfo, fd: int) -> FileChange | None:
    """How the file recorded as ``info`` and open as ``fd`` differs now, or None if it does not.

    One ``fstat`` of the descriptor and, when that matches, one ``stat`` of the path; nothing is
    opened. The first difference found, in the order of the module table, is returned.
    """
    def change(kind: str, new_size: int = info.size, reason: str = "") -> FileChange:
        return FileChange(info.path, kind, info.size, new_size, reason)

    try:
        mapped = os.fstat(fd)
    except OSError:
        return change("closed")
    if mapped.st_size < info.size:
        return change("shrank", mapped.st_size)
    if mapped.st_size > info.size:
        return change("grew", mapped.st_size)
    if mapped.st_mtime_ns != info.mtime_ns:
        return change("modified")
    try:
        current = os.stat(info.path)
    except FileNotFoundError:
        return change("deleted")
    except OSError as error:
        return change("unchecked", reason=error.strerror or str(error))
    if (current.st_dev, current.st_ino) != (info.device, info.inode):
        return change("replaced")
    return None


def path_identity(path: str) -> tuple[int, int] | None:
    """``(device, inode)`` the path names now (one ``stat``, nothing opened), or None if none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


@dataclass(frozen=True)
class ChangeReport:
    """The changes of all the open files at one check (what a GUI shows and acts on).

    Attributes
    ----------
    changes
        One :class:`FileChange` per changed file, in file order (never empty).
    """

    changes: tuple[FileChange, ...]

    @classmethod
    def of(cls, changes: Sequence[FileChange | None]) -> ChangeReport | None:
        """The report of the changes that are not None, or None when nothing changed."""
        found = tuple(c for c in changes if c is not None)
        return cls(found) if found else None

    @property
    def invalidates_view(self) -> bool:
        """Whether any change means the views must be cleared until a reload."""
        return any(c.invalidates_view for c in self.changes)

    @property
    def first(self) -> FileChange:
        """The change to describe: the first one that invalidates the view, else the first."""
        return next((c for c in self.changes if c.invalidates_view), self.changes[0])

    @property
    def message(self) -> str:
        """The banner text: the first change's summary, ``(and 2 more files)`` for the rest."""
        text = self.first.summary
        more = len(self.changes) - 1
        if more:
            text += f" (and {more} more file{'s' if more > 1 else ''})"
        return text
