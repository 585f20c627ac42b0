"""Target shapes: reinterpret the decoded values in C order (``tf.reshape`` rules).

The whole decoded tensor is read as a flat C-order sequence of values and given a new shape,
as TFLite's ``TensorBuffer.load_buffer(buffer, shape)`` does with a byte buffer. One dimension
may be ``-1``; it is inferred from the element count. The result is a view: no value is copied.

A stored view that is not in C order (a Fortran-order array, a saved slice of a larger
storage) is a shape with element strides over the flat values (:func:`strided_view`): still a
view, made only when every element it reaches lies inside the values.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from core.errors import ShapeError

__all__ = ["parse_shape", "resolve_shape", "format_shape", "strided_view"]

_MAX_DIMS = 64
_INT64_MAX = 2**63 - 1


def _shown(text: str, limit: int = 80) -> str:
    """``text`` as quoted in a message: cut at ``limit`` characters (a paste can be huge)."""
    return text if len(text) <= limit else text[:limit] + "..."


def format_shape(shape: Sequence[int]) -> str:
    """``(2, 3)`` -> ``"2,3"`` (the text :func:`parse_shape` reads back)."""
    return ",".join(str(int(d)) for d in shape)


def parse_shape(text: str) -> tuple[int, ...]:
    """Parse ``"D0,D1,..."`` into a shape tuple.

    Whitespace is ignored; the text may be wrapped in ``()`` or ``[]`` and may end with a comma
    (``"(3,)"``). An empty text (or ``"()"``) is the scalar shape ``()``. ``x`` and ``*`` also
    separate dimensions (``"2x3"``).

    Raises
    ------
    ShapeError
        ``field="shape"``: an item that is not an integer, an empty item, a dimension below -1,
        more than one -1, or more than 64 dimensions.
    """
    body = text.strip()
    if body[:1] in "([" and body[-1:] in ")]" and len(body) >= 2:
        body = body[1:-1]
    if not body.strip():
        return ()
    items = re.split(r"[,x*]", body)
    if items and not items[-1].strip() and len(items) > 1:
        items = items[:-1]  # one trailing comma, as in "(3,)"
    dims = []
    for position, item in enumerate(items, start=1):
        item = item.strip()
        if not re.fullmatch(r"[+-]?[0-9]+", item) or len(item.lstrip("+-0")) > 19:
            # ASCII digits only, and never int() of a huge digit string (Python refuses those
            # past 4300 digits with a ValueError; no dimension has more than 19 anyway).
            shown = item if len(item) <= 40 else item[:40] + "..."
            what = "is empty" if not item else f"('{shown}') is not an integer"
            if item and re.fullmatch(r"[+-]?[0-9]+", item):
                what = f"('{shown}') does not fit in int64"
            raise ShapeError(
                f"in shape '{_shown(text)}', dimension {position} {what} (write dimensions as integers "
                "separated by commas, e.g. 4,-1,3)",
                field="shape",
            )
        dims.append(int(item))
    return _validate(tuple(dims))


def _validate(shape: tuple[int, ...]) -> tuple[int, ...]:
    if len(shape) > _MAX_DIMS:
        raise ShapeError(f"shape has {len(shape)} dimensions, more than {_MAX_DIMS} "
                         "(use fewer dimensions)", field="shape")
    for dim in shape:
        if dim < -1:
            raise ShapeError(
                f"Size {list(shape).index(dim)} must be non-negative, not {dim} (use -1 for the "
                "one dimension to infer)",
                field="shape",
            )
    # numpy (like TF) needs the element count to fit in int64: a shape such as
    # (10**20, 0) holds no value yet still cannot be made (numpy raises a bare ValueError).
    nonzero = math.prod(d for d in shape if d > 0)
    if nonzero > _INT64_MAX:
        raise ShapeError(
            f"shape {shape} is too large: its dimensions multiply to more than {_INT64_MAX} "
            "(use smaller dimensions)",
            field="shape",
        )
    if shape.count(-1) > 1:
        raise ShapeError(
            f"Only one input size may be -1, not both {shape.index(-1)} and "
            f"{shape.index(-1, shape.index(-1) + 1)} (give every other dimension explicitly)",
            field="shape",
        )
    return shape


def _divisors(n: int, limit: int = 12) -> list[int]:
    small, large = [], []
    d = 1
    while d * d <= n and d <= 1 << 20:
        if n % d == 0:
            small.append(d)
            if d != n // d:
                large.append(n // d)
        d += 1
    found = small + large[::-1]
    if len(found) <= limit:
        return found
    return found[: limit // 2] + found[-(limit // 2):]


def _suggest(size: int) -> str:
    """How to fix a shape for ``size`` values: name the sizes that divide it."""
    if size == 0:
        return "there are no values: use a shape containing 0, e.g. 0"
    listed = ", ".join(str(d) for d in _divisors(size))
    return (f"the dimensions must multiply to {size}: choose sizes among its divisors "
            f"{listed}, or -1 for one dimension")


def resolve_shape(shape: str | Sequence[int], size: int) -> tuple[int, ...]:
    """Validate a target shape for ``size`` values and infer its ``-1``.

    Parameters
    ----------
    shape
        ``"D0,D1,..."`` text (see :func:`parse_shape`) or a sequence of integers.
    size
        Number of values to reshape.

    Raises
    ------
    ShapeError
        ``field="shape"``, with TF's wording: ``Input to reshape is a tensor with 6 values, but
        the requested shape has 4``; ``... but the requested shape requires a multiple of 4``;
        ``Reshape cannot infer the missing input size for an empty tensor unless all specified
        input sizes are non-zero``; then a suggestion (the divisors of the count).
    """
    if isinstance(shape, str):
        dims = parse_shape(shape)
    else:
        try:
            dims = tuple(int(d) for d in shape if not isinstance(d, (bool, np.bool_)))
            if len(dims) != len(tuple(shape)):
                raise TypeError
        except (TypeError, ValueError):
            raise ShapeError(f"shape {shape!r} is not a sequence of integers (e.g. (4, -1, 3))",
                             field="shape") from None
        dims = _validate(dims)
    known = math.prod(d for d in dims if d != -1)
    if -1 in dims:
        if known == 0:
            if size == 0:
                raise ShapeError(
                    "Reshape cannot infer the missing input size for an empty tensor unless all "
                    "specified input sizes are non-zero (replace -1 by an explicit size)",
                    field="shape",
                )
            raise ShapeError(
                f"Input to reshape is a tensor with {size} values, but the requested shape has 0 "
                f"({_suggest(size)})",
                field="shape",
            )
        if size % known:
            raise ShapeError(
                f"Input to reshape is a tensor with {size} values, but the requested shape "
                f"requires a multiple of {known} ({_suggest(size)})",
                field="shape",
            )
        return tuple(size // known if d == -1 else d for d in dims)
    if known != size:
        raise ShapeError(
            f"Input to reshape is a tensor with {size} values, but the requested shape has "
            f"{known} ({_suggest(size)})",
            field="shape",
        )
    return dims




def strided_view(values: np.ndarray, shape: Sequence[int], strides: Sequence[int]) -> np.ndarray:
    """A read-only view of ``values`` (read flat, in C order) with ``shape`` and element strides
    ``strides`` (numpy's byte strides divided by the item size): element ``index`` is flat value
    ``sum(index * strides)``, as PyTorch's ``as_strided`` over a storage.

    Rules: ``shape`` is explicit (no -1) and has one stride per dimension; strides are
    non-negative (0 repeats a value along its axis); the last element reached,
    ``sum((n - 1) * s)``, must be a value of ``values`` (checked before the view is made, so
    ``np.lib.stride_tricks.as_strided`` never reaches past them). An empty shape reaches
    nothing. ``values`` must be one run of equally spaced values (a view of contiguous bytes).

    Raises
    ------
    ShapeError
        ``field="shape"``: a bad shape or stride, strides that reach past the values, or values
        that are not one run.
    """
    dims = _validate(tuple(int(d) for d in shape))
    steps = tuple(int(s) for s in strides)
    if -1 in dims:
        raise ShapeError(f"shape {dims} with strides must give every dimension (no -1)", field="shape")
    if len(steps) != len(dims):
        raise ShapeError(f"strides {steps} give {len(steps)} steps for the {len(dims)} dimensions of "
                         f"shape {dims} (give one stride per dimension)", field="shape")
    if any(step < 0 for step in steps):
        raise ShapeError(f"strides {steps} have a negative step (element strides are 0 or more)",
                         field="shape")
    try:
        flat = values.reshape(-1, copy=False)
    except ValueError:
        raise ShapeError(f"the decoded values {values.shape} are not one contiguous run, so strides "
                         "cannot address them (drop record_size or fixed_length)", field="shape") from None
    if 0 not in dims:
        last = sum((n - 1) * step for n, step in zip(dims, steps))
        if last >= flat.size:
            raise ShapeError(f"shape {dims} with element strides {steps} reaches value {last}, past "
                             f"the {flat.size} values there are (a corrupt entry, or the wrong "
                             "strides)", field="shape")
    itemsize = flat.strides[0] if flat.ndim and flat.size > 1 else flat.dtype.itemsize
    # an axis of one element (or none) never steps: its stride may be anything, so it is 0 here
    # (a huge one would overflow numpy's byte strides; the bounds check above never sees it)
    steps = tuple(0 if n <= 1 else step for n, step in zip(dims, steps))
    return np.lib.stride_tricks.as_strided(flat, dims, tuple(step * itemsize for step in steps),
                                           writeable=False)
