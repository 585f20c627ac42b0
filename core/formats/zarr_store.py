"""Zarr stores on local disk (Zarr v2 and v3): every array of the store as an entry.

A Zarr store is a folder: metadata documents (JSON) and one file per chunk. Rules, as read here:

- **Addressed by its folder or a metadata file** (:func:`store_metadata_file`): a folder holding
  ``zarr.json`` (v3), ``.zmetadata`` (v2 consolidated), ``.zarray`` or ``.zgroup`` (v2) is opened
  as that file, in this order; a metadata file can be opened itself (``x.zarr/.zarray``,
  ``x.zarr/sub/zarr.json``: that node is the store's root). The folder of the file opened is the
  store's root; a chunk file opened by itself is raw bytes.
- **Sniffed from content**: a JSON object whose first 4096 bytes hold the key ``"zarr_format"``
  or ``"zarr_consolidated_format"``.
- **The arrays**: a root array is the one entry ``/``; a group lists every array below it by its
  path (``sub/x``), in path order. Where they come from: consolidated metadata (v2 ``.zmetadata``,
  v3 ``consolidated_metadata`` inside the root ``zarr.json``) when the file opened has it, else a
  walk of the folders (v2: a folder with ``.zarray`` or ``.zgroup``; v3: with ``zarr.json``; an
  array's folder is not entered, links to folders are not followed), at most
  :data:`MAX_DEPTH` deep and :data:`MAX_SCANNED` folder entries in all. Every metadata file is
  read capped (:data:`MAX_METADATA_BYTES`) through :mod:`core.files.checked_read`; the documents
  read add up to at most the listing's 64 MiB.
- **A view** when the array is ONE uncompressed chunk: v2 without compressor and filters, order
  ``C``; v3 whose only codec is ``bytes``. The entry is that chunk file (``file``, offset 0),
  with the dtype's byte order and the array's shape. Zarr stores an edge chunk full size, so
  the chunk file must hold exactly ``prod(chunks) * itemsize`` bytes; an array smaller than its
  chunk is the chunk's first values (the leading axis only) or a strided view of them (element
  strides of the chunk's C order).
- **A copy** otherwise (compressed chunks, several chunks, ``F`` order, filters, a chunk not
  written, whose values are the fill value): the format's values hook (:func:`zarr_values`)
  reads it with the optional ``zarr`` package (``pip install 'tensor-inspector[zarr]'``), after
  checking the copy budget for the values, for one chunk, and for the chunk bytes read, and at
  most :data:`MAX_CHUNKS` chunks. zarr never sees the folder: the chunk files are read here
  (checked reads, never a FIFO or device), each compressed chunk's decoded size is bounded
  before zarr decodes it (a decompression bomb is refused: :func:`_check_decoded_size`), and
  zarr reads them from memory (read-only).
- **Refused, each with its reason on the entry** (the other arrays stay usable): a shape or
  chunk shape that is not whole numbers (negative, booleans, more than 32 dimensions, chunks of
  0), a type the engine has no name for (strings, datetimes, structured types; object arrays are
  never read: their chunks are Python objects), a compressor, filter or codec not in
  :data:`V2_COMPRESSORS` / :data:`V2_FILTERS` / :data:`V3_CODECS` (nothing from the store is
  ever imported or run), sharding (``sharding_indexed``), a chunk grid other than ``regular``,
  storage transformers, a chunk key separator other than ``.`` or ``/``, an array name that is
  not a relative path inside the store (``..``, absolute, empty parts, backslashes), and a one-
  chunk array whose chunk file has another size than the metadata says.
"""

from __future__ import annotations

import json
import math
import os
import stat
import struct
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from core.budget import check_copy_budget
from core.errors import ContainerError, CoreError, SourceError
from core.files.checked_read import read_capped
from core.files.sources import Source
from core.formats import listing_control
from core.formats.entry import ContainerFormat, ContainerListing, EntryValues, Storage, TensorEntry
from core.formats.reader import HEADER_LIMIT, HeaderReader, entry_limit, not_listed
from core.text.names import printable_name

__all__ = ["FORMAT", "MAX_CHUNKS", "METADATA_FILES", "V2_COMPRESSORS", "V2_FILTERS", "V3_CODECS",
           "list_zarr", "sniff_zarr", "store_metadata_file", "zarr_values"]

#: The metadata files a store's folder is opened as, first found first.
METADATA_FILES = ("zarr.json", ".zmetadata", ".zarray", ".zgroup")
#: Largest metadata document read (one ``.zarray``, ``zarr.json`` or ``.zmetadata``).
MAX_METADATA_BYTES = 16 * 1024 * 1024
#: Deepest group nesting walked.
MAX_DEPTH = 64
#: Most folder entries looked at by one walk.
MAX_SCANNED = 1_000_000
#: Most chunks one copy reads.
MAX_CHUNKS = 1_048_576
#: Most dimensions of an array.
MAX_DIMS = 32
_INSTALL = "pip install 'tensor-inspector[zarr]' (or pip install zarr)"

