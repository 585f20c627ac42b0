"""C source that holds data as arrays: ``xxd -i`` output, a TensorFlow Lite Micro
``model_data.cc``, firmware tables in ``.c``/``.cc``/``.h`` files.

Rules
-----
- **Recognised** by content: a definition ``TYPE NAME[...] = {`` in the file's first bytes, where
  TYPE is a C integer or floating type (``unsigned char``, ``uint8_t``, ``int16_t``, ``float``...;
  ``const``, ``static``, ``alignas(...)``, ``__attribute__((...))`` and ``DATA_ALIGN_ATTRIBUTE``
  words around it are skipped).
- **Entries**: every such array, in file order, by its name, with its C type's engine type and its
  element count as shape. A ``NAME_len`` (``xxd -i``) or ``NAME_size`` integer that disagrees
  with the array's count is a problem of the listing. Entries are copies: the values are the
  initialiser's numbers (:func:`c_array_values`), not the text's bytes.
- **Initialisers are parsed, never compiled**: decimal, hex (``0x1c``), octal and character
  (``'a'``) literals with optional ``u``/``l`` suffixes and a sign, floats (``1.5f``, ``-2e-3``)
  for floating arrays, separated by commas (a trailing comma allowed), comments skipped.
  Anything else (an expression, a macro, a missing ``}``) is refused naming the array, the line
  and the token. An initialiser shorter than a declared size is zero-filled, as C does; a longer
  one is refused. A value that does not fit its type is refused.
- The file is read at most :data:`MAX_TEXT_BYTES`; at most :data:`MAX_ARRAYS` arrays.
- An array of bytes that starts like another container (a TFLite model, ``TFL3`` at byte 4, a
  ``.npy``...) says so in its extras (``holds``): *Open in a new window* then lists it as that
  container.
"""

from __future__ import annotations

import functools
import re

import numpy as np

from core.budget import check_copy_budget
from core.errors import ContainerError
from core.files.sources import Source
from core.formats.entry import ContainerFormat, ContainerListing, EntryValues, Storage, TensorEntry
from core.formats.reader import HeaderReader, entry_limit, not_listed
from core.text.names import printable_name

__all__ = ["FORMAT", "MAX_ARRAYS", "MAX_TEXT_BYTES", "c_array_values", "list_c_arrays", "sniff_c_arrays"]

#: Largest C text read (an ``xxd -i`` of a 40 MB model is about 250 MB of text).
MAX_TEXT_BYTES = 512 * 1024 * 1024
#: Most arrays listed.
MAX_ARRAYS = 100_000

_TYPES = {
    "unsigned char": "uint8", "uint8_t": "uint8", "char": "int8", "signed char": "int8", "int8_t": "int8",
    "unsigned short": "uint16", "uint16_t": "uint16", "short": "int16", "int16_t": "int16",
    "unsigned int": "uint32", "uint32_t": "uint32", "unsigned": "uint32", "int": "int32", "int32_t": "int32",
    "unsigned long long": "uint64", "uint64_t": "uint64", "long long": "int64", "int64_t": "int64",
    "float": "float32", "double": "float64", "bool": "bool", "_Bool": "bool",
}
_TYPE = "|".join(sorted((re.escape(t).replace(r"\ ", r"\s+") for t in _TYPES), key=len, reverse=True))
_SKIP = r"(?:(?:const|static|volatile|extern|alignas\s*\([^)]*\)|_Alignas\s*\([^)]*\)|__attribute__\s*\(\([^)]*\)\)|" \
        r"[A-Z_][A-Z0-9_]*ALIGN[A-Z0-9_]*)\s+)*"
@functools.lru_cache(maxsize=1)
def _definition() -> re.Pattern:
    """The pattern of an array definition (compiled when first needed: it is large)."""
    return re.compile(rf"(?m)^[ \t]*{_SKIP}(?P<type>{_TYPE})\s+{_SKIP}(?P<name>[A-Za-z_]\w*)\s*"
                      rf"\[\s*(?P<size>[^\]]*?)\s*\]\s*{_SKIP}=\s*\{{")
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_LENGTH = re.compile(r"(?m)^[ \t]*(?:const\s+|static\s+)*(?:unsigned\s+int|unsigned|int|size_t|uint32_t|"
                     r"const\s+int)\s+(?P<name>[A-Za-z_]\w*?)_(?:len|size)\s*=\s*(?P<value>\d+)\s*;")
