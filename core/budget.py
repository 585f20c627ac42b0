"""An explicit memory budget for the copies the engine makes.

The engine works on views wherever it can (memory maps, ``np.frombuffer``, dtype views). The few
operations that must copy (padding to ``fixed_length``, stacking several files into one batch,
normalising ``bool`` bytes, making a strided array contiguous before a reshape, "view as",
TensorBuffer copies, printing values) first ask :func:`check_copy_budget`, so that an absurd
request (``fixed_length=2**40``) fails at once, before anything is allocated, with a message that
says how to avoid the copy. Operations that stream (statistics, export) size their blocks with
:func:`elements_per_chunk` instead, so they work on views of any size within the budget.

The budget is :data:`COPY_BUDGET_BYTES` (2 GiB), or the environment variable
``TENSOR_INSPECTOR_COPY_BUDGET`` read at import (a byte count, optionally with a unit: ``512MiB``,
``4GiB``, ``4G``, ``1TB``). An unparseable value is not silently ignored: every budget check then
fails with a message naming it.
"""

from __future__ import annotations

import os
import re

from core.errors import BudgetError
from core.text.byte_sizes import format_bytes

__all__ = [
    "COPY_BUDGET_BYTES", "ENV_VAR", "check_copy_budget", "elements_per_chunk", "parse_byte_count",
]

ENV_VAR = "TENSOR_INSPECTOR_COPY_BUDGET"
_DEFAULT = 2 * 1024**3

_UNITS = {
    "": 1, "b": 1,
    "k": 1024, "kb": 1000, "kib": 1024,
    "m": 1024**2, "mb": 1000**2, "mib": 1024**2,
    "g": 1024**3, "gb": 1000**3, "gib": 1024**3,
    "t": 1024**4, "tb": 1000**4, "tib": 1024**4,
}


def parse_byte_count(text: str) -> int:
    """Parse ``"4294967296"``, ``"4GiB"``, ``"4 G"``, ``"1.5GB"`` into a byte count.

    Single letters (``K``, ``M``, ``G``, ``T``) are binary units; ``KB``/``MB``... are decimal.
    Only ASCII digits count (a look-alike digit from another script is refused, not guessed), and
    the result must stay below 2**63 bytes (no machine has more to budget).

    Raises
    ------
    ValueError
        Not a non-negative number with a known unit, or an absurdly large one.
    """
    match = re.fullmatch(r"\s*([0-9]{1,30})(?:\.([0-9]{0,30}))?\s*([a-zA-Z]*)\s*", text, flags=re.ASCII)
    if match is None or match.group(3).lower() not in _UNITS:
        raise ValueError(f"{text[:40]!r} is not a byte count")
    whole, fraction, unit = match.group(1), match.group(2) or "", _UNITS[match.group(3).lower()]
    nbytes = (int(whole + fraction) * unit) // 10 ** len(fraction)
    if nbytes >= 1 << 63:
        raise ValueError(f"{text[:40]!r} is larger than any memory (at most 2**63 - 1 bytes)")
    return nbytes


def _budget_from_env() -> tuple[int, str | None]:
    raw = os.environ.get(ENV_VAR)
    if raw is None or not raw.strip():
        return _DEFAULT, None
    try:
        return parse_byte_count(raw), None
    except ValueError:
        return _DEFAULT, raw


#: Largest copy, in bytes, the engine makes without refusing (default 2 GiB).
COPY_BUDGET_BYTES: int
COPY_BUDGET_BYTES, _ENV_ERROR = _budget_from_env()


def check_copy_budget(nbytes: int, what: str, fix: str, *, field: str | None = None) -> None:
    """Refuse a copy of ``nbytes`` bytes if it exceeds the budget; call it before allocating.

    Parameters
    ----------
    nbytes
        Size of the copy about to be made (compute it with Python ints: no overflow).
    what
        What would copy, e.g. ``"padding to fixed_length 1099511627776"``.
    fix
        How to avoid the copy, e.g. ``"choose a smaller fixed_length"``.
    field
        The parameter responsible, for the GUI (``"fixed_length"``, ``"files"``...).

    Raises
    ------
    BudgetError
        ``padding to fixed_length 1099511627776 would copy 1.0 TiB, above the 2.0 GiB copy
        budget (choose a smaller fixed_length, or raise the budget with
        TENSOR_INSPECTOR_COPY_BUDGET)``; also when the environment variable is unparseable.
    """
    if _ENV_ERROR is not None:
        raise BudgetError(
            f"{ENV_VAR}={_ENV_ERROR!r} is not a byte count (set it to e.g. 4GiB or 4294967296, "
            f"or unset it for the {format_bytes(_DEFAULT)} default)",
            field=field,
        )
    budget = COPY_BUDGET_BYTES
    if nbytes > budget:
        raise BudgetError(
            f"{what} would copy {format_bytes(nbytes)}, above the {format_bytes(budget)} copy "
            f"budget ({fix}, or raise the budget with {ENV_VAR})",
            field=field,
        )


def elements_per_chunk(wanted: int, bytes_per_element: int) -> int:
    """How many elements a streaming operation may hold at once within the copy budget.

    Parameters
    ----------
    wanted
        The operation's preferred block size, in elements.
    bytes_per_element
        Memory one element of a block costs while it is processed (all its copies together).

    Returns
    -------
    int
        ``wanted``, or fewer so that ``elements * bytes_per_element`` stays within
        :data:`COPY_BUDGET_BYTES`; at least 1 (the operation then streams slowly, never refuses).
    """
    return max(1, min(int(wanted), COPY_BUDGET_BYTES // max(1, int(bytes_per_element))))