#: v2 compressors read (numcodecs ids).
V2_COMPRESSORS = ("blosc", "zstd", "lz4", "zlib", "gzip", "bz2", "lzma")
#: v2 filters read (numcodecs ids: numeric transforms only; never pickle, msgpack, JSON, vlen).
V2_FILTERS = ("delta", "fixedscaleoffset", "quantize", "bitround", "shuffle")
#: v3 codecs read: array -> array, array -> bytes, bytes -> bytes (zarr's names, and numcodecs'
#: compressors under ``numcodecs.<id>``).
V3_CODECS = ("transpose", "bytes", "gzip", "zstd", "blosc", "crc32c") + tuple(
    f"numcodecs.{name}" for name in ("zlib", "gzip", "bz2", "lzma", "lz4", "zstd", "blosc"))
_V3_BYTES_TO_BYTES = {"gzip", "zstd", "blosc", "crc32c"} | {f"numcodecs.{n}" for n in
                                                         ("zlib", "gzip", "bz2", "lzma", "lz4", "zstd", "blosc")}

#: numpy kind + item size (v2 typestr) -> engine type.
_V2_TYPES = {"b1": "bool", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
             "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
             "f2": "float16", "f4": "float32", "f8": "float64", "c8": "complex64", "c16": "complex128"}
#: v3 data type name -> (engine type, item size).
_V3_TYPES = {"bool": ("bool", 1), "int8": ("int8", 1), "int16": ("int16", 2), "int32": ("int32", 4),
             "int64": ("int64", 8), "uint8": ("uint8", 1), "uint16": ("uint16", 2), "uint32": ("uint32", 4),
             "uint64": ("uint64", 8), "float16": ("float16", 2), "float32": ("float32", 4),
             "float64": ("float64", 8), "complex64": ("complex64", 8), "complex128": ("complex128", 16)}
_ITEMSIZE = {name: size for name, size in _V3_TYPES.values()}


# -- addressing and sniffing ----------------------------------------------------------------
def store_metadata_file(path: str) -> str | None:
    """The metadata file a store's folder ``path`` is opened as (module rules), or None when
    ``path`` is not a folder holding one."""
    if not os.path.isdir(path):
        return None
    for name in METADATA_FILES:
        candidate = os.path.join(path, name)
        if os.path.isfile(candidate):
            return candidate
    return None


def sniff_zarr(head: bytes, size: int) -> bool:
    """A JSON object with ``"zarr_format"`` or ``"zarr_consolidated_format"`` in its first bytes."""
    text = head.lstrip(b" \t\r\n")
    return text[:1] == b"{" and (b'"zarr_format"' in head or b'"zarr_consolidated_format"' in head)


# -- metadata --------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Array:
    """One array's metadata, checked (``problem`` None) or refused (``problem`` says why)."""

    path: str              # inside the store, "" for a root array
    zarr_format: int
    doc: dict              # the metadata document (.zarray or zarr.json)
    shape: tuple[int, ...] = ()
    chunks: tuple[int, ...] = ()
    dtype: str | None = None
    little_endian: bool = True
    stored_type: str = ""
    separator: str = "."
    v2_keys: bool = True   # chunk keys "0.0" (v2 rule), else "c/0/0" (v3 default rule)
    plain: bool = False    # one codec chain that stores the values as they are (C order, raw)
    decoders: tuple[str, ...] = ()  # bytes -> bytes codecs in decode order
    codecs_text: str = "none"
    order: str = "C"
    problem: str | None = None
    dimension_names: tuple[str, ...] | None = None

    @property
    def name(self) -> str:
        return self.path or "/"

    @property
    def itemsize(self) -> int:
        return _ITEMSIZE[self.dtype] if self.dtype is not None else 1

    def grid(self) -> tuple[int, ...]:
        return tuple(-(-n // c) for n, c in zip(self.shape, self.chunks))

    def chunk_key(self, coords: tuple[int, ...]) -> str:
        """The chunk's key relative to the array (zarr's two key encodings)."""
        if self.v2_keys:
            return self.separator.join(str(i) for i in coords) if coords else "0"
        return "c" + "".join(self.separator + str(i) for i in coords)


def _whole_list(value: object, what: str, minimum: int) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) > MAX_DIMS:
        raise ValueError(f"its {what} is not a list of at most {MAX_DIMS} whole numbers ({_short(value)})")
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int) or item < minimum or item >= 1 << 62:
            raise ValueError(f"its {what} {_short(value)} has {_short(item)}, not a whole number "
                             f"from {minimum} to 2**62")
    return tuple(value)


def _short(value: object) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return printable_name(text if len(text) <= 80 else text[:77] + "...")


def _codec_name(codec: object, key: str) -> str:
    if not isinstance(codec, dict) or not isinstance(codec.get(key), str):
        raise ValueError(f"it has a codec that is not an object with a {key!r} ({_short(codec)})")
    return codec[key]


