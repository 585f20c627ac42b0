"""The pipeline: files -> decode_raw -> target shape -> slice, with byte offsets (docs/semantics.md §7).

The GUI, the command line, tests and benchmarks all go through :class:`Pipeline`: it holds the
opened files, and :meth:`Pipeline.run` turns a :class:`DecodeParams` (plus an optional slice
spec) into a :class:`PipelineResult` holding the decoded array, the reshaped tensor, the sliced
view, one line of explanation per step, and the mapping of every view element back to its bytes
in its file.

A run is cheap: it stats the files (refusing changed ones, before any mapped page is touched),
splits them into elements, and builds views. Nothing is read unless a copy is unavoidable
(see :mod:`core.decode.decode_raw`; several files are always stacked into one batch, which copies), and
every copy is checked against the budget of :mod:`core.budget` first.

Defaults of a ``.npy`` source (every file a ``.npy`` with the same header): dtype, byte order and
data offset from the header, and the header's shape (``(n_files,) + shape`` for several files)
when the decoded value count matches it. The elements then cover exactly the data the header
promises; extra bytes are trailing. A Fortran-order file is shown with its axes reversed (the
C-order reading of its bytes, i.e. the transpose of what ``np.load`` returns); a step line says so
and ``PipelineResult.transposed`` is True. A file whose ``.npy`` header is unusable opens when an
explicit offset and dtype replace what the header would give (raw bytes); an opaque ``'<V2'``
header (ml_dtypes' bfloat16 saved by numpy) needs only an explicit dtype.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Sequence

import numpy as np

from core.budget import check_copy_budget
from core.decode.decode_raw import BOOL_SCAN_LIMIT_BYTES, check_fixed_length, decode_raw
from core.decode.reshape import resolve_shape, strided_view
from core.dtypes.table import (
    check_padded_type,
    engine_name,
    packed_row,
    resolve_dtype,
    tf_name,
    type_row,
)
from core.errors import DecodeError, ShapeError, SourceError
from core.files.layout import SourceLayout
from core.files.memory import is_in_memory, open_memory
from core.files.npy_header import opaque_type_error
from core.files.sources import Source, open_source
from core.pipeline.byte_map import ByteMap, address_of, buffer_range_contains
from core.pipeline.params import DecodeParams
from core.pipeline.record_window import check_read_span, record_window, window_view
from core.pipeline.result import PipelineResult
from core.pipeline.steps import copy_reason, decode_step, source_step
from core.pipeline.view_as import no_tensor_buffer_error, view_as, view_as_name
from core.scan.blocks import BlockReader
from core.tflite.tensor_buffer import TensorBuffer

__all__ = ["DecodeParams", "Pipeline", "PipelineResult"]  # the two values live in params/result


@dataclasses.dataclass(frozen=True)
class _CopiedReshape:
    """A reshape's copy: ``values`` (all records, ``tensor`` their target shape) or a window of
    them (``tensor`` None, ``view`` the sliced view over it, ``base`` its byte map's buffer)."""

    values: np.ndarray
    tensor: np.ndarray | None
    view: np.ndarray | None
    base: tuple[int, int] | None
    steps: tuple[str, ...]


class Pipeline:
    """Files (or objects in memory) opened once, decoded on demand with any :class:`DecodeParams`.

    Parameters
    ----------
    paths
        One path or several (several files form a batch of elements); an open
        :class:`~core.files.sources.Source` (the pipeline closes it); or an object in memory
        (bytes, a list of bytes, a numpy array, a tensor: :mod:`core.files.memory`).

    Raises
    ------
    SourceError
        A file or object cannot be used (see :func:`core.files.sources.open_source` and
        :func:`core.files.memory.open_memory`).
    """

    def __init__(self, paths: Sequence[str | os.PathLike] | str | os.PathLike | Source | object) -> None:
        if isinstance(paths, Source):
            self._source = paths
        elif is_in_memory(paths):
            self._source = open_memory(paths)
        else:
            self._source = open_source(paths)  # type: ignore[arg-type]

    @property
    def source(self) -> Source:
        """The opened files (or buffers in memory)."""
        return self._source

    def close(self) -> None:
        """Release the files (arrays still viewing a map keep it alive until they go)."""
        self._source.close()

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, params: DecodeParams, slice_spec: object = None) -> PipelineResult:
        """Decode the files with ``params``, reshape, slice, and explain each step.

        Parameters
        ----------
        params
            The decode parameters; None fields take the defaults described on the class.
        slice_spec
            Any object with ``apply(ndarray) -> ndarray`` returning a view (``core.SliceSpec``),
            or None. Its errors propagate unchanged. None and the empty spec
            (``SliceSpec.is_full``) both mean the whole tensor: no slice step, and the result's
            ``slice_spec`` is None.

        Raises
        ------
        CoreError
            A subclass with ``field`` set: ``SourceError`` (files changed since they were
            opened, bad offset / record_size), ``DecodeError``, ``BudgetError``, ``ShapeError``,
            and whatever ``slice_spec.apply`` raises.
        """
        source = self._source
        source.check_unchanged()  # before touching any mapped page (core/files/shrink_guard.py)
        _check_npy_headers(source, params)
        npy = source.npy if params.elements is None else None
        dtype_name = params.dtype if params.dtype is not None else (npy.dtype if npy else "uint8")
        little = params.little_endian
        if little is None:
            little = npy.little_endian if npy else True
        if not isinstance(little, (bool, np.bool_)):
            raise DecodeError(f"little_endian must be True, False or None, not {little!r} "
                              "(None takes the .npy header's byte order)", field="little_endian")
        dtype = resolve_dtype(
            dtype_name,
            extended_types=params.extended_types,
            padded=params.fixed_length is not None,  # TF quotes DecodePaddedRaw's list then
        )
        packed = packed_row(dtype_name)  # int4/int24...: dtype is then the decoded (wider) type
        stored_size = packed.stored_size if packed is not None else dtype.itemsize
        fixed_length = params.fixed_length
        if fixed_length is not None:
            if packed is None:
                check_padded_type(dtype)
            fixed_length = check_fixed_length(fixed_length, np.dtype(f"V{stored_size}"))
        layout = source.layout(offset=params.offset, record_size=params.record_size,
                               length=params.length, elements=params.elements,
                               used=fixed_length if params.elements is None else None)
        steps = [source_step(source, layout, params.offset)]

        batch, stacked = self._batch_input(layout, fixed_length, stored_size)
        if not source.holds_data and not stacked:
            batch = self._fetched_input(batch, dtype, packed is not None, fixed_length)
        try:
            decoded = decode_raw(batch, dtype_name if packed is not None else dtype, bool(little),
                                 fixed_length, extended_types=params.extended_types)
        except DecodeError as error:
            raise _blame_layout(error, layout, params.offset, dtype, packed is not None) from None
        element_bytes = decoded.shape[-1] * decoded.dtype.itemsize
        single = len(layout.arrays) == 1
        in_map = single and _derives_from(decoded, source.data(0))
        reason = copy_reason(in_map, stacked, layout, fixed_length, dtype, packed)
        steps.append(decode_step(layout, dtype, bool(little), fixed_length, decoded, reason, packed))

        target, note, shape_from_header = self._target_shape(params, decoded, npy, len(layout.arrays),
                                                             source.header_kind)
        copy_base: tuple[int, int] | None = None  # (address, bytes) of the copy's byte map
        try:
            if params.strides is not None:  # a stored view that is not in C order
                tensor = strided_view(decoded, target, params.strides)
                note = f" with element strides {tuple(params.strides)}{note}"
            else:
                tensor = decoded.reshape(target, copy=False)
            steps.append(f"reshape: {decoded.shape} -> {tensor.shape} (view){note}")
        except ValueError as error:
            if isinstance(error, ShapeError):  # the strides' refusal: no copy would help
                raise
            copied = self._copied_reshape(decoded, target, slice_spec, note)
            steps.extend(copied.steps)
            in_map, tensor = False, copied.tensor
            copy_base = copied.base
            if copied.tensor is not None:
                decoded = copied.values

        if getattr(slice_spec, "is_full", False) is True:
            slice_spec = None
        if tensor is None:  # only the records the slice reaches were copied: that is the view
            view = copied.view
        elif slice_spec is None:
            view = tensor
            steps.append("slice: none (the whole tensor)")
        else:
            view = np.asarray(slice_spec.apply(tensor))  # a numpy scalar becomes a 0-d copy
            steps.append(f"slice: {tensor.shape} -> {tuple(view.shape)}")
        # by reference: no copy (docs/semantics.md §6 and §7). float8 has no TFLite DataType: no
        # buffer; a packed type's buffer holds its decoded int8/uint8/int32/uint32 values.
        in_tflite = packed is not None or resolve_row_in_tflite(dtype)
        buffer = TensorBuffer.wrap(tensor if tensor is not None else view) if in_tflite else None
        packing = None if packed is None else (packed.stored_bits, packed.itemsize)
        byte_map = self._byte_map(in_map, decoded, layout, element_bytes, view, packing, copy_base)
        mapped_ranges = self._source.mapped_ranges()
        sliced = view
        if params.view_as is not None and buffer is None:
            raise no_tensor_buffer_error(engine_name(dtype), params.view_as)
        if params.view_as is not None:
            view = view_as(view, buffer.data_type, params.view_as, BlockReader(mapped_ranges))
            steps.append(f"view as {view_as_name(params.view_as)}: TensorBuffer.create_from "
                         f"{buffer.data_type} -> {view_as_name(params.view_as)} (copy of the "
                         f"{tuple(view.shape)} view only)")
        resolved = dataclasses.replace(
            params, dtype=params.dtype if params.dtype is not None else engine_name(dtype),
            little_endian=bool(little), offset=_resolved_offset(layout, params.offset),
            fixed_length=fixed_length, shape=tuple(target if tensor is None else tensor.shape),
        )
        header_fields = () if npy is None else ("dtype", "little_endian", "offset")
        from_header = {name for name in header_fields if getattr(params, name) is None}
        if shape_from_header:
            from_header.add("shape")
        if resolved.offset is None:
            from_header.discard("offset")  # the files' data offsets differ: no one value
        return PipelineResult(
            params=resolved, input_shape=layout.input_shape,
            element_length=max(layout.element_lengths), decoded=decoded, tensor=tensor,
            view=view, trailing_bytes=layout.trailing_bytes,
            zero_copy=in_map and byte_map is not None and params.view_as is None, steps=tuple(steps),
            byte_map=byte_map, sliced=sliced, buffer=buffer, mapped_ranges=mapped_ranges,
            from_header=frozenset(from_header),
            transposed=shape_from_header and npy is not None and bool(npy.fortran_order),
            layout=layout, slice_spec=slice_spec,
        )

    # -- helpers ------------------------------------------------------------------------------

    def _copied_reshape(self, decoded: np.ndarray, target: tuple[int, ...], slice_spec: object,
                        note: str) -> _CopiedReshape:
        """The contiguous copy a reshape of non-contiguous records needs: of the records the
        slice reaches when it leaves some out (:mod:`core.pipeline.record_window`), else of all.

        Raises
        ------
        BudgetError
            The copy exceeds the copy budget, or the file region it reads the read limit.
        """
        window = record_window(decoded, target, slice_spec)
        records = decoded if window is None else decoded[window.first:window.stop]
        what = f"reshaping the strided {decoded.shape} values to {target}"
        fix = ("slice first (only the records a slice reaches are copied), keep the records' shape "
               f"{decoded.shape} (a view), or drop the fixed_length truncation")
        check_copy_budget(records.nbytes, what, fix, field="shape")
        check_read_span(records.shape[0] * abs(records.strides[0]) if records.ndim else records.nbytes,
                        what, fix, field="shape")
        # Read with pread (core.scan.blocks), not through the map: no page of the map is
        # touched, and a file truncated meanwhile is an error instead of SIGBUS.
        values = BlockReader(self._source.mapped_ranges()).read(records)
        if window is None:
            tensor = values.reshape(target)
            return _CopiedReshape(values, tensor, None, None, (
                f"reshape: {decoded.shape} -> {tensor.shape} (copied: the truncated records are "
                f"not contiguous){note}",))
        view = window_view(values, window)
        itemsize = values.dtype.itemsize * decoded.shape[-1] if decoded.ndim else values.dtype.itemsize
        base = (address_of(values) - window.first * itemsize, decoded.shape[0] * itemsize)
        return _CopiedReshape(values, None, view, base, (
            f"reshape: {decoded.shape} -> {target} (records {window.first:,} to "
            f"{max(window.first, window.stop - 1):,} copied, the {window.count:,} the slice reaches: "
            f"the truncated records are not contiguous){note}",
            f"slice: {target} -> {tuple(view.shape)}"))
    def _batch_input(self, layout: SourceLayout, fixed_length: int | None,
                     itemsize: int = 1) -> tuple[np.ndarray, bool]:
        """The ``uint8`` array fed to decode_raw, and whether it is a stacked copy.

        One file: its map view itself. Several: one copy of shape ``input_shape + (E,)``, each
        element truncated or zero-padded to ``E`` (``fixed_length``, else the common length), so
        that decode_raw then only views it: stacking and padding together copy once.
        """
        if layout.elements is not None and layout.arrays[0].ndim == 1:
            return self._gather_elements(layout, fixed_length, itemsize), True
        if len(layout.arrays) == 1:
            return layout.arrays[0], False
        lengths = layout.element_lengths
        if fixed_length is None:
            if len(set(lengths)) > 1:
                index = next(i for i, n in enumerate(lengths) if n != lengths[0])
                paths = self._source.paths
                raise DecodeError(
                    "DecodeRaw requires input strings to all be the same size, but element "
                    f"{index} has size {lengths[0]} != {lengths[index]} ('{paths[0]}' has "
                    f"{lengths[0]} bytes of data, '{paths[index]}' has {lengths[index]}: set "
                    "fixed_length to pad or truncate every file to one length, or set a "
                    "record_size)",
                    field="fixed_length",
                )
            width = lengths[0]
        else:
            width = fixed_length
        count = math.prod(layout.input_shape)
        check_copy_budget(
            count * width, f"stacking {len(layout.arrays)} files into one batch",
            "open fewer files, or select less with record_size and fixed_length", field="files",
        )
        stacked = np.zeros(layout.input_shape + (width,), dtype=np.uint8)
        reader = BlockReader(self._source.mapped_ranges())  # pread, never the maps' pages
        for row, array in zip(stacked, layout.arrays):
            used = min(width, array.shape[-1])
            row[..., :used] = reader.read(array[..., :used])
        return stacked, True

    def _fetched_input(self, batch: np.ndarray, dtype: np.dtype, packed: bool,
                       fixed_length: int | None) -> np.ndarray:
        """For a source whose maps hold no bytes (remote objects): the batch read into memory
        (budget-checked) when decode_raw reads its bytes itself: to scan bool bytes, unpack a
        packed type, pad to ``fixed_length`` or join a strided last axis; else the batch."""
        width = batch.shape[-1] if batch.ndim else 0
        reads = (packed or (dtype.kind == "b" and batch.size <= BOOL_SCAN_LIMIT_BYTES)
                 or (fixed_length is not None and fixed_length > width)
                 or (dtype.itemsize > 1 and batch.ndim > 0 and batch.strides[-1] != 1))
        if not reads or batch.size == 0:
            return batch
        check_copy_budget(batch.nbytes, "reading the remote bytes this decode copies",
                          "decode fewer bytes (a record size, a length), or download the file", field="files")
        return BlockReader(self._source.mapped_ranges()).read(batch)

    def _gather_elements(self, layout: SourceLayout, fixed_length: int | None,
                         itemsize: int) -> np.ndarray:
        """One ``(n, E)`` copy of explicit element byte ranges that no strided view covers,
        each truncated or zero-padded to ``E`` (``fixed_length``, else their common length).

        Raises
        ------
        DecodeError
            The lengths differ and there is no ``fixed_length`` (decode_raw's message).
        BudgetError
            The copy would exceed the memory budget.
        """
        elements = layout.elements or ()
        if fixed_length is None:
            lengths = [size for _, size in elements]
            index = next((i for i, n in enumerate(lengths) if n != lengths[0]), None)
            if index is not None:
                raise DecodeError(
                    "DecodeRaw requires input strings to all be the same size, but element "
                    f"{index} has size {lengths[0]} != {lengths[index]} (set fixed_length to "
                    "pad or truncate every element to one length, e.g. fixed_length="
                    f"{max(itemsize, -(-max(lengths) // itemsize) * itemsize)})", field="fixed_length")
            width = lengths[0]
        else:
            width = fixed_length
        check_copy_budget(
            len(elements) * width, f"gathering {len(elements)} elements from their byte ranges",
            "select fewer elements, or a smaller fixed_length", field="elements",
        )
        gathered = np.zeros((len(elements), width), dtype=np.uint8)
        for row, (start, size) in zip(gathered, elements):
            used = min(width, size)
            # bytes_at copies through the shrink guard: a shrunk file reads zeros, no SIGBUS.
            row[:used] = np.frombuffer(self._source.bytes_at(0, start, used), dtype=np.uint8)
        return gathered

    @staticmethod
    def _target_shape(params: DecodeParams, decoded: np.ndarray, npy: object, n_files: int,
                      header_kind: str = ".npy header") -> tuple[tuple[int, ...], str, bool]:
        """The target shape, a note for the reshape step, and whether the shape is the header's."""
        if params.strides is not None:  # a strided view reaches any values it names
            return tuple(params.shape or ()), "", False
        if params.shape is not None:
            return resolve_shape(params.shape, decoded.size), "", False
        if npy is not None:
            header_shape = tuple(npy.shape)
            if npy.fortran_order:
                header_shape = header_shape[::-1]
            target = ((n_files,) if n_files > 1 else ()) + header_shape
            if math.prod(target) == decoded.size:
                note = f" from the {header_kind}"
                if npy.fortran_order:
                    note += " (Fortran order: axes reversed, the transpose of np.load's array)"
                return target, note, True
            return decoded.shape, (f"; the .npy shape {npy.shape} does not fit "
                                   f"{decoded.size} values, kept the decode shape"), False
        return decoded.shape, "", False

    def _byte_map(self, in_map: bool, decoded: np.ndarray, layout: SourceLayout,
                  element_bytes: int, view: np.ndarray,
                  packing: tuple[int, int] | None = None,
                  copy_base: tuple[int, int] | None = None) -> ByteMap | None:
        sizes = tuple(info.size for info in self._source.files)
        if in_map:
            base = self._source.data(0)
            start, nbytes = address_of(base), base.size
            mode = "file"
        elif copy_base is not None:  # a copy of some records, placed where the whole copy would be
            (start, nbytes), mode = copy_base, "copy"
        else:
            if decoded.size and not decoded.flags.c_contiguous:  # pragma: no cover - defensive
                return None
            start, nbytes = address_of(decoded), decoded.nbytes
            mode = "copy"
        if not buffer_range_contains(view, start, nbytes):
            return None
        return ByteMap(mode=mode, base_address=start, layout=layout,
                       element_bytes=max(element_bytes, 1), file_sizes=sizes, packing=packing)


