"""The scan of the open container: every tensor's figures (:func:`core.models.scan.scan_tensors`),
owned here and shown by the Model dock.

Rules
-----
- What is scanned is the document's open container file (the tensors of
  :func:`core.models.inventory.inventory` of that one path: its readable entries, what it
  skips, the errors), on a worker thread (:class:`~inspector.state.row_stream.RowStream`), both
  cores; rows arrive in the container's order as their tensors finish.
- A container of at most :data:`AUTO_SCAN_BYTES` of tensor data is scanned as soon as it is
  open; a larger one when :meth:`ModelScan.start` is asked for (the dock's *Scan* button), so
  opening a 100 GB checkpoint never reads it whole unasked.
- A new listing (another file, the same file opened again, or none) cancels the running scan and clears the rows; so does closing the
  files. A cancelled or failed scan keeps its rows and says it is incomplete.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from core.errors import describe_error
from core.formats.entry import ContainerListing
from core.models.inventory import Inventory, PathProblem, inventory
from core.models.scan import TensorScan, scan_tensors
from inspector.state.document import Document
from inspector.state.row_stream import RowStream

__all__ = ["AUTO_SCAN_BYTES", "ModelScan"]

#: Containers with at most this many bytes of tensor data are scanned when opened.
AUTO_SCAN_BYTES = 256 << 20


class ModelScan(QObject):
    """The rows of the open container's scan (module rules).

    Signals
    -------
    reset()
        The rows were cleared (a new container, or a new scan).
    rowsAdded(list)
        :class:`TensorScan` rows, in order, appended to :attr:`rows`.
    stateChanged()
        Running, finished, cancelled or failed; :attr:`status` says which.
    progressChanged(int, int)
        Bytes of tensor data scanned, and the total.
    """

    reset = Signal()
    rowsAdded = Signal(list)
    stateChanged = Signal()
    progressChanged = Signal("qlonglong", "qlonglong")

    def __init__(self, document: Document, parent: QObject | None = None, *,
                 auto_bytes: int = AUTO_SCAN_BYTES) -> None:
        super().__init__(parent)
        self._document = document
        self._auto_bytes = auto_bytes
        self._stream: RowStream | None = None
        self._listing: ContainerListing | None = None
        self.rows: list[TensorScan] = []
        self.problems: tuple[PathProblem, ...] = ()  # skipped entries and errors of the inventory
        #: ``idle`` (nothing scanned), ``running``, ``done``, ``cancelled`` or ``failed``.
        self.status = "idle"
        self.error: str | None = None
        document.containerChanged.connect(self._on_container)
        document.closing.connect(lambda: self._on_container(None))

    @property
    def available(self) -> bool:
        """Whether a container is open to scan."""
        return self._listing is not None

    @property
    def running(self) -> bool:
        return self.status == "running"

    def start(self) -> None:
        """Scan the open container (again); nothing when none is open."""
        if self._listing is None:
            return
        path = self._listing.path
        self._stop()
        self.rows, self.problems, self.error = [], (), None
        self.reset.emit()
        found: list[Inventory] = []

        def produce(progress, cancelled):
            listed = inventory([path], cancelled=cancelled)
            found.append(listed)
            return scan_tensors(listed, progress=progress, cancelled=cancelled)

        stream = RowStream(produce, self)
        stream.rowsAdded.connect(self._on_rows)
        stream.progressChanged.connect(self.progressChanged)
        stream.finished.connect(lambda outcome, error: self._on_finished(stream, found, outcome, error))
        self._stream = stream
        self._set_status("running")
        stream.start()

    def cancel(self) -> None:
        if self._stream is not None:
            self._stream.cancel()

    def _stop(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.cancel()
            stream.rowsAdded.disconnect(self._on_rows)

    def _on_rows(self, rows: list) -> None:
        self.rows.extend(rows)
        self.rowsAdded.emit(rows)

    def _on_finished(self, stream: RowStream, found: list[Inventory], outcome: str, error) -> None:
        if stream is not self._stream:
            return  # a scan replaced meanwhile
        self._stream = None
        if found:
            self.problems = found[0].errors + found[0].skipped
        if outcome == "failed":
            self.error = describe_error(error).message
        self._set_status({"succeeded": "done"}.get(outcome, outcome))

    def _set_status(self, status: str) -> None:
        self.status = status
        self.stateChanged.emit()

    def _on_container(self, listing: ContainerListing | None) -> None:
        if listing is self._listing:
            return
        self._stop()
        self._listing = listing
        self.rows, self.problems, self.error = [], (), None
        self.reset.emit()
        self._set_status("idle")
        if listing is not None and sum(e.nbytes or 0 for e in listing.entries) <= self._auto_bytes:
            self.start()
