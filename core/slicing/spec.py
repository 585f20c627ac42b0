"""The slice spec: a frozen, validated ``tf.strided_slice`` argument set (docs/semantics.md §4, §5).

:class:`SliceSpec` holds ``begin``, ``end``, ``strides`` and the five masks exactly as
``tf.strided_slice`` takes them (bit ``i`` of a mask refers to entry ``i``). It is validated at
construction where the rule does not depend on the input's shape (1-D of equal length below 32,
int64 values, int32 masks) and is cheap to compare, hash and hand to a worker thread. Rules that
need the shape, and the ellipsis count (``"[..., ...]"`` parses, then fails when applied), are
checked by :meth:`SliceSpec.apply` and :meth:`SliceSpec.analyze`. A ``SliceSpec`` is
TensorFlow's *sparse spec*: the pipeline of :mod:`core.slicing.strided_slice` runs on it.

The empty spec (:meth:`SliceSpec.full`) means "the whole tensor": TensorFlow's implicit ellipsis
takes every dimension. :func:`strided_slice` is the op with TensorFlow's signature.

Layers: this module imports the pipeline (``validate``, ``strided_slice``, ``analysis``);
text forms and source code live above it (:mod:`core.slicing.expr`,
:mod:`core.slicing.source_code`, :mod:`core.slicing.editing` import this module).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.errors import SliceError
from core.slicing.analysis import SliceAnalysis, analyze
from core.slicing.strided_slice import plan_strided_slice
from core.slicing.validate import MASK_NAMES, bit, read_fields

__all__ = ["SliceSpec", "strided_slice"]


@dataclass(frozen=True)
class SliceSpec:
    """Arguments of ``tf.strided_slice`` (everything but the input), validated and immutable.

    Parameters
    ----------
    begin, end
        Sequences of integers in the int64 range (stored as tuples of Python ints).
    strides
        Likewise; ``None`` (the default) means a stride of 1 for every entry.
    begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask
        int32 bit masks; bit ``i`` refers to entry ``i``. Bits at or beyond ``len(begin)`` are
        kept (so the spec round-trips) but ignored by TensorFlow, except that the ellipsis mask
        may have at most one bit set in total.

    Raises
    ------
    SliceError
        At construction, for TensorFlow's shape-independent errors: begin, end and strides not
        1-D of the same length below 32 (``Expected begin, end, and strides to be 1D equal size
        tensors, ...``), a value outside int64, a mask outside int32.

    Examples
    --------
    ``x[1:, tf.newaxis, -1]`` is ``SliceSpec((1, 0, -1), (0, 0, 0), (1, 1, 1), end_mask=1,
    new_axis_mask=2, shrink_axis_mask=4)``, also written
    ``core.slicing.expr.parse_slice("1:, tf.newaxis, -1")`` or
    ``SliceSpec.from_index((slice(1, None), None, -1))``.
    """

    begin: tuple[int, ...] = ()
    end: tuple[int, ...] = ()
    strides: tuple[int, ...] | None = None
    begin_mask: int = 0
    end_mask: int = 0
    ellipsis_mask: int = 0
    new_axis_mask: int = 0
    shrink_axis_mask: int = 0

    def __post_init__(self) -> None:
        begin, end, strides, masks = read_fields(
            self.begin,
            self.end,
            self.strides,
            **{name: getattr(self, name) for name in MASK_NAMES},
        )
        # Normalise to tuples of Python ints so that equal specs compare and hash equal.
        object.__setattr__(self, "begin", begin)
        object.__setattr__(self, "end", end)
        object.__setattr__(self, "strides", strides)
        for name in MASK_NAMES:
            object.__setattr__(self, name, masks[name])

    # ---------------------------------------------------------------- construction helpers

    @classmethod
    def full(cls) -> SliceSpec:
        """The empty spec: the whole tensor, whatever its rank (``x[...]``, ``x[()]``)."""
        return cls()

    @property
    def is_full(self) -> bool:
        """True for the empty spec (:meth:`full`): no slice, the whole tensor."""
        return len(self) == 0

    @classmethod
    def from_index(cls, key: Any) -> SliceSpec:
        """The spec TensorFlow's ``x[key]`` builds (its ``_slice_helper``).

        ``key`` is one item or a tuple of items: an integer ``i`` -> begin ``i``, end ``i+1``,
        stride 1 and the shrink bit; a ``slice`` -> its start/stop/step, where a ``None`` start
        or stop becomes 0 with the begin/end mask bit and a ``None`` step becomes 1;
        ``Ellipsis`` and ``None`` (``tf.newaxis``) -> ``0, 0, 1`` with the ellipsis / new-axis
        bit. ``()`` is the empty spec.

        Raises
        ------
        SliceError
            For any other item (bools included), or when the spec has 32 entries or more.
        """
        items = key if isinstance(key, tuple) else (key,)
        begin: list[int] = []
        end: list[int] = []
        strides: list[int] = []
        masks = dict.fromkeys(MASK_NAMES, 0)
        for i, item in enumerate(items):
            b, e, s = 0, 0, 1
            if item is Ellipsis:
                masks["ellipsis_mask"] |= 1 << i
            elif item is None:
                masks["new_axis_mask"] |= 1 << i
            elif isinstance(item, slice):
                if item.start is None:
                    masks["begin_mask"] |= 1 << i
                else:
                    b = _index_item(item.start, i)
                if item.stop is None:
                    masks["end_mask"] |= 1 << i
                else:
                    e = _index_item(item.stop, i)
                if item.step is not None:
                    s = _index_item(item.step, i)
            else:
                b = _index_item(item, i)
                e = b + 1
                masks["shrink_axis_mask"] |= 1 << i
            begin.append(b)
            end.append(e)
            strides.append(s)
        # Bits of entries >= 32 do not fit in an int32: let the length check speak first.
        if len(items) > 31:
            masks = dict.fromkeys(MASK_NAMES, 0)
        return cls(tuple(begin), tuple(end), tuple(strides), **masks)

    # ---------------------------------------------------------------- the spec itself

    def __len__(self) -> int:
        """Number of entries (items of the index expression), not the input's rank."""
        return len(self.begin)

    def entry_kind(self, i: int) -> str:
        """What entry ``i`` is after TensorFlow's precedence (ellipsis > new_axis > shrink).

        Returns ``"ellipsis"``, ``"new_axis"``, ``"index"`` (shrink) or ``"range"``.

        Raises
        ------
        IndexError
            When ``i`` is not an entry of the spec.
        """
        if not 0 <= i < len(self):
            raise IndexError(f"entry {i} is out of range for a spec of {len(self)} entries")
        if bit(self.ellipsis_mask, i):
            return "ellipsis"
        if bit(self.new_axis_mask, i):
            return "new_axis"
        if bit(self.shrink_axis_mask, i):
            return "index"
        return "range"

    def apply(self, x: Any) -> np.ndarray:
        """``tf.strided_slice(x, **spec)`` as a view of ``x`` (a 0-d result included).

        ``x`` is a numpy array (any rank, zero-size dimensions allowed); anything else is first
        converted with ``numpy.asarray``, which may copy, and the result is a view of that array.

        Raises
        ------
        SliceError
            Wherever TensorFlow raises (the steps of :mod:`core.slicing.strided_slice`).
        """
        array = x if isinstance(x, np.ndarray) else np.asarray(x)
        return array[plan_strided_slice(array.shape, self).index]

    def analyze(self, shape: Sequence[int]) -> SliceAnalysis:
        """Output shape and per-dimension explanation for an input of ``shape`` (no data).

        ``spec.analyze(shape).output_shape == spec.apply(numpy.empty(shape)).shape``.

        Raises
        ------
        SliceError
            Exactly where :meth:`apply` would.
        """
        return analyze(self, shape)


