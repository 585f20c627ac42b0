"""How plausible the fields of a record layout look on a sample of records, and the layout's
score from theirs.

Rules:

- **Which judge** (:mod:`core.guess.value_checks` has each kind's rules): a field named like
  padding (:data:`PADDING_NAMES`: ``pad``, ``_pad2``, ``reserved``, ``unused``, ``spare``...)
  is padding; a bit field is judged from its computed values; a bool from its bytes; a field
  with enumerators as an enum; a float type as floats; an array of at least 4 one-byte
  integers as text when it reads as text; every other as integers. An array field is judged
  on its first :data:`MAX_ELEMENTS` elements (a spectrum of 1,000 floats costs what 64 do).
- **Padding**: the bytes of the record that no field covers (a field list's ``pad:N``, C's
  alignment padding, the end of a record after ``size:N``) are judged as padding, one check per
  run (``(padding @21)``); bits of bytes that bit fields use only in part (``(unused bits
  @16)``) by the share of records in which they are 0, ``0.5 + 0.5 * share`` (weight 0.25).
- **The layout's score** (:func:`combined_score`): the weighted mean of its fields' scores
  times ``min(1, 0.3 + 2 * worst)``, ``worst`` the lowest score among the fields of weight 0.5
  or more: one float field of NaNs makes the layout implausible whatever the other fields say,
  one field that looks random (a checksum: 0.3) costs a tenth. A layout whose fields are all
  constants, a few bits or padding scores at most :data:`UNTOLD_SCORE` (an all-zero file fits
  every layout).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from core.dtypes.table import type_row
from core.guess.value_checks import (
    FieldCheck,
    judge_bits,
    judge_bool,
    judge_enum,
    judge_float,
    judge_integer,
    judge_padding_bytes,
    judge_text,
)
from core.records.layout import Column, Field, RecordLayout
from core.text.figures import format_percentage

__all__ = ["MAX_ELEMENTS", "PADDING_NAMES", "UNTOLD_SCORE", "FieldCheck", "combined_score", "is_padding_name",
           "judge_fields", "judged_columns"]

#: Names of fields that are padding (matched whole, on the last part of a dotted name).
PADDING_NAMES = re.compile(r"_*(pad|padding|reserved|unused|spare)\d*_*|_+")
#: Most a layout scores when no field but padding tells anything (every one constant).
UNTOLD_SCORE = 0.5
#: Elements of an array field judged (its first ones).
MAX_ELEMENTS = 64


def is_padding_name(name: str) -> bool:
    """Whether a field called ``name`` is padding by its name (:data:`PADDING_NAMES`)."""
    last = re.sub(r"(\[\d+\])+$", "", name.rsplit(".", 1)[-1])
    return PADDING_NAMES.fullmatch(last.lower()) is not None


def judge_fields(layout: RecordLayout, data: np.ndarray, breaks: Sequence[int] = ()) -> tuple[FieldCheck, ...]:
    """Every field of ``layout`` judged on ``data`` (uint8 of shape ``(records, itemsize)``,
    records in file order), then the padding between them (module rules). ``breaks``: the
    indices of records that follow a gap in the file (a new piece of the sample): the steps
    into them count for a counter's direction but not for the steps it reports."""
    count = data.shape[0]
    records = layout.records(data.reshape(-1))
    inside = np.ones(max(count - 1, 0), dtype=bool)
    inside[[b - 1 for b in breaks if 0 < b < count]] = False
    with np.errstate(all="ignore"):
        out = [_judge(layout, leaf, records, data, count, inside) for leaf in layout.fields]
        out += _judge_padding(layout, data, count)
    return tuple(out)


def judged_columns(layout: RecordLayout) -> int:
    """How many values of each record :func:`judge_fields` judges (without the padding's)."""
    return sum(min(math.prod(leaf.shape), MAX_ELEMENTS) for leaf in layout.fields)


