"""TFRecord files of ``tf.train.Example``: records with CRC check, features as tensors.

Framing (TensorFlow's ``record_writer.cc``), per record, little-endian::

    uint64 length | uint32 masked_crc32c(length bytes) | data[length] | uint32 masked_crc32c(data)

with ``masked(crc) = ((crc >> 15) | (crc << 17)) + 0xa282ead8`` (mod 2**32). A record whose
data CRC does not match is reported in ``problems`` with its byte offset and skipped; the other
records stay usable. A bad length CRC or a record reaching past the end of the file stops the
walk there (the next record's position is unknown), again with a problem naming the byte.

The records' data are parsed here as ``tf.train.Example`` protobuf messages, with our own
reader of the protobuf wire format, because the ``protobuf`` library gives no byte offsets of
fields. Nesting is fixed by the schema (Example > Features > map entry > Feature > list), so
the parser has a bounded depth and never recurses on the data; unknown fields are skipped.

Rule for the entries: one entry per feature key, across all records, as ``tf.data`` hands it
to ``tf.io.decode_raw`` after ``tf.io.parse_example``:

- a ``bytes_list`` feature is the batch of strings ``parsed[key]``: element ``i`` is the
  value's real bytes in the file (:attr:`TensorEntry.elements`), so
  ``decode_raw(parsed["image_raw"], tf.uint8)`` is exactly what the entry shows (a strided view
  when the records are evenly spaced with equal lengths, else one gathered copy); strings of
  different lengths need ``fixed_length``, exactly as in ``decode_raw``;
- a packed ``float_list`` stores little-endian float32 values contiguously: each record's
  values are one element, decoded as float32 (mappable, no copy when evenly spaced);
- an ``int64_list`` stores varints, not fixed-width numbers: it is not a view of the file, so
  the entry is a :attr:`~core.formats.entry.Storage.COPY` entry (int64, shape
  ``(records, values)`` when every record has the same count) and the format's ``values`` hook
  (:func:`int64_values`) gives a decoded, budget-checked copy.

A file whose records are not ``tf.train.Example`` messages (``TFRecordWriter.write`` of raw
bytes, e.g. ``tensor.numpy().tobytes()``) has no features: it gives one entry, ``records``, the
batch of record payloads exactly as ``tf.data.TFRecordDataset`` yields them to
``tf.io.decode_raw`` (uint8, element ``i`` is record ``i``'s data in the file). A record is an
Example only if it parses as one; field number 0 never occurs in protobuf, so zero bytes do not.

A file with one record gives plain entries (offset and length) instead of one-element batches.
Work is bounded: at most :data:`MAX_RECORDS` records and :data:`~core.formats.reader.HEADER_LIMIT`
bytes are read; a longer file is listed up to there and says so in ``problems``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from core.budget import check_copy_budget
from core.errors import ContainerError
from core.files.sources import FileSource
from core.formats.entry import ContainerFormat, ContainerListing, EntryValues, Storage, TensorEntry
from core.formats.reader import HEADER_LIMIT, HeaderReader
from core.text.names import printable_name

__all__ = ["FORMAT", "MAX_RECORDS", "int64_values", "list_tfrecord", "masked_crc32c", "sniff", "tfrecord_values"]

#: At most this many records are listed (the rest of the file is reported, not read).
MAX_RECORDS = 100_000
_MASK_DELTA = 0xA282EAD8
_HEADER = 12  # uint64 length + uint32 masked CRC of it
_FOOTER = 4   # uint32 masked CRC of the data

try:  # the well-kept C implementation (optional extra [tfrecord])
    import google_crc32c as _crc_library
except ImportError:  # pragma: no cover - depends on the environment
    _crc_library = None


def _crc32c_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


_TABLE = _crc32c_table()


def _crc32c_python(data: bytes) -> int:
    """CRC-32C in pure Python: only for the 8-byte length headers when the library is missing."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """TFRecord's masked CRC-32C of ``data`` (``google-crc32c``; pure Python without it)."""
    crc = _crc_library.value(data) if _crc_library is not None else _crc32c_python(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def sniff(head: bytes, size: int) -> bool:
    """A TFRecord file has no magic: its first 12 bytes are a length whose masked CRC matches,
    and that record fits in the file (a chance match is one in 2**32)."""
    if len(head) < _HEADER or size < _HEADER + _FOOTER:
        return False
    length, crc = struct.unpack_from("<QI", head)
    return _HEADER + length + _FOOTER <= size and masked_crc32c(head[:8]) == crc


# -- protobuf wire format ------------------------------------------------------------------------
class _WireError(ValueError):
    """A malformed message; ``offset`` is the byte of the file where it was found."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


def _varint(data: bytes, pos: int, end: int, base: int) -> tuple[int, int]:
    """(value, next position) of the varint at ``pos`` (at most 10 bytes, before ``end``)."""
    value = shift = 0
    for i in range(pos, min(end, pos + 10)):
        byte = data[i]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, i + 1
        shift += 7
    raise _WireError("a varint runs past its message or over 10 bytes", base + pos)


def _fields(data: bytes, start: int, end: int, base: int):
    """Yield ``(number, wire_type, value_start, value_end, varint_value)`` of one message."""
    pos = start
    while pos < end:
        key_start = pos
        key, pos = _varint(data, pos, end, base)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise _WireError("field number 0 is not valid protobuf", base + key_start)
        if wire == 0:
            value_start = pos
            value, pos = _varint(data, pos, end, base)
            yield number, wire, value_start, pos, value
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            if pos + width > end:
                raise _WireError("a fixed-width field runs past its message", base + pos)
            yield number, wire, pos, pos + width, 0
            pos += width
        elif wire == 2:
            length, pos = _varint(data, pos, end, base)
            if pos + length > end:
                raise _WireError(f"a field of {length} bytes runs past its message "
                                 f"({end - pos} bytes left)", base + pos)
            yield number, wire, pos, pos + length, 0
            pos += length
        else:
            raise _WireError(f"wire type {wire} is not used by tf.train.Example", base + pos)


@dataclass
class _Feature:
    """One feature of one record: its kind and the byte ranges of its values in the file."""

    kind: str                                   # "bytes", "float", "int64"
    ranges: list[tuple[int, int]] = field(default_factory=list)
    count: int = 0                              # values
    packed: bool = True                         # float/int64: one contiguous packed run


_KINDS = {1: "bytes", 2: "float", 3: "int64"}


def _parse_feature(data: bytes, start: int, end: int, base: int) -> _Feature | None:
    feature = None
    for number, wire, vs, ve, _ in _fields(data, start, end, base):
        if number not in _KINDS or wire != 2:
            continue
        feature = _Feature(_KINDS[number])  # oneof: the last kind given wins
        chunks = 0
        for n2, w2, s2, e2, _ in _fields(data, vs, ve, base):
            if n2 != 1:
                continue
            kind = feature.kind
            if kind == "bytes" and w2 == 2:
                feature.ranges.append((base + s2, e2 - s2))
                feature.count += 1
            elif kind == "float" and w2 in (2, 5):
                if w2 == 2 and (e2 - s2) % 4:
                    raise _WireError(f"a packed float_list of {e2 - s2} bytes is not a whole "
                                     "number of float32 values", base + s2)
                feature.ranges.append((base + s2, e2 - s2))
                feature.count += (e2 - s2) // 4
                chunks += 1
            elif kind == "int64" and w2 in (0, 2):
                feature.ranges.append((base + s2, e2 - s2))
                feature.count += (_count_varints(data, s2, e2, base) if w2 == 2 else 1)
                chunks += 1
            else:
                raise _WireError(f"a {kind}_list value has wire type {w2}", base + s2)
        feature.packed = chunks <= 1
    return feature


def _count_varints(data: bytes, start: int, end: int, base: int) -> int:
    count, pos = 0, start
    while pos < end:
        _, pos = _varint(data, pos, end, base)
        count += 1
    return count


def parse_example(data: bytes, base: int) -> dict[str, _Feature]:
    """The features of one serialized ``tf.train.Example`` whose first byte is file byte
    ``base``, key -> :class:`_Feature` (later map entries with the same key win, as in protobuf).

    Raises
    ------
    _WireError
        The bytes are not a well-formed Example (the error's ``offset`` is a file byte).
    """
    features: dict[str, _Feature] = {}
    for number, wire, fs, fe, _ in _fields(data, 0, len(data), base):
        if number != 1 or wire != 2:
            continue
        for n2, w2, es, ee, _ in _fields(data, fs, fe, base):
            if n2 != 1 or w2 != 2:
                continue
            key, value = "", None
            for n3, w3, vs, ve, _ in _fields(data, es, ee, base):
                if n3 == 1 and w3 == 2:
                    try:
                        key = data[vs:ve].decode("utf-8")
                    except UnicodeDecodeError:
                        raise _WireError("a feature key is not UTF-8", base + vs) from None
                elif n3 == 2 and w3 == 2:
                    value = _parse_feature(data, vs, ve, base)
            if value is not None:
                features[key] = value
    return features


# -- listing -------------------------------------------------------------------------------------
def list_tfrecord(reader: HeaderReader) -> ContainerListing:
    """List a TFRecord file's features (see the module docstring for the rule).

    Raises
    ------
    ContainerError
        Never for a damaged record (those go in ``problems``); only when the source fails.
    """
    problems: list[str] = []
    per_key: dict[str, list[_Feature | None]] = {}
    payloads: list[tuple[int, int]] = []  # (file offset, length) of each record with a good CRC
    not_examples: list[str] = []  # problems saying a record is no Example, in ``problems`` too
    records = 0
    pos = 0
    where = f"the tfrecord file '{printable_name(reader.path)}'"
    if _crc_library is None:  # pragma: no cover - depends on the environment
        problems.append("data CRCs not checked: the google-crc32c package is missing (pip install "
                        "'tensor-inspector[tfrecord]')")
    while pos < reader.size:
        if records >= MAX_RECORDS or reader.consumed + _HEADER > HEADER_LIMIT:
            problems.append(f"{where}: listed the first {records} records (bytes 0 to {pos} of "
                            f"{reader.size}); the rest is not listed (a bounded listing)")
            break
        if pos + _HEADER > reader.size:
            problems.append(f"{where}: record {records} at byte {pos}: {reader.size - pos} bytes "
                            "left, too few for a record header (a truncated file)")
            break
        length, length_crc = struct.unpack("<QI", reader.read(pos, _HEADER, f"record {records} header"))
        if masked_crc32c(struct.pack("<Q", length)) != length_crc:
            problems.append(f"{where}: record {records} at byte {pos}: the length's CRC does not "
                            "match (a corrupt header; the records after it cannot be found)")
            break
        end = pos + _HEADER + length + _FOOTER
        if end > reader.size:
            problems.append(f"{where}: record {records} at byte {pos}: its {length} bytes of data "
                            f"reach past the end of the file ({reader.size} bytes; truncated)")
            break
        if reader.consumed + length + _FOOTER > HEADER_LIMIT:
            problems.append(f"{where}: listed the first {records} records (bytes 0 to {pos} of "
                            f"{reader.size}); the rest is not listed (a bounded listing)")
            break
        body = reader.read(pos + _HEADER, length + _FOOTER, f"record {records} data")
        data = body[:length]
        (data_crc,) = struct.unpack_from("<I", body, length)
        number, record_start = records, pos
        records += 1
        pos = end
        if _crc_library is not None and masked_crc32c(data) != data_crc:
            problems.append(f"{where}: record {number} at byte {record_start}: the data CRC does "
                            "not match (a corrupt record, skipped; the others are usable)")
            _add_record(per_key, None, number)
            continue
        payloads.append((record_start + _HEADER, length))
        try:
            features = parse_example(data, record_start + _HEADER)
        except _WireError as error:
            not_examples.append(f"{where}: record {number} at byte {record_start}: not a "
                                f"tf.train.Example ({error} at byte {error.offset}); skipped")
            problems.append(not_examples[-1])
            features = None
        _add_record(per_key, features, number)
    metadata = {"records": str(records), "features": ", ".join(per_key) or "none"}
    if not per_key and payloads:  # raw records, not Examples: the records themselves
        entries: tuple[TensorEntry, ...] = (_records_entry(payloads, records),)
        metadata["features"] = "none (the records are raw bytes, not tf.train.Example)"
        problems = [problem for problem in problems if problem not in not_examples]
    else:
        entries = tuple(_entry(key, values, records) for key, values in per_key.items())
    return ContainerListing("tfrecord", reader.path, entries, metadata, tuple(problems))


def _records_entry(payloads: list[tuple[int, int]], records: int) -> TensorEntry:
    """The ``records`` entry of a file of raw records: each record's data, as tf.data yields it."""
    extras: dict[str, object] = {"records": records, "records with it": len(payloads)}
    if len(payloads) < records:
        extras["records without it"] = "those whose data CRC failed (see the problems)"
    start = payloads[0][0]
    end = max(offset + length for offset, length in payloads)
    base = dict(name="records", dtype="uint8", little_endian=True, stored_type="record bytes",
                offset=start, nbytes=end - start)
    lengths = {length for _, length in payloads}
    if len(payloads) == 1 and records == 1:
        return TensorEntry(shape=(payloads[0][1],), extras=extras, **base)
    if len(lengths) == 1:
        shape: tuple[int, ...] = (len(payloads), lengths.pop())
    else:
        shape = (len(payloads),)
        extras["element lengths"] = (f"{min(lengths)} to {max(lengths)} bytes "
                                     "(decode_raw needs fixed_length)")
    return TensorEntry(shape=shape, extras=extras, elements=tuple(payloads), **base)


def _add_record(per_key: dict[str, list[_Feature | None]], features: dict[str, _Feature] | None,
                number: int) -> None:
    """Append record ``number``'s features (None for a skipped record) to every key's list."""
    for values in per_key.values():
        values.append(None)
    for key, feature in (features or {}).items():
        values = per_key.setdefault(key, [None] * (number + 1))
        values[number] = feature


def _entry(key: str, values: list[_Feature | None], records: int) -> TensorEntry:
    present = [(i, f) for i, f in enumerate(values) if f is not None]
    kinds = {f.kind for _, f in present}
    counts = [f.count for _, f in present]
    extras: dict[str, object] = {"feature": key, "records": records,
                                 "records with it": len(present)}
    if len(present) < records:  # element i is then not record i
        missing = [i for i, f in enumerate(values) if f is None]
        extras["records without it"] = tuple(missing[:16]) + (("...",) if len(missing) > 16 else ())
    if len(set(counts)) == 1:
        extras["values per record"] = counts[0]
    else:
        extras["values per record"] = f"{min(counts)} to {max(counts)}"
    ranges = [r for _, f in present for r in f.ranges]
    span_start = min((s for s, _ in ranges), default=0)
    span_end = max((s + n for s, n in ranges), default=0)
    base = dict(name=key, little_endian=True, offset=span_start, nbytes=span_end - span_start)
    if len(kinds) > 1:
        return TensorEntry(dtype=None, shape=(len(ranges),), stored_type="/".join(sorted(kinds)),
                           extras=extras, problem=f"feature '{key}' has different kinds in "
                           f"different records ({', '.join(sorted(kinds))}): open one record's "
                           "bytes as raw data", **base)
    kind = kinds.pop()
    stored = f"{kind}_list"
    if kind == "int64":
        return TensorEntry(
            dtype="int64", shape=_batch_shape(counts, records, len(present)), stored_type=stored,
            extras=extras, elements=tuple(ranges), storage=Storage.COPY, **base)
    if kind == "float" and not all(f.packed for _, f in present):
        extras["stored"] = "unpacked (one element per value)"
    elif kind == "float":  # packed: each record's values are one contiguous run, one element
        ranges = [f.ranges[0] if f.ranges else (0, 0) for _, f in present]
    dtype = "uint8" if kind == "bytes" else "float32"
    if not ranges:
        return TensorEntry(dtype=dtype, shape=(0,), stored_type=stored, extras=extras,
                           problem=f"feature '{key}' holds no values in any record", **base)
    lengths = {n for _, n in ranges}
    if len(ranges) == 1 and records == 1:
        (start, size), = ranges
        shape = (size // (1 if kind == "bytes" else 4),)
        return TensorEntry(dtype=dtype, shape=shape, stored_type=stored, extras=extras,
                           **{**base, "offset": start, "nbytes": size})
    if len(lengths) != 1:
        extras["element lengths"] = f"{min(lengths)} to {max(lengths)} bytes (decode_raw needs fixed_length)"
    itemsize = 1 if kind == "bytes" else 4
    shape = (len(ranges), lengths.pop() // itemsize) if len(lengths) == 1 else (len(ranges),)
    return TensorEntry(dtype=dtype, shape=shape, stored_type=stored, extras=extras,
                       elements=tuple(ranges), **base)


def _batch_shape(counts: list[int], records: int, present: int) -> tuple[int, ...]:
    if records == 1:
        return (counts[0],)
    if len(set(counts)) == 1 and present == records:
        return (records, counts[0])
    return (sum(counts),)


def int64_values(source: FileSource, entry: TensorEntry, index: int = 0) -> np.ndarray:
    """The values of an ``int64_list`` entry: a decoded copy (varints are not fixed-width).

    Parameters
    ----------
    source
        The open TFRecord file (file ``index``).
    entry
        An entry of :func:`list_tfrecord` whose ``stored_type`` is ``"int64_list"``.

    Raises
    ------
    ContainerError
        The entry is not an int64_list, or its bytes no longer parse (the file changed).
    BudgetError
        The decoded copy would exceed the memory budget.
    """
    if entry.stored_type != "int64_list" or entry.elements is None:
        raise ContainerError(f"'{entry.name}' is not an int64_list feature of a TFRecord file",
                             field="tensor")
    count = entry.element_count
    check_copy_budget(count * 8, f"decoding the int64 varints of '{entry.name}'",
                      "open a smaller file", field="tensor")
    where = f"the tfrecord file '{printable_name(source.paths[index])}'"
    array = np.empty(count, dtype=np.uint64)  # varints are unsigned: two's complement below
    filled = 0
    for start, size in entry.elements:
        data = source.bytes_at(index, start, size)
        pos = 0
        try:
            while pos < size:
                value, pos = _varint(data, pos, size, start)
                if filled == count:
                    raise _WireError(f"more than the {count} values listed (the file changed)", start + pos)
                array[filled] = value & 0xFFFF_FFFF_FFFF_FFFF
                filled += 1
        except _WireError as error:
            raise ContainerError(f"{where} at byte {error.offset}: feature '{entry.name}': {error} "
                                 "(list the file again)", field="tensor") from None
    if filled != count:
        raise ContainerError(f"{where}: feature '{entry.name}' holds {filled} values, not the {count} "
                             "listed (the file changed: list it again)", field="tensor")
    return array.view(np.int64).reshape(entry.shape)


def tfrecord_values(source: FileSource, entry: TensorEntry) -> EntryValues:
    """The format's ``values`` hook: an int64_list feature's :func:`int64_values`."""
    array = int64_values(source, entry)
    return EntryValues.stored_copy(array, "varints decoded",
                                   f"'{entry.name}' is an int64_list of varints in the file: these are its "
                                   "decoded values")


FORMAT = ContainerFormat("tfrecord", sniff, list_tfrecord, tfrecord_values)
