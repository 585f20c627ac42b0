"""safetensors files: an 8-byte header length, a JSON header, then the tensors' bytes.

Layout (https://github.com/huggingface/safetensors, "Format"): ``N`` as a little-endian
``uint64``; ``N`` bytes of UTF-8 JSON starting with ``{``, mapping each tensor name to
``{"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}`` and an optional
``"__metadata__"`` (str -> str); then the data area. ``begin``/``end`` count from the start of
the data area (byte ``8 + N``), so a tensor's first byte in the file is ``8 + N + begin``.
Elements are little-endian and the shape is in C order, as stored.

The header is parsed here with :mod:`json` rather than with the ``safetensors`` package: its
``safe_open`` gives tensors and metadata but exposes no byte offsets, and we need exactly those
(the data itself is never read). A hostile header is checked as the reference implementation
checks it: the header length against the file size and :data:`HEADER_LIMIT` (100,000,000 bytes,
the reference reader's limit; a lying length is a :class:`~core.errors.ContainerError`), the
memory the parse needs (about :data:`PARSE_FACTOR` bytes per header byte) against the copy
budget before parsing, and at most :func:`~core.formats.reader.entry_limit` entries are kept
(the rest counted in a problem); per tensor, a known dtype, a shape of
non-negative integers, offsets inside the data area and a byte count equal to the shape times
the item size (otherwise that entry is listed with a problem and the others stay usable);
overlapping tensors are reported in the listing's problems.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import json
import math
import struct

try:  # optional: a faster parse of the same JSON (see _parse)
    import orjson as _orjson
except ImportError:  # pragma: no cover - depends on the environment
    _orjson = None

from core.budget import check_copy_budget
from core.formats.entry import ContainerFormat, ContainerListing, TensorEntry
from core.formats.reader import HeaderReader, entry_limit, not_listed
from core.formats.shard_names import shard_set_note

#: The largest header accepted: safetensors' own ``MAX_HEADER_SIZE`` (100,000,000 bytes).
HEADER_LIMIT = 100_000_000
#: Memory of a parsed header and its entries per header byte (measured: 12 bytes per byte for
#: a checkpoint of 600,000 small tensors): checked against the copy budget before parsing.
PARSE_FACTOR = 12

__all__ = ["FORMAT", "DTYPES", "UNDECODABLE", "list_safetensors", "sniff_safetensors"]

#: safetensors dtype -> (engine type, item size in bytes).
DTYPES: dict[str, tuple[str, int]] = {
    "F64": ("float64", 8), "F32": ("float32", 4), "F16": ("float16", 2), "BF16": ("bfloat16", 2),
    "I64": ("int64", 8), "I32": ("int32", 4), "I16": ("int16", 2), "I8": ("int8", 1),
    "U64": ("uint64", 8), "U32": ("uint32", 4), "U16": ("uint16", 2), "U8": ("uint8", 1),
    "BOOL": ("bool", 1), "C64": ("complex64", 8),
    # float8, beyond TF (docs/semantics.md §2a): safetensors' F8_E4M3 is PyTorch's
    # float8_e4m3fn (no infinities), F8_E8M0 its float8_e8m0fnu.
    "F8_E4M3": ("float8_e4m3fn", 1), "F8_E5M2": ("float8_e5m2", 1),
    "F8_E4M3FNUZ": ("float8_e4m3fnuz", 1), "F8_E5M2FNUZ": ("float8_e5m2fnuz", 1),
    "F8_E8M0": ("float8_e8m0fnu", 1),
}
#: safetensors dtypes the engine has no type for yet -> bits per element (for the byte count).
UNDECODABLE: dict[str, int] = {
    "F6_E2M3": 6, "F6_E3M2": 6, "F4": 4,
}


def sniff_safetensors(head: bytes, size: int) -> bool:
    """A header length, then JSON starting with ``{"`` or ``{}`` (whitespace allowed after ``{``)."""
    if len(head) < 10 or size < 10:
        return False
    (length,) = struct.unpack("<Q", head[:8])
    return length >= 2 and head[8:9] == b"{" and head[9:10] in (b'"', b"}", b" ", b"\n")


def list_safetensors(reader: HeaderReader) -> ContainerListing:
    """List the tensors of a safetensors file (reads only its header).

    Raises
    ------
    ContainerError
        The header length reaches past the end of the file or beyond the header limit, or the
        header is not a JSON object of the expected form.
    """
    (length,) = struct.unpack("<Q", reader.read(0, 8, "header length"))
    if length > HEADER_LIMIT:
        raise reader.error(
            f"the header length says {length} bytes, more than the {HEADER_LIMIT:,} bytes a "
            "header may have", 0,
            "the file is corrupt or not safetensors; open it as raw bytes with an explicit offset")
    reader.limit = max(reader.limit, 8 + length)
    check_copy_budget(length * PARSE_FACTOR, f"parsing the {length:,}-byte safetensors header",
                      "open a tensor by its offset as raw bytes", field="files")
    if 8 + length > reader.size:
        raise reader.error(
            f"the header length says {length} bytes but only {reader.size - 8} follow it", 0,
            "the file is truncated or corrupt; open it as raw bytes with an explicit offset")
    text = reader.read(8, length, "JSON header")
    with _collector_paused():  # millions of new containers: no cyclic GC pass every 700 of them
        return _listing(reader, text, length)


@contextlib.contextmanager
def _collector_paused():
    """Pause Python's cyclic garbage collector while the header's objects are built (they form
    no cycles; its passes over millions of new dicts and entries took half of the listing)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _listing(reader: HeaderReader, text: bytes, length: int) -> ContainerListing:
    try:
        header = _parse(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise reader.error(f"the header is not valid UTF-8 JSON ({_short(error)})", 8,
                           "the file is corrupt") from None
    if not isinstance(header, dict):
        raise reader.error("the header is not a JSON object", 8, "the file is corrupt")
    data_start = 8 + length
    data_size = reader.size - data_start
    metadata: dict[str, str] = {}
    raw_metadata = header.pop("__metadata__", None)
    if isinstance(raw_metadata, dict):
        metadata = {str(k): str(v) for k, v in raw_metadata.items()}
    elif raw_metadata is not None:
        metadata = {"__metadata__": str(raw_metadata)[:200]}
    limit = entry_limit()
    problems = []
    if len(header) > limit:
        problems.append(not_listed(len(header) - limit, "tensors"))
        header = dict(itertools.islice(header.items(), limit))
    entries = _entries(header, data_start, data_size)
    del header
    metadata.update(shard_set_note(reader.path))
    return ContainerListing("safetensors", reader.path, tuple(entries), metadata,
                            tuple(_overlaps(entries, data_start)) + tuple(problems))


def _entries(header: dict, data_start: int, data_size: int) -> list[TensorEntry]:
    """The entries of a parsed header (emptied on the way: peak memory is the larger of the
    two, not their sum): the common case (a known dtype, a list of at most 64
    non-negative ints, offsets that fit exactly) in one tight loop with no call per check,
    anything else through :func:`_checked_entry` (a million tensors list in seconds)."""
    entries = []
    append, known_types, entry, checked = entries.append, DTYPES, TensorEntry, _checked_entry
    prod, int_type, list_type, dict_type, str_type = math.prod, int, list, dict, str
    pop = header.popitem  # last first, freeing each tensor's dict as its entry is made
    while header:
        name, info = pop()
        if type(info) is dict_type:
            stored = info.get("dtype")
            shape = info.get("shape")
            offsets = info.get("data_offsets")
            known = known_types.get(stored) if type(stored) is str_type else None
            if (known is not None and type(shape) is list_type and len(shape) <= 64
                    and type(offsets) is list_type and len(offsets) == 2):
                begin, end = offsets
                if (type(begin) is int_type and type(end) is int_type and 0 <= begin <= end <= data_size
                        and (not shape or (set(map(type, shape)) == {int_type} and min(shape) >= 0))):
                    shape_t = tuple(shape)
                    if prod(shape_t) * known[1] == end - begin:
                        append(entry(name, known[0], True, shape_t, data_start + begin, end - begin, stored))
                        continue
        append(checked(name, info, data_start, data_size))
    entries.reverse()  # the header's order
    return entries


def _parse(text: bytes) -> object:
    """The header's JSON: with ``orjson`` when installed (optional extra ``[fast]``: several
    times faster on a million-tensor header), falling back to :mod:`json` for anything orjson
    refuses (integers beyond 64 bits, NaN...), so what is accepted and its messages stay
    :mod:`json`'s."""
    if _orjson is not None:
        try:
            return _orjson.loads(text)
        except _orjson.JSONDecodeError:
            pass
    return json.loads(text.decode("utf-8"))


