"""Affine quantization: the one rule every format's *dequantized* entry follows.

``real = scale * (q - zero_point)``, with one ``(scale, zero_point)`` for the whole tensor, or one
per index of the quantized axis (per channel). The product is computed in float64 and rounded
once to float32, as TFLite's Dequantize kernel does (for the integer types it applies to, the
float64 product is exact, so this is also the correctly rounded float32 product). Scales and
zero points whose count is not 1 or the axis' length are refused.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.budget import check_copy_budget
from core.errors import ContainerError

__all__ = ["dequantize_affine"]


def dequantize_affine(q: np.ndarray, scale: Sequence[float], zero_point: Sequence[int],
                      axis: int | None, what: str) -> np.ndarray:
    """The float32 values of the integers ``q`` (module rule); ``axis`` is used when there are
    several scales.

    Raises
    ------
    ContainerError
        ``field="tensor"``: the counts do not fit the tensor (names ``what``).
    BudgetError
        The float64 work array and the float32 result exceed the copy budget.
    """
    scales = np.asarray(scale, dtype=np.float64).reshape(-1)
    zeros = np.asarray(zero_point, dtype=np.float64).reshape(-1)
    if zeros.size == 0:
        zeros = np.zeros(1)
    if scales.size == 0:
        raise ContainerError(f"{what} has no quantization scale: it is not quantized", field="tensor")
    shape = [1] * q.ndim
    channels = max(scales.size, zeros.size)
    if channels > 1:
        if axis is None or not 0 <= axis < q.ndim or q.shape[axis] != channels \
                or scales.size not in (1, channels) or zeros.size not in (1, channels):
            raise ContainerError(
                f"{what} has {scales.size} scales and {zeros.size} zero points, which do not fit "
                f"axis {axis} of its shape {q.shape} (a corrupt quantization)", field="tensor")
        shape[axis] = channels
    check_copy_budget(q.size * 12, f"dequantizing {what}", "open a smaller tensor", field="tensor")
    real = scales.reshape(shape if scales.size > 1 else [1] * q.ndim) * (
        q.astype(np.float64) - zeros.reshape(shape if zeros.size > 1 else [1] * q.ndim))
    return real.astype(np.float32)
