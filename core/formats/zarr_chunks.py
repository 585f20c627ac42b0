"""The values of a Zarr array that no view shows: compressed, several chunks, ``F`` order,
filters, unwritten chunks (the fill value).

Rules: the optional ``zarr`` package (``pip install 'tensor-inspector[zarr]'``) decodes, after
the copy budget is checked for the values, for one chunk, and for the chunk bytes read, and at
most :data:`MAX_CHUNKS` chunks. zarr never sees the store: the array's metadata is read again
(:func:`_array_for`) and its chunk files are read here (checked reads, never a FIFO or device;
a URL's chunks :data:`CHUNK_PARALLEL` at a time through the remote block cache), each compressed
chunk's decoded size is bounded before zarr decodes it (a decompression bomb is refused:
:func:`_check_decoded_size`), and zarr reads them from memory, read-only. A chunk that is not
there (a missing file, an HTTP 404, an S3 ``NoSuchKey``) is one never written: the fill value.
"""

from __future__ import annotations

import json
import math
import struct
import warnings
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from core.budget import check_copy_budget
from core.errors import ContainerError, CoreError, SourceError
from core.files.locations import folder_of, join, read_whole
from core.files.remote import is_url
from core.files.sources import Source
from core.formats.entry import EntryValues, TensorEntry
from core.formats.reader import HeaderReader
from core.formats.zarr_metadata import ArrayMeta, check_store_path, load_json, parse_array, read_metadata
from core.text.names import printable_name

__all__ = ["CHUNK_PARALLEL", "MAX_CHUNKS", "zarr_values"]

#: Most chunks one copy reads.
MAX_CHUNKS = 1_048_576
#: Chunk files of a remote store fetched at once.
CHUNK_PARALLEL = 8
_INSTALL = "pip install 'tensor-inspector[zarr]' (or pip install zarr)"


def _array_for(source: Source, entry: TensorEntry) -> tuple[str, ArrayMeta]:
    """The store's root and the entry's array metadata, read again from disk and checked: from
    the listed file's consolidated metadata, the listed file itself (a root array), or the
    array's own metadata file (a walked store: only that file is read)."""
    reader = HeaderReader(source, 0, "zarr")  # type: ignore[arg-type]
    root = folder_of(reader.path)
    gone = ContainerError(f"the zarr store '{printable_name(root)}' no longer has the array "
                          f"'{printable_name(entry.name)}' (list it again)", field="tensor")
    try:
        doc = load_json(reader.read(0, reader.size, "metadata JSON"), "its metadata")
    except ValueError as error:
        raise ContainerError(f"the zarr store '{printable_name(root)}': {error} (list it again)",
                             field="tensor") from None
    path = "" if entry.name == "/" else entry.name
    bad = check_store_path(path)
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
            found, _ = read_metadata(join(root, f"{path}/{name}"))
        except (FileNotFoundError, NotADirectoryError):
            raise gone from None
        except SourceError as error:
            raise ContainerError(f"the zarr array '{printable_name(entry.name)}': {error.message}",
                                 field="tensor") from None
        except ValueError as error:
            raise ContainerError(f"the zarr array '{printable_name(entry.name)}': {error}",
                                 field="tensor") from None
    if found is None:
        raise gone
    array = parse_array(path, found, version)
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
    keys = [array.chunk_key(coords) for coords in _coordinates(array.grid())]
    paths = [join(root, f"{array.path}/{key}" if array.path else key) for key in keys]
    for key, data in zip(keys, _chunk_bytes(paths, cap, parallel=CHUNK_PARALLEL if is_url(root) else 1,
                                             name=name)):
        if data is None:
            continue  # not written: zarr gives the fill value
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


def _chunk_bytes(paths: list[str], cap: int, parallel: int, name: str) -> Iterator[bytes | None]:
    """Each chunk file's bytes in order (None: not written), read ``parallel`` at a time with at
    most ``2 * parallel`` read ahead of the one taken.

    Raises
    ------
    ContainerError
        ``field="tensor"``: a chunk that cannot be read (not a regular file, larger than ``cap``,
        a failed request).
    """
    def read(path: str) -> bytes | None:
        try:
            return read_whole(path, cap, "zarr chunk")
        except (FileNotFoundError, NotADirectoryError):
            return None
        except SourceError as error:
            raise ContainerError(f"the zarr array '{name}': {error.message}",
                                 field="tensor") from None

    if parallel <= 1:
        yield from map(read, paths)
        return
    with ThreadPoolExecutor(parallel, thread_name_prefix="zarr-chunks") as pool:
        pending: deque = deque()
        try:
            for path in paths:
                pending.append(pool.submit(read, path))
                if len(pending) >= 2 * parallel:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


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

