"""Where a file's siblings are: folders, names inside them and sizes, for local paths and URLs alike.

A container names other files beside it (a shard index its shards, a TF checkpoint's index its
data files, an ONNX model its external data, a split GGUF its splits). These rules find them the
same way whether the container is a local path or a URL (:mod:`core.files.remote`):

- :func:`folder_of` is the folder a file is in: a local path's absolute directory, or a URL up to
  its last ``/`` (query and fragment dropped: a signed URL signs one object, so its siblings
  need URLs of their own).
- :func:`inside` resolves a name against a folder and refuses one that leads out of it (an
  absolute name, ``..`` past the folder): a container may name only files beside it or below it.
- :func:`file_size` is a regular file's size, or None when there is none (missing, a folder, a
  device; for a URL: an object that is not found or cannot be reached). A URL costs one
  ``info`` request (reused by its open soon after: :data:`core.files.remote.INFO_SECONDS`).
- :func:`read_whole` reads a small sibling whole (a store's metadata document, a chunk), refused
  over its cap before any byte is read; a missing one is ``FileNotFoundError`` either way.
- :func:`list_folder` lists a folder: a local directory's entries (links not followed), or a
  URL's by its file system (an object store's prefixes; an HTTP server's index page, so a server
  that shows none lists nothing).
"""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from core.errors import MissingObjectError, SourceError

__all__ = ["FolderItem", "exists", "file_size", "folder_of", "inside", "is_file", "join", "list_folder", "read_whole"]



def _is_url(path: str) -> bool:
    from core.files.remote import is_url
    return is_url(path)


def folder_of(path: str) -> str:
    """The folder ``path`` is in (module rules), without a trailing separator."""
    path = os.fspath(path)
    if _is_url(path):
        parts = urlsplit(path)
        return urlunsplit((parts.scheme, parts.netloc, posixpath.dirname(parts.path), "", ""))
    return os.path.dirname(os.path.abspath(path))


def join(folder: str, name: str) -> str:
    """``name`` inside ``folder`` (no check; see :func:`inside`)."""
    if _is_url(folder):
        return folder.rstrip("/") + "/" + name.lstrip("/")
    return os.path.join(folder, name)


def inside(folder: str, name: str) -> str | None:
    """``name`` resolved inside ``folder``, or None when it leads out of it (module rules)."""
    if _is_url(folder):
        if name.startswith("/") or "://" in name:
            return None
        parts = urlsplit(folder)
        base = parts.path.rstrip("/") or "/"
        resolved = posixpath.normpath(posixpath.join(base, name))
        if resolved != base and not resolved.startswith(base.rstrip("/") + "/"):
            return None
        return urlunsplit((parts.scheme, parts.netloc, resolved, "", ""))
    if os.path.isabs(name):
        return None
    resolved = os.path.normpath(os.path.join(folder, name))
    try:
        if os.path.commonpath([folder, resolved]) != folder:
            return None
    except ValueError:  # different drives
        return None
    return resolved


def file_size(path: str) -> int | None:
    """The size of the regular file (or remote object) ``path``, or None (module rules)."""
    path = os.fspath(path)
    if not _is_url(path):
        try:
            info = os.stat(path)
        except (OSError, ValueError):  # ValueError: a NUL in the name
            return None
        return info.st_size if stat.S_ISREG(info.st_mode) else None
    return _remote_size(path)


def _remote_size(url: str) -> int | None:
    from core.files.remote import object_size
    try:
        return object_size(url)
    except SourceError:
        return None


def exists(path: str) -> bool:
    """Whether a local path names anything (a file, a folder, a device...); a URL: an object."""
    if _is_url(path):
        return is_file(path)
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


def is_file(path: str) -> bool:
    """Whether ``path`` is a regular file or a remote object (:func:`file_size` is not None)."""
    return file_size(path) is not None


def read_whole(path: str, cap: int, what: str) -> bytes:
    """All bytes of the regular file or object ``path`` (module rules).

    Raises
    ------
    FileNotFoundError
        Nothing is there (a local path, or a URL the server says is not found).
    SourceError
        Larger than ``cap``, not a regular file (a folder, FIFO, device), or another failure.
    """
    if not _is_url(path):
        from core.files.checked_read import read_capped
        return read_capped(path, cap, what)
    from core.files.remote import read_object
    try:
        return read_object(path, cap, what)
    except MissingObjectError:
        raise FileNotFoundError(path) from None


@dataclass(frozen=True)
class FolderItem:
    """One item of a folder listing."""

    name: str
    #: A folder (a local link to one is not: :attr:`is_link` says so).
    is_folder: bool
    #: A local symbolic link (never followed).
    is_link: bool = False
    #: A local link that leads to a folder.
    links_to_folder: bool = False


def list_folder(path: str) -> list[FolderItem]:
    """The items of the folder ``path``, by name (module rules).

    Raises
    ------
    OSError
        A local folder that cannot be read.
    SourceError
        A URL whose listing failed.
    """
    if _is_url(path):
        from core.files.remote import list_remote_folder
        return [FolderItem(name, is_folder) for name, is_folder in list_remote_folder(path)]
    items = []
    with os.scandir(path) as found:
        for item in found:
            link = item.is_symlink()
            items.append(FolderItem(item.name, item.is_dir(follow_symlinks=False), link,
                                    link and item.is_dir()))
    return sorted(items, key=lambda item: item.name)
