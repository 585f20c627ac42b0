"""Statistics of the current view: counts, extremes, moments and a histogram.

The numbers come from :func:`core.scan.statistics.compute_statistics`, run on a worker thread by a
:class:`~inspector.state.background_task.BackgroundTask` over the view (a view of the read-only memory
map, read block by block: nothing is copied whole). The GUI thread only formats the result.

Rules
-----
* **When**: a view of at most ``auto_limit`` values (default 10**7, well under a second) is
  computed as soon as it appears; a bigger one waits for the *Compute* button, because two passes
  over gigabytes of memory-mapped data cost real time and disk reads nobody asked for.
* **Figures as they come**: once computing starts, the type and the count show at once, every
  other figure "computing…" (greyed) until the worker hands it over: the extremes of a big view
  first, then the counts and moments, the histogram last (``compute_statistics(partial=...)``;
  "histogram: computing…" above the plot until then).
* **Cache**: results are kept (LRU, ``cache_size`` entries) per key: the files as recorded at
  open (path, size, mtime, device, inode), the *resolved* decode parameters (``view_as``
  included), and the slice as applied, located on the tensor before any "view as" conversion
  (the sliced view's start in the tensor, shape, strides and dtype; not the slice text, which
  may be an invalid edit while the last good view is shown). Returning to an earlier setting
  shows its statistics without recomputing. A reload (``filesChanged``) or any change on disk
  (``filesChangedOnDisk``) empties the cache: a file rewritten in place with its mtime restored
  has the same identity but other bytes, so only a new computation is trusted.
* **Stale numbers**: a change on disk that leaves the view in place (the path now names another
  file) keeps the numbers, which still describe the mapped data, with ``(stale: …; File > Reload
  recomputes)`` next to them in the status line.
* **Staleness**: a new view cancels the computation of the old one (a result that still arrives
  is cached, never shown for the new view).
  Before a result is shown or a computation starts, ``source.check_unchanged()`` runs, and the
  worker runs it again before every block, so a file that changed on disk gives an error message
  (a shrink: see ``core/files/shrink_guard.py``). When the document reports a change that
  clears the views, the computation stops and the statistics are cleared with them.
* **Choices**: the quantity of complex data and the histogram's log scale are view options of
  the document (:class:`inspector.state.view_options.ViewOptions`); the panel shows them and
  writes the user's choices there.
* **Closing**: when the document closes its files (``closing``) the computation stops before
  the maps close.
* Floats: min / max ignore NaN, mean / std (population) are over the finite values; complex
  views show statistics of ``|z|``. See :mod:`core.scan.statistics` for every rule.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.errors import CoreError, describe_error
from core.pipeline.pipeline import PipelineResult
from core.scan.cluster import BlockRunner
from core.scan.statistics import COMPLEX_QUANTITIES, EXTREMES_FIRST_ABOVE, Statistics, compute_statistics
from inspector.panels.statistics_histogram import HistogramView
from inspector.panels.statistics_texts import FIELDS, PENDING, QUANTITY_AXIS, field_texts, pending_statistics
from inspector.state.background_task import BackgroundTask
from inspector.state.document import Document
from inspector.widgets import palette
from inspector.widgets.elided_label import let_long_words_overflow
from inspector.widgets.plain_text import make_plain, tooltip_text

__all__ = ["StatisticsPanel", "AUTO_COMPUTE_LIMIT"]

AUTO_COMPUTE_LIMIT = 10**7
"""Views with at most this many values are computed automatically."""


class _Interim(QObject):
    """Carries the figures known before the histogram from the worker to the GUI thread (a
    queued signal of an object living in the GUI thread; the worker touches no widget)."""

    figures = Signal(object, object)  # (cache key of the task, Statistics with complete=False)


class StatisticsPanel(QWidget):
    """Dock panel: statistics and histogram of ``document.result.view``.

    Parameters
    ----------
    document
        The open document; the panel follows its ``resultChanged`` / ``filesChanged`` signals.
    parent
        Optional parent widget.
    auto_limit
        Views of at most this many values are computed without pressing *Compute*.
    chunk_elements
        Elements per block read by the worker (smaller: finer progress and quicker cancel).
    bins
        Histogram bins.
    cache_size
        Statistics kept for earlier settings.
    extremes_first_above
        Views of more values get their extremes first (``compute_statistics``).

    Signals
    -------
    statisticsChanged(object)
        The :class:`core.scan.statistics.Statistics` now shown, or None.
    computationStarted(object)
        The :class:`~inspector.state.background_task.BackgroundTask` of a computation just started
        (a cache hit starts none).
    logScaleChanged(bool)
        The histogram's count axis became logarithmic (True) or linear (False): the view
        options changed.
    """

    statisticsChanged = Signal(object)
    computationStarted = Signal(object)
    logScaleChanged = Signal(bool)

    def __init__(self, document: Document, parent: QWidget | None = None, *,
                 auto_limit: int = AUTO_COMPUTE_LIMIT, chunk_elements: int = 1 << 22,
                 bins: int = 64, cache_size: int = 32,
                 extremes_first_above: int = EXTREMES_FIRST_ABOVE) -> None:
        super().__init__(parent)
        self._document = document
        self._auto_limit = auto_limit
        self._chunk_elements = chunk_elements
        self._bins = bins
        self._cache_size = cache_size
        self._extremes_first_above = extremes_first_above
        self._cache: OrderedDict[tuple, Statistics] = OrderedDict()
        self._task: BackgroundTask | None = None
        self._task_key: tuple | None = None
        self._statistics: Statistics | None = None
        self._generation = 0  # bumped on reload / change on disk: older entries never match
        self._stale_note = ""  # why the numbers shown may no longer match the file on disk
        self._build()
        options = document.view_options.value
        self.histogram_view.set_log_scale(options.histogram_log_scale)
        self._show_quantity(options.statistics_quantity)
        document.view_options.changed.connect(self._on_view_options)
        self._interim = _Interim(self)
        self._interim.figures.connect(self._on_interim_figures, Qt.QueuedConnection)
        document.resultChanged.connect(self._on_result_changed)
        document.filesChanged.connect(self._on_files_changed)
        document.filesChangedOnDisk.connect(self._on_files_changed_on_disk)
        document.closing.connect(self._drop_task)
        if document.result is not None:
            self._on_result_changed(document.result)
        else:
            self._set_status("No file open")

    # ------------------------------------------------------------------ public API
    @property
    def statistics(self) -> Statistics | None:
        """The statistics shown (of the current view), or None."""
        return self._statistics

    def is_running(self) -> bool:
        """Whether a computation for the current view is running."""
        return self._task is not None and self._task.is_running()

    def status_text(self) -> str:
        """The status line, e.g. ``"Computing… 40%"``, ``"Cancelled"``, ``"Error: …"``."""
        return self.status_label.text()

    def compute(self) -> BackgroundTask | None:
        """Show the statistics of the current view: from the cache, or computed on a worker.

        Returns
        -------
        BackgroundTask or None
            The started task; None when nothing was started (no view, cached, already
            running, or the file changed on disk: the status says which).
        """
        result = self._document.result
        pipeline = self._document.pipeline
        if result is None or pipeline is None:
            self._show(None)
            self._set_status("No file open")
            return None
        key = self._key(result)
        if self.is_running() and key == self._task_key:
            return None
        self._drop_task()
        try:
            pipeline.source.check_unchanged()
        except CoreError as error:
            self._show(None)
            self._set_status(f"Error: {describe_error(error).message}", error=True)
            return None
        if key in self._cache:
            self._cache.move_to_end(key)
            self._show(self._cache[key], result.view.dtype)
            self._set_status(f"{self._cache[key].count:,} values (cached)")
            return None
        view = result.view
        check = pipeline.source.check_unchanged
        chunk, bins, quantity = self._chunk_elements, self._bins, self.quantity
        extremes_first_above = self._extremes_first_above

        interim = self._interim
        cluster, target = self._document.cluster.cluster(), self._document.view_target()
        runner = BlockRunner(cluster, target) if cluster is not None and target is not None else None

        def work(progress, cancelled):
            # The figures are shown as soon as they are known: the extremes of a big view first,
            # then the counts and moments, the histogram when its pass ends.
            return compute_statistics(view, bins=bins, chunk_elements=chunk, progress=progress,
                                      cancelled=cancelled, check=check, reader=result.block_reader(),
                                      quantity=quantity, extremes_first_above=extremes_first_above,
                                      partial=lambda figures: interim.figures.emit(key, figures), runner=runner)

        task = BackgroundTask(work)
        task.setProperty("cache_key", key)  # kept by Qt: no Python cycle through a lambda
        task.progressChanged.connect(self._on_task_progress)
        task.succeeded.connect(self._on_task_succeeded)
        task.failed.connect(self._on_task_failed)
        task.cancelled.connect(self._on_task_cancelled)
        self._task, self._task_key = task, key
        self._show(None)
        # The type and the count are known before anything is read; the rest says "computing…".
        self._show_known(pending_statistics(view.dtype, view.size, quantity if view.dtype.kind == "c" else "value"),
                         view.dtype)
        self._set_status(f"Computing {view.size:,} values…")
        self.progress_bar.setValue(0)
        self._set_running(True)
        task.start()
        self._document.busy.follow(task, f"Computing the statistics of {view.size:,} values…")
        self.computationStarted.emit(task)
        return task

    @property
    def quantity(self) -> str:
        """What the statistics of complex data are of (:data:`~core.scan.statistics.COMPLEX_QUANTITIES`)."""
        return self._document.view_options.value.statistics_quantity

    def set_quantity(self, quantity: str) -> None:
        """Show the statistics of ``quantity`` of complex data (computed again, or from the cache).

        Raises
        ------
        ValueError
            ``quantity`` is not one of :data:`~core.scan.statistics.COMPLEX_QUANTITIES`.
        """
        if quantity not in COMPLEX_QUANTITIES:
            raise ValueError(f"quantity must be one of {COMPLEX_QUANTITIES}, got {quantity!r}")
        self._document.view_options.choose(statistics_quantity=quantity)

    @property
    def log_scale(self) -> bool:
        """Whether the histogram's counts are on a logarithmic axis (the view options')."""
        return self._document.view_options.value.histogram_log_scale

    def set_log_scale(self, enabled: bool) -> None:
        """Show the histogram's counts on a logarithmic (True) or linear axis (a view option)."""
        self._document.view_options.choose(histogram_log_scale=bool(enabled))

    def cancel(self) -> None:
        """Stop the running computation (the status then says "Cancelled")."""
        if self.is_running():
            self._task.cancel()
            self._set_status("Cancelling…")

    # ------------------------------------------------------------------ construction
    def _build(self) -> None:
        self.status_label = QLabel()
        make_plain(self.status_label)
        self.status_label.setObjectName("stats.status")
        self.status_label.setWordWrap(True)
        let_long_words_overflow(self.status_label)  # an error quoting a long path wraps, never widens
        self.status_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("stats.progress")
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setMaximumWidth(160)
        self.compute_button = QPushButton("Compute")
        self.compute_button.setObjectName("stats.compute")
        self.compute_button.setToolTip("Compute the statistics of the whole view")
        self.compute_button.clicked.connect(self.compute)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("stats.cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.quantity_combo = QComboBox()
        self.quantity_combo.setObjectName("stats.quantity")
        self.quantity_combo.addItems(COMPLEX_QUANTITIES)
        self.quantity_combo.setToolTip("Complex data: the statistics of |z|, the real or imaginary "
                                       "part, the phase (radians) or 20·log10|z|")
        self.quantity_combo.setVisible(False)
        self.quantity_combo.currentTextChanged.connect(self.set_quantity)

        header = QHBoxLayout()
        header.addWidget(self.status_label, 1)
        header.addWidget(self.quantity_combo)
        header.addWidget(self.progress_bar)
        header.addWidget(self.compute_button)
        header.addWidget(self.cancel_button)

        self._grid = QGridLayout()
        self._grid.setHorizontalSpacing(12)
        self._grid.setVerticalSpacing(2)
        self._name_labels: dict[str, QLabel] = {}
        self.value_labels: dict[str, QLabel] = {}
        for key, title in FIELDS:
            name = QLabel(f"{title}:")
            name.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
            value = QLabel("—")
            value.setObjectName(f"stats.value.{key}")
            value.setTextInteractionFlags(Qt.TextSelectableByMouse)
            self._name_labels[key] = name
            self.value_labels[key] = value
        self._field_columns = 0
        self._arrange_fields(2)

        self.histogram_view = HistogramView(self)
        self.histogram_view.logScaleChosen.connect(self.set_log_scale)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        # The panel may be narrower than two columns of fields: resizeEvent then makes them one.
        layout.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        layout.addLayout(header)
        layout.addLayout(self._grid)
        layout.addWidget(self.histogram_view, 1)
        self._set_running(False)

    # ------------------------------------------------------------------ field layout
    @property
    def field_columns(self) -> int:
        """How many label / value pairs share a row: 2, or 1 in a narrow panel."""
        return self._field_columns

    def _arrange_fields(self, columns: int) -> None:
        if columns == self._field_columns:
            return
        # FIELDS reads row by row in two columns; one column reads the left column, then the right.
        order = FIELDS if columns == 2 else FIELDS[0::2] + FIELDS[1::2]
        for i, (key, _title) in enumerate(order):
            row, column = divmod(i, columns)
            for label in (self._name_labels[key], self.value_labels[key]):
                self._grid.removeWidget(label)
            self._grid.addWidget(self._name_labels[key], row, 2 * column)
            self._grid.addWidget(self.value_labels[key], row, 2 * column + 1)
        self._grid.setColumnStretch(1, 1)
        self._grid.setColumnStretch(3, 1 if columns == 2 else 0)
        self._field_columns = columns

    def _pair_width(self) -> int:
        """Width of one label / value pair as the labels read now."""
        names = max(label.sizeHint().width() for label in self._name_labels.values())
        values = max(label.sizeHint().width() for label in self.value_labels.values())
        return names + self._grid.horizontalSpacing() + values

    def minimumSizeHint(self) -> QSize:
        """One column of fields: the panel never asks for the width of two."""
        hint = super().minimumSizeHint()
        margins = self.layout().contentsMargins()
        one_column = max(self._pair_width() + margins.left() + margins.right(),
                         self.compute_button.sizeHint().width() * 2)
        return QSize(min(hint.width(), one_column), hint.height())

    def resizeEvent(self, event) -> None:
        margins = self.layout().contentsMargins()
        two_columns = 2 * self._pair_width() + self._grid.horizontalSpacing() + margins.left() + margins.right()
        self._arrange_fields(2 if self.width() >= two_columns else 1)
        super().resizeEvent(event)

    # ------------------------------------------------------------------ document events
    def _show_quantity(self, quantity: str) -> None:
        self._shown_quantity = quantity
        self.quantity_combo.blockSignals(True)
        self.quantity_combo.setCurrentText(quantity)
        self.quantity_combo.blockSignals(False)

    def _on_view_options(self, options) -> None:
        if options.histogram_log_scale != self.histogram_view.log_scale:
            self.histogram_view.set_log_scale(options.histogram_log_scale)
            self.logScaleChanged.emit(options.histogram_log_scale)
        if options.statistics_quantity != self._shown_quantity:
            self._show_quantity(options.statistics_quantity)
            result = self._document.result
            if result is not None and result.view.dtype.kind == "c":
                self._on_result_changed(result)

    def _on_result_changed(self, result: PipelineResult) -> None:
        self.quantity_combo.setVisible(result.view.dtype.kind == "c")
        key = self._key(result)
        if self.is_running() and key == self._task_key:
            return
        self._drop_task()
        if key in self._cache or result.view.size <= self._auto_limit:
            self.compute()
            return
        self._show(None)
        self._set_status(f"The view has {result.view.size:,} values: press Compute "
                         "(it reads the whole view)")

    def _forget_cached(self) -> None:
        """Drop every cached result: the files may hold other bytes under the same identity
        (an in-place rewrite that restored the mtime), so only a new computation is trusted."""
        self._generation += 1
        self._cache.clear()
        self._stale_note = ""

    def _on_files_changed(self) -> None:
        self._forget_cached()
        if not self._document.paths:
            self._drop_task()
            self._show(None)
            self._set_status("No file open")

    def _on_files_changed_on_disk(self, report) -> None:
        self._forget_cached()
        if not report.invalidates_view and self._statistics is not None:
            # The map still holds the old data (e.g. the path now names another file): the
            # numbers describe it, not the file on disk.
            self._stale_note = f"stale: {report.message}; File > Reload recomputes"
            self._set_status(self.status_label.text())
        if report.invalidates_view:  # every view is cleared until a reload: so are these numbers
            self._drop_task()
            self._show(None)
            self._set_status(f"Error: {report.first.error_message}", error=True)

    # ------------------------------------------------------------------ task events
    def _on_task_progress(self, done: int, total: int) -> None:
        task = self.sender()
        if task is not self._task:
            return
        permille = 1000 if total <= 0 else int(done * 1000 // total)
        self.progress_bar.setValue(permille)
        if not task.cancel_requested():
            self._set_status(f"Computing {total // 2:,} values… {permille // 10}%")

    def _on_interim_figures(self, key: tuple, stats: Statistics) -> None:
        """Show the figures of a running computation before its histogram (labels only: the
        statistics shown, and the signal saying so, change when the whole result is in)."""
        if not self.is_running() or key != self._task_key:
            return
        result = self._document.result
        self._show_known(stats, result.view.dtype if result is not None else None)

    def _show_known(self, stats: Statistics | None, dtype: np.dtype | None) -> None:
        """The figures of ``stats`` (those still being computed: :data:`PENDING`, greyed)."""
        pending = f"QLabel {{ color: {palette.MUTED}; }}"
        for name, text in field_texts(stats, dtype).items():
            self.value_labels[name].setText(text)
            self.value_labels[name].setStyleSheet(pending if text == PENDING else "")
        self.histogram_view.set_note(
            f"histogram: {PENDING}" if stats and "histogram" in stats.pending else "", pending)

    def _on_task_succeeded(self, stats: Statistics) -> None:
        task = self.sender()
        # The key describes the data fully: the result is valid even if the task was dropped.
        self._remember(task.property("cache_key"), stats)
        if task is not self._task:
            return
        self._task = None
        self._set_running(False)
        result = self._document.result
        self._show(stats, result.view.dtype if result is not None else None)
        self._set_status(f"{stats.count:,} values")

    def _on_task_failed(self, error: BaseException) -> None:
        task = self.sender()
        if task is not self._task:
            return
        self._task = None
        self._set_running(False)
        self._show(None)
        self._set_status(f"Error: {describe_error(error).message}", error=True)

    def _on_task_cancelled(self) -> None:
        task = self.sender()
        if task is not self._task:
            return
        self._task = None
        self._set_running(False)
        self._show(None)
        self._set_status("Cancelled (press Compute to start again)")

    # ------------------------------------------------------------------ helpers
    def _key(self, result: PipelineResult) -> tuple:
        pipeline = self._document.pipeline
        files = () if pipeline is None else tuple(
            (f.path, f.size, f.mtime_ns, f.device, f.inode) for f in pipeline.source.files)
        # The slice as applied, located on the tensor *before* any "view as" conversion (whose
        # copy lives at a new address each run): where the sliced view starts in the tensor, its
        # shape and strides. Not the slice text: while the text being typed is invalid, the
        # document keeps the last good view, and equivalent texts ("", "[:]", "[...]") share
        # one entry. A slice that copied has no location: its spec stands for it.
        sliced = result.sliced if result.sliced is not None else result.view
        if result.tensor is not None and np.may_share_memory(sliced, result.tensor):
            where = ("at", _address(sliced) - _address(result.tensor), sliced.shape,
                     sliced.dtype.str, sliced.strides)
        else:
            where = ("spec", self._document.slice_spec, sliced.shape, sliced.dtype.str)
        view = result.view
        return (self._generation, files, result.params, where, view.shape, view.dtype.str,
                self._bins, self.quantity if view.dtype.kind == "c" else "value")

    def _remember(self, key: tuple, stats: Statistics) -> None:
        self._cache[key] = stats
        self._cache.move_to_end(key)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    def _drop_task(self) -> None:
        """Cancel the running task and forget it (its outcome is ignored)."""
        if self._task is not None:
            self._task.cancel()
        self._task = None
        self._task_key = None
        self._set_running(False)

    def _set_running(self, running: bool) -> None:
        self.progress_bar.setVisible(running)
        self.cancel_button.setVisible(running)
        self.compute_button.setEnabled(
            not running and self._document.result is not None and self._statistics is None)

    def _set_status(self, text: str, error: bool = False) -> None:
        if self._stale_note and self._statistics is not None and not error:
            if not text.endswith(f" ({self._stale_note})"):
                text = f"{text} ({self._stale_note})"
        self.status_label.setText(text)
        self.status_label.setToolTip(tooltip_text(text))  # the whole text where a long word is cut
        self.status_label.setStyleSheet(palette.inline_style("error" if error else None))

    def _show(self, stats: Statistics | None, dtype: np.dtype | None = None) -> None:
        changed = stats is not self._statistics
        if changed:
            self._stale_note = ""
        self._statistics = stats
        self._show_known(stats, dtype)
        self.histogram_view.show_statistics(
            stats, "value" if stats is None else QUANTITY_AXIS[stats.quantity])
        self.compute_button.setEnabled(not self.is_running() and stats is None
                                       and self._document.result is not None)
        if changed:
            self.statisticsChanged.emit(stats)


def _address(array: np.ndarray) -> int:
    return int(array.__array_interface__["data"][0])