def _parse_v2(path: str, doc: dict) -> _Array:
    shape = _whole_list(doc.get("shape"), "shape", 0)
    chunks = _whole_list(doc.get("chunks"), "chunks", 1)
    if len(chunks) != len(shape):
        raise ValueError(f"its chunks {list(chunks)} do not have one size per dimension of its shape {list(shape)}")
    typestr = doc.get("dtype")
    if not isinstance(typestr, str):
        raise _RefusedError(f"its dtype {_short(typestr)} is a structured type, which the engine does not decode",
                       "read it with zarr itself")
    if typestr[1:2] == "O":
        raise _RefusedError("it is an object array (its chunks hold encoded Python objects): never read",
                       "store it as a numeric type")
    engine = _V2_TYPES.get(typestr[1:]) if typestr[:1] in "<>|=" else None
    if engine is None:
        raise _RefusedError(f"its dtype {_short(typestr)} has no engine type (numeric types only: "
                       "bool, int8-64, uint8-64, float16-64, complex64/128)", "read it with zarr itself")
    order = doc.get("order", "C")
    if order not in ("C", "F"):
        raise ValueError(f"its order {_short(order)} is neither \"C\" nor \"F\"")
    separator = doc.get("dimension_separator", ".")
    if separator is None:
        separator = "."
    if separator not in (".", "/"):
        raise ValueError(f"its dimension_separator {_short(separator)} is neither \".\" nor \"/\"")
    compressor = doc.get("compressor")
    names = []
    decoders: tuple[str, ...] = ()
    if compressor is not None:
        cid = _codec_name(compressor, "id")
        if cid not in V2_COMPRESSORS:
            raise _RefusedError(f"its compressor {_short(cid)} is not one this tool reads "
                           f"({', '.join(V2_COMPRESSORS)})", "read it with zarr itself")
        names.append(cid)
        decoders = (cid,)
    filters = doc.get("filters") or []
    if not isinstance(filters, list):
        raise ValueError(f"its filters {_short(filters)} are not a list")
    for item in filters:
        fid = _codec_name(item, "id")
        if fid not in V2_FILTERS:
            raise _RefusedError(f"its filter {_short(fid)} is not one this tool reads ({', '.join(V2_FILTERS)})",
                           "read it with zarr itself")
        names.append(fid)
    little = typestr[0] != ">" if engine not in ("bool", "int8", "uint8") else True
    if typestr[0] == "=":
        little = np.little_endian
    return _Array(path, 2, doc, shape, chunks, engine, little, typestr, separator, True,
                  plain=not names and order == "C", decoders=decoders,
                  codecs_text=", ".join(names) if names else "none", order=order)


def _parse_v3(path: str, doc: dict) -> _Array:
    shape = _whole_list(doc.get("shape"), "shape", 0)
    grid = doc.get("chunk_grid")
    if not isinstance(grid, dict) or grid.get("name") != "regular":
        raise _RefusedError(f"its chunk grid {_short(grid.get('name') if isinstance(grid, dict) else grid)} "
                       "is not \"regular\"", "read it with zarr itself")
    config = grid.get("configuration")
    chunks = _whole_list(config.get("chunk_shape") if isinstance(config, dict) else None, "chunk shape", 1)
    if len(chunks) != len(shape):
        raise ValueError(f"its chunk shape {list(chunks)} does not have one size per dimension of its shape {list(shape)}")
    data_type = doc.get("data_type")
    if not isinstance(data_type, str) or data_type not in _V3_TYPES:
        raise _RefusedError(f"its data type {_short(data_type)} has no engine type (numeric types only: "
                       f"{', '.join(_V3_TYPES)})", "read it with zarr itself")
    engine, itemsize = _V3_TYPES[data_type]
    if doc.get("storage_transformers"):
        raise _RefusedError("it has storage transformers", "read it with zarr itself")
    encoding = doc.get("chunk_key_encoding", {"name": "default"})
    if not isinstance(encoding, dict) or encoding.get("name") not in ("default", "v2"):
        raise ValueError(f"its chunk key encoding {_short(encoding)} is neither \"default\" nor \"v2\"")
    v2_keys = encoding["name"] == "v2"
    key_config = encoding.get("configuration") or {}
    separator = key_config.get("separator", "." if v2_keys else "/") if isinstance(key_config, dict) else None
    if separator not in (".", "/"):
        raise ValueError(f"its chunk key separator {_short(separator)} is neither \".\" nor \"/\"")
    codecs = doc.get("codecs")
    if not isinstance(codecs, list) or not codecs:
        raise ValueError(f"its codecs {_short(codecs)} are not a list of codecs")
    names = [_codec_name(codec, "name") for codec in codecs]
    for name in names:
        if name == "sharding_indexed":
            raise _RefusedError("it is sharded (sharding_indexed): not read yet", "read it with zarr itself")
        if name not in V3_CODECS:
            raise _RefusedError(f"its codec {_short(name)} is not one this tool reads ({', '.join(V3_CODECS)})",
                           "read it with zarr itself")
    if names.count("bytes") != 1:
        raise ValueError(f"its codecs {names} do not have one \"bytes\" codec (the array -> bytes step)")
    at = names.index("bytes")
    if any(name != "transpose" for name in names[:at]) or any(n not in _V3_BYTES_TO_BYTES for n in names[at + 1:]):
        raise ValueError(f"its codecs {names} are not in the order array -> array, bytes, bytes -> bytes")
    endian = (codecs[at].get("configuration") or {}).get("endian", "little") \
        if isinstance(codecs[at].get("configuration") or {}, dict) else None
    if itemsize > 1 and endian not in ("little", "big"):
        raise ValueError(f"its bytes codec's endian {_short(endian)} is neither \"little\" nor \"big\"")
    names_dims = doc.get("dimension_names")
    dims = tuple(str(n) for n in names_dims) if isinstance(names_dims, list) and len(names_dims) == len(shape) else None
    return _Array(path, 3, doc, shape, chunks, engine, itemsize == 1 or endian == "little", data_type,
                  separator, v2_keys, plain=names == ["bytes"],
                  decoders=tuple(reversed([n for n in names[at + 1:]])), codecs_text=", ".join(names),
                  dimension_names=dims)


