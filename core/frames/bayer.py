"""Raw sensor mosaics: black and white levels, the mosaic as coloured sites, bilinear demosaic.

Rules
-----
- **Levels**: a raw sample ``x`` becomes ``(x - black) / (white - black)``, clipped to 0-1
  (:func:`raw_levels`). The black level defaults to 0, the white level to ``2^bits - 1``; a
  white level not above the black level is refused (``field="white_level"``).
- **Pattern**: the Bayer pattern names the colours of the top-left 2x2 tile, row by row
  (RGGB: red at (0, 0), green at (0, 1) and (1, 0), blue at (1, 1)); the tile repeats.
- **Coloured sites** (:func:`mosaic_sites`): each site shown in its own colour, its value in
  that channel, the other two 0, so the mosaic is seen as the sensor saw it.
- **Bilinear demosaic** (:func:`demosaic_bilinear`): at each site the missing colours are the
  mean of the nearest sites of that colour: green at a red or blue site is the mean of its 4
  edge neighbours; red (blue) at a green site is the mean of its 2 red (blue) neighbours in the
  row or the column; red at a blue site (and blue at a red one) the mean of its 4 diagonal
  neighbours. A site's own colour is kept. At the frame's edge the mosaic is mirrored without
  repeating the edge (``numpy.pad`` mode ``"reflect"``), which keeps the pattern, so every
  site has its full set of neighbours. Sums run in float32.
"""

from __future__ import annotations

import numpy as np

from core.errors import CoreError
from core.frames.formats import BAYER_PATTERNS
from core.text.number_format import format_value

__all__ = ["demosaic_bilinear", "mosaic_sites", "raw_levels", "site_masks"]


def raw_levels(mosaic: np.ndarray, bits: int, black_level: float = 0, white_level: float | None = None) -> np.ndarray:
    """Raw samples as 0-1 float32 between the black and white levels (the module docstring).

    Raises
    ------
    CoreError
        ``field="white_level"``: white not above black.
    """
    white = float((1 << bits) - 1) if white_level is None else float(white_level)
    black = float(black_level)
    if not white > black:
        raise CoreError(f"The white level ({format_value(white, np.float64)}) must be above the black level "
                        f"({format_value(black, np.float64)})", field="white_level")
    values = (np.asarray(mosaic, np.float32) - np.float32(black)) / np.float32(white - black)
    return np.clip(values, 0, 1, out=values)


def site_masks(shape: tuple[int, int], pattern: str) -> dict[str, np.ndarray]:
    """Boolean ``shape`` masks of the red, green and blue sites of ``pattern``.

    Raises
    ------
    CoreError
        ``field="format"``: not one of :data:`~core.frames.formats.BAYER_PATTERNS`.
    """
    if pattern not in BAYER_PATTERNS:
        raise CoreError(f"Unknown Bayer pattern {pattern!r} (choose one of: {', '.join(BAYER_PATTERNS)})",
                        field="format")
    rows = np.arange(shape[0])[:, None] % 2
    columns = np.arange(shape[1])[None, :] % 2
    masks = {colour: np.zeros(shape, bool) for colour in "RGB"}
    for index, colour in enumerate(pattern):
        masks[colour] |= (rows == index // 2) & (columns == index % 2)
    return masks


def mosaic_sites(values: np.ndarray, pattern: str) -> np.ndarray:
    """``(height, width, 3)`` float32: each site's value in its own colour's channel, 0 in the others."""
    values = np.asarray(values, np.float32)
    out = np.zeros(values.shape + (3,), np.float32)
    for channel, mask in enumerate(site_masks(values.shape, pattern).values()):
        out[..., channel][mask] = values[mask]
    return out


def _neighbour_sum(padded: np.ndarray, offsets, shape) -> np.ndarray:
    height, width = shape
    total = np.zeros(shape, np.float32)
    for dy, dx in offsets:
        total += padded[1 + dy:1 + dy + height, 1 + dx:1 + dx + width]
    return total


_EDGES = ((-1, 0), (1, 0), (0, -1), (0, 1))
_ROW = ((0, -1), (0, 1))
_COLUMN = ((-1, 0), (1, 0))
_DIAGONALS = ((-1, -1), (-1, 1), (1, -1), (1, 1))


def demosaic_bilinear(values: np.ndarray, pattern: str) -> np.ndarray:
    """Bilinear demosaic of a mosaic (``(height, width)``, even sizes of at least 2) to float32
    RGB ``(height, width, 3)`` (the module docstring states the rule)."""
    values = np.asarray(values, np.float32)
    shape = values.shape
    masks = site_masks(shape, pattern)
    padded = np.pad(values, 1, mode="reflect")
    edges = _neighbour_sum(padded, _EDGES, shape) * np.float32(0.25)
    rows = _neighbour_sum(padded, _ROW, shape) * np.float32(0.5)
    columns = _neighbour_sum(padded, _COLUMN, shape) * np.float32(0.5)
    diagonals = _neighbour_sum(padded, _DIAGONALS, shape) * np.float32(0.25)
    # Which of the row / column neighbours is red: in a red row the row neighbours of a green site are red.
    red_rows = masks["R"].any(axis=1)[:, None]
    blue_rows = masks["B"].any(axis=1)[:, None]
    rgb = np.empty(shape + (3,), np.float32)
    green = masks["G"]
    rgb[..., 1] = np.where(green, values, edges)
    for channel, own, row_has in ((0, masks["R"], red_rows), (2, masks["B"], blue_rows)):
        at_green = np.where(row_has, rows, columns)
        rgb[..., channel] = np.where(own, values, np.where(green, at_green, diagonals))
    return rgb
