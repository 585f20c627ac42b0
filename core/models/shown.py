"""How one tensor of an inventory is shown in a window of its own: as files decoded with
parameters wherever it is a view of a file, else as its values in memory.

Rules
-----
- A raw file: that file, decoded with the inventory's :class:`~core.pipeline.params.DecodeParams`.
- A container's view of its own file: the container's file with the entry's parameters (its
  byte offset, length, dtype, byte order, shape and strides), so the hex view, the byte map and
  the change watch are the file's.
- A view of another file (a checkpoint's data shard, a safetensors index's shard): that file
  (:func:`core.formats.values.entry_file`, inside the container's folder), the entry's parameters.
- A copy or computed entry (a compressed member, dequantized values, a varint list): its
  format's ``values`` (:func:`core.formats.values.entry_values`, budget-checked), shown as an
  array in memory named ``LABEL (how)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.formats.values import entry_file, entry_values
from core.models.inventory import ModelTensor
from core.pipeline.params import DecodeParams
from core.pipeline.pipeline import Pipeline
from core.text.names import printable_name

__all__ = ["TensorForm", "tensor_form"]


@dataclass(frozen=True)
class TensorForm:
    """Files and parameters (``values`` None), or values in memory (``paths`` empty, the
    parameters the defaults); ``title`` names what is shown."""

    paths: tuple[str, ...]
    params: DecodeParams
    title: str
    values: np.ndarray | None = None


def tensor_form(tensor: ModelTensor) -> TensorForm:
    """How ``tensor`` is shown (module rules).

    Raises
    ------
    CoreError
        Its entry cannot be shown (its problem), its data file is outside the container's
        folder, or its values are refused (package missing, over the copy budget...).
    """
    title = printable_name(tensor.label)
    entry = tensor.entry
    if entry is None:
        return TensorForm((tensor.path,), tensor.params or DecodeParams(), title)
    if entry.mappable:
        path = tensor.path if entry.file is None else entry_file(tensor.path, entry)
        return TensorForm((path,), entry.params(), title)
    with Pipeline(tensor.path) as pipeline:
        values = entry_values(pipeline.source, tensor.listing, entry)
    return TensorForm((), DecodeParams(), f"{title} ({values.how})", values.array)
