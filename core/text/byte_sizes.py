"""The one way a byte count is written for a reader: ``512 bytes``, ``1.5 KiB``, ``2.0 GiB``.

Part of :mod:`core.text` (the one formatter), which the copy budget's refusals can use since the
budget sits on the floor above it. Every size shown to the user (the status bar's file size, the export dialog's
view size, the Tensors dock's sizes, the CSV size warning, the budget's and the file readers'
refusals) goes through :func:`format_bytes`. Exact counts that a message compares (``shrank from
8,192 to 0 bytes``) stay exact integers.
"""

from __future__ import annotations

__all__ = ["format_bytes"]

_UNITS = ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def format_bytes(nbytes: int) -> str:
    """A byte count in binary units with one decimal: ``1.0 TiB``, ``2.0 GiB``, ``1.5 KiB``.

    Rules:

    - Below 1024: the exact count, ``0 bytes``, ``1 byte``, ``1023 bytes``.
    - From 1024: the largest binary unit (KiB = 1024 bytes ... EiB) that keeps the number below
      1024, with one decimal rounded to nearest (``1536`` -> ``1.5 KiB``, ``16 MiB`` -> ``16.0
      MiB``; a value that rounds up to 1024.0 keeps the smaller unit, ``1024.0 KiB``).
    - 1024 EiB (``2**70``) and more, absurd requests such as a 300-digit ``fixed_length``:
      ``about 2**N bytes`` with ``N`` the highest set bit, never a float overflow.

    Parameters
    ----------
    nbytes
        A count of bytes, ``>= 0``.

    Returns
    -------
    str
    """
    if nbytes < 1024:
        return f"{nbytes} bytes" if nbytes != 1 else "1 byte"
    if nbytes >= 1 << 70:
        return f"about 2**{nbytes.bit_length() - 1} bytes"
    value = float(nbytes)
    for unit in _UNITS:
        value /= 1024.0
        if value < 1024.0 or unit == _UNITS[-1]:
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")
