"""Statistics of each field of a file of records (docs/records.md, "Statistics per field").

Rules
-----
- **One result per field** (per leaf of the layout, :class:`core.records.layout.Field`): an
  array field's elements together (``ch:i16[4]``: all four channels of every record), as the
  field is when it is made *the* tensor (:meth:`RecordLayout.field_params`). For one element
  alone, make that element the tensor, or scan a layout that names it.
- **Over every whole record** after the header (:func:`core.records.placement.count_records`; trailing
  bytes are no record).
- **The figures are the tensor's.** A field that is not a bit field is the strided view of the
  file's bytes that :func:`core.records.placement.field_view` gives (its type and byte order, the record
  size as its stride), and its figures are :func:`core.scan.statistics.compute_statistics` of
  that view, read with ``pread`` (:class:`core.scan.blocks.BlockReader`): every figure equals
  those of the field shown as the tensor. A bit field's figures are those of its computed
  values (:meth:`Field.bits_of` of the view of its storage units, block by block:
  ``compute_statistics(compute=...)``), of the type :meth:`Field.value_dtype` says. An enum is
  its integers.
- **One pass per field**, one field after the other (each pass reads only the bytes its field's
  blocks span: a sparse field reads a fraction of the file, within the block reader's rule),
  each on the scan's threads. This is the price of equal figures: the mean and standard
  deviation are merged block by block, and only the tensor's own blocks give the tensor's
  digits. Memory: the blocks of one field at a time, whatever the number of records. No first
  read of the extremes (``compute_statistics``' "first figures first": no partial figures are
  given here, and that read would only cost time); the figures are the same without it.
- ``progress(done, total)``: ``total`` is twice the values of every field scanned (a scan's
  total), ``done`` grows field by field and never goes back. ``cancelled()`` is checked before
  each block (then :class:`~core.errors.Cancelled`); the source is checked before each block,
  so a file that changed raises its ``SourceError`` (why: :mod:`core.files.shrink_guard`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from core.errors import CoreError
from core.files.source import Source
from core.records.layout import Field, RecordLayout
from core.records.placement import field_view
from core.scan.blocks import BlockReader
from core.scan.statistics import Statistics, compute_statistics

__all__ = ["FieldStatistics", "field_statistics"]


@dataclass(frozen=True)
class FieldStatistics:
    """The figures of one field (module rules): ``field`` the leaf, ``shape`` the tensor it is
    (``(records,) + field shape``), ``statistics`` its figures (their ``dtype`` the values' type:
    a bit field's :meth:`Field.value_dtype`)."""

    field: Field
    shape: tuple[int, ...]
    statistics: Statistics

    @property
    def name(self) -> str:
        return self.field.name

    @property
    def computed(self) -> bool:
        """Whether the values are computed (a bit field), not a view of the file's bytes."""
        return self.field.is_bits


def field_statistics(
    source: Source,
    layout: RecordLayout,
    *,
    header: int = 0,
    fields: Sequence[str] | None = None,
    bins: int = 64,
    histogram: bool = True,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    workers: int | None = None,
    records: int | None = None,
) -> Iterator[FieldStatistics]:
    """Yield the :class:`FieldStatistics` of each field of the records of ``source``'s first file
    (module rules), in layout order (or the order of ``fields``), each as soon as it is known.

    Parameters
    ----------
    source
        The open file (``core.files.sources.open_source``); read with ``pread``, never written.
    layout
        The record layout.
    header
        Bytes before the first record.
    fields
        Names of the fields to scan (default: every field).
    bins, histogram, workers
        As :func:`core.scan.statistics.compute_statistics` (``histogram=False``: one read of each
        field, no histogram).
    progress, cancelled
        Module rules.
    records
        At most this many records from the first (the records of a container's dataset inside
        a larger file); None: every whole record to the end of the file.

    Raises
    ------
    CoreError
        ``field="field"``: a name that is no field, or named twice; the errors of
        :func:`~core.records.placement.count_records` (a header past the end, a record larger than the file):
        raised by this call, before anything is read. ``compute_statistics``' own (``bins < 1``):
        raised by the first field's scan.
    Cancelled
        ``cancelled()`` returned True (while the generator runs).
    SourceError
        The file changed or shrank during the scan.
    """
    chosen = _chosen_fields(layout, fields)
    data = source.data(0)
    views = [(leaf, field_view(layout, data, leaf.name, header)) for leaf in chosen]
    if records is not None:
        views = [(leaf, view[: max(int(records), 0)]) for leaf, view in views]
    return _scan(source, views, bins=bins, histogram=histogram, progress=progress, cancelled=cancelled,
                 workers=workers)


def _scan(source: Source, views: list[tuple[Field, np.ndarray]], *, bins: int, histogram: bool,
          progress: Callable[[int, int], None] | None, cancelled: Callable[[], bool] | None,
          workers: int | None) -> Iterator[FieldStatistics]:
    total = sum(2 * view.size for _leaf, view in views)
    reader = BlockReader(source.mapped_ranges())
    done = 0
    for leaf, view in views:
        report = None if progress is None else \
            (lambda step, _total, before=done: progress(before + step, total))
        # No partial figures are given, so no first read of the extremes (it only brings them sooner).
        statistics = compute_statistics(view, bins=bins, histogram=histogram, progress=report, cancelled=cancelled,
                                        check=source.check_unchanged, reader=reader, workers=workers,
                                        extremes_first_above=1 << 62, compute=leaf.bits_of if leaf.is_bits else None)
        done += 2 * view.size
        if progress is not None:
            progress(done, total)
        yield FieldStatistics(leaf, view.shape, statistics)


def _chosen_fields(layout: RecordLayout, names: Sequence[str] | None) -> list[Field]:
    """The leaves named by ``names`` (all of them for None), each once."""
    if names is None:
        return list(layout.fields)
    if isinstance(names, str):
        names = [names]
    chosen = [layout.field_named(name) for name in names]
    twice = sorted({leaf.name for leaf in chosen if chosen.count(leaf) > 1})
    if twice:
        raise CoreError(f"the field {twice[0]!r} is named twice (name each field once)", field="field")
    return chosen
