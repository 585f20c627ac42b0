"""The text of a scan's and a model diff's rows, one cell per column, shared by the command's
tables and the window's.

Rules
-----
- A value is formatted by the engine's formatters (:mod:`core.text.number_format` for a
  tensor's own values in its type, :mod:`core.text.figures` for moments, differences,
  similarities and decibels); a figure that is not defined (no finite pair, a constant tensor's
  Pearson correlation) reads ``undefined``, never ``nan``.
- A pair of different types or shapes shows both, ``A/B``; a side that is missing shows ``-``.
- Severity (what a window highlights): a scan row is an ``error`` when its tensor could not be
  read or has a NaN or an infinity, a ``warning`` when it is all zeros, constant, saturated or
  has subnormal values, ``info`` when it is empty; a pair is an ``error`` when it differs (or
  its shape does, or it could not be compared), a ``warning`` when it is on one side only or
  its types differ, nothing when it is close or equal.
- Sort keys (:func:`scan_sort_key`, :func:`pair_sort_key`) order numbers as numbers, with a
  figure that is not there (``(1, 0)`` against ``(0, value)``) after every number in
  ascending order.
"""

from __future__ import annotations

import math

from core.errors import Severity
from core.models.diff import PairDiff, rank_key
from core.models.scan import TensorScan
from core.text.figures import (
    format_decibels,
    format_difference,
    format_estimate,
    format_moment,
    format_share,
    format_similarity,
)
from core.text.names import printable_name
from core.text.number_format import format_value

__all__ = ["PAIR_COLUMNS", "SCAN_COLUMNS", "figure_text", "pair_cells", "pair_severity", "pair_sort_key",
           "scan_cells", "scan_severity", "scan_sort_key", "shape_text"]

SCAN_COLUMNS = ("name", "dtype", "shape", "min", "max", "mean", "std", "nan", "inf", "zeros", "flags")
PAIR_COLUMNS = ("status", "name", "dtype", "shape", "over tol", "max abs", "max rel", "RMS", "cosine",
                "Pearson", "SNR dB", "PSNR dB", "p99 |a - b|", "note")


def shape_text(shape: tuple[int, ...] | None, missing: str = "?") -> str:
    """``(3, 4)``, ``(5,)``, ``()``; ``missing`` when not known."""
    if shape is None:
        return missing
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def scan_cells(row: TensorScan) -> list[str]:
    """One cell per :data:`SCAN_COLUMNS`; a tensor that could not be read has its error in the
    last cell."""
    shape = shape_text(row.shape)
    name = printable_name(row.tensor.label)
    s = row.statistics
    if s is None:
        return [name, row.dtype or "?", shape, "", "", "", "", "", "", "", f"error: {row.error}"]
    number = (lambda v: "" if v is None else format_value(v, row.dtype)) if row.dtype else str
    return [name, row.dtype or "?", shape, number(s.min), number(s.max),
            "" if s.mean is None else format_moment(s.mean), "" if s.std is None else format_moment(s.std),
            f"{s.nan_count:,}", f"{(s.posinf_count or 0) + (s.neginf_count or 0):,}", f"{s.zero_count:,}",
            " ".join(row.flags)]


def scan_severity(row: TensorScan) -> Severity | None:
    """How a window highlights ``row`` (module rules); None: nothing to see."""
    flags = set(row.flags)
    if row.error is not None or flags & {"nan", "inf"}:
        return "error"
    if flags & {"zeros", "constant", "saturated", "subnormal"}:
        return "warning"
    return "info" if "empty" in flags else None


def pair_severity(d: PairDiff) -> Severity | None:
    """How a window highlights ``d`` (module rules); None: within tolerance."""
    if d.status in ("error", "differs", "shape differs"):
        return "error"
    if d.status in ("only in A", "only in B", "dtype differs"):
        return "warning"
    return None


def _key(value) -> tuple:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return (1, 0)
    return (0, value)