class _RefusedError(ValueError):
    """An array this tool does not read, with the fix."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.fix = fix


def _parse_array(path: str, doc: object, zarr_format: int) -> _Array:
    """The array's metadata, checked; a refusal becomes the array's problem."""
    if not isinstance(doc, dict):
        return _Array(path, zarr_format, {}, problem=f"zarr array '{printable_name(path or '/')}': its "
                      "metadata is not a JSON object")
    try:
        array = _parse_v2(path, doc) if zarr_format == 2 else _parse_v3(path, doc)
    except _RefusedError as refused:
        return _Array(path, zarr_format, doc, problem=f"zarr array '{printable_name(path or '/')}': "
                      f"{refused} ({refused.fix})")
    except ValueError as error:
        return _Array(path, zarr_format, doc, problem=f"zarr array '{printable_name(path or '/')}': "
                      f"{error} (the metadata is damaged; fix it or rewrite the array with zarr)")
    return array


def _check_path(path: str) -> str | None:
    """Why ``path`` (an array or group path from the store) is not a relative path inside the
    store, or None."""
    if path == "":
        return None
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or "\x00" in path or any(p in ("", ".", "..") for p in parts):
        return (f"its name '{printable_name(path)}' is not a relative path inside the store (no "
                "'..', '.', empty parts, absolute paths or backslashes)")
    return None


def _load_json(data: bytes, what: str) -> object:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ValueError(f"{what} is not JSON ({str(error)[:120]})") from None


# -- listing ---------------------------------------------------------------------------------
@dataclass
class _Walk:
    """What one listing found: arrays with their attributes, groups, problems."""

    root: str
    arrays: list[tuple[_Array, dict]]
    groups: int = 0
    consumed: int = 0
    scanned: int = 0
    consolidated: bool = False

    def read(self, path: str) -> object:
        data = read_capped(path, MAX_METADATA_BYTES, "zarr metadata file")
        self.consumed += len(data)
        listing_control.check(len(data))
        if self.consumed > HEADER_LIMIT:
            raise ContainerError(f"the zarr store '{printable_name(self.root)}': listing needs more than "
                                 f"{HEADER_LIMIT // (1024 * 1024)} MiB of metadata (open one array's "
                                 "metadata file, e.g. its .zarray or zarr.json)", field="files")
        return _load_json(data, f"'{printable_name(path)}'")


def _store_nodes(reader: HeaderReader) -> tuple[_Walk, list[str], int]:
    """Every array of the store rooted at the listed file's folder, its problems and format."""
    root = os.path.dirname(os.path.abspath(reader.path))
    fix = "the file is not valid zarr metadata; open it as raw bytes"
    try:
        doc = _load_json(reader.read(0, reader.size, "metadata JSON"), "it")
    except ValueError as error:
        raise reader.error(str(error), None, fix) from None
    if not isinstance(doc, dict):
        raise reader.error("it is not a JSON object", None, fix)
    walk = _Walk(root, [])
    problems: list[str] = []
    if "zarr_consolidated_format" in doc:  # v2 .zmetadata
        meta = doc.get("metadata")
        if doc.get("zarr_consolidated_format") != 1 or not isinstance(meta, dict):
            raise reader.error("its consolidated metadata is not version 1 with a \"metadata\" object", None, fix)
        walk.consolidated = True
        _consolidated_v2(meta, walk, problems)
        return walk, problems, 2
    version = doc.get("zarr_format")
    if version == 2:
        if "shape" in doc or "dtype" in doc or "chunks" in doc:
            walk.arrays.append((_parse_array("", doc, 2), _attrs_beside(reader.path, walk, problems)))
        else:
            walk.groups += 1
            _walk_folder(root, "", 2, 0, walk, problems)
        return walk, problems, 2
    if version == 3:
        kind = doc.get("node_type")
        if kind == "array":
            walk.arrays.append((_parse_array("", doc, 3), _v3_attrs(doc)))
        elif kind == "group":
            walk.groups += 1
            inline = doc.get("consolidated_metadata")
            if isinstance(inline, dict) and isinstance(inline.get("metadata"), dict):
                walk.consolidated = True
                _consolidated_v3(inline["metadata"], walk, problems)
            else:
                _walk_folder(root, "", 3, 0, walk, problems)
        else:
            raise reader.error(f"its node_type {_short(kind)} is neither \"array\" nor \"group\"", None, fix)
        return walk, problems, 3
    raise reader.error(f"its zarr_format {_short(version)} is neither 2 nor 3", None, fix)