def _broken(name: str, problem: str, data_start: int, stored: str = "",
            shape: tuple[int, ...] = (), begin: int = 0, nbytes: int = 0) -> TensorEntry:
    return TensorEntry(name, None, True, shape, data_start + begin, nbytes, stored,
                       problem=f"safetensors tensor {name!r}: {problem}")


def _is_count(value: object) -> bool:
    return type(value) is int and value >= 0  # not bool, not float


def _entry(name: str, info: object, data_start: int, data_size: int) -> TensorEntry:
    """One tensor's entry; a malformed one carries its problem (byte offsets in the file)."""
    # The common case first, in as few steps as possible (checkpoints list 10,000s of tensors):
    # a dict with a known dtype, a short list of non-negative ints, offsets that fit exactly.
    if type(info) is dict:
        stored, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
        known = DTYPES.get(stored) if type(stored) is str else None
        if (known is not None and type(shape) is list and len(shape) <= 64
                and type(offsets) is list and len(offsets) == 2):
            begin, end = offsets
            if (type(begin) is int and type(end) is int and 0 <= begin <= end <= data_size
                    and all(type(n) is int and n >= 0 for n in shape)):
                shape_t = tuple(shape)
                nbytes = end - begin
                if math.prod(shape_t) * known[1] == nbytes:
                    return TensorEntry(name, known[0], True, shape_t, data_start + begin, nbytes, stored)
    return _checked_entry(name, info, data_start, data_size)


