"""Constellation of a 1-d complex signal: a scatter of Q against I, of a bounded sample.

The points are :func:`core.display.constellation.constellation_sample`'s (every point of a short
signal; evenly spread runs read through the block reader for a long one), and the note under the
plot says which: "all 1,000 points" or "a sample of 65,536 of 100,000,000 points".
I and Q share one scale (aspect locked), as a constellation is read.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from core.display.constellation import ConstellationSample, constellation_sample
from core.scan.blocks import BlockReader
from inspector.widgets import palette
from inspector.widgets.plain_text import make_plain


class ConstellationPlot(QWidget):
    """Scatter of I (x) against Q (y) of a 1-d complex array.

    Signals
    -------
    indexClicked(int)
        Index in the signal of the shown point nearest to a click.
    """

    indexClicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._sample: ConstellationSample | None = None
        self._plot_widget = pg.PlotWidget()
        self._plot_widget.setObjectName("plot.constellation")
        plot_item = self._plot_widget.getPlotItem()
        plot_item.setLabel("bottom", "I (real)")
        plot_item.setLabel("left", "Q (imaginary)")
        plot_item.showGrid(x=True, y=True, alpha=0.3)
        for side in ("left", "bottom"):
            plot_item.getAxis(side).enableAutoSIPrefix(False)
        plot_item.getViewBox().setAspectLocked(True)
        self.scatter = pg.ScatterPlotItem(size=3, pen=None, brush=pg.mkBrush(palette.PLOT_CURVE))
        plot_item.addItem(self.scatter)
        self.scatter.sigClicked.connect(self._on_points_clicked)
        self.note = QLabel()
        self.note.setObjectName("plot.constellationNote")
        make_plain(self.note)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._plot_widget, 1)
        layout.addWidget(self.note)

    @property
    def sample(self) -> ConstellationSample | None:
        """The points shown (indices in the signal, I, Q), or None."""
        return self._sample

    @property
    def plot_item(self) -> pg.PlotItem:
        return self._plot_widget.getPlotItem()

    def set_signal(self, signal: np.ndarray | None,
                   block_reader: Callable[[], BlockReader] | None = None) -> None:
        """Show the constellation of the 1-d complex ``signal`` (None clears).

        Raises
        ------
        ValueError, TypeError
            As :func:`core.display.constellation.constellation_sample`.
        core.errors.SourceError
            The file behind ``signal`` shrank while it was read.
        """
        if signal is None:
            self._sample = None
            self.scatter.setData([], [])
            self.note.setText("")
            return
        reader = None if block_reader is None else block_reader()
        sample = constellation_sample(signal, reader)
        self._sample = sample
        self.scatter.setData(sample.i, sample.q, data=sample.indices)
        self.plot_item.getViewBox().autoRange()
        shown, total = len(sample.indices), sample.total
        self.note.setText(f"a sample of {shown:,} of {total:,} points (evenly spread runs)"
                          if sample.is_sample else f"all {total:,} points")

    def clear(self) -> None:
        self.set_signal(None)

    def _on_points_clicked(self, _item, points, _event=None) -> None:
        if len(points):
            self.indexClicked.emit(int(points[0].data()))
