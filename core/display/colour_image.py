"""Colour images of arrays with a channel axis (HWC, CHW, with batch axes): the numpy part.

Pure numpy; the image plot (``inspector.plot.image_plot``) draws what these functions return.

Rules
-----
* A *channel axis* is an axis of length 3 or 4 that is the last axis (HWC, NHWC) or the third
  from last (CHW, NCHW) of an array with at least 3 axes (:func:`channel_axis_candidates`).
  The image's rows and columns are two other axes; every remaining (batch) axis is fixed at an
  index (the display axes' sliders), the channel axis' own index is ignored.
* :data:`COLOUR_MODES` name the order of the channels *in the data*: ``"RGB"`` reads channels
  0, 1, 2 as red, green, blue; ``"BGR"`` reads them as blue, green, red; ``"RGBA"`` /
  ``"BGRA"`` also read channel 3 as alpha. RGB and BGR need at least 3 channels (a fourth is
  ignored); RGBA and BGRA need 4. Without an alpha channel, alpha is opaque (255).
* Levels: ``uint8`` data is shown as it is, levels ``(0, 255)``; ``bool`` has levels
  ``(0, 1)``; any other dtype (float, 16-bit and wider ints) gets automatic levels from a
  strided subsample of the colour channels
  (:func:`core.display.image_sampling.estimate_levels`, the grey image's rule), and the user
  may change them (:func:`fixed_levels` says which dtypes have levels of their own: the image
  plot offers no levels bar for them). A value ``v`` becomes ``round(255 * (v - low) / (high - low))`` clipped to
  ``0..255``, for alpha too; a NaN channel makes the pixel transparent (alpha 0).
"""

from __future__ import annotations

import numpy as np

from core.display.image_sampling import DEFAULT_LEVEL_SAMPLES, estimate_levels, subsample
from core.display.line_decimation import real_values

__all__ = ["COLOUR_MODES", "channel_axis_candidates", "colour_levels", "fixed_levels",
           "colour_plane", "modes_for_channels", "to_rgba8"]

#: Ways to read the channel axis; see the module rules.
COLOUR_MODES = ("RGB", "BGR", "RGBA", "BGRA")

_CHANNEL_ORDER = {"RGB": (0, 1, 2), "BGR": (2, 1, 0), "RGBA": (0, 1, 2, 3), "BGRA": (2, 1, 0, 3)}


