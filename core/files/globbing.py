"""Globs: one pattern naming many files, local or remote, opened as one batch in natural order.

Rules
-----
- A path or URL is a pattern when it holds ``*``, ``?`` or ``[`` (a URL: in its path; ``?``
  there starts the query, so only ``*`` and ``[`` count) and does not name an existing file
  itself (a local file named ``a[1].bin`` is that file). ``**`` matches across folders.
- A local pattern is matched with :mod:`glob` (regular files only; hidden files only when the
  pattern names them), a remote one by the protocol's fsspec file system (``glob``: S3 and GCS
  list keys, HTTP reads the server's folder listing page).
- The matches are sorted in natural order (:func:`core.text.names.natural_key`:
  ``dump_2.bin`` before ``dump_10.bin``). No match, or more than :data:`MAX_MATCHES`, is an
  error naming the pattern and the fix; a local listing stops at the first match past the
  bound, so a pattern over a million files costs its bound, not the million.
"""

from __future__ import annotations

import glob
import itertools
import os
from collections.abc import Sequence
from urllib.parse import urlsplit

from core.errors import SourceError
from core.text.names import natural_key, printable_name

__all__ = ["MAX_MATCHES", "expand_globs", "is_glob"]

#: Most files one pattern may match.
MAX_MATCHES = 100_000


def _is_url(text: str) -> bool:
    from core.files.remote import is_url
    return is_url(text)


def is_glob(text: str) -> bool:
    """Whether ``text`` is a pattern to expand (module rules)."""
    if _is_url(text):
        path = urlsplit(text).path
        return "*" in path or "[" in path
    return any(ch in text for ch in "*?[") and not os.path.isfile(text)


def expand_globs(paths: Sequence[str], limit: int = MAX_MATCHES) -> list[str]:
    """``paths`` with every pattern replaced by its matches (module rules); others unchanged.

    Raises
    ------
    SourceError
        ``field="files"``: a pattern matches nothing, or more than ``limit`` files (all
        patterns together); a remote listing failed.
    """
    out: list[str] = []
    for path in paths:
        text = os.fspath(path)
        if not isinstance(text, str) or not is_glob(text):
            out.append(text)
            continue
        matches = _remote_matches(text, limit) if _is_url(text) else _local_matches(text, limit)
        if not matches:
            raise SourceError(f"no file matches '{printable_name(text)}' (check the folder and the pattern: "
                              "* any characters, ? one, [abc] one of them, ** any folders)", field="files")
        out.extend(sorted(matches, key=natural_key))
        if len(out) > limit:
            raise _too_many(text, limit)
    return out


def _too_many(pattern: str, limit: int) -> SourceError:
    return SourceError(f"'{printable_name(pattern)}' matches more than {limit:,} files, more than one batch may "
                       "hold (narrow the pattern, e.g. shards/train-000*.tfrecord)", field="files")


def _local_matches(pattern: str, limit: int) -> list[str]:
    found = itertools.islice((p for p in glob.iglob(pattern, recursive=True) if os.path.isfile(p)), limit + 1)
    matches = list(found)
    if len(matches) > limit:
        raise _too_many(pattern, limit)
    return matches


def _remote_matches(pattern: str, limit: int) -> list[str]:
    from core.files.remote import filesystem_of
    from core.files.remote_fetch import remote_error

    fs, path = filesystem_of(pattern)
    try:
        found = fs.glob(path, detail=True)
    except BaseException as error:
        raise remote_error(pattern, error, "listing the files the pattern matches") from None
    names = [name for name, info in found.items() if info.get("type", "file") == "file"]
    if len(names) > limit:
        raise _too_many(pattern, limit)
    return [name if "://" in name else fs.unstrip_protocol(name) for name in names]
