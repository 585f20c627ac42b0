"""Where a frame's planes and lines lie: :class:`FrameGeometry`.

Rules
-----
- A frame is ``width`` x ``height`` pixels of one pixel format (:mod:`core.frames.formats`).
  Both are at least 1, their product at most :data:`MAX_PIXELS` (2^31), and each a multiple of
  what the format needs (even widths for 4:2:0 and 4:2:2, even heights for 4:2:0, even both for
  Bayer, 4 / 2 / 4 pixels for MIPI RAW10 / RAW12 / RAW14).
- **Line stride** (``stride``): bytes from one line of the first plane to the next; by default
  the plane's packed line size; a stride smaller than that is refused. Padding after a line is
  skipped, never read as samples.
- **Planes**: each plane's offset from the frame's start and its own line stride
  (``plane_offsets``, ``plane_strides``, in the format's plane order). By default the first
  plane's stride is ``stride``; a chroma plane of a planar format whose lines are half as long
  (I420, YV12, I422) strides ``stride // 2``, any other plane ``stride``; planes follow one
  another with no gap, each ``rows * plane_stride`` bytes long. Planes may not overlap.
- **Frame size** (:attr:`FrameGeometry.frame_size`): from the frame's start to the end of its
  last plane, every line counted with its padding (as V4L2's ``sizeimage``).
- **Sequences**: frame ``n`` starts at ``n * frame_stride + frame_offset``. ``frame_offset`` is a
  header before each frame (0 by default); ``frame_stride`` defaults to ``frame_offset +
  frame_size`` and may be larger (gaps between frames), never smaller.
- :meth:`FrameGeometry.frames_in` counts the whole frames a file of a given size holds; a file
  too small for one frame is refused with the size one frame needs.

Every refusal is a :class:`~core.errors.CoreError` whose ``field`` names the value to change
(``"format"``, ``"width"``, ``"height"``, ``"stride"``, ``"plane_offsets"``, ``"plane_strides"``,
``"frame_offset"``, ``"frame_stride"``, ``"files"``).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

from core.errors import CoreError
from core.frames.formats import PixelFormat, pixel_format

__all__ = ["MAX_PIXELS", "FrameGeometry", "PlaneGeometry"]

#: Most pixels of one frame (2^31): beyond this a width or height is a typo, not a sensor.
MAX_PIXELS = 2**31


@dataclass(frozen=True)
class PlaneGeometry:
    """One plane of a frame: its name, offset from the frame's start, packed line size in bytes,
    line stride in bytes and number of lines."""

    name: str
    offset: int
    line_bytes: int
    stride: int
    rows: int

    @property
    def end(self) -> int:
        """The byte after the plane's last line (its padding included)."""
        return self.offset + self.rows * self.stride


def _whole(value, name: str, minimum: int) -> int:
    """``value`` as an ``int`` (numpy integers too) of at least ``minimum``."""
    try:
        whole = operator.index(value)
    except TypeError:
        whole = None
    if whole is None or isinstance(value, bool):
        raise CoreError(f"{name} must be a whole number, not {value!r}", field=name)
    value = whole
    if value < minimum:
        raise CoreError(f"{name} must be at least {minimum}, not {value}", field=name)
    return value


