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
* **implausible**: for floats, the share of values that are NaN, infinite, denormal, or beyond
  1e30 / below 1e-30 in magnitude (1e200 for float64): a wrong type or byte order shows many.

Small priors prefer the common types when the evidence ties (float32 over complex64, uint8 over
int8, a signed type only when some values are negative).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from core.dtypes.table import type_row
from core.text.figures import format_correlation, format_factor, format_percentage

__all__ = ["GUESS_TYPES", "TypeEvidence", "item_phase", "score_types", "typed_values"]

#: Types a guess considers, with their item size and prior.
GUESS_TYPES: dict[str, tuple[int, float]] = {
    "uint8": (1, 0.2), "int8": (1, -0.2), "int16": (2, 0.1), "uint16": (2, 0.1),
    "float16": (2, 0.0), "bfloat16": (2, -0.1), "int32": (4, 0.1), "uint32": (4, -0.4),
    "float32": (4, 0.4), "complex64": (8, -0.3), "int64": (8, -0.2), "float64": (8, 0.1),
}
_FLOAT_BITS = {"float16": (10, 5), "bfloat16": (7, 8), "float32": (23, 8), "complex64": (23, 8),
               "float64": (52, 11)}
_FLOAT_LIMITS = {"float16": (6.1e-5, 65504.0), "bfloat16": (1e-30, 1e30), "float32": (1e-30, 1e30),
                 "complex64": (1e-30, 1e30), "float64": (1e-200, 1e200)}
#: Items scored per candidate (enough for stable measures, few enough to stay fast).
MAX_ITEMS = 8192


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
    """``data[start:]`` (uint8) read as ``dtype`` in the byte order, at most ``limit`` items."""
    itemsize = GUESS_TYPES[dtype][0]
    count = min(max((data.size - start) // itemsize, 0), limit)
    chunk = data[start:start + count * itemsize]
    if dtype == "bfloat16":
        kind = type_row("bfloat16").dtype
        raw = chunk.view(">u2" if not little_endian else "<u2").astype(np.uint16)
        return raw.view(kind)
    kind = np.dtype(dtype).newbyteorder("<" if little_endian else ">")
    return chunk.view(kind)


def _bits_of(values: np.ndarray, dtype: str) -> np.ndarray:
    width = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32,
             "complex64": np.uint32, "float64": np.uint64}[dtype]
    native = _native(values) if dtype != "bfloat16" else values
    if dtype == "complex64":
        native = native.view(np.float32)
    return native.view(width)


def _native(values: np.ndarray) -> np.ndarray:
    return values.astype(values.dtype.newbyteorder("="))


def _smoothness(values: np.ndarray, lag: int) -> float:
    """1 - (mean rank distance of neighbours ``lag`` apart) / (that of a random pair).

    Ranks are a permutation of 0..n-1 (ties in file order, so a constant run counts as smooth);
    two random distinct ranks lie (n + 1) / 3 apart on average.
    """
    n = values.size
    if n < 4 * lag + 4:
        return 0.0
    order = np.argsort(values.ravel(), kind="stable")
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = np.arange(n, dtype=np.float64)
    near = np.abs(ranks[lag:] - ranks[:-lag]).mean()
    return float(1.0 - near / ((n + 1) / 3))


def _float_measures(values: np.ndarray, dtype: str) -> tuple[float, float, int]:
    """(concentration, implausible share, exponents used) of float values."""
    mantissa_bits, exponent_bits = _FLOAT_BITS[dtype]
    bits = _bits_of(values, dtype).astype(np.uint64)
    exponents = (bits >> np.uint64(mantissa_bits)) & np.uint64((1 << exponent_bits) - 1)
    nonzero = (bits & np.uint64((1 << (mantissa_bits + exponent_bits)) - 1)) != 0
    magnitudes = np.abs(values.astype(np.complex128 if dtype == "complex64" else np.float64)).ravel()
    if dtype == "complex64":
        magnitudes = np.abs(_native(values).view(np.float32).astype(np.float64))
    tiny, huge = _FLOAT_LIMITS[dtype]
    with np.errstate(invalid="ignore", over="ignore"):
        bad = ~np.isfinite(magnitudes) | (magnitudes > huge) | ((magnitudes < tiny) & nonzero)
    used = exponents[nonzero]
    if used.size == 0:
        return 0.0, float(bad.mean()) if bad.size else 0.0, 0
    low, high = np.quantile(used.astype(np.float64), [0.01, 0.99])
    span = high - low + 1
    return float(1.0 - np.log2(span) / exponent_bits), float(bad.mean()), int(span)


def _int_measures(values: np.ndarray, dtype: str) -> tuple[float, int]:
    bits = GUESS_TYPES[dtype][0] * 8
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
        for dtype, (itemsize, _prior) in GUESS_TYPES.items():
            for little in ((True,) if itemsize == 1 else (True, False)):
                phase_size = 4 if dtype == "complex64" else itemsize
                if (phase_size, little) not in phases:
                    phases[phase_size, little] = item_phase(data[:MAX_ITEMS * 8], phase_size, little)
                evidence = _score_one(data, body_offset, dtype, little, phases[phase_size, little],
                                      float32_plausible)
                if evidence is not None:
                    out.append(evidence)
        _squeezed_half_floats(out, data, phases)
    out.sort(key=lambda e: -e.score)
    return out


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
    itemsize, prior = GUESS_TYPES[dtype]
    values = typed_values(data, dtype, little, start)
    if values.size < 8:
        return None
    reasons: list[str] = []
    score = prior
    if dtype in _FLOAT_BITS:
        stream = _native(values).view(np.float32) if dtype == "complex64" else values
        smooth = _smoothness(stream.astype(np.float64) if dtype != "complex64" else stream,
                             2 if dtype == "complex64" else 1)
        if dtype == "complex64":
            flat = _smoothness(stream, 1)
            smooth = smooth - max(flat, 0.0)
            reasons.append(f"each part is closer to the same part of the next value than to its "
                           f"other part by {format_correlation(smooth, signed=True)}")
        concentration, bad, span = _float_measures(values, dtype)
        if dtype == "float32":
            float32_plausible[(little, start % 4)] = bad
        reasons.append(f"exponents span {span} of {2 ** _FLOAT_BITS[dtype][1]} values")
        if bad > 0.01:
            reasons.append(f"{format_percentage(bad)} of the values are NaN, infinite, denormal or absurdly "
                           "large or small")
        if dtype == "float64":
            half = float32_plausible.get((little, start % 4))
            if half is not None and half < 0.02:
                score -= 2.0
                reasons.append("each 4-byte half reads as a plausible float32 (float32 pairs?)")
    else:
        smooth = _smoothness(values.astype(np.float64), 1)
        concentration, used_bits = _int_measures(values, dtype)
        bad = 0.0
        reasons.append(f"values use about {used_bits} of {itemsize * 8} bits")
        if dtype in ("int8", "int16", "int32", "int64") and values.min() >= 0:
            score -= 0.15
            reasons.append("no negative values")
    if dtype != "complex64":
        reasons.insert(0, f"neighbouring values {'are close' if smooth > 0.3 else 'look unrelated'} "
                          f"(smoothness {format_correlation(smooth)})")
    score += 6 * smooth + 4 * max(concentration, 0.0) - 12 * bad
    phase = (body_offset + start) % itemsize
    return TypeEvidence(dtype, little, phase, score, smooth, concentration, bad, tuple(reasons))
