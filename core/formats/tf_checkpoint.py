"""TensorFlow checkpoints (the tensor bundle): ``PREFIX.index`` + ``PREFIX.data-0000k-of-0000n``.

What ``tf.train.Checkpoint.save``, ``tf.compat.v1.train.Saver`` and ``tf.saved_model.save``
(``variables/variables``) write. Rules, as read here:

- **The index is a table** (LevelDB's sorted-string table, as TensorFlow's ``table`` library
  writes it): a 48-byte footer at the end (the handles of the metaindex and index blocks, then
  the magic ``0xdb4775248b80fb57``); the index block maps keys to the handles (varint offset and
  size) of data blocks; each block holds prefix-compressed entries (shared key bytes, new key
  bytes, value bytes) followed by its restart array, and is followed by a 5-byte trailer (the
  compression type, which must be 0: the bundle writer never compresses, and a masked CRC-32C).
  Every handle, length and count is checked against the file before it is used; only the
  index file is read, through the bounded header reads.
- **Keys are variable names**, in byte order, as ``tf.train.list_variables`` gives them. The
  empty key holds the ``BundleHeaderProto`` (number of shards, byte order: little unless it
  says big, version); every other key a ``BundleEntryProto``: dtype, shape, shard, offset,
  size. Keys starting with a zero byte are the slices of partitioned variables: a variable with
  slices is listed with a problem (its values are spread over them).
- **Each variable is a view** of ``PREFIX.data-{shard:05d}-of-{shards:05d}`` (the entry's
  ``file``), ``size`` bytes from ``offset``; the size must be the element count times the item
  size and lie inside that file. Every numeric DataType maps to the engine's type (the quantized
  ``qint8``/``quint8``/``qint16``/``quint16``/``qint32`` as their integer storage, bfloat16,
  float16, the float8 types). ``string`` variables (the object graph of a TF2 checkpoint) are
  varint-framed strings: listed, not decoded; ``resource`` and ``variant`` likewise.
- **A checkpoint is opened by any of its names** (:func:`checkpoint_index`): the ``.index``
  file, the prefix (``ckpt-3``), a directory holding a ``checkpoint`` file (its
  ``model_checkpoint_path``, taken inside that directory: an absolute path elsewhere, as TF1's
  Saver writes it, is taken by its file name there), or a SavedModel directory
  (``variables/variables``).
"""

from __future__ import annotations

import os
import re
import struct

from core.files.locations import file_size, folder_of, join
from core.files.remote import is_url
from core.formats import listing_control
from core.formats.entry import ContainerFormat, ContainerListing, TensorEntry
from core.formats.reader import HeaderReader, entry_limit, not_listed
from core.formats.tfrecord_wire import WireError, fields, varint
from core.text.names import printable_name

__all__ = ["FORMAT", "checkpoint_index", "list_bundle", "sniff"]

#: ``kTableMagicNumber`` of TensorFlow's table library (the last 8 bytes of an index file).
TABLE_MAGIC = 0xDB4775248B80FB57
FOOTER_BYTES = 48
#: Bytes after each block: its compression type and masked CRC-32C.
TRAILER_BYTES = 5

#: TensorFlow DataType number -> (engine type, stored name); engine type None: not decoded.
DATA_TYPES: dict[int, tuple[str | None, str]] = {
    1: ("float32", "float32"), 2: ("float64", "float64"), 3: ("int32", "int32"), 4: ("uint8", "uint8"),
    5: ("int16", "int16"), 6: ("int8", "int8"), 7: (None, "string"), 8: ("complex64", "complex64"),
    9: ("int64", "int64"), 10: ("bool", "bool"), 11: ("int8", "qint8"), 12: ("uint8", "quint8"),
    13: ("int32", "qint32"), 14: ("bfloat16", "bfloat16"), 15: ("int16", "qint16"),
    16: ("uint16", "quint16"), 17: ("uint16", "uint16"), 18: ("complex128", "complex128"),
    19: ("float16", "float16"), 20: (None, "resource"), 21: (None, "variant"), 22: ("uint32", "uint32"),
    23: ("uint64", "uint64"), 24: ("float8_e5m2", "float8_e5m2"), 25: ("float8_e4m3fn", "float8_e4m3fn"),
    26: ("float8_e4m3fnuz", "float8_e4m3fnuz"), 27: ("float8_e4m3b11fnuz", "float8_e4m3b11fnuz"),
    28: ("float8_e5m2fnuz", "float8_e5m2fnuz"),
}

