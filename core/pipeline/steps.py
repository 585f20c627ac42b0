"""The human-readable lines of :attr:`core.pipeline.pipeline.PipelineResult.steps` (docs/semantics.md §7).

One line per step (source, decode, reshape, slice) so that the GUI, the command line (``--steps``)
and bug reports describe a run the same way: shapes, where the data starts, trailing bytes, and
whether a copy was made and why.
"""

from __future__ import annotations

import numpy as np

from core.dtypes.table import TypeRow, engine_name, tf_name
from core.files.layout import SourceLayout
from core.files.sources import Source
from core.text.names import printable_name

__all__ = ["copy_reason", "source_step", "decode_step"]


def copy_reason(in_map: bool, stacked: bool, layout: SourceLayout, fixed_length: int | None,
                dtype: np.dtype, packed: TypeRow | None = None) -> str:
    """Why the decoded array is, or is not, a view of the file map."""
    if packed is not None:
        per = "two values per byte" if packed.stored_bits == 4 else "3 bytes per value"
        return (f"copied once: {packed.name} ({per}) unpacked into one {dtype.name} per value"
                + (" after stacking the files" if stacked else ""))
    if in_map:
        return "view of the file map (no copy)"
    if stacked and layout.elements is not None:
        return (f"copied once: {len(layout.elements)} elements gathered from their byte ranges "
                "(not evenly spaced with one length, so no strided view covers them)")
    if stacked:
        return f"copied once: {len(layout.arrays)} files stacked into one batch"
    if fixed_length is not None and fixed_length > layout.element_lengths[0]:
        return f"copied once: zero padding to fixed_length {fixed_length}"
    if dtype.kind == "b":
        return "copied once: bytes above 1 normalised to True"
    return "copied"


def source_step(source: Source, layout: SourceLayout, offset: int | None) -> str:
    """``source: 'a.bin' (99 bytes), data from byte 0, records of 16 bytes -> input shape (6,)``."""
    files = source.files
    if len(files) == 1:
        what = f"'{printable_name(files[0].path)}' ({files[0].size} bytes)"
    else:
        what = f"{len(files)} {'files' if source.on_disk or source.remote else 'buffers'} ({', '.join(repr(printable_name(f.path)) for f in files)})"
    starts = sorted(set(layout.starts))
    start_text = f"data from byte {starts[0]}" if len(starts) == 1 else "data from bytes " + \
        ", ".join(str(s) for s in layout.starts)
    if offset is None and any(f.npy is not None for f in files):
        start_text += f" ({source.header_kind})"
    if layout.elements is not None:
        n = len(layout.elements)
        spacing = "a strided view" if layout.arrays[0].ndim == 2 else "gathered"
        sizes = sorted({size for _, size in layout.elements})
        size_text = str(sizes[0]) if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}"
        return (f"source: {what}, {n} elements of {size_text} "
                f"bytes at their own offsets (first from byte {layout.starts[0]}; {spacing}) "
                f"-> input shape {layout.input_shape}")
    if layout.record_size is None:
        unit = "file" if source.on_disk or source.remote else "buffer"
        split = f"each {unit} is one element" if len(files) > 1 else "the data is one element"
        split += f" of {_lengths(layout.element_lengths)} bytes"
    else:
        split = f"records of {layout.record_size} bytes"
    trailing = ""
    if any(layout.trailing_bytes):
        trailing = "; not decoded: " + ", ".join(
            f"{n} trailing bytes in '{printable_name(f.path)}'"
            for f, n in zip(files, layout.trailing_bytes) if n
        )
    redirects = source.redirected()
    if redirects:  # followed as the file system follows them: said, so nothing is hidden
        trailing += "; " + ", ".join(f"'{printable_name(asked)}' answered by '{printable_name(answered)}' (a redirect)"
                                     for asked, answered in redirects[:3])
        if len(redirects) > 3:
            trailing += f" and {len(redirects) - 3} more redirected"
    return f"source: {what}, {start_text}, {split} -> input shape {layout.input_shape}{trailing}"


def _lengths(lengths: tuple[int, ...]) -> str:
    distinct = sorted(set(lengths))
    return str(distinct[0]) if len(distinct) == 1 else "/".join(str(n) for n in lengths)


def decode_step(layout: SourceLayout, dtype: np.dtype, little: bool, fixed_length: int | None,
                decoded: np.ndarray, reason: str, packed: TypeRow | None = None) -> str:
    """``decode: decode_raw(input shape (6,), float (float32), big-endian) -> (6, 4) float32; ...``.

    A packed type reads ``decode_raw(..., int24, big-endian) -> (6, 2) int32``: the decoded type.
    """
    size = dtype.itemsize if packed is None else packed.stored_size
    order = "" if size == 1 else (", little-endian" if little else ", big-endian")
    fixed = "" if fixed_length is None else f", fixed_length={fixed_length}"
    name = engine_name(dtype)
    tf = tf_name(dtype) if packed is None else packed.name
    if packed is not None:
        return (f"decode: decode_raw(input shape {layout.input_shape}, {tf}{order}{fixed}) -> "
                f"{decoded.shape} {name}; {reason}")
    type_text = name if tf == name else f"{tf} ({name})"
    return (f"decode: decode_raw(input shape {layout.input_shape}, {type_text}{order}{fixed}) -> "
            f"{decoded.shape} {name}; {reason}")
