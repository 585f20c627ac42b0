"""Export the current view to ``.npy``, raw ``.bin`` or ``.csv`` in bounded memory.

The view (typically a strided view of a read-only memory map) is written block by block
(:func:`core.scan.statistics.iter_blocks`, C order): each block is converted, if asked, and written,
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
  (exact for every bfloat16 value) or as raw ``bin``.
* **bin**: the values only, C order, no header: ``view.astype(target).tobytes()``.
* **csv**: 0-d and 1-d views give one value per line; 2-d views one row per line,
  comma-separated; N-d views (N >= 3) a first line ``# shape (a, b, c)`` then the view as
  ``prod(shape[:-1])`` rows of ``shape[-1]`` values. Floats are written with the shortest text
  that reads back as the same value *of their type* (float32 ``0.1`` -> ``0.1``; bfloat16 values,
  which numpy prints with 6 digits only, as their exact float32 shortest text), or with
  ``csv_decimals`` fixed decimals; NaN / Inf as ``nan``, ``inf``, ``-inf``; bools as 1 / 0;
  complex numbers as Python writes them, ``(1+2j)``. :func:`csv_size_warning` says when a CSV
  would be too big to be a good idea.
* **Safety**: data goes to a temporary file in the destination's directory, renamed onto
  ``path`` (``os.replace``) only when complete; on cancellation or any error the temporary file
  is removed and ``path`` is untouched. ``path`` may not be one of ``source_paths`` (the files
  the view reads), nor a directory.
* **Memory**: blocks of ``chunk_elements`` values, fewer when that would exceed the copy budget
  (:func:`core.budget.elements_per_chunk`): a huge view streams, it is never refused for size.
* ``progress(done, total)`` after each block (``total = view.size``); ``cancelled()`` before each
  block raises :class:`~core.scan.statistics.Cancelled`; ``check()`` before each block lets the source
  raise ``SourceError`` when its file changed (why: :mod:`core.files.shrink_guard`).
"""

from __future__ import annotations

import io
import math
import os
import sys
import tempfile
from collections.abc import Callable, Iterable
from typing import IO

import numpy as np

from core.budget import elements_per_chunk
from core.dtypes.data_type import DataType
from core.errors import CoreError
from core.files.safe_open import sequential_access
from core.scan.statistics import Cancelled, iter_blocks
from core.tflite.conversions import convert_to

__all__ = ["ExportError", "FORMATS", "CSV_WARNING_VALUES", "csv_size_warning", "export_view"]

FORMATS = ("npy", "bin", "csv")
CSV_WARNING_VALUES = 10**7
_CSV_BYTES_PER_VALUE = 128


class ExportError(CoreError):
    """The export cannot be done: bad format or destination, or the destination refused writes."""


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
        f"The view has {size:,} values: as CSV that is about {_mebibytes(size * per_value)} "
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
    if fmt not in FORMATS:
        raise ExportError(f"Unknown export format {fmt!r} (use one of {', '.join(FORMATS)})")
    if csv_decimals is not None and csv_decimals < 0:
        raise ExportError(f"csv_decimals must be >= 0, got {csv_decimals} (use None or 0..17)")
    path = os.fspath(path)
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
    _check_destination(path, source_paths)
    # Blocks stay within the copy budget (core.budget): a CSV value costs a Python str and its
    # share of the joined text (~100 bytes); a binary one its converted and byte-swapped copies.
    per_value = _CSV_BYTES_PER_VALUE if fmt == "csv" else view.dtype.itemsize + 2 * target_dtype.itemsize
    chunk_elements = elements_per_chunk(chunk_elements, per_value)

    def blocks():
        done = 0
        with sequential_access(view):  # the export reads the view whole: read ahead
            for block in iter_blocks(view, chunk_elements):
                if cancelled is not None and cancelled():
                    raise Cancelled("export cancelled")
                if check is not None:
                    check()
                yield _convert(block, source, target)
                done += block.size
                if progress is not None:
                    progress(done, view.size)

    def write(out: IO[bytes]) -> None:
        if fmt == "csv":
            _write_csv(out, view.shape, target_dtype, blocks(), csv_decimals)
            return
        if fmt == "npy":
            out.write(_npy_header(view.shape, target_dtype, little_endian))
        for values in blocks():
            if values.dtype.itemsize > 1 and _is_little(values.dtype) != little_endian:
                values = values.byteswap()
            out.write(np.ascontiguousarray(values).reshape(-1).view(np.uint8).data)

    return _write_atomically(path, write)


# ----------------------------------------------------------------------------- helpers
def _is_little(dtype: np.dtype) -> bool:
    if dtype.byteorder == "=" or dtype.byteorder == "|":
        return sys.byteorder == "little"
    return dtype.byteorder == "<"


