"""A frame as colour: YUV to RGB by the BT.601, BT.709 and BT.2020 matrices, grey and RGB
samples scaled to the same 0-1 range, and the whole frame as one RGB image.

Rules
-----
- **Range.** For ``bits``-bit samples (``s = 2^(bits-8)``), limited ("video", "TV") range puts
  black at Y = 16 s and white at 235 s, and chroma zero at 128 s with a swing of +-112 s:
  ``Y' = (Y - 16 s) / (219 s)``, ``Pb = (U - 128 s) / (224 s)``, ``Pr = (V - 128 s) / (224 s)``.
  Full ("PC", JPEG) range uses every code: ``Y' = Y / (2^bits - 1)``, ``Pb = (U - 2^(bits-1)) /
  (2^bits - 1)`` and the same for ``Pr``. Limited range is the default (what cameras and
  decoders write unless they say otherwise).
- **Matrix.** With the luma weights ``Kr``, ``Kb`` of the standard (``Kg = 1 - Kr - Kb``;
  :data:`MATRICES`: BT.601 0.299, 0.114; BT.709 0.2126, 0.0722; BT.2020 0.2627, 0.0593):
  ``R = Y' + 2 (1 - Kr) Pr``, ``B = Y' + 2 (1 - Kb) Pb``,
  ``G = Y' - (2 Kb (1 - Kb) / Kg) Pb - (2 Kr (1 - Kr) / Kg) Pr``, then clipped to 0-1.
  BT.601 is the default (SD video, JPEG, most webcams).
- **Chroma upsampling** to the luma grid, by factor 2 where subsampled. ``"bilinear"`` (the
  default) follows MPEG-2 / H.264's default chroma siting: horizontally a chroma sample sits on
  the even luma columns (odd columns are the mean of their two neighbours), vertically (4:2:0)
  halfway between two luma lines (each luma line weighs its nearer chroma line 3/4 and the
  other 1/4). Edges repeat the last chroma sample. ``"nearest"`` repeats each chroma sample
  over the luma pixels it covers.
- **Output**: float32 RGB in 0-1, ``(height, width, 3)``; :func:`to_uint8` rounds ``255 x``
  half up to ``uint8`` codes. :func:`frame_to_rgb` gives ``uint8`` for 8-bit formats and
  float32 for deeper ones unless told.
- The image and its working arrays are checked against the copy budget (:mod:`core.budget`)
  before anything is allocated, counted as :data:`WORKING_BYTES_PER_PIXEL` bytes a pixel (the
  float32 RGB image, 12 bytes, and four times as much for the planes' float copies and sums).
- Grey is shown as equal R, G, B (``Y / (2^bits - 1)``, full range); RGB565 channels are scaled
  by their own maximum (31, 63, 31); Bayer frames go through :mod:`core.frames.bayer`.
"""

from __future__ import annotations

import numpy as np

from core.budget import check_copy_budget
from core.errors import CoreError
from core.frames.bayer import demosaic_bilinear, raw_levels
from core.frames.geometry import FrameGeometry

__all__ = ["MATRICES", "UPSAMPLING", "WORKING_BYTES_PER_PIXEL", "frame_to_rgb", "to_uint8", "upsample_chroma", "yuv_to_rgb"]

#: Luma weights (Kr, Kb) of each standard.
MATRICES = {"bt601": (0.299, 0.114), "bt709": (0.2126, 0.0722), "bt2020": (0.2627, 0.0593)}

#: What converting one pixel to RGB is counted as against the copy budget.
WORKING_BYTES_PER_PIXEL = 60

#: Chroma upsampling methods; the first is the default.
UPSAMPLING = ("bilinear", "nearest")


def _choice(value: str, choices, field: str) -> str:
    key = str(value).strip().lower().replace(".", "").replace("-", "")
    if key not in choices:
        raise CoreError(f"Unknown {field} {value!r} (choose one of: {', '.join(choices)})", field=field)
    return key


def upsample_chroma(plane: np.ndarray, factor_x: int, factor_y: int, method: str = "bilinear") -> np.ndarray:
    """A chroma plane at ``factor_x`` x ``factor_y`` its size (factors 1 or 2), as float32, by
    ``method`` (the module docstring states the siting)."""
    method = _choice(method, UPSAMPLING, "upsampling")
    values = np.asarray(plane, dtype=np.float32)
    if method == "nearest":
        return np.repeat(np.repeat(values, factor_y, axis=0), factor_x, axis=1)
    if factor_x == 2:
        right = np.concatenate([values[:, 1:], values[:, -1:]], axis=1)
        wide = np.empty((values.shape[0], 2 * values.shape[1]), np.float32)
        wide[:, 0::2] = values
        wide[:, 1::2] = (values + right) * np.float32(0.5)
        values = wide
    if factor_y == 2:
        above = np.concatenate([values[:1], values[:-1]], axis=0)
        below = np.concatenate([values[1:], values[-1:]], axis=0)
        tall = np.empty((2 * values.shape[0], values.shape[1]), np.float32)
        tall[0::2] = np.float32(0.75) * values + np.float32(0.25) * above
        tall[1::2] = np.float32(0.75) * values + np.float32(0.25) * below
        values = tall
    return values


