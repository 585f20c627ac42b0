"""How plausible the sampled bytes are as values of each type and byte order.

Rule: for every candidate type (:data:`GUESS_TYPES`) and byte order the sample is scored on
three measures, combined as ``6 * smoothness + 4 * concentration - 12 * implausible + prior``:

* **item phase** (where items start, modulo the item size) comes first, from the entropy of the
  bytes at each position modulo the item size: the low byte of a number is its noisiest, so
  little-endian items start where entropy falls along the item, big-endian ones where it rises;
* **smoothness**: how much closer in rank neighbouring values are than two values picked at
  random (1: a ramp, 0: noise or the wrong type). Complex types are measured between a value
  and the same component of the next value;
* **concentration**: the share of the type's range the middle 98% of the values leaves unused
  (integers: bits of the value range; floats: bits of the exponent range). Random bytes use it
  all; real data rarely does;
* **implausible**: for floats, the share of values that are NaN, infinite, denormal (below the
  type's smallest normal), or beyond 1e30 / below 1e-30 in magnitude (1e200 / 1e-200 for 8-byte
  floats): a wrong type or byte order shows many.

Interleaved channels (:func:`interleaved_channels`: a value closest to the one N items on) give
the smoothness at that lag and the type's ``channels``; a wide integer whose halves read as two
smooth signals (:func:`halves_as_channels`) loses 2.5 points; a 2-byte float reading whose values
all lie below :data:`TINY_HALF_FLOAT` (small integers' bits) loses its concentration credit and a
point.

Small priors prefer the common types when the evidence ties (float32 over complex64, uint8 over
int8, a signed type only when more than :data:`NEGATIVE_FEW` of the values are negative). Every
fact about a type (its size, its kind, its float layout: mantissa and exponent bits, smallest
normal; a complex type's part) is its row in the type table, :mod:`core.dtypes.table`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from core.dtypes.table import TypeRow, type_row
from core.text.figures import format_correlation, format_factor, format_percentage

__all__ = ["CARRY_SHARE", "CHANNEL_MARGIN", "GUESS_TYPES", "HALF_SMOOTHNESS", "MAX_CHANNELS", "NEGATIVE_FEW",
           "PLAUSIBLE_MAGNITUDES", "TINY_HALF_FLOAT", "TypeEvidence", "float_measures",
           "halves_as_channels", "int_measures", "interleaved_channels", "item_phase", "score_types", "smoothness",
           "typed_values"]

#: Types a guess considers (engine names), with their prior.
GUESS_TYPES: dict[str, float] = {
    "uint8": 0.2, "int8": -0.2, "int16": 0.1, "uint16": 0.1, "float16": 0.0, "bfloat16": -0.1,
    "int32": 0.1, "uint32": -0.4, "float32": 0.4, "complex64": -0.3, "int64": -0.2, "float64": 0.1,
}
#: Magnitudes (smallest nonzero, largest) real data rarely leaves, by the byte size of a float (part).
PLAUSIBLE_MAGNITUDES = {2: (1e-30, 1e30), 4: (1e-30, 1e30), 8: (1e-200, 1e200)}
#: Items scored per candidate (enough for stable measures, few enough to stay fast).
MAX_ITEMS = 8192
#: Share of negative values below which a signed type counts as having none (a header's fields).
NEGATIVE_FEW = 0.005
#: Most interleaved channels looked for (stereo 2, RGB 3, RGBA 4, columns of a log).
MAX_CHANNELS = 9
#: Smoothness a lag must gain over lag 1 to be channels.
CHANNEL_MARGIN = 0.08
#: Share of steps of at most 1 that make a channel (a half) the carries of wider numbers.
CARRY_SHARE = 0.9
#: Smoothness each half of a wide integer must have to read as two channels.
HALF_SMOOTHNESS = 0.7
#: A 2-byte float whose 99th percentile magnitude is below this reads small integers' bits.
TINY_HALF_FLOAT = 2.0 ** -6  # float16's smallest normal (the reason's text names it)


@dataclass(frozen=True)
class TypeEvidence:
    """One type and byte order scored on the sample.

    Attributes
    ----------
    dtype, little_endian
        The candidate (``little_endian`` is True for one-byte types).
    phase
        Where items start in the file, modulo the item size (a header of this many bytes,
        modulo the item size, is implied).
    score
        The combined score (higher is more plausible).
    smoothness, concentration, implausible
        The measures (see the module docstring).
    reasons
        The measures in words.
    """

    dtype: str
    little_endian: bool
    phase: int
    score: float
    smoothness: float
    concentration: float
    implausible: float
    reasons: tuple[str, ...]
    channels: int = 1
    channel_gain: float = 0.0


def _entropy(values: np.ndarray) -> float:
    counts = np.bincount(values, minlength=256)
    p = counts[counts > 0] / values.size
    return float(-(p * np.log2(p)).sum())


def item_phase(body: np.ndarray, itemsize: int, little_endian: bool) -> int:
    """Where items start in ``body`` (0..itemsize-1): entropy falls along a little-endian item
    (low byte first) and rises along a big-endian one."""
    if itemsize == 1 or body.size < itemsize * 16:
        return 0
    entropies = [_entropy(body[j::itemsize]) for j in range(itemsize)]
    weights = range(itemsize - 1, -1, -1) if little_endian else range(itemsize)
    best = max(range(itemsize), key=lambda a: (
        sum(w * entropies[(a + j) % itemsize] for j, w in enumerate(weights)), -a))
    return best


def typed_values(data: np.ndarray, dtype: str, little_endian: bool, start: int = 0,
                 limit: int = MAX_ITEMS) -> np.ndarray:
    """``data[start:]`` (uint8) read as ``dtype`` in the byte order, at most ``limit`` items.

    An ml_dtypes type (bfloat16) has no byte-swapped dtype: its bits are read as unsigned
    integers of its size in the byte order, and viewed as the type in native order.
    """
    row = type_row(dtype)
    count = min(max((data.size - start) // row.itemsize, 0), limit)
    chunk = data[start:start + count * row.itemsize]
    order = "<" if little_endian else ">"
    if row.from_ml_dtypes:
        raw = chunk.view(_unsigned(row.itemsize).newbyteorder(order)).astype(_unsigned(row.itemsize))
        return raw.view(row.dtype)
    return chunk.view(row.dtype.newbyteorder(order))


def _unsigned(itemsize: int) -> np.dtype:
    return np.dtype(f"u{itemsize}")


def _layout(row: TypeRow) -> TypeRow:
    """The row whose float layout the values have: a complex type's part, else the type."""
    return row.part or row


