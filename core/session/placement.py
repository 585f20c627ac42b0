"""Where a bookmark lies in the view on screen: its element, its region's box, its bytes.

A bookmark names a place with the decode parameters and slice of its time; the view on screen
may have other ones. The rule (docs/bookmarks.md, "Marks"):

- A bookmark is placed only when its ``params`` equal the current decode parameters (or are
  None: "whatever is in effect"), so that its indices mean the same elements. Byte-range
  bookmarks are the exception: bytes are bytes, they are always placed in the hex view.
- An element bookmark's ``index`` is in the tensor its ``slice_text`` gives. It is mapped back
  to the whole tensor (:meth:`core.slicing.analysis.SliceAnalysis.source_index`), then forward
  through the current slice: it is placed when the current view contains that element.
- A region bookmark is the box of whole-tensor elements its slice selects (a strided region is
  marked by its hull: ``x[0:10:2]`` marks 0..8); the box is mapped through the current slice
  per axis. An axis the current slice takes one index of must hold that index inside the box.
- Every placement is computed from shapes and slice plans alone (no element is read); marks on
  screen are at most :data:`MAX_PLACED` bookmarks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.pipeline.pipeline import DecodeParams
from core.session.bookmark import Bookmark
from core.slicing.analysis import SliceAnalysis, analyze
from core.slicing.expr import parse_slice
from core.slicing.spec import SliceSpec

__all__ = ["MAX_PLACED", "Placements", "in_box", "place", "plain_slice_text", "region_box", "spec_of", "view_index"]

MAX_PLACED = 256
"""At most this many bookmarks are placed in a view (the first ones in the list)."""

Box = tuple[tuple[int, int], ...]
"""Per view axis, ``(first, end)``: the indices ``first <= i < end`` of that axis."""


@dataclass(frozen=True)
class Placements:
    """The bookmarks that show in one view, in view coordinates.

    Attributes
    ----------
    elements
        ``(view index, colour, name)`` of the element bookmarks the view contains.
    regions
        ``(box, colour, name)`` of the region bookmarks that overlap the view.
    byte_ranges
        ``(file index, first byte, end byte, colour, name)``: byte-range bookmarks, and the
        bytes of the placed element bookmarks (``end`` exclusive).
    """

    elements: tuple[tuple[tuple[int, ...], str, str], ...] = ()
    regions: tuple[tuple[Box, str, str], ...] = ()
    byte_ranges: tuple[tuple[int, int, int, str, str], ...] = ()

    def element_colour(self, view_index: tuple[int, ...]) -> str | None:
        """Colour of the first element or region bookmark that holds ``view_index``, else None."""
        for index, colour, _ in self.elements:
            if index == view_index:
                return colour
        for box, colour, _ in self.regions:
            if in_box(view_index, box):
                return colour
        return None


_NAMED_SLICE = re.compile(r"^\s*[A-Za-z_]\w*\s*(?=\[)")


def plain_slice_text(slice_text: str) -> str:
    """``slice_text`` without a tensor name before its brackets (bookmarks may be written
    ``x[10:20, :]``): what :func:`core.slicing.expr.parse_slice` reads."""
    return _NAMED_SLICE.sub("", slice_text, count=1)


def spec_of(slice_text: str) -> SliceSpec:
    """The :class:`SliceSpec` of ``slice_text`` (``""``: the whole tensor; ``x[1:3]`` is ``[1:3]``).

    Raises
    ------
    SliceSyntaxError
        The text does not parse.
    """
    return parse_slice(plain_slice_text(slice_text))


def view_index(analysis: SliceAnalysis, tensor_index: Sequence[int]) -> tuple[int, ...] | None:
    """The index in the sliced view of whole-tensor element ``tensor_index``, or None when the
    slice leaves it out (another index of a taken axis, off the stride, outside the range)."""
    if len(tensor_index) != len(analysis.input_dims):
        return None
    for i, dim in enumerate(analysis.input_dims):
        if dim.role == "shrink" and tensor_index[i] != dim.index:
            return None
    out = []
    for dim in analysis.output_dims:
        if dim.kind == "new_axis":
            out.append(0)
            continue
        k, rest = divmod(int(tensor_index[dim.input_dim]) - dim.start, dim.step)
        if rest or not 0 <= k < dim.length:
            return None
        out.append(k)
    return tuple(out)


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def region_box(region: SliceAnalysis, current: SliceAnalysis) -> Box | None:
    """The box of view ``current`` covering the whole-tensor hull of ``region``, or None when
    they do not overlap. Both analyses are of the same tensor shape."""
    hull: list[tuple[int, int]] = []  # per tensor axis, first and last index (inclusive)
    for dim in region.input_dims:
        if dim.role == "shrink":
            hull.append((dim.index, dim.index))
            continue
        out = region.output_dims[dim.output_dim]
        if out.length == 0:
            return None
        ends = (out.start, out.start + (out.length - 1) * out.step)
        hull.append((min(ends), max(ends)))
    for i, dim in enumerate(current.input_dims):
        if dim.role == "shrink" and not hull[i][0] <= dim.index <= hull[i][1]:
            return None
    box = []
    for dim in current.output_dims:
        if dim.kind == "new_axis":
            box.append((0, 1))
            continue
        lo, hi = hull[dim.input_dim]
        # view index k shows tensor index start + k * step: solve lo <= start + k * step <= hi
        low, high = (lo, hi) if dim.step > 0 else (hi, lo)
        first = max(_ceil_div(low - dim.start, dim.step), 0)
        last = min((high - dim.start) // dim.step, dim.length - 1)
        if first > last:
            return None
        box.append((first, last + 1))
    return tuple(box)


def in_box(index: Sequence[int], box: Box) -> bool:
    """Whether view index ``index`` lies in ``box``."""
    return len(index) == len(box) and all(lo <= i < hi for i, (lo, hi) in zip(index, box))


def place(bookmarks: Sequence[Bookmark], params: DecodeParams, slice_spec: SliceSpec,
          tensor_shape: tuple[int, ...], byte_offset=None) -> Placements:
    """Place ``bookmarks`` (at most :data:`MAX_PLACED`) in the view that ``params`` and
    ``slice_spec`` make of a tensor of ``tensor_shape`` (see the module docstring).

    ``byte_offset(view_index) -> (file index, offset, nbytes)`` (``PipelineResult.byte_offset``)
    adds the bytes of each placed element to :attr:`Placements.byte_ranges`; a bookmark whose
    slice does not parse or does not fit the tensor is not placed. Never raises for a bookmark.

    Raises
    ------
    SliceError
        ``slice_spec`` does not apply to ``tensor_shape`` (the caller shows a valid view).
    """
    current = analyze(slice_spec, tensor_shape)
    elements, regions, byte_ranges = [], [], []
    for bookmark in bookmarks[:MAX_PLACED]:
        if bookmark.kind == "bytes":
            start, length = bookmark.byte_range
            byte_ranges.append((bookmark.file_index, start, start + length, bookmark.colour, bookmark.name))
            continue
        if bookmark.params is not None and bookmark.params != params:
            continue
        try:
            own = analyze(spec_of(bookmark.slice_text), tensor_shape)
            if bookmark.kind == "region":
                box = region_box(own, current)
                if box is not None:
                    regions.append((box, bookmark.colour, bookmark.name))
                continue
            index = view_index(current, own.source_index(bookmark.index))
        except (ValueError, IndexError):  # SliceError is a ValueError: the bookmark is of another shape
            continue
        if index is None:
            continue
        elements.append((index, bookmark.colour, bookmark.name))
        if byte_offset is not None:
            try:
                file_index, offset, nbytes = byte_offset(index)
            except Exception:
                continue
            byte_ranges.append((file_index, offset, offset + max(nbytes, 1), bookmark.colour, bookmark.name))
    return Placements(tuple(elements), tuple(regions), tuple(byte_ranges))
