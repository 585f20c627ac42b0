"""How plausible the values of one field of a record layout look, by the field's kind.

A field's check (:class:`FieldCheck`) has a score from 0 (its values cannot be what the layout
says) to 1 (they look like real data), a weight (how much the field can tell: a constant or a
1-bit flag says little) and reasons, short sentences that name the field and give the numbers.
Values come as an array of ``(records, elements)`` in file order. The rules, by kind:

- **float** (float16 ... float64, complex): the share ``b`` of values that are NaN, infinite,
  subnormal or beyond :data:`core.guess.plausibility.PLAUSIBLE_MAGNITUDES` (1e30; 1e200 for
  8-byte floats), and the exponents the middle 98% of the values spans
  (:func:`core.guess.plausibility.float_measures`): misaligned bytes give exponents spread over
  the whole range. Score ``max(0, 1 - 4 b) * (0.4 + 0.6 * min(1, concentration / 0.25))``,
  times 0.3 when the values' median magnitude is outside :data:`TYPICAL_MAGNITUDES` (1e-20 to
  1e20: values like 1e-28 come from an integer's low bytes read as an exponent).
- **integer**, in this order: a field whose 4- or 8-byte values, read as a float of that size,
  are nearly all (:data:`FLOAT_BITS_SHARE` of the nonzero ones, which are at least half) between
  1e-6 and 1e6 in magnitude is a float read as an integer (score 0.1). At most
  :data:`MAX_CODES` distinct values over at least twice as many records are **codes** (score
  0.9, weight 0.5). A field that never decreases (or never increases) over the records, but for
  at most 1% of the steps that change it (wrap-arounds), is a **counter** or timestamp (score
  1; 0.4 when its steps are 256 or more and its lowest byte never changes: a counter read a
  byte off). A field of 2 bytes or more whose halves each read as a smooth signal
  (:func:`core.guess.plausibility.halves_as_channels`) is two narrower fields (score 0.3).
  Otherwise the bits the middle 98% of the values spans and the smoothness between neighbouring
  records (:func:`core.guess.plausibility.smoothness`): values over the whole range of the type
  (concentration below 0.15) that neighbouring records do not follow (smoothness below 0.2) look
  random (score 0.3: misaligned bytes, or noise, a checksum); else ``min(1, 0.3 +
  2.5 * concentration + 0.5 * smoothness)``.
- **enum**: the share of values that are named enumerators is the score.
- **bool**: the share of bytes that are 0 or 1 is the score (weight 0.75).
- **bit field**: up to 4 bits any value is possible (score 0.75, weight 0.25: the share of
  records where it is nonzero is said); wider ones are judged as integers of their width
  (weight 0.5).
- **text**: an array of at least 4 bytes (``char name[16]``) whose bytes are nearly all
  (:data:`TEXT_SHARE`) printable ASCII or NUL, with some printable (score 1, weight 0.5).
- **padding** bytes: the share equal to their most common byte (0 normally) gives ``0.5 + 0.5 *
  share`` (weight 0.5): padding may hold leftover bytes, so it never condemns a layout alone.
- A field whose every sampled value is the same (the values of one record too) is a
  **constant** (score 0.8, weight 0.25), unless the value itself is impossible (a float NaN,
  infinite or absurd: score 0.1; an enum value without a name, a bool byte above 1: judged as
  such).

Measures that compare neighbouring records (counter, smoothness) need :data:`MIN_SEQUENCE`
records; with fewer, only the values themselves are judged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.dtypes.table import type_row
from core.guess.plausibility import PLAUSIBLE_MAGNITUDES, float_measures, halves_as_channels, int_measures, smoothness
from core.records.layout import Field
from core.text.figures import format_correlation, format_estimate, format_percentage, format_share
from core.text.number_format import format_value

__all__ = ["FLOAT_BITS_SHARE", "MAX_CODES", "MIN_SEQUENCE", "TEXT_SHARE", "TYPICAL_MAGNITUDES", "FieldCheck",
           "judge_bits", "judge_bool", "judge_enum", "judge_float", "judge_integer", "judge_padding_bytes",
           "judge_text"]

#: Fewest records for the measures between neighbouring records.
MIN_SEQUENCE = 8
#: Most distinct values of an integer field read as codes (states, modes, channel numbers).
MAX_CODES = 16
#: Share of an integer field's nonzero values that must read as ordinary floats to be floats.
FLOAT_BITS_SHARE = 0.95
#: Typical (median) magnitudes of measured quantities: a float field whose values lie far outside
#: reads the wrong bytes.
TYPICAL_MAGNITUDES = (1e-20, 1e20)
#: Share of printable ASCII or NUL bytes that makes a byte array text.
TEXT_SHARE = 0.95
#: Element columns of an array field measured between neighbouring records.
_SEQUENCE_COLUMNS = 16


@dataclass(frozen=True)
class FieldCheck:
    """What the sampled values of one field say of the layout (module rules).

    Attributes
    ----------
    name
        The field's name; padding that no field covers is ``(padding @17)``, bits no bit field
        uses ``(unused bits @16)`` (:mod:`core.guess.field_checks`).
    score
        0 (impossible values) to 1 (plausible).
    reasons
        Short sentences naming the field, with numbers, ready to show.
    kind
        What the values were judged as: ``float``, ``integer``, ``counter``, ``codes``,
        ``enum``, ``bool``, ``bits``, ``text``, ``padding`` or ``constant``.
    weight
        How much the field counts in the layout's score.
    """

    name: str
    score: float
    reasons: tuple[str, ...]
    kind: str = "integer"
    weight: float = 1.0


def _records(count: int) -> str:
    return f"{count:,} record{'s' if count != 1 else ''}"


def _constant(name: str, values: np.ndarray, count: int) -> FieldCheck | None:
    """A constant field's check (one record's values count as constant), None when its values
    differ."""
    flat = values.reshape(-1)
    if flat.size == 0 or not (flat == flat[0]).all() and not _all_nan(flat):
        return None
    shown = format_value(flat[0], values.dtype)
    where = "in the one record" if count == 1 else f"in every one of the {_records(count)}"
    return FieldCheck(name, 0.8, (f"{name} is {shown} {where}",), "constant", 0.25)


def _all_nan(flat: np.ndarray) -> bool:
    return flat.dtype.kind in "fc" and bool(np.isnan(flat).all())


def judge_float(name: str, values: np.ndarray, row, count: int) -> FieldCheck:
    """A float field (module rules); ``row`` is its type's row of the type table."""
    concentration, bad, span = float_measures(values.reshape(-1), row)
    layout = row.part or row
    huge = f"1e{round(math.log10(PLAUSIBLE_MAGNITUDES[layout.itemsize][1]))}"
    exponents = 2 ** layout.exponent_bits
    constant = _constant(name, values, count)
    if constant is not None:
        if bad > 0.5:
            return FieldCheck(name, 0.1, (constant.reasons[0] + f": not a plausible value (NaN, infinite, subnormal "
                                                                 f"or beyond {huge}): misaligned?",), "float")
        return constant
    reasons = []
    if bad > 0.01:
        reasons.append(f"{name}: {format_percentage(bad)} of the values are NaN, infinite, subnormal or beyond "
                       f"{huge}: misaligned?")
    if concentration < 0.1 and span > 1:
        reasons.append(f"{name}: exponents span {span} of {exponents} values: the signature of misaligned bytes")
    typical = _typical_magnitude(values)
    odd = typical is not None and not TYPICAL_MAGNITUDES[0] <= typical <= TYPICAL_MAGNITUDES[1]
    if odd:
        reasons.append(f"{name}: the values' typical magnitude is {format_estimate(typical)}, far from any measured quantity "
                       "(misaligned?)")
    if not reasons:
        finite = values.reshape(-1)
        finite = finite[np.isfinite(finite)] if finite.dtype.kind != "c" else finite
        low, high = (finite.min(), finite.max()) if finite.size and finite.dtype.kind != "c" else (None, None)
        where = f"from {format_value(low, values.dtype)} to {format_value(high, values.dtype)} " if low is not None \
            else ""
        reasons.append(f"{name}: plausible floats {where}(exponents span {span} of {exponents} values)")
    score = max(0.0, 1.0 - 4.0 * bad) * (0.4 + 0.6 * min(1.0, max(concentration, 0.0) / 0.25))
    return FieldCheck(name, score * (0.3 if odd else 1.0), tuple(reasons), "float")


