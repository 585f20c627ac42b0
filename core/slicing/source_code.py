"""A slice spec as source code for TensorFlow, numpy and TF Java (docs/semantics.md §4, §5).

These functions only *print* code; nothing here evaluates anything.

* :func:`to_tf` -- ``tf.strided_slice(x, begin=[...], end=[...], strides=[...], begin_mask=...,
  end_mask=..., ellipsis_mask=..., new_axis_mask=..., shrink_axis_mask=...)``. All five masks
  are always written, zeros included, so the call documents every bit and lines up with the
  fields of :class:`core.slicing.spec.SliceSpec`. Python lists become int32 tensors in
  TensorFlow; when a value does not fit in int32 (or a list is empty, which TensorFlow would
  make float32), the three lists are written as ``tf.constant([...], tf.int64)`` /
  ``tf.constant([], tf.int32)`` so that ``begin``, ``end`` and ``strides`` share one index type.
* :func:`to_numpy` -- ``x[2, ..., 5:8, np.newaxis]``, only for specs an index expression
  expresses (:func:`core.slicing.expr.is_expressible`); the empty spec is ``x[...]``. Numpy basic
  indexing then gives the same elements as TensorFlow (numpy returns a scalar where
  ``SliceSpec.apply`` returns a 0-d view).
* :func:`to_java` -- the TF Java ``StridedSlice.Options`` for the nonzero masks, e.g.
  ``StridedSlice.beginMask(5L), StridedSlice.shrinkAxisMask(2L)``; ``""`` when every mask is 0
  (pass no options).
"""

from __future__ import annotations

from core.errors import SliceError
from core.slicing.expr import format_item, format_slice, is_expressible
from core.slicing.spec import SliceSpec
from core.slicing.validate import INT32_MAX, INT32_MIN, MASK_NAMES

__all__ = ["to_java", "to_numpy", "to_tf"]

_JAVA_NAMES = {
    "begin_mask": "beginMask",
    "end_mask": "endMask",
    "ellipsis_mask": "ellipsisMask",
    "new_axis_mask": "newAxisMask",
    "shrink_axis_mask": "shrinkAxisMask",
}


def _check_name(name: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise SliceError(
            f"the tensor's name must be a non-empty string, not {name!r} (pass e.g. 'x')",
            field="slice",
        )
    return name


def to_tf(spec: SliceSpec, name: str = "x") -> str:
    """Python source of the ``tf.strided_slice`` call equivalent to ``spec`` applied to ``name``.

    ``name`` is inserted verbatim. Example: ``tf.strided_slice(x, begin=[1, 0], end=[2, 0],
    strides=[1, 1], begin_mask=1, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
    shrink_axis_mask=1)``.

    Raises
    ------
    SliceError
        When ``name`` is not a non-empty string.
    """
    _check_name(name)
    values = spec.begin + spec.end + spec.strides
    wide = any(not INT32_MIN <= v <= INT32_MAX for v in values)

    def listed(items: tuple[int, ...]) -> str:
        text = "[" + ", ".join(str(v) for v in items) + "]"
        if wide:
            return f"tf.constant({text}, tf.int64)"
        if not items:
            return "tf.constant([], tf.int32)"
        return text

    parts = [
        name,
        f"begin={listed(spec.begin)}",
        f"end={listed(spec.end)}",
        f"strides={listed(spec.strides)}",
    ]
    parts += [f"{mask}={getattr(spec, mask)}" for mask in MASK_NAMES]
    return "tf.strided_slice(" + ", ".join(parts) + ")"


def to_numpy(spec: SliceSpec, name: str = "x") -> str:
    """Numpy source indexing ``name`` like ``spec``: ``x[2, ..., 5:8, np.newaxis]``.

    New axes are spelled ``np.newaxis``; the empty spec is ``x[...]``. Two ellipses are
    printed as such (numpy, like TensorFlow, then refuses them).

    Raises
    ------
    SliceError
        When no index expression expresses ``spec`` (mask-only specs such as a shrink bit
        with a begin mask): use :func:`to_tf`, or :func:`core.slicing.expr.format_slice`'s
        explicit form.
    """
    _check_name(name)
    if not is_expressible(spec):
        raise SliceError(
            f"{format_slice(spec)} cannot be written as a numpy index (its masks say more than an "
            "index expression can; export it with to_tf() instead)",
            field="slice",
        )
    if len(spec) == 0:
        return f"{name}[...]"
    items = [str(format_item(spec, i)) for i in range(len(spec))]
    items = ["np.newaxis" if item == "tf.newaxis" else item for item in items]
    return f"{name}[" + ", ".join(items) + "]"


def to_java(spec: SliceSpec) -> str:
    """TF Java ``StridedSlice.Options`` for the nonzero masks, comma separated.

    Mask names are camelCase (``beginMask``, ``endMask``, ``ellipsisMask``, ``newAxisMask``,
    ``shrinkAxisMask``) and values are ``long`` literals:
    ``StridedSlice.beginMask(5L), StridedSlice.shrinkAxisMask(2L)``. Returns ``""`` when all
    masks are 0 (no options are needed). begin, end and strides are operands in Java, not
    options, so they are not part of this text.
    """
    return ", ".join(
        f"StridedSlice.{_JAVA_NAMES[mask]}({getattr(spec, mask)}L)"
        for mask in MASK_NAMES
        if getattr(spec, mask)
    )
