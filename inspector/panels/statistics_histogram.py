"""The Statistics panel's histogram: a step plot of the bins, a log-scale switch and a note.

Rules: the bars are the histogram of :class:`core.scan.statistics.Statistics` (its edges and
counts, as computed); the value axis is named after the statistics' quantity (``value``, ``|z|``,
``phase (rad)``...); counts are printed as they are (no SI prefix such as "x0.001"). On the
logarithmic count axis a bar starts at half a count, so a bin of one value is a visible bar and an
empty bin is none (log 0 does not exist). The note above the plot says when the histogram is
still being computed. With no histogram to draw (statistics not computed yet, e.g. a big view
waiting for *Compute*, or none of the values counted) the plot is hidden behind a placeholder,
so no axes of a previous view stay over an empty plot. Whether the axis is logarithmic is a view option
(:class:`inspector.state.view_options.ViewOptions`): the box says the user's choice
(:attr:`HistogramView.logScaleChosen`), the Statistics panel writes it there and draws what the
options say (:meth:`HistogramView.set_log_scale`).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from core.scan.statistics import Statistics
from inspector.widgets import palette
from inspector.widgets.plain_text import make_plain

__all__ = ["HistogramView", "LOG_FLOOR", "PLACEHOLDER", "EMPTY"]

#: Shown instead of the plot while the statistics of the view are not known.
PLACEHOLDER = "no histogram yet: the statistics of this view are not computed"
#: Shown instead of the plot when the view has no finite value to count.
EMPTY = "no histogram: the view has no finite value"

#: Where a bar starts on the logarithmic count axis (half a count).
LOG_FLOOR = 0.5
_LOG_FLOOR_EXPONENT = float(np.log10(LOG_FLOOR))


class HistogramView(QWidget):
    """The plot (``stats.histogram``), the *log scale* box (``stats.logScale``), the note
    (``stats.histogramNote``) and the placeholder shown instead of an empty plot
    (``stats.histogramPlaceholder``).

    Signals
    -------
    logScaleChosen(bool)
        The user switched the *log scale* box (the axis changes with :meth:`set_log_scale`).
    """

    logScaleChosen = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._statistics: Statistics | None = None
        self.plot = pg.PlotWidget()
        self.plot.setObjectName("stats.histogram")
        self.plot.setMinimumHeight(100)
        # Its preferred 480 px would make a scrolled dock scroll: it takes the height left over.
        self.plot.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        self.plot.setMenuEnabled(False)
        self.plot.setLabel("left", "count")
        self.plot.setLabel("bottom", "value")
        for side in ("left", "bottom"):  # counts and values as they are, never "(x0.001)"
            self.plot.getAxis(side).enableAutoSIPrefix(False)
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.histogram = pg.PlotDataItem(
            stepMode="center", fillLevel=0, fillOutline=True, pen=pg.mkPen(palette.PLOT_HISTOGRAM),
            brush=pg.mkBrush(74, 144, 217, 120))
        self.plot.addItem(self.histogram)
        self.log_scale_check = QCheckBox("log scale")
        self.log_scale_check.setObjectName("stats.logScale")
        self.log_scale_check.setToolTip("Counts on a logarithmic axis: rare values stay visible")
        self.log_scale_check.toggled.connect(self.logScaleChosen)
        self.note = QLabel()
        self.note.setObjectName("stats.histogramNote")
        self.note.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
        make_plain(self.note)
        self.placeholder = QLabel(PLACEHOLDER)
        self.placeholder.setObjectName("stats.histogramPlaceholder")
        self.placeholder.setAlignment(Qt.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setMinimumHeight(100)
        self.placeholder.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        self.placeholder.setStyleSheet(f"QLabel {{ color: {palette.MUTED}; }}")
        make_plain(self.placeholder)
        self.plot.setVisible(False)  # nothing to draw yet
        below = QHBoxLayout()
        below.addWidget(self.log_scale_check)
        below.addStretch(1)
        below.addWidget(self.note)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(below)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.placeholder, 1)

    @property
    def log_scale(self) -> bool:
        """Whether the counts are drawn on a logarithmic axis."""
        return bool(self.plot.getAxis("left").logMode)

    def set_log_scale(self, enabled: bool) -> None:
        """Draw the counts on a logarithmic (True) or linear axis, the box showing it (no signal)."""
        enabled = bool(enabled)
        self.log_scale_check.blockSignals(True)
        self.log_scale_check.setChecked(enabled)
        self.log_scale_check.blockSignals(False)
        if enabled == self.log_scale:
            return
        self.plot.setLogMode(y=enabled)
        self.histogram.setFillLevel(_LOG_FLOOR_EXPONENT if enabled else 0)
        self.show_statistics(self._statistics)

    def show_statistics(self, stats: Statistics | None, value_axis: str | None = None) -> None:
        """Draw the histogram of ``stats`` (none for None or an empty one); name the value axis."""
        self._statistics = stats
        if value_axis is not None:
            self.plot.setLabel("bottom", value_axis)
        if stats is None or not stats.histogram_counts:
            self.histogram.setData([], [])
            self.placeholder.setText(PLACEHOLDER if stats is None else EMPTY)
            self.plot.setVisible(False)
            self.placeholder.setVisible(True)
            return
        self.placeholder.setVisible(False)
        self.plot.setVisible(True)
        counts = np.asarray(stats.histogram_counts, dtype=np.float64)
        if self.log_scale:
            counts = np.where(counts > 0, counts, LOG_FLOOR)  # an empty bin: no bar, no log(0)
        self.histogram.setData(np.asarray(stats.histogram_edges), counts)

    def set_note(self, text: str, style: str = "") -> None:
        """The note above the plot (``"histogram: computing…"``, or empty)."""
        self.note.setText(text)
        self.note.setStyleSheet(style)
