"""Text for one array element, and the classification of special floating-point values.

Pure functions, no Qt. This is the one place where an element becomes text: the table (cells,
tooltips, copied TSV), the plot readout, the status bar, the statistics panel's extremes, the data
inspector, the CLI's text output (:func:`format_value`), CSV export (:func:`csv_formatter`) and
the CLI's JSON output (:func:`json_value`) all call it, so one value reads the same everywhere.

Screen and files
----------------
The screen shows ``"auto"`` (or the format the user picks in the table). Files that other
programs read back (CSV, JSON) need text that parses back to exactly the value shown; the
``"auto"`` digits already are that text: the *shortest* decimal that reads back, in the
element's own type, as the same value (bfloat16 1/3 is ``0.334``: ``bfloat16(0.334)`` is that
value; float32 0.1 is ``0.1``, read it back as float32). So CSV and JSON write the same digits
as the screen and differ only in syntax:

* CSV (:func:`format_csv` / :func:`csv_formatter`): bools ``1`` / ``0``; complex in parentheses,
  ``(1.0+2.0j)`` (Python's ``complex()`` and ``numpy.loadtxt(dtype=complex)`` read it); with
  ``decimals`` the ``"fixed"`` format instead of ``"auto"``.
* JSON (:func:`json_value`): numbers are JSON numbers with those digits; NaN and the infinities,
  which JSON lacks, are the strings ``"nan"``, ``"inf"``, ``"-inf"``; complex values are
  ``[real, imag]`` pairs; bools ``true`` / ``false``.

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
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from core.dtypes.ml_types import loaded_ml_dtypes
from core.dtypes.table import TYPE_ROWS

FORMATS: tuple[str, ...] = ("auto", "fixed", "scientific", "hex", "raw bits")
"""Format names accepted by :func:`format_value`, in the order a UI should offer them."""

SPECIAL_KINDS: tuple[str, ...] = ("nan", "inf", "-inf", "subnormal", "-0")
"""Values returned by :func:`classify_value`, most alarming first (complex values report the
first one found in this order among their two parts)."""

# The engine's float types all have the IEEE 754 layout (quiet bit on top of the mantissa).
# The float8 "fn" / "fnuz" / "fnu" types (finite, no infinities) have one or two NaN bit patterns and no
# quiet bit; the others (float8_e5m2, float8_e4m3, float8_e3m4) lay NaNs out as IEEE 754 does.
_IEEE_NAN_LAYOUT = frozenset(row.name for row in TYPE_ROWS if row.kind == "float"
                             and not row.name.endswith(("fn", "fnuz", "fnu")))


@lru_cache(maxsize=64)
def _info(dtype: np.dtype) -> tuple[str, np.dtype, int, int, float]:
    """(kind, native dtype, exponent bits, mantissa bits, smallest normal) of ``dtype``.

    kind is one of ``"b"``, ``"i"``, ``"u"``, ``"f"``, ``"c"`` or ``"other"``. ml_dtypes types
    all have numpy kind ``"V"``, so they are recognised by ``ml_dtypes.finfo`` / ``iinfo``.
    """
    native = dtype.newbyteorder("=") if dtype.byteorder not in ("|", "=") else dtype
    kind = dtype.kind
    ml_dtypes = loaded_ml_dtypes()  # none of its types exists before it is imported
    if kind in "biu":
        return kind, native, 0, 0, 0.0
    if kind == "f":
        # ml_dtypes' float8_e5m2 has numpy kind "f" too, and only ml_dtypes.finfo knows it.
        fi = np.finfo(native) if ml_dtypes is None else ml_dtypes.finfo(native)
        return "f", native, int(fi.nexp), int(fi.nmant), float(fi.smallest_normal)
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
    return _shortest_of_bits(native, _bits(value, native))


@lru_cache(maxsize=1 << 16)
def _shortest_of_bits(native: np.dtype, target: int) -> str:
    """:func:`_shortest` of the value whose bits are ``target``, cached: ml_dtypes floats have
    at most 16 bits, so a CSV of a huge bfloat16 view computes each distinct value once."""
    x = float(np.array(target, dtype=np.dtype(f"u{native.itemsize}")).view(native)[()])
    if not math.isfinite(x) or x == 0.0:
        return str(np.float64(x))
    for digits in range(1, 18):
        candidate = float(f"{x:.{digits - 1}e}")
        if _bits(candidate, native) == target:
            # The float64 nearest that short decimal prints as that decimal, in numpy's layout.
            return str(np.float64(candidate))
    return str(np.float64(x))  # pragma: no cover - 17 digits always round-trip


def _real_formatter(kind: str, native: np.dtype, nexp: int, nmant: int, fmt: str,
                    decimals: int) -> Callable[[object], str]:
    """The function giving the text of one real number (bool, int or float) in ``fmt``.

    Every element text of this module comes from here; the function is built once per dtype
    and format, so formatting a block of values costs little more than ``str`` per value.
    """
    if fmt in ("hex", "raw bits"):
        return lambda x: _bit_text(x, kind, native, nexp, nmant, fmt)
    if kind == "b":
        return lambda x: "True" if x else "False"
    if kind in "iu":
        if fmt == "scientific":
            return lambda x: f"{int(x):.{decimals}e}"
        return lambda x: str(int(x))
    if fmt == "auto":
        if native.type in (np.float16, np.float32, np.float64):  # not float8_e5m2 (kind "f")
            scalar = native.type
            return lambda x: str(scalar(x))  # numpy's shortest round-trip text of that type
        return lambda x: _shortest(x, native)
    if fmt == "fixed":
        return lambda x: f"{float(x):.{decimals}f}"
    return lambda x: f"{float(x):.{decimals}e}"


def _decimal(x, kind: str, native: np.dtype, fmt: str, decimals: int) -> str:
    """One real number in a decimal format."""
    return _real_formatter(kind, native, 0, 0, fmt, decimals)(x)


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


def _check_format(fmt: str, decimals: int) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"unknown number format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if decimals < 0:
        raise ValueError(f"decimals must be >= 0, got {decimals}")


@lru_cache(maxsize=256)
def _element_formatter(dtype: np.dtype, fmt: str, decimals: int) -> Callable[[object], str]:
    """The element formatter of :func:`value_formatter` (arguments already checked)."""
    kind, native, nexp, nmant, _ = _info(dtype)
    if kind == "other":
        return str
    if kind != "c":
        return _real_formatter(kind, native, nexp, nmant, fmt, decimals)
    part = _real_formatter("f", np.dtype(f"f{native.itemsize // 2}"), nexp, nmant, fmt, decimals)
    scalar = native.type
    if fmt in ("hex", "raw bits"):
        def complex_bits(value) -> str:
            z = scalar(value)
            return f"{part(z.real)} | {part(z.imag)}"
        return complex_bits

    def complex_text(value) -> str:
        z = scalar(value)
        re, im = part(z.real), part(z.imag)
        return f"{re}{im}j" if im.startswith("-") else f"{re}+{im}j"
    return complex_text


def format_value(value, dtype, fmt: str = "auto", decimals: int = 6) -> str:
    """Text of one element ``value`` of an array of ``dtype`` in format ``fmt``, for the screen.

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
    _check_format(fmt, decimals)
    return _element_formatter(np.dtype(dtype), fmt, int(decimals))(value)


