"""The pixel formats of camera and sensor frames, and the byte layout of each.

Rules
-----
- A format is named once, in capitals (:data:`FORMATS`; :func:`pixel_format` also accepts lower
  case). Every format lists its **planes** in memory order; a plane is a run of ``rows`` lines of
  ``line_bytes`` bytes each (a line may be followed by stride padding, :mod:`core.frames.geometry`).
- 16-bit containers are **little-endian** words (ffmpeg's ``*le`` formats, V4L2's layouts).
- **YUV**. ``chroma_x`` / ``chroma_y`` are the chroma subsampling factors (2, 2 for 4:2:0; 2, 1
  for 4:2:2; 1, 1 for 4:4:4), so a chroma plane is ``width / chroma_x`` samples by
  ``height / chroma_y`` lines; width (and for 4:2:0 height) must be a multiple of the factor.

  - planar: I420 (Y, U, V), YV12 (Y, V, U), I422 (Y, U, V at 4:2:2), I444 (Y, U, V full size);
  - semi-planar 4:2:0: NV12 (Y, then one plane of interleaved U, V pairs), NV21 (V, U pairs),
    P010 and P016 (as NV12 in 16-bit words; P010's 10 bits are the word's **top** bits, the low
    6 bits are zero);
  - packed 4:2:2: YUYV (bytes Y0 U0 Y1 V0 per two pixels), UYVY (U0 Y0 V0 Y1), YVYU (Y0 V0 Y1 U0).
- **Grey**: GREY8 (one byte per pixel), GREY16 (one word); GREY10 / GREY12 are 10 / 12 bits in a
  word, LSB-aligned (the value is the word); GREY10_MSB / GREY12_MSB are MSB-aligned (the value is
  the word shifted right by 6 / 4).
- **RGB**: RGB565 (a word per pixel: red bits 15-11, green 10-5, blue 4-0), BGR565 (blue in bits
  15-11, red in 4-0); RGB888 (bytes R, G, B), BGR888 (B, G, R); ARGB, RGBA, BGRA (four bytes per
  pixel in that order).
- **Bayer** (raw sensor mosaics): the pattern names the colours of the top-left 2x2 tile, row by
  row (RGGB: red at (0, 0), green at (0, 1) and (1, 0), blue at (1, 1)); width and height are
  even. ``<pattern>8`` is a byte per site; ``<pattern>10``, ``12``, ``14``, ``16`` a word per site,
  LSB-aligned; ``<pattern>10_MSB``, ``12_MSB``, ``14_MSB`` MSB-aligned; ``<pattern>10P``,
  ``12P``, ``14P`` are MIPI CSI-2 packed RAW10 / RAW12 / RAW14 (:mod:`core.frames.mipi` states
  the packing), whose width must be a multiple of 4 / 2 / 4 pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import CoreError

__all__ = ["BAYER_PATTERNS", "FORMATS", "PixelFormat", "pixel_format"]

#: The four Bayer colour filter arrays: the colours of the top-left 2x2 tile, row by row.
BAYER_PATTERNS = ("RGGB", "BGGR", "GRBG", "GBRG")


@dataclass(frozen=True)
class PixelFormat:
    """One pixel format: its planes and how their bytes hold samples.

    Attributes
    ----------
    name
        The format's name (capitals).
    family
        ``"yuv_planar"``, ``"yuv_semiplanar"``, ``"yuv_packed"``, ``"grey"``, ``"rgb565"``,
        ``"rgb"``, ``"bayer"`` or ``"bayer_packed"`` (MIPI CSI-2).
    bits
        Significant bits per sample (RGB565: 8, the byte size of the output it is shown as).
    sample_bytes
        Bytes of one sample's container: 1 or 2 (0 for MIPI packed RAW).
    planes
        Plane names in memory order (``("Y", "U", "V")``, ``("Y", "UV")``, ``("YUYV",)``...).
    order
        Component order inside an interleaved plane: ``"UV"``/``"VU"`` (semi-planar chroma),
        ``"YUYV"``/``"UYVY"``/``"YVYU"``, ``"RGB"``/``"BGRA"``..., the Bayer pattern.
    chroma_x, chroma_y
        Chroma subsampling factors (1 for formats without chroma).
    msb_aligned
        Samples of fewer than 16 bits sit in the word's top bits.
    """

    name: str
    family: str
    bits: int
    sample_bytes: int
    planes: tuple[str, ...]
    order: str = ""
    chroma_x: int = 1
    chroma_y: int = 1
    msb_aligned: bool = False

    @property
    def is_yuv(self) -> bool:
        return self.family.startswith("yuv")

    @property
    def is_bayer(self) -> bool:
        return self.family.startswith("bayer")

    @property
    def width_multiple(self) -> int:
        """What the width must be a multiple of (chroma subsampling, Bayer tile, MIPI group)."""
        if self.family == "bayer_packed":
            return 2 if self.bits == 12 else 4
        if self.family == "bayer":
            return 2
        return self.chroma_x

    @property
    def height_multiple(self) -> int:
        """What the height must be a multiple of (4:2:0 chroma, Bayer tile)."""
        return 2 if self.is_bayer else self.chroma_y

    def plane_line_bytes(self, width: int) -> tuple[int, ...]:
        """The packed size in bytes of one line of each plane, for a frame ``width`` pixels wide."""
        chroma = width // self.chroma_x * self.sample_bytes
        if self.family == "yuv_planar":
            return (width * self.sample_bytes, chroma, chroma)
        if self.family == "yuv_semiplanar":
            return (width * self.sample_bytes, 2 * chroma)
        if self.family == "yuv_packed" or self.family == "rgb565":
            return (2 * width,)
        if self.family == "rgb":
            return (len(self.order) * width,)
        if self.family == "bayer_packed":
            return (width * self.bits // 8,)
        return (width * self.sample_bytes,)  # grey, bayer

    def plane_rows(self, height: int) -> tuple[int, ...]:
        """How many lines each plane has, for a frame ``height`` lines high."""
        return (height,) + (height // self.chroma_y,) * (len(self.planes) - 1)


def _table() -> dict[str, PixelFormat]:
    formats = [
        PixelFormat("I420", "yuv_planar", 8, 1, ("Y", "U", "V"), chroma_x=2, chroma_y=2),
        PixelFormat("YV12", "yuv_planar", 8, 1, ("Y", "V", "U"), chroma_x=2, chroma_y=2),
        PixelFormat("NV12", "yuv_semiplanar", 8, 1, ("Y", "UV"), "UV", 2, 2),
        PixelFormat("NV21", "yuv_semiplanar", 8, 1, ("Y", "UV"), "VU", 2, 2),
        PixelFormat("P010", "yuv_semiplanar", 10, 2, ("Y", "UV"), "UV", 2, 2, msb_aligned=True),
        PixelFormat("P016", "yuv_semiplanar", 16, 2, ("Y", "UV"), "UV", 2, 2),
        PixelFormat("I422", "yuv_planar", 8, 1, ("Y", "U", "V"), chroma_x=2),
        PixelFormat("I444", "yuv_planar", 8, 1, ("Y", "U", "V")),
    ]
    formats += [PixelFormat(order, "yuv_packed", 8, 1, (order,), order, 2) for order in ("YUYV", "UYVY", "YVYU")]
    formats += [PixelFormat("GREY8", "grey", 8, 1, ("Y",)), PixelFormat("GREY16", "grey", 16, 2, ("Y",))]
    for bits in (10, 12):
        formats.append(PixelFormat(f"GREY{bits}", "grey", bits, 2, ("Y",)))
        formats.append(PixelFormat(f"GREY{bits}_MSB", "grey", bits, 2, ("Y",), msb_aligned=True))
    formats += [PixelFormat(name, "rgb565", 8, 2, (name[:3],), name[:3]) for name in ("RGB565", "BGR565")]
    formats += [PixelFormat(name, "rgb", 8, 1, (name[:3],), name[:3]) for name in ("RGB888", "BGR888")]
    formats += [PixelFormat(name, "rgb", 8, 1, (name,), name) for name in ("ARGB", "RGBA", "BGRA")]
    for pattern in BAYER_PATTERNS:
        formats.append(PixelFormat(f"{pattern}8", "bayer", 8, 1, ("mosaic",), pattern))
        for bits in (10, 12, 14, 16):
            formats.append(PixelFormat(f"{pattern}{bits}", "bayer", bits, 2, ("mosaic",), pattern))
        for bits in (10, 12, 14):
            formats.append(PixelFormat(f"{pattern}{bits}_MSB", "bayer", bits, 2, ("mosaic",), pattern,
                                       msb_aligned=True))
            formats.append(PixelFormat(f"{pattern}{bits}P", "bayer_packed", bits, 0, ("mosaic",), pattern))
    return {fmt.name: fmt for fmt in formats}


#: Every known format by name.
FORMATS: dict[str, PixelFormat] = _table()


def pixel_format(name: str | PixelFormat) -> PixelFormat:
    """The format called ``name`` (any case), or ``name`` itself when it is one.

    Raises
    ------
    CoreError
        ``field="format"``: no such format; the message lists the known names.
    """
    if isinstance(name, PixelFormat):
        return name
    found = FORMATS.get(str(name).strip().upper())
    if found is None:
        raise CoreError(f"Unknown pixel format {name!r} (choose one of: {', '.join(FORMATS)})", field="format")
    return found