def combined_score(checks: Sequence[FieldCheck]) -> float:
    """The layout's score from its fields' (module rules): 0 when there are none."""
    total = sum(c.weight for c in checks)
    if total == 0:
        return 0.0
    mean = sum(c.weight * c.score for c in checks) / total
    telling = [c.score for c in checks if c.weight >= 0.5]
    factor = min(1.0, 0.3 + 2 * min(telling)) if telling else 1.0
    score = mean * factor
    if not any(c.weight >= 0.5 and c.kind != "padding" for c in checks):
        score = min(score, UNTOLD_SCORE)  # constants and padding only: nothing tells
    return float(min(max(score, 0.0), 1.0))


# -- one field ---------------------------------------------------------------------------------
def _judge(layout: RecordLayout, leaf: Field, records: np.ndarray, data: np.ndarray, count: int,
           inside: np.ndarray) -> FieldCheck:
    name = leaf.name
    if is_padding_name(name) and not leaf.is_bits:
        return judge_padding_bytes(name, data[:, leaf.offset:leaf.offset + leaf.nbytes], count,
                                   f"{name} ({_byte_count(leaf.nbytes)} of padding)")
    if leaf.is_bits:
        values = layout.values(records, Column(name, leaf)).reshape(count, 1)
        return judge_bits(name, leaf, values, count, inside)
    values = records[name].reshape(count, -1)[:, :MAX_ELEMENTS]
    row = type_row(leaf.dtype)
    if row.kind == "bool":
        return judge_bool(name, data[:, leaf.offset:leaf.offset + leaf.nbytes], count)
    if leaf.enum:
        return judge_enum(name, leaf, values, count)
    if row.kind in ("float", "complex"):
        return judge_float(name, values, row, count)
    if row.itemsize == 1 and values.shape[1] >= 4:
        text = judge_text(name, values, count)
        if text is not None:
            return text
    return judge_integer(name, values, row.stored_bits, row.itemsize, leaf.dtype, count, inside)


def _byte_count(count: int) -> str:
    return f"{count:,} byte{'s' if count != 1 else ''}"


# -- padding -------------------------------------------------------------------------------------
def _judge_padding(layout: RecordLayout, data: np.ndarray, count: int) -> list[FieldCheck]:
    """Bytes no field covers, and bits of partly used bytes (module rules)."""
    covered = _coverage(layout)
    out = []
    full = covered == 0xFF
    empty = covered == 0
    for start, end in _runs(empty):
        out.append(judge_padding_bytes(f"(padding @{start})", data[:, start:end], count,
                                       f"the {_byte_count(end - start)} of padding @{start}"))
    for start, end in _runs(~full & ~empty):
        mask = (~covered[start:end]).astype(np.uint8)
        clear = ((data[:, start:end] & mask) == 0).all(axis=1)
        share = float(clear.mean()) if count else 1.0
        unused = int(sum(bin(int(m)).count("1") for m in mask))
        where = f"@{start}" if end - start == 1 else f"@{start}-{end - 1}"
        bits = "the 1 bit" if unused == 1 else f"the {unused} bits"
        out.append(FieldCheck(f"(unused bits {where})", 0.5 + 0.5 * share,
                              (f"{bits} {where} that no bit field uses {'is' if unused == 1 else 'are'} 0 in "
                               f"{format_percentage(share)} of the records",), "padding", 0.25))
    return out


def _coverage(layout: RecordLayout) -> np.ndarray:
    """Per byte of the record, the bits some field covers (0xFF: the whole byte)."""
    covered = np.zeros(layout.itemsize, dtype=np.uint8)
    for leaf in layout.fields:
        if not leaf.is_bits:
            covered[leaf.offset:leaf.offset + leaf.nbytes] = 0xFF
            continue
        size = leaf.itemsize
        low = leaf.bit if leaf.little_endian else size * 8 - leaf.bit - leaf.width  # from the unit's LSB
        for bit in range(low, low + leaf.width):
            byte = bit // 8 if leaf.little_endian else size - 1 - bit // 8
            covered[leaf.offset + byte] |= np.uint8(1 << (bit % 8))
    return covered


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """``(start, end)`` of the runs of True in ``flags``."""
    edges = np.diff(np.concatenate(([0], flags.astype(np.int8), [0])))
    return list(zip(np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist()))
