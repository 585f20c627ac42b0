"""TFRecord files of ``tf.train.Example`` / ``tf.train.SequenceExample``: features as tensors.

The records are found by :mod:`core.formats.tfrecord_framing` (a scan of the record headers, read
with ``pread`` in bounded blocks; GZIP/ZLIB streams decompressed in order) and parsed by
:mod:`core.formats.tfrecord_wire`. A record whose data CRC does not match is reported in
``problems`` with its byte offset and skipped; the other records stay usable. A bad length CRC or
a record reaching past the end of the file stops the walk there (the next record's position is
unknown), again with a problem naming the byte.

Rule for the entries: one entry per feature key, across all records, shaped as
``tf.io.parse_example`` gives it (``FixedLenFeature([])`` for one value per record, ``[n]`` for
n; records first, so ``--slice`` picks records):

- a ``bytes_list`` feature is the batch of strings ``parsed[key]`` handed to ``tf.io.decode_raw``:
  shape ``(records, length)`` for one string per record, ``(records, n, length)`` for n; each
  string is an element with its real bytes in the file (:attr:`TensorEntry.elements`; a strided
  view when evenly spaced with equal lengths, else one gathered copy); strings of different
  lengths need ``fixed_length``, exactly as in ``decode_raw``;
- a packed ``float_list`` stores little-endian float32 values contiguously: each record's run is
  one element, decoded as float32, shape ``(records,)`` or ``(records, n)`` (a view, no copy when
  evenly spaced);
- an ``int64_list`` stores varints, not fixed-width numbers: a :attr:`Storage.COPY` entry, int64,
  shape ``(records,)`` or ``(records, n)``, decoded (vectorised) by the format's ``values`` hook;
- a ``float_list`` or ``int64_list`` whose length varies per record (or that some records lack) is
  a :attr:`Storage.COMPUTED` entry ``(records, longest)``, zero padded as ``tf.sparse.to_dense``
  of a ``VarLenFeature`` densifies it (the entry's ``padded`` extra says so);
- a ``SequenceExample``'s feature list ``NAME`` is the entry ``feature_lists/NAME``, shaped
  ``(records, frames[, n][, length])`` when every record has the same number of frames and every
  frame the same number of values (``parse_sequence_example`` with a ``FixedLenSequenceFeature``),
  else an entry whose problem says why not;
- in a GZIP/ZLIB file every entry is a copy (its values are decompressed by the ``values`` hook,
  budget-checked); its element offsets are offsets in the decompressed stream.

A file whose records are not Examples (``TFRecordWriter.write`` of raw bytes) has one entry,
``records``, the record payloads as ``tf.data.TFRecordDataset`` yields them (uint8, element ``i``
is record ``i``'s data). A record is an Example only if it parses as one; field number 0 never
occurs in protobuf, so zero bytes do not. A file with one record gives plain entries (offset and
length) instead of one-element batches.

Every record is listed, whatever the file's size. Memory is bounded by the copy budget
(:mod:`core.budget`): the index costs about :data:`RANGE_COST` bytes per value range; a file
whose index would exceed the budget is listed up to there and the listing says, in ``problems``
(shown by the command's ``note:`` lines, ``--json`` and the window's Tensors dock) and in its
``partial`` metadata, how many records were listed of how many and how to list the rest.
"""

from __future__ import annotations

import struct
from array import array

import numpy as np

import core.budget as budget
from core.errors import ContainerError
from core.files.sources import Source
from core.formats.entry import ContainerFormat, ContainerListing, EntryValues, Storage, TensorEntry
from core.formats.reader import HeaderReader
from core.formats.tfrecord_framing import (
    FOOTER,
    HAVE_CRC_LIBRARY,
    HEADER,
    RecordStream,
    crc32c_python,
    masked_crc32c,
    sniff_compression,
    sniff_frame,
    walk,
)
from core.formats.tfrecord_wire import Feature, WireError, decode_varints, parse_record
from core.text.names import printable_name

__all__ = ["FORMAT", "RANGE_COST", "int64_values", "list_tfrecord", "masked_crc32c", "parse_example",
           "sniff", "tfrecord_values"]

#: Memory one value range costs while listed and opened (its index entry, the entry's
#: ``(offset, length)`` pair and the pipeline's layout of it): the listing holds at most
#: ``COPY_BUDGET_BYTES // RANGE_COST`` ranges.
RANGE_COST = 256
_WireError = WireError          # the names the format's tests know
_crc32c_python = crc32c_python
_MAX_MISSING_SHOWN = 16