def _v3_attrs(doc: dict) -> dict:
    attrs = doc.get("attributes")
    return attrs if isinstance(attrs, dict) else {}


def _attrs_beside(metadata_path: str, walk: _Walk, problems: list[str]) -> dict:
    path = os.path.join(os.path.dirname(metadata_path), ".zattrs")
    try:
        attrs = walk.read(path)
    except FileNotFoundError:
        return {}
    except (ValueError, SourceError) as error:
        problems.append(f"zarr attributes '{printable_name(path)}' not read: {_message(error)}")
        return {}
    return attrs if isinstance(attrs, dict) else {}


def _message(error: Exception) -> str:
    return error.message if isinstance(error, CoreError) else str(error)


def _consolidated_v2(meta: dict, walk: _Walk, problems: list[str]) -> None:
    for key in sorted(meta):
        if not isinstance(key, str):
            continue
        if key == ".zarray" or key.endswith("/.zarray"):
            path = key[:-len(".zarray")].rstrip("/")
            attrs = meta.get(f"{path}/.zattrs" if path else ".zattrs")
            _add(walk, problems, path, meta[key], 2, attrs if isinstance(attrs, dict) else {})
        elif key == ".zgroup" or key.endswith("/.zgroup"):
            walk.groups += 1


def _consolidated_v3(meta: dict, walk: _Walk, problems: list[str]) -> None:
    for path in sorted(meta):
        node = meta[path]
        if not isinstance(path, str) or not isinstance(node, dict):
            continue
        if node.get("node_type") == "array":
            _add(walk, problems, path, node, 3, _v3_attrs(node))
        else:
            walk.groups += 1


def _add(walk: _Walk, problems: list[str], path: str, doc: object, version: int, attrs: dict) -> None:
    listing_control.check()
    if len(walk.arrays) >= entry_limit():
        walk.scanned += 1  # counted below as not listed
        return
    bad = _check_path(path)
    array = _Array(path, version, {}, problem=f"zarr array: {bad}") if bad else _parse_array(path, doc, version)
    walk.arrays.append((array, attrs))


def _walk_folder(folder: str, path: str, version: int, depth: int, walk: _Walk, problems: list[str]) -> None:
    """The arrays and groups below the group folder ``folder`` (store path ``path``)."""
    if depth >= MAX_DEPTH:
        problems.append(f"zarr group '{printable_name(path or '/')}': groups nested deeper than "
                        f"{MAX_DEPTH} are not listed")
        return
    try:
        with os.scandir(folder) as found:
            children = []
            for item in found:
                walk.scanned += 1
                if walk.scanned > MAX_SCANNED:
                    problems.append(f"the zarr store has more than {MAX_SCANNED:,} folder entries: "
                                    "the walk stopped (consolidate its metadata with "
                                    "zarr.consolidate_metadata to list it all)")
                    return
                if item.name.startswith(".") or not item.is_dir(follow_symlinks=False):
                    if item.is_symlink() and item.is_dir():
                        problems.append(f"'{printable_name(os.path.join(path, item.name))}' is a link "
                                        "to a folder: not followed")
                    continue
                children.append(item.name)
    except OSError as error:
        problems.append(f"zarr group '{printable_name(path or '/')}' not walked: {error.strerror}")
        return
    for name in sorted(children):
        child_path = f"{path}/{name}" if path else name
        child = os.path.join(folder, name)
        names = ("zarr.json",) if version == 3 else (".zarray", ".zgroup")
        for meta_name in names:
            meta_path = os.path.join(child, meta_name)
            if not os.path.lexists(meta_path):
                continue
            try:
                doc = walk.read(meta_path)
            except (ValueError, SourceError, OSError) as error:
                problems.append(f"zarr node '{printable_name(child_path)}' not read: {_message(error)}")
                break
            if version == 3:
                kind = doc.get("node_type") if isinstance(doc, dict) else None
                if kind == "array":
                    _add(walk, problems, child_path, doc, 3, _v3_attrs(doc))
                elif kind == "group":
                    walk.groups += 1
                    _walk_folder(child, child_path, 3, depth + 1, walk, problems)
                else:
                    problems.append(f"zarr node '{printable_name(child_path)}': its zarr.json has node_type "
                                    f"{_short(kind)}, neither \"array\" nor \"group\"")
            elif meta_name == ".zarray":
                _add(walk, problems, child_path, doc, 2, _attrs_beside(meta_path, walk, problems))
            else:
                walk.groups += 1
                _walk_folder(child, child_path, 2, depth + 1, walk, problems)
            break


