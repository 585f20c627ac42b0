"""What a picture of ``|A - B|`` shows: which pairs differ, which differences are not numbers, and
the values and levels on a linear or a logarithmic scale. The comparison plot and the table's
colours of a comparison both follow these rules; the widgets only draw them.

Rules
-----
- **Not finite**: a pair whose ``|a - b|`` is NaN (a side is NaN, or two infinities of the same
  sign) or infinite (one side infinite) *and* that is a mismatch under the rules is a
  *not-finite difference*: it is drawn in a colour of its own, never the top of the colour scale
  (it is not "the largest error"). Such a pair that is not a mismatch (NaN against NaN with the
  NaN policy "equal", ``+inf`` against ``+inf``) is no difference: it counts as 0.
- **Linear scale**: a pixel is ``|a - b|``; the levels are ``(0, largest finite difference)``,
  ``(0, 1)`` when every difference is 0.
- **Logarithmic scale**: a pixel is ``log10 |a - b|``. ``log10 0`` does not exist: an exact match
  is drawn at the *floor*, one decade below the smallest non-zero difference, so the smallest
  error stays distinguishable from no error; the levels are ``(floor, log10 largest)``. With no
  non-zero finite difference every pixel is 0 and the levels are ``(0, 1)``.
- A not-finite pixel holds the lower level (the mask says to paint it in its own colour).
- :attr:`DifferenceImage.differs` is False when no pair of the image differs (every difference
  0, none not finite): the plot then says "no differences" instead of a plain square.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["DifferenceImage", "difference_image", "not_finite_differences"]


def not_finite_differences(absolute: np.ndarray, mismatch: np.ndarray) -> np.ndarray:
    """The pairs whose difference is NaN or infinite and that are mismatches (module rules)."""
    absolute = np.asarray(absolute, dtype=np.float64)
    return ~np.isfinite(absolute) & np.asarray(mismatch, dtype=bool)


@dataclass(frozen=True)
class DifferenceImage:
    """The pixels of a ``|A - B|`` image (module rules).

    Attributes
    ----------
    values
        float64, finite everywhere: ``|a - b|`` (linear) or ``log10 |a - b|`` (log scale).
    not_finite
        Pairs to paint in the not-finite colour.
    levels
        ``(low, high)`` of the colour scale, ``low < high``.
    log_scale
        Whether ``values`` are ``log10 |a - b|``.
    differs
        Some pair differs (a non-zero or a not-finite difference).
    """

    values: np.ndarray
    not_finite: np.ndarray
    levels: tuple[float, float]
    log_scale: bool
    differs: bool


def difference_image(absolute: np.ndarray, mismatch: np.ndarray, log_scale: bool = False) -> DifferenceImage:
    """The image of the differences ``absolute`` (``|a - b|``) with the verdicts ``mismatch``
    (same shape; :class:`core.compare.elementwise.ElementDifferences` gives both).

    Copies: the result holds new float64 arrays of the input's shape.
    """
    absolute = np.asarray(absolute, dtype=np.float64)
    not_finite = not_finite_differences(absolute, mismatch)
    finite = np.where(np.isfinite(absolute), absolute, 0.0)  # matched NaN / inf pairs: no difference
    positive = finite[finite > 0]
    differs = bool(positive.size or not_finite.any())
    if not positive.size:
        values = np.zeros(absolute.shape, dtype=np.float64)
        return DifferenceImage(values, not_finite, (0.0, 1.0), bool(log_scale), differs)
    top = float(positive.max())
    if not log_scale:
        values = finite
        low, high = 0.0, top
    else:
        high = float(np.log10(top))
        low = float(np.log10(positive.min())) - 1.0  # one decade below the smallest error
        values = np.where(finite > 0, np.log10(np.where(finite > 0, finite, 1.0)), low)
    values = np.where(not_finite, low, values)
    return DifferenceImage(values, not_finite, (low, high), bool(log_scale), differs)
