"""The record layout of a numpy structured dtype as a container stores it (an HDF5 compound
dataset's file type, the dtype of an ``.npz`` member), written as the text
:func:`~core.records.field_list.parse_numpy_layout` reads.

Rules
-----
- The layout is the dtype's own: every member at its offset, in its byte order, the record its
  item size (padding included). Nested structures and sub-arrays are kept as they are; the
  parser flattens them (``b.x``, ``pts[1].y``).
- A member of a fixed size that is no number (a fixed-length string ``S5`` or ``U3``, opaque
  bytes ``V3``, a date) is shown as its **raw bytes**: ``u1[n]``, its n bytes as stored (a
  sub-array of them: ``u1[..., n]``); :attr:`StructuredLayout.as_bytes` names those members.
- A member holding **objects** (numpy kind ``O``: in an ``.npy`` a pickle, in HDF5 a
  variable-length string or sequence, or a reference) has no value in the record's bytes (they
  point elsewhere): the dtype is refused, naming the member.
- The text is a dict literal ``{'names': [...], 'formats': [...], 'offsets': [...],
  'itemsize': N}`` (a nested structure: a dict in ``formats``; a sub-array: ``(format,
  shape)``): literals only, so reading it runs nothing.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from core.errors import CoreError
from core.records.field_list import numpy_description_dtype, parse_numpy_layout
from core.records.layout import RecordLayout

__all__ = ["StructuredLayout", "npy_records_text", "structured_layout"]


@dataclass(frozen=True)
class StructuredLayout:
    """The layout of a structured dtype (module rules).

    Attributes
    ----------
    text
        The numpy dtype description :func:`~core.records.field_list.parse_numpy_layout` reads.
    layout
        That text parsed: the record layout (flattened leaves).
    as_bytes
        The members shown as their raw bytes (``u1[n]``), by dotted name.
    """

    text: str
    layout: RecordLayout
    as_bytes: tuple[str, ...] = ()

    def extras(self) -> dict[str, object]:
        """What a listing says of the records: ``{"record size": N, "fields": K}`` (K: leaves once
        flattened) and ``"as bytes"``: the members shown as raw bytes, when there are any."""
        extras: dict[str, object] = {"record size": self.layout.itemsize, "fields": len(self.layout.fields)}
        if self.as_bytes:
            extras["as bytes"] = ", ".join(self.as_bytes)
        return extras


def structured_layout(dtype: np.dtype) -> StructuredLayout:
    """The layout of the structured ``dtype`` (module rules). A listing of many datasets of one
    type pays for it once (the last :data:`_REMEMBERED` layouts are kept; they are immutable).

    Raises
    ------
    CoreError
        ``field="fields"``: the dtype has no named fields, a member holds objects (named), or the
        layout's own refusals (more than 4,096 fields, a record over 1 GiB).
    """
    return _layout_of(np.dtype(dtype))


#: How many layouts :func:`structured_layout` remembers.
_REMEMBERED = 256


@functools.lru_cache(maxsize=_REMEMBERED)
def _layout_of(dtype: np.dtype) -> StructuredLayout:
    if dtype.fields is None:
        raise CoreError(f"the type {dtype.str!r} has no named fields, so it is no record", field="fields")
    as_bytes: list[str] = []
    spec = _spec(dtype, "", as_bytes)
    text = repr(spec)
    return StructuredLayout(text, parse_numpy_layout(text), tuple(as_bytes))


def _spec(dtype: np.dtype, prefix: str, as_bytes: list[str]) -> dict:
    names, formats, offsets = [], [], []
    for name in dtype.names:
        member, offset = dtype.fields[name][:2]
        names.append(name)
        formats.append(_format(member, f"{prefix}{name}", as_bytes))
        offsets.append(int(offset))
    return {"names": names, "formats": formats, "offsets": offsets, "itemsize": dtype.itemsize}


def _format(member: np.dtype, name: str, as_bytes: list[str]) -> object:
    shape = tuple(int(n) for n in member.shape)
    element = member.base if shape else member
    if element.fields is not None:
        inner = _spec(element, f"{name}.", as_bytes)
        return (inner, shape) if shape else inner
    if element.hasobject:
        raise CoreError(f"the member {name!r} holds objects (variable-length data or references: its bytes in "
                        "the record point elsewhere), which a record layout cannot show", field="fields")
    if element.kind in "biufc":
        return (element.str, shape) if shape else element.str
    as_bytes.append(name)
    return ("|u1", shape + (element.itemsize,))


def npy_records_text(descr_text: str) -> str:
    """The layout text of a structured ``.npy`` file's dtype description (its header's
    ``descr``): read as ``numpy.load`` reads it, members that are no number as their bytes (module
    rules), so the window and the command show the same columns. A description numpy refuses is
    returned as it is (the layout's parser then says why)."""
    try:
        return structured_layout(numpy_description_dtype(descr_text)).text
    except CoreError:
        return descr_text