def sniff(head: bytes, size: int) -> bool:
    """A TFRecord file has no magic: its first 12 bytes are a length whose masked CRC matches,
    and that record fits in the file (a chance match is one in 2**32); or it is a GZIP/ZLIB
    stream whose first decompressed bytes are such a header."""
    return sniff_frame(head, size) or sniff_compression(head) is not None


def parse_example(data: bytes, base: int) -> dict[str, Feature]:
    """The context features of one serialized Example whose first byte is file byte ``base``.

    Raises
    ------
    WireError
        The bytes are not a well-formed Example.
    """
    return parse_record(data, base)[0]


# -- the index of one feature across records ----------------------------------------------------
class _Column:
    """One feature (or feature list) across the records: compact int64 arrays, O(ranges)."""

    __slots__ = ("counts", "frame_max", "frame_min", "frames", "is_list", "kinds", "max_runs",
                 "records", "runs", "sizes", "starts")

    def __init__(self, is_list: bool) -> None:
        self.is_list = is_list
        self.kinds: set[str] = set()
        self.records = array("q")   # record numbers that have it
        self.counts = array("q")    # values in each of those records
        self.frames = array("q")    # frames in each (1 for a plain feature)
        self.runs = array("q")      # value ranges in each
        self.starts = array("q")    # value ranges: one per string, per packed run, per unpacked value
        self.sizes = array("q")
        self.max_runs = 0           # most ranges of one float/int64 record (or frame)
        self.frame_min = self.frame_max = -1

    def _ranges(self, feature: Feature) -> None:
        if isinstance(feature.starts, np.ndarray):
            self.starts.frombytes(feature.starts.astype(np.int64).tobytes())
            self.sizes.frombytes(np.asarray(feature.sizes, np.int64).tobytes())
        else:
            self.starts.extend(feature.starts)
            self.sizes.extend(feature.sizes)
        if feature.kind != "bytes":
            self.max_runs = max(self.max_runs, len(feature.starts))

    def add(self, number: int, feature: Feature) -> None:
        self.kinds.add(feature.kind)
        self.records.append(number)
        self.counts.append(feature.count)
        self.frames.append(1)
        self.runs.append(len(feature.starts))
        self._ranges(feature)

    def add_frames(self, number: int, frames: list[Feature | None]) -> None:
        self.records.append(number)
        self.frames.append(len(frames))
        self.runs.append(sum(len(f.starts) for f in frames if f is not None))
        total = 0
        for frame in frames:
            count = frame.count if frame is not None else 0
            total += count
            self.frame_min = count if self.frame_min < 0 else min(self.frame_min, count)
            self.frame_max = max(self.frame_max, count)
            if frame is None:
                self.max_runs = max(self.max_runs, 2)  # a frame without a kind: not regular
                continue
            self.kinds.add(frame.kind)
            self._ranges(frame)
        self.counts.append(total)


