"""GGUF files (llama.cpp's model format, versions 2 and 3): tensors by name, in C order.

Layout: ``"GGUF"``, uint32 version, uint64 tensor count, uint64 key/value count, the key/values
(``general.alignment`` among them, default 32), one info per tensor (name, dims, ggml type,
offset from the data section), then the data section at the next multiple of the alignment.
Every number is little-endian, or big-endian in a big-endian file (recognised, as llama.cpp's
``gguf`` reader does, by a byte-swapped version).

Rules:

- GGUF lists dims innermost first (``ne[0]`` varies fastest); the entry's shape is reversed
  into C order, so ``shape[-1] == ne[0]``;
- F32, F16, BF16, F64, I8, I16, I32 and I64 tensors are mappable as they are;
- a split model (``NAME-00001-of-0000n.gguf`` ..., as ``gguf-split`` and ``GGUFWriter``'s
  ``split_max_tensors`` write it, with ``split.count`` = n) lists as one set from any of its
  splits: each sibling split's header is listed too and its entries name their file; a missing
  or damaged split is a problem of the listing;
- a quantized tensor (Q4_0, Q8_0, Q4_K, ...) stores blocks of ``block size`` values in
  ``type size`` bytes: it is listed as a :attr:`~core.formats.entry.Storage.COMPUTED` float32
  entry of the values' shape (C order), whose offset and length are those of its raw blocks,
  with extras naming the quantization type and the block; the format's ``values`` hook
  (:func:`dequantize`) computes the values through the ``gguf`` package
  (``gguf.quants.dequantize``, optional extra ``[gguf]``), a bounded, budget-checked copy.
  ``dtype="uint8"`` over the entry's offset and length shows the raw blocks.

Reading: the header is parsed here through :class:`~core.formats.reader.HeaderReader`, in
chunks (bounded by ``HEADER_LIMIT``; ``pread`` copies, never the map, so a file cut meanwhile
is "changed on disk"); every count and string length is checked against the bytes left in the
file before anything is allocated or looped over, so every walk is bounded by the file's size.
At most :func:`~core.formats.reader.entry_limit` tensors are kept (the memory budget); the
infos after them are walked, not kept, and counted in a problem ("N more tensors not listed"). The ``gguf`` package's
``GGUFReader`` was not used for listing: it opens the file itself (a second ``np.memmap``,
outside our one read-only source), decodes every key/value array into numpy objects (a
150,000-token vocabulary on each listing) and trusts the header's counts.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import struct

import numpy as np

from core.budget import check_copy_budget
from core.errors import ContainerError, CoreError
from core.files.locations import folder_of, join
from core.files.sources import FileSource, open_source
from core.formats.entry import ContainerFormat, ContainerListing, EntryValues, Storage, TensorEntry
from core.formats.reader import HeaderReader, entry_limit, not_listed
from core.text.names import printable_name

__all__ = ["FORMAT", "GGML_TYPES", "dequantize", "gguf_values", "list_gguf", "sniff"]

#: ggml type code -> (name, values per block, bytes per block, engine type or None when the
#: data is quantized blocks). From ggml.h / gguf-py ``GGML_QUANT_SIZES``.
GGML_TYPES: dict[int, tuple[str, int, int, str | None]] = {
    0: ("F32", 1, 4, "float32"), 1: ("F16", 1, 2, "float16"), 2: ("Q4_0", 32, 18, None),
    3: ("Q4_1", 32, 20, None), 6: ("Q5_0", 32, 22, None), 7: ("Q5_1", 32, 24, None),
    8: ("Q8_0", 32, 34, None), 9: ("Q8_1", 32, 40, None), 10: ("Q2_K", 256, 84, None),
    11: ("Q3_K", 256, 110, None), 12: ("Q4_K", 256, 144, None), 13: ("Q5_K", 256, 176, None),
    14: ("Q6_K", 256, 210, None), 15: ("Q8_K", 256, 292, None), 16: ("IQ2_XXS", 256, 66, None),
    17: ("IQ2_XS", 256, 74, None), 18: ("IQ3_XXS", 256, 98, None), 19: ("IQ1_S", 256, 50, None),
    20: ("IQ4_NL", 32, 18, None), 21: ("IQ3_S", 256, 110, None), 22: ("IQ2_S", 256, 82, None),
    23: ("IQ4_XS", 256, 136, None), 24: ("I8", 1, 1, "int8"), 25: ("I16", 1, 2, "int16"),
    26: ("I32", 1, 4, "int32"), 27: ("I64", 1, 8, "int64"), 28: ("F64", 1, 8, "float64"),
    29: ("IQ1_M", 256, 56, None), 30: ("BF16", 1, 2, "bfloat16"), 34: ("TQ1_0", 256, 54, None),
    35: ("TQ2_0", 256, 66, None), 39: ("MXFP4", 32, 17, None),
}
_BLOCK_OF = {name: (code, block) for code, (name, block, _, _) in GGML_TYPES.items()}
_MAX_DIMS = 4          # GGML_MAX_DIMS
_MAX_NESTING = 4       # arrays of arrays of ... in key/values
_CHUNK = 1 << 20
_DEFAULT_ALIGNMENT = 32
# GGUF value types: code -> (struct code, bytes) for fixed-width scalars.
_SCALARS = {0: ("B", 1), 1: ("b", 1), 2: ("H", 2), 3: ("h", 2), 4: ("I", 4), 5: ("i", 4),
            6: ("f", 4), 7: ("?", 1), 10: ("Q", 8), 11: ("q", 8), 12: ("d", 8)}
_STRING, _ARRAY = 8, 9
_FIX = "a corrupt header, or not a GGUF file: open it as raw bytes with an explicit offset and dtype"
_VALUE_NAMES = {0: "uint8", 1: "int8", 2: "uint16", 3: "int16", 4: "uint32", 5: "int32",
                6: "float32", 7: "bool", 8: "string", 9: "array", 10: "uint64", 11: "int64",
                12: "float64"}


def sniff(head: bytes, size: int) -> bool:
    """The magic ``GGUF`` at byte 0."""
    return size >= 24 and head[:4] == b"GGUF"


class _Cursor:
    """Sequential header reads through a HeaderReader, a chunk at a time."""

    def __init__(self, reader: HeaderReader, order: str) -> None:
        self.reader, self.order = reader, order
        self.pos = 0
        self._buffer = b""
        self._start = 0

    @property
    def left(self) -> int:
        return self.reader.size - self.pos

    def take(self, nbytes: int, what: str) -> bytes:
        end = self._start + len(self._buffer)
        if self.pos < self._start or self.pos + nbytes > end:
            want = min(max(nbytes, _CHUNK), max(self.left, 0))
            if nbytes > self.left:  # a truncated header: reader.read names the byte
                self.reader.read(self.pos, nbytes, what)
            self._buffer, self._start = self.reader.read(self.pos, want, what), self.pos
        begin = self.pos - self._start
        self.pos += nbytes
        return self._buffer[begin:begin + nbytes]

    def number(self, code: str, what: str) -> int | float:
        size = struct.calcsize(code)
        return struct.unpack(self.order + code, self.take(size, what))[0]

    def string(self, what: str) -> str:
        start = self.pos
        length = self.number("Q", what)
        if length > self.left:
            raise self.reader.error(f"{what} claims {length} bytes, more than the {self.left} left "
                                    "in the file", start, _FIX)
        return self.take(length, what).decode("utf-8", errors="replace")


    def _refill(self, nbytes: int, what: str) -> None:
        """Make the buffer start at ``pos`` and hold at least ``nbytes`` bytes."""
        if nbytes > self.left:  # a truncated header: reader.read names the byte
            self.reader.read(self.pos, nbytes, what)
        want = min(max(nbytes, _CHUNK), self.left)
        self._buffer, self._start = self.reader.read(self.pos, want, what), self.pos

    def strings(self, count: int, what: str, keep: int) -> list[str]:
        """Walk ``count`` strings (a vocabulary: hundreds of thousands); return the first ``keep``.

        A tight loop over the chunk buffer: each length is checked against the bytes left in
        the file; the strings after the first ``keep`` are skipped, not decoded.
        """
        kept = [self.string(f"{what}[{i}]") for i in range(min(keep, count))]
        length_of = struct.Struct(self.order + "Q").unpack_from
        size = self.reader.size
        buffer, base, pos = self._buffer, self._start, self.pos
        end = base + len(buffer)
        for i in range(len(kept), count):
            if pos + 8 > end or pos < base:
                self.pos = pos
                self._refill(8, f"{what}[{i}] length")
                buffer, base = self._buffer, self._start
                end = base + len(buffer)
            (length,) = length_of(buffer, pos - base)
            pos += 8
            if length > size - pos:
                raise self.reader.error(f"{what}[{i}] claims {length} bytes, more than the "
                                        f"{size - pos} left in the file", pos - 8, _FIX)
            pos += length
        self.pos = pos
        return kept


def _value(cursor: _Cursor, kind: int, what: str, depth: int = 0) -> object:
    """One key/value value; arrays are skipped, summarised as text (bounded work)."""
    if kind in _SCALARS:
        return cursor.number(_SCALARS[kind][0], what)
    if kind == _STRING:
        return cursor.string(what)
    if kind != _ARRAY:
        raise cursor.reader.error(f"{what} has unknown value type {kind}", cursor.pos - 4, _FIX)
    start = cursor.pos
    item_kind = cursor.number("I", what)
    count = cursor.number("Q", what)
    smallest = _SCALARS[item_kind][1] if item_kind in _SCALARS else 8 if item_kind in (_STRING, _ARRAY) else 1
    if count * smallest > cursor.left:
        raise cursor.reader.error(f"{what} claims an array of {count} values, more than the "
                                  f"{cursor.left} bytes left in the file", start, _FIX)
    if depth >= _MAX_NESTING and item_kind == _ARRAY:
        raise cursor.reader.error(f"{what} nests arrays more than {_MAX_NESTING} deep", start, _FIX)
    type_name = _VALUE_NAMES.get(item_kind, f"type {item_kind}")
    if item_kind in _SCALARS:
        width = _SCALARS[item_kind][1]
        raw = cursor.take(count * width, what)
        if count <= 8:
            values = struct.unpack(f"{cursor.order}{count}{_SCALARS[item_kind][0]}", raw)
            return "[" + ", ".join(str(v) for v in values) + "]"
        return f"[{count} x {type_name}]"
    if item_kind == _STRING:
        shown = [repr(text) for text in cursor.strings(count, what, keep=4)]
        return "[" + ", ".join(shown) + "]" if count <= 4 else \
            f"[{count} x {type_name}: {', '.join(shown)}, ...]"
    shown = []
    for i in range(count):
        value = _value(cursor, item_kind, f"{what}[{i}]", depth + 1)
        if i < 4:
            shown.append(repr(value) if isinstance(value, str) else str(value))
    if count <= 4:
        return "[" + ", ".join(shown) + "]"
    return f"[{count} x {type_name}: {', '.join(shown)}, ...]"


def list_gguf(reader: HeaderReader, split_set: bool = True) -> ContainerListing:
    """List a GGUF file's tensors (see the module docstring for the rules); with ``split_set``,
    a split of a split model lists every split's tensors.

    Raises
    ------
    ContainerError
        The header cannot be read: unknown version, truncated, or a count or length larger
        than the file (message names the structure and the byte). A tensor whose data lies
        outside the file, or of an unknown type, is listed with a ``problem``.
    """
    head = reader.read(0, 24, "GGUF header")
    version = struct.unpack_from("<I", head, 4)[0]
    order = "<"
    if version not in (2, 3) and struct.unpack_from(">I", head, 4)[0] in (2, 3):
        order = ">"
        version = struct.unpack_from(">I", head, 4)[0]
    if version not in (2, 3):
        raise reader.error(f"GGUF version {version} is not supported (versions 2 and 3 are)", 4,
                           "convert it with a current llama.cpp, or open it as raw bytes")
    cursor = _Cursor(reader, order)
    cursor.pos = 8
    tensor_count = cursor.number("Q", "the tensor count")
    kv_count = cursor.number("Q", "the key/value count")
    if kv_count * 13 > cursor.left:  # a key/value takes at least 8 + 4 + 1 bytes
        raise reader.error(f"the header claims {kv_count} key/values, more than the file can "
                           "hold", 16, _FIX)
    metadata: dict[str, str] = {"version": str(version),
                                "byte order": "little-endian" if order == "<" else "big-endian"}
    alignment = _DEFAULT_ALIGNMENT
    for index in range(kv_count):
        start = cursor.pos
        key = cursor.string(f"key/value {index} key")
        kind = cursor.number("I", f"key/value '{key}' type")
        value = _value(cursor, kind, f"key/value '{key}'")
        if key == "general.alignment":
            if not isinstance(value, int) or value <= 0 or value & (value - 1):
                raise reader.error(f"general.alignment is {value!r}, not a power of two", start, _FIX)
            alignment = value
        text = str(value)
        metadata[key] = text if len(text) <= 200 else text[:200] + "..."
    if tensor_count * 24 > cursor.left:  # a tensor info takes at least 8 + 4 + 4 + 8 bytes
        raise reader.error(f"the header claims {tensor_count} tensors, more than the file can "
                           "hold", 8, _FIX)
    infos = []
    limit = entry_limit()  # infos past it are walked (they place the data section), not kept
    for index in range(tensor_count):
        start = cursor.pos
        name = cursor.string(f"tensor {index} name")
        n_dims = cursor.number("I", f"tensor '{name}' dims")
        if n_dims > _MAX_DIMS:
            raise reader.error(f"tensor '{name}' has {n_dims} dims (GGUF allows {_MAX_DIMS})", start, _FIX)
        dims = tuple(cursor.number("Q", f"tensor '{name}' dims") for _ in range(n_dims))
        code = cursor.number("I", f"tensor '{name}' type")
        offset = cursor.number("Q", f"tensor '{name}' offset")
        if index < limit:
            infos.append((name, dims, code, offset, start))
    data_start = -(-cursor.pos // alignment) * alignment
    metadata["data section"] = f"from byte {data_start} (alignment {alignment})"
    entries = tuple(_entry(reader, order, data_start, *info) for info in infos)
    problems = (not_listed(tensor_count - len(infos), "tensors"),) if tensor_count > len(infos) else ()
    listing = ContainerListing("gguf", reader.path, entries, metadata, problems)
    return _with_split_set(listing) if split_set else listing


_SPLIT_NAME = re.compile(r"-(\d{5})-of-(\d{5})\.gguf$")


def _with_split_set(listing: ContainerListing) -> ContainerListing:
    """The listing of one split of a split model (``NAME-0000k-of-0000n.gguf`` whose
    ``split.count`` is n > 1) joined with its sibling splits' tensors, in split order; each
    sibling's entries name their file. A missing or damaged sibling is a problem."""
    name = os.path.basename(listing.path)
    match = _SPLIT_NAME.search(name)
    count = listing.metadata.get("split.count", "")
    if match is None or not count.isdigit() or int(count) != int(match[2]) or int(count) < 2:
        return listing
    total = int(count)
    prefix, folder = name[:match.start()], folder_of(listing.path)
    entries: list[TensorEntry] = []
    problems = list(listing.problems)
    for number in range(1, min(total, MAX_SPLITS) + 1):
        split = f"{prefix}-{number:05d}-of-{total:05d}.gguf"
        if split == name:
            entries.extend(listing.entries)
            continue
        path = join(folder, split)
        try:
            with open_source(path) as source:
                part = list_gguf(HeaderReader(source, 0, "gguf"), split_set=False)
        except CoreError as error:
            problems.append(f"split {number} of {total} ('{printable_name(split)}') is not listed: "
                            f"{error.message}")
            continue
        entries.extend(dataclasses.replace(entry, file=split) for entry in part.entries)
        problems.extend(part.problems)
    if total > MAX_SPLITS:
        problems.append(f"only the first {MAX_SPLITS} of {total} splits are listed")
    metadata = dict(listing.metadata, **{"split set": f"{total} files, {prefix}-0000k-of-{total:05d}.gguf: "
                                                      "every split's tensors are listed"})
    return ContainerListing("gguf", listing.path, tuple(entries), metadata, tuple(problems))


