"""How the bytes of opened files become ``decode_raw`` input elements (docs/semantics.md §3):
the rules of offset, length, records and explicit element ranges, as views of the files' maps.

:meth:`core.files.sources.Source.layout` applies them to its files; nothing here opens, maps or
reads a file (the views are of maps the source holds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from core.errors import SourceError
from core.files.safe_open import FileInfo
from core.text.names import printable_name

if TYPE_CHECKING:
    from core.files.sources import Source

__all__ = ["KEEP", "SourceLayout", "check_whole", "elements_layout", "records_layout"]

#: "The value given when the files were opened" (an omitted offset or record size).
KEEP = object()


@dataclass(frozen=True, eq=False)
class SourceLayout:
    """How the files of a source become ``decode_raw`` input elements.

    Attributes
    ----------
    arrays
        Per file, a read-only ``uint8`` view of the map: ``(L,)`` (one element of ``L`` bytes)
        or ``(n_records, record_size)``.
    input_shape
        Shape of the string tensor these elements form: ``()`` or ``(n_records,)`` for one file,
        ``(n_files,)`` or ``(n_files, n_records)`` for several.
    starts
        Per file, byte offset of the first element in the file.
    element_lengths
        Per file, bytes per element (``record_size``, or the whole data length).
    record_size
        Bytes per record, or None (one element per file).
    trailing_bytes
        Per file, bytes after the last whole record (and after a ``.npy`` file's promised data)
        that no element covers.
    """

    arrays: tuple[np.ndarray, ...]
    input_shape: tuple[int, ...]
    starts: tuple[int, ...]
    element_lengths: tuple[int, ...]
    record_size: int | None
    trailing_bytes: tuple[int, ...]
    elements: tuple[tuple[int, int], ...] | None = None
    """Explicit element byte ranges ``(offset, length)`` in the one file (a batch of strings
    gathered from a container, e.g. a TFRecord feature in every record), or None. ``arrays``
    then holds one ``(n, L)`` strided view of the map when the elements are evenly spaced with
    equal lengths, else the ``(span,)`` view covering them all (the pipeline gathers them)."""


def records_layout(files: Sequence[FileInfo], datas: Sequence[np.ndarray], paths: Sequence[str],
                   offset: int | None, record_size: int | None, length: int | None,
                   used: int | None) -> SourceLayout:
    """The files' data (``datas``: a ``uint8`` view of each file's map; ``paths``: their names
    as given) split by offset, length and records (:meth:`core.files.sources.Source.layout` has
    the rules and the errors)."""
    if record_size is not None and record_size <= 0:
        raise SourceError(
            f"record_size {record_size} must be greater than zero (use the number of bytes "
            "in one record, or no record size)",
            field="record_size",
        )
    arrays, starts, lengths, trailing, counts = [], [], [], [], []
    for info, data in zip(files, datas):
        start, end = _data_range(info, offset, length)
        available = end - start
        if record_size is None:
            arrays.append(data[start:end])
            lengths.append(available)
            trailing.append(info.size - end)
        else:
            if record_size > available and available == 0:
                # "use a record size of at most 0" would be no advice at all.
                raise SourceError(
                    f"record_size {record_size} is larger than the 0 bytes of data in "
                    f"'{info.path}' after offset {start} (there is nothing to split into "
                    "records: choose a smaller offset, no record size, or another file)",
                    field="record_size",
                )
            if record_size > available:
                raise SourceError(
                    f"record_size {record_size} is larger than the {available} bytes of data "
                    f"in '{info.path}' after offset {start} (use a record size of at most "
                    f"{available}, or a smaller offset)",
                    field="record_size",
                )
            count = available // record_size
            covered = count * record_size
            if used is not None and 0 < used < record_size and available - covered >= used:
                # the last record ends within the data: its used bytes are all there
                count += 1
                covered = (count - 1) * record_size + used
                arrays.append(np.ndarray((count, used), np.uint8, buffer=data, offset=start,
                                         strides=(record_size, 1)))
            else:
                arrays.append(data[start:start + covered].reshape(count, record_size))
            lengths.append(record_size)
            trailing.append(info.size - start - covered)
            counts.append(count)
        starts.append(start)
    if counts and len(set(counts)) > 1:
        listing = ", ".join(f"'{p}' has {c}" for p, c in zip(paths, counts))
        raise SourceError(
            f"the files hold different numbers of records of {record_size} bytes: {listing} "
            "(choose files of equal size, a record size that divides them equally, or open "
            "them one at a time)",
            field="record_size",
        )
    single = len(files) == 1
    if record_size is None:
        input_shape: tuple[int, ...] = () if single else (len(files),)
    else:
        input_shape = (counts[0],) if single else (len(files), counts[0])
    return SourceLayout(
        arrays=tuple(arrays), input_shape=input_shape, starts=tuple(starts),
        element_lengths=tuple(lengths), record_size=record_size,
        trailing_bytes=tuple(trailing),
    )


def elements_layout(source: Source, elements: object, offset: object = None,
                    record_size: object = None, length: object = None) -> SourceLayout:
    """The layout of explicit element byte ranges: input shape ``(n,)``, element ``i`` the
    ``elements[i] = (offset, length)`` bytes of the one file.

    Evenly spaced elements of one length are a strided ``(n, L)`` view of the map (no copy);
    others are gathered by the pipeline (one copy, budget-checked). No byte is read here.

    Raises
    ------
    SourceError
        ``field="elements"``: several files, an offset/length/record_size given as well, no
        elements, or a range that is not whole numbers inside the file.
    """
    if len(source.files) != 1:
        raise SourceError("explicit elements address one file, but several are open (open "
                          "the container file alone)", field="elements")
    for name, value in (("offset", offset), ("record_size", record_size), ("length", length)):
        if value is not None and value is not KEEP:
            raise SourceError(f"elements give every byte range, so {name} must not be set as "
                              f"well (clear {name}, or clear the elements)", field="elements")
    info = source.files[0]
    ranges = []
    for number, pair in enumerate(elements):  # type: ignore[attr-defined]
        try:
            start, size = (int(v) for v in pair if not isinstance(v, (bool, np.bool_)))
        except (TypeError, ValueError):
            raise SourceError(f"element {number} must be an (offset, length) pair of whole "
                              f"numbers, not {pair!r}", field="elements") from None
        if start < 0 or size < 0 or start + size > info.size:
            raise SourceError(
                f"element {number} ({size} bytes from byte {start}) is not inside "
                f"'{printable_name(info.path)}' ({info.size} bytes) (the container's listing "
                "is out of date or corrupt: list it again)", field="elements")
        ranges.append((start, size))
    if not ranges:
        raise SourceError("no elements given (a batch needs at least one byte range)",
                          field="elements")
    data = source.data(0)
    lengths = {size for _, size in ranges}
    steps = {b[0] - a[0] for a, b in zip(ranges, ranges[1:])}
    first, common = ranges[0][0], ranges[0][1]
    if len(lengths) == 1 and len(steps) <= 1 and min(steps, default=0) >= 0:
        step = steps.pop() if steps else common
        # base=data: the view's .base is the map's view, so the pipeline knows it is no copy.
        array = np.ndarray((len(ranges), common), np.uint8, buffer=data, offset=first,
                           strides=(step, 1))
    else:
        low = min(s for s, _ in ranges)
        high = max(s + n for s, n in ranges)
        array = data[low:high]
    return SourceLayout(
        arrays=(array,), input_shape=(len(ranges),), starts=(first,),
        element_lengths=(max(lengths),), record_size=None, trailing_bytes=(0,),
        elements=tuple(ranges),
    )


def check_whole(value: object, field: str) -> int | None:
    """``value`` as a whole number of bytes (None stays None).

    Raises
    ------
    SourceError
        Not a whole number, or a negative offset or length (``field`` names it).
    """
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise SourceError(f"{field} must be a whole number of bytes, not {value!r} "
                          "(e.g. 0 or 128)", field=field)
    if field == "offset" and value < 0:
        raise SourceError(f"offset {value} is negative (use 0 or more bytes to skip)",
                          field="offset")
    if field == "length" and value < 0:
        raise SourceError(f"length {value} is negative (use 0 or more bytes of data, or no "
                          "length to read to the end of the file)", field="length")
    return int(value)


def _data_range(info: FileInfo, offset: int | None, length: int | None) -> tuple[int, int]:
    """Byte range ``[start, end)`` of a file's data (offset None: .npy data or 0; length None:
    to the end of the file, or of the .npy data when both are None)."""
    if offset is None and info.npy is not None and length is None:
        return info.npy.data_offset, info.npy.data_offset + info.npy.nbytes
    if offset is None:
        start = info.npy.data_offset if info.npy is not None else 0
    else:
        start = offset
    if start > info.size:
        raise SourceError(
            f"offset {start} is past the end of '{printable_name(info.path)}' ({info.size} bytes) "
            f"(use an offset of at most {info.size})",
            field="offset",
        )
    if length is None:
        return start, info.size
    if start + length > info.size:
        raise SourceError(
            f"length {length} from offset {start} reaches past the end of "
            f"'{printable_name(info.path)}' ({info.size} bytes, so at most {info.size - start} "
            "bytes follow the offset): use a smaller length or offset, or check that the file "
            "is complete",
            field="length",
        )
    return start, start + length