_ITEMSIZE = {"float32": 4, "float64": 8, "int32": 4, "uint8": 1, "int16": 2, "int8": 1,
             "complex64": 8, "int64": 8, "bool": 1, "bfloat16": 2, "uint16": 2, "complex128": 16,
             "float16": 2, "uint32": 4, "uint64": 8}


class _TableError(ValueError):
    def __init__(self, message: str, offset: int | None) -> None:
        super().__init__(message)
        self.offset = offset


def sniff(head: bytes, size: int) -> bool:
    """A bundle index: its first entry is the empty key holding a ``BundleHeaderProto`` (two zero
    bytes, the value's length, then only fields 1-3 with their wire types), and, when the whole
    file is in ``head``, the table magic ends it."""
    if size < FOOTER_BYTES + 3 or head[:2] != b"\x00\x00":
        return False
    if len(head) >= size and struct.unpack_from("<Q", head, size - 8)[0] != TABLE_MAGIC:
        return False
    try:
        length, start = varint(head, 2, min(len(head), 7), 0)
        if not 2 <= length <= 256 or start + length > len(head):
            return False
        numbers = [(number, wire) for number, wire, _, _ in fields(head, start, start + length, 0)]
    except WireError:
        return False
    allowed = {(1, 0), (2, 0), (3, 2)}
    return bool(numbers) and all(item in allowed for item in numbers)


def checkpoint_index(path: str) -> str | None:
    """The ``.index`` file of the checkpoint ``path`` names (module rules), or None when it names
    none (then it is opened as itself)."""
    if os.path.isdir(path):
        saved = os.path.join(path, "variables", "variables.index")
        if os.path.isfile(saved):
            return saved
        state = os.path.join(path, "checkpoint")
        if os.path.isfile(state):
            prefix = _latest(path, state)
            if prefix is not None and os.path.isfile(prefix + ".index"):
                return prefix + ".index"
        return None
    if is_url(path) or os.path.exists(path):  # a file is itself (a data shard opens as raw bytes)
        return None
    if os.path.isfile(path + ".index"):
        return path + ".index"
    return None


def _latest(folder: str, state: str) -> str | None:
    """The ``model_checkpoint_path`` of a ``checkpoint`` state file (a text proto, parsed by a
    pattern, never evaluated), inside ``folder``."""
    try:
        with open(state, "rb") as handle:
            text = handle.read(1 << 16).decode("utf-8", "replace")
    except OSError:
        return None
    match = re.search(r'^model_checkpoint_path:\s*"((?:[^"\\]|\\.)*)"', text, re.MULTILINE)
    if match is None:
        return None
    name = match[1].replace('\\"', '"').replace("\\\\", "\\")
    folder = os.path.abspath(folder)
    resolved = os.path.normpath(os.path.join(folder, name))
    if os.path.commonpath([folder, resolved]) != folder:
        resolved = os.path.join(folder, os.path.basename(resolved))  # TF1's absolute paths
    return resolved


