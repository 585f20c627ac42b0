"""Zarr array metadata (v2 ``.zarray``, v3 ``zarr.json`` of an array), parsed and checked.

Rules: a shape and chunk shape of whole numbers (at most :data:`MAX_DIMS` dimensions, chunks of at
least 1); numeric types only (:data:`V2_TYPES` / :data:`V3_TYPES`; object, string, datetime and
structured types are refused: never read); compressors, filters and codecs from the lists below
only (nothing named by a store is ever imported or run); a regular chunk grid, no storage
transformers, no sharding; chunk keys separated by ``.`` or ``/``. A refusal is the array's
``problem``, naming what is refused and the fix; other arrays of the store stay usable.
Array and group paths must be relative paths inside the store (:func:`check_store_path`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from core.files.locations import read_whole
from core.text.names import printable_name

__all__ = ["MAX_DIMS", "MAX_METADATA_BYTES", "V2_COMPRESSORS", "V2_FILTERS", "V2_TYPES", "V3_CODECS", "V3_TYPES", "ArrayMeta",
           "check_store_path", "load_json", "parse_array", "read_metadata", "short_json"]

#: Largest metadata document read (one ``.zarray``, ``zarr.json`` or ``.zmetadata``).
MAX_METADATA_BYTES = 16 * 1024 * 1024
#: Most dimensions of an array.
MAX_DIMS = 32

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
V2_TYPES = {"b1": "bool", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
            "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
            "f2": "float16", "f4": "float32", "f8": "float64", "c8": "complex64", "c16": "complex128"}
#: v3 data type name -> (engine type, item size).
V3_TYPES = {"bool": ("bool", 1), "int8": ("int8", 1), "int16": ("int16", 2), "int32": ("int32", 4),
            "int64": ("int64", 8), "uint8": ("uint8", 1), "uint16": ("uint16", 2), "uint32": ("uint32", 4),
            "uint64": ("uint64", 8), "float16": ("float16", 2), "float32": ("float32", 4),
            "float64": ("float64", 8), "complex64": ("complex64", 8), "complex128": ("complex128", 16)}
_ITEMSIZE = {name: size for name, size in V3_TYPES.values()}
@dataclass(frozen=True)
class ArrayMeta:
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
        raise ValueError(f"its {what} is not a list of at most {MAX_DIMS} whole numbers ({short_json(value)})")
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int) or item < minimum or item >= 1 << 62:
            raise ValueError(f"its {what} {short_json(value)} has {short_json(item)}, not a whole number "
                             f"from {minimum} to 2**62")
    return tuple(value)


def short_json(value: object) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return printable_name(text if len(text) <= 80 else text[:77] + "...")


def _codec_name(codec: object, key: str) -> str:
    if not isinstance(codec, dict) or not isinstance(codec.get(key), str):
        raise ValueError(f"it has a codec that is not an object with a {key!r} ({short_json(codec)})")
    return codec[key]


def _parse_v2(path: str, doc: dict) -> ArrayMeta:
    shape = _whole_list(doc.get("shape"), "shape", 0)
    chunks = _whole_list(doc.get("chunks"), "chunks", 1)
    if len(chunks) != len(shape):
        raise ValueError(f"its chunks {list(chunks)} do not have one size per dimension of its shape {list(shape)}")
    typestr = doc.get("dtype")
    if not isinstance(typestr, str):
        raise _RefusedError(f"its dtype {short_json(typestr)} is a structured type, which the engine does not decode",
                       "read it with zarr itself")
    if typestr[1:2] == "O":
        raise _RefusedError("it is an object array (its chunks hold encoded Python objects): never read",
                       "store it as a numeric type")
    engine = V2_TYPES.get(typestr[1:]) if typestr[:1] in "<>|=" else None
    if engine is None:
        raise _RefusedError(f"its dtype {short_json(typestr)} has no engine type (numeric types only: "
                       "bool, int8-64, uint8-64, float16-64, complex64/128)", "read it with zarr itself")
    order = doc.get("order", "C")
    if order not in ("C", "F"):
        raise ValueError(f"its order {short_json(order)} is neither \"C\" nor \"F\"")
    separator = doc.get("dimension_separator", ".")
    if separator is None:
        separator = "."
    if separator not in (".", "/"):
        raise ValueError(f"its dimension_separator {short_json(separator)} is neither \".\" nor \"/\"")
    compressor = doc.get("compressor")
    names = []
    decoders: tuple[str, ...] = ()
    if compressor is not None:
        cid = _codec_name(compressor, "id")
        if cid not in V2_COMPRESSORS:
            raise _RefusedError(f"its compressor {short_json(cid)} is not one this tool reads "
                           f"({', '.join(V2_COMPRESSORS)})", "read it with zarr itself")
        names.append(cid)
        decoders = (cid,)
    filters = doc.get("filters") or []
    if not isinstance(filters, list):
        raise ValueError(f"its filters {short_json(filters)} are not a list")
    for item in filters:
        fid = _codec_name(item, "id")
        if fid not in V2_FILTERS:
            raise _RefusedError(f"its filter {short_json(fid)} is not one this tool reads ({', '.join(V2_FILTERS)})",
                           "read it with zarr itself")
        names.append(fid)
    little = typestr[0] != ">" if engine not in ("bool", "int8", "uint8") else True
    if typestr[0] == "=":
        little = np.little_endian
    return ArrayMeta(path, 2, doc, shape, chunks, engine, little, typestr, separator, True,
                  plain=not names and order == "C", decoders=decoders,
                  codecs_text=", ".join(names) if names else "none", order=order)


def _parse_v3(path: str, doc: dict) -> ArrayMeta:
    shape = _whole_list(doc.get("shape"), "shape", 0)
    grid = doc.get("chunk_grid")
    if not isinstance(grid, dict) or grid.get("name") != "regular":
        raise _RefusedError(f"its chunk grid {short_json(grid.get('name') if isinstance(grid, dict) else grid)} "
                       "is not \"regular\"", "read it with zarr itself")
    config = grid.get("configuration")
    chunks = _whole_list(config.get("chunk_shape") if isinstance(config, dict) else None, "chunk shape", 1)
    if len(chunks) != len(shape):
        raise ValueError(f"its chunk shape {list(chunks)} does not have one size per dimension of its shape {list(shape)}")
    data_type = doc.get("data_type")
    if not isinstance(data_type, str) or data_type not in V3_TYPES:
        raise _RefusedError(f"its data type {short_json(data_type)} has no engine type (numeric types only: "
                       f"{', '.join(V3_TYPES)})", "read it with zarr itself")
    engine, itemsize = V3_TYPES[data_type]
    if doc.get("storage_transformers"):
        raise _RefusedError("it has storage transformers", "read it with zarr itself")
    encoding = doc.get("chunk_key_encoding", {"name": "default"})
    if not isinstance(encoding, dict) or encoding.get("name") not in ("default", "v2"):
        raise ValueError(f"its chunk key encoding {short_json(encoding)} is neither \"default\" nor \"v2\"")
    v2_keys = encoding["name"] == "v2"
    key_config = encoding.get("configuration") or {}
    separator = key_config.get("separator", "." if v2_keys else "/") if isinstance(key_config, dict) else None
    if separator not in (".", "/"):
        raise ValueError(f"its chunk key separator {short_json(separator)} is neither \".\" nor \"/\"")
    codecs = doc.get("codecs")
    if not isinstance(codecs, list) or not codecs:
        raise ValueError(f"its codecs {short_json(codecs)} are not a list of codecs")
    names = [_codec_name(codec, "name") for codec in codecs]
    for name in names:
        if name == "sharding_indexed":
            raise _RefusedError("it is sharded (sharding_indexed): not read yet", "read it with zarr itself")
        if name not in V3_CODECS:
            raise _RefusedError(f"its codec {short_json(name)} is not one this tool reads ({', '.join(V3_CODECS)})",
                           "read it with zarr itself")
    if names.count("bytes") != 1:
        raise ValueError(f"its codecs {names} do not have one \"bytes\" codec (the array -> bytes step)")
    at = names.index("bytes")
    if any(name != "transpose" for name in names[:at]) or any(n not in _V3_BYTES_TO_BYTES for n in names[at + 1:]):
        raise ValueError(f"its codecs {names} are not in the order array -> array, bytes, bytes -> bytes")
    endian = (codecs[at].get("configuration") or {}).get("endian", "little") \
        if isinstance(codecs[at].get("configuration") or {}, dict) else None
    if itemsize > 1 and endian not in ("little", "big"):
        raise ValueError(f"its bytes codec's endian {short_json(endian)} is neither \"little\" nor \"big\"")
    names_dims = doc.get("dimension_names")
    dims = tuple(str(n) for n in names_dims) if isinstance(names_dims, list) and len(names_dims) == len(shape) else None
    return ArrayMeta(path, 3, doc, shape, chunks, engine, itemsize == 1 or endian == "little", data_type,
                  separator, v2_keys, plain=names == ["bytes"],
                  decoders=tuple(reversed([n for n in names[at + 1:]])), codecs_text=", ".join(names),
                  dimension_names=dims)


class _RefusedError(ValueError):
    """An array this tool does not read, with the fix."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.fix = fix


