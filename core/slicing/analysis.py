"""What a strided slice does to a shape, explained per dimension (docs/semantics.md §4, §5).

:func:`analyze` runs the strided-slice pipeline on a shape alone (no data), so a GUI can show
live feedback while the user types a slice: the output shape, where each output dimension comes
from, what happens to each input dimension, and notes explaining how TensorFlow resolved
conflicting or ignored mask bits (ellipsis > new_axis > shrink per bit; bits beyond the spec
are ignored; a shrink ignores its begin/end masks, its end and strides > 1...).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.slicing.strided_slice import NEW_AXIS, SlicePlan, plan_strided_slice
from core.slicing.validate import bit, set_bits

if TYPE_CHECKING:  # spec imports this module (SliceSpec.analyze); the name is for annotations
    from core.slicing.spec import SliceSpec

__all__ = ["InputDim", "OutputDim", "SliceAnalysis", "analyze", "explain"]


@dataclass(frozen=True)
class OutputDim:
    """One output dimension.

    ``kind`` is ``"new_axis"`` (size 1, no input dimension; ``input_dim`` and the bounds are
    ``None``) or ``"slice"`` (``input_dim`` with TF's canonical ``start``, ``stop``, ``step``;
    a ``stop`` of -1 with a negative step means *before index 0*). ``entry`` is the spec entry
    responsible, ``None`` for the implicit ellipsis.
    """

    kind: str
    length: int
    entry: int | None
    input_dim: int | None = None
    start: int | None = None
    stop: int | None = None
    step: int | None = None


@dataclass(frozen=True)
class InputDim:
    """One input dimension and what the spec does to it.

    ``role`` is ``"slice"`` (a range entry keeps it, as ``output_dim``), ``"shrink"`` (an index
    entry removes it, taking element ``index``) or ``"ellipsis"`` (taken whole by the ellipsis;
    ``implicit`` says whether that ellipsis was implied after the last entry).
    """

    size: int
    role: str
    entry: int | None
    output_dim: int | None = None
    index: int | None = None
    implicit: bool = False


@dataclass(frozen=True)
class SliceAnalysis:
    """The result of :func:`analyze`: shapes, per-dimension mapping and explanatory notes."""

    input_shape: tuple[int, ...]
    output_shape: tuple[int, ...]
    output_dims: tuple[OutputDim, ...]
    input_dims: tuple[InputDim, ...]
    notes: tuple[str, ...]
    plan: SlicePlan

    def source_index(self, output_index: Sequence[int]) -> tuple[int, ...]:
        """The input element that output element ``output_index`` views.

        Raises
        ------
        IndexError
            When ``output_index`` has the wrong length or is out of range.
        """
        if len(output_index) != len(self.output_dims):
            raise IndexError(
                f"output index {tuple(output_index)} has {len(output_index)} entries; "
                f"the output has {len(self.output_dims)} dimensions"
            )
        source = [0] * len(self.input_dims)
        for position, (dim, k) in enumerate(zip(self.output_dims, output_index)):
            if not 0 <= k < dim.length:
                raise IndexError(
                    f"index {k} is out of bounds for output dimension {position} "
                    f"of size {dim.length}"
                )
            if dim.kind == "slice":
                source[dim.input_dim] = dim.start + k * dim.step
        for i, d in enumerate(self.input_dims):
            if d.role == "shrink":
                source[i] = d.index
        return tuple(source)


def analyze(spec: SliceSpec, shape: Sequence[int]) -> SliceAnalysis:
    """Analyse ``spec`` applied to an input of ``shape`` (shape only, no data).

    ``analysis.output_shape == strided_slice(numpy.empty(shape), ...).shape`` always.

    Raises
    ------
    SliceError
        Exactly where :meth:`core.slicing.spec.SliceSpec.apply` would.
    """
    plan = plan_strided_slice(shape, spec)
    outputs: list[OutputDim] = []
    inputs: list[InputDim | None] = [None] * len(plan.input_shape)
    dim = 0
    for gather, entry in zip(plan.dense.final_shape_gather_indices, plan.dense.gather_entries):
        if gather == NEW_AXIS:
            outputs.append(OutputDim("new_axis", 1, entry))
            continue
        c, d = plan.canonical[dim], plan.dense.dims[dim]
        if c.shrink:
            inputs[dim] = InputDim(c.size, "shrink", entry, index=c.begin)
        else:
            inputs[dim] = InputDim(
                c.size,
                "ellipsis" if d.ellipsis else "slice",
                entry,
                output_dim=len(outputs),
                implicit=d.ellipsis and entry is None,
            )
            outputs.append(OutputDim("slice", c.length, entry, dim, c.begin, c.end, c.stride))
        dim += 1
    notes = explain(spec) + _implicit_ellipsis_note(plan)
    return SliceAnalysis(
        plan.input_shape, plan.output_shape, tuple(outputs), tuple(inputs), notes, plan
    )


def _implicit_ellipsis_note(plan: SlicePlan) -> tuple[str, ...]:
    dims = [i for i, d in enumerate(plan.dense.dims) if d.ellipsis and d.entry is None]
    if not dims:
        return ()
    taken = f"input dim {dims[0]}" if len(dims) == 1 else f"input dims {dims[0]}..{dims[-1]}"
    return (f"no ellipsis in the spec: an implicit one after the last entry takes {taken} whole",)


def _bits_text(bits: list[int]) -> str:
    return ("bit " if len(bits) == 1 else "bits ") + ", ".join(str(b) for b in bits)


def explain(spec: SliceSpec) -> tuple[str, ...]:
    """Shape-independent notes on how TensorFlow resolves ``spec``'s masks.

    One note per resolution, in entry order, then one per mask with bits beyond the spec:

    * ``entry 1: new_axis and shrink both set; new axis wins`` (ellipsis > new_axis > shrink);
    * ``begin_mask bit 0 ignored because entry 0 shrinks`` (or is the ellipsis / a new axis);
    * ``begin 3 of entry 0 ignored because begin_mask bit 0 is set`` (likewise for end);
    * ``end 7 of shrink entry 0 ignored (a shrink takes the single element at begin)``;
    * ``stride 3 on shrink entry 2 is ignored``; ``stride 0 on new-axis entry 1 is ignored``;
    * ``bits 5, 6 of end_mask are beyond the spec's 3 entries and are ignored``.
    """
    notes: list[str] = []
    n = len(spec)
    for i in range(n):
        is_ellipsis = bit(spec.ellipsis_mask, i)
        is_new = bit(spec.new_axis_mask, i)
        is_shrink = bit(spec.shrink_axis_mask, i)
        if is_ellipsis or is_new:
            winner = "ellipsis" if is_ellipsis else "new axis"
            what = "the ellipsis" if is_ellipsis else "a new axis"
            losers = [
                name
                for name, flag in (("new_axis", is_new and is_ellipsis), ("shrink", is_shrink))
                if flag
            ]
            if losers:
                names = " and ".join(["ellipsis" if is_ellipsis else "new_axis", *losers])
                notes.append(f"entry {i}: {names} both set; {winner} wins")
            for mask_name in ("begin_mask", "end_mask"):
                if bit(getattr(spec, mask_name), i):
                    notes.append(f"{mask_name} bit {i} ignored because entry {i} is {what}")
            values = [
                f"{name} {value}"
                for name, value in (("begin", spec.begin[i]), ("end", spec.end[i]))
                if value != 0
            ]
            if values:
                notes.append(f"{' and '.join(values)} of entry {i} ignored because it is {what}")
            if spec.strides[i] != 1:
                kind = "ellipsis" if is_ellipsis else "new-axis"
                notes.append(f"stride {spec.strides[i]} on {kind} entry {i} is ignored")
            continue
        if is_shrink:
            for mask_name in ("begin_mask", "end_mask"):
                if bit(getattr(spec, mask_name), i):
                    notes.append(f"{mask_name} bit {i} ignored because entry {i} shrinks")
            if spec.end[i] != spec.begin[i] + 1:
                notes.append(
                    f"end {spec.end[i]} of shrink entry {i} ignored "
                    "(a shrink takes the single element at begin)"
                )
            if spec.strides[i] > 1:
                notes.append(f"stride {spec.strides[i]} on shrink entry {i} is ignored")
            continue
        for name, mask_name in (("begin", "begin_mask"), ("end", "end_mask")):
            value = getattr(spec, name)[i]
            if bit(getattr(spec, mask_name), i) and value != 0:
                notes.append(
                    f"{name} {value} of entry {i} ignored because {mask_name} bit {i} is set"
                )
    for mask_name in (
        "begin_mask",
        "end_mask",
        "ellipsis_mask",
        "new_axis_mask",
        "shrink_axis_mask",
    ):
        beyond = [b for b in set_bits(getattr(spec, mask_name)) if b >= n]
        if beyond:
            verb = "is" if len(beyond) == 1 else "are"
            entries = "entry" if n == 1 else "entries"
            note = (
                f"{_bits_text(beyond)} of {mask_name} {verb} beyond the spec's {n} {entries} "
                f"and {verb} ignored"
            )
            if mask_name == "ellipsis_mask":
                note += " (it still counts toward the one-ellipsis limit)"
            notes.append(note)
    return tuple(notes)

