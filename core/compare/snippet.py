"""Copy as code: numpy source that reproduces a comparison.

Each side is loaded by the numpy snippet of :func:`core.export.code_snippets.numpy_snippet`
(wrapped in a function ``load_a`` / ``load_b``), then paired as the engine pairs them
(``np.broadcast_arrays``, or the flat shift), and the verdict is computed on the whole arrays
with the same rule: ``np.isclose`` in the work type for tolerances, the ULP distance of
:mod:`core.compare.ulp` for a ULP tolerance, the bits for bitwise mode, ``a != b`` for exact
integers (numpy 2 compares int64 with uint64 exactly). Integers under a non-zero tolerance are
compared in float64 (differences above 2**53 are rounded there; the engine's are exact). The
snippet prints the engine's summary line (numpy's words) and leaves the verdict in
``mismatch``. It reads whole arrays: fine for checking, not for files larger than memory.
Nothing here runs it.
"""

from __future__ import annotations

import textwrap

from core.compare.rules import CompareRules, is_bfloat16
from core.dtypes.table import engine_name
from core.export.code_snippets import numpy_snippet
from core.files.sources import Source
from core.pipeline.result import PipelineResult

__all__ = ["SideRun", "numpy_compare_snippet"]

#: One side of a comparison as it was computed: its source and its pipeline result.
SideRun = tuple[Source, PipelineResult]

#: The summary line, its percentage written as core.text.figures.format_share writes it (numpy's
#: ``{:.3g}%``, but never 0% or 100% when it is neither), so the snippet prints the engine's line.
_SHARE_LINES = '''share = 100 * count / mismatch.size if mismatch.size else 0.0
percent = f"{share:.3g}"
if 0 < count < mismatch.size:  # never rounded to 0% or 100% when it is neither
    percent = ("<0.001" if share < 0.001 else ">99.99" if share > 99.99
               else f"{share:.2f}" if percent == "100" else percent)
print(f"Mismatched elements: {count} / {mismatch.size} ({percent}%)")'''

_ULP_FUNCTION = '''
def ulp_distance(x, y):
    """Representable values between x and y (same float type); -0.0 and 0.0 are 0 apart."""
    bits = np.dtype(f"u{x.dtype.itemsize}")
    sign = bits.type(1) << bits.type(8 * x.dtype.itemsize - 1)

    def ordered(v):
        u = np.ascontiguousarray(v).view(bits)
        magnitude = (u & ~sign).astype(np.int64)
        return np.where(u & sign, -magnitude, magnitude)

    ox, oy = ordered(x), ordered(y)
    wrapped = ox.view(np.uint64) - oy.view(np.uint64)
    return np.where(ox >= oy, wrapped, -wrapped)
'''


def _type_code(dtype) -> str:
    return "ml_dtypes.bfloat16" if is_bfloat16(dtype) else f"np.{engine_name(dtype)}"


def _loader(name: str, side: SideRun) -> str:
    body = numpy_snippet(*side)
    return f"def {name}():\n{textwrap.indent(body, '    ')}    return np.asarray(x)\n"


def _rule_lines(rules: CompareRules) -> list[str]:
    if rules.exact_integers:
        if rules.exact:
            return ["mismatch = a != b  # exact integers"]
        if rules.ulp is not None:
            return ["distance = np.abs(a.astype(np.float64) - b.astype(np.float64))",
                    f"mismatch = distance > {rules.ulp}"]
        return ["aw, bw = a.astype(np.float64), b.astype(np.float64)",
                f"mismatch = np.abs(aw - bw) > {rules.atol!r} + {rules.rtol!r} * np.abs(bw)"]
    if rules.bitwise:
        size = rules.dtype_a.itemsize
        return ['a, b = a.astype(a.dtype.newbyteorder("=")), b.astype(b.dtype.newbyteorder("="))  # native order',
                f"mismatch = a.view(np.uint{8 * size}) != b.view(np.uint{8 * size})  # bitwise"]
    work = "np.float32" if rules.work == "float32" else "np.float64"
    lines = [f"ac, bc = a.astype({_type_code(rules.common)}), b.astype({_type_code(rules.common)})  # common type",
             f"aw, bw = ac.astype({work}), bc.astype({work})  # differences computed in this type"]
    nan = "True" if rules.nan_equal else "False"
    if rules.ulp is not None:
        lines += ["finite = np.isfinite(aw) & np.isfinite(bw)",
                  f"close = np.where(finite, ulp_distance(ac, bc) <= {rules.ulp}, aw == bw)"]
        if rules.nan_equal:
            lines.append("close |= np.isnan(aw) & np.isnan(bw)")
        lines.append("mismatch = ~close")
    else:
        lines.append(f"mismatch = ~np.isclose(aw, bw, rtol={rules.rtol!r}, atol={rules.atol!r}, equal_nan={nan})")
    return lines


def numpy_compare_snippet(side_a: SideRun, side_b: SideRun, rules: CompareRules, shift: int = 0) -> str:
    """Python source, using numpy, that reproduces the comparison of ``side_a`` with ``side_b``
    (each ``(source, result)`` as compared) under ``rules`` (rules: module docstring).

    Returns
    -------
    str
        Runnable source; it prints numpy's summary line and leaves the verdict in ``mismatch``.

    Raises
    ------
    ExportError
        A side no snippet writes (:func:`core.export.code_snippets.numpy_snippet`).
    """
    needs_bf16 = any(d is not None and is_bfloat16(d) for d in (rules.dtype_a, rules.dtype_b, rules.common))
    lines = [f"# tensor-inspector's comparison, reproduced with numpy: {rules.describe()}.",
             "import numpy as np"]
    if needs_bf16:
        lines.append("import ml_dtypes")
    lines += ["", "", _loader("load_a", side_a), "", _loader("load_b", side_b)]
    if rules.ulp is not None and not rules.exact_integers:
        lines += [_ULP_FUNCTION]
    lines += ["", "a, b = load_a(), load_b()"]
    if shift:
        start = max(0, -shift)
        lines += [f"# shift: A[k] against B[k + {shift}] in flat C order",
                  "a, b = a.reshape(-1), b.reshape(-1)",
                  f"count = max(0, min(a.size, b.size - {shift}) - {start})",
                  f"a, b = a[{start}:{start} + count], b[{start + shift}:{start + shift} + count]"]
    else:
        lines.append("a, b = np.broadcast_arrays(a, b)  # numpy's broadcasting")
    lines += _rule_lines(rules)
    lines += ["count = int(np.count_nonzero(mismatch))", _SHARE_LINES, ""]
    return "\n".join(lines)
