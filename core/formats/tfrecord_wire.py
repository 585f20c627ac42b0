"""The protobuf wire format of ``tf.train.Example`` and ``tf.train.SequenceExample`` records,
and the one field walker every protobuf reader of the project shares (:func:`fields`: also the
ONNX reader, :mod:`core.formats.onnx`).

Our own reader, because the ``protobuf`` library gives no byte offsets of fields. The walker reads
a message from any object indexed by byte position: ``bytes`` of a record in memory, or a
:class:`FileWindow` over a whole file, which reads only the bytes the walker looks at (keys and
lengths; a length-delimited value is skipped unread), in small ``pread`` blocks. Nesting is
fixed by the schema, so the parser has a bounded depth and never recurses on the data; unknown
fields are skipped::

    Example          { Features features = 1; }
    SequenceExample  { Features context = 1; FeatureLists feature_lists = 2; }
    Features         { map<string, Feature> feature = 1; }
    FeatureLists     { map<string, FeatureList> feature_list = 1; }
    FeatureList      { repeated Feature feature = 1; }        (one Feature per frame)
    Feature          { oneof { BytesList bytes_list = 1; FloatList float_list = 2;
                               Int64List int64_list = 3; } }

An Example is a SequenceExample without field 2, so one parser reads both. Packed varint runs
are counted and decoded with numpy (:func:`count_varints`, :func:`decode_varints`): the work per
value is vectorised, the Python work is per run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Feature", "FileWindow", "WireError", "count_varints", "decode_varints", "fields",
           "parse_record", "varint"]

_HIGH_BYTES = bytes(range(128, 256))


class WireError(ValueError):
    """A malformed message; ``offset`` is the byte of the file (or stream) where it was found."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


def _varint(data, pos: int, end: int, base: int) -> tuple[int, int]:
    """(value, next position) of the varint at ``pos`` (at most 10 bytes, before ``end``)."""
    value = shift = 0
    for i in range(pos, min(end, pos + 10)):
        byte = data[i]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, i + 1
        shift += 7
    raise WireError("a varint runs past its message or over 10 bytes", base + pos)


class FileWindow:
    """A file's bytes indexed by file offset, read on demand (for :func:`fields`).

    ``window[i]`` is byte ``i`` (an int), ``window[a:b]`` bytes ``a`` to ``b``. A byte outside
    the block held is read with ``read(offset, nbytes)`` (a bounded ``pread``, e.g.
    :meth:`core.formats.reader.HeaderReader.read`) in a block that starts at ``first`` bytes
    after a jump and doubles, up to ``most``, while the reads go on where the last block ended:
    walking the fields of a message whose large values are skipped reads a few hundred bytes
    per field, a run of small messages is read in large blocks.

    Parameters
    ----------
    read
        ``read(offset, nbytes) -> bytes``, exactly ``nbytes`` bytes (it raises past the end).
    size
        The file's size: no block reaches past it.
    """

    __slots__ = ("_block", "_data", "_first", "_most", "_read", "_start", "size")

    def __init__(self, read, size: int, first: int = 256, most: int = 65536) -> None:
        self._read = read
        self.size = size
        self._first, self._most = first, most
        self._start, self._data, self._block = -1, b"", first  # -1: the first read is a jump

    def __len__(self) -> int:
        return self.size

    def _load(self, pos: int) -> None:
        if pos != self._start + len(self._data):
            self._block = self._first
        else:
            self._block = min(self._most, 2 * self._block)
        nbytes = min(self._block, self.size - pos)
        if nbytes <= 0 or pos < 0:
            raise IndexError(pos)
        self._data = self._read(pos, nbytes)
        self._start = pos

    def __getitem__(self, key):
        if isinstance(key, slice):
            start, stop = key.start, key.stop
            if self._start <= start and stop <= self._start + len(self._data):
                return self._data[start - self._start:stop - self._start]
            return self._read(start, stop - start) if stop > start else b""
        i = key - self._start
        if not 0 <= i < len(self._data):
            self._load(key)
            i = 0
        return self._data[i]


def varint(data, pos: int, end: int, base: int = 0) -> tuple[int, int]:
    """``(value, next position)`` of the varint at ``pos`` of ``data`` (at most 10 bytes, before
    ``end``; the value is unsigned, up to 70 bits: a caller checks its range).

    Raises
    ------
    WireError
        The varint runs past ``end`` or over 10 bytes (``offset``: ``base + pos``).
    """
    return _varint(data, pos, end, base)


