"""``tf.strided_slice`` with TensorFlow's exact semantics, as a numpy view (docs/semantics.md §4).

The code mirrors TensorFlow's ``ValidateStridedSliceOp``
(``tensorflow/core/util/strided_slice_op.cc``) step by step, so that it can be checked against
the reference line by line:

1. :func:`validate` (in :mod:`core.slicing.validate`) -- begin, end and strides are 1-D of equal
   length (fewer than 32 entries, because the masks are 32-bit), the masks fit in an int32, at
   most one ellipsis bit is set in the *whole* ellipsis mask.
2. :func:`build_dense_spec` -- the sparse spec (a :class:`core.slicing.spec.SliceSpec`, one
   entry per item of ``x[...]``) becomes a dense
   spec (one entry per input dimension): the ellipsis, explicit or implicit, expands to full
   ranges; new axes consume no input dimension; per bit, ellipsis > new_axis > shrink.
3. :func:`canonicalize` -- per input dimension: zero strides are refused, masks become explicit
   bounds, negative indices get the dimension added, bounds are clamped, shrinks are bounds
   checked.
4. :func:`final_shape` -- kept dimensions in order, new axes as 1, shrunk dimensions dropped.

:func:`plan_strided_slice` runs the four steps on a shape alone (no data) and returns a
:class:`SlicePlan`, whose :attr:`SlicePlan.index` is a numpy *basic* index;
:meth:`core.slicing.spec.SliceSpec.apply` applies it, so the result is always a view of the input
(never a copy), a 0-d result included. The op with TensorFlow's signature,
``strided_slice(x, begin, end, strides, ...)``, is :func:`core.slicing.spec.strided_slice`: it
builds the ``SliceSpec`` first, and this module sits below ``spec`` (it names ``SliceSpec`` only
in annotations).

Every error is a :class:`core.errors.SliceError` (``field="slice"``) whose message is
TensorFlow's text followed by the fix in parentheses.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.slicing.validate import bit, slice_error, validate

if TYPE_CHECKING:  # spec imports this module (SliceSpec.apply); the name is for annotations
    from core.slicing.spec import SliceSpec

__all__ = [
    "NEW_AXIS",
    "SHRINK_AXIS",
    "CanonicalDim",
    "DenseDim",
    "DenseSpec",
    "SlicePlan",
    "build_dense_spec",
    "canonicalize",
    "final_shape",
    "plan_strided_slice",
    "validate",
]

#: Markers in :attr:`DenseSpec.final_shape_gather_indices`, as TF's ``kShrinkAxis`` / ``kNewAxis``.
SHRINK_AXIS = -1
NEW_AXIS = -2


# --------------------------------------------------------------------------------------------
# Step 2: sparse spec -> dense spec
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DenseDim:
    """One input dimension of the dense spec (TF's ``StridedSliceDenseSpec`` row).

    ``entry`` is the sparse entry that produced it: a range or shrink entry, the explicit
    ellipsis, or ``None`` for the implicit ellipsis. Ellipsis dimensions are ``0, 0, 1`` with
    both masks set, i.e. the whole dimension.
    """

    begin: int
    end: int
    stride: int
    begin_masked: bool
    end_masked: bool
    shrink: bool
    entry: int | None
    ellipsis: bool


@dataclass(frozen=True)
class DenseSpec:
    """TF's dense spec: one :class:`DenseDim` per input dimension, plus the output order.

    ``final_shape_gather_indices`` has one item per dense item in order: the input dimension
    (kept), :data:`SHRINK_AXIS` or :data:`NEW_AXIS`; ``gather_entries`` gives the sparse entry
    of each (``None`` for the implicit ellipsis).
    """

    dims: tuple[DenseDim, ...]
    final_shape_gather_indices: tuple[int, ...]
    gather_entries: tuple[int | None, ...]


def build_dense_spec(sparse: SliceSpec, rank: int) -> DenseSpec:
    """Step 2: expand ``sparse`` to one entry per dimension of a rank-``rank`` input.

    Rules (TF's ``BuildDenseSpec``):

    * without an ellipsis bit among the first ``len(sparse)`` bits, an implicit ellipsis
      follows the last entry, so a short spec takes the remaining dimensions whole;
    * the ellipsis expands to ``rank - (entries after it that consume a dimension)`` full
      ranges (none if that is negative);
    * per bit, ellipsis > new axis > shrink; a new axis is a size-1 output dimension consuming
      no input dimension; its begin, end, stride (even 0) and begin/end mask bits are unused;
    * mask bits at or beyond ``len(sparse)`` are ignored.

    Raises
    ------
    SliceError
        ``Attempting to slice scalar input.`` when a 0-d input meets an entry that consumes a
        dimension; ``Index out of range using input dim 1; input has only 1 dims`` when the
        entries consume more dimensions than the input has.
    """
    n = len(sparse)
    ellipsis_mask = sparse.ellipsis_mask & 0xFFFFFFFF
    new_axis_after_ellipsis = 0
    ellipsis_seen = False
    for i in range(n):
        if ellipsis_seen and bit(sparse.new_axis_mask, i):
            new_axis_after_ellipsis += 1
        if bit(ellipsis_mask, i):
            ellipsis_seen = True
    implicit = not ellipsis_seen
    if implicit:
        ellipsis_mask |= 1 << n
        n += 1

    dims: list[DenseDim] = []
    gather: list[int] = []
    gather_entries: list[int | None] = []
    for i in range(n):
        entry = None if implicit and i == n - 1 else i
        if bit(ellipsis_mask, i):
            next_index = min(rank - (n - i) + 1 + new_axis_after_ellipsis, rank)
            while len(dims) < next_index:
                gather.append(len(dims))
                gather_entries.append(entry)
                dims.append(DenseDim(0, 0, 1, True, True, False, entry, True))
        elif bit(sparse.new_axis_mask, i):
            gather.append(NEW_AXIS)
            gather_entries.append(entry)
        else:
            if len(dims) == rank:
                consumed = _consuming_entries(sparse)
                if rank == 0:
                    raise slice_error(
                        "Attempting to slice scalar input.",
                        "a 0-d input only takes '...' and tf.newaxis entries",
                    )
                raise slice_error(
                    f"Index out of range using input dim {len(dims)}; input has only {rank} dims",
                    f"the spec indexes {consumed} dimensions but the input has {rank}: "
                    "remove entries",
                )
            shrink = bit(sparse.shrink_axis_mask, i)
            gather.append(SHRINK_AXIS if shrink else len(dims))
            gather_entries.append(entry)
            dims.append(
                DenseDim(
                    sparse.begin[i],
                    sparse.end[i],
                    sparse.strides[i],
                    bit(sparse.begin_mask, i),
                    bit(sparse.end_mask, i),
                    shrink,
                    entry,
                    False,
                )
            )
    return DenseSpec(tuple(dims), tuple(gather), tuple(gather_entries))


def _consuming_entries(sparse: SliceSpec) -> int:
    """How many entries of ``sparse`` consume an input dimension (not ellipsis, not new axis)."""
    return sum(
        1
        for i in range(len(sparse))
        if not bit(sparse.ellipsis_mask, i) and not bit(sparse.new_axis_mask, i)
    )


# --------------------------------------------------------------------------------------------
# Step 3: canonicalize
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CanonicalDim:
    """One input dimension after canonicalisation.

    ``begin`` and ``end`` are TF's canonical bounds: for a range, in ``[0, size]`` (stride > 0)
    or ``[-1, size-1]`` (stride < 0, where ``-1`` means *before index 0*); for a shrink,
    ``begin`` is the non-negative index and ``end == begin + 1``. ``length`` is the number of
    elements taken (1 for a shrink, which is then dropped from the output).
    """

    size: int
    begin: int
    end: int
    stride: int
    length: int
    shrink: bool

    def as_slice(self) -> slice:
        """The Python slice taking the same elements (``end == -1`` becomes ``None``)."""
        if self.length == 0:
            return slice(0, 0, 1)
        return slice(self.begin, self.end if self.end >= 0 else None, self.stride)


def _interval_length(begin: int, end: int, stride: int) -> int:
    """``ceil((end - begin) / stride)``, 0 when the interval is empty or runs the wrong way."""
    interval = end - begin
    if interval == 0 or (interval < 0) != (stride < 0):
        return 0
    return -(-interval // stride)


def canonicalize(dense: DenseSpec, shape: tuple[int, ...]) -> tuple[CanonicalDim, ...]:
    """Step 3: turn each dense dimension into explicit, clamped bounds.

    Rules, per dimension ``i`` of size ``dim`` (in order; the first failure is reported):

    * stride 0 -> ``strides[i] must be non-zero`` (``i`` is the *dense* index);
    * a shrink with a negative stride -> ``only stride 1 allowed on non-range indexing.``;
    * a shrink ignores begin_mask, end_mask, end and any stride > 1: ``begin + dim`` if
      negative must lie in ``[0, dim)``, else ``slice index 7 of dimension 0 out of bounds.``
      (a negative index is reported after adding ``dim``);
    * otherwise a masked begin is 0 (stride > 0) or ``dim-1`` (stride < 0); a masked end is
      ``dim`` or ``-1`` (before index 0); unmasked values get ``dim`` added when negative and
      are clamped to ``[0, dim]`` (stride > 0) or ``[-1, dim-1]`` (stride < 0).

    Raises
    ------
    SliceError
        On the errors above.
    """
    result = []
    for i, (d, size) in enumerate(zip(dense.dims, shape)):
        stride = d.stride
        if stride == 0:
            raise slice_error(
                f"strides[{i}] must be non-zero",
                "use a positive step, or a negative one to go backwards",
            )
        if d.shrink and stride <= 0:
            raise slice_error(
                "only stride 1 allowed on non-range indexing.",
                "use stride 1 on an index entry, or clear its shrink_axis_mask bit",
            )
        if d.shrink:
            index = d.begin + size if d.begin < 0 else d.begin
            if not 0 <= index < size:
                fix = (
                    f"dimension {i} has size 0 and cannot be indexed"
                    if size == 0
                    else f"use an index in [{-size}, {size})"
                )
                raise slice_error(f"slice index {index} of dimension {i} out of bounds.", fix)
            result.append(CanonicalDim(size, index, index + 1, stride, 1, True))
            continue
        low, high = (0, size) if stride > 0 else (-1, size - 1)

        def canonical(x: int, masked: bool, is_end: bool, stride=stride, size=size, low=low, high=high) -> int:
            if masked:
                # begin -> start of the walk, end -> past its finish, for either direction
                if stride > 0:
                    return high if is_end else low
                return low if is_end else high
            x_fwd = x + size if x < 0 else x
            return min(max(x_fwd, low), high)

        begin = canonical(d.begin, d.begin_masked, False)
        end = canonical(d.end, d.end_masked, True)
        result.append(
            CanonicalDim(size, begin, end, stride, _interval_length(begin, end, stride), False)
        )
    return tuple(result)


# --------------------------------------------------------------------------------------------
# Step 4: final shape, and the plan
# --------------------------------------------------------------------------------------------


def final_shape(dense: DenseSpec, canonical: tuple[CanonicalDim, ...]) -> tuple[int, ...]:
    """Step 4: kept dimensions' lengths in order, 1 for each new axis, shrinks dropped.

    Raises
    ------
    SliceError
        The result would have more than 64 dimensions (numpy's limit; TensorFlow's kernels
        stop far earlier), e.g. 30 ``tf.newaxis`` on a 40-d tensor.
    """
    shape = []
    for gather in dense.final_shape_gather_indices:
        if gather >= 0:
            shape.append(canonical[gather].length)
        elif gather == NEW_AXIS:
            shape.append(1)
    if len(shape) > MAX_OUTPUT_DIMS:
        raise slice_error(
            f"the result would have {len(shape)} dimensions, more than {MAX_OUTPUT_DIMS}",
            "use fewer tf.newaxis entries, or shrink some dimensions with an integer index",
        )
    return tuple(shape)


#: Most dimensions an array can have (numpy's NPY_MAXDIMS).
MAX_OUTPUT_DIMS = 64


@dataclass(frozen=True)
class SlicePlan:
    """Everything the strided slice computes from a shape, before touching data.

    ``index`` is a numpy *basic* index (ints, slices, ``None``, and a trailing ``...`` that
    makes numpy return a 0-d array instead of a scalar), so ``x[plan.index]`` is a view.
    """

    input_shape: tuple[int, ...]
    sparse: SliceSpec
    dense: DenseSpec
    canonical: tuple[CanonicalDim, ...]
    output_shape: tuple[int, ...]
    index: tuple[Any, ...]


def _numpy_index(dense: DenseSpec, canonical: tuple[CanonicalDim, ...]) -> tuple[Any, ...]:
    index: list[Any] = []
    dim = 0
    for gather in dense.final_shape_gather_indices:
        if gather == NEW_AXIS:
            index.append(None)
            continue
        c = canonical[dim]
        index.append(c.begin if c.shrink else c.as_slice())
        dim += 1
    index.append(Ellipsis)
    return tuple(index)


def plan_strided_slice(shape: Sequence[int], sparse: SliceSpec) -> SlicePlan:
    """Run the four steps of ``ValidateStridedSliceOp`` for ``sparse`` on ``shape`` (no data).

    Step 1 (:func:`validate`) runs first, so a spec holding two ellipsis bits fails now.

    Raises
    ------
    SliceError
        Whatever TensorFlow would raise for this spec and shape (see the step functions).
    """
    validate(sparse)
    shape = tuple(operator.index(s) for s in shape)
    dense = build_dense_spec(sparse, len(shape))
    canonical = canonicalize(dense, shape)
    output_shape = final_shape(dense, canonical)
    return SlicePlan(shape, sparse, dense, canonical, output_shape, _numpy_index(dense, canonical))
