"""Bounded reads of a container's header bytes, with messages that name the container.

Rule: a listing reads only header structures, never tensor data, and never more than
:data:`HEADER_LIMIT` bytes in all; a length or count read from the file is checked against the
file's size before anything is allocated for it, so a lying header gives a message, not a huge
allocation or a hang.
"""

from __future__ import annotations

from core.errors import ContainerError
from core.files.sources import FileSource
from core.formats import listing_control
from core.text.names import printable_name

__all__ = ["HEADER_LIMIT", "HeaderReader"]

#: At most this many header bytes are read to list one container (64 MiB: a safetensors
#: checkpoint with 100,000 tensors has a JSON header of about 15 MiB).
HEADER_LIMIT = 64 * 1024 * 1024


class HeaderReader:
    """Reads header bytes of file ``index`` of a source; every read is bounds-checked.

    Parameters
    ----------
    source
        An open :class:`FileSource` (files mapped read-only).
    index
        Which of its files.
    format
        Format name used in messages (``"safetensors"``...).
    """

    def __init__(self, source: FileSource, index: int = 0, format: str = "container") -> None:
        self.source = source
        self.index = index
        self.format = format
        self.size = source.file_size(index)
        self.path = source.paths[index]
        self.consumed = 0

    def error(self, what: str, offset: int | None = None, fix: str = "") -> ContainerError:
        """A :class:`ContainerError` ``"the <format> file '<path>' ... at byte N ... (fix)"``."""
        where = f" at byte {offset}" if offset is not None else ""
        tail = f" ({fix})" if fix else ""
        return ContainerError(
            f"the {self.format} file '{printable_name(self.path)}'{where}: {what}{tail}",
            field="files",
        )

    def read(self, offset: int, nbytes: int, what: str = "header") -> bytes:
        """Exactly ``nbytes`` bytes from ``offset``.

        Raises
        ------
        ContainerError
            The range reaches past the end of the file (a truncated or corrupt container), or
            the listing would read more than :data:`HEADER_LIMIT` bytes.
        ListingCancelled
            The listing runs under a cancelled :mod:`core.formats.listing_control` control.
        """
        listing_control.check(nbytes)  # progress and cancel of a listing run by the window
        if offset < 0 or nbytes < 0 or offset + nbytes > self.size:
            raise self.error(
                f"the {what} ({nbytes} bytes from byte {offset}) reaches past the end of the "
                f"file ({self.size} bytes)", offset,
                "the file is truncated or not a valid container; open it as raw bytes with an "
                "explicit offset and dtype to look at it",
            )
        self.consumed += nbytes
        if self.consumed > HEADER_LIMIT:
            raise self.error(
                f"listing needs more than {HEADER_LIMIT // (1024 * 1024)} MiB of header bytes",
                offset, "open it as raw bytes with an explicit offset and dtype",
            )
        return self.source.bytes_at(self.index, offset, nbytes)

    def head(self, nbytes: int) -> bytes:
        """Up to ``nbytes`` bytes from the start (fewer for a small file); for sniffing."""
        return self.source.bytes_at(self.index, 0, min(nbytes, self.size))