_INTEGER = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)[uUlL]*\Z")
_FLOAT = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[fFlL]?\Z")


def sniff_c_arrays(head: bytes, size: int) -> bool:
    """A C array definition of a numeric type in the first bytes (module rules)."""
    if b"{" not in head or b"[" not in head:
        return False
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        text = head[: head.rfind(b"\n") + 1].decode("utf-8", "replace")
    return _definition().search(_COMMENT.sub(" ", text)) is not None


def _text_of(reader: HeaderReader) -> str:
    if reader.size > MAX_TEXT_BYTES:
        raise reader.error(f"it is {reader.size:,} bytes of C text, more than the {MAX_TEXT_BYTES:,} read", None,
                           "split the arrays into smaller files")
    data = reader.read(0, reader.size, "C text")
    return data.decode("utf-8", "replace")


def _arrays(text: str) -> list[tuple[str, str, str, int, int]]:
    """``(name, C type, declared size text, line, start of the initialiser)`` of every array."""
    out = []
    for match in _definition().finditer(text):
        out.append((match["name"], " ".join(match["type"].split()), match["size"],
                    text.count("\n", 0, match.start()) + 1, match.end()))
    return out


def list_c_arrays(reader: HeaderReader) -> ContainerListing:
    """Every numeric array the C text defines (module rules).

    Raises
    ------
    ContainerError
        More text than :data:`MAX_TEXT_BYTES`.
    """
    text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), _text_of(reader))
    lengths = {m["name"]: int(m["value"]) for m in _LENGTH.finditer(text)}
    entries, problems = [], []
    found = _arrays(text)
    limit = min(entry_limit(), MAX_ARRAYS)
    for name, ctype, size, line, start in found[:limit]:
        dtype = _TYPES[ctype]
        extras: dict[str, object] = {"line": line}
        try:
            values = _initialiser(text, start, name, line, dtype, size)
        except ContainerError as error:
            entries.append(TensorEntry(name, None, True, (), 0, 0, ctype, extras, problem=error.message))
            continue
        if name in lengths and lengths[name] != values.size * values.itemsize:
            problems.append(f"C array '{printable_name(name)}': {name}_len says {lengths[name]:,} bytes, the "
                            f"initialiser has {values.size * values.itemsize:,}")
        holds = _holds(values)
        if holds:
            extras["holds"] = holds
        entries.append(TensorEntry(name, dtype, True, (int(values.size),), 0, 0, ctype, extras, storage=Storage.COPY))
    if len(found) > limit:
        problems.append(not_listed(len(found) - limit, "arrays"))
    metadata = {"arrays": str(len(found))}
    return ContainerListing("c-arrays", reader.path, tuple(entries), metadata, tuple(problems))


def _holds(values: np.ndarray) -> str | None:
    if values.dtype != np.uint8 or values.size < 8:
        return None
    head = values[:8].tobytes()
    if head[4:8] == b"TFL3":
        return "a TFLite model (open it in a new window to list its tensors)"
    if head[:6] == b"\x93NUMPY":
        return "a .npy array"
    if head[:4] == b"GGUF":
        return "a GGUF model"
    return None


