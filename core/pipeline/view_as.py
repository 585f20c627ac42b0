"""The pipeline's "view as" step: a TensorBuffer ``create_from`` into another type (docs/semantics.md §6, §7).

``create_from`` converts element by element, so converting the sliced view gives exactly the
values of converting the whole tensor and then slicing; only the view is copied (budget-checked),
never the file.
"""

from __future__ import annotations

import numpy as np

from core.budget import check_copy_budget
from core.dtypes.data_type import DataType
from core.errors import TensorBufferError
from core.tflite.conversions import convert_array


def view_as_name(name: str) -> str:
    """The canonical DataType name of a "view as" type (``"uint8"`` -> ``"UINT8"``)."""
    try:
        return str(DataType.parse(name))
    except (ValueError, TypeError):
        return str(name)


def view_as(view: np.ndarray, source: DataType, target_name: str) -> np.ndarray:
    """``view``'s values converted from ``source`` to ``target_name`` by ``create_from``'s rules.

    Raises
    ------
    TensorBufferError
        Unknown or unsupported target type (``field="view_as"``).
    BudgetError
        The converted view would exceed the copy budget.
    """
    try:
        target = DataType.parse(target_name)
    except (ValueError, TypeError) as error:
        raise TensorBufferError(f"view as: {error}", field="view_as") from None
    if target is DataType.STRING:
        raise TensorBufferError(
            "TensorBuffer does not support STRING (choose a numeric view-as type)", field="view_as"
        )
    check_copy_budget(
        view.size * target.type_size,
        f"viewing {tuple(view.shape)} values as {target}",
        "slice the tensor to fewer values first",
        field="view_as",
    )
    return convert_array(view, source, target)