def fields(data, start: int, end: int, base: int = 0):
    """Yield ``(number, wire_type, value_start, value_end)`` for each field of the message
    ``data[start:end]``, positions in ``data`` (a varint's value is read with :func:`varint`
    from ``value_start``); ``base`` is the file offset of ``data[0]``, for the messages.

    Raises
    ------
    WireError
        A field runs past ``end`` (a lying length), a varint has more than 10 bytes, the field
        number is 0, or the wire type is a group (3, 4) or unknown (6, 7).
    """
    return _fields(data, start, end, base)


def _fields(data, start: int, end: int, base: int):
    """Yield ``(number, wire_type, value_start, value_end)`` of one message's fields (one-byte
    keys and lengths, the common case, are read inline)."""
    pos = start
    while pos < end:
        key_start = pos
        key = data[pos]
        if key < 0x80:
            pos += 1
        else:
            key, pos = _varint(data, pos, end, base)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise WireError("field number 0 is not valid protobuf", base + key_start)
        if wire == 2:
            if pos < end and data[pos] < 0x80:
                length = data[pos]
                pos += 1
            else:
                length, pos = _varint(data, pos, end, base)
            if pos + length > end:
                raise WireError(f"a field of {length} bytes runs past its message "
                                f"({end - pos} bytes left)", base + pos)
            yield number, wire, pos, pos + length
            pos += length
        elif wire == 0:
            value_start = pos
            _, pos = _varint(data, pos, end, base)
            yield number, wire, value_start, pos
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            if pos + width > end:
                raise WireError("a fixed-width field runs past its message", base + pos)
            yield number, wire, pos, pos + width
            pos += width
        else:
            raise WireError(f"wire type {wire} is not used by tf.train.Example or ONNX (a group, "
                            "or not protobuf)", base + pos)


def count_varints(run: bytes, offset: int) -> int:
    """How many varints the packed run ``run`` (file byte ``offset``) holds.

    Raises
    ------
    WireError
        The run ends inside a varint.
    """
    if run and run[-1] & 0x80:
        raise WireError("a packed int64_list ends inside a varint", offset + len(run) - 1)
    return len(run.translate(None, _HIGH_BYTES))


def decode_varints(data: np.ndarray, offset: int = 0) -> np.ndarray:
    """The uint64 values of the concatenated varints in the uint8 array ``data`` (vectorised).

    Raises
    ------
    WireError
        The data ends inside a varint, or a varint has more than 10 bytes.
    """
    data = np.asarray(data, dtype=np.uint8).reshape(-1)
    if data.size == 0:
        return np.zeros(0, np.uint64)
    if data[-1] & 0x80:
        raise WireError("the varints end inside a varint", offset + data.size - 1)
    ends = np.flatnonzero(data < 0x80)
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    widths = ends - starts + 1
    if widths.max() > 10:
        bad = int(starts[np.argmax(widths > 10)])
        raise WireError("a varint has more than 10 bytes", offset + bad)
    position = np.arange(data.size, dtype=np.int64) - np.repeat(starts, widths)
    parts = (data & 0x7F).astype(np.uint64) << (7 * position).astype(np.uint64)
    return np.bitwise_or.reduceat(parts, starts)


@dataclass(slots=True)
class Feature:
    """One feature of one record (or one frame): its kind and the byte ranges of its values.

    ``starts``/``sizes`` are the ranges' offsets in the file (or stream) and lengths (lists, or
    int64 arrays for many strings of one length): one per string of a ``bytes_list``, one per
    packed run of a ``float_list``/``int64_list`` (or per value when unpacked); ``count`` is the
    number of values.
    """

    kind: str                                   # "bytes", "float", "int64"
    starts: list[int] | np.ndarray = field(default_factory=list)
    sizes: list[int] | np.ndarray = field(default_factory=list)
    count: int = 0

    @property
    def ranges(self) -> list[tuple[int, int]]:
        return list(zip(list(self.starts), list(self.sizes)))


_KINDS = {1: "bytes", 2: "float", 3: "int64"}