def _parts(values: np.ndarray, row: TypeRow) -> np.ndarray:
    """The values in native order, a complex type's as its parts (real, imaginary, ...)."""
    native = values if row.from_ml_dtypes else _native(values)
    return native.view(row.part.dtype) if row.part is not None else native


def _bits_of(values: np.ndarray, row: TypeRow) -> np.ndarray:
    return _parts(values, row).view(_unsigned(_layout(row).itemsize))


def _native(values: np.ndarray) -> np.ndarray:
    return values.astype(values.dtype.newbyteorder("="))


def _ranks(values: np.ndarray) -> np.ndarray:
    """Ranks, a permutation of 0..n-1 (ties in file order, so a constant run counts as smooth)."""
    n = values.size
    order = np.argsort(values.ravel(), kind="stable")
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = np.arange(n, dtype=np.float64)
    return ranks


def _lag_smoothness(ranks: np.ndarray, lag: int) -> float:
    n = ranks.size
    if n < 4 * lag + 4:
        return 0.0
    near = np.abs(ranks[lag:] - ranks[:-lag]).mean()
    return float(1.0 - near / ((n + 1) / 3))


def smoothness(values: np.ndarray, lag: int) -> float:
    """1 - (mean rank distance of neighbours ``lag`` apart) / (that of a random pair).

    Two random distinct ranks lie (n + 1) / 3 apart on average.
    """
    return _lag_smoothness(_ranks(values), lag)


