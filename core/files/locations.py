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
"""

from __future__ import annotations

import os
import posixpath
import stat
from urllib.parse import urlsplit, urlunsplit

from core.errors import SourceError

__all__ = ["exists", "file_size", "folder_of", "inside", "is_file", "join"]



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
