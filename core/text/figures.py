"""Derived figures as text: how many digits a difference, a moment, a share, a score... gets.

A stored value (an element of the view, a min or max) is written by
:mod:`core.text.number_format`, with the digits of its type. A figure *computed from* values has
no type of its own to decide its digits, so this module decides them, once for each kind of
figure, and every place that shows one (the compare summary and dock, the CLI's ``diff``, the
Statistics panel, the guess report and dialog, the plot's progress note) calls the function of
its kind:

==========================  =====================================  ===========================
kind                        rule                                   e.g.
==========================  =====================================  ===========================
:func:`format_difference`   6 significant digits                   ``0.000999928``, ``1e-05``
:func:`format_moment`       7 significant digits                   ``2.345679``
:func:`format_share`        percent of a count, 3 significant      ``16.7%``, ``<0.001%``
                            digits, never 0% or 100% when neither
:func:`format_percentage`   the same rule for a fraction 0..1      ``97.5%``
:func:`format_progress`     whole percent, rounded down            ``42%``
:func:`format_score`        one decimal                            ``10.6``, ``0.8``
:func:`format_correlation`  two decimals (sign on request)         ``0.97``, ``+0.12``
:func:`format_fit`          two decimals (a layout check's 0..1)   ``0.94``
:func:`format_factor`       one decimal                            ``2.0``
==========================  =====================================  ===========================

Non-finite figures read as Python writes them (``nan``, ``inf``, ``-inf``).
"""

from __future__ import annotations

import math

__all__ = [
    "format_correlation", "format_difference", "format_factor", "format_fit", "format_moment", "format_percentage",
    "format_progress", "format_score", "format_share",
]


def format_difference(value: float) -> str:
    """A difference or error figure with 6 significant digits (``%g``, numpy's and C's default).

    Used for ``|A - B|``, relative differences, the mean absolute and RMS errors, and the
    tolerances ``rtol`` / ``atol`` they are tested against: ``0.00099992752`` ->
    ``"0.000999928"``, ``1.3e-06`` -> ``"1.3e-06"``, ``2.0`` -> ``"2"``.
    """
    return f"{value:.6g}"


def format_moment(value: float) -> str:
    """A moment (mean, standard deviation) with 7 significant digits: ``2.3456789`` ->
    ``"2.345679"``, ``1e10 / 3`` -> ``"3.333333e+09"``. One digit more than a difference: a mean
    is compared by eye with the values it summarises, a float32 value has 6 to 9 digits."""
    return f"{value:.7g}"


def format_percentage(fraction: float) -> str:
    """A fraction of a whole (``0 <= fraction <= 1``) in percent, never rounded to 0% or 100%
    when it is neither.

    Rules: exactly 0 -> ``"0%"``, exactly 1 -> ``"100%"``; below 0.001% -> ``"<0.001%"``; above
    99.99% -> ``">99.99%"``; otherwise 3 significant digits (numpy's ``{:.3g}%``, ``"16.7%"``,
    ``"2.5%"``, ``"0.0012%"``), except that a share that would read ``"100%"`` gets two decimals
    (``"99.97%"``). A NaN reads ``"nan%"``.
    """
    if fraction == 0:
        return "0%"
    if fraction == 1:
        return "100%"
    share = 100.0 * fraction
    if math.isnan(share):
        return "nan%"
    if share < 0.001:
        return "<0.001%"
    if share > 99.99:
        return ">99.99%"
    text = f"{share:.3g}"
    return f"{share:.2f}%" if text == "100" else f"{text}%"


def format_share(part: int, whole: int) -> str:
    """``part`` of ``whole`` counted things in percent, by :func:`format_percentage`'s rule.

    ``part == whole`` is ``"100%"`` and ``part == 0`` is ``"0%"`` exactly, even where the float
    quotient of two huge counts would round to 1; ``whole == 0`` (nothing counted) is ``"0%"``.
    """
    if part == 0 or whole == 0:
        return "0%"
    if part == whole:
        return "100%"
    return format_percentage(min(part / whole, 1.0 - 2**-53))


def format_progress(fraction: float) -> str:
    """How far a long task is, in whole percent rounded down (``0.996`` -> ``"99%"``): 100% only
    when it is done. Outside 0..1 it is clamped."""
    return f"{math.floor(100 * min(max(fraction, 0.0), 1.0))}%"


def format_score(points: float) -> str:
    """A guess score or evidence in points, with one decimal: ``10.64`` -> ``"10.6"``."""
    return f"{points:.1f}"


def format_correlation(value: float, *, signed: bool = False) -> str:
    """A correlation or a smoothness (``-1 .. 1``) with two decimals: ``0.9731`` -> ``"0.97"``;
    ``signed=True`` writes the sign of a positive one too (a difference of two: ``"+0.12"``)."""
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def format_fit(score: float) -> str:
    """How well a record layout fits a file (a layout check's score, 0 to 1) with two decimals:
    ``0.9412`` -> ``"0.94"``; the JSON of a check carries the same two decimals."""
    return f"{score:.2f}"


def format_factor(value: float) -> str:
    """A ratio of two magnitudes ("within a factor 2.0 of each other"), with one decimal."""
    return f"{value:.1f}"


def format_similarity(value: float) -> str:
    """A cosine similarity or correlation with the digits that tell it from ±1 (up to the
    second digit after the run of nines; at least four decimals): ``0.9731`` -> ``"0.9731"``, ``0.99999951`` ->
    ``"0.99999951"``, ``1.0`` -> ``"1"``."""
    gap = 1.0 - abs(value)
    if gap <= 0:
        return f"{value:.0f}"
    digits = min(12, max(4, int(-math.floor(math.log10(gap))) + 1))
    return f"{value:.{digits}f}"


def format_decibels(value: float) -> str:
    """A ratio in dB with one decimal; infinities as ``inf`` / ``-inf``."""
    if not math.isfinite(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.1f}"


def format_estimate(value: float) -> str:
    """A figure known to about 1 % (a histogram's quantile) with three significant digits:
    ``0.000991821`` -> ``"0.000992"``."""
    return f"{value:.3g}"
