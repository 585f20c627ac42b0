"""Suggest target shapes for a number of elements (a helper for people guessing a layout).

Suggestions are factorisations of the element count: near-square 2-d shapes first, then common
image-like 3-d shapes with 1, 3 or 4 channels first or last. Pure arithmetic, no data read.
"""

from __future__ import annotations

import math
from functools import lru_cache


def divisors(n: int, limit: int = 1 << 20) -> list[int]:
    """Sorted divisors of ``n`` not larger than ``limit`` (trial division up to sqrt(n))."""
    if n <= 0:
        return []
    small, large = [], []
    for d in range(1, math.isqrt(n) + 1):
        if n % d == 0:
            small.append(d)
            if d != n // d:
                large.append(n // d)
    return [d for d in small + large[::-1] if d <= limit]


@lru_cache(maxsize=64)
def _suggest_cached(count: int, max_suggestions: int) -> tuple[tuple[int, ...], ...]:
    return tuple(_suggest(count, max_suggestions))


def suggest_shapes(count: int, max_suggestions: int = 8) -> list[tuple[int, ...]]:
    """Plausible shapes with ``prod(shape) == count``, most image-like first.

    Examples
    --------
    >>> suggest_shapes(12)[:3]
    [(3, 4), (4, 3), (2, 6)]
    """
    return list(_suggest_cached(int(count), int(max_suggestions)))


def shape_for_new_type(shape: tuple[int, ...], old_stored_bits: int, new_stored_bits: int) -> tuple[int, ...] | None:
    """The target shape that keeps the same bytes when the element type changes: the last axis
    scaled by the ratio of the two types' sizes (int16 over a float32 ``(4, 3, 40, 50)`` view is
    ``(4, 3, 40, 100)``; float32 over int16 halves it). ``shape`` unchanged when its last axis is
    ``-1`` (it adapts by itself); None when the scaled axis is not whole (no shape keeps every
    byte) or there is no axis.

    Examples
    --------
    >>> shape_for_new_type((4, 3, 40, 50), 32, 16)
    (4, 3, 40, 100)
    >>> shape_for_new_type((3, 5), 8, 16) is None
    True
    """
    if not shape or old_stored_bits <= 0 or new_stored_bits <= 0:
        return None
    if shape[-1] == -1:
        return tuple(shape)
    bits = shape[-1] * old_stored_bits
    if bits % new_stored_bits:
        return None
    return tuple(shape[:-1]) + (bits // new_stored_bits,)


def _suggest(count: int, max_suggestions: int) -> list[tuple[int, ...]]:
    if count <= 1 or count > 1 << 62:
        return [(count,)] if count >= 0 else []
    pairs = [(d, count // d) for d in divisors(count) if 1 < d < count]
    pairs.sort(key=_squareness)
    out: list[tuple[int, ...]] = []
    for rows, cols in pairs:
        out.append((rows, cols))
        if len(out) >= max_suggestions // 2:
            break
    for channels in (3, 4):
        if count % channels == 0 and count // channels > 1:
            rest = count // channels
            sub = [(d, rest // d) for d in divisors(rest) if 1 < d < rest]
            if sub:
                r, c = min(sub, key=_squareness)
                out.append((channels, r, c))
                out.append((r, c, channels))
    seen: set[tuple[int, ...]] = set()
    unique = [s for s in out if not (s in seen or seen.add(s))]
    return unique[:max_suggestions] or [(count,)]


def _squareness(pair: tuple[int, int]) -> tuple[float, bool]:
    """Sort key: closest to square first, then wide (rows <= cols) before tall."""
    rows, cols = pair
    return round(abs(math.log(rows / cols)), 9), rows > cols
