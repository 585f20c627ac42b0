"""The plot of a records window: chosen columns across the records shown, overlaid.

Each column is an array from :func:`core.pipeline.record_fields.column_values` (a view of the
file for a plain field, computed for a bit field) drawn by one :class:`~inspector.plot.line_plot.LinePlot`
as its channels, so every curve keeps the line plot's rules on 10^8 records (its own min/max
overview, exact values zoomed in, reads with ``pread``). The legend names the columns. When the
document's records change (another header, slice or file) the same column names are drawn
again where the new layout still has them.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QVBoxLayout, QWidget

from core.errors import CoreError
from core.pipeline.record_fields import column_values
from inspector.plot.line_plot import LinePlot
from inspector.state.document import Document

__all__ = ["MAX_CURVES", "RecordsPlot"]

#: Most columns drawn at once.
MAX_CURVES = 8


class RecordsPlot(QWidget):
    """A line plot of record columns (module docstring)."""

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._document = document
        self._names: tuple[str, ...] = ()
        self.line_plot = LinePlot(self)
        self.line_plot.setObjectName("records.plot")
        self.line_plot.setMinimumHeight(160)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.line_plot)

    @property
    def names(self) -> tuple[str, ...]:
        """The columns drawn, in legend order."""
        return self._names

    def show_columns(self, columns: list) -> None:
        """Draw ``columns`` (of the document's records layout) across the records shown.

        Raises
        ------
        CoreError
            More than :data:`MAX_CURVES` columns, a column that cannot be read (a bit field of
            too many records), or no records.
        """
        records, pipeline = self._document.records, self._document.pipeline
        if records.layout is None or pipeline is None:
            raise CoreError("show records first", field="fields")
        if len(columns) > MAX_CURVES:
            raise CoreError(f"{len(columns)} columns chosen: at most {MAX_CURVES} are plotted together "
                            "(choose fewer)", field="field")
        arrays, readers = [], []
        for column in columns:
            values, result = column_values(pipeline, records.layout, records.header, column, records.rows)
            if values.dtype.kind not in "biuf":
                values = values.astype(np.float64)
            arrays.append(values)
            readers.append(result)
        viewing = next((r for r in readers if r is not None), None)
        self._names = tuple(c.name for c in columns)
        plot = self.line_plot
        plot.set_values(arrays[0], block_reader=None if viewing is None else viewing.block_reader,
                        channels=tuple(arrays[1:]), names=self._names if len(arrays) > 1 else ())
        plot.plot_item.setLabel("bottom", "record" if records.rows.every_record else "row of the records shown")
        plot.plot_item.setLabel("left", self._names[0] if len(self._names) == 1 else "value")

    def follow(self) -> None:
        """Draw the same columns again for the document's records now (module docstring)."""
        if not self._names:
            return
        layout = self._document.records.layout
        columns = {c.name: c for c in layout.columns()} if layout is not None else {}
        kept = [columns[n] for n in self._names if n in columns]
        try:
            if kept:
                self.show_columns(kept)
                return
        except CoreError:
            pass
        self.clear()

    def clear(self) -> None:
        self._names = ()
        self.line_plot.clear()
