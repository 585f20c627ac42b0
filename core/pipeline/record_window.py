"""A reshape that must copy reads only the records its slice reaches (docs/semantics.md §7).

Decoded records that are not contiguous in the file (a ``record_size`` larger than the bytes
decoded of each record, or a ``fixed_length`` truncation) cannot be given a target shape that
mixes record boundaries without a copy (``tf.reshape`` reads the values in C order; numpy then
has no strides for them). Rules:

- **The copy covers only what the view needs.** The target shape's values are numbered in C
  order (flat index ``f``: record ``f // K``, value ``f % K`` of it, ``K`` values per record).
  The slice, planned on the target shape without data (:func:`core.slicing.strided_slice.
  plan_strided_slice`), reaches flat indices ``lo .. hi``; only records ``lo // K .. hi // K`` are
  read and copied, and the view is a strided view of that window with the slice's own origin
  and steps. An empty slice reads nothing. Values equal those of ``slice(reshape(copy of all
  records))`` exactly: the same flat indices are read.
- **The read is bounded.** Copying ``n`` records reads the file region they span (``n`` times the
  record stride), record by record where they are far apart. Before anything is read, that span
  is checked against the read limit, :func:`read_limit` = 8 x the copy budget (16 GiB by
  default; ``TENSOR_INSPECTOR_COPY_BUDGET`` raises both): a reshape of 8 bytes out of every
  4 KiB record of a 1 TiB file is refused at once with the fix (slice first, or keep the records'
  own shape, which is a view) instead of reading the whole file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core import budget
from core.errors import BudgetError
from core.slicing.spec import SliceSpec
from core.slicing.strided_slice import NEW_AXIS, SlicePlan, plan_strided_slice
from core.text.byte_sizes import format_bytes

__all__ = ["RecordWindow", "check_read_span", "read_limit", "record_window", "window_view"]

#: The read limit is this many times the copy budget.
READ_FACTOR = 8


def read_limit() -> int:
    """Most bytes of a file one strided copy may span: :data:`READ_FACTOR` x the copy budget."""
    return READ_FACTOR * budget.COPY_BUDGET_BYTES


def check_read_span(nbytes: int, what: str, fix: str, *, field: str | None = None) -> None:
    """Refuse a copy that would read ``nbytes`` of file, above :func:`read_limit`.

    Raises
    ------
    BudgetError
        ``reshaping ... would read 1.0 TiB of the file, above the 16.0 GiB read limit (8 x the
        copy budget) (fix, or raise the budget with TENSOR_INSPECTOR_COPY_BUDGET)``.
    """
    limit = read_limit()
    if nbytes > limit:
        raise BudgetError(
            f"{what} would read {format_bytes(nbytes)} of the file, above the "
            f"{format_bytes(limit)} read limit ({READ_FACTOR} x the copy budget) ({fix}, or raise "
            f"the budget with {budget.ENV_VAR})",
            field=field,
        )


@dataclass(frozen=True)
class RecordWindow:
    """The records a sliced reshape reaches: ``first .. stop - 1`` (``stop == first``: none)."""

    plan: SlicePlan
    first: int
    stop: int
    values_per_record: int

    @property
    def count(self) -> int:
        """Number of records in the window."""
        return self.stop - self.first


def _reached(plan: SlicePlan) -> tuple[int, int] | None:
    """Lowest and highest C-order flat index of ``plan.input_shape`` the slice takes, or None."""
    if any(dim.length == 0 for dim in plan.canonical):
        return None
    low = high = 0
    for dim, step in zip(plan.canonical, _c_strides(plan.input_shape)):
        last = dim.begin + (dim.length - 1) * dim.stride
        low += min(dim.begin, last) * step
        high += max(dim.begin, last) * step
    return low, high


def _c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    steps, size = [], 1
    for n in reversed(shape):
        steps.append(size)
        size *= n
    return tuple(reversed(steps))


def record_window(decoded: np.ndarray, target: tuple[int, ...], slice_spec: object) -> RecordWindow | None:
    """The window of ``decoded``'s records (its first axis) that ``slice_spec`` applied to the
    target shape reaches, or None when every record is needed or the spec is not a
    :class:`SliceSpec` (then the whole copy is made).

    Raises
    ------
    SliceError
        The spec does not fit the target shape (as :meth:`SliceSpec.apply` would).
    """
    if not isinstance(slice_spec, SliceSpec) or slice_spec.is_full or decoded.ndim != 2:
        return None
    plan = plan_strided_slice(target, slice_spec)
    per_record = decoded.shape[1]
    reached = _reached(plan)
    if reached is None:
        return RecordWindow(plan, 0, 0, per_record)
    first, stop = reached[0] // per_record, reached[1] // per_record + 1
    if first == 0 and stop >= decoded.shape[0]:
        return None
    return RecordWindow(plan, first, stop, per_record)


def window_view(copied: np.ndarray, window: RecordWindow) -> np.ndarray:
    """The sliced view of the target shape over ``copied``, the C-contiguous copy of the window's
    records: element ``o`` is flat index ``origin + sum(o * steps)`` of the whole target,
    ``window.first * K`` of which precede the copy. Read-only, like every pipeline view."""
    plan = window.plan
    flat = copied.reshape(-1)
    if math.prod(plan.output_shape) == 0:
        return np.lib.stride_tricks.as_strided(flat[:0], plan.output_shape, (0,) * len(plan.output_shape),
                                               writeable=False)
    c_steps = _c_strides(plan.input_shape)
    origin = sum(dim.begin * step for dim, step in zip(plan.canonical, c_steps))
    steps = []
    for gather in plan.dense.final_shape_gather_indices:
        if gather == NEW_AXIS:
            steps.append(0)
        elif gather >= 0:
            steps.append(plan.canonical[gather].stride * c_steps[gather])
    start = origin - window.first * window.values_per_record
    itemsize = flat.dtype.itemsize
    steps = [0 if n <= 1 else step for n, step in zip(plan.output_shape, steps)]
    return np.lib.stride_tricks.as_strided(flat[start:], plan.output_shape,
                                           tuple(step * itemsize for step in steps), writeable=False)