def scan_sort_key(row: TensorScan, column: int) -> tuple:
    """What orders ``row`` by ``column`` of :data:`SCAN_COLUMNS` (module rules)."""
    s = row.statistics
    name = SCAN_COLUMNS[column]
    if name in ("name", "dtype", "flags"):
        text = scan_cells(row)[column]
        return (0, text.lower(), text)
    if name == "shape":
        return _key(None if row.shape is None else math.prod(row.shape))
    if s is None:
        return (1, 0)
    value = {"min": s.min, "max": s.max, "mean": s.mean, "std": s.std, "nan": s.nan_count,
             "inf": (s.posinf_count or 0) + (s.neginf_count or 0), "zeros": s.zero_count}[name]
    return _key(None if value is None else float(value))


def _pair_types(d: PairDiff) -> tuple[str, str]:
    dtype = d.dtype_a or d.dtype_b or "-"
    if d.dtype_a and d.dtype_b and d.dtype_a != d.dtype_b:
        dtype = f"{d.dtype_a}/{d.dtype_b}"
    shape = shape_text(d.shape_a if d.shape_a is not None else d.shape_b, "-")
    if d.shape_a is not None and d.shape_b is not None and d.shape_a != d.shape_b:
        shape = f"{shape_text(d.shape_a)}/{shape_text(d.shape_b)}"
    return dtype, shape


def figure_text(value, kind: str) -> str:
    """A figure of a pair: ``undefined`` when it is not (module rules); ``kind`` is
    ``difference``, ``similarity``, ``db`` or ``quantile`` (a histogram bin's lower edge)."""
    if value is None:
        return "undefined"
    if kind == "similarity":
        return format_similarity(value)
    if kind == "db":
        return format_decibels(value)
    if kind == "quantile":
        return format_estimate(value)
    return format_difference(value)


def _figures(d: PairDiff) -> dict[str, float | None]:
    r = d.result
    g = r.agreement
    return {
        "max abs": None if r.max_absolute is None else r.max_absolute.value,
        "max rel": None if r.max_relative is None else r.max_relative.value,
        "RMS": r.rms,
        "cosine": None if g is None else g.cosine,
        "Pearson": None if g is None else g.pearson,
        "SNR dB": None if g is None else g.snr_db,
        "PSNR dB": None if g is None else g.psnr_db,
        "p99 |a - b|": None if g is None else g.quantile("p99"),
    }


_KINDS = {"max abs": "difference", "max rel": "difference", "RMS": "difference", "cosine": "similarity",
          "Pearson": "similarity", "SNR dB": "db", "PSNR dB": "db", "p99 |a - b|": "quantile"}


def pair_cells(d: PairDiff) -> list[str]:
    """One cell per :data:`PAIR_COLUMNS`; a pair that was not compared has empty figures and
    its reason in the note."""
    dtype, shape = _pair_types(d)
    head = [d.status, printable_name(d.pair.key), dtype, shape]
    if d.result is None:
        return head + [""] * (len(PAIR_COLUMNS) - 5) + [d.reason or ""]
    r = d.result
    over = f"{r.mismatched:,} ({format_share(r.mismatched, r.compared)})" if r.mismatched else "0"
    figures = _figures(d)
    return head + [over] + [figure_text(figures[c], _KINDS[c]) for c in PAIR_COLUMNS[5:-1]] + [d.reason or ""]


def pair_sort_key(d: PairDiff, column: int) -> tuple:
    """What orders ``d`` by ``column`` of :data:`PAIR_COLUMNS` (module rules); the status orders
    worst first (:func:`core.models.diff.rank_key`)."""
    name = PAIR_COLUMNS[column]
    if name == "status":
        return (0, *rank_key(d))
    if name in ("name", "dtype", "note"):
        text = pair_cells(d)[column]
        return (0, text.lower(), text)
    if name == "shape":
        shape = d.shape_a if d.shape_a is not None else d.shape_b
        return _key(None if shape is None else math.prod(shape))
    if d.result is None:
        return (1, 0)
    if name == "over tol":
        return (0, d.result.mismatched)
    value = _figures(d)[name]
    return _key(None if value is None else float(value))