def interleaved_channels(values: np.ndarray, ranks: np.ndarray | None = None) -> tuple[int, float, float]:
    """(channels, smoothness at that lag, smoothness at lag 1) of real ``values``.

    Interleaved channels (stereo samples, RGB pixels, columns of a log) make a value closer to
    the one ``channels`` items on than to its neighbour: the lag from 2 to :data:`MAX_CHANNELS`
    with the best smoothness counts when it beats lag 1 by :data:`CHANNEL_MARGIN`; a divisor of
    it that is nearly as smooth is preferred (its multiples are smooth too). Else 1 channel.
    """
    ranks = _ranks(values) if ranks is None else ranks
    by_lag = {lag: _lag_smoothness(ranks, lag) for lag in range(1, MAX_CHANNELS + 1)}
    best = max(range(2, MAX_CHANNELS + 1), key=lambda lag: by_lag[lag])
    if by_lag[best] - by_lag[1] < CHANNEL_MARGIN:
        return 1, by_lag[1], by_lag[1]
    for divisor in range(2, best):
        if best % divisor == 0 and by_lag[divisor] >= by_lag[best] - 0.03:
            best = divisor
            break
    return best, by_lag[best], by_lag[1]


def _carry_channel(real: np.ndarray, channels: int) -> bool:
    """Whether one of the integer channels moves by at most 1 between neighbours nearly always
    (:data:`CARRY_SHARE`): it is the high part of wider numbers (their carries), not a signal."""
    for k in range(channels):
        steps = np.abs(np.diff(real[k::channels]))
        if steps.size and float(np.mean(steps <= 1)) >= CARRY_SHARE:
            return True
    return False


def _split_halves(values: np.ndarray, row: TypeRow) -> tuple[np.ndarray, np.ndarray]:
    """The low and high halves of integer ``values`` (native order), as signed integers."""
    half = row.itemsize // 2
    unsigned = _native(values).view(_unsigned(row.itemsize))
    bits = np.uint64(8 * half)
    mask = np.uint64((1 << (8 * half)) - 1)
    wide = unsigned.astype(np.uint64)
    low = (wide & mask).astype(_unsigned(half)).view(f"i{half}")
    high = ((wide >> bits) & mask).astype(_unsigned(half)).view(f"i{half}")
    return low, high


def halves_as_channels(values: np.ndarray, row: TypeRow) -> bool:
    """Whether integer ``values`` of 2 to 8 bytes are two interleaved narrower channels: each half
    read on its own is smooth (:data:`HALF_SMOOTHNESS`), and the high half is not a carry (a
    wide number's high half moves by 0 or 1 between neighbours whose low halves are smooth)."""
    if row.kind not in ("int", "uint") or row.itemsize < 2 or values.size < 64:
        return False
    low, high = _split_halves(values, row)
    smooth_low = max(smoothness(low.astype(np.float64), 1),
                     smoothness(low.view(_unsigned(low.dtype.itemsize)).astype(np.float64), 1))
    smooth_high = smoothness(high.astype(np.float64), 1)
    carries = float(np.mean(np.abs(np.diff(high.astype(np.int64))) <= 1))
    return smooth_low >= HALF_SMOOTHNESS and smooth_high >= HALF_SMOOTHNESS and carries < CARRY_SHARE


def float_measures(values: np.ndarray, row: TypeRow) -> tuple[float, float, int]:
    """(concentration, implausible share, exponents used) of float values of the type ``row``
    (a complex type's measured on its parts): the share of the exponent range the middle 98% of
    the nonzero values leaves unused, the share that is NaN, infinite, denormal or beyond
    :data:`PLAUSIBLE_MAGNITUDES`, and how many exponents that middle spans."""
    layout = _layout(row)
    mantissa_bits, exponent_bits = layout.mantissa_bits, layout.exponent_bits
    bits = _bits_of(values, row).astype(np.uint64)
    exponents = (bits >> np.uint64(mantissa_bits)) & np.uint64((1 << exponent_bits) - 1)
    nonzero = (bits & np.uint64((1 << (mantissa_bits + exponent_bits)) - 1)) != 0
    magnitudes = np.abs(_parts(values, row).astype(np.float64)).ravel()
    tiny, huge = PLAUSIBLE_MAGNITUDES[layout.itemsize]
    tiny = max(tiny, layout.smallest_normal)  # below it: a denormal
    with np.errstate(invalid="ignore", over="ignore"):
        bad = ~np.isfinite(magnitudes) | (magnitudes > huge) | ((magnitudes < tiny) & nonzero)
    used = exponents[nonzero]
    if used.size == 0:
        return 0.0, float(bad.mean()) if bad.size else 0.0, 0
    low, high = np.quantile(used.astype(np.float64), [0.01, 0.99])
    span = high - low + 1
    return float(1.0 - np.log2(span) / exponent_bits), float(bad.mean()), int(span)


