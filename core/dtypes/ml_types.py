"""ml_dtypes (bfloat16, the float8 types), imported on first need.

Importing ml_dtypes registers each of its types with numpy's ufuncs. With numpy 2.4 and ml_dtypes
0.7 that takes about half a second, as long as the rest of the window's start-up, so nothing in
the program imports it at module level. The rule:

* :func:`ml_dtypes_module` imports it, when a type of it is asked for by name (``"bfloat16"``,
  ``"float8_e4m3fn"``: :attr:`core.dtypes.table.TypeRow.dtype`) or its code is needed;
* :func:`loaded_ml_dtypes` answers a question about an existing dtype without importing: an
  array of an ml_dtypes type can only exist once ml_dtypes is imported, so when it is not, no
  dtype in hand is one of its types.
"""

from __future__ import annotations

import sys
from types import ModuleType

__all__ = ["ml_dtypes_module", "loaded_ml_dtypes"]


def ml_dtypes_module() -> ModuleType:
    """The ml_dtypes module, imported now if it is not yet (about 0.5 s the first time)."""
    import ml_dtypes

    return ml_dtypes


def loaded_ml_dtypes() -> ModuleType | None:
    """The ml_dtypes module if something imported it already, else None (never imports)."""
    return sys.modules.get("ml_dtypes")
