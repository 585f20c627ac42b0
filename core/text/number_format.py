"""Text for one array element, and the classification of special floating-point values.

Pure functions, no Qt: the table model, the clipboard export and any report call these.

Formats (``FORMATS``)
---------------------
``"auto"``
    Floats: the shortest string that round-trips to the same value of *that* dtype, laid out
    as numpy prints it (``str(np.float32(0.1)) == "0.1"``, ``"1e-40"``, ``"-0.0"``, ``"nan"``,
    ``"inf"``). bfloat16 and the other ml_dtypes floats get the same treatment (ml_dtypes' own
    ``str`` prints 6 significant digits, which does not round-trip). Integers: plain decimal.
``"fixed"``
    Floats with exactly ``decimals`` digits after the point (``"1.500"``). Integers stay
    plain decimal (decimals are meaningless for them).
``"scientific"``
    ``decimals`` digits after the point and an exponent (``"1.500e+00"``); integers too.
``"hex"``
    The element's *bits* as an unsigned integer, zero-padded to the dtype's width: float32
    1.5 -> ``"0x3fc00000"``, int16 -1 -> ``"0xffff"`` (two's complement), uint8 5 -> ``"0x05"``.
``"raw bits"``
    The same bits in binary, most significant bit first (the value's bits, independent of the
    byte order the file stores them in: a ``'>f4'`` and an ``'<f4'`` 1.5 print identically).
    Floats are split into sign, exponent and mantissa fields by spaces
    (float32 1.5 -> ``"0 01111111 10000000000000000000000"``); integers and bools are split
    into bytes (int16 -1 -> ``"11111111 11111111"``).

Booleans print ``"True"``/``"False"`` in the decimal formats and ``0x01``/``00000001`` in the
bit formats. Complex values print as ``a+bj`` with each part in the chosen decimal format
(``"1.5-2.0j"``); in the bit formats they print the real part's bits, ``" | "``, then the
imaginary part's bits. Other dtypes (strings, structured) fall back to ``str(value)``.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

try:  # ml_dtypes is a project dependency, but formatting numpy dtypes must not need it.
    import ml_dtypes
except ImportError:  # pragma: no cover - exercised only without ml_dtypes
    ml_dtypes = None

FORMATS: tuple[str, ...] = ("auto", "fixed", "scientific", "hex", "raw bits")
"""Format names accepted by :func:`format_value`, in the order a UI should offer them."""

SPECIAL_KINDS: tuple[str, ...] = ("nan", "inf", "-inf", "subnormal", "-0")
"""Values returned by :func:`classify_value`, most alarming first (complex values report the
first one found in this order among their two parts)."""

_IEEE_NAN_LAYOUT = frozenset({"float16", "float32", "float64", "bfloat16"})


@lru_cache(maxsize=64)
def _info(dtype: np.dtype) -> tuple[str, np.dtype, int, int, float]:
    """(kind, native dtype, exponent bits, mantissa bits, smallest normal) of ``dtype``.

    kind is one of ``"b"``, ``"i"``, ``"u"``, ``"f"``, ``"c"`` or ``"other"``. ml_dtypes types
    all have numpy kind ``"V"``, so they are recognised by ``ml_dtypes.finfo`` / ``iinfo``.
    """
    native = dtype.newbyteorder("=") if dtype.byteorder not in ("|", "=") else dtype
    kind = dtype.kind
    if kind in "biu":
        return kind, native, 0, 0, 0.0
    if kind == "f":
        fi = np.finfo(native)
        return "f", native, fi.nexp, fi.nmant, float(fi.smallest_normal)
    if kind == "c":
        part = np.dtype(f"f{native.itemsize // 2}")
        fi = np.finfo(part)
        return "c", native, fi.nexp, fi.nmant, float(fi.smallest_normal)
    if ml_dtypes is not None and kind == "V" and dtype.fields is None:
        try:
            fi = ml_dtypes.finfo(native)
            return "f", native, int(fi.nexp), int(fi.nmant), float(fi.smallest_normal)
        except (ValueError, TypeError, KeyError):
            pass
        try:
            ii = ml_dtypes.iinfo(native)
            return ("i" if int(ii.min) < 0 else "u"), native, 0, 0, 0.0
        except (ValueError, TypeError, KeyError):
            pass
    return "other", native, 0, 0, 0.0


def _bits(value, native: np.dtype) -> int:
    """The element's bit pattern as a non-negative Python int (value order, not file order)."""
    raw = np.array(value, dtype=native)
    return int(raw.view(np.dtype(f"u{native.itemsize}"))[()])


def _shortest(value, native: np.dtype) -> str:
    """Shortest decimal that round-trips through ``native`` (a non-numpy float type)."""
    x = float(value)
    if not math.isfinite(x) or x == 0.0:
        return str(np.float64(x))
    target = _bits(value, native)
    for digits in range(1, 18):
        candidate = float(f"{x:.{digits - 1}e}")
        if _bits(candidate, native) == target:
            # The float64 nearest that short decimal prints as that decimal, in numpy's layout.
            return str(np.float64(candidate))
    return str(np.float64(x))  # pragma: no cover - 17 digits always round-trip


def _decimal(x, kind: str, native: np.dtype, fmt: str, decimals: int) -> str:
    """One real number in a decimal format."""
    if kind == "b":
        return str(bool(x))
    if kind in "iu":
        return f"{int(x):.{decimals}e}" if fmt == "scientific" else str(int(x))
    if fmt == "auto":
        if native.kind == "f":
            return str(native.type(x))
        return _shortest(x, native)
    if fmt == "fixed":
        return f"{float(x):.{decimals}f}"
    return f"{float(x):.{decimals}e}"


