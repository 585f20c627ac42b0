"""When two elements match: tolerances, the common type, the NaN policy and the bitwise mode.

Rules (docs/compare.md says the same in words)
----------------------------------------------
- Tolerance test (numpy's ``isclose``, B is the reference): ``|a - b| <= atol + rtol * |b|``.
- Default tolerances, torch.testing.assert_close's table, the loosest of the two sides' types:
  float16 ``rtol=1e-3, atol=1e-5``; bfloat16 ``1.6e-2, 1e-5``; float32 ``1.3e-6, 1e-5``; float64
  ``1e-7, 1e-7``; integers and bool ``0, 0`` (exact). Giving one of ``rtol`` / ``atol`` keeps
  the other's default.
- ``ulp=N`` replaces the tolerance test: finite values match when at most N representable
  values of the common type apart (:mod:`core.compare.ulp`); for integers the ULP distance is
  ``|a - b|``. N is a whole number from 0 to ``2**64 - 1`` (:data:`MAX_ULP`: distances are
  counted in 64 bits); anything else is refused with that range.
- NaN: with ``nan_policy="equal"`` (default) a NaN matches a NaN; with ``"mismatch"`` it never
  matches. A NaN against a number is always a mismatch.
- Infinities match only an infinity of the same sign. ``-0.0`` matches ``0.0``.
- Bitwise mode: elements match when their bits are equal (so ``-0.0`` differs from ``0.0`` and
  NaNs with different payloads differ); both sides must have the same type.
- Common type: two integer (or bool) types are compared exactly, whatever their types (int64
  against uint64 included, where numpy would round both to float64). Otherwise numpy's
  promotion (``np.result_type``), with bfloat16 promoting like float32 except against itself.
  Differences are computed in float32 when the common type is float32, else in float64 (the
  *work* type); ULP distances are counted in the common type.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.dtypes.table import engine_name, type_row
from core.errors import CoreError
from core.text.figures import format_difference

__all__ = [
    "DEFAULT_TOLERANCES", "MAX_ULP", "NAN_POLICIES", "CompareRules", "common_type", "default_tolerances",
    "element_kind", "is_bfloat16", "native_dtype", "resolve_rules",
]


def is_bfloat16(dtype: np.dtype) -> bool:
    """``dtype`` is bfloat16 in either byte order (ml_dtypes' types keep their name when
    byte-swapped; asking does not import ml_dtypes)."""
    return np.dtype(dtype).name == "bfloat16"

#: ``(rtol, atol)`` per floating type: torch.testing.assert_close's defaults.
DEFAULT_TOLERANCES: dict[str, tuple[float, float]] = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
}
#: ``"equal"``: NaN matches NaN (numpy's ``equal_nan=True``); ``"mismatch"``: it never does.
NAN_POLICIES = ("equal", "mismatch")


def native_dtype(dtype: np.dtype) -> np.dtype:
    """``dtype`` in native byte order (a big-endian bfloat16 becomes ``ml_dtypes.bfloat16``)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "V" and dtype.fields is None and dtype.itemsize == 2:
        return type_row("bfloat16").dtype
    return dtype.newbyteorder("=") if dtype.itemsize > 1 else dtype


def element_kind(dtype: np.dtype) -> str:
    """``"int"`` (integers and bool) or ``"float"`` (float16, bfloat16, float32, float64).

    Raises
    ------
    CoreError
        Any other type (complex, bytes, structured), ``field="dtype"``.
    """
    dtype = native_dtype(dtype)
    if dtype.kind in "biu":
        return "int"
    if is_bfloat16(dtype) or (dtype.kind == "f" and dtype.itemsize in (2, 4, 8)):
        return "float"
    raise CoreError(
        f"cannot compare {dtype} values: comparison needs integers, bool or real floats "
        "(compare complex data as float32 or float64 pairs: decode it with that type)",
        field="dtype",
    )


def common_type(dtype_a: np.dtype, dtype_b: np.dtype) -> np.dtype | None:
    """The type both sides are compared in; None for two integer types (compared exactly).

    Raises
    ------
    CoreError
        A side is not an integer, bool or real float type.
    """
    a, b = native_dtype(dtype_a), native_dtype(dtype_b)
    if element_kind(a) == "int" and element_kind(b) == "int":
        return None
    if is_bfloat16(a) and is_bfloat16(b):
        return a
    stand_in = [np.dtype(np.float32) if is_bfloat16(d) else d for d in (a, b)]
    return np.result_type(*stand_in)


def default_tolerances(dtype_a: np.dtype, dtype_b: np.dtype) -> tuple[float, float]:
    """``(rtol, atol)``: the loosest of the two types' entries in :data:`DEFAULT_TOLERANCES`
    (integers and bool: ``(0, 0)``)."""
    pairs = [DEFAULT_TOLERANCES.get(engine_name(native_dtype(d)), (0.0, 0.0)) for d in (dtype_a, dtype_b)]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