def yuv_to_rgb(y: np.ndarray, u: np.ndarray, v: np.ndarray, *, bits: int = 8, matrix: str = "bt601",
               full_range: bool = False, upsample: str = "bilinear") -> np.ndarray:
    """RGB (float32, 0-1, ``(height, width, 3)``) of Y, U, V sample planes (the module docstring
    states the rules); the chroma factors are the planes' size ratios.

    Raises
    ------
    CoreError
        ``field="matrix"`` / ``"upsampling"``: an unknown name; ``field="format"``: chroma planes
        that are not the luma's size, half its width or half both.
    """
    kr, kb = MATRICES[_choice(matrix, MATRICES, "matrix")]
    height, width = y.shape
    factor_x, factor_y = width // u.shape[1], height // u.shape[0]
    if u.shape != v.shape or (u.shape[0] * factor_y, u.shape[1] * factor_x) != (height, width) or \
            factor_x not in (1, 2) or factor_y not in (1, 2):
        raise CoreError(f"Chroma planes of {u.shape} and {v.shape} do not fit luma of {y.shape}", field="format")
    scale = float(1 << (bits - 8))
    if full_range:
        top = float((1 << bits) - 1)
        luma = np.asarray(y, np.float32) / np.float32(top)
        offset, swing = float(1 << (bits - 1)), top
    else:
        luma = (np.asarray(y, np.float32) - np.float32(16 * scale)) / np.float32(219 * scale)
        offset, swing = 128 * scale, 224 * scale
    pb = (upsample_chroma(u, factor_x, factor_y, upsample) - np.float32(offset)) / np.float32(swing)
    pr = (upsample_chroma(v, factor_x, factor_y, upsample) - np.float32(offset)) / np.float32(swing)
    kg = 1.0 - kr - kb
    rgb = np.empty((height, width, 3), np.float32)
    rgb[..., 0] = luma + np.float32(2 * (1 - kr)) * pr
    rgb[..., 1] = luma - np.float32(2 * kb * (1 - kb) / kg) * pb - np.float32(2 * kr * (1 - kr) / kg) * pr
    rgb[..., 2] = luma + np.float32(2 * (1 - kb)) * pb
    return np.clip(rgb, 0, 1, out=rgb)


def to_uint8(rgb: np.ndarray) -> np.ndarray:
    """0-1 values as ``uint8`` codes: ``floor(255 x + 0.5)`` after clipping to 0-1."""
    return np.floor(np.clip(rgb, 0, 1) * np.float32(255) + np.float32(0.5)).astype(np.uint8)


def frame_to_rgb(planes: dict[str, np.ndarray], geometry: FrameGeometry, *, matrix: str = "bt601",
                 full_range: bool = False, upsample: str = "bilinear", black_level: float = 0,
                 white_level: float | None = None, as_uint8: bool | None = None) -> np.ndarray:
    """The frame whose planes :func:`core.frames.unpack.unpack_frame` returned, as one RGB image.

    ``matrix``, ``full_range`` and ``upsample`` apply to YUV formats; ``black_level`` and
    ``white_level`` to Bayer (:func:`core.frames.bayer.raw_levels`). ``as_uint8``: ``None``
    gives ``uint8`` for 8-bit formats and float32 (0-1) for deeper ones.

    Raises
    ------
    CoreError
        An unknown ``matrix`` or ``upsample`` (that field), levels out of order
        (``white_level``); a :class:`~core.errors.BudgetError` (``field="width"``) when the
        image and its working arrays are above the copy budget.
    """
    fmt = geometry.pixel_format
    check_copy_budget(geometry.width * geometry.height * WORKING_BYTES_PER_PIXEL,
                      f"converting a {geometry.width} x {geometry.height} frame to RGB",
                      "choose a smaller width and height", field="width")
    if fmt.is_yuv:
        rgb = yuv_to_rgb(planes["Y"], planes["U"], planes["V"], bits=fmt.bits, matrix=matrix,
                         full_range=full_range, upsample=upsample)
    elif fmt.is_bayer:
        rgb = demosaic_bilinear(raw_levels(planes["mosaic"], fmt.bits, black_level, white_level), fmt.order)
    elif fmt.family == "grey":
        grey = np.asarray(planes["Y"], np.float32) / np.float32((1 << fmt.bits) - 1)
        rgb = np.repeat(np.clip(grey, 0, 1)[..., None], 3, axis=2)
    else:
        tops = (31, 63, 31) if fmt.family == "rgb565" else (255, 255, 255)
        rgb = np.stack([np.asarray(planes[name], np.float32) / np.float32(top) for name, top in zip("RGB", tops)],
                       axis=2)
    if as_uint8 is None:
        as_uint8 = fmt.bits <= 8
    return to_uint8(rgb) if as_uint8 else rgb