def _typical_magnitude(values: np.ndarray) -> float | None:
    """The median magnitude of the finite nonzero values, None when there are none."""
    magnitudes = np.abs(values.reshape(-1).astype(np.complex128 if values.dtype.kind == "c" else np.float64))
    magnitudes = magnitudes[np.isfinite(magnitudes) & (magnitudes > 0)]
    return float(np.median(magnitudes)) if magnitudes.size else None


def judge_integer(name: str, values: np.ndarray, bits: int, itemsize: int, dtype: str, count: int,
                  inside: np.ndarray, weight: float = 1.0) -> FieldCheck:
    """An integer field of ``bits`` bits (``itemsize`` bytes, 0 for a bit field; ``dtype`` its
    type's name in the reasons) by the module rules, in their order. ``inside``: per step
    between neighbouring records, whether both come from one piece of the file (the steps a
    counter reports)."""
    constant = _constant(name, values, count)
    if constant is not None:
        return constant
    as_float = _float_bits(name, values, itemsize, dtype)
    if as_float is not None:
        return as_float
    flat = values.reshape(-1)
    distinct = np.unique(flat)
    if count >= 2 * MAX_CODES and distinct.size <= MAX_CODES:  # before the counter: a mode that steps up
        listed = ", ".join(format_value(v, values.dtype) for v in distinct[:6]) + (", ..." if distinct.size > 6 else "")
        return FieldCheck(name, 0.9, (f"{name} takes {distinct.size} distinct values ({listed})",), "codes",
                          0.5 * weight)
    counter = _counter(name, values, count, inside, itemsize)
    if counter is not None:
        return FieldCheck(counter.name, counter.score, counter.reasons, counter.kind, weight)
    if itemsize >= 2 and halves_as_channels(values[:, 0], type_row(dtype)):
        half = f"int{itemsize * 4}"
        return FieldCheck(name, 0.3, (f"{name}: each {itemsize // 2}-byte half reads as its own smooth signal: two "
                                      f"{half} fields read as one {dtype}?",), "integer", weight)
    concentration, used = int_measures(flat, bits)
    smooth = _sequence_smoothness(values) if count >= MIN_SEQUENCE else None
    low, high = format_value(flat.min(), values.dtype), format_value(flat.max(), values.dtype)
    if concentration < 0.15 and (smooth is None or smooth < 0.2):
        follow = "" if smooth is None else " and neighbouring records look unrelated"
        return FieldCheck(name, 0.3, (f"{name}: values spread over the whole {dtype} range (about {used} of {bits} "
                                      f"bits used){follow}: misaligned, or noise?",), "integer", weight)
    reason = f"{name}: values from {low} to {high} (about {used} of {bits} bits used)"
    if smooth is not None:
        reason += (f"; neighbouring records are close (smoothness {format_correlation(smooth)})" if smooth >= 0.2 else
                   f"; neighbouring records look unrelated (smoothness {format_correlation(smooth)})")
    score = min(1.0, 0.3 + 2.5 * max(concentration, 0.0) + 0.5 * max(smooth or 0.0, 0.0))
    return FieldCheck(name, score, (reason,), "integer", weight)