#: Most splits of one split model listed together.
MAX_SPLITS = 1000


def _entry(reader: HeaderReader, order: str, data_start: int, name: str, dims: tuple[int, ...],
           code: int, relative: int, info_at: int) -> TensorEntry:
    shape = tuple(reversed(dims))  # GGUF: innermost first; C order: innermost last
    count = math.prod(shape)
    offset = data_start + relative
    extras: dict[str, object] = {"ggml dims (innermost first)": dims, "tensor info at byte": info_at}
    little = order == "<"
    known = GGML_TYPES.get(code)
    if known is None:
        return TensorEntry(name=name, dtype=None, little_endian=little, shape=shape, offset=offset,
                           nbytes=0, stored_type=f"ggml type {code}", extras=extras,
                           problem=f"tensor '{name}' has ggml type {code}, unknown to this version "
                           "(open its bytes with dtype uint8 and an explicit offset)")
    type_name, block, type_size, dtype = known
    problem = None
    if dims and dims[0] % block:
        problem = (f"tensor '{name}' ({type_name}) has {dims[0]} values per row, not a multiple "
                   f"of its block of {block}: a corrupt tensor info")
    nbytes = count // block * type_size
    storage = Storage.VIEW
    if dtype is None:  # blocks: float32 values computed by dequantize
        extras.update({"quantization": type_name, "block": f"{block} values in {type_size} bytes"})
        dtype, little, storage = "float32", True, Storage.COMPUTED
    if offset + nbytes > reader.size:
        problem = (f"tensor '{name}' data ({nbytes} bytes from byte {offset}) reaches past the end "
                   f"of the file ({reader.size} bytes): a truncated file")
        problem = reader.error(problem, offset).message
    return TensorEntry(name=name, dtype=dtype, little_endian=little, shape=shape, offset=offset,
                       nbytes=nbytes, stored_type=type_name, extras=extras, problem=problem,
                       storage=storage)


