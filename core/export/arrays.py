"""Export the current view to ``.npy``, raw ``.bin`` or ``.csv`` in bounded memory.

The view (typically a strided view of a read-only memory map) is written block by block
(:func:`core.scan.blocks.iter_blocks`, C order): each block is converted, if asked, and written,
so the memory used is a few blocks' worth whatever the view size.

Rules
-----
* **Type**: ``dtype=None`` keeps the view's type; another type converts every value with the
  engine's one conversion rule, the "view as" rule of :mod:`core.tflite.conversions` (integer targets
  clamp, floats truncate toward zero with NaN -> 0, float targets round to nearest, complex ->
  real keeps the real part). A ``bool`` view is written as bytes 0 / 1 (any nonzero byte is True).
* **Byte order** (``npy`` and ``bin``): ``little_endian=None`` keeps the view's byte order (native
  when it has none), True / False force it. Complex numbers swap each part separately.
* **npy**: a version 1.0 header (2.0 when the shape needs more than 64 KiB of header), C order,
  ``np.load`` gives back the view. ``bfloat16`` has no ``.npy`` type code (numpy would write an
  opaque ``'<V2'`` that loads as raw bytes), so it is refused: export with ``dtype="float32"``
  (exact for every bfloat16 value) or as raw ``bin``. The float8 types (beyond TF, no TFLite
  type either) are written as raw bytes: descr ``'|V1'``, one stored byte per value;
  ``np.load(path).view(ml_dtypes.float8_e4m3fn)`` gives the values back bit for bit. The only
  conversion offered for float8 is ``dtype="float32"`` (exact for every float8 value).
* **bin**: the values only, C order, no header: ``view.astype(target).tobytes()`` (for float8
  the stored bytes themselves). An int4 or int24 view holds decoded int8 / int32 values
  (docs/semantics.md §2a) and is written as those.
* **csv**: 0-d and 1-d views give one value per line; 2-d views one row per line,
  comma-separated; N-d views (N >= 3) a first line ``# shape (a, b, c)`` then the view as
  ``prod(shape[:-1])`` rows of ``shape[-1]`` values. Each value is written by
  :func:`core.text.number_format.csv_formatter`: floats with the digits the table shows, the
  shortest text that reads back as the same value *of their type* (float32 ``0.1`` -> ``0.1``,
  bfloat16 1/3 -> ``0.334``: read them back as float32 / bfloat16), or with ``csv_decimals``
  fixed decimals; NaN / Inf as ``nan``, ``inf``, ``-inf``; bools as 1 / 0; complex numbers as
  ``(1.0+2.0j)``. :func:`csv_size_warning` says when a CSV
  would be too big to be a good idea.
* **Safety**: the rules of :mod:`core.files.output`: ``path`` may not be one of
  ``source_paths`` (the files the view reads, through any link), nor a directory, FIFO or
  device; data goes to a temporary file renamed onto ``path`` only when complete, so a
  cancellation or error leaves ``path`` untouched.
* **Memory**: blocks of ``chunk_elements`` values, fewer when that would exceed the copy budget
  (:func:`core.budget.elements_per_chunk`): a huge view streams, it is never refused for size.
* ``progress(done, total)`` after each block (``total = view.size``); ``cancelled()`` before each
  block raises :class:`~core.errors.Cancelled`; ``check()`` before each block lets the source
  raise ``SourceError`` when its file changed (why: :mod:`core.files.shrink_guard`).
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Iterable
from typing import IO

import numpy as np

from core.budget import elements_per_chunk
from core.dtypes.data_type import DataType
from core.errors import ExportError
from core.export.streaming import checked_blocks, csv_texts, npy_header
from core.files.output import check_destination, write_atomically
from core.files.safe_open import sequential_access
from core.scan.blocks import BlockReader, iter_blocks
from core.text.byte_sizes import format_bytes
from core.tflite.conversions import convert_to

__all__ = ["FILE_FORMATS", "CSV_WARNING_VALUES", "csv_size_warning", "export_view"]

#: The file formats :func:`export_view` writes (number formats are core.text.number_format.FORMATS).
FILE_FORMATS = ("npy", "bin", "csv")
CSV_WARNING_VALUES = 10**7
_CSV_BYTES_PER_VALUE = 128


def csv_size_warning(view: np.ndarray, limit: int = CSV_WARNING_VALUES) -> str | None:
    """Return a warning for the GUI to show before a CSV export of more than ``limit`` values.

    Returns
    -------
    str or None
        ``None`` when ``view.size <= limit``; otherwise a sentence with the value count, a rough
        file size (about 12 characters per float value, 6 per integer) and the alternatives.
    """
    size = int(np.asarray(view).size)
    if size <= limit:
        return None
    per_value = 6 if np.asarray(view).dtype.kind in "iub" else 12
    return (
        f"The view has {size:,} values: as CSV that is about {format_bytes(size * per_value)} "
        "of text and slow to write and to read (export .npy or .bin instead, or narrow the slice)"
    )


def export_view(
    view: np.ndarray,
    path: str | os.PathLike,
    fmt: str,
    *,
    dtype: object = None,
    little_endian: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    csv_decimals: int | None = None,
    source_paths: Iterable[str | os.PathLike] = (),
    check: Callable[[], None] | None = None,
    chunk_elements: int = 1 << 22,
    reader: BlockReader | None = None,
) -> int:
    """Write ``view`` to ``path`` as ``fmt`` (``"npy"``, ``"bin"`` or ``"csv"``); rules: module doc.

    Parameters
    ----------
    view
        The array to write; read block by block, never copied whole.
    path
        Destination file; replaced atomically when the export completes.
    fmt
        ``"npy"``, ``"bin"`` or ``"csv"``.
    dtype
        Target type (anything :meth:`core.dtypes.data_type.DataType.parse` accepts), or None to keep
        the view's type.
    little_endian
        Byte order of ``npy`` / ``bin`` output; None keeps the view's.
    progress, cancelled, check
        See the module docstring.
    csv_decimals
        Fixed number of decimals for float CSV values (None: shortest exact text).
    source_paths
        The files the view reads; writing onto one of them is refused.
    chunk_elements
        Elements per block.
    reader
        Reads the blocks of a memory-mapped view with ``pread`` (:mod:`core.scan.blocks`): a
        file truncated during the export raises ``SourceError`` (and leaves no partial file)
        instead of faulting. Give one whenever the view comes from files.

    Returns
    -------
    int
        Bytes written (the size of the file at ``path``).

    Raises
    ------
    ExportError
        Unknown ``fmt``; ``path`` is a directory or one of ``source_paths``; bfloat16 to npy; the
        system refused a write (message includes the reason: disk full, permission...).
    CoreError
        ``dtype`` is not a supported type (from :mod:`core.dtypes.data_type`), ``csv_decimals < 0``.
    Cancelled
        ``cancelled()`` returned True; nothing was left behind.
    """
    view = np.asarray(view)
    if fmt not in FILE_FORMATS:
        raise ExportError(f"Unknown export format {fmt!r} (use one of {', '.join(FILE_FORMATS)})")
    if csv_decimals is not None and csv_decimals < 0:
        raise ExportError(f"csv_decimals must be >= 0, got {csv_decimals} (use None or 0..17)")
    path = os.fspath(path)
    if _is_float8(view.dtype):
        source, target, target_dtype = _float8_target(view.dtype, dtype)
    else:
        source = DataType.parse(view.dtype)
        target = source if dtype is None else DataType.parse(dtype)
        target_dtype = target.numpy_dtype  # raises the clear error for STRING
    if fmt == "npy" and target is DataType.BFLOAT16:
        raise ExportError(
            "NumPy's .npy format has no bfloat16 type (export with dtype float32, which holds "
            "every bfloat16 value exactly, or as raw .bin)",
            field="dtype",
        )
    if little_endian is None:
        little_endian = _is_little(view.dtype)
    check_destination(path, source_paths)
    # Blocks stay within the copy budget (core.budget): a CSV value costs a Python str and its
    # share of the joined text (~100 bytes); a binary one its converted and byte-swapped copies.
    per_value = _CSV_BYTES_PER_VALUE if fmt == "csv" else view.dtype.itemsize + 2 * target_dtype.itemsize
    chunk_elements = elements_per_chunk(chunk_elements, per_value)

    def blocks():
        source_blocks = reader.blocks(view, chunk_elements) if reader is not None else iter_blocks(view, chunk_elements)
        with sequential_access(view):  # the export reads the view whole: read ahead
            for block in checked_blocks(source_blocks, view.size, np.size, progress=progress, cancelled=cancelled,
                                        check=check):
                yield _convert(block, source, target)

    def write(out: IO[bytes]) -> None:
        if fmt == "csv":
            _write_csv(out, view.shape, target_dtype, blocks(), csv_decimals)
            return
        if fmt == "npy":
            out.write(npy_header(view.shape, _npy_descr(target_dtype, little_endian)))
        for values in blocks():
            if values.dtype.itemsize > 1 and _is_little(values.dtype) != little_endian:
                values = values.byteswap()
            out.write(np.ascontiguousarray(values).reshape(-1).view(np.uint8).data)

    return write_atomically(path, write, source_paths)


# ----------------------------------------------------------------------------- helpers
def _is_little(dtype: np.dtype) -> bool:
    if dtype.byteorder == "=" or dtype.byteorder == "|":
        return sys.byteorder == "little"
    return dtype.byteorder == "<"


def _is_float8(dtype: np.dtype) -> bool:
    """A float8 type of ml_dtypes (one byte named ``float8_*``; numpy kind ``"V"``, or ``"f"``
    for float8_e5m2)."""
    return dtype.itemsize == 1 and dtype.fields is None and dtype.name.startswith("float8_")


def _float8_target(dtype: np.dtype, target: object) -> tuple[None, DataType | None, np.dtype]:
    """(source, target, target dtype) of a float8 export: kept as is, or widened to float32.

    Raises
    ------
    ExportError
        Another target type: TFLite's conversions have no float8 source (``field="dtype"``).
    """
    if target is None:
        return None, None, dtype
    parsed = DataType.parse(target)
    if parsed is not DataType.FLOAT32:
        raise ExportError(
            f"{dtype.name} values can be exported as they are or as float32 (which holds every "
            f"{dtype.name} value exactly), not as {parsed} (choose no type, or float32)",
            field="dtype",
        )
    return None, parsed, parsed.numpy_dtype


def _convert(block: np.ndarray, source: DataType | None, target: DataType | None) -> np.ndarray:
    if source is None:  # float8: kept, or widened exactly to float32
        return block if target is None else block.astype(target.numpy_dtype)
    if source is DataType.BOOL and target is DataType.BOOL:
        return (block.view(np.uint8) != 0).view(np.bool_)  # bytes 0/1, whatever the file held
    if source is target:
        return block
    return convert_to(block, target)


def _npy_descr(dtype: np.dtype, little_endian: bool) -> str:
    if dtype.itemsize > 1:
        dtype = dtype.newbyteorder("<" if little_endian else ">")
    # float8: raw bytes ("|V1"); numpy would write "<V1", or for float8_e5m2 (kind "f") the
    # unloadable "<f1".
    return "|V1" if _is_float8(dtype) else np.lib.format.dtype_to_descr(dtype)


# ----------------------------------------------------------------------------- csv
def _write_csv(out: IO[bytes], shape: tuple[int, ...], dtype: np.dtype, blocks, decimals) -> None:
    if len(shape) >= 3:
        out.write(f"# shape {tuple(int(n) for n in shape)}\n".encode("ascii"))
    columns = int(shape[-1]) if len(shape) >= 2 else 1
    if columns == 0:
        rows = math.prod(shape[:-1])
        for start in range(0, rows, 1 << 20):
            out.write(b"\n" * min(1 << 20, rows - start))
        return
    to_text = csv_texts(dtype, decimals)
    in_row = 0  # values already written on the current line
    for values in blocks:
        texts = to_text(values.reshape(-1))
        lines = []
        i = 0
        while i < len(texts):
            take = min(len(texts) - i, columns - in_row)
            lines.append(("," if in_row else "") + ",".join(texts[i:i + take]))
            in_row += take
            i += take
            if in_row == columns:
                lines.append("\n")
                in_row = 0
        out.write("".join(lines).encode("ascii"))
