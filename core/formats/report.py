"""A container listing as text (a table) and as JSON (the command's ``--list`` output).

Rule: one row per entry, in the container's order: name, dtype (the engine type, or ``-`` when
it cannot be decoded, with the stored type in the notes), shape in C order, kind (``view``,
``copy`` or ``computed``: :class:`~core.formats.entry.Storage`), file offset of the first data
byte, bytes of data, and notes (the strides of a view not in C order, the file of an entry
stored in another one, the other entries sharing its bytes, the stored type when it differs from the engine's,
the quantization's short form (``q: scale 0.02 zp 128``, ``q: per-channel axis 0 (64)``), the
format's extras, and the problem of an entry that cannot be shown). The JSON gives every entry
``"quantization"``: ``{"scale": [...], "zero_point": [...], "axis": N or null}``, or null, and
``"record_layout"``: the numpy dtype description of an entry of records (its notes say ``record
size N; fields K``), or null. Names and notes come
from the file, so they are written with control characters escaped
(:func:`core.text.names.printable_name`); the JSON keeps them as strings (JSON escapes them).
"""

from __future__ import annotations

import math

from core.formats.entry import ContainerListing, TensorEntry
from core.text.names import printable_name

__all__ = ["listing_json", "listing_table", "quantization_text", "sharing_text"]

_COLUMNS = ("name", "dtype", "shape", "kind", "offset", "bytes", "notes")
#: Longest name or shape shown in the table (longer ones are cut with "...").
_MAX_CELL = 60


def _shape_text(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def sharing_text(entry: TensorEntry) -> str:
    """Where an entry's bytes are and who else has them, for the Tensors dock's ``sharing``
    column: ``file NAME`` when it lives in another file (a shard, external data), ``shares A,
    B`` for the other entries on its bytes (tied weights); empty for neither."""
    parts = []
    if entry.file is not None:
        parts.append(f"file {printable_name(entry.file)}")
    if entry.shares:
        parts.append("shares " + ", ".join(printable_name(name) for name in entry.shares))
    return "; ".join(parts)


def quantization_text(entry: TensorEntry) -> str:
    """An entry's quantization in a few words, for the Tensors dock's ``quantization`` column:
    the short form of :class:`~core.formats.entry.Quantization` (``scale 0.02 zp 128``,
    ``per-channel axis 0 (64)``), a block type (GGUF's ``Q4_K blocks``), ``not used`` for
    parameters that do not fit (its notes say why); empty for an entry that is not quantized."""
    if entry.quantization is not None:
        return entry.quantization.summary()
    if "quantization not used" in entry.extras:
        return "not used"
    block = entry.extras.get("quantization")
    return f"{printable_name(str(block))} blocks" if block is not None else ""


def _notes(entry: TensorEntry) -> str:
    parts = []
    if entry.strides is not None:
        parts.append(f"strides {entry.strides}")
    if entry.file is not None:
        parts.append(f"in file {entry.file}")
    if entry.shares:
        parts.append("shares bytes with " + ", ".join(entry.shares))
    if entry.stored_type and entry.stored_type != entry.dtype:
        parts.append(f"stored as {entry.stored_type}")
    if not entry.little_endian:
        parts.append("big-endian")
    if entry.quantization is not None:
        parts.append("q: " + entry.quantization.summary())
    parts.extend(f"{key} {value}" for key, value in entry.extras.items())
    if entry.problem:
        parts.append("NOT MAPPABLE: " + entry.problem)
    return "; ".join(parts)


def _cut(text: str) -> str:
    return text if len(text) <= _MAX_CELL else text[:_MAX_CELL - 3] + "..."


def listing_table(listing: ContainerListing) -> str:
    """The listing as a readable table, with a title line, the metadata and the problems."""
    rows = [tuple(_COLUMNS)]
    for entry in listing.entries:
        rows.append((_cut(printable_name(entry.name)), entry.dtype or "-",
                     _cut(_shape_text(entry.shape)), entry.storage.value, str(entry.offset),
                     str(entry.nbytes), printable_name(_notes(entry))))
    widths = [max(len(row[i]) for row in rows) for i in range(len(_COLUMNS) - 1)]
    count = len(listing.entries)
    lines = [f"{listing.format} file '{printable_name(listing.path)}': {count} "
             f"tensor{'s' if count != 1 else ''}"]
    for key, value in listing.metadata.items():
        lines.append(f"  {printable_name(key)}: {printable_name(value)}")
    for row in rows:
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1]), row[2].ljust(widths[2]),
                 row[3].ljust(widths[3]), row[4].rjust(widths[4]), row[5].rjust(widths[5]), row[6]]
        lines.append("  ".join(cells).rstrip())
    for problem in listing.problems:
        lines.append(f"problem: {printable_name(problem)}")
    return "\n".join(lines) + "\n"


def _json_scalar(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # JSON has no NaN or infinity
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, tuple):
        return [_json_scalar(v) for v in value]
    return str(value)


def listing_json(listing: ContainerListing) -> dict:
    """The listing as a JSON-ready dict: format, path, metadata, problems and tensors."""
    return {
        "format": listing.format,
        "path": listing.path,
        "metadata": dict(listing.metadata),
        "problems": list(listing.problems),
        "tensors": [
            {
                "name": e.name, "dtype": e.dtype, "stored_type": e.stored_type,
                "byte_order": "little" if e.little_endian else "big", "shape": list(e.shape),
                "storage": e.storage.value,
                "strides": list(e.strides) if e.strides is not None else None,
                "file": e.file, "shares": list(e.shares) if e.shares else None, "offset": e.offset, "nbytes": e.nbytes, "mappable": e.mappable,
                "problem": e.problem,
                "quantization": e.quantization.as_json() if e.quantization is not None else None,
                "record_layout": e.record_layout,
                "extras": {k: _json_scalar(v) for k, v in e.extras.items()},
            }
            for e in listing.entries
        ],
    }