def value_formatter(dtype, fmt: str = "auto", decimals: int = 6,
                    stored_bits: int | None = None) -> Callable[[object], str]:
    """:func:`format_value` with the dtype and format resolved once, for many elements.

    ``value_formatter(dtype, fmt, decimals)(value) == format_value(value, dtype, fmt, decimals)``.

    ``stored_bits`` (4 for int4/uint4, 24 for int24/uint24: the packed types of
    docs/semantics.md §2a, decoded into wider ints) makes ``"hex"`` and ``"raw bits"`` show the
    value's stored bits instead of the wider type's: int4 -8 is ``0x8`` and ``1000``, int24 -1
    ``0xffffff``. The decimal formats are unchanged.

    Raises
    ------
    ValueError
        As :func:`format_value`.
    """
    _check_format(fmt, decimals)
    if stored_bits is not None and fmt in ("hex", "raw bits") and np.dtype(dtype).kind in "iu":
        return _stored_bit_formatter(fmt, int(stored_bits))
    return _element_formatter(np.dtype(dtype), fmt, int(decimals))


def _stored_bit_formatter(fmt: str, nbits: int) -> Callable[[object], str]:
    """The hex / binary text of an integer's low ``nbits`` (two's complement), grouped by byte."""
    mask = (1 << nbits) - 1
    if fmt == "hex":
        digits = -(-nbits // 4)
        return lambda x: f"0x{int(x) & mask:0{digits}x}"

    def binary(x) -> str:
        text = f"{int(x) & mask:0{nbits}b}"
        return " ".join(text[i:i + 8] for i in range(0, nbits, 8))
    return binary


def csv_formatter(dtype, decimals: int | None = None) -> Callable[[object], str]:
    """A function giving the CSV text of one element of ``dtype`` (rules: module docstring).

    Parameters
    ----------
    dtype : numpy.dtype or dtype-like
        The elements' dtype, any byte order.
    decimals : int or None
        None: the shortest text that reads back as the same value of ``dtype`` (the screen's
        ``"auto"`` digits). An int: that many digits after the point (``"fixed"``).

    Raises
    ------
    ValueError
        ``decimals`` is negative.
    """
    fmt = "auto" if decimals is None else "fixed"
    decimals = 6 if decimals is None else int(decimals)
    _check_format(fmt, decimals)
    dtype = np.dtype(dtype)
    text = _element_formatter(dtype, fmt, decimals)
    kind = _info(dtype)[0]
    if kind == "b":
        return lambda value: "1" if value else "0"
    if kind == "c":
        return lambda value: f"({text(value)})"
    return text


def format_csv(value, dtype, decimals: int | None = None) -> str:
    """The CSV text of one element: ``csv_formatter(dtype, decimals)(value)``."""
    return csv_formatter(dtype, decimals)(value)


_JSON_SPECIAL = frozenset({"nan", "inf", "-inf"})


def json_value(value, dtype) -> bool | int | float | str | list:
    """One element as a JSON-ready Python object (rules: module docstring).

    bool -> ``bool``; integers -> ``int`` (exact, uint64 included); floats -> the ``float``
    whose shortest text is the ``"auto"`` text (so ``json.dumps`` writes the screen's digits),
    or ``"nan"`` / ``"inf"`` / ``"-inf"``; complex -> ``[real, imag]`` by the same rule.

    Raises
    ------
    TypeError
        ``dtype`` is not a numeric type.
    """
    info = _info(np.dtype(dtype))
    kind, native = info[0], info[1]
    if kind == "b":
        return bool(value)
    if kind in "iu":
        return int(value)
    if kind == "f":
        return _json_number(_decimal(value, kind, native, "auto", 0))
    if kind == "c":
        part = np.dtype(f"f{native.itemsize // 2}")
        z = native.type(value)
        return [_json_number(_decimal(p, "f", part, "auto", 0)) for p in (z.real, z.imag)]
    raise TypeError(f"{np.dtype(dtype)} values have no JSON form (only numeric types do)")


def _json_number(text: str) -> float | str:
    return text if text in _JSON_SPECIAL else float(text)


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
