"""The C types of a record layout and their sizes and alignments under each ABI.

An ABI (:data:`ABIS`) gives every C scalar type a size and an alignment; ``packed`` is x86-64's
sizes with every alignment 1 (``__attribute__((packed))`` on every struct). Fixed-width types
(``uint32_t``...) are the same everywhere; ``long`` and pointers differ (LP64: 8 bytes; 32-bit ARM
EABI: 4), as does ``long double`` (not decoded: no engine type). 32-bit ARM EABI aligns ``long
long`` and ``double`` to 8, as AAPCS says.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import CoreError

__all__ = ["ABIS", "DEFAULT_ABI", "Abi", "CType", "abi_named"]


@dataclass(frozen=True)
class CType:
    """A C scalar type: its engine type name, size and alignment under one ABI."""

    name: str        # the engine's type name (int8 ... float64, bool)
    size: int
    align: int
    signed: bool = False


@dataclass(frozen=True)
class Abi:
    """Sizes and alignments of one ABI (module rules)."""

    name: str
    long_bytes: int
    pointer_bytes: int
    long_long_align: int
    double_align: int
    packed: bool = False

    def scalar(self, words: tuple[str, ...]) -> CType | None:
        """The type C names with ``words`` (``("unsigned", "long")``, ``("uint16_t",)``...), or None."""
        key = " ".join(_canonical(words))
        found = _FIXED.get(key)
        if found is None:
            size = {"long": self.long_bytes, "unsigned long": self.long_bytes, "pointer": self.pointer_bytes,
                    "size_t": self.pointer_bytes, "ssize_t": self.pointer_bytes, "intptr_t": self.pointer_bytes,
                    "uintptr_t": self.pointer_bytes, "ptrdiff_t": self.pointer_bytes}.get(key)
            if size is None:
                return None
            signed = key in ("long", "ssize_t", "intptr_t", "ptrdiff_t")
            found = CType(f"{'int' if signed else 'uint'}{size * 8}", size, size, signed)
        align = found.align
        if found.size == 8 and found.name in ("int64", "uint64"):
            align = self.long_long_align
        elif found.name == "float64":
            align = self.double_align
        return CType(found.name, found.size, 1 if self.packed else align, found.signed)


ABIS = {
    "x86-64": Abi("x86-64", long_bytes=8, pointer_bytes=8, long_long_align=8, double_align=8),
    "aarch64": Abi("aarch64", long_bytes=8, pointer_bytes=8, long_long_align=8, double_align=8),
    "arm-eabi": Abi("arm-eabi", long_bytes=4, pointer_bytes=4, long_long_align=8, double_align=8),
    "packed": Abi("packed", long_bytes=8, pointer_bytes=8, long_long_align=8, double_align=8, packed=True),
}
DEFAULT_ABI = "x86-64"


def abi_named(name: str) -> Abi:
    """The ABI called ``name`` (:data:`ABIS`).

    Raises
    ------
    CoreError
        ``field="abi"``: no ABI of that name (the names are listed).
    """
    found = ABIS.get(name.strip().lower())
    if found is None:
        raise CoreError(f"--abi {name!r} is not an ABI this tool knows (one of: {', '.join(ABIS)})", field="abi")
    return found


def _ctype(name: str, size: int, signed: bool = False) -> CType:
    return CType(name, size, size, signed)


_FIXED = {
    "char": _ctype("int8", 1, True), "signed char": _ctype("int8", 1, True), "unsigned char": _ctype("uint8", 1),
    "short": _ctype("int16", 2, True), "unsigned short": _ctype("uint16", 2),
    "int": _ctype("int32", 4, True), "unsigned int": _ctype("uint32", 4),
    "long long": _ctype("int64", 8, True), "unsigned long long": _ctype("uint64", 8),
    "float": _ctype("float32", 4), "double": _ctype("float64", 8), "_Bool": _ctype("bool", 1), "bool": _ctype("bool", 1),
    "int8_t": _ctype("int8", 1, True), "uint8_t": _ctype("uint8", 1), "int16_t": _ctype("int16", 2, True),
    "uint16_t": _ctype("uint16", 2), "int32_t": _ctype("int32", 4, True), "uint32_t": _ctype("uint32", 4),
    "int64_t": _ctype("int64", 8, True), "uint64_t": _ctype("uint64", 8),
}


def _canonical(words: tuple[str, ...]) -> list[str]:
    """C's spellings of one type made one: ``signed`` alone is ``int``, ``short int`` is ``short``,
    ``long unsigned int`` is ``unsigned long``; words in any order."""
    words = [w for w in words if w not in ("const", "volatile")]
    unsigned = "unsigned" in words
    signed = "signed" in words
    rest = [w for w in words if w not in ("unsigned", "signed")]
    longs = rest.count("long")
    rest = [w for w in rest if w != "long"]
    if rest in (["int"], []) and longs:
        base = ["long"] * longs
    elif rest == ["short", "int"] or rest == ["int", "short"]:
        base = ["short"]
    elif not rest:
        base = ["int"]
    else:
        base = rest if not longs else ["long"] * longs + rest
    if base == ["char"] and signed:
        return ["signed", "char"]
    return (["unsigned"] if unsigned else []) + base
