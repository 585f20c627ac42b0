"""What a comparison produces: figures, bounded mismatch lists, the error histogram, numpy's words.

Rules
-----
- ``compared``: pairs compared (the broadcast shape's size, or the overlap in shift mode).
- ``mismatched``: pairs the rule rejects; ``equal`` is ``mismatched == 0`` (an empty comparison
  is equal, like numpy's ``assert_allclose`` on two empty arrays).
- Error figures (max absolute / relative / ULP difference and where, mean and RMS absolute
  error, the histogram) are over the *finite pairs* (both values finite); ``None`` when there
  are none (NaN-only data). A maximum's index is the first one in C order.
- ``first``: the first mismatches in C order; ``worst``: the mismatches with the largest absolute
  difference (a pair with a NaN or an infinity first), ties in C order; both at most
  ``list_limit`` long.
- Histogram of the absolute error of finite pairs, by powers of two: ``exact`` pairs with error
  0, ``below_normal`` pairs with an error under the work type's smallest normal number, then
  ``counts[i]`` pairs with an error in ``[2**(exponents[i] - 1), 2**exponents[i])``.
- Categories: NaN, +Inf and -Inf counts of each side (of the values compared; a broadcast value
  counts once per pair it is in).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from core.compare.agreement import Agreement
from core.compare.rules import CompareRules
from core.dtypes.table import engine_name
from core.text.figures import format_difference, format_share
from core.text.number_format import format_value, json_value

__all__ = ["Categories", "CompareResult", "ErrorHistogram", "Extreme", "Mismatch"]


@dataclass(frozen=True)
class Mismatch:
    """One pair that does not match. ``flat`` is its position in C order of the compared shape;
    ``index_a`` / ``index_b`` its index in each side's view. ``a`` / ``b`` are Python numbers of
    each side's type; ``ulp`` is None for a pair with a NaN."""

    flat: int
    index_a: tuple[int, ...]
    index_b: tuple[int, ...]
    a: int | float
    b: int | float
    absolute: float
    relative: float
    ulp: int | None


@dataclass(frozen=True)
class Extreme:
    """A largest error and the first pair (C order) where it occurs."""

    value: float | int
    flat: int
    index_a: tuple[int, ...]
    index_b: tuple[int, ...]


@dataclass(frozen=True)
class Categories:
    """NaN and infinity counts of one side."""

    nan: int = 0
    posinf: int = 0
    neginf: int = 0


@dataclass(frozen=True)
class ErrorHistogram:
    """Absolute errors of finite pairs by powers of two (module docstring)."""

    exact: int = 0
    below_normal: int = 0
    smallest_normal: float = 0.0
    exponents: tuple[int, ...] = ()
    counts: tuple[int, ...] = ()

    def bins(self) -> list[tuple[float, float, int]]:
        """``(low, high, count)`` per bin, the exact and below-normal bins first."""
        out = [(0.0, 0.0, self.exact), (0.0, self.smallest_normal, self.below_normal)]
        out += [(math.ldexp(1.0, e - 1), math.ldexp(1.0, e), c) for e, c in zip(self.exponents, self.counts)]
        return out