def parse_array(path: str, doc: object, zarr_format: int) -> ArrayMeta:
    """The array's metadata, checked; a refusal becomes the array's problem."""
    if not isinstance(doc, dict):
        return ArrayMeta(path, zarr_format, {}, problem=f"zarr array '{printable_name(path or '/')}': its "
                      "metadata is not a JSON object")
    try:
        array = _parse_v2(path, doc) if zarr_format == 2 else _parse_v3(path, doc)
    except _RefusedError as refused:
        return ArrayMeta(path, zarr_format, doc, problem=f"zarr array '{printable_name(path or '/')}': "
                      f"{refused} ({refused.fix})")
    except ValueError as error:
        return ArrayMeta(path, zarr_format, doc, problem=f"zarr array '{printable_name(path or '/')}': "
                      f"{error} (the metadata is damaged; fix it or rewrite the array with zarr)")
    return array


def check_store_path(path: str) -> str | None:
    """Why ``path`` (an array or group path from the store) is not a relative path inside the
    store, or None."""
    if path == "":
        return None
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or "\x00" in path or any(p in ("", ".", "..") for p in parts):
        return (f"its name '{printable_name(path)}' is not a relative path inside the store (no "
                "'..', '.', empty parts, absolute paths or backslashes)")
    return None


def load_json(data: bytes, what: str) -> object:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ValueError(f"{what} is not JSON ({str(error)[:120]})") from None



def read_metadata(path: str, what: str = "zarr metadata file") -> tuple[object, int]:
    """The JSON document at ``path`` (local or URL; at most :data:`MAX_METADATA_BYTES`) and its
    size in bytes.

    Raises
    ------
    FileNotFoundError
        Nothing is there.
    ValueError
        It is not JSON (message names it).
    SourceError
        Too large, not a regular file, or not readable.
    """
    data = read_whole(path, MAX_METADATA_BYTES, what)
    return load_json(data, f"'{printable_name(path)}'"), len(data)
