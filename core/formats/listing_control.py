"""Progress and cancel of one container listing, cooperatively, from inside the engine.

Rule: a listing run under :func:`controlled` (the window lists on a worker thread) reports the
header bytes it reads and stops at its next header read once :meth:`ListingControl.cancel` was
called, raising :class:`ListingCancelled`. Entries show as they are found: a parser whose
entries cost reads of their own (npz members, TFLite tensors, HDF5 datasets) appends them, in
their final order, to the list :func:`collecting` gives it, which the control holds as
:attr:`ListingControl.found` (appending is the only change made to it, so the window's thread
may read a prefix of it at any time: :meth:`ListingControl.found_so_far`). :class:`~core.formats.reader.HeaderReader` calls
:func:`check` on every read, so every format is covered without a line of its own. Outside
:func:`controlled` (the command line) :func:`check` does nothing: listing stays synchronous.

The control is a :mod:`contextvars` variable: it belongs to the thread (context) that runs the
listing, so listings on several threads never see each other's control.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from core.errors import Cancelled, CoreError

__all__ = ["ListingCancelled", "ListingControl", "check", "collecting", "controlled"]


class ListingCancelled(Cancelled, CoreError):  # noqa: N818 (a signal to stop, as Cancelled)
    """The user cancelled a listing (``"listing cancelled"``); a :class:`core.errors.Cancelled`
    (background tasks report it as cancelled) and a :class:`core.errors.CoreError`."""

    def __init__(self, message: str = "listing cancelled", field: str | None = "files") -> None:
        CoreError.__init__(self, message, field)


class ListingControl:
    """What one listing reports and obeys; thread-safe (made in one thread, read in another).

    Parameters
    ----------
    progress
        Optional ``progress(header_bytes_read)``, called from the listing's thread after each
        header read.
    cancelled
        Optional ``cancelled() -> bool`` asked too (a background task's cancel flag).
    """

    def __init__(self, progress: Callable[[int], None] | None = None,
                 cancelled: Callable[[], bool] | None = None) -> None:
        self._cancel = threading.Event()
        self._progress = progress
        self._cancelled = cancelled
        self.bytes_read = 0
        self.found: list = []
        """Entries found so far by the parser running (see :func:`collecting`)."""
        self.found_format = ""
        """The format of the file whose entries :attr:`found` holds."""

    def found_so_far(self) -> tuple:
        """The entries found so far, in order (a snapshot; safe from any thread)."""
        found = self.found
        return tuple(found[:len(found)])

    def cancel(self) -> None:
        """Stop the listing at its next header read."""
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called (or the ``cancelled`` callable says so)."""
        return self._cancel.is_set() or (self._cancelled is not None and self._cancelled())

    def check(self, nbytes: int = 0) -> None:
        """Count ``nbytes`` header bytes read; raise :class:`ListingCancelled` when cancelled."""
        if self.cancelled:
            raise ListingCancelled()
        if nbytes:
            self.bytes_read += nbytes
            if self._progress is not None:
                self._progress(self.bytes_read)


_CURRENT: contextvars.ContextVar[ListingControl | None] = contextvars.ContextVar("listing_control", default=None)


def check(nbytes: int = 0) -> None:
    """:meth:`ListingControl.check` of the listing running in this context; nothing outside one."""
    control = _CURRENT.get()
    if control is not None:
        control.check(nbytes)


def collecting(format_name: str) -> list:
    """A new list for a parser of ``format_name`` to append its entries to, in their final order:
    under a control, the control's :attr:`ListingControl.found` (a new one, so that a parser that
    failed leaves nothing behind); outside one, a plain list."""
    control = _CURRENT.get()
    if control is None:
        return []
    control.found, control.found_format = [], format_name
    return control.found


@contextmanager
def controlled(control: ListingControl) -> Iterator[ListingControl]:
    """Run the listings inside the ``with`` block under ``control``."""
    token = _CURRENT.set(control)
    try:
        yield control
    finally:
        _CURRENT.reset(token)