# -- listing -------------------------------------------------------------------------------------
def list_tfrecord(reader: HeaderReader) -> ContainerListing:
    """List a TFRecord file's features (see the module docstring for the rule).

    Raises
    ------
    ContainerError
        Never for a damaged record (those go in ``problems``); only when the source fails.
    """
    problems: list[str] = []
    where = f"the tfrecord file '{printable_name(reader.path)}'"
    compression = sniff_compression(reader.head(4096)) if not sniff_frame(reader.head(HEADER), reader.size) else None
    stream = RecordStream(reader.source, reader.index, compression)
    if not HAVE_CRC_LIBRARY:  # pragma: no cover - depends on the environment
        problems.append("data CRCs not checked: the google-crc32c package is missing (pip install "
                        "'tensor-inspector[tfrecord]')")
    columns: dict[str, _Column] = {}
    payload_starts, payload_sizes = array("q"), array("q")  # records with a good CRC
    not_examples: list[str] = []  # problems saying a record is no Example, in ``problems`` too
    max_ranges = max(1, budget.COPY_BUDGET_BYTES // RANGE_COST)
    ranges = records = 0
    partial: str | None = None
    for number, start, data in walk(stream, problems, where):
        parsed, error = None, None
        if data is not None:
            try:
                parsed = parse_record(data, start + HEADER)
            except WireError as caught:
                error = caught
        added = 1 + (0 if parsed is None else
                     sum(len(f.starts) for f in parsed[0].values())
                     + sum(len(f.starts) for frames in parsed[1].values() for f in frames if f is not None))
        if ranges + added > max_ranges:
            partial = _partial(where, number, start, stream, problems, max_ranges)
            break
        ranges += added
        records = number + 1
        if data is None:
            continue
        payload_starts.append(start + HEADER)
        payload_sizes.append(len(data))
        if parsed is None:
            not_examples.append(f"{where}: record {number} at byte {start}: not a "
                                f"tf.train.Example ({error} at byte {error.offset}); skipped")
            problems.append(not_examples[-1])
            continue
        features, lists = parsed
        for key, feature in features.items():
            column = columns.get(key)
            if column is None:
                column = columns[key] = _Column(False)
            column.add(number, feature)
        for key, frames in lists.items():
            name = f"feature_lists/{key}"
            column = columns.get(name)
            if column is None:
                column = columns[name] = _Column(True)
            column.add_frames(number, frames)
    metadata = {"records": str(records), "features": ", ".join(columns) or "none"}
    if compression is not None:
        metadata["compression"] = f"{compression}: values are a decompressed copy"
    if partial is not None:
        metadata["partial"] = partial
    if not columns and payload_starts:  # raw records, not Examples: the records themselves
        entries: tuple[TensorEntry, ...] = (_records_entry(payload_starts, payload_sizes, records, compression),)
        metadata["features"] = "none (the records are raw bytes, not tf.train.Example)"
        problems = [problem for problem in problems if problem not in not_examples]
    else:
        entries = tuple(_entry(key, column, records, compression) for key, column in columns.items())
    return ContainerListing("tfrecord", reader.path, entries, metadata, tuple(problems))


def _partial(where: str, number: int, start: int, stream: RecordStream, problems: list[str],
             max_ranges: int) -> str:
    """Stop the listing at record ``number``: count the records left (headers only) and say so."""
    left = 0
    pos = start
    size = stream.size
    while True:
        header = stream.take(pos, HEADER)
        if len(header) < HEADER:
            break
        (length,) = struct.unpack_from("<Q", header)
        if size is not None and pos + HEADER + length + FOOTER > size:
            break
        left += 1
        pos += HEADER + length + FOOTER
        if stream.compression is not None:  # decompressing the rest to count it: not worth it
            left = -1
            break
    total = "more" if left < 0 else f"{number + left}"
    text = (f"partial listing: the first {number} of {total} records (bytes 0 to {start}); indexing "
            f"more would hold over {max_ranges} value ranges, above the copy budget "
            f"({budget.COPY_BUDGET_BYTES} bytes; raise it with {budget.ENV_VAR}, e.g. "
            f"{budget.ENV_VAR}=8GiB, to list the rest)")
    problems.append(f"{where}: {text}")
    return text


def _pairs(starts: np.ndarray, sizes: np.ndarray) -> tuple[tuple[int, int], ...]:
    return tuple(zip(starts.tolist(), sizes.tolist()))


def _records_entry(starts_array: array, sizes_array: array, records: int,
                   compression: str | None) -> TensorEntry:
    """The ``records`` entry of a file of raw records: each record's data, as tf.data yields it."""
    starts = np.frombuffer(starts_array, np.int64)
    sizes = np.frombuffer(sizes_array, np.int64)
    extras: dict[str, object] = {"records": records, "records with it": len(starts)}
    if len(starts) < records:
        extras["records without it"] = "those whose data CRC failed (see the problems)"
    base = _span(starts, sizes, compression)
    base.update(name="records", dtype="uint8", little_endian=True, stored_type="record bytes")
    lengths = np.unique(sizes)
    if compression is not None:
        extras["compression"] = compression
    if len(starts) == 1 and records == 1 and compression is None:
        return TensorEntry(shape=(int(sizes[0]),), extras=extras, **base)
    storage = Storage.VIEW if compression is None else Storage.COPY
    if len(lengths) == 1:
        shape: tuple[int, ...] = (len(starts), int(lengths[0]))
    else:
        shape = (len(starts),)
        extras["element lengths"] = (f"{lengths[0]} to {lengths[-1]} bytes "
                                     "(decode_raw needs fixed_length)")
    return TensorEntry(shape=shape, extras=extras, elements=_pairs(starts, sizes), storage=storage,
                       batch=(len(starts),), **base)


def _span(starts: np.ndarray, sizes: np.ndarray, compression: str | None) -> dict[str, object]:
    """``offset``/``nbytes`` of an entry: the file bytes its ranges span (none when compressed:
    its bytes are not a range of the file)."""
    if compression is not None or starts.size == 0:
        return {"offset": 0, "nbytes": 0}
    low = int(starts.min())
    return {"offset": low, "nbytes": int((starts + sizes).max()) - low}


def _entry(key: str, column: _Column, records: int, compression: str | None) -> TensorEntry:
    present = np.frombuffer(column.records, np.int64)
    counts = np.frombuffer(column.counts, np.int64)
    starts = np.frombuffer(column.starts, np.int64)
    sizes = np.frombuffer(column.sizes, np.int64)
    extras: dict[str, object] = {"feature": key.removeprefix("feature_lists/") if column.is_list else key,
                                 "records": records, "records with it": len(present)}
    if compression is not None:
        extras["compression"] = compression
        extras["element offsets"] = "in the decompressed stream"
    every = len(present) == records
    if not every:  # element i is then not record i
        missing = np.setdiff1d(np.arange(records), present)
        extras["records without it"] = tuple(missing[:_MAX_MISSING_SHOWN].tolist()) + (
            ("...",) if len(missing) > _MAX_MISSING_SHOWN else ())
    low, high = (int(counts.min()), int(counts.max())) if counts.size else (0, 0)
    extras["values per record"] = low if low == high else f"{low} to {high}"
    base: dict[str, object] = dict(name=key, little_endian=True, **_span(starts, sizes, compression))
    kinds = sorted(column.kinds)
    if len(kinds) > 1:
        return TensorEntry(dtype=None, shape=(len(starts),), stored_type="/".join(kinds),
                           extras=extras, problem=f"feature '{key}' has different kinds in "
                           f"different records ({', '.join(kinds)}): open one record's "
                           "bytes as raw data", **base)
    kind = kinds[0] if kinds else "float"
    stored = f"{kind}_list"
    dtype = {"bytes": "uint8", "float": "float32", "int64": "int64"}[kind]
    copy = Storage.VIEW if compression is None else Storage.COPY
    if column.is_list:
        return _list_entry(key, column, records, every, kind, dtype, stored, extras, base, copy,
                           starts, sizes)
    if not len(starts) and kind != "int64":
        return TensorEntry(dtype=dtype, shape=(0,), stored_type=stored, extras=extras,
                           problem=f"feature '{key}' holds no values in any record", **base)
    uniform = every and low == high
    n = low
    if kind == "bytes":
        lengths = np.unique(sizes)
        if len(lengths) != 1:
            extras["element lengths"] = (f"{lengths[0]} to {lengths[-1]} bytes "
                                         "(decode_raw needs fixed_length)")
        tail = (int(lengths[0]),) if len(lengths) == 1 else ()
        if records == 1 and n == 1 and compression is None:
            return TensorEntry(dtype=dtype, shape=(int(sizes[0]),), stored_type=stored, extras=extras,
                               **{**base, "offset": int(starts[0]), "nbytes": int(sizes[0])})
        if records == 1:  # one record: its strings (a compressed file's one string: its bytes)
            batch: tuple[int, ...] = (n,) if n != 1 else ()
        elif uniform:
            batch = (records,) if n == 1 else (records, n)
        else:  # strings per record vary: the flat batch of all of them
            batch = (len(starts),)
            extras["batch"] = "every string of every record, in order (the counts per record differ)"
        return TensorEntry(dtype=dtype, shape=batch + tail, stored_type=stored, extras=extras,
                           elements=_pairs(starts, sizes), storage=copy, batch=batch, **base)
    if column.max_runs > 1:  # unpacked values: one range each, listed flat
        extras["stored"] = "unpacked (one element per value)"
        storage = copy if kind == "float" else Storage.COPY
        return TensorEntry(dtype=dtype, shape=(int(counts.sum()),), stored_type=stored, extras=extras,
                           elements=_pairs(starts, sizes), storage=storage, batch=(len(starts),), **base)
    # one packed run per record (an empty list: none): one element per record
    run_starts, run_sizes = _per_record(column, starts, sizes, records)
    elements = _pairs(run_starts, run_sizes)
    if uniform:
        shape = (n,) if records == 1 else ((records,) if n == 1 else (records, n))
        if kind == "float" and records == 1 and compression is None:
            return TensorEntry(dtype=dtype, shape=shape, stored_type=stored, extras=extras,
                               **{**base, "offset": int(run_starts[0]), "nbytes": int(run_sizes[0])})
        storage = copy if kind == "float" and n > 0 else Storage.COPY
        if kind == "float" and n == 0:
            return TensorEntry(dtype=dtype, shape=(records, 0), stored_type=stored, extras=extras,
                               problem=f"feature '{key}' holds no values in any record", **base)
        return TensorEntry(dtype=dtype, shape=shape, stored_type=stored, extras=extras,
                           elements=elements, storage=storage, batch=(records,), **base)
    extras["padded"] = (f"zero padded to the longest record ({high} values), as tf.sparse.to_dense "
                        "of a VarLenFeature gives it")
    return TensorEntry(dtype=dtype, shape=(records, high), stored_type=stored, extras=extras,
                       elements=elements, storage=Storage.COMPUTED, batch=(records,), **base)


def _per_record(column: _Column, starts: np.ndarray, sizes: np.ndarray,
                records: int) -> tuple[np.ndarray, np.ndarray]:
    """One ``(offset, length)`` per record from at most one range per record (a record without
    the feature or with an empty list: length 0)."""
    present = np.frombuffer(column.records, np.int64)
    runs = np.frombuffer(column.runs, np.int64)
    run_starts = np.zeros(records, np.int64)
    run_sizes = np.zeros(records, np.int64)
    run_starts[present[runs == 1]] = starts
    run_sizes[present[runs == 1]] = sizes
    return run_starts, run_sizes


def _list_entry(key, column, records, every, kind, dtype, stored, extras, base, copy,
                starts, sizes) -> TensorEntry:
    """``feature_lists/NAME``: ``(records, frames[, n][, length])`` when regular, else why not."""
    frames = np.frombuffer(column.frames, np.int64)
    f_low, f_high = (int(frames.min()), int(frames.max())) if frames.size else (0, 0)
    extras["frames per record"] = f_low if f_low == f_high else f"{f_low} to {f_high}"
    n = column.frame_min
    why = None
    if not every:
        why = "some records do not have it"
    elif f_low != f_high:
        why = f"the records have {f_low} to {f_high} frames"
    elif column.frame_min != column.frame_max:
        why = f"the frames have {column.frame_min} to {column.frame_max} values"
    elif column.max_runs > 1:
        why = "its values are stored unpacked or a frame has no kind"
    elif n <= 0 or f_low == 0:
        why = "its frames hold no values"
    if why is not None:
        return TensorEntry(dtype=dtype, shape=(len(starts),), stored_type=stored, extras=extras,
                           problem=f"feature list '{extras['feature']}' is not a regular tensor: {why} "
                           "(tf.io.parse_sequence_example gives it as a RaggedTensor; open one "
                           "record's bytes as raw data)", **base)
    frame_axes = (records, f_low)
    if kind == "bytes":
        lengths = np.unique(sizes)
        batch = frame_axes + ((n,) if n > 1 else ())
        tail = (int(lengths[0]),) if len(lengths) == 1 else ()
        if len(lengths) != 1:
            extras["element lengths"] = (f"{lengths[0]} to {lengths[-1]} bytes "
                                         "(decode_raw needs fixed_length)")
        return TensorEntry(dtype=dtype, shape=batch + tail, stored_type=stored, extras=extras,
                           elements=_pairs(starts, sizes), storage=copy, batch=batch, **base)
    shape = frame_axes + ((n,) if n > 1 else ())
    storage = copy if kind == "float" else Storage.COPY
    return TensorEntry(dtype=dtype, shape=shape, stored_type=stored, extras=extras,
                       elements=_pairs(starts, sizes), storage=storage, batch=frame_axes, **base)


# -- values of copy and computed entries ----------------------------------------------------------
def _where(source: Source, index: int = 0) -> str:
    return f"the tfrecord file '{printable_name(source.paths[index])}'"


def int64_values(source: Source, entry: TensorEntry, index: int = 0) -> np.ndarray:
    """The values of an ``int64_list`` entry: a decoded copy (varints are not fixed-width).

    Raises
    ------
    ContainerError
        The entry is not an int64_list, or its bytes no longer parse (the file changed).
    BudgetError
        The decoded copy would exceed the memory budget.
    """
    if entry.stored_type != "int64_list" or entry.dtype is None:
        raise ContainerError(f"'{entry.name}' is not an int64_list feature of a TFRecord file",
                             field="tensor")
    return _values(source, entry, index)


def _values(source: Source, entry: TensorEntry, index: int = 0) -> np.ndarray:
    """The values of any entry of a TFRecord listing, read (and decompressed) from its ranges."""
    kind = entry.stored_type
    compression = entry.extras.get("compression")
    ranges = np.array(entry.elements if entry.elements is not None else ((entry.offset, entry.nbytes),),
                      dtype=np.int64).reshape(-1, 2)
    itemsize = 1 if entry.dtype == "uint8" else (4 if entry.dtype == "float32" else 8)
    budget.check_copy_budget(entry.element_count * itemsize, f"decoding '{entry.name}'",
                             "open a smaller file", field="tensor")
    stream = RecordStream(source, index, compression if isinstance(compression, str) else None)
    where = _where(source, index)
    try:
        flat = stream.ranges(ranges, f"reading the values of '{entry.name}'")
        sizes = ranges[:, 1]
        if kind == "int64_list":
            values = decode_varints(flat).view(np.int64)
            terminators = np.concatenate(([0], np.cumsum(flat < 0x80)))
            ends = np.cumsum(sizes)
            counts = terminators[ends] - terminators[ends - sizes]
        elif kind == "float_list":
            values = flat.view("<f4")
            counts = sizes // 4
        else:  # strings of a compressed file
            if len(np.unique(sizes)) == 1:
                values = flat.reshape(len(sizes), -1)
            else:
                width = int(sizes.max())
                values = np.zeros((len(sizes), width), np.uint8)
                rows = np.repeat(np.arange(len(sizes)), sizes)
                cols = np.arange(flat.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
                values[rows, cols] = flat
                return values.reshape(tuple(entry.batch or (len(sizes),)) + (width,))
            return values.reshape(entry.shape)
    except WireError as error:
        raise ContainerError(f"{where} at byte {error.offset}: feature '{entry.name}': {error} "
                             "(list the file again)", field="tensor") from None
    except ValueError as error:
        raise ContainerError(f"{where}: feature '{entry.name}': {error} (the file changed: list it "
                             "again)", field="tensor") from None
    if "padded" in entry.extras:
        out = np.zeros(entry.shape, values.dtype)
        rows = np.repeat(np.arange(len(counts)), counts)
        cols = np.arange(values.size) - np.repeat(np.cumsum(counts) - counts, counts)
        if rows.size and (rows.max() >= entry.shape[0] or cols.max() >= entry.shape[1]):
            raise ContainerError(f"{where}: feature '{entry.name}' holds more values than listed "
                                 "(the file changed: list it again)", field="tensor")
        out[rows, cols] = values
        return out
    if values.size != entry.element_count:
        raise ContainerError(f"{where}: feature '{entry.name}' holds {values.size} values, not the "
                             f"{entry.element_count} listed (the file changed: list it again)",
                             field="tensor")
    return values.reshape(entry.shape)


def tfrecord_values(source: Source, entry: TensorEntry) -> EntryValues:
    """The format's ``values`` hook: varints decoded, var-len lists padded, compressed values
    decompressed (see the module docstring)."""
    array_ = _values(source, entry)
    compression = entry.extras.get("compression")
    if "padded" in entry.extras:
        what = (f"'{entry.name}' is a {entry.stored_type} of {entry.extras['values per record']} values "
                f"per record: {entry.extras['padded']}")
        how = "zero padded"
    elif compression is not None:
        what = f"'{entry.name}' is in a {compression}-compressed file: these are its decompressed values"
        how = "decompressed"
    else:
        what = f"'{entry.name}' is an int64_list of varints in the file: these are its decoded values"
        how = "varints decoded"
    if compression is not None and "padded" in entry.extras:
        what += " (decompressed)"
    return EntryValues.stored_copy(array_, how, what)


FORMAT = ContainerFormat("tfrecord", sniff, list_tfrecord, tfrecord_values)
