"""Offset-shift mode: compare ``A[k]`` with ``B[k + shift]`` (flat C order), and suggest the shift.

When B's bytes are misaligned against A's by a header or a record, element ``k`` of A meets
element ``k + shift`` of B. :func:`core.compare.scanner.compare_sides` takes the shift (its
``shift`` argument); :func:`suggest_shift` proposes one.

Suggestion rule
---------------
Read the first ``sample + max_shift`` values of each side (flat C order, with ``pread``), as
float64 with NaN and infinities replaced by 0. For every shift ``s`` in ``[-max_shift,
max_shift]``, take the ``sample`` pairs ``A[k], B[k + s]`` from ``k = max(0, -s)`` (fewer when a
side is shorter; a shift leaving fewer than 8 pairs is skipped) and score them: the fraction of
exactly equal pairs first, then the Pearson correlation (0 when a side is constant). The best
score wins; ties go to the smaller ``|s|``, then to the positive one. A result with
``equal_fraction == 1`` is an exact realignment.

Bound: ``max_shift`` is a whole number from 0 to :data:`MAX_SHIFT` (65,536: each shift tried
scores ``sample`` pairs, so the search costs ``(2 * max_shift + 1) * sample`` operations); a
larger one is refused with that range before anything is read. Shifts that leave no pair (past
either side's length) are not tried.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.compare.elementwise import native_values
from core.compare.scanner import Side, flat_view
from core.errors import CoreError
from core.text.figures import format_correlation, format_percentage

__all__ = ["MAX_SHIFT", "ShiftSuggestion", "suggest_shift"]

_MIN_PAIRS = 8
#: Largest ``max_shift`` searched (module docstring, "Bound").
MAX_SHIFT = 1 << 16


@dataclass(frozen=True)
class ShiftSuggestion:
    """The best shift found, its score, and the range searched."""

    shift: int
    equal_fraction: float
    correlation: float
    pairs: int
    max_shift: int

    def describe(self) -> str:
        return (f"suggested shift {self.shift}: {format_percentage(self.equal_fraction)} of {self.pairs} sampled pairs equal, "
                f"correlation {format_correlation(self.correlation)} (searched -{self.max_shift}..{self.max_shift})")


def _head(side: Side, count: int, name: str) -> np.ndarray:
    flat = flat_view(side.view, name)[:count]
    if side.new_reader is not None:
        values = side.new_reader().read(flat)
    else:
        values = np.array(flat)
    with np.errstate(invalid="ignore", over="ignore"):
        wide = native_values(values).astype(np.float64)
    wide[~np.isfinite(wide)] = 0.0
    return wide


def _correlation(x: np.ndarray, y: np.ndarray) -> float:
    x, y = x - x.mean(), y - y.mean()
    norm = np.sqrt(np.dot(x, x) * np.dot(y, y))
    return float(np.dot(x, y) / norm) if norm > 0 else 0.0


def suggest_shift(side_a: Side, side_b: Side, *, max_shift: int = 1024, sample: int = 4096) -> ShiftSuggestion:
    """Suggest the shift that best aligns B with A (rule: module docstring).

    Raises
    ------
    CoreError
        ``max_shift`` not in ``0..MAX_SHIFT`` (``field="max_shift"``) or ``sample < 8``; no shift leaves 8 pairs; a view that cannot be read
        flat.
    SourceError
        A file shrank.
    """
    if isinstance(max_shift, bool) or int(max_shift) != max_shift or not 0 <= max_shift <= MAX_SHIFT:
        raise CoreError(f"max_shift {max_shift!r} is out of range: the shift search tries every shift from "
                        f"-max_shift to max_shift, so it takes a whole number from 0 to {MAX_SHIFT:,} "
                        "(give the shift itself when it is larger)", field="max_shift")
    max_shift = int(max_shift)
    if sample < _MIN_PAIRS:
        raise CoreError(f"the shift search needs sample >= {_MIN_PAIRS} (got {sample})")
    a = _head(side_a, sample + max_shift, "A")
    b = _head(side_b, sample + max_shift, "B")
    best = None
    reach = min(max_shift, max(a.size, b.size))  # a larger shift leaves no pair
    for s in sorted(range(-reach, reach + 1), key=lambda s: (abs(s), -s)):
        start = max(0, -s)
        count = min(sample, a.size - start, b.size - start - s)
        if count < _MIN_PAIRS:
            continue
        x, y = a[start:start + count], b[start + s:start + s + count]
        score = (float(np.count_nonzero(x == y)) / count, _correlation(x, y))
        if best is None or score > best[0]:
            best = (score, s, count)
    if best is None:
        raise CoreError(f"the sides are too short to suggest a shift (each needs at least {_MIN_PAIRS} values)")
    (equal, corr), s, count = best
    return ShiftSuggestion(s, equal, corr, count, max_shift)
