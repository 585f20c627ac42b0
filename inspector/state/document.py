"""The open document: files, decode parameters, slice spec, result, selection, display axes, history.

The single source of truth of the GUI (napari's model/view split): widgets call the ``set_*``
methods and listen to the signals; they never talk to each other and keep no copy of this
state. All semantics live in :mod:`core`; this class only runs the pipeline and keeps the last
good result when a change is invalid, so a typo never blanks the screen.

A single file that is a container (safetensors, npz, TFLite, GGUF...: :mod:`core.formats`) is
listed when it is opened (:attr:`Document.container`); choosing one of its tensors
(:meth:`Document.choose_tensor`) is an ordinary, undoable edit of the decode parameters, and the
tensor shown is the entry whose byte range the parameters select (:attr:`Document.current_entry`),
so the choice has no state of its own.

Listing runs on a worker thread (:class:`~inspector.state.background_task.BackgroundTask`,
under a :mod:`core.formats.listing_control` control): the GUI thread waits for it at most
:data:`LISTING_GRACE_S` seconds, so a small container opens showing its first tensor at once,
as before. A longer listing goes on in the background while the file is shown as raw bytes:
:attr:`Document.listing_running`, :attr:`Document.listingChanged` with the header bytes read,
and :meth:`Document.cancel_listing` (``"listing cancelled"``). Its entries appear when it ends
(all at once, not one by one); if the decode parameters are still those the file was opened
with (nothing chosen, nothing edited), its first tensor is then shown. A listing of files no
longer open is dropped (its token is not the current one), and the pipeline it reads is closed
only after it stopped. That is for entries that are views of the open file
(:attr:`~core.formats.entry.TensorEntry.local_view`); any other entry (a copy or computed value,
a view of another file) is opened the one way :func:`core.formats.values.open_entry` opens it,
and :meth:`Document.entry_values` gives its values for a window of their own.

Edits of the decode parameters and of the slice are commands on :attr:`Document.history`
(:mod:`inspector.state.commands`), and so are the display choices a user expects to undo (plot
mode, number format...: :mod:`inspector.state.view_options`): :meth:`Document.undo` /
:meth:`Document.redo` walk through every kind. Opening or closing files clears the history.

What the views show is the document's too: :attr:`Document.view_options` (how),
:attr:`Document.shown_paths` (which files the views show) and :attr:`Document.views_cleared_by`
(the change on disk that cleared them). :meth:`Document.snapshot` and :meth:`Document.restore`
(:mod:`inspector.state.snapshot`) carry all of it for sessions and remembered settings.
:meth:`Document.close_files` is the one way to close: views let go of their arrays on
:attr:`Document.closing`, before the maps close.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from PySide6.QtCore import QObject, Signal

from core.dtypes.table import needs_ml_dtypes_import
from core.errors import DEBUG_VARIABLE, ContainerError, CoreError, ErrorReport, SourceError, describe_error
from core.files.file_change import ChangeReport
from core.files.memory import open_memory
from core.formats.entry import ContainerListing, TensorEntry, find_entry, shows_channel_lines
from core.formats.listing_control import ListingCancelled, ListingControl, controlled
from core.formats.reader import HeaderReader
from core.formats.registry import list_container
from core.formats.values import open_entry
from core.pipeline.pipeline import DecodeParams, Pipeline, PipelineResult
from core.pipeline.view_target import ViewTarget
from core.records.choice import RecordsChoice
from core.slicing.expr import parse_slice, stored_slice_text
from core.slicing.spec import SliceSpec
from inspector.state.background_task import BackgroundTask
from inspector.state.bookmarks import Bookmarks
from inspector.state.busy import ML_DTYPES_MESSAGE, BusyState
from inspector.state.cluster_connection import ClusterConnection
from inspector.state.commands import CommandStack, ValueCommand
from inspector.state.display_axes import DisplayAxes
from inspector.state.file_monitor import FileMonitor
from inspector.state.records_view import RecordsView
from inspector.state.snapshot import DocumentSnapshot, restore_snapshot, take_snapshot
from inspector.state.view_options import ViewOptionsModel

#: How long opening a file waits for its listing before showing the file as raw bytes and going
#: on listing in the background (seconds).
LISTING_GRACE_S = 0.3

#: How often a background listing reports the header bytes it has read (seconds).
PROGRESS_INTERVAL_S = 0.1


@dataclass(frozen=True)
class EntryFileView:
    """Where a container entry's view is when its file is remote: the files and the decode
    parameters that show it (:meth:`Document.entry_values`)."""

    paths: tuple[str, ...]
    params: DecodeParams


class Document(QObject):
    """Files + decode parameters + slice spec -> :class:`PipelineResult`.

    Signals
    -------
    filesChanged()
        Other files were opened (or the files were closed).
    resultChanged(object)
        A new good :class:`PipelineResult` (the view changed).
    errorChanged(object)
        The current :class:`core.errors.ErrorReport` (or ``None`` when the settings are valid
        again). Any exception of the engine is caught here and reported this way, never raised
        to a widget; while an error is shown, :attr:`result` stays the last good one.
    selectionChanged(object)
        The selected element's index into ``result.view`` (a tuple) or ``None``. After a new
        result the selection is kept if it still fits, else the first element is selected.
    paramsChanged(object)
        The new :class:`DecodeParams` (an edit, an undo or a redo).
    sliceChanged(object)
        The new :class:`SliceSpec` (an edit, an undo or a redo). It may be invalid for the
        current tensor; the engine's message then comes through :attr:`errorChanged` and the
        spec applies as soon as a new tensor makes it valid.
    historyChanged()
        The undo history changed (see :attr:`history`).
    containerChanged(object)
        The :class:`~core.formats.entry.ContainerListing` of the file just opened, or None
        (several files, or a raw file). Emitted on every open, before ``filesChanged``.
    filesChangedOnDisk(object)
        The open files changed on disk: a :class:`core.files.file_change.ChangeReport` from
        the one :class:`~inspector.state.file_monitor.FileMonitor`. When its
        ``invalidates_view`` is true every view of the files must be cleared until a reload.
    listingChanged()
        The background listing started, read more header bytes, or ended
        (:attr:`listing_running`, :attr:`listing_bytes`, :attr:`listing_status`, and the
        entries found so far: :attr:`listing_found`).
    closing()
        The files are about to be closed (:meth:`close_files`): every view lets go of the
        arrays it holds and stops work that reads them, now; ``filesChanged`` follows once the
        maps are closed.
    """

    filesChanged = Signal()
    containerChanged = Signal(object)
    resultChanged = Signal(object)
    errorChanged = Signal(object)
    selectionChanged = Signal(object)
    paramsChanged = Signal(object)
    sliceChanged = Signal(object)
    historyChanged = Signal()
    filesChangedOnDisk = Signal(object)
    listingChanged = Signal()
    closing = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        #: Where whole-data work (statistics, model scan, model comparison) runs: a Dask cluster
        #: while connected, else this machine (:mod:`inspector.state.cluster_connection`).
        self.cluster = ClusterConnection(self)
        self._pipeline: Pipeline | None = None
        self._paths: tuple[str, ...] = ()
        self._params = DecodeParams()
        self._spec = SliceSpec.full()
        self._unparsed_slice: str | None = None  # slice text from outside that did not parse
        self._result: PipelineResult | None = None
        self._result_current = False  # the result is the view of the current files and settings
        self._error: ErrorReport | None = None
        self._exception: BaseException | None = None
        self._selection: tuple[int, ...] | None = None
        self._container: ContainerListing | None = None
        self._container_error: ErrorReport | None = None
        self._listing_task: BackgroundTask | None = None  # the current background listing
        self._listing_bytes = 0
        self._listing_status = ""
        self._listing_found: ContainerListing | None = None  # entries found by the running listing
        self._listing_params: DecodeParams | None = None  # the params the file was opened with
        self._display_axes = DisplayAxes(self)
        self._display_axes.changed.connect(self._selection_follows_plane)
        self._history = CommandStack(on_change=self.historyChanged.emit)
        self._view_options = ViewOptionsModel(self._display_axes, self._history, self)
        self._busy = BusyState(self)  # what the window is busy with (the status bar shows it)
        self._shown_paths: tuple[str, ...] = ()
        self._views_cleared_by: ChangeReport | None = None
        self._bookmarks = Bookmarks(self)  # follows filesChanged: connected before any view
        self._records = RecordsView(lambda: self.file_size(0) if self._pipeline is not None else None, self)
        self._records_of_entry = None  # the records a container entry showed (choose_tensor)
        self.filesChanged.connect(self._records.files_changed)  # before any view, like the bookmarks
        # The one change detector (and the per-event SIGBUS guard, core/files/shrink_guard.py).
        self._file_monitor = FileMonitor(self)
        self._file_monitor.changed.connect(self._on_files_changed_on_disk)

    # ------------------------------------------------------------------ read-only state
    @property
    def paths(self) -> tuple[str, ...]:
        return self._paths

    @property
    def pipeline(self) -> Pipeline | None:
        return self._pipeline

    @property
    def on_disk(self) -> bool:
        """Whether the open source is files (False: objects in memory, or nothing open); only
        files are remembered in the settings."""
        return self._pipeline is not None and self._pipeline.source.on_disk

    @property
    def by_name(self) -> bool:
        """Whether the open source can be opened again by its names: files on disk, or URLs
        (sessions and guesses name them; objects in memory have no name to open)."""
        return self.on_disk or self.remote

    @property
    def remote(self) -> bool:
        """Whether the open source is remote objects (URLs: remembered by URL, never watched)."""
        return self._pipeline is not None and self._pipeline.source.remote

    def view_target(self) -> ViewTarget | None:
        """What opens this view in another process (a cluster worker): the files by name, the
        parameters and the slice; None for objects in memory or nothing open."""
        if self._pipeline is None or self._result is None or not self.by_name:
            return None
        return ViewTarget(tuple(self._paths), self._params, self._spec)

    def remote_transfer(self):
        """The block cache's counters (:class:`core.files.block_cache.Transfer`) while remote
        files are open, else None."""
        if not self.remote:
            return None
        return self._pipeline.source.transfer()

    @property
    def file_monitor(self) -> FileMonitor:
        """The one detector of changes on disk (its report reaches :attr:`filesChangedOnDisk`)."""
        return self._file_monitor

    @property
    def params(self) -> DecodeParams:
        return self._params

    @property
    def slice_spec(self) -> SliceSpec:
        """The slice applied to the tensor (``SliceSpec.full()``: the whole tensor)."""
        return self._spec

    @property
    def slice_text(self) -> str:
        """:attr:`slice_spec` as an expression (``""`` for the whole tensor), for settings and
        code snippets; the :attr:`unparsed_slice_text` while there is one."""
        if self._unparsed_slice is not None:
            return self._unparsed_slice
        return stored_slice_text(self._spec)

    @property
    def unparsed_slice_text(self) -> str | None:
        """Slice text given to :meth:`open_files` that does not parse (nothing is decoded until
        a valid spec is set), else None."""
        return self._unparsed_slice

    @property
    def display_axes(self) -> DisplayAxes:
        """Which plane of the view is shown; reset here (only) when the view's shape changes."""
        return self._display_axes

    @property
    def busy(self) -> BusyState:
        """The window's busy state (:mod:`inspector.state.busy`): work over 100 ms says so."""
        return self._busy

    @property
    def view_options(self) -> ViewOptionsModel:
        """How the views show the view: every display choice; fitted here (only) when a new
        result arrives."""
        return self._view_options

    @property
    def shown_paths(self) -> tuple[str, ...]:
        """The files whose view the views show: those of the last good result; ``()`` before
        any, after closing, and once a change on disk cleared the views. Files just opened that
        cannot be decoded yet are :attr:`paths`, not these."""
        return self._shown_paths

    @property
    def views_cleared_by(self) -> ChangeReport | None:
        """The change on disk that cleared every view (until the files are reloaded, opened or
        closed), else None."""
        return self._views_cleared_by

    @property
    def bookmarks(self) -> Bookmarks:
        """The named elements, regions and byte ranges of the open files."""
        return self._bookmarks

    @property
    def records(self) -> RecordsView:
        """The record layout shown over the first file, if any (:mod:`inspector.state.records_view`)."""
        return self._records

    @property
    def history(self) -> CommandStack:
        """Decode and slice edits as undoable commands."""
        return self._history

    @property
    def result(self) -> PipelineResult | None:
        """The last good result (kept while the current settings are invalid)."""
        return self._result

    @property
    def result_is_current(self) -> bool:
        """True when :attr:`result` is the view of the current files, decode parameters and
        slice; False while an invalid edit keeps the last good view (or files opened cannot be
        decoded yet), after the files changed on disk, and when there is no result. What
        claims to be "the current view" (export) must check it."""
        return self._result is not None and self._result_current

    def check_result_is_current(self) -> PipelineResult:
        """:attr:`result` when it is the current view, for whatever claims to describe it
        (copy as code, a comparison's code).

        Raises
        ------
        SourceError
            No file is open (``field="files"``).
        CoreError
            The current settings are invalid: the exception behind :attr:`error` (its message is
            the one the window shows), or, when there is none (the files changed on disk), one
            saying so.
        """
        if self._pipeline is None or (self._result is None and self._error is None):
            raise SourceError("No file is open (open a file first)", field="files")
        if self.result_is_current:
            return self._result
        if isinstance(self._exception, CoreError):
            raise self._exception
        why = self._error.message if self._error is not None else "the view is not computed yet"
        raise CoreError(f"the view on screen is not that of the current settings: {why}")

    @property
    def error(self) -> ErrorReport | None:
        """What is wrong with the current settings (:func:`core.errors.describe_error`), or None."""
        return self._error

    @property
    def exception(self) -> BaseException | None:
        """The exception behind :attr:`error` (for logs and tests), or None."""
        return self._exception

    @property
    def selection(self) -> tuple[int, ...] | None:
        return self._selection

    @property
    def container(self) -> ContainerListing | None:
        """The tensors of the open file when it is a container, else None."""
        return self._container

    @property
    def container_error(self) -> ErrorReport | None:
        """Why the open file, which claims to be a container, could not be listed (it is then
        shown as raw bytes), else None."""
        return self._container_error

    @property
    def listing_running(self) -> bool:
        """Whether the open file's listing still runs in the background (entries not known yet)."""
        return self._listing_task is not None

    @property
    def listing_found(self) -> ContainerListing | None:
        """While the background listing runs, the entries it has found so far (in their final
        order; metadata and problems come at the end), else None. :meth:`choose_tensor` takes
        them as it takes the container's."""
        return self._listing_found if self._listing_task is not None else None

    @property
    def listing_bytes(self) -> int:
        """Header bytes the running (or last) background listing has read."""
        return self._listing_bytes

    @property
    def listing_status(self) -> str:
        """How the last background listing ended: ``""`` (listed, or none ran) or ``"listing
        cancelled"``."""
        return self._listing_status

    def cancel_listing(self) -> None:
        """Stop the background listing at its next header read; the file stays shown as raw
        bytes and :attr:`listing_status` says ``"listing cancelled"``."""
        if self._listing_task is not None:
            self._listing_task.cancel()

    @property
    def current_entry(self) -> TensorEntry | None:
        """The container entry the decode parameters show: the one whose byte range
        (``offset`` and ``length``, or the ``elements`` of a batch) they select, else None (the
        user chose other bytes)."""
        if self._container is None:
            return None
        params = self._params
        for entry in self._container.entries:
            if not entry.in_listed_file or entry.strides != params.strides:
                continue
            if entry.elements is not None:
                if entry.elements == params.elements:
                    return entry
            elif params.elements is None and (entry.offset, entry.nbytes) == (params.offset, params.length):
                return entry
        return None

    def choose_tensor(self, name: str) -> None:
        """Show the container's tensor called ``name`` (one undoable edit of the parameters).

        A name that is not in the container, or an entry that is not a view of the open file
        (compressed, quantized, in another file: :meth:`entry_values`), is reported through
        :attr:`errorChanged` and changes nothing.
        """
        listing = self._container if self._container is not None else self.listing_found
        if listing is None:
            return
        try:
            entry = find_entry(listing, name)
            if entry.mappable and not entry.local_view:
                raise ContainerError(f"'{name}' lives in another file ({entry.file}): open it in a new "
                                     "window (entry_values)", field="tensor")
            params = entry.params(view_as=self._params.view_as)
        except CoreError as error:
            self._set_error(error)
            return
        if params != self._params:
            self._history.push(ValueCommand(f"choose tensor {name}", self._params, params,
                                            self._apply_params, None))
        self._records_follow_entry(entry)

    def _records_follow_entry(self, entry: TensorEntry) -> None:
        """An entry of records (an HDF5 compound dataset, a structured npz member) shows them
        with its layout over its bytes; choosing another entry ends records an entry started."""
        if entry.record_layout is not None:
            choice = RecordsChoice("numpy", entry.record_layout, header=entry.offset, length=entry.nbytes)
            try:
                self._records.choose(choice)
                self._records_of_entry = choice
            except CoreError as error:
                self._set_error(error)
        elif self._records_of_entry is not None and self._records.choice == self._records_of_entry:
            self._records.choose(None)
            self._records_of_entry = None

    def entry_values(self, entry: TensorEntry) -> tuple[np.ndarray | EntryFileView, str]:
        """The values of a container entry this document does not show by its parameters (not
        a :attr:`~core.formats.entry.TensorEntry.local_view`), and the name of a window
        showing them (``"q8 (Q8_0, dequantized)"``): a copy or computed value from its
        format's ``values`` hook (budget-checked), or a view of the other file it lives in; for
        a remote file, whose map holds no bytes, where that view is instead
        (:class:`EntryFileView`: a window opens the file with those parameters and reads only
        what it shows). Nothing of the document changes.

        Raises
        ------
        CoreError
            No container is open, the entry cannot be shown (its problem), or its values are
            refused (package missing, over the copy budget, a corrupt member...).
        """
        if self._pipeline is None or self._container is None:
            raise ContainerError("no container file is open (open one to read its tensors)", field="tensor")
        opened = open_entry(self._pipeline.source, self._container, entry)
        if opened.values is not None:
            opened.source.close()  # the memory source over the array: the array stays
            return opened.values.array, f"{entry.name} ({opened.how})"
        if not opened.owned:
            raise ContainerError(f"'{entry.name}' is a view of the open file: choose it to show it",
                                 field="tensor")
        if not opened.source.holds_data:
            paths = tuple(opened.source.paths)
            opened.source.close()
            return EntryFileView(paths, opened.params), f"{entry.name} ({opened.how})"
        with Pipeline(opened.source) as pipeline:  # the view keeps the other file's map alive
            return pipeline.run(opened.params).view, f"{entry.name} ({opened.how})"

    # ------------------------------------------------------------------ edits
    def open_files(
        self, paths: Sequence[str | os.PathLike], params: DecodeParams | None = None, slice_text: str = ""
    ) -> bool:
        """Map ``paths`` (read-only) and decode them with ``params``; False if they cannot be opened.

        A file that cannot be opened keeps the previous document on screen and reports why
        (usually a :class:`core.errors.SourceError`) through :attr:`errorChanged`. ``slice_text`` (e.g.
        restored from the settings) that does not parse is reported and kept as
        :attr:`unparsed_slice_text`; nothing is decoded until a valid spec is set. The edit
        history is cleared.
        """
        names = [os.fspath(p) for p in paths]
        return self._open_new(lambda: Pipeline(names), params, slice_text)

    def open_object(self, target: object, params: DecodeParams | None = None,
                    slice_text: str = "", name: str | None = None) -> bool:
        """Show an object in memory (bytes, a list of bytes, a numpy array, a tensor: see
        :mod:`core.files.memory`) as :meth:`open_files` shows files; False if it cannot be shown.

        :attr:`paths` are then the shown names (``<bytes>``, ``<numpy float32 (3, 4)>``...) and
        :attr:`on_disk` is False (``name`` names a single buffer instead). Errors are reported
        as for files, through :attr:`errorChanged`.
        """
        return self._open_new(lambda: Pipeline(open_memory(target, name=name)), params, slice_text)

    def _open_new(self, make_pipeline: Callable[[], Pipeline], params: DecodeParams | None,
                  slice_text: str) -> bool:
        """What :meth:`open_files` and :meth:`open_object` share: parse the slice, open, clear
        the history."""
        spec, unparsed, slice_error = SliceSpec.full(), None, None
        try:
            spec = parse_slice(slice_text)
        except Exception as error:  # the boundary: report, keep the text for the editor
            unparsed, slice_error = slice_text, error
        if not self._open(make_pipeline, params if params is not None else DecodeParams(), spec, unparsed):
            return False
        self._history.clear()
        if slice_error is not None:
            self._set_error(slice_error)
        return True

    def _open(self, make_pipeline: Callable[[], Pipeline], params: DecodeParams, spec: SliceSpec,
              unparsed_slice: str | None) -> bool:
        try:
            pipeline = make_pipeline()
        except Exception as error:  # the boundary: whatever failed, report it, keep the old view
            self._set_error(error)
            return False
        old_pipeline = self._pipeline
        self._pipeline = pipeline
        self._release(old_pipeline)
        self._file_monitor.watch(pipeline.source)
        self._paths = pipeline.source.paths
        self._container, self._container_error = self._start_listing(pipeline, params)
        first = None
        if self._container is not None and params == DecodeParams():
            first = next((e for e in self._container.entries if e.local_view), None)
            if first is not None:
                params = first.params()  # no settings for this file: show its first tensor
        if self._records_of_entry is not None:  # an entry's records are not another file's
            self._records_of_entry = None
            self._records.choose(None)
        self._params = params
        self._spec = spec
        self._unparsed_slice = unparsed_slice
        self._result, self._result_current = None, False
        self._selection = None
        self._views_cleared_by = None
        self.containerChanged.emit(self._container)
        self.filesChanged.emit()
        self.paramsChanged.emit(self._params)
        self.sliceChanged.emit(self._spec)
        self._rerun()
        if first is not None:
            self._records_follow_entry(first)
        return True

    def close_files(self) -> None:
        """Close the files (File > Close, the window closing): the one way to close.

        :attr:`closing` first (the views let go of their arrays and stop their work), then the
        history is cleared, the maps are closed, the error is cleared, the view options forget
        the data (:meth:`ViewOptionsModel.fit <inspector.state.view_options.ViewOptionsModel.fit>`)
        and ``containerChanged(None)``, ``filesChanged`` follow.
        """
        self.closing.emit()
        self._history.clear()
        self._file_monitor.watch(None)
        old_pipeline, self._pipeline = self._pipeline, None
        self._release(old_pipeline)
        self._paths = ()
        self._result, self._result_current = None, False
        self._selection = None
        self._shown_paths, self._views_cleared_by = (), None
        self._container, self._container_error = None, None
        self._view_options.fit(None)
        self._set_error(None)
        self.containerChanged.emit(None)
        self.filesChanged.emit()

    def snapshot(self) -> DocumentSnapshot:
        """What a session records of the document: files, parameters, tensor, slice, display
        axes, view options, selection and bookmarks (:mod:`inspector.state.snapshot`)."""
        return take_snapshot(self)

    def restore(self, snapshot: DocumentSnapshot) -> bool:
        """Show ``snapshot`` again (:func:`inspector.state.snapshot.restore_snapshot`: what it
        opens, what it leaves when it does not fit); False when its files cannot be opened."""
        return restore_snapshot(self, snapshot)

    def set_params(self, params: DecodeParams, *, field: str | None = None) -> None:
        """Adopt new decode parameters (live) as one undoable command.

        Invalid parameters report an error and keep the last good view. ``field`` names the
        line edit typed in: consecutive edits of one field merge into one undo step (until
        :meth:`end_typing`).
        """
        if params == self._params:
            return
        key = ("params", field) if field else None
        label = f"edit {field}" if field else "decode settings"
        self._history.push(ValueCommand(label, self._params, params, self._apply_params, key))

    def update_params(self, *, field: str | None = None, **changes: object) -> None:
        """Change some decode parameters, e.g. ``update_params(dtype="float32")`` (undoable)."""
        self.set_params(replace(self._params, **changes), field=field)

    def set_slice_spec(self, spec: SliceSpec, *, field: str | None = None, label: str = "edit slice") -> None:
        """Adopt a slice spec (live) as one undoable command.

        A spec the current tensor refuses is kept (the editor shows it) and reported through
        :attr:`errorChanged`; the last good view stays. ``field`` names the line edit typed in
        (``"expression"``, ``"mask:<name>"``): its consecutive edits merge into one undo step,
        and one that types back to where it started leaves no step.

        Raises
        ------
        TypeError
            When ``spec`` is not a :class:`SliceSpec`.
        """
        if not isinstance(spec, SliceSpec):
            raise TypeError(f"set_slice_spec takes a SliceSpec, not {type(spec).__name__}")
        if spec == self._spec and self._unparsed_slice is None:
            return
        key = ("slice", field) if field else None  # an equal spec replacing unparsed text: no step
        self._history.push(ValueCommand(label, self._spec, spec, self._apply_spec, key))

    def set_slice_text(self, text: str) -> bool:
        """Parse ``text`` and adopt it with :meth:`set_slice_spec`; False (and the error reported)
        when it does not parse. ``""`` means the whole tensor."""
        try:
            spec = parse_slice(text)
        except Exception as error:  # the boundary: report, keep the last good view
            self._set_error(error)
            return False
        self.set_slice_spec(spec)
        return True

    def set_view(self, params: DecodeParams, slice_text: str, selection: tuple[int, ...] | None = None,
                 *, label: str = "go to") -> bool:
        """Adopt decode parameters, slice and selected element together as ONE undoable edit
        (choosing a bookmark); undo restores all three. False (and the error reported) when
        ``slice_text`` does not parse. A ``selection`` the new view does not hold selects the
        first element, as after any new result."""
        try:
            spec = parse_slice(slice_text)
        except Exception as error:  # the boundary: report, keep the last good view
            self._set_error(error)
            return False
        old = (self._params, self._spec, self._selection)
        new = (params, spec, None if selection is None else tuple(int(i) for i in selection))
        if new != old or self._unparsed_slice is not None:
            self._history.push(ValueCommand(label, old, new, self._apply_view))
        return True

    def report_error(self, error: BaseException) -> None:
        """Report ``error`` as any invalid edit is reported (:attr:`errorChanged`); the view stays."""
        self._set_error(error)

    def end_typing(self) -> None:
        """The typing session in a field ended (Enter, focus left): the next edit is a new step."""
        self._history.end_merge()

    def undo(self) -> None:
        """Undo the last decode or slice edit."""
        self._history.undo()

    def redo(self) -> None:
        """Redo the last undone edit."""
        self._history.redo()

    def reload(self) -> None:
        """Re-map the same files (after they changed on disk) with the current settings; an
        object in memory is read again (a ``bytearray`` changed in place shows its new bytes).

        The history is kept: the edits still describe these files.
        """
        if self._pipeline is not None:
            source = self._pipeline.source
            self._open(lambda: Pipeline(source.reopen()), self._params, self._spec,
                       self._unparsed_slice)

    def select(self, index: tuple[int, ...] | None) -> None:
        """Select an element of ``result.view`` (``None`` clears the selection)."""
        index = None if index is None else tuple(int(i) for i in index)
        if index == self._selection:
            return
        self._selection = index
        self.selectionChanged.emit(index)

    def _selection_follows_plane(self) -> None:
        """The selection follows the plane on screen: when an axis slider (or the choice of
        axes) shows another plane, the element at the same row and column of the new plane
        becomes the selection everywhere (table, status bar, plot readout, Bytes, data
        inspector)."""
        selection, axes = self._selection, self._display_axes
        if selection is None or len(selection) != axes.ndim or axes.ndim < 2:
            return
        moved = list(selection)
        for axis in axes.fixed_axes():
            moved[axis] = axes.indices[axis]
        self.select(tuple(moved))

    def attach_view(self, view: QObject) -> None:
        """Make ``view`` follow the document: its ``_on_result_changed(result)``,
        ``_on_document_selection(index)``, ``_on_files_changed_on_disk(report)`` and
        ``_on_document_closing()`` are connected to the document's signals, and the current
        result and selection are shown at once."""
        self.resultChanged.connect(view._on_result_changed)
        self.selectionChanged.connect(view._on_document_selection)
        self.filesChangedOnDisk.connect(view._on_files_changed_on_disk)
        self.closing.connect(view._on_document_closing)
        if self._result is not None:
            view._on_result_changed(self._result)
            view._on_document_selection(self._selection)

    def file_size(self, file_index: int) -> int:
        """Size in bytes of open file ``file_index`` as opened (0 when no files are open)."""
        return self._pipeline.source.file_size(file_index) if self._pipeline is not None else 0

    def bytes_at(self, file_index: int, offset: int, nbytes: int) -> bytes:
        """Up to ``nbytes`` bytes of file ``file_index`` from ``offset`` (fewer at the end).

        The only way the GUI reads file bytes (hex view, data inspector): through the open
        source's map, as :meth:`core.files.sources.FileSource.bytes_at` (shrink-guarded, see
        :mod:`core.files.shrink_guard`). ``b""`` when no files are open.

        Raises
        ------
        IndexError
            ``file_index`` is not an open file.
        """
        if self._pipeline is None:
            return b""
        return self._pipeline.source.bytes_at(file_index, offset, nbytes)

    def changes_on_disk(self) -> ChangeReport | None:
        """Check the files now (:meth:`FileMonitor.peek`); the changes found, or None.

        A new report reaches :attr:`filesChangedOnDisk` from the event loop, not from inside
        the caller.
        """
        return self._file_monitor.peek()

    # ------------------------------------------------------------------ listing
    def _start_listing(self, pipeline: Pipeline, params: DecodeParams,
                       ) -> tuple[ContainerListing | None, ErrorReport | None]:
        """List ``pipeline``'s one file on a worker; its outcome if it ends within
        :data:`LISTING_GRACE_S`, else ``(None, None)`` and the listing goes on (module docstring)."""
        if len(pipeline.source.paths) != 1:
            return None, None
        outcome: list = []
        ended = threading.Event()
        counted = [0]  # header bytes read, written by the worker, read on progress signals
        last = [0.0, 0]
        controls: list[ListingControl] = []  # the worker's control: its entries found so far

        def work(progress, cancelled):  # on the worker: no widget, no signal of ours
            def report(nbytes: int) -> None:
                counted[0] = nbytes
                now = time.monotonic()
                if now - last[0] >= PROGRESS_INTERVAL_S:  # a few signals a second, however small the reads
                    last[0], last[1] = now, (last[1] + 1) % 1000
                    progress(last[1], 1000)  # a new step each time (the task throttles by steps)

            control = ListingControl(report, cancelled)
            controls.append(control)
            with controlled(control):
                found = _listing(pipeline)
            if control.cancelled:  # a parser that turned the cancel into a problem
                raise ListingCancelled()
            outcome.append(found)
            ended.set()
            return found

        task = BackgroundTask(work, self)
        task.start()
        if ended.wait(LISTING_GRACE_S):
            task.cancel()  # a no-op: it ended; its late outcome is dropped (not the current task)
            return outcome[0]
        self._listing_task, self._listing_bytes, self._listing_status = task, 0, ""
        self._listing_params = params
        path = pipeline.source.paths[0]
        task.progressChanged.connect(lambda _step, _total, t=task: self._on_listing_progress(
            t, counted[0], controls[0] if controls else None, path))
        task.succeeded.connect(lambda found, t=task: self._on_listing_ended(t, found))
        task.failed.connect(lambda error, t=task: self._on_listing_ended(t, (None, describe_error(error))))
        task.cancelled.connect(lambda t=task: self._on_listing_ended(t, None))
        self.listingChanged.emit()
        return None, None

    def _on_listing_progress(self, task: BackgroundTask, done: int, control: ListingControl | None,
                             path: str) -> None:
        if task is self._listing_task:
            self._listing_bytes = done
            if control is not None and control.found_format:
                known = self._listing_found
                if known is None or len(known.entries) != len(control.found) or known.format != control.found_format:
                    self._listing_found = ContainerListing(control.found_format, path,
                                                           control.found_so_far(), {}, ())
            self.listingChanged.emit()

    def _on_listing_ended(self, task: BackgroundTask,
                          found: tuple[ContainerListing | None, ErrorReport | None] | None) -> None:
        """The background listing ended (``found`` None: cancelled); dropped unless current."""
        if task is not self._listing_task:
            return
        self._listing_task, self._listing_found = None, None
        if found is None:
            self._listing_status = ListingCancelled().message
            self.listingChanged.emit()
            return
        self._listing_status = ""
        self._container, self._container_error = found
        untouched = self._params == self._listing_params == DecodeParams() and len(self._history) == 0
        self.listingChanged.emit()
        self.containerChanged.emit(self._container)
        if self._container is not None and untouched:
            first = next((e for e in self._container.entries if e.local_view), None)
            if first is not None:  # nothing chosen meanwhile: show its first tensor, as at once
                self._apply_params(first.params(), False)

    def _release(self, pipeline: Pipeline | None) -> None:
        """Close ``pipeline`` (no longer the document's): now, or when the listing that reads
        it has stopped (cancelled here)."""
        task, self._listing_task, self._listing_found = self._listing_task, None, None
        if task is not None:
            task.cancel()
            if pipeline is not None:
                task.finished.connect(pipeline.close)
        elif pipeline is not None:
            pipeline.close()
        if task is not None or self._listing_status:
            self._listing_status, self._listing_bytes = "", 0
            self.listingChanged.emit()

    # ------------------------------------------------------------------ internals
    def _on_files_changed_on_disk(self, report: ChangeReport) -> None:
        if report.invalidates_view:
            self._result_current = False  # the views are cleared: nothing current until a reload
            self._shown_paths, self._views_cleared_by = (), report
            self._view_options.fit(None)  # the views show nothing
            message = report.first.error_message
            if self._error is None or self._error.message != message:
                self._set_error(SourceError(message, field="files"))
        self.filesChangedOnDisk.emit(report)

    def _apply_params(self, params: DecodeParams, _redoing: bool) -> None:
        self._params = params
        self.paramsChanged.emit(params)
        self._rerun()

    def _apply_spec(self, spec: SliceSpec, _redoing: bool) -> None:
        self._spec = spec
        self._unparsed_slice = None
        self.sliceChanged.emit(spec)
        self._rerun()

    def _apply_view(self, view: tuple, _redoing: bool) -> None:
        params, spec, selection = view
        self._params, self._spec, self._unparsed_slice = params, spec, None
        self.paramsChanged.emit(params)
        self.sliceChanged.emit(spec)
        self._rerun()
        if selection is not None and self._result is not None and _index_in(selection, self._result.view.shape):
            self.select(selection)

    def _rerun(self) -> None:
        if self._pipeline is None or self._unparsed_slice is not None:
            return
        try:
            if needs_ml_dtypes_import(self._params.dtype):  # ~0.5 s holding the GIL: say so first
                with self._busy.during(ML_DTYPES_MESSAGE):
                    result = self._pipeline.run(self._params, self._spec)
            else:
                result = self._pipeline.run(self._params, self._spec)
        except Exception as error:  # the boundary: report, keep the last good view
            self._result_current = False
            self._set_error(error)
            return
        self._result, self._result_current = result, True
        self._shown_paths, self._views_cleared_by = self._paths, None
        view = result.view
        if self._display_axes.shape != view.shape:
            self._display_axes.reset(view.shape)  # the one place the display axes are reset
        # and the view options fitted (a signal with channels is drawn as lines: core's rule)
        self._view_options.fit(view.shape, view.dtype.kind == "c",
                               signal=view.ndim == 2 and shows_channel_lines(self.current_entry, view.shape))
        dropped = self._selection is not None and not _index_in(self._selection, view.shape)
        if dropped:
            self._selection = None
        self._set_error(None)
        self.resultChanged.emit(result)
        if self._selection is None and view.size:
            self.select((0,) * view.ndim)  # the hex view and inspector show where it comes from
        elif dropped:
            self.selectionChanged.emit(None)

    def _set_error(self, error: BaseException | None) -> None:
        """Report ``error`` (described by :func:`core.errors.describe_error`) or clear the report."""
        if error is None and self._error is None:
            return
        if error is not None and not isinstance(error, CoreError) and os.environ.get(DEBUG_VARIABLE):
            traceback.print_exception(type(error), error, error.__traceback__, file=sys.stderr)
        self._exception = error
        self._error = None if error is None else describe_error(error)
        self.errorChanged.emit(self._error)


def _listing(pipeline: Pipeline) -> tuple[ContainerListing | None, ErrorReport | None]:
    """The container listing of a one-file pipeline, or why it failed (then shown raw)."""
    if len(pipeline.source.paths) != 1:
        return None, None
    try:
        return list_container(HeaderReader(pipeline.source, 0)), None
    except Exception as error:  # the boundary: a corrupt container still opens as raw bytes
        return None, describe_error(error)


def _index_in(index: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    return len(index) == len(shape) and all(0 <= i < d for i, d in zip(index, shape))
