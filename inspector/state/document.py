"""The open document: files, decode parameters, slice, the last good result and the selection.

The single source of truth of the GUI (napari's model/view split): widgets call the ``set_*``
methods and listen to the signals; they never talk to each other. All semantics live in
:mod:`core`; this class only runs the pipeline and keeps the last good result when a change is
invalid, so a typo never blanks the screen.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtCore import QObject, Signal

from core.errors import DEBUG_VARIABLE, CoreError, ErrorReport, SourceError, describe_error
from core.files.file_change import ChangeReport
from core.pipeline.pipeline import DecodeParams, Pipeline, PipelineResult
from inspector.state.file_monitor import FileMonitor


class Document(QObject):
    """Files + decode parameters + slice text -> :class:`PipelineResult`.

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
        The selected element's index into ``result.view`` (a tuple) or ``None``.
    filesChangedOnDisk(object)
        The open files changed on disk: a :class:`core.files.file_change.ChangeReport` from
        the one :class:`~inspector.state.file_monitor.FileMonitor`. When its
        ``invalidates_view`` is true every view of the files must be cleared until a reload.
    """

    filesChanged = Signal()
    resultChanged = Signal(object)
    errorChanged = Signal(object)
    selectionChanged = Signal(object)
    paramsChanged = Signal(object)
    sliceChanged = Signal(str)
    filesChangedOnDisk = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pipeline: Pipeline | None = None
        self._paths: tuple[str, ...] = ()
        self._params = DecodeParams()
        self._slice_text = ""
        self._slice_spec = None
        self._result: PipelineResult | None = None
        self._error: ErrorReport | None = None
        self._exception: BaseException | None = None
        self._selection: tuple[int, ...] | None = None
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
    def file_monitor(self) -> FileMonitor:
        """The one detector of changes on disk (its report reaches :attr:`filesChangedOnDisk`)."""
        return self._file_monitor

    @property
    def params(self) -> DecodeParams:
        return self._params

    @property
    def slice_text(self) -> str:
        return self._slice_text

    @property
    def result(self) -> PipelineResult | None:
        """The last good result (kept while the current settings are invalid)."""
        return self._result

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

    # ------------------------------------------------------------------ edits
    def open_files(
        self, paths: Sequence[str | os.PathLike], params: DecodeParams | None = None, slice_text: str = ""
    ) -> bool:
        """Map ``paths`` (read-only) and decode them with ``params``; False if they cannot be opened.

        A file that cannot be opened keeps the previous document on screen and reports why
        (usually a :class:`core.errors.SourceError`) through :attr:`errorChanged`.
        """
        try:
            pipeline = Pipeline([os.fspath(p) for p in paths])
        except Exception as error:  # the boundary: whatever failed, report it, keep the old view
            self._set_error(error)
            return False
        if self._pipeline is not None:
            self._pipeline.close()
        self._pipeline = pipeline
        self._file_monitor.watch(pipeline.source)
        self._paths = tuple(os.fspath(p) for p in paths)
        self._params = params if params is not None else DecodeParams()
        self._slice_text = slice_text
        self._slice_spec = None
        self._result = None
        self._selection = None
        self.filesChanged.emit()
        self.paramsChanged.emit(self._params)
        self.sliceChanged.emit(self._slice_text)
        self._slice_spec = self._parse_slice(slice_text)
        self._rerun()
        return True

    def close_files(self) -> None:
        self._file_monitor.watch(None)
        if self._pipeline is not None:
            self._pipeline.close()
        self._pipeline = None
        self._paths = ()
        self._result = None
        self._selection = None
        self.filesChanged.emit()

    def set_params(self, params: DecodeParams) -> None:
        """Adopt new decode parameters (live); invalid ones report an error and keep the view."""
        if params == self._params:
            return
        self._params = params
        self.paramsChanged.emit(params)
        self._rerun()

    def update_params(self, **changes: object) -> None:
        """Change some decode parameters, e.g. ``update_params(dtype="float32")``."""
        self.set_params(replace(self._params, **changes))

    def set_slice_text(self, text: str) -> None:
        """Adopt a slice expression (live); a syntax error reports and keeps the view."""
        if text == self._slice_text and self._error is None:
            return
        self._slice_text = text
        self.sliceChanged.emit(text)
        spec = self._parse_slice(text)
        if spec is _INVALID:
            return
        self._slice_spec = spec
        self._rerun()

    def reload(self) -> None:
        """Re-map the same files (after they changed on disk) with the current settings."""
        if self._paths:
            self.open_files(self._paths, self._params, self._slice_text)

    def select(self, index: tuple[int, ...] | None) -> None:
        """Select an element of ``result.view`` (``None`` clears the selection)."""
        index = None if index is None else tuple(int(i) for i in index)
        if index == self._selection:
            return
        self._selection = index
        self.selectionChanged.emit(index)

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

    # ------------------------------------------------------------------ internals
    def _on_files_changed_on_disk(self, report: ChangeReport) -> None:
        if report.invalidates_view:
            message = report.first.error_message
            if self._error is None or self._error.message != message:
                self._set_error(SourceError(message, field="files"))
        self.filesChangedOnDisk.emit(report)

    def _parse_slice(self, text: str):
        if not text.strip():
            return None
        from core.slicing.expr import parse_slice

        try:
            return parse_slice(text)
        except Exception as error:  # the boundary: report, keep the last good view
            self._set_error(error)
            return _INVALID

    def _rerun(self) -> None:
        if self._pipeline is None:
            return
        if self._slice_spec is _INVALID:
            return
        try:
            result = self._pipeline.run(self._params, self._slice_spec)
        except Exception as error:  # the boundary: report, keep the last good view
            self._set_error(error)
            return
        self._result = result
        if self._selection is not None and not _index_in(self._selection, result.view.shape):
            self._selection = None
            self.selectionChanged.emit(None)
        self._set_error(None)
        self.resultChanged.emit(result)

    def _set_error(self, error: BaseException | None) -> None:
        """Report ``error`` (described by :func:`core.errors.describe_error`) or clear the report."""
        if error is None and self._error is None:
            return
        if error is not None and not isinstance(error, CoreError) and os.environ.get(DEBUG_VARIABLE):
            traceback.print_exception(type(error), error, error.__traceback__, file=sys.stderr)
        self._exception = error
        self._error = None if error is None else describe_error(error)
        self.errorChanged.emit(self._error)


_INVALID = object()


def _index_in(index: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    return len(index) == len(shape) and all(0 <= i < d for i, d in zip(index, shape))
