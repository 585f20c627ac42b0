"""The Statistics panel's texts: each figure as the table would print it.

Min and max are values of the view, so they print as the table prints that value; counts carry
their share of all values, never rounded to 0% or 100% when they are neither
(:func:`core.text.figures.format_share`); moments have 7 significant digits
(:func:`core.text.figures.format_moment`); a figure that does not exist (no statistics, or the mean of no finite value)
is ``"—"``, one still being computed (``Statistics.pending``) is :data:`PENDING`.
"""

from __future__ import annotations

import numpy as np

from core.dtypes.table import engine_name, type_row
from core.scan.statistics import Statistics
from core.text.figures import format_moment, format_share
from core.text.number_format import format_value

__all__ = ["FIELDS", "PENDING", "QUANTITY_AXIS", "field_texts", "pending_statistics"]

#: The text of a figure still being computed.
PENDING = "computing…"

#: The histogram's value axis (and the type's note) for each quantity statistics are of.
QUANTITY_AXIS = {"value": "value", "magnitude": "|z|", "real": "re z", "imaginary": "im z",
                 "phase": "phase (rad)", "dB": "20·log10|z| (dB)"}

FIELDS = (  # (key, label) in display order: two columns of label/value pairs
    ("dtype", "Type"), ("count", "Count"),
    ("min", "Min"), ("finite", "Finite"),
    ("max", "Max"), ("nan", "NaN"),
    ("mean", "Mean"), ("posinf", "+Inf"),
    ("std", "Std (pop.)"), ("neginf", "−Inf"),
    ("zeros", "Zeros"), ("subnormal", "Subnormal"),
)


#: The :class:`Statistics` field each label shows.
SOURCES = {"dtype": "dtype", "count": "count", "finite": "finite_count", "min": "min", "max": "max",
           "mean": "mean", "std": "std", "nan": "nan_count", "posinf": "posinf_count",
           "neginf": "neginf_count", "zeros": "zero_count", "subnormal": "subnormal_count"}


def pending_statistics(dtype: np.dtype, count: int, quantity: str) -> Statistics:
    """What is known of the statistics of ``count`` values of ``dtype`` before any is read: the
    type and the count (``quantity``: of complex values, else ``"value"``); all else pending."""
    unknown = dict.fromkeys(name for name in SOURCES.values() if name not in ("dtype", "count"))
    return Statistics(dtype=np.dtype(dtype).name, quantity=quantity, count=count, histogram_edges=(),
                      histogram_counts=(), complete=False, pending=(*unknown, "histogram"), **unknown)


def field_texts(stats: Statistics | None, dtype: np.dtype | None) -> dict[str, str]:
    """Label text of every field (``"—"`` when there is none, :data:`PENDING` while computed)."""
    if stats is None:
        return {key: "—" for key, _title in FIELDS}

    def counted(n: int) -> str:
        return f"{n:,}" if not n or not stats.count else f"{n:,} ({format_share(n, stats.count)})"

    exact = dtype if stats.quantity == "value" else _part_type(dtype)
    dtype_text = stats.dtype + ("" if stats.quantity == "value" else f" ({QUANTITY_AXIS[stats.quantity]})")
    texts = {
        "dtype": lambda: dtype_text,
        "count": lambda: f"{stats.count:,}",
        "finite": lambda: counted(stats.finite_count),
        "min": lambda: _extreme(stats.min, exact),
        "max": lambda: _extreme(stats.max, exact),
        "mean": lambda: _moment(stats.mean),
        "std": lambda: _moment(stats.std),
        "nan": lambda: counted(stats.nan_count),
        "posinf": lambda: counted(stats.posinf_count),
        "neginf": lambda: counted(stats.neginf_count),
        "zeros": lambda: counted(stats.zero_count),
        "subnormal": lambda: counted(stats.subnormal_count),
    }
    return {key: PENDING if SOURCES[key] in stats.pending else texts[key]() for key, _title in FIELDS}


def _extreme(value: int | float | None, dtype: np.dtype | None) -> str:
    """A min / max as the table prints that value (they are values of the view).

    Integer views print as the table does; a bool view's extremes are the counts 0 / 1 the
    statistics use; a complex view's (magnitudes, phases...) are printed in the precision of its
    parts (:func:`_part_type`).
    """
    if value is None:
        return "—"
    if isinstance(value, int):
        integer_type = dtype if dtype is not None and dtype.kind in "iu" else np.dtype(np.int64)
        return format_value(value, integer_type)
    if dtype is not None and dtype.kind not in "biuc":
        try:
            native = dtype.newbyteorder("=")
            return format_value(np.asarray(value, dtype=np.float64).astype(native)[()], native)
        except (TypeError, ValueError):
            pass
    return format_value(value, np.float64)


def _part_type(dtype: np.dtype | None) -> np.dtype | None:
    """The float type of each part of a complex ``dtype`` (float32 for complex64), else None:
    a complex view's extremes (magnitudes, phases) are printed in its parts' precision, not in
    the float64 they are computed in."""
    if dtype is None or dtype.kind != "c":
        return None
    part = type_row(engine_name(dtype)).part
    return None if part is None else np.dtype(part.name)


def _moment(value: float | None) -> str:
    return "—" if value is None else format_moment(value)

