"""A frame's bytes decoded to per-plane sample arrays, exactly.

Rules
-----
- :func:`unpack_frame` reads frame ``frame`` of a buffer laid out as a
  :class:`~core.frames.geometry.FrameGeometry` says and returns its planes by name, each a 2-d
  ``(lines, samples)`` array with the line padding skipped:

  - YUV: ``"Y"``, ``"U"``, ``"V"`` (chroma at its subsampled size: ``height / chroma_y`` by
    ``width / chroma_x``), whatever the memory order (YV12's V plane first, NV21's V, U pairs,
    YUYV's interleaved bytes);
  - grey: ``"Y"``; RGB: ``"R"``, ``"G"``, ``"B"`` (and ``"A"``); Bayer: ``"mosaic"`` (the raw
    sites, ``height`` by ``width``).
- **Views where the layout allows** (8-bit samples, 16-bit LSB-aligned words and P016): the
  arrays are read-only views of the buffer (``np.shares_memory`` holds), strided where samples
  interleave. A 16-bit view shows the whole word: bits above the format's bit depth are not
  masked, so a file of the wrong format reads as values out of range rather than as plausible
  numbers.
- **Copies otherwise**: MSB-aligned words (P010, ``*_MSB``: the word shifted right by ``16 -
  bits``), RGB565 / BGR565 (5-, 6- and 5-bit values, not rescaled) and MIPI packed RAW
  (:mod:`core.frames.mipi`).
- Sample types: ``uint8`` for 8-bit formats, ``uint16`` otherwise; 16-bit words are
  little-endian.
- A copy is checked against the copy budget (:mod:`core.budget`) before anything is allocated:
  the samples of every plane at their output type (RGB565: with their 16-bit temporaries,
  9 bytes a pixel).

Raises a :class:`~core.errors.CoreError` when the buffer is not bytes (``field="files"``), is
too short for the frame (``field="files"``, with the sizes) or the frame index is out of range
(``field="frame"``).
"""

from __future__ import annotations

import numpy as np

from core.budget import check_copy_budget
from core.errors import CoreError
from core.frames.geometry import FrameGeometry, PlaneGeometry
from core.frames.mipi import unpack_mipi

__all__ = ["as_byte_buffer", "unpack_frame"]

_WORD = np.dtype("<u2")


def as_byte_buffer(data) -> np.ndarray:
    """``data`` (bytes, bytearray, memoryview, or a 1-d C-contiguous ``uint8`` array such as a
    map's view) as a 1-d ``uint8`` array, without copying.

    Raises
    ------
    CoreError
        ``field="files"``: an array of another type or shape, or not contiguous.
    """
    if isinstance(data, np.ndarray):
        if data.dtype != np.uint8 or data.ndim != 1 or not data.flags.c_contiguous:
            raise CoreError(f"A frame is read from a 1-d contiguous uint8 array of bytes, not a {data.ndim}-d "
                            f"{data.dtype} array (pass the file's bytes)", field="files")
        return data
    return np.frombuffer(data, np.uint8)


def _view(buffer: np.ndarray, start: int, plane: PlaneGeometry, samples: int, dtype: np.dtype,
          step: int) -> np.ndarray:
    view = np.ndarray((plane.rows, samples), dtype, buffer=buffer, offset=start, strides=(plane.stride, step))
    view.flags.writeable = False
    return view


def unpack_frame(data, geometry: FrameGeometry, frame: int = 0) -> dict[str, np.ndarray]:
    """The planes of frame ``frame`` of ``data`` (the module docstring states the rules).

    Parameters
    ----------
    data
        The file's bytes (see :func:`as_byte_buffer`); frame ``n`` starts at
        ``geometry.frame_start(n)``.
    geometry
        The frame's format and layout.
    frame
        Which frame of a sequence, from 0.

    Returns
    -------
    dict[str, numpy.ndarray]
        Plane name to ``(lines, samples)`` array, in the order Y, U, V / R, G, B, A / mosaic.

    Raises
    ------
    CoreError
        Not bytes, too short, or no such frame.
    BudgetError
        A copy above the copy budget (``field="width"``).
    """
    buffer = as_byte_buffer(data)
    count = geometry.frames_in(buffer.size)
    if isinstance(frame, bool) or not isinstance(frame, (int, np.integer)) or not 0 <= frame < count:
        raise CoreError(f"Frame {frame!r} is not in the file: it holds {count} frame(s), 0 to {count - 1}",
                        field="frame")
    fmt = geometry.pixel_format
    if fmt.msb_aligned or fmt.family in ("rgb565", "bayer_packed"):
        samples = sum(plane.rows for plane in geometry.planes) * geometry.width  # chroma planes: at most this
        # RGB565: three uint8 channels, each from a uint16 temporary; the others: uint16 samples.
        check_copy_budget(samples * (9 if fmt.family == "rgb565" else 2),
                          f"unpacking a {geometry.width} x {geometry.height} {fmt.name} frame",
                          "choose a smaller width and height", field="width")
    base = geometry.frame_start(int(frame))
    planes = {plane.name: (base + plane.offset, plane) for plane in geometry.planes}
    family = fmt.family
    width = geometry.width
    if family == "yuv_planar":
        chroma = width // fmt.chroma_x
        samples = {"Y": width, "U": chroma, "V": chroma}
        return {name: _samples(buffer, *planes[name], samples[name], fmt) for name in ("Y", "U", "V")}
    if family == "yuv_semiplanar":
        start, plane = planes["UV"]
        size = fmt.sample_bytes
        chroma = {name: _samples(buffer, start + fmt.order.index(name) * size, plane, width // 2, fmt, 2 * size)
                  for name in "UV"}
        return {"Y": _samples(buffer, *planes["Y"], width, fmt), **chroma}
    start, plane = planes[fmt.planes[0]]
    if family == "yuv_packed":
        order = fmt.order
        return {"Y": _view(buffer, start + order.index("Y"), plane, width, np.dtype(np.uint8), 2),
                "U": _view(buffer, start + order.index("U"), plane, width // 2, np.dtype(np.uint8), 4),
                "V": _view(buffer, start + order.index("V"), plane, width // 2, np.dtype(np.uint8), 4)}
    if family == "rgb":
        step = len(fmt.order)
        return {name: _view(buffer, start + fmt.order.index(name), plane, width, np.dtype(np.uint8), step)
                for name in "RGBA" if name in fmt.order}
    if family == "rgb565":
        words = _view(buffer, start, plane, width, _WORD, 2)
        red, blue = (words >> 11, words & 0x1F) if fmt.order == "RGB" else (words & 0x1F, words >> 11)
        return {"R": red.astype(np.uint8), "G": ((words >> 5) & 0x3F).astype(np.uint8), "B": blue.astype(np.uint8)}
    if family == "bayer_packed":
        return {"mosaic": unpack_mipi(buffer, start, plane.stride, plane.rows, width, fmt.bits)}
    name = "mosaic" if family == "bayer" else "Y"
    return {name: _samples(buffer, start, plane, width, fmt)}


def _samples(buffer: np.ndarray, start: int, plane: PlaneGeometry, samples: int, fmt, step: int | None = None
             ) -> np.ndarray:
    """``samples`` per line of a plane of 8-bit or 16-bit samples, ``step`` bytes apart (default:
    adjacent); MSB-aligned words shifted down to their value (a copy)."""
    size = fmt.sample_bytes
    view = _view(buffer, start, plane, samples, np.dtype(np.uint8) if size == 1 else _WORD, step or size)
    if fmt.msb_aligned:
        return (view >> (16 - fmt.bits)).astype(np.uint16)
    return view
