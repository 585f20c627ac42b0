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
from core.scan.blocks import BlockReader
from core.tflite.conversions import convert_array

#: Elements converted per block (their float64 intermediates stay within a few tens of MiB).
_CONVERT_CHUNK = 1 << 20


def view_as_name(name: str) -> str:
    """The canonical DataType name of a "view as" type (``"uint8"`` -> ``"UINT8"``)."""
    try:
        return str(DataType.parse(name))
    except (ValueError, TypeError):
        return str(name)


def no_tensor_buffer_error(type_name: str, target_name: str) -> TensorBufferError:
    """The refusal of "view as" for a type TFLite's DataType lacks (the float8 types).

    TensorBuffer can only be created from its own DataTypes, so there is nothing to convert from.
    """
    return TensorBufferError(
        f"view as {view_as_name(target_name)}: TFLite's TensorBuffer has no {type_name} type, so "
        f"there is no create_from to reproduce (clear view as, or decode the bytes as uint8 to "
        f"view them as another type)",
        field="view_as",
    )


def view_as_target(target_name: str) -> DataType:
    """The DataType a "view as" name stands for.

    Raises
    ------
    TensorBufferError
        Unknown type, or STRING (``field="view_as"``).
    """
    try:
        target = DataType.parse(target_name)
    except (ValueError, TypeError) as error:
        raise TensorBufferError(f"view as: {error}", field="view_as") from None
    if target is DataType.STRING:
        raise TensorBufferError(
            "TensorBuffer does not support STRING (choose a numeric view-as type)", field="view_as"
        )
    return target


def view_as(view: np.ndarray, source: DataType, target_name: str, reader: BlockReader | None = None) -> np.ndarray:
    """``view``'s values converted from ``source`` to ``target_name`` by ``create_from``'s rules.

    The result is allocated once (budget-checked) and filled block by block: the values are
    read through ``reader`` (``pread``, see :mod:`core.scan.blocks`) when given, so a file
    truncated during the conversion raises ``SourceError`` instead of faulting, and at most one
    block of intermediate values exists at a time.

    Raises
    ------
    TensorBufferError
        Unknown or unsupported target type (``field="view_as"``).
    BudgetError
        The converted view would exceed the copy budget.
    SourceError
        A file shrank during the conversion.
    """
    target = view_as_target(target_name)
    check_copy_budget(
        view.size * target.type_size,
        f"viewing {tuple(view.shape)} values as {target}",
        "slice the tensor to fewer values first",
        field="view_as",
    )
    if reader is None:
        return convert_array(view, source, target)
    out = None
    flat = None
    done = 0
    for block in reader.blocks(view, _CONVERT_CHUNK):
        converted = convert_array(block, source, target)
        if out is None:
            out = np.empty(view.shape, converted.dtype)
            flat = out.reshape(-1)
        flat[done:done + block.size] = converted.reshape(-1)
        done += block.size
    if out is None:
        return convert_array(view, source, target)  # an empty view: nothing to read
    return out
