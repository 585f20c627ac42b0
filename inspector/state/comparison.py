"""The comparison of the document's view (A) with a second tensor (B): the one owner of B's
files, B's decode parameters, the compare settings and the latest :class:`CompareResult`.

Rules
-----
- A is the document's view; the :class:`~inspector.state.document.Document` stays its owner.
  B is opened here through :class:`core.pipeline.pipeline.Pipeline` (read-only, as the
  document opens A) and decoded with A's decode parameters ("same parameters", the default) or
  with some of them overridden (:meth:`Comparison.set_b_overrides`, e.g. another dtype or
  offset: the other parameters still follow A's), always with A's slice.
- Every new result of A (a decode edit, a slice edit, a reload) re-runs B's pipeline with the
  same slice, then the comparison. A change of tolerances re-runs the comparison only.
- The comparison (:func:`core.compare.scanner.compare_sides`) runs on a
  :class:`~inspector.state.background_task.BackgroundTask`: the GUI never waits for it. A new
  run cancels the one before, whose outcome is then ignored. Both sides are checked for changes
  on disk before each block (``FileSource.check_unchanged``), so a file that changes during the
  comparison is reported, never read half old, half new. Between comparisons, B's files are
  watched by their own :class:`~inspector.state.file_monitor.FileMonitor` (A's by the
  document's): a change that invalidates a view clears the result and is reported.
- Anything that fails (B cannot be opened or decoded, the shapes do not pair, bad tolerances, a
  file changed) is reported through :attr:`Comparison.errorChanged` as an
  :class:`~core.errors.ErrorReport` prefixed with the side or step, and the result is cleared;
  nothing is raised to a widget.
- :attr:`Comparison.quantity` is what the table shows: ``"a"``, ``"b"``, ``"abs"`` (``|a - b|``),
  ``"rel"`` (``|a - b| / |b|``) or ``"ulp"``. The values of the elements on screen come from
  :meth:`Comparison.window` (:func:`core.compare.scanner.window_differences`), never from a
  whole-array computation.
- The engine's bound (docs/compare.md, "How much a comparison may do") is checked before a run
  starts: a comparison of more than ``WORK_LIMIT`` pairs is reported with its count and the fix
  (compare a slice), never started.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from PySide6.QtCore import QObject, Signal

from core.compare.result import CompareResult
from core.compare.rules import CompareRules, resolve_rules
from core.compare.scanner import Side, Window, check_compare_work, compare_sides, compare_work, window_differences
from core.compare.shift import ShiftSuggestion, suggest_shift
from core.compare.snippet import numpy_compare_snippet
from core.errors import CoreError, ErrorReport, SourceError, describe_error
from core.files.memory import open_memory
from core.pipeline.pipeline import DecodeParams, Pipeline, PipelineResult
from inspector.state.background_task import BackgroundTask
from inspector.state.document import Document
from inspector.state.file_monitor import FileMonitor

__all__ = ["QUANTITIES", "CompareSettings", "Comparison"]

#: What the table can show, with the label of each choice.
QUANTITIES: dict[str, str] = {"a": "A", "b": "B", "abs": "|A - B|", "rel": "relative", "ulp": "ULP"}
NAN_POLICIES = ("equal", "mismatch")
#: How the window's user lowers a comparison's work (the command line's --no-limit has none).
_LIMIT_FIX = ("compare a slice: type one in the Slice box, B gets the same one; "
              "tensor-inspect diff --no-limit compares it all")


@dataclass(frozen=True)
class CompareSettings:
    """The rule's settings (``None``: the type's default; see docs/compare.md)."""

    rtol: float | None = None
    atol: float | None = None
    ulp: int | None = None
    bitwise: bool = False
    nan_policy: str = "equal"
    #: Compare ``A[k]`` with ``B[k + shift]`` in flat C order (bytes misaligned by a header or a
    #: record); 0: element by element.
    shift: int = 0

    def rules(self, dtype_a, dtype_b) -> CompareRules:
        """The resolved rules for these types (:func:`core.compare.rules.resolve_rules`).

        Raises
        ------
        CoreError
            Bad or conflicting settings, types that cannot be compared.
        """
        return resolve_rules(dtype_a, dtype_b, rtol=self.rtol, atol=self.atol, ulp=self.ulp,
                             bitwise=self.bitwise, nan_policy=self.nan_policy)


class BytesOfB:
    """B's open files as a hex view reads them (``paths``, ``file_size``, ``bytes_at``), through
    B's source like the document's bytes (shrink-guarded, :mod:`core.files.shrink_guard`)."""

    def __init__(self, comparison: Comparison) -> None:
        self._comparison = comparison

    @property
    def paths(self) -> tuple[str, ...]:
        return self._comparison.paths

    def file_size(self, index: int) -> int:
        pipeline = self._comparison._pipeline
        return pipeline.source.file_size(index) if pipeline is not None else 0

    def bytes_at(self, index: int, offset: int, nbytes: int) -> bytes:
        pipeline = self._comparison._pipeline
        return pipeline.source.bytes_at(index, offset, nbytes) if pipeline is not None else b""


class Comparison(QObject):
    """Compare the document's view (A) with a second tensor (B) (rules: module docstring).

    Signals
    -------
    filesChanged()
        B's files were opened or closed.
    sideBChanged(object)
        B's new :class:`PipelineResult`, or None.
    resultChanged(object)
        A new :class:`CompareResult`, or None (no B, a run started, or it failed).
    errorChanged(object)
        The :class:`ErrorReport` of what failed, or None.
    progressChanged(int, int)
        ``(done, total)`` pairs of the running comparison.
    runningChanged(bool)
        A comparison started (True) or ended (False).
    settingsChanged()
        B's decode parameters, the rule's settings or the quantity shown changed.
    """

    filesChanged = Signal()
    sideBChanged = Signal(object)
    resultChanged = Signal(object)
    errorChanged = Signal(object)
    progressChanged = Signal("qlonglong", "qlonglong")
    runningChanged = Signal(bool)
    settingsChanged = Signal()

    LIST_LIMIT = 100

    def __init__(self, document: Document, parent: QObject | None = None) -> None:
        super().__init__(parent if parent is not None else document)
        self._document = document
        self._pipeline: Pipeline | None = None
        self._paths: tuple[str, ...] = ()
        self._b_overrides: dict[str, object] = {}  # {}: A's parameters
        self._settings = CompareSettings()
        self._quantity = "abs"
        self._result_b: PipelineResult | None = None
        self._result: CompareResult | None = None
        self._rules: CompareRules | None = None
        self._error: ErrorReport | None = None
        self._task: BackgroundTask | None = None
        self._bytes_of_b = BytesOfB(self)
        # B's own change detector (A's is the document's): the same rule, the same SIGBUS guard.
        self._file_monitor = FileMonitor(self)
        self._file_monitor.changed.connect(lambda report: self._on_changed_on_disk("B", report))
        document.resultChanged.connect(self._on_document_result)
        document.filesChanged.connect(self._cancel)
        document.filesChangedOnDisk.connect(lambda report: self._on_changed_on_disk("A", report))

    # ------------------------------------------------------------------ read-only state
    @property
    def document(self) -> Document:
        return self._document

    @property
    def paths(self) -> tuple[str, ...]:
        """B's files (``()`` when no B is open)."""
        return self._paths

    @property
    def is_open(self) -> bool:
        return self._pipeline is not None

    @property
    def b_overrides(self) -> dict[str, object]:
        """The decode parameters B does not share with A (``{}``: "the same parameters")."""
        return dict(self._b_overrides)

    @property
    def effective_b_params(self) -> DecodeParams:
        """The parameters B is decoded with: A's, with :attr:`b_overrides` applied."""
        return replace(self._document.params, **self._b_overrides)

    @property
    def settings(self) -> CompareSettings:
        return self._settings

    @property
    def quantity(self) -> str:
        """What the table shows (a key of :data:`QUANTITIES`)."""
        return self._quantity

    @property
    def result_b(self) -> PipelineResult | None:
        return self._result_b

    @property
    def result(self) -> CompareResult | None:
        """The last finished comparison of the current A and B, or None."""
        return self._result

    @property
    def rules(self) -> CompareRules | None:
        """The rules of the current settings for the current views, or None."""
        return self._rules

    @property
    def error(self) -> ErrorReport | None:
        return self._error

    @property
    def is_running(self) -> bool:
        return self._task is not None and self._task.is_running()

    @property
    def same_shape(self) -> bool:
        """True when A's view and the compared shape agree, so the table's cells of A are the
        compared positions (B equal to A, or broadcast to it)."""
        result_a = self._document.result
        return (self._result is not None and result_a is not None
                and tuple(result_a.view.shape) == self._result.shape)

    # ------------------------------------------------------------------ edits
    def open_b(self, paths: Sequence[str | os.PathLike], overrides: dict[str, object] | None = None) -> bool:
        """Open ``paths`` as B (read-only) and compare; False (and the error reported) when
        they cannot be opened. ``overrides``: as :meth:`set_b_overrides` (None: keep them)."""
        names = tuple(os.fspath(p) for p in paths)
        return self._open_b(lambda: Pipeline(list(names)), names, overrides)

    def open_b_values(self, values: np.ndarray, name: str, overrides: dict[str, object] | None = None) -> bool:
        """Compare with ``values`` in memory (a copy or computed tensor: a compressed member,
        dequantized weights), shown as B under ``name``; as :meth:`open_b` otherwise."""
        return self._open_b(lambda: Pipeline(open_memory(values, name=name)), (name,), overrides)

    def _open_b(self, make_pipeline: Callable[[], Pipeline], names: tuple[str, ...],
                overrides: dict[str, object] | None) -> bool:
        try:
            pipeline = make_pipeline()
        except Exception as error:  # the boundary: report, keep what was open
            self._report("B", error)
            return False
        self._retire_pipeline()
        self._pipeline = pipeline
        self._file_monitor.watch(pipeline.source)
        self._paths = names
        if overrides is not None:
            self._b_overrides = dict(overrides)
        self.filesChanged.emit()
        self.settingsChanged.emit()
        self._rerun_b()
        return True

    def close_b(self) -> None:
        """Stop comparing: close B's files and clear the result."""
        self._retire_pipeline()
        self._file_monitor.watch(None)
        self._pipeline, self._paths, self._result_b = None, (), None
        self._set_result(None)
        self._set_error(None)
        self.filesChanged.emit()
        self.sideBChanged.emit(None)

    def set_b_overrides(self, overrides: dict[str, object] | None) -> None:
        """Decode B with A's parameters but these fields (of :class:`DecodeParams`, e.g.
        ``{"dtype": "float16", "offset": 16}``; None or ``{}``: the same parameters), then
        compare again.

        Raises
        ------
        TypeError
            A name that is not a field of :class:`DecodeParams`.
        """
        overrides = dict(overrides or {})
        replace(DecodeParams(), **overrides)  # refuse unknown field names now
        if overrides == self._b_overrides:
            return
        self._b_overrides = overrides
        self.settingsChanged.emit()
        self._rerun_b()

    def update_settings(self, **changes: object) -> None:
        """Change the rule's settings (``rtol``, ``atol``, ``ulp``, ``bitwise``, ``nan_policy``,
        ``shift``) and compare again; the views are not decoded again."""
        settings = replace(self._settings, **changes)
        if settings == self._settings:
            return
        self._settings = settings
        self.settingsChanged.emit()
        self.compare()

    def set_quantity(self, quantity: str) -> None:
        """Show ``quantity`` (a key of :data:`QUANTITIES`) in the table.

        Raises
        ------
        ValueError
            An unknown quantity.
        """
        if quantity not in QUANTITIES:
            raise ValueError(f"unknown quantity {quantity!r} (use one of: {', '.join(QUANTITIES)})")
        if quantity != self._quantity:
            self._quantity = quantity
            self.settingsChanged.emit()

    def cancel(self) -> None:
        """Stop the running comparison (its result is not shown)."""
        self._cancel()

    # ------------------------------------------------------------------ reads for the views
    def suggest_shift(self) -> ShiftSuggestion:
        """The shift that best aligns B with A (:func:`core.compare.shift.suggest_shift`: a
        bounded sample of both views, read now); apply it with ``update_settings(shift=...)``.

        Raises
        ------
        CoreError, SourceError
            Nothing to compare, too few values, a view that cannot be read flat, a file that
            changed.
        """
        sides = self.sides()
        if sides is None:
            raise CoreError("nothing to compare: open B first (File > Compare with…)")
        return suggest_shift(*sides)

    def sides(self) -> tuple[Side, Side] | None:
        """A's and B's :class:`Side` (read with ``pread``, checked for changes), or None."""
        result_a, result_b = self._document.result, self._result_b
        pipeline_a = self._document.pipeline
        if result_a is None or result_b is None or pipeline_a is None or self._pipeline is None:
            return None
        return (Side.of(result_a, pipeline_a.source.check_unchanged),
                Side.of(result_b, self._pipeline.source.check_unchanged))

    def window(self, key: tuple) -> Window:
        """Both sides' values and their differences at ``key`` (a basic index of the compared
        shape), read now (:func:`core.compare.scanner.window_differences`).

        Raises
        ------
        CoreError, SourceError
            No comparison, a window too large, a file that changed.
        """
        sides = self.sides()
        if sides is None or self._rules is None:
            raise CoreError("no comparison to read (open B first)")
        for side in sides:
            side.check()
        return window_differences(sides[0], sides[1], self._rules, key, self._settings.shift)

    def index_b(self, index_a: tuple[int, ...]) -> tuple[int, ...] | None:
        """B's index of the element A's ``index_a`` meets, or None when A is broadcast (one
        element of A then meets several of B)."""
        result = self._result
        if result is None or tuple(result.shape) != tuple(result.shape_a) or len(index_a) != len(result.shape):
            return None
        shape_b = result.shape_b
        tail = index_a[len(index_a) - len(shape_b):] if shape_b else ()
        return tuple(0 if length == 1 else i for i, length in zip(tail, shape_b))

    def bytes_of_b(self, index_b: tuple[int, ...]) -> tuple[str, int, int] | None:
        """``(path, byte offset, nbytes)`` of B's element ``index_b`` (B's byte map), or None
        when B's view has no byte map (a slice that copied)."""
        located = self.file_bytes_of_b(index_b)
        return None if located is None else (self._paths[located[0]], located[1], located[2])

    def file_bytes_of_b(self, index_b: tuple[int, ...]) -> tuple[int, int, int] | None:
        """``(file index, byte offset, nbytes)`` of B's element ``index_b``, as
        :meth:`bytes_of_b` (the file index is into :attr:`paths`)."""
        if self._result_b is None:
            return None
        try:
            file_index, offset, nbytes = self._result_b.byte_offset(index_b)
        except Exception:  # no byte map or out of range: nothing to show
            return None
        return file_index, offset, nbytes

    @property
    def b_bytes(self) -> BytesOfB:
        """B's files as a byte reader for a hex view (follows B as it is reopened or closed)."""
        return self._bytes_of_b

    def snippet(self) -> str:
        """numpy code that reproduces the comparison (:mod:`core.compare.snippet`).

        Raises
        ------
        CoreError
            Nothing is compared, the current settings are invalid (the document's error), or a
            side no snippet writes.
        """
        document = self._document
        if (self._rules is None or self._result_b is None or self._pipeline is None
                or document.pipeline is None or document.result is None):
            raise CoreError("nothing is compared: open B first (File > Compare with…)")
        document.check_result_is_current()
        return numpy_compare_snippet((document.pipeline.source, document.result),
                                     (self._pipeline.source, self._result_b), self._rules)

    # ------------------------------------------------------------------ running
    def compare(self) -> None:
        """Compare the current views again (in the background)."""
        self._cancel()
        sides = self.sides()
        if sides is None:
            self._set_result(None)
            return
        try:
            self._rules = self._settings.rules(sides[0].view.dtype, sides[1].view.dtype)
            # the engine's bound, before anything is read (docs/compare.md, "How much ...")
            check_compare_work(compare_work(sides[0], sides[1], self._settings.shift), self.LIST_LIMIT,
                               limit_fix=_LIMIT_FIX)
        except Exception as error:  # the boundary: bad settings are reported
            self._rules = None
            self._set_result(None)
            self._report("Compare", error)
            return
        rules, limit, shift = self._rules, self.LIST_LIMIT, self._settings.shift
        side_a, side_b = sides

        def work(progress, cancelled):
            return compare_sides(side_a, side_b, rules, shift=shift, list_limit=limit, progress=progress,
                                 cancelled=cancelled, limit_fix=_LIMIT_FIX)

        task = BackgroundTask(work, self)
        self._task = task
        task.progressChanged.connect(self.progressChanged)
        task.succeeded.connect(lambda result, t=task: self._on_task_succeeded(t, result))
        task.failed.connect(lambda error, t=task: self._on_task_failed(t, error))
        task.finished.connect(lambda t=task: self._on_task_finished(t))
        self._set_result(None)
        self._set_error(None)
        task.start()
        self.runningChanged.emit(True)

    def _on_task_succeeded(self, task: BackgroundTask, result: CompareResult) -> None:
        if task is self._task:
            self._set_result(result)

    def _on_task_failed(self, task: BackgroundTask, error: BaseException) -> None:
        if task is self._task:
            self._report("Compare", error)

    def _on_task_finished(self, task: BackgroundTask) -> None:
        if task is self._task:
            self._task = None
            self.runningChanged.emit(False)

    def _cancel(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            self.runningChanged.emit(False)

    def _rerun_b(self) -> None:
        self._cancel()
        result_a = self._document.result
        if self._pipeline is None or result_a is None:
            return
        spec = self._document.slice_spec
        try:
            result_b = self._pipeline.run(self.effective_b_params, spec)
        except Exception as error:  # the boundary: B that fails to decode is reported
            self._result_b = None
            self._set_result(None)
            self._report("B", error)
            self.sideBChanged.emit(None)
            return
        self._result_b = result_b
        self.sideBChanged.emit(result_b)
        self.compare()

    def _on_document_result(self, _result) -> None:
        self._rerun_b()

    def _on_changed_on_disk(self, side: str, report) -> None:
        """A's or B's files changed on disk: a comparison of them would mix versions, so it
        stops and says why until A is reloaded or B opened again."""
        if not report.invalidates_view or self._pipeline is None:
            return
        self._cancel()
        self._set_result(None)
        self._report(side, SourceError(report.first.error_message, field="files"))

    def _retire_pipeline(self) -> None:
        """Close B's pipeline once no comparison can be reading it."""
        pipeline, task = self._pipeline, self._task
        self._cancel()
        if pipeline is None:
            return
        if task is not None and task.is_running():
            task.finished.connect(pipeline.close)
        else:
            pipeline.close()

    def _set_result(self, result: CompareResult | None) -> None:
        if result is None and self._result is None:
            return
        self._result = result
        self.resultChanged.emit(result)

    def _report(self, what: str, error: BaseException) -> None:
        report = describe_error(error)
        self._set_error(replace(report, message=f"{what}: {report.message}"))

    def _set_error(self, report: ErrorReport | None) -> None:
        if report == self._error:
            return
        self._error = report
        self.errorChanged.emit(report)