def _float_bits(name: str, values: np.ndarray, itemsize: int, dtype: str) -> FieldCheck | None:
    """The check of a 4- or 8-byte integer field that holds the bits of floats, else None."""
    if itemsize not in (4, 8):
        return None
    native = values.reshape(-1).astype(values.dtype.newbyteorder("="))
    floats = native.view(f"f{itemsize}")
    nonzero = floats[native != 0]
    if nonzero.size < max(1, native.size // 2):
        return None
    magnitudes = np.abs(nonzero.astype(np.float64))
    ordinary = (magnitudes >= 1e-6) & (magnitudes <= 1e6)
    share = float(ordinary.mean())
    if share < FLOAT_BITS_SHARE:
        return None
    kept = nonzero[ordinary]
    float_name = f"float{itemsize * 8}"
    return FieldCheck(name, 0.1, (f"{name}: {format_percentage(share)} of the values read as {float_name} would lie "
                                  f"between {format_value(kept.min(), kept.dtype)} and "
                                  f"{format_value(kept.max(), kept.dtype)}: a {float_name} field read as {dtype}?",),
                      "integer")


def _counter(name: str, values: np.ndarray, count: int, inside: np.ndarray, itemsize: int) -> FieldCheck | None:
    """The check of a field that never decreases (or never increases), else None."""
    if count < MIN_SEQUENCE:
        return None
    all_steps = np.diff(values[:, :_SEQUENCE_COLUMNS].astype(np.float64), axis=0)
    moved = all_steps[all_steps != 0]
    if moved.size < 2:
        return None
    up = float((moved > 0).mean())
    direction, share = ("decreases", up) if up >= 0.5 else ("increases", 1.0 - up)
    if share < 0.99:
        return None
    against = int(moved.size - round(share * moved.size))
    steps = all_steps[inside]
    forward = np.abs(steps[(steps > 0) if direction == "decreases" else (steps < 0)])
    if forward.size == 0:
        forward = np.abs(moved)
    steps_text = f"steps of {_integral(forward.min())} to {_integral(forward.max())}"
    except_text = f" but {against} time{'s' if against != 1 else ''} (wrap-arounds?)" if against else ""
    said = f"{name} never {direction} over {_records(count)}{except_text} ({steps_text})"
    low = values[:, 0].astype(np.uint64) & np.uint64(0xFF) if itemsize >= 2 else None
    if low is not None and (low == low[0]).all() and forward.min() >= 256:
        return FieldCheck(name, 0.4, (f"{said}, but its lowest byte is always 0x{int(low[0]):02X}: a counter read "
                                      "a byte off?",), "counter")
    return FieldCheck(name, 1.0, (f"{said}: a counter or timestamp",), "counter")


def _integral(value: float) -> str:
    """A step between integers (computed as a float) as a whole number with thousands separators."""
    return f"{int(value):,}" if float(value).is_integer() and abs(value) < 2**63 else format_value(value, np.float64)


def _sequence_smoothness(values: np.ndarray) -> float:
    columns = values[:, :_SEQUENCE_COLUMNS].astype(np.float64)
    return float(np.mean([smoothness(columns[:, k], 1) for k in range(columns.shape[1])]))


def judge_enum(name: str, leaf: Field, values: np.ndarray, count: int) -> FieldCheck:
    """An enum field: the share of its values that are named (module rules)."""
    flat = values.reshape(-1).astype(np.int64)
    named = np.isin(flat, np.fromiter(leaf.enum, dtype=np.int64))
    share = float(named.mean()) if flat.size else 0.0
    kind = leaf.ctype or "the enum"
    if share == 1.0 and (flat == flat[0]).all():
        where = "in the one record" if count == 1 else f"in every one of the {_records(count)}"
        return FieldCheck(name, 0.8, (f"{name} is {leaf.enum[int(flat[0])]} ({int(flat[0])}) {where}",), "constant",
                          0.25)
    if share == 1.0:
        found, counts = np.unique(flat, return_counts=True)
        order = np.argsort(-counts, kind="stable")[:4]
        listed = ", ".join(f"{leaf.enum[int(found[i])]} {format_share(int(counts[i]), flat.size)}" for i in order)
        return FieldCheck(name, 1.0, (f"{name}: every value is a name of {kind} ({listed})",), "enum")
    others = np.unique(flat[~named])[:3]
    examples = ", ".join(format_value(v, np.int64) for v in others)
    which = "no value is a name" if share == 0 else f"{format_percentage(1.0 - share)} of the values are not names"
    return FieldCheck(name, share, (f"{name}: {which} of {kind} (e.g. {examples}){': misaligned?' if share < 0.9 else ''}",),
                      "enum")


def judge_bool(name: str, raw: np.ndarray, count: int) -> FieldCheck:
    """A bool field from its bytes ``raw``: the share that are 0 or 1 (module rules)."""
    constant = _constant(name, raw, count)
    if constant is not None and raw.reshape(-1)[0] <= 1:
        return constant
    share = float((raw <= 1).mean())
    if share == 1.0:
        return FieldCheck(name, 1.0, (f"{name}: every value is 0 or 1 (1 in {format_percentage(float(raw.mean()))} of the records)",),
                          "bool", 0.75)
    return FieldCheck(name, share, (f"{name}: {format_percentage(1.0 - share)} of the values are neither 0 nor 1"
                                    f"{': not a bool here (misaligned?)' if share < 0.9 else ''}",), "bool", 0.75)


def judge_bits(name: str, leaf: Field, values: np.ndarray, count: int, inside: np.ndarray) -> FieldCheck:
    """A bit field from its computed values (module rules)."""
    constant = _constant(name, values, count)
    if constant is not None:
        return constant
    if leaf.width <= 4:
        set_share = float((values != 0).mean())
        return FieldCheck(name, 0.75, (f"{name} ({leaf.width} bit{'s' if leaf.width != 1 else ''}): nonzero in "
                                       f"{format_percentage(set_share)} of the records",), "bits", 0.25)
    check = judge_integer(name, values, leaf.width, 0, f"{leaf.width}-bit", count, inside, weight=0.5)
    return FieldCheck(name, check.score, check.reasons, "bits" if check.kind == "integer" else check.kind, check.weight)


def judge_text(name: str, values: np.ndarray, count: int) -> FieldCheck | None:
    """A byte array that reads as text (module rules), else None."""
    raw = values.view(np.uint8)
    printable = (raw >= 32) & (raw < 127)
    share = float((printable | (raw == 0)).mean())
    if share < TEXT_SHARE or not printable.any():
        return None
    first = bytes(raw[np.flatnonzero(printable.any(axis=1))[0]]).split(b"\0")[0][:24]
    example = first.decode("ascii", "replace")
    return FieldCheck(name, 1.0, (f"{name}: text ({format_percentage(share)} printable or NUL bytes), e.g. "
                                  f"{example!r}",), "text", 0.5)


def judge_padding_bytes(name: str, raw: np.ndarray, count: int, what: str) -> FieldCheck:
    """Bytes that should hold no value (``what`` says which): the share equal to their most
    common byte."""
    flat = raw.reshape(-1)
    if flat.size == 0:
        return FieldCheck(name, 1.0, (), "padding", 0.5)
    counts = np.bincount(flat, minlength=256)
    fill = int(np.argmax(counts))
    share = float(counts[fill] / flat.size)
    verb = "is" if flat.size == count else "are"
    where = "in the one record" if count == 1 else f"in every one of the {_records(count)}"
    if share == 1.0:
        text = f"{what} {verb} 0x{fill:02X} {where}"
    else:
        text = (f"{what}: {format_percentage(share)} {'of them ' if verb == 'are' else ''}{verb} 0x{fill:02X}"
                f"{' (leftover bytes, or the layout is off here)' if share < 0.9 else ''}")
    return FieldCheck(name, 0.5 + 0.5 * share, (text,), "padding", 0.5)