def int_measures(values: np.ndarray, bits: int) -> tuple[float, int]:
    """(concentration, bits used) of integer values of a type of ``bits`` bits: the bits the
    middle 98% of the values spans, and the share of the type's bits it leaves unused."""
    as_float = values.astype(np.float64)
    low, high = np.quantile(as_float, [0.01, 0.99])
    used = float(np.log2(high - low + 1))
    return float(1.0 - used / bits), int(round(used))


def score_types(body: bytes, body_offset: int) -> list[TypeEvidence]:
    """Every type and byte order of :data:`GUESS_TYPES` scored on ``body`` (bytes of the file
    from ``body_offset``), best first."""
    data = np.frombuffer(body, dtype=np.uint8)
    out: list[TypeEvidence] = []
    float32_plausible: dict[tuple[bool, int], float] = {}
    phases: dict[tuple[int, bool], int] = {}
    with np.errstate(all="ignore"):
        for dtype in GUESS_TYPES:
            row = type_row(dtype)
            for little in ((True, False) if row.byte_order_matters else (True,)):
                phase_size = _layout(row).itemsize  # a complex type's parts are items too
                if (phase_size, little) not in phases:
                    phases[phase_size, little] = item_phase(data[:MAX_ITEMS * 8], phase_size, little)
                evidence = _score_one(data, body_offset, dtype, little, phases[phase_size, little],
                                      float32_plausible)
                if evidence is not None:
                    out.append(evidence)
        _squeezed_half_floats(out, data, phases)
        _complex_pairs(out)
    out.sort(key=lambda e: -e.score)
    return out


def _complex_pairs(out: list[TypeEvidence]) -> None:
    """Two interleaved float channels are also complex values. When the complex reading is smooth
    (each part close to the same part of the next value, in-phase and quadrature parts that do
    not follow each other), the float reading keeps its two channels for the shape but loses
    their gain in points: the complex type then decides as it would without channels."""
    for i, e in enumerate(out):
        if e.channels != 2 or type_row(e.dtype).kind != "float":
            continue
        twin = next((c for c in out if c.little_endian == e.little_endian and type_row(c.dtype).part is not None
                     and type_row(c.dtype).part.name == e.dtype), None)
        if twin is not None and twin.smoothness >= 0.5 * e.smoothness:
            out[i] = replace(e, score=e.score - e.channel_gain, channel_gain=0.0,
                             reasons=(*e.reasons, f"the pairs read as {twin.dtype} values as well (their parts "
                                                  "do not follow each other)"))


def _squeeze(values: np.ndarray) -> float:
    """10th over 90th percentile of the nonzero magnitudes (1: all alike, near 0: wide range)."""
    magnitudes = np.abs(values.astype(np.float64))
    magnitudes = magnitudes[np.isfinite(magnitudes) & (magnitudes > 0)]
    if magnitudes.size < 16:
        return 0.0
    low, high = np.quantile(magnitudes, [0.1, 0.9])
    return float(low / high)


def _squeezed_half_floats(out: list[TypeEvidence], data: np.ndarray, phases: dict[tuple[int, bool], int]) -> None:
    """float16 and bfloat16 read the same bits as monotone maps of each other, so the measures
    above tie. Reading one as the other squeezes the magnitudes (bfloat16 bits read as float16
    fall within a factor of two of each other): the squeezed reading loses 1.5 points."""
    for little in (True, False):
        start = phases.get((2, little))
        if start is None:
            continue
        squeeze = {dtype: _squeeze(typed_values(data, dtype, little, start)) for dtype in ("float16", "bfloat16")}
        for dtype, other in (("float16", "bfloat16"), ("bfloat16", "float16")):
            if squeeze[dtype] > 0.55 and squeeze[other] < 0.4:
                for i, e in enumerate(out):
                    if e.dtype == dtype and e.little_endian == little:
                        out[i] = replace(e, score=e.score - 1.5, reasons=(*e.reasons, (
                            f"nearly all magnitudes within a factor {format_factor(1 / squeeze[dtype])} of each other, "
                            f"unlike {other}")))