# -- the table ------------------------------------------------------------------------------
class _Table:
    """Bounded reads of a table file through the listing's :class:`HeaderReader`."""

    def __init__(self, reader: HeaderReader) -> None:
        self.reader = reader
        self.size = reader.size

    def footer(self) -> tuple[int, int]:
        """The index block's handle."""
        if self.size < FOOTER_BYTES:
            raise _TableError(f"the file ({self.size} bytes) is shorter than a table footer "
                              f"({FOOTER_BYTES} bytes)", 0)
        start = self.size - FOOTER_BYTES
        footer = self.reader.read(start, FOOTER_BYTES, "table footer")
        if struct.unpack_from("<Q", footer, 40)[0] != TABLE_MAGIC:
            raise _TableError("the table footer's magic is not 0xdb4775248b80fb57", self.size - 8)
        try:
            _meta_offset, pos = varint(footer, 0, 40, start)
            _meta_size, pos = varint(footer, pos, 40, start)
            offset, pos = varint(footer, pos, 40, start)
            size, _ = varint(footer, pos, 40, start)
        except WireError as error:
            raise _TableError(f"the table footer's block handles are damaged ({error})", error.offset) from None
        return offset, size

    def block(self, offset: int, size: int, what: str) -> bytes:
        """The contents of the block at ``offset`` (``size`` bytes, then its trailer)."""
        if offset < 0 or size < 4 or offset + size + TRAILER_BYTES > self.size - FOOTER_BYTES:
            raise _TableError(f"the {what} ({size} bytes from byte {offset}) does not fit in the "
                              f"file ({self.size} bytes)", offset)
        data = self.reader.read(offset, size + TRAILER_BYTES, what)
        if data[size] != 0:
            raise _TableError(f"the {what} is compressed (type {data[size]}); TensorFlow's bundle "
                              "writer never compresses, so the file is corrupt", offset + size)
        return data[:size]

    def entries(self, block: bytes, base: int, what: str):
        """Yield ``(key, value_start, value_end)`` of a block's entries (key: bytes), in order."""
        if len(block) < 4:
            raise _TableError(f"the {what} is shorter than its restart count", base)
        restarts = struct.unpack_from("<I", block, len(block) - 4)[0]
        end = len(block) - 4 - 4 * restarts
        if restarts == 0 or end < 0:
            raise _TableError(f"the {what} claims {restarts} restart points, which do not fit in "
                              f"its {len(block)} bytes", base + len(block) - 4)
        pos, key = 0, b""
        while pos < end:
            try:
                shared, pos = varint(block, pos, end, base)
                unshared, pos = varint(block, pos, end, base)
                length, pos = varint(block, pos, end, base)
            except WireError as error:
                raise _TableError(f"an entry of the {what} is damaged ({error})", error.offset) from None
            if shared > len(key) or pos + unshared + length > end:
                raise _TableError(f"an entry of the {what} reaches past the block (shared {shared} of "
                                  f"{len(key)} key bytes, {unshared} + {length} more bytes)", base + pos)
            key = key[:shared] + block[pos:pos + unshared]
            pos += unshared
            yield key, pos, pos + length
            pos += length


# -- the bundle -----------------------------------------------------------------------------
def _header(value: bytes, base: int) -> tuple[int, bool]:
    """(number of shards, little-endian) of a ``BundleHeaderProto``."""
    shards, little = 1, True
    for number, wire, start, _end in fields(value, 0, len(value), base):
        if number == 1 and wire == 0:
            shards = varint(value, start, len(value), base)[0]
        elif number == 2 and wire == 0:
            little = varint(value, start, len(value), base)[0] == 0
    return shards, little


def _shape(value: bytes, start: int, end: int, base: int) -> tuple[tuple[int, ...], bool]:
    """(dimensions, unknown rank) of a ``TensorShapeProto``; a negative (unknown) size is -1."""
    dims, unknown = [], False
    for number, wire, s, e in fields(value, start, end, base):
        if number == 2 and wire == 2:
            size = 0
            for inner, inner_wire, si, _ei in fields(value, s, e, base):
                if inner == 1 and inner_wire == 0:
                    size = varint(value, si, e, base)[0]
            dims.append(size - (1 << 64) if size >= 1 << 63 else size)
        elif number == 3 and wire == 0:
            unknown = varint(value, s, end, base)[0] != 0
    return tuple(dims), unknown


def _entry_fields(value: bytes, base: int) -> dict[str, object]:
    found: dict[str, object] = {"dtype": 0, "shape": ((), False), "shard": 0, "offset": 0, "size": 0, "slices": 0}
    for number, wire, start, end in fields(value, 0, len(value), base):
        if wire == 0 and number in (1, 3, 4, 5):
            found[{1: "dtype", 3: "shard", 4: "offset", 5: "size"}[number]] = varint(value, start, end, base)[0]
        elif number == 2 and wire == 2:
            found["shape"] = _shape(value, start, end, base)
        elif number == 7 and wire == 2:
            found["slices"] = int(found["slices"]) + 1
    return found


def _shard_name(prefix: str, shard: int, shards: int) -> str:
    return f"{prefix}.data-{shard:05d}-of-{shards:05d}"