def _convert(block: np.ndarray, source: DataType, target: DataType) -> np.ndarray:
    if source is DataType.BOOL and target is DataType.BOOL:
        return (block.view(np.uint8) != 0).view(np.bool_)  # bytes 0/1, whatever the file held
    if source is target:
        return block
    return convert_to(block, target)


def _npy_header(shape: tuple[int, ...], dtype: np.dtype, little_endian: bool) -> bytes:
    if dtype.itemsize > 1:
        dtype = dtype.newbyteorder("<" if little_endian else ">")
    header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False,
              "shape": tuple(int(n) for n in shape)}
    buffer = io.BytesIO()
    try:
        np.lib.format.write_array_header_1_0(buffer, header)
    except ValueError:  # header longer than 64 KiB: only version 2.0 can hold it
        buffer = io.BytesIO()
        np.lib.format.write_array_header_2_0(buffer, header)
    return buffer.getvalue()


def _check_destination(path: str, source_paths: Iterable[str | os.PathLike]) -> None:
    if os.path.isdir(path):
        raise ExportError(f"{path} is a directory (choose a file name inside it)", field="path")
    if not os.path.exists(path):
        return
    for source in source_paths:
        try:
            same = os.path.samefile(path, source)
        except OSError:
            continue
        if same:
            raise ExportError(
                f"{path} is the file being inspected; exporting onto it would destroy the data "
                "it shows (choose another file name)",
                field="path",
            )


def _write_atomically(path: str, write: Callable[[IO[bytes]], None]) -> int:
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.",
                                    suffix=".part")
    except OSError as exc:
        raise ExportError(f"Cannot write in {directory}: {exc.strerror} (choose a folder you can "
                          "write to)", field="path") from exc
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
            written = out.tell()
        os.chmod(temp, _new_file_mode(path))
        os.replace(temp, path)
    except OSError as exc:
        _remove(temp)
        raise ExportError(f"Cannot write {path}: {exc.strerror or exc} (check the free space "
                          "and permissions, or choose another location)", field="path") from exc
    except BaseException:
        _remove(temp)
        raise
    return written


def _remove(temp: str) -> None:
    try:
        os.unlink(temp)
    except OSError:
        pass


def _new_file_mode(path: str) -> int:
    """Mode of the replaced file, or what ``open()`` would give a new one (0o666 & ~umask)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        pass
    return 0o666 & ~_umask()


def _umask() -> int:
    try:  # Linux >= 4.7 tells it without changing it (os.umask would, for the whole process)
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o022)  # elsewhere reading it means setting it: restore at once
    os.umask(umask)
    return umask


def _mebibytes(nbytes: int) -> str:
    return f"{nbytes / (1 << 30):.1f} GiB" if nbytes >= 1 << 30 else f"{nbytes / (1 << 20):.0f} MiB"


# ----------------------------------------------------------------------------- csv
def _formatter(dtype: np.dtype, decimals: int | None) -> Callable[[np.ndarray], list[str]]:
    """Return a function that turns a 1-d block of ``dtype`` values into CSV strings."""
    kind = DataType.parse(dtype)
    if kind is DataType.BOOL:
        return lambda v: ["1" if b else "0" for b in v.tolist()]
    if kind.is_integer:
        return lambda v: [str(i) for i in v.tolist()]
    if decimals is not None:
        if kind.is_complex:
            return lambda v: [f"({z.real:.{decimals}f}{z.imag:+.{decimals}f}j)" for z in v.tolist()]
        return lambda v: [f"{x:.{decimals}f}" for x in v.tolist()]
    if kind in (DataType.FLOAT64, DataType.COMPLEX128):
        return lambda v: [repr(x) for x in v.tolist()]  # Python's shortest round-trip text
    if kind is DataType.BFLOAT16:
        # Exact (every bfloat16 is a float32); numpy's own bfloat16 text keeps only 6 digits.
        return lambda v: [str(x) for x in v.astype(np.float32)]
    return lambda v: [str(x) for x in v]  # numpy's shortest text for float16/32, complex64


def _write_csv(out: IO[bytes], shape: tuple[int, ...], dtype: np.dtype, blocks, decimals) -> None:
    if len(shape) >= 3:
        out.write(f"# shape {tuple(int(n) for n in shape)}\n".encode("ascii"))
    columns = int(shape[-1]) if len(shape) >= 2 else 1
    if columns == 0:
        rows = math.prod(shape[:-1])
        for start in range(0, rows, 1 << 20):
            out.write(b"\n" * min(1 << 20, rows - start))
        return
    to_text = _formatter(dtype, decimals)
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
