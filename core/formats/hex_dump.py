"""Hex dumps as the bytes they show: ``xxd``, ``hexdump -C`` and ``od -Ax -tx1`` output.

Rules
-----
- **Recognised** by its first line: an offset of 0 in hex, then hex bytes, in one of the three
  dialects: ``00000000: 6865 6c6c ...  hello`` (xxd, any group size), ``00000000  68 65 ...
  |hello|`` (hexdump -C), ``000000 68 65 ...`` (od -Ax -tx1).
- **The bytes**: each line's hex digits after its offset (the text column after them is left
  out), lines in order. Every line must start where the one before ended; a ``*`` line (a run of
  repeated lines that the tool squeezed) repeats the line before it up to the next line's
  offset; a last line of an offset alone is the dump's length and must be where the bytes end.
  Anything else (a gap, a line that goes back, odd hex digits, a line that is not of the dump's
  dialect) is refused naming the line. The one entry, ``bytes``, is their copy (``uint8``);
  open it in a new window to decode them as anything (or to list them as a container).
- At most :data:`MAX_TEXT_BYTES` of text, and the bytes within the copy budget.
"""

from __future__ import annotations

import re

import numpy as np

from core.budget import check_copy_budget
from core.errors import ContainerError
from core.files.sources import Source
from core.formats.entry import ContainerFormat, ContainerListing, EntryValues, Storage, TensorEntry
from core.formats.reader import HeaderReader

__all__ = ["FORMAT", "MAX_TEXT_BYTES", "dump_bytes", "sniff_hex_dump"]

#: Largest dump read (a 64 MiB file's hexdump -C is about 270 MB).
MAX_TEXT_BYTES = 512 * 1024 * 1024

_DIALECTS = {
    "xxd": re.compile(r"(?P<offset>[0-9a-fA-F]{8,16}): (?P<hex>(?:[0-9a-fA-F]{2})+(?: (?:[0-9a-fA-F]{2})+)*)"
                      r"(?:  .*)?"),
    "hexdump -C": re.compile(r"(?P<offset>[0-9a-fA-F]{8,16})  (?P<hex>[0-9a-fA-F]{2}(?:  ? ?[0-9a-fA-F]{2})*)"
                             r"\s*(?:\|.*\|)?"),
    "od": re.compile(r"(?P<offset>[0-9a-fA-F]{6,16})(?P<hex>(?: [0-9a-fA-F]{2})+)"),
}
_OFFSET_ONLY = re.compile(r"[0-9a-fA-F]{6,16}")


def _dialect(first: str) -> str | None:
    for name, pattern in _DIALECTS.items():
        match = pattern.fullmatch(first.rstrip())
        if match and int(match["offset"], 16) == 0:
            return name
    return None


def sniff_hex_dump(head: bytes, size: int) -> bool:
    """The first line is a hex dump's first line (module rules)."""
    try:
        text = head.decode("ascii")
    except UnicodeDecodeError:
        return False
    first = text.split("\n", 1)[0]
    return "\n" in text and _dialect(first) is not None


def dump_bytes(text: str, budget_what: str = "the dump's bytes") -> tuple[np.ndarray, str]:
    """The bytes a hex dump shows and its dialect (module rules).

    Raises
    ------
    ContainerError
        ``field="tensor"``: a line that breaks the rules, named.
    BudgetError
        More bytes than the copy budget.
    """
    lines = text.splitlines()
    dialect = _dialect(lines[0]) if lines else None
    if dialect is None:
        raise ContainerError("the first line is not the start of an xxd, hexdump -C or od dump", field="tensor")
    pattern = _DIALECTS[dialect]
    pieces: list[bytes] = []
    position, last, squeezed, ended = 0, b"", False, None
    for number, line in enumerate(lines, start=1):
        stripped = line.rstrip()
        if not stripped:
            continue
        if ended is not None:
            raise ContainerError(f"line {number} of the {dialect} dump follows its length line (line {ended})",
                                 field="tensor")
        if stripped == "*":
            squeezed = True
            continue
        if _OFFSET_ONLY.fullmatch(stripped) and dialect != "xxd":
            offset = int(stripped, 16)
            position = _fill(pieces, position, offset, last, squeezed, number, dialect, check=False)
            if offset != position:
                raise ContainerError(f"line {number} of the {dialect} dump says the dump is {offset:,} bytes, but its "
                                     f"lines hold {position:,}", field="tensor")
            ended = number
            continue
        match = pattern.fullmatch(stripped)
        if match is None:
            raise ContainerError(f"line {number} of the {dialect} dump is not a line of it: {stripped[:60]!r}",
                                 field="tensor")
        offset = int(match["offset"], 16)
        position = _fill(pieces, position, offset, last, squeezed, number, dialect)
        squeezed = False
        digits = re.sub(r"\s+", "", match["hex"])
        data = bytes.fromhex(digits)
        check_copy_budget(position + len(data), budget_what, "convert the dump back to binary (xxd -r)",
                          field="tensor")
        pieces.append(data)
        position += len(data)
        last = data
    if squeezed:
        raise ContainerError(f"the {dialect} dump ends with a '*' line (its length line is missing)", field="tensor")
    return np.frombuffer(b"".join(pieces), np.uint8).copy(), dialect


def _fill(pieces: list[bytes], position: int, offset: int, last: bytes, squeezed: bool, number: int,
          dialect: str, check: bool = True) -> int:
    """Repeat ``last`` up to ``offset`` after a ``*`` line; check that line ``number`` starts where
    the bytes so far end."""
    if squeezed and last:
        while position < offset:
            chunk = last[: offset - position]
            pieces.append(chunk)
            position += len(chunk)
    if check and offset != position:
        raise ContainerError(f"line {number} of the {dialect} dump starts at offset {offset:#x}, but the lines "
                             f"before it end at {position:#x} (a gap or a line out of order)", field="tensor")
    return position


def _text(reader: HeaderReader) -> str:
    if reader.size > MAX_TEXT_BYTES:
        raise reader.error(f"it is {reader.size:,} bytes of text, more than the {MAX_TEXT_BYTES:,} read", None,
                           "convert it back to binary (xxd -r) and open that")
    return reader.read(0, reader.size, "hex dump").decode("ascii", "replace")


def list_hex_dump(reader: HeaderReader) -> ContainerListing:
    """The one entry of a hex dump: its bytes (module rules); a dump that breaks the rules is
    listed with that problem on the entry."""
    try:
        data, dialect = dump_bytes(_text(reader))
    except ContainerError as error:
        entry = TensorEntry("bytes", None, True, (), 0, 0, "hex dump", {}, problem=error.message)
        return ContainerListing("hex-dump", reader.path, (entry,), {}, ())
    entry = TensorEntry("bytes", "uint8", True, (int(data.size),), 0, 0, "hex dump", {"dialect": dialect},
                        storage=Storage.COPY)
    return ContainerListing("hex-dump", reader.path, (entry,), {"dialect": dialect, "bytes": f"{data.size:,}"}, ())


def hex_dump_values(source: Source, entry: TensorEntry) -> EntryValues:
    """The dump's bytes, parsed again from the file."""
    reader = HeaderReader(source, 0, "hex-dump")  # type: ignore[arg-type]
    data, dialect = dump_bytes(_text(reader))
    return EntryValues.stored_copy(data, "parsed", f"the bytes of the {dialect} dump")


FORMAT = ContainerFormat("hex-dump", sniff_hex_dump, list_hex_dump, hex_dump_values)