@dataclass(frozen=True)
class FrameGeometry:
    """A frame's pixel format, size and byte layout (the module docstring states the rules).

    Parameters
    ----------
    format
        A format name (any case) or a :class:`~core.frames.formats.PixelFormat`; stored as the
        canonical name.
    width, height
        Pixels.
    stride
        Line stride of the first plane in bytes; ``None``: its packed line size.
    plane_offsets, plane_strides
        Per plane, in the format's plane order; ``None``: the defaults above.
    frame_offset
        Header bytes before each frame.
    frame_stride
        Bytes from one frame's start to the next; ``None``: ``frame_offset + frame_size``.

    Raises
    ------
    CoreError
        A value out of range; ``field`` names it.
    """

    format: str
    width: int
    height: int
    stride: int | None = None
    plane_offsets: tuple[int, ...] | None = None
    plane_strides: tuple[int, ...] | None = None
    frame_offset: int = 0
    frame_stride: int | None = None
    planes: tuple[PlaneGeometry, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        fmt = pixel_format(self.format)
        object.__setattr__(self, "format", fmt.name)
        width = _whole(self.width, "width", 1)
        height = _whole(self.height, "height", 1)
        object.__setattr__(self, "width", width)
        object.__setattr__(self, "height", height)
        if width * height > MAX_PIXELS:
            raise CoreError(f"A frame of {width} x {height} pixels is more than 2^31 pixels "
                            f"(check the width and height)", field="width")
        for name, size, multiple in (("width", width, fmt.width_multiple), ("height", height, fmt.height_multiple)):
            if size % multiple:
                raise CoreError(f"{fmt.name} needs a {name} that is a multiple of {multiple}, not {size}", field=name)
        line_bytes = fmt.plane_line_bytes(width)
        rows = fmt.plane_rows(height)
        explicit_stride = self.stride is not None
        stride = _whole(self.stride, "stride", 1) if explicit_stride else line_bytes[0]
        if stride < line_bytes[0]:
            raise CoreError(f"A stride of {stride} bytes is shorter than one line of {fmt.name} at width {width} "
                            f"({line_bytes[0]} bytes; use a stride of at least {line_bytes[0]})", field="stride")
        object.__setattr__(self, "stride", stride)
        strides = self._plane_strides(fmt, stride, line_bytes, explicit_stride)
        offsets = self._plane_offsets(strides, rows)
        planes = tuple(PlaneGeometry(name, offset, size, plane_stride, count)
                       for name, offset, size, plane_stride, count in zip(fmt.planes, offsets, line_bytes, strides, rows))
        _check_no_overlap(planes)
        object.__setattr__(self, "planes", planes)
        object.__setattr__(self, "plane_offsets", offsets)
        object.__setattr__(self, "plane_strides", strides)
        object.__setattr__(self, "frame_offset", _whole(self.frame_offset, "frame_offset", 0))
        least = self.frame_offset + self.frame_size
        frame_stride = least if self.frame_stride is None else _whole(self.frame_stride, "frame_stride", 1)
        if frame_stride < least:
            raise CoreError(f"A frame stride of {frame_stride} bytes is less than a frame's header and planes "
                            f"({least} bytes; use at least {least})", field="frame_stride")
        object.__setattr__(self, "frame_stride", frame_stride)

    def _plane_strides(self, fmt: PixelFormat, stride: int, line_bytes: tuple[int, ...],
                       explicit_stride: bool) -> tuple[int, ...]:
        if self.plane_strides is None:
            halved = fmt.family == "yuv_planar" and fmt.chroma_x == 2
            return (stride,) + ((stride // 2 if halved else stride),) * (len(line_bytes) - 1)
        strides = tuple(self.plane_strides)
        if len(strides) != len(line_bytes):
            raise CoreError(f"{fmt.name} has {len(line_bytes)} planes ({', '.join(fmt.planes)}), so give "
                            f"{len(line_bytes)} plane strides, not {len(strides)}", field="plane_strides")
        strides = tuple(_whole(plane_stride, "plane_strides", 1) for plane_stride in strides)
        for name, plane_stride, size in zip(fmt.planes, strides, line_bytes):
            if plane_stride < size:
                raise CoreError(f"Plane {name}'s stride of {plane_stride} bytes is shorter than its line of {size} "
                                f"bytes (use at least {size})", field="plane_strides")
        if strides[0] != stride and explicit_stride:
            raise CoreError(f"The first plane's stride ({strides[0]}) differs from stride ({stride}): give one",
                            field="plane_strides")
        object.__setattr__(self, "stride", strides[0])
        return strides

    def _plane_offsets(self, strides: tuple[int, ...], rows: tuple[int, ...]) -> tuple[int, ...]:
        if self.plane_offsets is None:
            offsets, at = [], 0
            for plane_stride, count in zip(strides, rows):
                offsets.append(at)
                at += plane_stride * count
            return tuple(offsets)
        offsets = tuple(self.plane_offsets)
        if len(offsets) != len(strides):
            raise CoreError(f"{self.format} has {len(strides)} planes, so give {len(strides)} plane offsets, "
                            f"not {len(offsets)}", field="plane_offsets")
        return tuple(_whole(offset, "plane_offsets", 0) for offset in offsets)

    @property
    def pixel_format(self) -> PixelFormat:
        """The :class:`~core.frames.formats.PixelFormat` named by :attr:`format`."""
        return pixel_format(self.format)

    @property
    def frame_size(self) -> int:
        """Bytes of one frame from its start to the end of its last plane, line padding included."""
        return max(plane.end for plane in self.planes)

    def frame_start(self, index: int) -> int:
        """The byte offset in the file of frame ``index``'s first plane."""
        return index * self.frame_stride + self.frame_offset

    def frames_in(self, file_size: int) -> int:
        """How many whole frames a file of ``file_size`` bytes holds (at least 1).

        Raises
        ------
        CoreError
            ``field="files"``: the file is smaller than one frame; the message says how many
            bytes one frame needs.
        """
        needed = self.frame_offset + self.frame_size
        if file_size < needed:
            raise CoreError(f"The file has {file_size} bytes, less than one {self.width} x {self.height} "
                            f"{self.format} frame needs ({needed} bytes: check the format, size and strides)",
                            field="files")
        return (file_size - needed) // self.frame_stride + 1


def _check_no_overlap(planes: tuple[PlaneGeometry, ...]) -> None:
    ordered = sorted(planes, key=lambda plane: plane.offset)
    for first, second in zip(ordered, ordered[1:]):
        if first.end > second.offset:
            raise CoreError(f"Plane {first.name} (bytes {first.offset} to {first.end}) overlaps plane {second.name} "
                            f"at {second.offset} (move its offset to at least {first.end})", field="plane_offsets")
