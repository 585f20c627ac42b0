"""A 1-d complex signal as two traces, I (real part) above Q (imaginary part), on one index axis.

Each trace is a :class:`~inspector.plot.line_plot.LinePlot` (peak-decimated, its overview read
through the block reader), so a 10**8-sample capture pans as fast as one line; the x ranges are
linked, so zooming one zooms both.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from core.scan.blocks import BlockReader
from inspector.plot.line_plot import LinePlot


class IQTracesPlot(QWidget):
    """I and Q traces of a 1-d complex array held by reference.

    Signals
    -------
    indexHovered(object)
        Index of the sample under the mouse in either trace, or None.
    indexClicked(int)
        Index of the sample the user clicked.
    """

    indexHovered = Signal(object)
    indexClicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.i_plot = LinePlot()
        self.q_plot = LinePlot()
        self.i_plot.graphics_view.setObjectName("plot.iTrace")
        self.q_plot.graphics_view.setObjectName("plot.qTrace")
        for plot, name in ((self.i_plot, "plot.iOverviewStatus"), (self.q_plot, "plot.qOverviewStatus")):
            status = plot.findChild(QLabel, "plot.overviewStatus")
            if status is not None:
                status.setObjectName(name)  # one name per widget in the window
        self.i_plot.plot_item.setLabel("left", "I (real)")
        self.q_plot.plot_item.setLabel("left", "Q (imaginary)")
        self.q_plot.plot_item.setXLink(self.i_plot.plot_item)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.i_plot, 1)
        layout.addWidget(self.q_plot, 1)
        for plot in (self.i_plot, self.q_plot):
            plot.indexHovered.connect(self.indexHovered)
            plot.indexClicked.connect(self.indexClicked)

    def set_values(self, values: np.ndarray | None, keep_view: bool = False,
                   block_reader: Callable[[], BlockReader] | None = None) -> None:
        """Show the 1-d complex ``values`` (None clears); arguments as :meth:`LinePlot.set_values`.

        Raises
        ------
        ValueError
            If ``values`` is not 1-d.
        TypeError
            If ``values`` is not complex.
        """
        if values is not None and values.dtype.kind != "c":
            raise TypeError(f"I and Q traces need complex values, got dtype {values.dtype}")
        self.i_plot.set_values(values, "re", keep_view=keep_view, block_reader=block_reader)
        self.q_plot.set_values(values, "im", keep_view=keep_view, block_reader=block_reader)

    def clear(self) -> None:
        self.set_values(None)

    def mark(self, index: int | None) -> None:
        self.i_plot.mark(index)
        self.q_plot.mark(index)

    def cancel_overview(self) -> None:
        self.i_plot.cancel_overview()
        self.q_plot.cancel_overview()