def _check_npy_headers(source: Source, params: DecodeParams) -> None:
    """Raise a ``.npy`` header's problem when a default would come from that header.

    A file that starts with the ``.npy`` magic but whose header is unusable (structured,
    truncated, corrupt) opens all the same: with an explicit offset and dtype its bytes are
    shown raw. An opaque ``'<V2'`` header needs only the dtype (its offset and shape stay).
    """
    for info in source.files:
        if info.npy_error is not None and (params.offset is None or params.dtype is None):
            raise SourceError(info.npy_error.message, field="files")  # a new one per run
        if info.npy is not None and info.npy.dtype is None and params.dtype is None:
            raise opaque_type_error(info.path, info.npy)


def _derives_from(array: np.ndarray, base: np.ndarray) -> bool:
    """Whether ``array`` is a view whose ``.base`` chain reaches ``base``."""
    node = array
    while isinstance(node, np.ndarray):
        if node is base:
            return True
        node = node.base
    return False


def _blame_layout(error: DecodeError, layout: SourceLayout, offset: int | None,
                  dtype: np.dtype, packed: bool = False) -> DecodeError:
    """``error`` with ``field`` naming the setting that made the elements' length wrong.

    ``decode_raw`` sees only elements, so it names ``fixed_length``; here the layout is known.
    TF's "Input to DecodeRaw has length L that is not a multiple of S" is blamed on:

    - ``record_size`` when records are set (L is the record size);
    - ``offset`` when a header offset was given and the files without it would have fitted:
      the offset cut a value in two, so the fix names the offset and the nearest ones that fit;
    - else ``fixed_length`` (the files themselves end with a partial value), unchanged.

    Other errors are returned unchanged.
    """
    lengths = set(layout.element_lengths)
    if not str(error).startswith("Input to DecodeRaw") or len(lengths) != 1:
        return error
    if layout.record_size is not None:
        error.field = "record_size"
        return error
    if packed:  # the message already names the stored size (core/decode/packed.py)
        return error
    length, size = lengths.pop(), dtype.itemsize
    remainder = length % size
    if not offset or not remainder or (length + offset) % size:
        return error
    fitting = " or ".join(str(o) for o in (offset - size + remainder, offset + remainder) if o >= 0)
    files = "the file's" if len(layout.arrays) == 1 else "each file's"
    return DecodeError(
        f"Input to DecodeRaw has length {length} that is not a multiple of {size}, the size of "
        f"{tf_name(dtype)} (the header offset {offset} leaves {length} of {files} "
        f"{length + offset} bytes: choose a header offset that leaves a multiple of {size} "
        f"bytes, e.g. {fitting})",
        field="offset",
    )


def resolve_row_in_tflite(dtype: np.dtype) -> bool:
    """Whether TFLite's DataType has ``dtype`` (False for the float8 types)."""
    return type_row(engine_name(dtype)).tensor_buffer


def _resolved_offset(layout: SourceLayout, offset: int | None) -> int | None:
    """The offset used, or None when the files' .npy data offsets differ."""
    if offset is not None or layout.elements is not None:
        return offset
    starts = set(layout.starts)
    return starts.pop() if len(starts) == 1 else None