def list_zarr(reader: HeaderReader) -> ContainerListing:
    """Every array of the store whose metadata file is the listed file (module rules).

    Raises
    ------
    ContainerError
        The file is not zarr metadata (not JSON, no known ``zarr_format``, a damaged
        consolidated document), or the metadata read passes the listing's limit.
    """
    walk, problems, version = _store_nodes(reader)
    limit = entry_limit()
    entries = [_entry(walk.root, array, attrs) for array, attrs in walk.arrays[:limit]]
    if len(walk.arrays) > limit:
        problems.append(not_listed(len(walk.arrays) - limit, "arrays"))
    metadata = {"zarr format": str(version), "store": walk.root,
                "consolidated": "yes" if walk.consolidated else "no",
                "arrays": str(len(walk.arrays)), "groups": str(walk.groups)}
    return ContainerListing("zarr", reader.path, tuple(entries), metadata, tuple(problems))


def _entry(root: str, array: _Array, attrs: dict) -> TensorEntry:
    """The entry of one array: a view of its one chunk file, a copy, or its problem."""
    if array.problem is not None:
        return TensorEntry(array.name, None, True, array.shape, 0, 0, array.stored_type,
                           {"zarr format": array.zarr_format}, problem=array.problem)
    extras: dict[str, object] = {"zarr format": array.zarr_format, "chunks": array.chunks,
                                 "codecs" if array.zarr_format == 3 else "compressor": array.codecs_text}
    if array.order != "C":
        extras["order"] = array.order
    fill = array.doc.get("fill_value")
    if fill is not None:
        extras["fill value"] = _short(fill)
    dims = array.dimension_names
    if dims is None and isinstance(attrs.get("_ARRAY_DIMENSIONS"), list):
        dims = tuple(str(n) for n in attrs["_ARRAY_DIMENSIONS"])
    if dims is not None:
        extras["dimensions"] = dims
    grid = array.grid()
    chunk_count = math.prod(grid)
    extras["chunk count"] = chunk_count
    count = math.prod(array.shape)
    base = TensorEntry(array.name, array.dtype, array.little_endian, array.shape, 0, 0,
                       array.stored_type, extras, storage=Storage.COPY)
    if count == 0 or chunk_count != 1 or not array.plain:
        return base
    key = array.chunk_key((0,) * len(array.shape))
    relative = f"{array.path}/{key}" if array.path else key
    chunk_path = os.path.join(root, *relative.split("/"))
    try:
        info = os.stat(chunk_path)
    except FileNotFoundError:
        extras["chunk"] = f"{key} not written: the fill value"
        return base
    except OSError as error:
        return _with_problem(base, f"its chunk file '{printable_name(relative)}' cannot be read "
                             f"({error.strerror})")
    if not stat.S_ISREG(info.st_mode):
        return _with_problem(base, f"its chunk '{printable_name(relative)}' is not a regular file")
    itemsize = array.itemsize
    chunk_bytes = math.prod(array.chunks) * itemsize
    if info.st_size != chunk_bytes:
        return _with_problem(base, f"its chunk file '{printable_name(relative)}' has {info.st_size} bytes, "
                             f"but chunks {list(array.chunks)} of {array.stored_type} are {chunk_bytes} "
                             "bytes (the metadata and the chunk disagree; open the chunk file as raw bytes)")
    strides = None
    nbytes = chunk_bytes
    if array.shape[1:] == array.chunks[1:]:
        nbytes = count * itemsize  # the chunk's first values, in C order
    else:
        strides = tuple(math.prod(array.chunks[i + 1:]) for i in range(len(array.chunks)))
    return TensorEntry(array.name, array.dtype, array.little_endian, array.shape, 0, nbytes,
                       array.stored_type, extras, strides=strides, file=relative)


def _with_problem(entry: TensorEntry, problem: str) -> TensorEntry:
    return TensorEntry(entry.name, None, entry.little_endian, entry.shape, 0, 0, entry.stored_type,
                       entry.extras, problem=f"zarr array '{printable_name(entry.name)}': {problem}")


