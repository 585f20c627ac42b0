"""The scan of a model: every tensor's figures (:func:`core.models.scan.scan_tensors`), owned
here and shown by the Model dock.

Rules
-----
- What is scanned is either the document's open container file (the default: it follows the
  document) or paths given by :meth:`ModelScan.scan_paths` (folders of dumps, several model
  files: ``tensor-inspector FOLDER``, File > Scan folder…), until :meth:`ModelScan.follow_document`.
  Its tensors are those of :func:`core.models.inventory.inventory` (readable entries, what is
  skipped, the errors), scanned on a worker thread
  (:class:`~inspector.state.row_stream.RowStream`) on both cores; rows arrive in order as their
  tensors finish.
- An open container of at most :data:`AUTO_SCAN_BYTES` of tensor data is scanned as soon as it
  is open; a larger one when :meth:`ModelScan.start` is asked for (the dock's *Scan* button),
  so opening a 100 GB checkpoint never reads it whole unasked. Given paths are scanned at once.
- Following the document, a new listing (another file, the same file opened again, or none)
  cancels the running scan and clears the rows. Scanning given paths, the document's files
  change freely (a row opened in the window is one of them). A cancelled or failed scan keeps
  its rows and says it is incomplete.
- A row is shown as the window shows any model tensor (:func:`show_in_document`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from PySide6.QtCore import QObject, Signal

from core.errors import CoreError, describe_error
from core.formats.entry import ContainerListing
from core.models.inventory import Inventory, PathProblem, inventory
from core.models.scan import TensorScan, scan_tensors
from core.models.shown import TensorForm, tensor_form
from core.text.names import printable_name
from inspector.state.document import Document
from inspector.state.row_stream import StreamedRows

__all__ = ["AUTO_SCAN_BYTES", "ModelScan", "same_files", "show_in_document"]

#: Containers with at most this many bytes of tensor data are scanned when opened.
AUTO_SCAN_BYTES = 256 << 20


def same_files(open_paths: Sequence[str], paths: Sequence[str]) -> bool:
    """Whether two lists of paths name the same files (through links too)."""
    return [os.path.realpath(p) for p in open_paths] == [os.path.realpath(p) for p in paths]


def show_in_document(document: Document, form: TensorForm, label: str) -> None:
    """Show a model tensor (:func:`core.models.shown.tensor_form`) in ``document``: a file that
    is already open stays open and only its parameters change (one undoable edit ``label``);
    other files are opened; values in memory are shown as an object named by the form."""
    if form.values is None and document.by_name and same_files(document.paths, form.paths):
        document.set_view(form.params, "", label=label)
    elif form.values is None:
        document.open_files(list(form.paths), form.params)
    else:
        document.open_object(form.values, name=form.title)


class ModelScan(StreamedRows):
    """The rows of a model's scan (module rules); the signals of :class:`StreamedRows`, with
    :class:`TensorScan` rows and bytes of tensor data as progress, and:

    Signals
    -------
    targetChanged()
        What is scanned changed (:attr:`available`, :attr:`paths`).
    """

    targetChanged = Signal()

    def __init__(self, document: Document, parent: QObject | None = None, *,
                 auto_bytes: int = AUTO_SCAN_BYTES) -> None:
        super().__init__(parent)
        self._document = document
        self._auto_bytes = auto_bytes
        self._listing: ContainerListing | None = None
        self._found: list[Inventory] = []  # the run's inventory (worker-filled)
        #: The paths given by :meth:`scan_paths` (empty: the document's open container).
        self.paths: tuple[str, ...] = ()
        self.rows: list[TensorScan] = []
        self.problems: tuple[PathProblem, ...] = ()  # skipped entries and errors of the inventory
        document.containerChanged.connect(self._on_container)
        document.closing.connect(lambda: self._on_container(None))

    @property
    def document(self) -> Document:
        return self._document

    @property
    def available(self) -> bool:
        """Whether there is something to scan: given paths, or an open container."""
        return bool(self.paths) or self._listing is not None

    @property
    def follows_document(self) -> bool:
        return not self.paths

    def scan_paths(self, paths: Sequence[str | os.PathLike]) -> None:
        """Scan ``paths`` (folders, model files) instead of the open container, now."""
        self.paths = tuple(os.path.abspath(os.fspath(p)) for p in paths)
        self.targetChanged.emit()
        self.start()

    def follow_document(self) -> None:
        """Scan the document's open container again (by the rules for an opened container)."""
        if not self.paths:
            return
        self.paths = ()
        self._retarget(self._document.container)
        self.targetChanged.emit()

    def start(self) -> None:
        """Scan what is to be scanned (again); nothing when there is none."""
        if self.paths:
            paths = list(self.paths)
        elif self._listing is not None:
            paths = [self._listing.path]
        else:
            return
        self.problems = ()
        found: list[Inventory] = []
        self._found = found

        cluster = self._document.cluster.cluster()

        def produce(progress, cancelled):
            listed = inventory(paths, cancelled=cancelled)
            found.append(listed)
            return scan_tensors(listed, progress=progress, cancelled=cancelled, cluster=cluster)

        self._run(produce)

    def open_row(self, row: TensorScan) -> str | None:
        """Show the tensor of a scan of given paths in the document (:func:`show_in_document`);
        the reason when it cannot be opened, else None."""
        try:
            form = tensor_form(row.tensor)
        except CoreError as error:
            return describe_error(error).message
        show_in_document(self._document, form, f"show tensor {printable_name(row.tensor.label)}")
        return None

    def _ended(self) -> None:
        if self._found:
            self.problems = self._found[0].errors + self._found[0].skipped

    def _on_container(self, listing: ContainerListing | None) -> None:
        if self.paths or listing is self._listing:
            return
        had = self._listing is not None
        self._retarget(listing)
        if had != (listing is not None):
            self.targetChanged.emit()

    def _retarget(self, listing: ContainerListing | None) -> None:
        """Scan ``listing`` by the rules of an opened container: the rows cleared, scanned at
        once when small."""
        self._listing = listing
        self.problems = ()
        self._clear()
        if listing is not None and sum(e.nbytes or 0 for e in listing.entries) <= self._auto_bytes:
            self.start()
