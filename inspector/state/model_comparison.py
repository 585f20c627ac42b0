"""Two whole models compared tensor by tensor (*Compare models*): the one owner of the two
paths, the matching rules, the pairs' results and the pair shown in the element-level compare.

Rules
-----
- A and B are container files or folders. Their tensors are
  :func:`core.models.inventory.inventory`'s, paired by :func:`core.models.matching.match_tensors`
  (by name with the rules given, a shared first component removed when that pairs more; or by
  order or shape) and compared by :func:`core.models.diff.diff_pairs` with the tolerances of
  the window's :class:`~inspector.state.comparison.Comparison` (so the pair table and the
  element-level compare judge alike), on a worker thread: rows arrive in the pairs' order as
  each pair finishes (:class:`~inspector.state.row_stream.StreamedRows`).
- The first divergent pair (:func:`core.models.diff.first_divergent`) is known as soon as the
  rows before it are: pairs are compared in order.
- :meth:`ModelComparison.open_pair` shows a pair in the element-level compare: A's tensor in the
  document, B's as the comparison's B (:func:`core.models.shown.tensor_form`: its file with the
  entry's parameters, or its values in memory; a file already open stays open and only its
  parameters change, one undoable edit of the document), so the heat map, the mismatch list and F8 work
  on it as on any comparison. A pair on one side only shows that side. The pair table stays
  as it is (*Back* returns to it).
- A new comparison or :meth:`ModelComparison.close` cancels the running one.
"""

from __future__ import annotations

import dataclasses
import os

from PySide6.QtCore import QObject, Signal

from core.errors import CoreError, describe_error
from core.models.diff import PairDiff, diff_pairs, first_divergent
from core.models.inventory import Inventory, PathProblem, inventory
from core.models.matching import Matching, MatchRules, match_tensors
from core.models.shown import tensor_form
from core.text.names import printable_name
from inspector.state.comparison import Comparison
from inspector.state.model_scan import same_files, show_in_document
from inspector.state.row_stream import StreamedRows

__all__ = ["ModelComparison"]


def _fields(params) -> dict[str, object]:
    """Every field of B's parameters, as overrides: B is decoded by its own, not A's."""
    return {f.name: getattr(params, f.name) for f in dataclasses.fields(params)}


class ModelComparison(StreamedRows):
    """The pairs of two models (module rules); the signals of
    :class:`~inspector.state.row_stream.StreamedRows`, with :class:`PairDiff` rows in the pairs'
    order and element pairs compared as progress, and:

    Signals
    -------
    opened()
        A comparison was started or closed (:attr:`is_open`, :attr:`paths` changed).
    pairOpened(object)
        The :class:`PairDiff` now shown in the element-level compare.
    """

    opened = Signal()
    pairOpened = Signal(object)

    def __init__(self, comparison: Comparison, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._comparison = comparison
        self._found: list[object] = []  # the sides' inventories, then the matching (worker-filled)
        self.paths: tuple[str, str] | None = None
        self.rules = MatchRules()
        self.rows: list[PairDiff] = []
        self.sides: tuple[Inventory, Inventory] | None = None
        self.notes: tuple[str, ...] = ()
        self.current: PairDiff | None = None

    @property
    def is_open(self) -> bool:
        return self.paths is not None

    @property
    def problems(self) -> tuple[tuple[str, PathProblem], ...]:
        """``(side, problem)`` of what each side skipped or could not read."""
        if self.sides is None:
            return ()
        return tuple((side, p) for side, found in zip("AB", self.sides) for p in found.errors + found.skipped)

    @property
    def first_divergent(self) -> PairDiff | None:
        """The first pair in order over tolerance among the rows so far (every row before it
        is known: pairs arrive in order)."""
        return first_divergent(self.rows)

    def open(self, path_a: str | os.PathLike, path_b: str | os.PathLike, rules: MatchRules | None = None) -> None:
        """Compare the models at ``path_a`` and ``path_b`` (a running comparison is cancelled)."""
        self.paths = (os.fspath(path_a), os.fspath(path_b))
        self.rules = rules or MatchRules()
        self.sides, self.notes, self.current = None, (), None
        self.opened.emit()
        settings = self._comparison.settings
        path_a, path_b, match_rules = self.paths[0], self.paths[1], self.rules
        found: list[object] = []
        self._found = found
        cluster = self._comparison.document.cluster.cluster()

        def produce(progress, cancelled):
            side_a = inventory([path_a], cancelled=cancelled)
            side_b = inventory([path_b], cancelled=cancelled)
            found.append((side_a, side_b))
            matching = match_tensors(side_a.tensors, side_b.tensors, match_rules)
            found.append(matching)
            return diff_pairs(matching, rtol=settings.rtol, atol=settings.atol, ulp=settings.ulp,
                              bitwise=settings.bitwise, nan_policy=settings.nan_policy,
                              progress=progress, cancelled=cancelled, cluster=cluster)

        self._run(produce)

    def close(self) -> None:
        """Stop and forget the comparison (the element-level compare stays as it is)."""
        self.paths, self.sides, self.notes, self.current = None, None, (), None
        self._clear()
        self.opened.emit()

    def open_pair(self, diff: PairDiff) -> None:
        """Show ``diff`` in the element-level compare (module rules); a side that cannot be
        opened is reported by the document or the comparison, as any file that cannot be."""
        document = self._comparison.document
        a, b = diff.pair.a, diff.pair.b
        try:
            form_a = None if a is None else tensor_form(a)
            form_b = None if b is None else tensor_form(b)
        except CoreError as error:
            self.error = describe_error(error).message
            self.stateChanged.emit()
            return
        shown = form_a or form_b
        show_in_document(document, shown, f"compare pair {printable_name(diff.pair.key)}")
        comparison = self._comparison
        if form_a is None or form_b is None:
            comparison.close_b()
        elif form_b.values is None and comparison.is_open and same_files(comparison.paths, form_b.paths):
            comparison.set_b_overrides(_fields(form_b.params))
        elif form_b.values is None:
            comparison.open_b(list(form_b.paths), overrides=_fields(form_b.params))
        else:
            self._comparison.open_b_values(form_b.values, form_b.title, overrides=_fields(form_b.params))
        self.current = diff
        self.pairOpened.emit(diff)

    def _rows_arrived(self) -> None:
        self._take_found()

    def _ended(self) -> None:
        self._take_found()

    def _take_found(self) -> None:
        found = self._found
        if found and self.sides is None:
            self.sides = found[0]
        if len(found) > 1 and isinstance(found[1], Matching) and not self.notes:
            self.notes = found[1].notes