# -- values ----------------------------------------------------------------------------------
def _array_for(source: Source, entry: TensorEntry) -> tuple[str, _Array]:
    """The store's root and the entry's array metadata, read again from disk and checked: from
    the listed file's consolidated metadata, the listed file itself (a root array), or the
    array's own metadata file (a walked store: only that file is read)."""
    reader = HeaderReader(source, 0, "zarr")  # type: ignore[arg-type]
    root = os.path.dirname(os.path.abspath(reader.path))
    gone = ContainerError(f"the zarr store '{printable_name(root)}' no longer has the array "
                          f"'{printable_name(entry.name)}' (list it again)", field="tensor")
    try:
        doc = _load_json(reader.read(0, reader.size, "metadata JSON"), "its metadata")
    except ValueError as error:
        raise ContainerError(f"the zarr store '{printable_name(root)}': {error} (list it again)",
                             field="tensor") from None
    path = "" if entry.name == "/" else entry.name
    bad = _check_path(path)
    if bad is not None or not isinstance(doc, dict):
        raise ContainerError(f"zarr array: {bad or 'the store changed'} (list it again)", field="tensor")
    version = 2 if "zarr_consolidated_format" in doc or doc.get("zarr_format") == 2 else 3
    inline = doc.get("consolidated_metadata")
    if "zarr_consolidated_format" in doc:
        meta = doc.get("metadata")
        found = meta.get(f"{path}/.zarray" if path else ".zarray") if isinstance(meta, dict) else None
    elif version == 3 and isinstance(inline, dict) and isinstance(inline.get("metadata"), dict):
        found = doc if not path else inline["metadata"].get(path)
    elif not path:
        found = doc
    else:
        name = ".zarray" if version == 2 else "zarr.json"
        try:
            found = _Walk(root, []).read(os.path.join(root, *path.split("/"), name))
        except (FileNotFoundError, NotADirectoryError):
            raise gone from None
        except (ValueError, SourceError) as error:
            raise ContainerError(f"the zarr array '{printable_name(entry.name)}': {_message(error)}",
                                 field="tensor") from None
    if found is None:
        raise gone
    array = _parse_array(path, found, version)
    if array.problem is not None:
        raise ContainerError(array.problem, field="tensor")
    return root, array


