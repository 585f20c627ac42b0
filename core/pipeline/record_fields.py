"""One column of a record layout across records, as an array: what a plot of fields reads.

Rules
-----
- A column of a field that is not a bit field is a view of the files (no copy): the pipeline
  decodes the field as *the* tensor (:meth:`core.records.layout.RecordLayout.field_params`),
  an element column (``ch[2]``) takes its element on the last axes, and the records shown
  (:class:`~core.records.choice.RecordRows`) slice the first axis.
- A bit field's column is computed: its storage units of the records shown are read with
  ``pread`` (:meth:`~core.records.layout.RecordLayout.unit_params`) and the bits taken from
  them (:meth:`~core.records.layout.Field.bits_of`), at most :data:`MAX_COMPUTED_ROWS` records;
  more are refused with the fix (a records slice, or the unit's bytes as the tensor).
"""

from __future__ import annotations

import numpy as np

from core.errors import CoreError
from core.pipeline.params import DecodeParams
from core.pipeline.pipeline import Pipeline
from core.pipeline.result import PipelineResult
from core.records.choice import RecordRows
from core.records.layout import Column, RecordLayout

__all__ = ["MAX_COMPUTED_ROWS", "column_values"]

#: Most records a bit field's values are computed for at once.
MAX_COMPUTED_ROWS = 8_000_000


def column_values(pipeline: Pipeline, layout: RecordLayout, header: int, column: Column,
                  rows: RecordRows) -> tuple[np.ndarray, PipelineResult | None]:
    """``(values, result)``: the column across ``rows`` (module rules); ``result`` is the
    pipeline result the values view (None for a computed bit field), whose
    :meth:`~core.pipeline.result.PipelineResult.block_reader` reads them safely.

    Raises
    ------
    CoreError
        The decode's refusal, or a bit field over more than :data:`MAX_COMPUTED_ROWS` records.
    """
    leaf = column.field
    if leaf.is_bits:
        if rows.count > MAX_COMPUTED_ROWS:
            raise CoreError(f"the bit field {leaf.name!r} is computed record by record: {rows.count:,} records are "
                            f"more than the {MAX_COMPUTED_ROWS:,} computed at once (show fewer records, e.g. "
                            f"[0:{MAX_COMPUTED_ROWS}], or plot its unit's bytes as the tensor)", field="field")
        result = pipeline.run(DecodeParams(**layout.unit_params(leaf.name, header), extended_types=True))
        units = result.block_reader().read(result.view[rows.as_slice()])
        return leaf.bits_of(units), None
    result = pipeline.run(DecodeParams(**layout.field_params(leaf.name, header), extended_types=True))
    view = result.view[(slice(None),) + column.index] if column.index else result.view
    return view[rows.as_slice()], result
