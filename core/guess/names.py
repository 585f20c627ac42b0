"""Hints in a file name or a text header: type names, byte order and dimensions.

Rule: the text is cut into words at anything that is not a letter or a digit (``_``, ``-``,
``.``, spaces); a word is a type (``f32``, ``float32``, ``fp16``, ``half``, ``bf16``, ``u8``,
``int16``, ``i32``, ``double``, ``c64``...), a byte order (``le``, ``be``, ``little``, ``big``,
``lsb``, ``msb``), a type glued to an order (``f32le``, ``u16be``), or dimensions written with
``x`` (``3x224x224``, ``1024x768``). Keywords followed by a number (``width 640``,
``height=480``, ``depth: 3``) in a text header give dimensions too. Nothing else is guessed from
words: ``data`` or ``image`` say nothing about a layout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.dtypes.table import TYPE_ROWS

__all__ = ["NameHints", "parse_hints"]

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

    @property
    def empty(self) -> bool:
        return not (self.dtypes or self.little_endian is not None or self.dims or self.keyword_dims)


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
    for word in re.split(r"[^0-9A-Za-z]+", text.lower()):
        if not word:
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
                     tuple(used))