def _varint_bytes(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _equal_strings(data, start: int, end: int, base: int, feature: Feature) -> bool:
    """Strings of one length one after the other (the common case: fixed-size values): found
    with numpy, when the body is exactly ``n`` times "tag 0x0a, the length, the bytes"."""
    if end - start < 64 or data[start] != 0x0A:
        return False
    try:
        length, pos = _varint(data, start + 1, end, base)
    except WireError:
        return False
    head = b"\x0a" + _varint_bytes(length)
    period = len(head) + length
    if (end - start) % period or (end - start) // period < 8:  # few strings: the loop is faster
        return False
    rows = np.frombuffer(data, np.uint8, count=end - start, offset=start).reshape(-1, period)
    if not (rows[:, :len(head)] == np.frombuffer(head, np.uint8)).all():
        return False
    n = rows.shape[0]
    feature.starts = (base + start + len(head) + period * np.arange(n, dtype=np.int64))
    feature.sizes = np.full(n, length, np.int64)
    feature.count = n
    return True


def _parse_strings(data, start: int, end: int, base: int, feature: Feature) -> None:
    """The strings of a ``BytesList`` body: strings of one length by :func:`_equal_strings`,
    else the common field (tag ``0x0a``, a short length) read inline, anything else by
    :func:`_fields`."""
    if _equal_strings(data, start, end, base, feature):
        return
    starts, sizes = feature.starts, feature.sizes
    pos = start
    while pos < end:
        if data[pos] == 0x0A and pos + 1 < end and data[pos + 1] < 0x80:
            length = data[pos + 1]
            pos += 2
            if pos + length > end:
                raise WireError(f"a field of {length} bytes runs past its message "
                                f"({end - pos} bytes left)", base + pos)
            starts.append(base + pos)
            sizes.append(length)
            pos += length
            continue
        number, wire, s2, e2 = next(_fields(data, pos, end, base))
        pos = e2
        if number != 1:
            continue
        if wire != 2:
            raise WireError(f"a bytes_list value has wire type {wire}", base + s2)
        starts.append(base + s2)
        sizes.append(e2 - s2)
    feature.count = len(starts)


def _parse_feature(data, start: int, end: int, base: int) -> Feature | None:
    feature = None
    for number, wire, vs, ve in _fields(data, start, end, base):
        if number not in _KINDS or wire != 2:
            continue
        feature = Feature(_KINDS[number])  # oneof: the last kind given wins
        kind = feature.kind
        if kind == "bytes":
            _parse_strings(data, vs, ve, base, feature)
            continue
        for n2, w2, s2, e2 in _fields(data, vs, ve, base):
            if n2 != 1:
                continue
            if kind == "float" and w2 in (2, 5):
                if w2 == 2 and (e2 - s2) % 4:
                    raise WireError(f"a packed float_list of {e2 - s2} bytes is not a whole "
                                    "number of float32 values", base + s2)
                feature.count += (e2 - s2) // 4
            elif kind == "int64" and w2 in (0, 2):
                feature.count += count_varints(bytes(data[s2:e2]), base + s2) if w2 == 2 else 1
            else:
                raise WireError(f"a {kind}_list value has wire type {w2}", base + s2)
            feature.starts.append(base + s2)
            feature.sizes.append(e2 - s2)
    return feature


def _parse_map(data, start: int, end: int, base: int, value_of) -> dict[str, object]:
    """A protobuf ``map<string, V>`` (field 1 of ``start:end``): key -> ``value_of(...)``."""
    found: dict[str, object] = {}
    for n2, w2, es, ee in _fields(data, start, end, base):
        if n2 != 1 or w2 != 2:
            continue
        key, value = "", None
        for n3, w3, vs, ve in _fields(data, es, ee, base):
            if n3 == 1 and w3 == 2:
                try:
                    key = bytes(data[vs:ve]).decode("utf-8")
                except UnicodeDecodeError:
                    raise WireError("a feature key is not UTF-8", base + vs) from None
            elif n3 == 2 and w3 == 2:
                value = value_of(data, vs, ve, base)
        if value is not None:
            found[key] = value  # later map entries with the same key win, as in protobuf
    return found


def _parse_frames(data, start: int, end: int, base: int) -> list[Feature | None]:
    """A ``FeatureList``: its frames' features, in order."""
    return [_parse_feature(data, vs, ve, base) for number, wire, vs, ve in _fields(data, start, end, base)
            if number == 1 and wire == 2]


def parse_record(data, base: int) -> tuple[dict[str, Feature], dict[str, list[Feature | None]]]:
    """The context features and the feature lists of one serialized ``tf.train.Example`` or
    ``tf.train.SequenceExample`` whose first byte is file byte ``base``.

    Raises
    ------
    WireError
        The bytes are not a well-formed message (the error's ``offset`` is a file byte).
    """
    features: dict[str, Feature] = {}
    lists: dict[str, list[Feature | None]] = {}
    for number, wire, fs, fe in _fields(data, 0, len(data), base):
        if number == 1 and wire == 2:
            features.update(_parse_map(data, fs, fe, base, _parse_feature))  # type: ignore[arg-type]
        elif number == 2 and wire == 2:
            lists.update(_parse_map(data, fs, fe, base, _parse_frames))  # type: ignore[arg-type]
    return features, lists
