"""Periodicity: the row width of an image and the length of records with their own headers.

Rules:

* **row width**: the autocorrelation of the differences between neighbouring values (demeaned,
  by FFT over the body sample) is
  measured at every divisor of the item count from :data:`MIN_WIDTH` to a quarter of the sample;
  a row width is a lag whose correlation exceeds both neighbours' by :data:`MIN_PROMINENCE` and is
  at least :data:`MIN_CORRELATION`. The smallest lag within half of the best prominence wins (its
  multiples peak too).
* **record period** (:func:`record_period`): the same peak among every lag of the bytes
  themselves, from :data:`MIN_WIDTH` bytes to a quarter of the bytes looked at;
* **records**: the first :data:`MAGIC_BYTES` bytes of the data (a record marker) recur at a
  constant spacing at least :data:`MIN_REPEATS` times in the head sample, and the spacing
  divides the data's size.
"""

from __future__ import annotations

import numpy as np

from core.guess.sizes import divisors_between

__all__ = ["MAGIC_BYTES", "MIN_CORRELATION", "MIN_PROMINENCE", "MIN_REPEATS", "MIN_WIDTH",
           "autocorrelation", "record_length", "record_period", "row_width"]

MIN_WIDTH = 8
MIN_PROMINENCE = 0.04
MIN_CORRELATION = 0.2
MAGIC_BYTES = 4
MIN_REPEATS = 3


def autocorrelation(values: np.ndarray) -> np.ndarray | None:
    """The normalised autocorrelation of the differences between neighbouring ``values`` (lag 0
    is 1), or None for values too few or constant."""
    with np.errstate(all="ignore"):
        x = values.astype(np.float64).ravel()
    x = x[np.isfinite(x)]
    if x.size < 4 * MIN_WIDTH or np.ptp(x) == 0:
        return None
    # Differences between neighbours: a smooth image's rows then show as sharp peaks (its
    # jumps at the row ends, its vertical neighbours), where the raw values correlate at every lag.
    x = np.diff(x)
    x = x - x.mean()
    scale = np.abs(x).max() if x.size else 0.0
    if not np.isfinite(scale) or scale == 0:
        return None
    x = x / scale  # huge values (a wrong type) would overflow the products
    n = x.size
    if not np.any(x):
        return None
    spectrum = np.fft.rfft(x, 1 << (2 * n - 1).bit_length())
    corr = np.fft.irfft(spectrum * np.conj(spectrum))[:n]
    # Unbiased: divide by the number of products at each lag.
    return corr / np.arange(n, 0, -1) / (corr[0] / n)


def row_width(corr: np.ndarray | None, item_count: int, multiple: int = 1,
              min_width: int = MIN_WIDTH) -> tuple[int, float] | None:
    """(row width, its correlation) from :func:`autocorrelation` of the body sample when the
    data is rows of ``item_count`` items in all, else None. Rows of pixels of interleaved channels
    are looked for among multiples of ``multiple`` from ``min_width`` items (the channels' own lag
    and its small multiples peak too), a peak standing out from the lags one pixel on either side."""
    if corr is None:
        return None
    lags = [width for width in divisors_between(item_count, max(min_width, MIN_WIDTH), corr.size // 4)
            if width < item_count and width % multiple == 0]
    return _first_peak(corr, lags, multiple)


def record_period(data: np.ndarray) -> tuple[int, float] | None:
    """(period in bytes, its correlation) of ``data`` (uint8: the bytes from where records
    start), or None: the row rule above applied to the bytes themselves, at every lag from
    :data:`MIN_WIDTH` to a quarter of the bytes (the records need not fill the file). Records of
    a fixed layout repeat their bytes' pattern (padding, high bytes, exponents) at their size."""
    corr = autocorrelation(np.asarray(data, dtype=np.uint8))
    if corr is None:
        return None
    return _first_peak(corr, range(MIN_WIDTH, corr.size // 4 + 1), 1)


def _first_peak(corr: np.ndarray, lags, multiple: int) -> tuple[int, float] | None:
    """The smallest of ``lags`` whose correlation peaks within half of the best prominence (its
    multiples peak too), with its correlation; a peak stands out from the lags ``multiple`` away."""
    n = corr.size
    best: list[tuple[int, float, float]] = []
    for width in lags:
        if width + multiple >= n:
            continue
        # Neighbours one pixel away: between pixels, a lag that is not a multiple of the channels
        # compares different channels and every multiple would look like a peak.
        here, left, right = corr[width], corr[width - multiple], corr[width + multiple]
        prominence = here - max(left, right)
        if here >= MIN_CORRELATION and prominence >= MIN_PROMINENCE:
            best.append((width, float(here), float(prominence)))
    if not best:
        return None
    top = max(p for _, _, p in best)
    width, correlation, _ = next(b for b in best if b[2] >= top / 2)
    return width, correlation


def record_length(head: bytes, data_start: int, data_bytes: int) -> tuple[int, int] | None:
    """(record length, repeats seen) when the bytes at ``data_start`` recur as a record marker."""
    magic = head[data_start:data_start + MAGIC_BYTES]
    if len(magic) < MAGIC_BYTES or len(set(magic)) < 2:
        return None
    positions = []
    at = head.find(magic, data_start + 1)
    while at != -1 and len(positions) < 64:
        positions.append(at)
        at = head.find(magic, at + 1)
    if len(positions) < MIN_REPEATS - 1:
        return None
    spacing = positions[0] - data_start
    steps = np.diff([data_start, *positions])
    if spacing < 8 or not (steps == spacing).all() or data_bytes % spacing:
        return None
    return spacing, len(positions) + 1
