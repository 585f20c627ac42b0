"""Bounded reads of a container's header bytes, with messages that name the container.

Rule: a listing reads only header structures, never tensor data, and never more than
:data:`HEADER_LIMIT` bytes in all (:attr:`HeaderReader.limit`); every byte a parser reads comes
through :meth:`HeaderReader.read`, a ``pread`` copy (``Source.read_exact``) that never touches
the map, so a file cut while it is listed gives "changed on disk", never ``SIGBUS``; a length or count read from the file is checked against the
file's size before anything is allocated for it, so a lying header gives a message, not a huge
allocation or a hang. A TFRecord file is all records, data and structure at once: its lister
reads every record through :mod:`core.formats.tfrecord_framing` instead (``pread`` in bounded
blocks, its index bounded by the copy budget, a partial listing said in its problems).
"""

from __future__ import annotations

import core.budget
from core.errors import ContainerError
from core.files.sources import FileSource
from core.formats import listing_control
from core.text.names import printable_name

__all__ = ["ENTRY_BYTES", "HEADER_LIMIT", "HeaderReader", "entry_limit", "not_listed"]

#: At most this many header bytes are read to list one container (64 MiB: a safetensors
#: checkpoint with 100,000 tensors has a JSON header of about 15 MiB).
HEADER_LIMIT = 64 * 1024 * 1024

#: Memory one listed entry may take (a TensorEntry with its name, shape and extras; measured
#: about 1.2 KiB for a GGUF or TFLite entry): a listing keeps at most :func:`entry_limit` entries.
ENTRY_BYTES = 2048


def entry_limit() -> int:
    """How many entries one listing may hold: the copy budget (:mod:`core.budget`) over
    :data:`ENTRY_BYTES`, and at least 1,000 (1,048,576 at the default 2 GiB budget)."""
    return max(1000, core.budget.COPY_BUDGET_BYTES // ENTRY_BYTES)


def not_listed(count: int, what: str = "entries") -> str:
    """The listing's note for the ``count`` entries it left out to stay within the budget."""
    return (f"{count} more {what} not listed: the listing holds at most {entry_limit()} entries "
            f"within the {core.budget.COPY_BUDGET_BYTES // (1024 * 1024)} MiB memory budget "
            f"(raise it with {core.budget.ENV_VAR}, or open an entry by its offset as raw bytes)")


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
        self.limit = HEADER_LIMIT
        """Header bytes this listing may read in all (a format may set its own, e.g. safetensors)."""

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
        if self.consumed > self.limit:
            raise self.error(
                f"listing needs more than {self.limit // (1024 * 1024)} MiB of header bytes",
                offset, "open it as raw bytes with an explicit offset and dtype",
            )
        # pread, never the map: a file cut meanwhile is "changed on disk", not SIGBUS.
        return self.source.read_exact(self.index, offset, nbytes, f"the {what}")

    def head(self, nbytes: int) -> bytes:
        """Up to ``nbytes`` bytes from the start (fewer for a small file); for sniffing."""
        return self.source.bytes_at(self.index, 0, min(nbytes, self.size))