def dequantize(source: FileSource, entry: TensorEntry, index: int = 0) -> np.ndarray:
    """The float32 values of a quantized GGUF tensor, in C order (a copy).

    The raw blocks are read through the source (a bounded copy of ``entry.nbytes``) and
    dequantized by ``gguf.quants.dequantize`` (llama.cpp's reference Python implementation).

    Parameters
    ----------
    source
        The open GGUF file (file ``index``).
    entry
        A quantized entry of :func:`list_gguf` (``extras["quantization"]`` set).

    Raises
    ------
    ContainerError
        The entry is not a quantized GGUF tensor, or the ``gguf`` package is missing.
    BudgetError
        The blocks plus the float32 values would exceed the memory budget.
    """
    quant = entry.extras.get("quantization")
    if quant is None or entry.storage is not Storage.COMPUTED or entry.problem is not None:
        raise ContainerError(
            f"'{entry.name}' is not a quantized GGUF tensor" +
            (f" ({entry.problem})" if entry.problem else " (open it directly: its values are stored as they are)"),
            field="tensor")
    try:
        from gguf.constants import GGMLQuantizationType
        from gguf.quants import dequantize as gguf_dequantize
    except ImportError:
        raise ContainerError(
            f"dequantizing '{entry.name}' ({quant}) needs the gguf package (pip install "
            "'tensor-inspector[gguf]'); meanwhile --dtype uint8 shows its raw blocks",
            field="tensor") from None
    values_shape = entry.shape
    block = int(_BLOCK_OF.get(str(quant), (0, 1))[1])
    where = f"the gguf file '{printable_name(source.paths[index])}', tensor '{entry.name}' ({quant})"
    if not values_shape or values_shape[-1] % block or math.prod(values_shape) == 0:
        raise ContainerError(
            f"{where}: its shape {values_shape} has no whole blocks of {block} values to "
            "dequantize (a 0-d or empty quantized tensor is a corrupt tensor info; look at its "
            "bytes with dtype uint8)", field="tensor")
    check_copy_budget(entry.nbytes + math.prod(values_shape) * 4,
                      f"dequantizing '{entry.name}' ({quant}) to float32",
                      "dequantize a smaller tensor", field="tensor")
    if entry.offset + entry.nbytes > source.file_size(index):
        raise ContainerError(
            f"the gguf file '{printable_name(source.paths[index])}' at byte {entry.offset}: tensor "
            f"'{entry.name}' needs {entry.nbytes} bytes past the end of the file (the file is "
            "truncated)", field="tensor")
    # read_exact: pread, never the map; a file cut meanwhile is "changed on disk".
    raw = np.frombuffer(source.read_exact(index, entry.offset, entry.nbytes, f"tensor '{entry.name}'"),
                        dtype=np.uint8)
    blocks = raw.reshape(values_shape[:-1] + (-1,))  # one row of blocks per row
    try:
        values = gguf_dequantize(blocks, GGMLQuantizationType[str(quant)])
        return np.asarray(values, dtype=np.float32).reshape(values_shape)
    except (ValueError, KeyError, NotImplementedError, MemoryError) as error:
        raise ContainerError(f"{where}: the gguf package could not dequantize it ({str(error)[:160]}); "
                             "look at its bytes with dtype uint8", field="tensor") from None


def gguf_values(source: FileSource, entry: TensorEntry) -> EntryValues:
    """The format's ``values`` hook: a quantized tensor's :func:`dequantize`."""
    array = dequantize(source, entry)
    quant = entry.extras["quantization"]
    return EntryValues(array, f"{quant}, dequantized",
                       f"'{entry.name}' ({quant}) dequantized to float32 by the gguf package: a copy of "
                       f"{array.nbytes} bytes; its values are computed, not stored at a file offset")


FORMAT = ContainerFormat("gguf", sniff, list_gguf, gguf_values)