@dataclass(frozen=True)
class CompareRules:
    """The resolved rules of one comparison (see the module docstring).

    Attributes
    ----------
    dtype_a, dtype_b
        The sides' types (native byte order).
    common
        The type both are compared in; None for two integer types (exact).
    rtol, atol
        Tolerances of ``|a - b| <= atol + rtol * |b|`` (unused with ``ulp`` or ``bitwise``).
    tolerance_source
        ``"float32 defaults"``, ``"given"``, ``"given rtol, float32 default atol"``...
    ulp
        Largest ULP distance that matches, or None (the tolerance test applies).
    bitwise
        Elements match when their bits are equal.
    nan_equal
        NaN matches NaN (the NaN policy ``"equal"``).
    """

    dtype_a: np.dtype
    dtype_b: np.dtype
    common: np.dtype | None
    rtol: float
    atol: float
    tolerance_source: str
    ulp: int | None = None
    bitwise: bool = False
    nan_equal: bool = True

    @property
    def exact_integers(self) -> bool:
        return self.common is None

    @property
    def work(self) -> np.dtype:
        """The type differences are computed in: float32 for a float32 common type, else float64."""
        return np.dtype(np.float32) if self.common == np.float32 else np.dtype(np.float64)

    @property
    def common_name(self) -> str:
        if self.common is None:
            return "exact integers"
        return engine_name(self.common)

    @property
    def exact(self) -> bool:
        """True when only equal values match (bitwise, ``ulp=0``, or zero tolerances)."""
        return self.bitwise or self.ulp == 0 or (self.ulp is None and self.rtol == 0 and self.atol == 0)

    def describe(self) -> str:
        """One line: the test, its numbers, the NaN policy and the common type."""
        if self.bitwise:
            test = "bitwise: equal bits"
        elif self.ulp is not None:
            test = f"ULP distance <= {self.ulp}"
        else:
            test = (f"|a - b| <= atol + rtol * |b| with rtol={format_difference(self.rtol)}, atol={format_difference(self.atol)} "
                    f"({self.tolerance_source})")
        nan = "NaN matches NaN" if self.nan_equal else "NaN never matches"
        return f"{test}; {nan}; compared as {self.common_name}"


def _non_negative(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    value = float(value)
    if not (value >= 0 and math.isfinite(value)):
        raise CoreError(f"{name} must be a finite number >= 0, got {value!r} (for example {name}=1e-5)",
                        field=name)
    return value


#: The largest ULP tolerance: distances are uint64 (:mod:`core.compare.ulp`).
MAX_ULP = 2**64 - 1


def resolve_rules(dtype_a: np.dtype, dtype_b: np.dtype, *, rtol: float | None = None,
                  atol: float | None = None, ulp: int | None = None, bitwise: bool = False,
                  nan_policy: str = "equal") -> CompareRules:
    """Resolve the rules for comparing values of ``dtype_a`` with values of ``dtype_b``.

    Raises
    ------
    CoreError
        A type that cannot be compared (``field="dtype"``); a negative or non-finite tolerance;
        a negative ``ulp`` or one above :data:`MAX_ULP`; ``ulp`` together with ``rtol``/``atol``; ``bitwise`` together with
        tolerances or with two different types; an unknown NaN policy.
    """
    a, b = native_dtype(dtype_a), native_dtype(dtype_b)
    common = common_type(a, b)
    rtol, atol = _non_negative("rtol", rtol), _non_negative("atol", atol)
    if nan_policy not in NAN_POLICIES:
        raise CoreError(f"unknown NaN policy {nan_policy!r} (use one of: {', '.join(NAN_POLICIES)})",
                        field="nan_policy")
    if ulp is not None:
        if isinstance(ulp, bool) or int(ulp) != ulp or ulp < 0:
            raise CoreError(f"ulp must be a whole number >= 0, got {ulp!r} (for example ulp=4)", field="ulp")
        ulp = int(ulp)
        if ulp > MAX_ULP:
            raise CoreError(f"ulp {ulp:,} is out of range: ULP distances are counted in 64 bits, so a "
                            f"tolerance is a whole number from 0 to {MAX_ULP:,} (2**64 - 1, which "
                            "matches every finite pair)", field="ulp")
        if rtol is not None or atol is not None:
            raise CoreError("give either a ULP tolerance or rtol/atol, not both (drop one of them)", field="ulp")
    if bitwise:
        if rtol is not None or atol is not None or ulp is not None:
            raise CoreError("bitwise mode has no tolerance (drop rtol, atol and ulp, or bitwise)", field="bitwise")
        if a != b:
            raise CoreError(f"bitwise mode compares the bits of one type, but A is {engine_name(a)} and B is "
                            f"{engine_name(b)} (decode both sides with the same type, or drop bitwise mode)",
                            field="bitwise")
    default_rtol, default_atol = default_tolerances(a, b)
    loosest = max((engine_name(d) for d in (a, b)), key=lambda n: DEFAULT_TOLERANCES.get(n, (0.0, 0.0)))
    defaults = f"{loosest} defaults" if loosest in DEFAULT_TOLERANCES else "integers: exact"
    if rtol is None and atol is None:
        source = defaults
    elif rtol is not None and atol is not None:
        source = "given"
    else:
        source = f"given {'rtol' if rtol is not None else 'atol'}, other from {defaults}"
    return CompareRules(
        dtype_a=a, dtype_b=b, common=common,
        rtol=default_rtol if rtol is None else rtol, atol=default_atol if atol is None else atol,
        tolerance_source=source, ulp=ulp, bitwise=bool(bitwise), nan_equal=nan_policy == "equal",
    )
