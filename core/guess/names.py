"""Hints in a file name or a text header: type names, byte order and dimensions.

Rule: the text is cut into words at anything that is not a letter or a digit (``_``, ``-``,
``.``, spaces); a word is a type (``f32``, ``float32``, ``fp16``, ``half``, ``bf16``, ``u8``,
``int16``, ``i32``, ``double``, ``c64``...), a byte order (``le``, ``be``, ``little``, ``big``,
``lsb``, ``msb``), a type glued to an order (``f32le``, ``u16be``), or dimensions written with
``x`` (``3x224x224``, ``1024x768``). Keywords followed by a number (``width 640``,
``height=480``, ``depth: 3``) in a text header give dimensions too. A header length is a word
``hdr``, ``header``, ``offset``, ``off`` or ``skip`` glued to a number (``hdr64``, ``offset512``);
channels are ``stereo`` (2), ``mono`` (1), ``rgb``/``bgr``/``rgb24`` (3), ``rgba``/``bgra``/``argb``
(4) or a number glued to ``ch`` (``6ch``); a pixel format (:data:`PIXEL_FORMATS`: ``nv12``,
``i420``, ``yuv420p``, ``yuyv``, ``gray16``...) gives its sample type and how the planes of a
``WIDTHxHEIGHT`` frame lie. Nothing else is guessed from words: ``data`` or ``image`` say nothing
about a layout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.dtypes.table import TYPE_ROWS

__all__ = ["PIXEL_FORMATS", "NameHints", "PixelFormat", "parse_hints"]


@dataclass(frozen=True)
class PixelFormat:
    """How a ``WIDTHxHEIGHT`` frame of a pixel format lies: its sample type, the rows of samples
    per row of pixels (planar 4:2:0: 3/2 rows of width samples) and the samples per pixel in a row."""

    name: str
    dtype: str
    rows_per_row: float = 1.0
    samples_per_pixel: int = 1


#: Pixel formats named in files (video frames, camera dumps).
PIXEL_FORMATS = {
    **{word: PixelFormat(word, "uint8", 1.5) for word in ("nv12", "nv21", "i420", "yv12", "yuv420", "yuv420p", "iyuv")},
    **{word: PixelFormat(word, "uint8", 1.0, 2) for word in ("yuyv", "yuy2", "uyvy", "yvyu", "yuv422")},
    **{word: PixelFormat(word, "uint8", 1.0, 3) for word in ("rgb24", "bgr24", "rgb888", "bgr888")},
    **{word: PixelFormat(word, "uint8", 1.0, 4) for word in ("rgba32", "bgra32", "rgbx", "bgrx", "argb32")},
    **{word: PixelFormat(word, "uint16", 1.0, 3) for word in ("rgb48", "bgr48")},
    **{word: PixelFormat(word, "uint8") for word in ("gray", "gray8", "grey", "mono8", "y8")},
    **{word: PixelFormat(word, "uint16") for word in ("gray16", "grey16", "mono16", "y16", "gray16le", "gray16be")},
}
_CHANNEL_WORDS = {"stereo": 2, "mono": 1, "rgb": 3, "bgr": 3, "rgba": 4, "bgra": 4, "argb": 4, "abgr": 4}
_HEADER_WORD = re.compile(r"^(?:hdr|header|offset|off|skip)(\d+)$")
_CHANNELS_WORD = re.compile(r"^(\d+)ch$")

#: Every word that names a type (the type table's :attr:`~core.dtypes.table.TypeRow.name_words`).
_TYPE_WORDS = {word: row.name for row in TYPE_ROWS for word in row.name_words}
_ORDER_WORDS = {"le": True, "little": True, "lsb": True, "littleendian": True,
                "be": False, "big": False, "msb": False, "bigendian": False}
_DIMS = re.compile(r"^\d+(?:x\d+)+$")
_KEYWORD_DIM = re.compile(
    r"\b(width|height|depth|channels|frames|rows|cols|columns|samples|count|w|h|c|n)\s*[:=]?\s*(\d+)",
    re.IGNORECASE)


@dataclass(frozen=True)
class NameHints:
    """What a text says about a layout.

    Attributes
    ----------
    dtypes
        Engine type names mentioned, in order.
    little_endian
        The byte order mentioned (None: none, or both).
    dims
        Dimension groups written with ``x`` (``(3, 224, 224)``), in order.
    keyword_dims
        Dimensions named by keyword (``{"width": 640}``).
    words
        The words that gave a hint, for the reasons shown to the user.
    """

    dtypes: tuple[str, ...] = ()
    little_endian: bool | None = None
    dims: tuple[tuple[int, ...], ...] = ()
    keyword_dims: dict[str, int] = field(default_factory=dict)
    words: tuple[str, ...] = ()
    header: int | None = None
    channels: int | None = None
    pixel_format: PixelFormat | None = None

    @property
    def empty(self) -> bool:
        return not (self.dtypes or self.little_endian is not None or self.dims or self.keyword_dims
                    or self.header is not None or self.channels or self.pixel_format)


def _split_type_order(word: str) -> tuple[str | None, bool | None]:
    if word in _TYPE_WORDS:
        return _TYPE_WORDS[word], None
    for suffix, little in (("le", True), ("be", False)):
        if word.endswith(suffix) and word[: -len(suffix)] in _TYPE_WORDS:
            return _TYPE_WORDS[word[: -len(suffix)]], little
    return None, None


def parse_hints(text: str, *, keywords: bool = False) -> NameHints:
    """The hints in ``text`` (a file's base name, or a text header with ``keywords=True``).

    Dimension groups must have at least two numbers, each from 1 to 2**31; ``1024x768`` is kept
    as written (the caller tries both orders).
    """
    dtypes: list[str] = []
    orders: set[bool] = set()
    dims: list[tuple[int, ...]] = []
    used: list[str] = []
    header = channels = pixel = None
    for word in re.split(r"[^0-9A-Za-z]+", text.lower()):
        if not word:
            continue
        if word in PIXEL_FORMATS and pixel is None:
            pixel = PIXEL_FORMATS[word]
            if pixel.dtype not in dtypes:
                dtypes.append(pixel.dtype)
            if word.endswith(("le", "be")):
                orders.add(word.endswith("le"))
            used.append(word)
            continue
        if word in _CHANNEL_WORDS and channels is None:
            channels = _CHANNEL_WORDS[word]
            used.append(word)
            continue
        glued = _HEADER_WORD.match(word) or _CHANNELS_WORD.match(word)
        if glued is not None:
            number = int(glued.group(1))
            if glued.re is _HEADER_WORD and header is None and number <= 1 << 20:
                header = number
                used.append(word)
            elif glued.re is _CHANNELS_WORD and channels is None and 1 <= number <= 64:
                channels = number
                used.append(word)
            continue
        dtype, order = _split_type_order(word)
        if dtype is not None:
            if dtype not in dtypes:
                dtypes.append(dtype)
            if order is not None:
                orders.add(order)
            used.append(word)
        elif word in _ORDER_WORDS:
            orders.add(_ORDER_WORDS[word])
            used.append(word)
        elif _DIMS.match(word):
            group = tuple(int(part) for part in word.split("x"))
            if all(1 <= d <= 2**31 for d in group):
                dims.append(group)
                used.append(word)
    named: dict[str, int] = {}
    if keywords:
        for key, value in _KEYWORD_DIM.findall(text):
            number = int(value)
            if 1 <= number <= 2**31:
                named.setdefault(key.lower(), number)
                used.append(f"{key}={value}")
    return NameHints(tuple(dtypes), orders.pop() if len(orders) == 1 else None, tuple(dims), named,
                     tuple(used), header, channels, pixel)