def _score_one(data: np.ndarray, body_offset: int, dtype: str, little: bool, start: int,
               float32_plausible: dict[tuple[bool, int], float]) -> TypeEvidence | None:
    row = type_row(dtype)
    values = typed_values(data, dtype, little, start)
    if values.size < 8:
        return None
    reasons: list[str] = []
    score = GUESS_TYPES[dtype]
    complex_type = row.kind == "complex"
    if row.kind in ("float", "complex"):
        stream = _parts(values, row) if complex_type else values
        if complex_type:
            smooth = smoothness(stream, 2)
        else:
            ranks = _ranks(stream.astype(np.float64))
            smooth = _lag_smoothness(ranks, 1)
        if complex_type:
            flat = smoothness(stream, 1)
            smooth = smooth - max(flat, 0.0)
            reasons.append(f"each part is closer to the same part of the next value than to its "
                           f"other part by {format_correlation(smooth, signed=True)}")
        concentration, bad, span = float_measures(values, row)
        if dtype == "float32":
            float32_plausible[(little, start % 4)] = bad
        reasons.append(f"exponents span {span} of {2 ** _layout(row).exponent_bits} values")
        if bad > 0.01:
            reasons.append(f"{format_percentage(bad)} of the values are NaN, infinite, denormal or absurdly "
                           "large or small")
        if dtype == "float64":
            half = float32_plausible.get((little, start % 4))
            if half is not None and half < 0.02:
                score -= 2.0
                reasons.append("each 4-byte half reads as a plausible float32 (float32 pairs?)")
        if row.itemsize == 2 and not complex_type:
            magnitudes = np.abs(values.astype(np.float64))
            magnitudes = magnitudes[np.isfinite(magnitudes)]
            if magnitudes.size and float(np.quantile(magnitudes, 0.99)) < TINY_HALF_FLOAT:
                # The few exponents are those of small integers' high bits: not evidence.
                score -= 1.0 + 4 * max(concentration, 0.0)
                reasons.append("nearly every value is below 2**-6 (float16's smallest normal): the bits of small "
                               "unsigned integers?")
    else:
        ranks = _ranks(values.astype(np.float64))
        smooth = _lag_smoothness(ranks, 1)
        concentration, used_bits = int_measures(values, row.stored_bits)
        if smooth >= HALF_SMOOTHNESS and halves_as_channels(values, row):
            score -= 2.5
            reasons.append(f"each {row.itemsize // 2}-byte half reads as its own smooth signal "
                           "(two interleaved channels?)")
        bad = 0.0
        reasons.append(f"values use about {used_bits} of {row.stored_bits} bits")
        negative = float(np.mean(values < 0)) if row.kind == "int" else 0.0
        if row.kind == "int" and negative == 0:
            score -= 0.15
            reasons.append("no negative values")
        elif row.kind == "int" and negative < NEGATIVE_FEW:
            score -= 0.15  # a header's fields among the sampled values, not signed data
            reasons.append(f"almost no negative values ({format_percentage(negative)})")
    channels, channel_gain = 1, 0.0
    if not complex_type:
        reasons.insert(0, f"neighbouring values {'are close' if smooth > 0.3 else 'look unrelated'} "
                          f"(smoothness {format_correlation(smooth)})")
        with np.errstate(all="ignore"):
            real = values.astype(np.float64)
        if np.isfinite(real).all():
            channels, smooth_c, smooth_1 = interleaved_channels(real, ranks)
            if channels > 1 and row.kind in ("int", "uint") and _carry_channel(real, channels):
                channels = 1
            if channels > 1:
                channel_gain = 6 * (smooth_c - smooth_1)
                smooth = smooth_c
                reasons.insert(1, f"each value is closest to the one {channels} items on (smoothness "
                                  f"{format_correlation(smooth_c)}): {channels} interleaved channels")
    score += 6 * smooth + 4 * max(concentration, 0.0) - 12 * bad
    phase = (body_offset + start) % row.itemsize
    return TypeEvidence(dtype, little, phase, score, smooth, concentration, bad, tuple(reasons), channels,
                        channel_gain)