def _bit_text(x, kind: str, native: np.dtype, nexp: int, nmant: int, fmt: str) -> str:
    """One real number's bits in hex or binary (see the module docstring)."""
    nbits = native.itemsize * 8
    bits = _bits(x, native)
    if fmt == "hex":
        return f"0x{bits:0{native.itemsize * 2}x}"
    text = f"{bits:0{nbits}b}"
    if kind == "f" and 1 + nexp + nmant == nbits:
        return f"{text[0]} {text[1:1 + nexp]} {text[1 + nexp:]}"
    return " ".join(text[i:i + 8] for i in range(0, nbits, 8))


def format_value(value, dtype, fmt: str = "auto", decimals: int = 6) -> str:
    """Text of one element ``value`` of an array of ``dtype`` in format ``fmt``.

    Parameters
    ----------
    value : scalar
        The element, as indexing the array returns it (any Python/numpy scalar that converts
        exactly to ``dtype`` is accepted).
    dtype : numpy.dtype or dtype-like
        The array's dtype, in any byte order (``'>f4'`` prints like ``'<f4'``).
    fmt : str
        One of :data:`FORMATS`; the rules are in the module docstring.
    decimals : int
        Digits after the point for ``"fixed"`` and ``"scientific"``; ignored otherwise.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``fmt`` is not one of :data:`FORMATS` or ``decimals`` is negative.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown number format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if decimals < 0:
        raise ValueError(f"decimals must be >= 0, got {decimals}")
    kind, native, nexp, nmant, _ = _info(np.dtype(dtype))
    if kind == "other":
        return str(value)
    bit_format = fmt in ("hex", "raw bits")
    if kind != "c":
        if bit_format:
            return _bit_text(value, kind, native, nexp, nmant, fmt)
        return _decimal(value, kind, native, fmt, decimals)
    part = np.dtype(f"f{native.itemsize // 2}")
    z = native.type(value)
    if bit_format:
        return " | ".join(_bit_text(p, "f", part, nexp, nmant, fmt) for p in (z.real, z.imag))
    re = _decimal(z.real, "f", part, fmt, decimals)
    im = _decimal(z.imag, "f", part, fmt, decimals)
    return f"{re}{im}j" if im.startswith("-") else f"{re}+{im}j"


def _classify_real(x: float, smallest_normal: float) -> str | None:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0.0:
        return "-0" if math.copysign(1.0, x) < 0 else None
    if abs(x) < smallest_normal:
        return "subnormal"
    return None


def classify_value(value, dtype) -> str | None:
    """Which special floating-point value ``value`` is, or ``None`` for an ordinary value.

    Returns one of :data:`SPECIAL_KINDS`: ``"nan"`` (any NaN, whatever its sign or payload),
    ``"inf"``, ``"-inf"``, ``"subnormal"`` (non-zero and smaller in magnitude than the dtype's
    smallest normal number, e.g. float32 ``1e-40``) or ``"-0"`` (negative zero). Integers and
    bools are never special. A complex value is classified by its two parts and reports the
    first kind found in :data:`SPECIAL_KINDS` order (NaN before infinity before ...).
    """
    kind, native, _, _, smallest = _info(np.dtype(dtype))
    if kind == "f":
        return _classify_real(float(value), smallest)
    if kind == "c":
        z = complex(value)
        found = {_classify_real(z.real, smallest), _classify_real(z.imag, smallest)}
        return next((k for k in SPECIAL_KINDS if k in found), None)
    return None


def _describe_real(x, native: np.dtype, nexp: int, nmant: int, smallest: float) -> str | None:
    special = _classify_real(float(x), smallest)
    if special is None:
        return None
    if special == "nan":
        bits = _bits(x, native)
        text = f"NaN (bits 0x{bits:0{native.itemsize * 2}x}"
        if native.name in _IEEE_NAN_LAYOUT:
            # IEEE 754: the top mantissa bit is the quiet bit; the bits below it the payload.
            quiet = (bits >> (nmant - 1)) & 1
            payload = bits & ((1 << (nmant - 1)) - 1)
            text += f", {'quiet' if quiet else 'signalling'}, payload 0x{payload:x}"
        return text + ")"
    return {
        "inf": "positive infinity",
        "-inf": "negative infinity",
        "subnormal": "subnormal (smaller than the smallest normal "
        f"{_decimal(smallest, 'f', native, 'auto', 0)})",
        "-0": "negative zero",
    }[special]


def describe_special(value, dtype) -> str | None:
    """A human sentence about a special value (for tooltips), or ``None`` if it is ordinary.

    NaN shows its bit pattern, and for IEEE types (float16/32/64, bfloat16) whether it is quiet
    and its payload (the mantissa bits below the quiet bit): float32 ``0x7fc00001`` gives
    ``"NaN (bits 0x7fc00001, quiet, payload 0x1)"``. The others read ``"positive infinity"``,
    ``"negative infinity"``, ``"subnormal (smaller than the smallest normal 1.1754944e-38)"``
    and ``"negative zero"``. Complex values describe each special part, prefixed by
    ``"real part: "`` / ``"imaginary part: "`` and joined by ``"; "``.
    """
    kind, native, nexp, nmant, smallest = _info(np.dtype(dtype))
    if kind == "f":
        return _describe_real(value, native, nexp, nmant, smallest)
    if kind != "c":
        return None
    part = np.dtype(f"f{native.itemsize // 2}")
    z = native.type(value)
    texts = [
        f"{name} part: {text}"
        for name, p in (("real", z.real), ("imaginary", z.imag))
        if (text := _describe_real(p, part, nexp, nmant, smallest)) is not None
    ]
    return "; ".join(texts) or None