def _initialiser(text: str, start: int, name: str, line: int, dtype: str, size: str) -> np.ndarray:
    """The numbers between ``{`` (just before ``start``) and its ``}``, as ``dtype``."""
    end = text.find("}", start)
    if end < 0 or "{" in text[start:end] or ";" in text[start:end]:
        raise ContainerError(f"C array '{printable_name(name)}' (line {line}): its initialiser has no closing '}}'",
                             field="tensor")
    body = text[start:end]
    tokens = [t.strip() for t in body.split(",")]
    if tokens and tokens[-1] == "":
        tokens.pop()  # a trailing comma
    floating = dtype in ("float32", "float64")
    numbers: list = []
    for index, token in enumerate(tokens):
        number = _number(token, floating)
        if number is None:
            where = line + body[: body.find(token) if token else 0].count("\n")
            shown = token[:40] if token else "(nothing between two commas)"
            raise ContainerError(f"C array '{printable_name(name)}' (line {where}): value {index} is "
                                 f"{printable_name(shown)!r}, not a number (an initialiser of literals only: no "
                                 "expression or macro is evaluated)", field="tensor")
        numbers.append(number)
    declared = None
    if size:
        if not re.fullmatch(r"\d+[uUlL]*", size):
            raise ContainerError(f"C array '{printable_name(name)}' (line {line}): its size {size[:40]!r} is not a "
                                 "number (a macro is not expanded)", field="tensor")
        declared = int(size.rstrip("uUlL"))
        if len(numbers) > declared:
            raise ContainerError(f"C array '{printable_name(name)}' (line {line}): {len(numbers):,} values for "
                                 f"{declared:,} elements", field="tensor")
    count = declared if declared is not None else len(numbers)
    target = np.dtype(dtype if dtype != "bool" else np.bool_)
    check_copy_budget(count * target.itemsize, f"the C array '{printable_name(name)}'", "split the array",
                      field="tensor")
    out = np.zeros(count, target)
    if not numbers:
        return out
    if floating:
        out[: len(numbers)] = np.array(numbers, np.float64).astype(target)
        return out
    info = np.iinfo(target) if target.kind in "iu" else None
    for number in (min(numbers), max(numbers)):
        if info is not None and not info.min <= number <= info.max and not (
                target.kind == "i" and 0 <= number <= 2 * info.max + 1):  # 0xff in a (signed) char
            raise ContainerError(f"C array '{printable_name(name)}' (line {line}): the value {number} does not "
                                 f"fit its type {target.name}", field="tensor")
    values = np.array(numbers, np.int64 if target.kind != "u" or target.itemsize < 8 else np.uint64)
    out[: len(numbers)] = values.astype(target)  # two's complement, as C converts 0xff to a char
    return out


def _number(token: str, floating: bool) -> int | float | None:
    if len(token) >= 3 and token[0] == "'" and token[-1] == "'":
        inner = token[1:-1]
        escapes = {r"\n": 10, r"\t": 9, r"\r": 13, r"\0": 0, r"\\": 92, r"\'": 39}
        if inner in escapes:
            return escapes[inner]
        if re.fullmatch(r"\\x[0-9a-fA-F]{1,2}", inner):
            return int(inner[2:], 16)
        return ord(inner) if len(inner) == 1 else None
    if _INTEGER.match(token):
        text = token.rstrip("uUlL")
        sign = -1 if text.startswith("-") else 1
        text = text.lstrip("+-")
        if text.lower().startswith("0x"):
            return sign * int(text, 16)
        return sign * (int(text, 8) if len(text) > 1 and text.startswith("0") else int(text))
    if floating and _FLOAT.match(token):
        return float(token.rstrip("fFlL"))
    return None


def c_array_values(source: Source, entry: TensorEntry) -> EntryValues:
    """The values of one array: its initialiser parsed again from the file (module rules).

    Raises
    ------
    ContainerError
        ``field="tensor"``: the array is no longer in the file, or its initialiser is refused.
    BudgetError
        Over the copy budget.
    """
    reader = HeaderReader(source, 0, "c-arrays")  # type: ignore[arg-type]
    text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), _text_of(reader))
    for name, ctype, size, line, start in _arrays(text):
        if name == entry.name:
            values = _initialiser(text, start, name, line, _TYPES[ctype], size)
            return EntryValues.stored_copy(values, "parsed", f"the C array '{printable_name(name)}' (line {line}), "
                                           "its initialiser parsed")
    raise ContainerError(f"the file no longer defines the C array '{printable_name(entry.name)}' (list it again)",
                         field="tensor")


FORMAT = ContainerFormat("c-arrays", sniff_c_arrays, list_c_arrays, c_array_values)