@dataclass(frozen=True)
class CompareResult:
    """Everything one comparison found (module docstring). ``shape`` is the compared shape."""

    rules: CompareRules
    shape: tuple[int, ...]
    shape_a: tuple[int, ...]
    shape_b: tuple[int, ...]
    shift: int
    compared: int
    mismatched: int
    finite_pairs: int
    max_absolute: Extreme | None
    max_relative: Extreme | None
    max_ulp: Extreme | None
    mean_absolute: float | None
    rms: float | None
    categories_a: Categories
    categories_b: Categories
    first: tuple[Mismatch, ...]
    worst: tuple[Mismatch, ...]
    histogram: ErrorHistogram
    list_limit: int
    notes: tuple[str, ...] = field(default=())
    agreement: Agreement | None = None  # asked for (core.compare.agreement): cosine, SNR, quantiles...

    @property
    def equal(self) -> bool:
        """True when every pair matches (exit status 0 of ``tensor-inspect diff``)."""
        return self.mismatched == 0

    @property
    def percent(self) -> float:
        return 100.0 * self.mismatched / self.compared if self.compared else 0.0

    def summary(self) -> str:
        """numpy's words: ``Mismatched elements: 12 / 1000000 (0.0012%)``."""
        return f"Mismatched elements: {self.mismatched} / {self.compared} ({format_share(self.mismatched, self.compared)})"

    def value_text(self, value, side: str) -> str:
        """A value of side ``"a"`` or ``"b"`` as the table writes it."""
        return format_value(value, self.rules.dtype_a if side == "a" else self.rules.dtype_b)

    def lines(self) -> list[str]:
        """The readable report: rule, summary, figures, categories (no lists)."""
        out = [f"rule: {self.rules.describe()}"]
        if self.shift:
            out.append(f"shift: A[k] against B[k + {self.shift}] (flat C order)")
        out += list(self.notes)
        out.append(self.summary())
        if self.max_absolute is None:
            out.append("no pair of finite values: no error figures")
        else:
            out.append(f"Max absolute difference: {format_difference(self.max_absolute.value)} at A{_idx(self.max_absolute.index_a)}")
            out.append(f"Max relative difference: {format_difference(self.max_relative.value)} at A{_idx(self.max_relative.index_a)}")
            out.append(f"Max ULP difference: {self.max_ulp.value} at A{_idx(self.max_ulp.index_a)}")
            out.append(f"Mean absolute error: {format_difference(self.mean_absolute)}; RMS error: {format_difference(self.rms)} "
                       f"(over {self.finite_pairs} pairs of finite values)")
        for name, cat in (("A", self.categories_a), ("B", self.categories_b)):
            if cat.nan or cat.posinf or cat.neginf:
                out.append(f"{name}: {cat.nan} NaN, {cat.posinf} +Inf, {cat.neginf} -Inf")
        return out

    def mismatch_lines(self, entries: tuple[Mismatch, ...]) -> list[str]:
        """One line per entry: A's index (and B's when it differs), both values, the errors."""
        out = []
        for m in entries:
            where = f"A{_idx(m.index_a)}" + ("" if m.index_b == m.index_a else f" B{_idx(m.index_b)}")
            ulp = "-" if m.ulp is None else str(m.ulp)
            out.append(f"  {where}: a={self.value_text(m.a, 'a')} b={self.value_text(m.b, 'b')} "
                       f"abs={format_difference(m.absolute)} rel={format_difference(m.relative)} ulp={ulp}")
        return out

    def to_json(self) -> dict:
        """Every figure as JSON-ready values (NaN and infinities as strings)."""
        def num(x):
            if x is None or isinstance(x, int):
                return x
            return json_value(x, np.float64)

        def extreme(e: Extreme | None):
            if e is None:
                return None
            return {"value": num(e.value), "flat": e.flat, "index_a": list(e.index_a), "index_b": list(e.index_b)}

        def entry(m: Mismatch) -> dict:
            return {"flat": m.flat, "index_a": list(m.index_a), "index_b": list(m.index_b),
                    "a": json_value(m.a, self.rules.dtype_a), "b": json_value(m.b, self.rules.dtype_b),
                    "absolute": num(m.absolute), "relative": num(m.relative), "ulp": m.ulp}

        r = self.rules
        return {
            "equal": self.equal, "summary": self.summary(),
            "rule": {"text": r.describe(), "rtol": r.rtol, "atol": r.atol, "ulp": r.ulp, "bitwise": r.bitwise,
                     "nan_policy": "equal" if r.nan_equal else "mismatch", "tolerance_source": r.tolerance_source,
                     "dtype_a": engine_name(r.dtype_a), "dtype_b": engine_name(r.dtype_b),
                     "common_type": r.common_name},
            "shape": list(self.shape), "shape_a": list(self.shape_a), "shape_b": list(self.shape_b),
            "shift": self.shift, "compared": self.compared, "mismatched": self.mismatched,
            "percent": self.percent, "finite_pairs": self.finite_pairs,
            "max_absolute": extreme(self.max_absolute), "max_relative": extreme(self.max_relative),
            "max_ulp": extreme(self.max_ulp), "mean_absolute": num(self.mean_absolute), "rms": num(self.rms),
            "categories_a": vars(self.categories_a).copy(), "categories_b": vars(self.categories_b).copy(),
            "first": [entry(m) for m in self.first], "worst": [entry(m) for m in self.worst],
            "list_limit": self.list_limit,
            "histogram": {"exact": self.histogram.exact, "below_normal": self.histogram.below_normal,
                          "smallest_normal": self.histogram.smallest_normal,
                          "exponents": list(self.histogram.exponents), "counts": list(self.histogram.counts)},
            "notes": list(self.notes),
            **({} if self.agreement is None else {"agreement": self.agreement.to_json()}),
        }


def _idx(index: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(i) for i in index) + "]"
