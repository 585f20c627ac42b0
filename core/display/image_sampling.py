"""Sampling a plane for display: exact float copies for an image, strided subsamples, colour levels.

Pure numpy. The image plot and the table's heat map both call :func:`estimate_levels`, so the
same plane gets the same colour levels in both; nothing here ever scans a whole plane (a plane
may be a strided view of a memory-mapped file far larger than RAM).

Rules
-----
* A subsample is a strided *view* (never a copy) of at most ``max_samples`` elements: the stride
  of the axis with more samples left is doubled until the budget is met (power-of-two strides,
  as the image plot reads its windows), so a ``1 x 10**9`` plane keeps its one row.
* Levels are ``(min, max)`` of the finite values of that subsample; complex values are reduced
  to one real number first (``part``: ``"abs"``, ``"re"``, ``"im"``; see
  :func:`core.display.line_decimation.real_values`). A constant subsample ``v`` gives
  ``(v - 0.5, v + 0.5)``; a subsample without a finite value gives ``(0.0, 1.0)``.
"""

from __future__ import annotations

import math

import numpy as np

from core.display.line_decimation import real_values

__all__ = ["DEFAULT_LEVEL_SAMPLES", "image_values", "subsample_strides", "subsample", "estimate_levels"]

#: Elements :func:`estimate_levels` reads at most, by default.
DEFAULT_LEVEL_SAMPLES = 100_000


def image_values(block: np.ndarray, part: str = "abs") -> np.ndarray:
    """A C-contiguous float copy of ``block`` for an image (exact: float32 or float64).

    float16/bfloat16/float32, bool and ints of at most 16 bits become float32; everything else
    float64 (int64/uint64 beyond 2**53 are rounded). Always copies, so an image never reads
    from a memory-mapped file while painting.

    Raises
    ------
    ValueError
        ``part`` is not ``"abs"``, ``"re"`` or ``"im"``.
    TypeError
        The dtype has no numeric meaning (strings, structured, object).
    """
    values = real_values(block, part)
    exact32 = values.dtype == np.float32 or (values.dtype.kind in "iub" and values.dtype.itemsize <= 2)
    return np.array(values, dtype=np.float32 if exact32 else np.float64, order="C", copy=True)


def subsample_strides(shape: tuple[int, ...], max_samples: int) -> tuple[int, ...]:
    """Strides so that ``plane[::s0, ::s1]`` (one per axis of ``shape``) has at most ``max_samples`` elements.

    Doubles the stride of the axis with more samples left until the budget is met. A 0-d shape
    gives ``()``; ``max_samples`` below 1 counts as 1.
    """
    budget = max(int(max_samples), 1)
    strides = [1] * len(shape)

    def left(axis: int) -> int:
        return -(-shape[axis] // strides[axis])

    while shape and math.prod(left(a) for a in range(len(shape))) > budget:
        widest = max(range(len(shape)), key=left)  # the first axis wins a tie
        strides[widest] *= 2
    return tuple(strides)


def subsample(plane: np.ndarray, max_samples: int) -> np.ndarray:
    """A strided view of ``plane`` (any number of axes) with at most ``max_samples`` elements."""
    strides = subsample_strides(plane.shape, max_samples)
    return plane[tuple(slice(None, None, s) for s in strides)]


def estimate_levels(plane: np.ndarray, part: str = "abs",
                    max_samples: int = DEFAULT_LEVEL_SAMPLES) -> tuple[float, float]:
    """Colour levels ``(low, high)`` from a strided subsample of ``plane`` (rules: module doc).

    Parameters
    ----------
    plane
        A 0-, 1- or 2-d array of any numeric dtype, typically a view of a memory map.
    part
        For complex data, the real number measured: ``"abs"``, ``"re"`` or ``"im"``.
    max_samples
        Elements read at most.

    Raises
    ------
    ValueError
        ``part`` is not a complex part name.
    TypeError
        The dtype has no numeric meaning (strings, structured, object).
    """
    sample = real_values(subsample(np.asarray(plane), max_samples), part)
    if sample.dtype.kind == "f":
        sample = sample[np.isfinite(sample)]
    if sample.size == 0:
        return 0.0, 1.0
    low, high = float(sample.min()), float(sample.max())
    if low == high:
        return low - 0.5, high + 0.5
    return low, high