def list_bundle(reader: HeaderReader) -> ContainerListing:
    """List the variables of a checkpoint's ``.index`` file (module rules).

    Raises
    ------
    ContainerError
        The table or its header cannot be read (the message names the structure and the byte).
        A damaged variable goes in ``problems`` (or is listed with its problem).
    """
    table = _Table(reader)
    fix = "the file is not a valid TensorFlow checkpoint index; open it as raw bytes with an explicit offset and dtype"
    try:
        index_offset, index_size = table.footer()
        index = table.block(index_offset, index_size, "index block")
        handles = []
        for _key, start, end in table.entries(index, index_offset, "index block"):
            offset, pos = varint(index, start, end, index_offset)
            size, _ = varint(index, pos, end, index_offset)
            handles.append((offset, size))
    except _TableError as bad:
        raise reader.error(str(bad), bad.offset, fix) from None
    except WireError as bad:
        raise reader.error(f"the index block is damaged ({bad})", bad.offset, fix) from None
    prefix = os.path.basename(reader.path)[:-len(".index")] if reader.path.endswith(".index") else \
        os.path.basename(reader.path)
    entries: list[TensorEntry] = listing_control.collecting("tf-checkpoint")
    problems: list[str] = []
    shards, little = 1, True
    limit, left_out = entry_limit(), 0
    folder = folder_of(reader.path)
    sizes: dict[str, int | None] = {}
    for number, (offset, size) in enumerate(handles):
        what = f"data block {number}"
        try:
            block = table.block(offset, size, what)
            for key, start, end in table.entries(block, offset, what):
                value = block[start:end]
                if key == b"":
                    shards, little = _header(value, offset + start)
                    continue
                if key[:1] == b"\x00":
                    continue  # a slice of a partitioned variable: listed with its variable
                if len(entries) >= limit:
                    left_out += 1
                    continue
                entries.append(_variable(key, _entry_fields(value, offset + start), prefix, shards, little,
                                         folder, sizes))
        except _TableError as bad:
            problems.append(reader.error(str(bad), bad.offset).message)
        except WireError as bad:
            problems.append(reader.error(f"a variable of {what} is damaged ({bad})", bad.offset).message)
    if left_out:
        problems.append(not_listed(left_out, "variables"))
    metadata = {"shards": str(shards), "byte order": "little-endian" if little else "big-endian",
                "variables": str(len(entries) + left_out)}
    return ContainerListing("tf-checkpoint", reader.path, tuple(entries), metadata, tuple(problems))


def _variable(key: bytes, fields: dict, prefix: str, shards: int, little: bool, folder: str,
              sizes: dict[str, int | None]) -> TensorEntry:
    name = key.decode("utf-8", "backslashreplace")
    dims, unknown_rank = fields["shape"]
    dtype, stored = DATA_TYPES.get(int(fields["dtype"]), (None, f"DataType {fields['dtype']}"))
    shard, offset, nbytes = int(fields["shard"]), int(fields["offset"]), int(fields["size"])
    data_file = _shard_name(prefix, shard, shards)
    problem = None
    if fields["slices"]:
        problem = (f"a partitioned variable saved in {fields['slices']} slices: its values are spread "
                   "over them and are not shown (open the data file as raw bytes to look at them)")
    elif dtype is None:
        problem = (f"its type {stored} is stored as framed strings or handles, not as plain elements "
                   "(not decoded)")
    elif unknown_rank or any(d < 0 for d in dims):
        problem = f"its shape {dims} is not fully known, so its elements cannot be laid out"
    elif shard >= max(shards, 1):
        problem = f"it names data shard {shard}, but the checkpoint has {shards} shard(s)"
    else:
        count = 1
        for d in dims:
            count *= d
        itemsize = _ITEMSIZE.get(dtype, 1)
        if count * itemsize != nbytes:
            problem = (f"it stores {nbytes} bytes, but its {count} {dtype} values take {count * itemsize} "
                       "(a corrupt entry)")
        else:
            size = _file_size(join(folder, data_file), sizes)
            if size is None:
                problem = (f"its data file '{printable_name(data_file)}' is missing beside the index "
                           "(copy every shard of the checkpoint into one folder)")
            elif offset + nbytes > size:
                problem = (f"its {nbytes} bytes from byte {offset} reach past the end of "
                           f"'{printable_name(data_file)}' ({size} bytes): the shard is truncated")
    return TensorEntry(name, dtype, little or (dtype in ("uint8", "int8", "bool")), tuple(max(d, 0) for d in dims),
                       offset, nbytes, stored, problem=problem, file=data_file)


def _file_size(path: str, sizes: dict[str, int | None]) -> int | None:
    if path not in sizes:
        sizes[path] = file_size(path)
    return sizes[path]


FORMAT = ContainerFormat("tf-checkpoint", sniff, list_bundle)