def strided_slice(
    x: Any,
    begin: Any,
    end: Any,
    strides: Any = None,
    *,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
) -> np.ndarray:
    """``tf.strided_slice(x, begin, end, strides, ...)``, returned as a view of ``x``.

    ``SliceSpec(begin, end, strides, **masks).apply(x)``: bit ``i`` of each mask refers to entry
    ``i`` of begin/end/strides. The semantics are TensorFlow's exactly (the steps
    :func:`core.slicing.validate.validate`, :func:`core.slicing.strided_slice.build_dense_spec`,
    :func:`~core.slicing.strided_slice.canonicalize`, :func:`~core.slicing.strided_slice.final_shape`)
    and equal numpy basic indexing wherever an index expression can express the spec.

    Parameters
    ----------
    x
        A numpy array (any rank, zero-size dimensions allowed). Anything else is first
        converted with ``numpy.asarray``, which may copy; the result is a view of that array.
    begin, end, strides
        1-D integer sequences of equal length (< 32); ``strides=None`` means all ones.
    begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask
        int32 bit masks, as in TensorFlow.

    Returns
    -------
    numpy.ndarray
        Always a view sharing ``x``'s memory, never a copy; a 0-d result is a 0-d ``ndarray``
        (not a numpy scalar).

    Raises
    ------
    SliceError
        Wherever TensorFlow raises, with its message and a fix in parentheses.
    """
    spec = SliceSpec(
        begin,
        end,
        strides,
        begin_mask=begin_mask,
        end_mask=end_mask,
        ellipsis_mask=ellipsis_mask,
        new_axis_mask=new_axis_mask,
        shrink_axis_mask=shrink_axis_mask,
    )
    return spec.apply(x)


def _index_item(value: Any, i: int) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise SliceError(
            f"item {i} is a bool, not an index (use an integer, a slice, ... or None)",
            field="slice",
        )
    try:
        return operator.index(value)
    except TypeError:
        raise SliceError(
            f"item {i} = {value!r} is not a valid index (use an integer, a slice, ... or None)",
            field="slice",
        ) from None