def _checked_entry(name: str, info: object, data_start: int, data_size: int) -> TensorEntry:
    """:func:`_entry` step by step, naming the first thing wrong (or an undecodable type)."""
    if not isinstance(info, dict):
        return _broken(name, "its header entry is not a JSON object (the file is corrupt)",
                       data_start)
    stored = info.get("dtype")
    shape = info.get("shape")
    offsets = info.get("data_offsets")
    if not isinstance(stored, str):
        return _broken(name, f"its dtype {str(stored)[:40]} is not a name (the file is corrupt)",
                       data_start)
    if not (isinstance(shape, list) and len(shape) <= 64 and all(map(_is_count, shape))):
        return _broken(name, f"its shape {str(shape)[:80]} is not a list of non-negative "
                       "integers (the file is corrupt)", data_start, stored)
    shape_t = tuple(shape)
    if not (isinstance(offsets, list) and len(offsets) == 2
            and type(offsets[0]) is int and type(offsets[1]) is int):
        return _broken(name, f"its data_offsets {str(offsets)[:80]} are not two integers "
                       "(the file is corrupt)", data_start, stored, shape_t)
    begin, end = offsets
    if not 0 <= begin <= end <= data_size:
        return _broken(name, f"its data_offsets [{begin}, {end}] are outside the data area (bytes "
                       f"0 to {data_size} after the header, i.e. file bytes {data_start} to "
                       f"{data_start + data_size}) (the file is truncated or corrupt)",
                       data_start, stored, shape_t)
    nbytes = end - begin
    count = math.prod(shape_t)
    known = DTYPES.get(stored)
    if known is not None:
        dtype, itemsize = known
        expected = count * itemsize
    elif stored in UNDECODABLE:
        dtype, expected = None, -(-count * UNDECODABLE[stored] // 8)
    else:
        return _broken(name, f"its dtype {stored[:40]!r} is not a safetensors type the engine "
                       "knows (open its bytes with --offset and --length and an explicit --dtype)",
                       data_start, stored, shape_t, begin, nbytes)
    if expected != nbytes:
        return _broken(name, f"its shape {shape_t} of {stored} needs {expected} bytes but its "
                       f"data_offsets [{begin}, {end}] hold {nbytes} (the file is corrupt)",
                       data_start, stored, shape_t, begin, nbytes)
    if dtype is None:
        return _broken(name, f"{stored} is not decodable yet (no engine type for it); look at its "
                       f"bytes with --tensor {name!r} --dtype uint8", data_start, stored, shape_t,
                       begin, nbytes)
    return TensorEntry(name, dtype, True, shape_t, data_start + begin, nbytes, stored)


def _overlaps(entries: list[TensorEntry], data_start: int) -> list[str]:
    """One problem per pair of tensors whose byte ranges overlap (sorted by start)."""
    spans = [(e.offset, e.offset + e.nbytes, e.name) for e in entries if e.nbytes]
    if all(spans[i][1] <= spans[i + 1][0] for i in range(len(spans) - 1)):
        return []  # laid out one after another, as the writer does: nothing can overlap
    spans.sort()
    problems = []
    reach, holder = data_start, None
    for start, end, name in spans:
        if holder is not None and start < reach:
            problems.append(f"safetensors tensors {holder!r} and {name!r} overlap at byte {start} "
                            "(the file is corrupt or hand-made; each shows its own bytes)")
        if end > reach:
            reach, holder = end, name
    return problems[:100]


def _short(error: Exception) -> str:
    return str(error)[:120]


FORMAT = ContainerFormat("safetensors", sniff_safetensors, list_safetensors)