def zarr_values(source: Source, entry: TensorEntry) -> EntryValues:
    """The values of a copy entry of a store, read by zarr from chunk bytes read here (module
    rules).

    Raises
    ------
    BudgetError
        The values, one chunk, or the chunk bytes would exceed the copy budget.
    ContainerError
        ``field="tensor"``: more than :data:`MAX_CHUNKS` chunks, a chunk that is not a regular
        file or decodes to more bytes than a chunk holds, zarr is not installed, or zarr could not
        read the chunks (damaged).
    """
    root, array = _array_for(source, entry)
    name = printable_name(array.name)
    dtype = np.dtype(array.dtype if array.dtype != "bool" else np.bool_)
    count = math.prod(array.shape)
    fix = "read a part of it with zarr itself"
    check_copy_budget(count * dtype.itemsize, f"reading the zarr array '{name}' {array.shape}", fix,
                      field="tensor")
    chunk_elements = math.prod(array.chunks)
    check_copy_budget(chunk_elements * dtype.itemsize, f"one chunk {array.chunks} of the zarr array '{name}'",
                      "rewrite it with smaller chunks", field="tensor")
    how = "read by zarr"
    what = f"the zarr array '{name}' ({array.codecs_text}; chunks {array.chunks}), read by zarr"
    if count == 0:
        return EntryValues.stored_copy(np.zeros(array.shape, dtype), how, what)
    chunk_count = math.prod(array.grid())
    if chunk_count > MAX_CHUNKS:
        raise ContainerError(f"the zarr array '{name}' has {chunk_count:,} chunks, more than the "
                             f"{MAX_CHUNKS:,} one read takes ({fix}, or rewrite it with larger chunks)",
                             field="tensor")
    try:
        import zarr
    except ImportError:
        raise ContainerError(f"reading the compressed or chunked zarr array '{name}' needs the zarr "
                             f"package ({_INSTALL})", field="tensor") from None
    try:
        from zarr.core.buffer.cpu import Buffer
        from zarr.storage import MemoryStore
    except ImportError:  # zarr 2 has neither
        raise ContainerError(f"reading the compressed or chunked zarr array '{name}' needs zarr 3 or later "
                             f"(zarr {getattr(zarr, '__version__', '?')} is installed; {_INSTALL}, on Python "
                             "3.11 or later)", field="tensor") from None
    meta_key = ".zarray" if array.zarr_format == 2 else "zarr.json"
    stored = {meta_key: Buffer.from_bytes(json.dumps(array.doc).encode())}
    bound = chunk_elements * 16 + 65536  # the most any allowed codec chain decodes a chunk to
    cap = chunk_elements * dtype.itemsize + chunk_elements * dtype.itemsize // 8 + 65536
    total = 0
    for coords in _coordinates(array.grid()):
        key = array.chunk_key(coords)
        relative = f"{array.path}/{key}" if array.path else key
        try:
            data = read_capped(os.path.join(root, *relative.split("/")), cap, "zarr chunk")
        except (FileNotFoundError, NotADirectoryError):
            continue  # not written: zarr gives the fill value
        except SourceError as error:
            raise ContainerError(f"the zarr array '{name}': {error.message}", field="tensor") from None
        total += len(data)
        check_copy_budget(total + count * dtype.itemsize, f"the chunks of the zarr array '{name}' and its values",
                          fix, field="tensor")
        _check_decoded_size(data, array.decoders, bound, f"the zarr array '{name}': chunk '{printable_name(key)}'")
        stored[key] = Buffer.from_bytes(data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            opened = zarr.open_array(store=MemoryStore(stored, read_only=True), mode="r",
                                     zarr_format=array.zarr_format)
            values = np.asarray(opened[...])
    except CoreError:
        raise
    except Exception as error:  # zarr's and numcodecs' many ways to fail on damaged chunks
        raise ContainerError(f"zarr could not read the array '{name}' ({type(error).__name__}: "
                             f"{str(error)[:200]}) (a chunk is damaged or does not match the "
                             "metadata; check the store with zarr)", field="tensor") from None
    if values.shape != array.shape or values.dtype.itemsize != dtype.itemsize:
        raise ContainerError(f"zarr read the array '{name}' as {values.shape} {values.dtype}, not "
                             f"{array.shape} {array.stored_type} (the metadata changed? list it again)",
                             field="tensor")
    return EntryValues.stored_copy(values, how, what)


def _coordinates(grid: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    if not grid:
        yield ()
        return
    yield from np.ndindex(*grid)


# -- decompression bombs ---------------------------------------------------------------------
def _check_decoded_size(data: bytes, decoders: tuple[str, ...], bound: int, where: str) -> None:
    """Refuse a chunk that decodes to more than ``bound`` bytes, before zarr decodes it: the
    first decoder's output is measured (streamed with a limit, or read from its header); the
    decoders after it see at most that many bytes.

    Raises
    ------
    ContainerError
        ``field="tensor"``: the chunk decodes to more than ``bound`` bytes, or its header is
        cut short or unknown.
    """
    if not decoders:
        if len(data) > bound:
            raise _bomb(where, len(data), bound)
        return
    name = decoders[0].removeprefix("numcodecs.")
    if name == "crc32c":
        if len(data) < 4:
            raise ContainerError(f"{where} is shorter than its crc32c checksum", field="tensor")
        _check_decoded_size(data[:-4], decoders[1:], bound, where)
        return
    size = _decoded_size(name, data, bound, where)
    if size > bound:
        raise _bomb(where, size, bound)


def _bomb(where: str, size: int, bound: int) -> ContainerError:
    return ContainerError(f"{where} decodes to more than {bound:,} bytes ({size:,} or more), more than "
                          "a chunk of its shape holds (a damaged chunk or a decompression bomb); not read",
                          field="tensor")


def _decoded_size(name: str, data: bytes, bound: int, where: str) -> int:
    """How many bytes the compressor ``name`` decodes ``data`` to, up to ``bound + 1``."""
    import bz2
    import lzma
    import zlib

    if name in ("blosc", "lz4"):
        if len(data) < (16 if name == "blosc" else 4):
            raise ContainerError(f"{where}: its {name} header is cut short", field="tensor")
        return struct.unpack_from("<I", data, 4 if name == "blosc" else 0)[0]
    if name == "zstd":
        return _zstd_content_size(data, where)
    factories = {"zlib": lambda: zlib.decompressobj(47), "gzip": lambda: zlib.decompressobj(47),
                 "bz2": bz2.BZ2Decompressor, "lzma": lzma.LZMADecompressor}
    decoded, rest, first = 0, data, True
    while rest:
        decompressor = factories[name]()
        try:
            # output of bound + 1 bytes is the limit reached: more was to come
            decoded += len(decompressor.decompress(rest, bound + 1 - decoded))
        except (zlib.error, OSError, lzma.LZMAError, EOFError, ValueError) as error:
            if first:
                raise ContainerError(f"{where} is not valid {name} data ({error})", field="tensor") from None
            break  # what follows a whole stream is zarr's to judge
        if decoded > bound or not decompressor.eof or name in ("zlib", "lzma"):
            break
        rest, first = decompressor.unused_data, False  # gzip members and bz2 streams follow each other
    return decoded


def _zstd_content_size(data: bytes, where: str) -> int:
    """The content size a zstd frame header declares (numcodecs decodes into a buffer of that
    size, so it bounds the output); a frame that declares none is refused."""
    if len(data) < 6 or data[:4] != b"\x28\xb5\x2f\xfd":
        raise ContainerError(f"{where} is not a zstd frame", field="tensor")
    descriptor = data[4]
    size_flag, single = descriptor >> 6, (descriptor >> 5) & 1
    position = 5 + (0 if single else 1) + (0, 1, 2, 4)[descriptor & 3]
    width = (1 if single else 0, 2, 4, 8)[size_flag]
    if width == 0:
        raise ContainerError(f"{where} is a zstd frame that does not declare its size (rewrite the "
                             "array with zarr)", field="tensor")
    if len(data) < position + width:
        raise ContainerError(f"{where}: its zstd frame header is cut short", field="tensor")
    value = int.from_bytes(data[position:position + width], "little")
    return value + 256 if width == 2 else value


FORMAT = ContainerFormat("zarr", sniff_zarr, list_zarr, zarr_values)