def channel_axis_candidates(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Axes of ``shape`` that can hold colour channels: the last (HWC) first, then ``ndim - 3`` (CHW)."""
    ndim = len(shape)
    if ndim < 3:
        return ()
    return tuple(axis for axis in (ndim - 1, ndim - 3) if shape[axis] in (3, 4))


def modes_for_channels(channels: int) -> tuple[str, ...]:
    """The colour modes that can read ``channels`` channels (``()`` for fewer than 3)."""
    if channels >= 4:
        return COLOUR_MODES
    return ("RGB", "BGR") if channels == 3 else ()


def colour_plane(array: np.ndarray, row_axis: int, col_axis: int, channel_axis: int,
                 indices: tuple[int, ...]) -> np.ndarray:
    """A ``(rows, cols, channels)`` view of ``array``; every other axis is fixed at ``indices[axis]``.

    Raises
    ------
    ValueError
        The three axes are not distinct axes of ``array``, or ``indices`` has not one entry per axis.
    IndexError
        A fixed index is out of range.
    """
    ndim = array.ndim
    axes = (row_axis, col_axis, channel_axis)
    if len(set(axes)) != 3 or not all(0 <= a < ndim for a in axes):
        raise ValueError(f"rows, columns and channels must be three distinct axes of a {ndim}-d "
                         f"array, got axes {axes}")
    if len(indices) != ndim:
        raise ValueError(f"expected {ndim} indices, got {len(indices)}")
    key = tuple(slice(None) if a in axes else int(indices[a]) for a in range(ndim))
    kept = [a for a in range(ndim) if a in axes]  # order of the remaining axes after indexing
    view = array[key]
    return np.transpose(view, [kept.index(a) for a in axes])


def fixed_levels(dtype: np.dtype) -> tuple[float, float] | None:
    """The levels a colour image of ``dtype`` is shown at as it is (``uint8``: ``(0, 255)``,
    ``bool``: ``(0, 1)``), or None when its levels are automatic and the user's (module rules)."""
    dtype = np.dtype(dtype)
    if dtype == np.uint8:
        return 0.0, 255.0
    if dtype.kind == "b":
        return 0.0, 1.0
    return None


def colour_levels(pixels: np.ndarray, mode: str,
                  max_samples: int = DEFAULT_LEVEL_SAMPLES) -> tuple[float, float]:
    """Levels ``(low, high)`` for ``pixels`` (``rows x cols x channels``) in ``mode`` (module rules).

    Raises
    ------
    ValueError
        ``mode`` is unknown or ``pixels`` has too few channels for it.
    """
    order = _order(pixels, mode)
    fixed = fixed_levels(pixels.dtype)
    if fixed is not None:
        return fixed
    del order  # checked; the colour channels are 0..2 in every mode, alpha (3) has no say
    return estimate_levels(subsample(pixels[..., :3], max_samples))


def to_rgba8(pixels: np.ndarray, mode: str, levels: tuple[float, float] | None = None) -> np.ndarray:
    """A C-contiguous ``(rows, cols, 4)`` uint8 RGBA image of ``pixels`` (module rules).

    Parameters
    ----------
    pixels
        ``rows x cols x channels`` values (e.g. a window of :func:`colour_plane`), any real
        dtype (bool, ints, floats, ml_dtypes floats such as bfloat16).
    mode
        One of :data:`COLOUR_MODES`.
    levels
        ``(low, high)``; None uses :func:`colour_levels`.

    Raises
    ------
    ValueError
        ``mode`` is unknown, ``pixels`` is not 3-d or has too few channels for ``mode``.
    TypeError
        The dtype is complex or not numeric.
    """
    order = _order(pixels, mode)
    if pixels.dtype.kind == "c":
        raise TypeError(f"a colour image needs real numbers, got dtype {pixels.dtype} "
                        "(plot abs, re or im of complex data as a grey image)")
    low, high = colour_levels(pixels, mode) if levels is None else (float(levels[0]), float(levels[1]))
    rows, cols = pixels.shape[:2]
    out = np.empty((rows, cols, 4), dtype=np.uint8)
    out[..., 3] = 255
    if pixels.dtype == np.uint8 and (low, high) == (0.0, 255.0):
        for target, channel in enumerate(order):
            out[..., target] = pixels[..., channel]
        return out
    span = high - low if high != low else 1.0
    transparent = np.zeros((rows, cols), dtype=bool)
    for target, channel in enumerate(order):
        values = np.asarray(real_values(pixels[..., channel]), dtype=np.float64)  # any real dtype
        nan = np.isnan(values)
        transparent |= nan
        scaled = np.rint(np.clip((np.where(nan, low, values) - low) * (255.0 / span), 0, 255))
        out[..., target] = scaled.astype(np.uint8)
    out[transparent, 3] = 0
    return out


def _order(pixels: np.ndarray, mode: str) -> tuple[int, ...]:
    if mode not in COLOUR_MODES:
        raise ValueError(f"colour mode must be one of {COLOUR_MODES}, got {mode!r}")
    if pixels.ndim != 3:
        raise ValueError(f"a colour image needs rows x columns x channels, got shape {pixels.shape}")
    order = _CHANNEL_ORDER[mode]
    if pixels.shape[2] < len(order):
        raise ValueError(f"{mode} needs {len(order)} channels, the channel axis has "
                         f"{pixels.shape[2]}: choose {' or '.join(modes_for_channels(pixels.shape[2])) or 'grey'}")
    return order
