"""Size arithmetic: which shapes and header lengths fit a file's size.

Rule: a layout fits when the bytes after the header are a whole number of items (and of
records or rows); dimensions from a name fit when their product times the item size equals the
data bytes, which also gives the header length (``size - product * itemsize``) when that is
small (up to :data:`MAX_IMPLIED_HEADER` bytes).
"""

from __future__ import annotations

import math
from functools import lru_cache

__all__ = ["MAX_IMPLIED_HEADER", "divisors_between", "implied_header"]

#: Largest header a name's dimensions may imply.
MAX_IMPLIED_HEADER = 1 << 20


@lru_cache(maxsize=256)
def divisors_between(n: int, low: int, high: int) -> list[int]:
    """The divisors of ``n`` in ``[low, high]``, ascending (trial division up to sqrt(n))."""
    if n <= 0 or high < low:
        return []
    found = set()
    for d in range(1, math.isqrt(n) + 1):
        if n % d == 0:
            for value in (d, n // d):
                if low <= value <= high:
                    found.add(value)
    return sorted(found)


def implied_header(size: int, dims: tuple[int, ...], itemsize: int) -> int | None:
    """Header bytes implied by ``dims`` of ``itemsize`` items in a file of ``size`` bytes, or
    None when they do not fit."""
    data = math.prod(dims) * itemsize
    header = size - data
    if 0 <= header <= MAX_IMPLIED_HEADER:
        return header
    return None
