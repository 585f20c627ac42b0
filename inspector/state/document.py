"""The open document: files, decode parameters, slice spec, result, selection, display axes, history.

The single source of truth of the GUI (napari's model/view split): widgets call the ``set_*``
methods and listen to the signals; they never talk to each other and keep no copy of this
state. All semantics live in :mod:`core`; this class only runs the pipeline and keeps the last
good result when a change is invalid, so a typo never blanks the screen.

Edits of the decode parameters and of the slice are commands on :attr:`Document.history`
(:mod:`inspector.state.commands`): :meth:`Document.undo` / :meth:`Document.redo` walk through
both kinds. Opening files clears the history.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer, Signal

from core.errors import CoreError, SourceError
from core.pipeline.pipeline import DecodeParams, Pipeline, PipelineResult
from core.slicing.expr import format_slice, parse_slice
from core.slicing.spec import SliceSpec
from inspector.state.commands import CommandStack, ValueCommand
from inspector.state.display_axes import DisplayAxes


class Document(QObject):
    """Files + decode parameters + slice spec -> :class:`PipelineResult`.

    Signals
    -------
    filesChanged()
        Other files were opened (or the files were closed).
    resultChanged(object)
        A new good :class:`PipelineResult` (the view changed).
    errorChanged(object)
        The current :class:`CoreError` (or ``None`` when the settings are valid again). While
        an error is shown, :attr:`result` stays the last good one.
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
    """

    filesChanged = Signal()
    resultChanged = Signal(object)
    errorChanged = Signal(object)
    selectionChanged = Signal(object)
    paramsChanged = Signal(object)
    sliceChanged = Signal(object)
    historyChanged = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pipeline: Pipeline | None = None
        self._paths: tuple[str, ...] = ()
        self._params = DecodeParams()
        self._spec = SliceSpec.full()
        self._unparsed_slice: str | None = None  # slice text from outside that did not parse
        self._result: PipelineResult | None = None
        self._error: CoreError | None = None
        self._selection: tuple[int, ...] | None = None
        self._display_axes = DisplayAxes(self)
        self._history = CommandStack(on_change=self.historyChanged.emit)
        # Widgets keep reading the last good view (paints, hover readouts, timers). If a file
        # shrinks under its map, those reads would hit pages past its end and kill the app with
        # SIGBUS. So before the GUI thread handles any event (an application event filter) and
        # on an idle poll, one fstat per file checks for a shrink; the pages past the new end
        # are then swapped for zero pages (FileSource.protect_shrunk) and the user is told.
        self._shrink_timer = QTimer(self)
        self._shrink_timer.setInterval(SHRINK_POLL_MS)
        self._shrink_timer.timeout.connect(self._on_shrink_poll)
        self._filtering = False

    # ------------------------------------------------------------------ read-only state
    @property
    def paths(self) -> tuple[str, ...]:
        return self._paths

    @property
    def pipeline(self) -> Pipeline | None:
        return self._pipeline

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
        return "" if self._spec == SliceSpec.full() else format_slice(self._spec)

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
    def history(self) -> CommandStack:
        """Decode and slice edits as undoable commands."""
        return self._history

    @property
    def result(self) -> PipelineResult | None:
        """The last good result (kept while the current settings are invalid)."""
        return self._result

    @property
    def error(self) -> CoreError | None:
        return self._error

    @property
    def selection(self) -> tuple[int, ...] | None:
        return self._selection

    # ------------------------------------------------------------------ edits
    def open_files(
        self, paths: Sequence[str | os.PathLike], params: DecodeParams | None = None, slice_text: str = ""
    ) -> bool:
        """Map ``paths`` (read-only) and decode them with ``params``; False if they cannot be opened.

        A file that cannot be opened keeps the previous document on screen and reports the
        :class:`core.errors.SourceError` through :attr:`errorChanged`. ``slice_text`` (e.g.
        restored from the settings) that does not parse is reported and kept as
        :attr:`unparsed_slice_text`; nothing is decoded until a valid spec is set. The edit
        history is cleared.
        """
        spec, unparsed, slice_error = SliceSpec.full(), None, None
        if slice_text.strip():
            try:
                spec = parse_slice(slice_text)
            except CoreError as error:
                unparsed, slice_error = slice_text, error
        if not self._open(paths, params if params is not None else DecodeParams(), spec, unparsed):
            return False
        self._history.clear()
        if slice_error is not None:
            self._set_error(slice_error)
        return True

    def _open(self, paths: Sequence[str | os.PathLike], params: DecodeParams, spec: SliceSpec,
              unparsed_slice: str | None) -> bool:
        try:
            pipeline = Pipeline([os.fspath(p) for p in paths])
        except CoreError as error:
            self._set_error(error)
            return False
        except OSError as error:  # belt and braces: the engine wraps these in SourceError
            self._set_error(CoreError(f"{error.strerror or error}: {error.filename}", field="files"))
            return False
        if self._pipeline is not None:
            self._pipeline.close()
        self._pipeline = pipeline
        self._shrink_timer.start()
        app = QCoreApplication.instance()
        if app is not None and not self._filtering:
            app.installEventFilter(self)
            self._filtering = True
        self._paths = tuple(os.fspath(p) for p in paths)
        self._params = params
        self._spec = spec
        self._unparsed_slice = unparsed_slice
        self._result = None
        self._selection = None
        self.filesChanged.emit()
        self.paramsChanged.emit(self._params)
        self.sliceChanged.emit(self._spec)
        self._rerun()
        return True

    def close_files(self) -> None:
        self._shrink_timer.stop()
        app = QCoreApplication.instance()
        if app is not None and self._filtering:
            app.removeEventFilter(self)
            self._filtering = False
        if self._pipeline is not None:
            self._pipeline.close()
        self._pipeline = None
        self._paths = ()
        self._result = None
        self._selection = None
        self.filesChanged.emit()

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
            spec = parse_slice(text) if text.strip() else SliceSpec.full()
        except CoreError as error:
            self._set_error(error)
            return False
        self.set_slice_spec(spec)
        return True

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
        """Re-map the same files (after they changed on disk) with the current settings.

        The history is kept: the edits still describe these files.
        """
        if self._paths:
            self._open(self._paths, self._params, self._spec, self._unparsed_slice)

    def select(self, index: tuple[int, ...] | None) -> None:
        """Select an element of ``result.view`` (``None`` clears the selection)."""
        index = None if index is None else tuple(int(i) for i in index)
        if index == self._selection:
            return
        self._selection = index
        self.selectionChanged.emit(index)

    def bytes_at(self, file_index: int, offset: int, nbytes: int) -> bytes:
        """Up to ``nbytes`` bytes of file ``file_index`` from ``offset`` (fewer at the end).

        The file size is checked first, so a file that shrank on disk raises
        :class:`core.errors.SourceError` instead of touching unmapped pages (SIGBUS).
        """
        if self._pipeline is None:
            return b""
        source = self._pipeline.source
        source.check_unchanged()
        data = source.data(file_index)
        return bytes(data[max(offset, 0) : max(offset, 0) + max(nbytes, 0)])

    # ------------------------------------------------------------------ internals
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Before every event of the GUI thread: protect the maps of files that shrank."""
        # While Python tears this object down, Qt may still call the filter: attributes can
        # already be gone then.
        if getattr(self, "_pipeline", None) is not None:
            self._on_shrink_poll()
        return False

    def _on_shrink_poll(self) -> None:
        if self._pipeline is None:
            return
        message = self._pipeline.source.protect_shrunk()
        if message and (self._error is None or self._error.message != message):
            self._set_error(SourceError(message, field="files"))

    def _apply_params(self, params: DecodeParams, _redoing: bool) -> None:
        self._params = params
        self.paramsChanged.emit(params)
        self._rerun()

    def _apply_spec(self, spec: SliceSpec, _redoing: bool) -> None:
        self._spec = spec
        self._unparsed_slice = None
        self.sliceChanged.emit(spec)
        self._rerun()

    def _rerun(self) -> None:
        if self._pipeline is None or self._unparsed_slice is not None:
            return
        spec = None if self._spec == SliceSpec.full() else self._spec
        try:
            result = self._pipeline.run(self._params, spec)
        except CoreError as error:
            self._set_error(error)
            return
        self._result = result
        view = result.view
        if self._display_axes.shape != view.shape:
            self._display_axes.reset(view.shape)  # the one place the display axes are reset
        dropped = self._selection is not None and not _index_in(self._selection, view.shape)
        if dropped:
            self._selection = None
        self._set_error(None)
        self.resultChanged.emit(result)
        if self._selection is None and view.size:
            self.select((0,) * view.ndim)  # the hex view and inspector show where it comes from
        elif dropped:
            self.selectionChanged.emit(None)

    def _set_error(self, error: CoreError | None) -> None:
        if error is None and self._error is None:
            return
        self._error = error
        self.errorChanged.emit(error)


#: How often the open files are checked for shrinking (see ``Document.__init__``).
SHRINK_POLL_MS = 250


def _index_in(index: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    return len(index) == len(shape) and all(0 <= i < d for i, d in zip(index, shape))
