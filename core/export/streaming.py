"""What every streamed export shares: the checks around each block, the ``.npy`` header, the CSV
text of a block of values.

Rules
-----
- :func:`checked_blocks`: before a block is handed on, ``cancelled()`` (True raises
  :class:`~core.errors.Cancelled`: the export stops, and :func:`core.files.output.write_atomically`
  leaves nothing behind) and ``check()`` (the source raises ``SourceError`` when its file
  changed, why: :mod:`core.files.shrink_guard`); once it has been written,
  ``progress(done, total)``, ``done`` growing by the block's size.
- :func:`npy_header`: a version 1.0 header for ``descr`` (2.0 when it needs more than 64 KiB),
  C order; the data follows it.
- :func:`csv_texts`: each value's text is :func:`core.text.number_format.csv_formatter`'s (the
  digits the table shows, bools 1 / 0, complex in parentheses), or with ``decimals`` fixed
  decimals.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

import numpy as np

from core.errors import Cancelled
from core.text.number_format import csv_formatter

__all__ = ["checked_blocks", "csv_texts", "npy_header"]

Block = TypeVar("Block")


def checked_blocks(blocks: Iterable[Block], total: int, size: Callable[[Block], int], *,
                   progress: Callable[[int, int], None] | None = None,
                   cancelled: Callable[[], bool] | None = None,
                   check: Callable[[], None] | None = None) -> Iterator[Block]:
    """Yield ``blocks`` with the checks of the module rules around each (``size(block)``: what it
    adds to ``done``).

    Raises
    ------
    Cancelled
        ``cancelled()`` returned True ("export cancelled").
    SourceError
        From ``check()``: the file changed.
    """
    done = 0
    for block in blocks:
        if cancelled is not None and cancelled():
            raise Cancelled("export cancelled")
        if check is not None:
            check()
        yield block
        done += size(block)
        if progress is not None:
            progress(done, total)


def npy_header(shape: tuple[int, ...], descr: str | list) -> bytes:
    """The ``.npy`` header of a C-order array of ``shape`` whose dtype is ``descr`` (a numpy
    descr: ``'<f4'``, ``[('ts', '<u4'), ...]``)."""
    header = {"descr": descr, "fortran_order": False, "shape": tuple(int(n) for n in shape)}
    buffer = io.BytesIO()
    try:
        np.lib.format.write_array_header_1_0(buffer, header)
    except ValueError:  # header longer than 64 KiB: only version 2.0 can hold it
        buffer = io.BytesIO()
        np.lib.format.write_array_header_2_0(buffer, header)
    return buffer.getvalue()


def csv_texts(dtype: np.dtype, decimals: int | None) -> Callable[[np.ndarray], list[str]]:
    """A function turning a 1-d block of ``dtype`` values into their CSV texts (module rules)."""
    text = csv_formatter(dtype, decimals)
    if np.dtype(dtype).kind in "biu":  # Python ints and bools format faster than numpy scalars
        return lambda values: [text(x) for x in values.tolist()]
    return lambda values: [text(x) for x in values]
