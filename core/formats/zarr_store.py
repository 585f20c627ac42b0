"""Zarr stores (Zarr v2 and v3), on local disk or behind a URL: every array of the store as an entry.

A Zarr store is a folder: metadata documents (JSON) and one file per chunk. A remote store is a
URL prefix (``https://host/x.zarr``, ``s3://bucket/x.zarr``): the same files are objects under it.
Rules, as read here:

- **Addressed by its folder or a metadata file** (:func:`store_metadata_file`): a folder holding
  ``zarr.json`` (v3), ``.zmetadata`` (v2 consolidated), ``.zarray`` or ``.zgroup`` (v2) is opened
  as that file, in this order; a metadata file can be opened itself (``x.zarr/.zarray``,
  ``x.zarr/sub/zarr.json``: that node is the store's root). The folder of the file opened is the
  store's root; a chunk file opened by itself is raw bytes. A URL names a store when it ends
  with ``/`` or ``.zarr`` (each metadata file is asked for in turn: one request each, up to
  four); any other URL is an object, opened as itself.
- **Sniffed from content**: a JSON object whose first 4096 bytes hold the key ``"zarr_format"``
  or ``"zarr_consolidated_format"``.
- **The arrays**: a root array is the one entry ``/``; a group lists every array below it by its
  path (``sub/x``), in path order. Where they come from: consolidated metadata (v2 ``.zmetadata``,
  v3 ``consolidated_metadata`` inside the root ``zarr.json``) when the file opened has it, else a
  walk of the folders (v2: a folder with ``.zarray`` or ``.zgroup``; v3: with ``zarr.json``; an
  array's folder is not entered, links to folders are not followed), at most
  :data:`MAX_DEPTH` deep and :data:`MAX_SCANNED` folder entries in all. A remote walk lists
  folders as the file system does (:func:`core.files.locations.list_folder`: an object store's
  prefixes, an HTTP server's index page); a server that shows no index lists no arrays, and the
  listing says to consolidate the store. Every metadata file is read capped
  (:data:`~core.formats.zarr_metadata.MAX_METADATA_BYTES`, :func:`core.files.locations.read_whole`);
  the documents read add up to at most the listing's 64 MiB.
- **A view** when the array is ONE uncompressed chunk: v2 without compressor and filters, order
  ``C``; v3 whose only codec is ``bytes``. The entry is that chunk file (``file``, offset 0),
  (a URL below the store's, for a remote store) with the dtype's byte order and the array's
  shape. Zarr stores an edge chunk full size, so
  the chunk file must hold exactly ``prod(chunks) * itemsize`` bytes; an array smaller than its
  chunk is the chunk's first values (the leading axis only) or a strided view of them (element
  strides of the chunk's C order).
- **A copy** otherwise (compressed chunks, several chunks, ``F`` order, filters, a chunk not
  written, whose values are the fill value): read by :mod:`core.formats.zarr_chunks` with the
  optional ``zarr`` package, budget-checked, from chunk bytes read by the tool.
- **Refused, each with its reason on the entry** (the other arrays stay usable): a shape or
  chunk shape that is not whole numbers (negative, booleans, more than 32 dimensions, chunks of
  0), a type the engine has no name for (strings, datetimes, structured types; object arrays are
  never read: their chunks are Python objects), a compressor, filter or codec not in the lists of
  :mod:`core.formats.zarr_metadata` (nothing from the store is ever imported or run), sharding (``sharding_indexed``), a chunk grid other than ``regular``,
  storage transformers, a chunk key separator other than ``.`` or ``/``, an array name that is
  not a relative path inside the store (``..``, absolute, empty parts, backslashes), and a one-
  chunk array whose chunk file has another size than the metadata says.
"""

from __future__ import annotations

import math
import os
import stat
from dataclasses import dataclass

from core.errors import ContainerError, CoreError, MissingObjectError, SourceError
from core.files.locations import FolderItem, file_size, folder_of, join, list_folder
from core.files.remote import is_url, object_size
from core.formats import listing_control
from core.formats.entry import ContainerFormat, ContainerListing, Storage, TensorEntry
from core.formats.reader import HEADER_LIMIT, HeaderReader, entry_limit, not_listed
from core.formats.zarr_chunks import MAX_CHUNKS, zarr_values
from core.formats.zarr_metadata import ArrayMeta, check_store_path, load_json, parse_array, read_metadata, short_json
from core.text.names import printable_name

__all__ = ["FORMAT", "MAX_CHUNKS", "MAX_DEPTH", "METADATA_FILES", "list_zarr", "sniff_zarr", "store_metadata_file"]

#: The metadata files a store's folder is opened as, first found first.
METADATA_FILES = ("zarr.json", ".zmetadata", ".zarray", ".zgroup")
#: Deepest group nesting walked.
MAX_DEPTH = 64
#: Most folder entries looked at by one walk.
MAX_SCANNED = 1_000_000

# -- addressing and sniffing ----------------------------------------------------------------
def store_metadata_file(path: str) -> str | None:
    """The metadata file a store's folder ``path`` (or store URL) is opened as (module rules), or
    None when ``path`` is not a store holding one."""
    if is_url(path):
        return _remote_metadata_file(path)
    if not os.path.isdir(path):
        return None
    for name in METADATA_FILES:
        candidate = os.path.join(path, name)
        if os.path.isfile(candidate):
            return candidate
    return None


def _remote_metadata_file(url: str) -> str | None:
    """The first metadata file below the store URL ``url`` (one ending with ``/`` or ``.zarr``),
    asked for in :data:`METADATA_FILES` order; None for any other URL (no request made) or when
    no metadata file is below it."""
    bare = url.split("?", 1)[0].split("#", 1)[0]
    if not bare.endswith("/") and not bare.lower().endswith(".zarr"):
        return None
    folder = bare.rstrip("/")
    for name in METADATA_FILES:
        if file_size(join(folder, name)) is not None:
            return join(folder, name)
    return None


def sniff_zarr(head: bytes, size: int) -> bool:
    """A JSON object with ``"zarr_format"`` or ``"zarr_consolidated_format"`` in its first bytes."""
    text = head.lstrip(b" \t\r\n")
    return text[:1] == b"{" and (b'"zarr_format"' in head or b'"zarr_consolidated_format"' in head)


# -- listing ---------------------------------------------------------------------------------
@dataclass
class _Walk:
    """What one listing found: arrays with their attributes, groups, problems."""

    root: str
    arrays: list[tuple[ArrayMeta, dict]]
    groups: int = 0
    consumed: int = 0
    scanned: int = 0
    consolidated: bool = False

    def read(self, path: str) -> object:
        doc, size = read_metadata(path)
        self.consumed += size
        listing_control.check(size)
        if self.consumed > HEADER_LIMIT:
            raise ContainerError(f"the zarr store '{printable_name(self.root)}': listing needs more than "
                                 f"{HEADER_LIMIT // (1024 * 1024)} MiB of metadata (open one array's "
                                 "metadata file, e.g. its .zarray or zarr.json)", field="files")
        return doc


def _store_nodes(reader: HeaderReader) -> tuple[_Walk, list[str], int]:
    """Every array of the store rooted at the listed file's folder, its problems and format."""
    root = folder_of(reader.path)
    fix = "the file is not valid zarr metadata; open it as raw bytes"
    try:
        doc = load_json(reader.read(0, reader.size, "metadata JSON"), "it")
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
            walk.arrays.append((parse_array("", doc, 2), _attrs_beside(reader.path, walk, problems)))
        else:
            walk.groups += 1
            _walk_folder(root, "", 2, 0, walk, problems)
        return walk, problems, 2
    if version == 3:
        kind = doc.get("node_type")
        if kind == "array":
            walk.arrays.append((parse_array("", doc, 3), _v3_attrs(doc)))
        elif kind == "group":
            walk.groups += 1
            inline = doc.get("consolidated_metadata")
            if isinstance(inline, dict) and isinstance(inline.get("metadata"), dict):
                walk.consolidated = True
                _consolidated_v3(inline["metadata"], walk, problems)
            else:
                _walk_folder(root, "", 3, 0, walk, problems)
        else:
            raise reader.error(f"its node_type {short_json(kind)} is neither \"array\" nor \"group\"", None, fix)
        return walk, problems, 3
    raise reader.error(f"its zarr_format {short_json(version)} is neither 2 nor 3", None, fix)


def _v3_attrs(doc: dict) -> dict:
    attrs = doc.get("attributes")
    return attrs if isinstance(attrs, dict) else {}


def _attrs_beside(metadata_path: str, walk: _Walk, problems: list[str]) -> dict:
    path = join(folder_of(metadata_path), ".zattrs")
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
    bad = check_store_path(path)
    array = ArrayMeta(path, version, {}, problem=f"zarr array: {bad}") if bad else parse_array(path, doc, version)
    walk.arrays.append((array, attrs))


def _walk_folder(folder: str, path: str, version: int, depth: int, walk: _Walk, problems: list[str]) -> None:
    """The arrays and groups below the group folder ``folder`` (store path ``path``)."""
    if depth >= MAX_DEPTH:
        problems.append(f"zarr group '{printable_name(path or '/')}': groups nested deeper than "
                        f"{MAX_DEPTH} are not listed")
        return
    try:
        items: list[FolderItem] = list_folder(folder)
    except OSError as error:
        problems.append(f"zarr group '{printable_name(path or '/')}' not walked: {error.strerror}")
        return
    except SourceError as error:
        problems.append(f"zarr group '{printable_name(path or '/')}' not walked: {error.message}")
        return
    children = []
    for item in items:
        walk.scanned += 1
        if walk.scanned > MAX_SCANNED:
            problems.append(f"the zarr store has more than {MAX_SCANNED:,} folder entries: "
                            "the walk stopped (consolidate its metadata with "
                            "zarr.consolidate_metadata to list it all)")
            return
        if item.links_to_folder:
            problems.append(f"'{printable_name(f'{path}/{item.name}' if path else item.name)}' is a link "
                            "to a folder: not followed")
        if item.is_folder and not item.is_link and not item.name.startswith("."):
            children.append(item.name)
    for name in sorted(children):
        child_path = f"{path}/{name}" if path else name
        child = join(folder, name)
        names = ("zarr.json",) if version == 3 else (".zarray", ".zgroup")
        for meta_name in names:
            meta_path = join(child, meta_name)
            try:
                doc = walk.read(meta_path)
            except (FileNotFoundError, NotADirectoryError):
                continue  # not this kind of node (or no node: a chunk folder, another file)
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
                                    f"{short_json(kind)}, neither \"array\" nor \"group\"")
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
    if is_url(walk.root) and walk.groups and not walk.consolidated and not walk.arrays:
        problems.append(f"the zarr store '{printable_name(walk.root)}' has no consolidated metadata and its "
                        "server lists no arrays below its group: consolidate it (zarr.consolidate_metadata) "
                        "or open one array's metadata file (its .zarray or zarr.json)")
    limit = entry_limit()
    listed = walk.arrays[:limit]
    sizes = _chunk_sizes([join(walk.root, chunk) for chunk in map(_view_chunk, (a for a, _ in listed)) if chunk])
    entries = [_entry(walk.root, array, attrs, sizes) for array, attrs in listed]
    if len(walk.arrays) > limit:
        problems.append(not_listed(len(walk.arrays) - limit, "arrays"))
    metadata = {"zarr format": str(version), "store": walk.root,
                "consolidated": "yes" if walk.consolidated else "no",
                "arrays": str(len(walk.arrays)), "groups": str(walk.groups)}
    return ContainerListing("zarr", reader.path, tuple(entries), metadata, tuple(problems))


def _view_chunk(array: ArrayMeta) -> str | None:
    """The chunk file (relative to the store) a view of ``array`` would show: its one chunk when
    the chunk stores the values as they are; None otherwise."""
    if array.problem is not None or not array.plain or math.prod(array.shape) == 0 or math.prod(array.grid()) != 1:
        return None
    key = array.chunk_key((0,) * len(array.shape))
    return f"{array.path}/{key}" if array.path else key


#: Chunk files of a remote store looked at (``info``) at once while listing.
SIZE_PARALLEL = 8


def _chunk_sizes(paths: list[str]) -> dict[str, int | None | BaseException]:
    """Each chunk file's size (:func:`_chunk_size`), or the error that said why not; a remote
    store's asked :data:`SIZE_PARALLEL` at a time."""
    def size(path: str) -> int | None | BaseException:
        try:
            return _chunk_size(path)
        except (OSError, SourceError) as error:
            return error
    if len(paths) < 2 or not is_url(paths[0]):
        return {path: size(path) for path in paths}
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(SIZE_PARALLEL, thread_name_prefix="zarr-sizes") as pool:
        return dict(zip(paths, pool.map(size, paths)))


def _entry(root: str, array: ArrayMeta, attrs: dict, sizes: dict[str, int | None | BaseException]) -> TensorEntry:
    """The entry of one array: a view of its one chunk file (``sizes`` holds that file's size),
    a copy, or its problem."""
    if array.problem is not None:
        return TensorEntry(array.name, None, True, array.shape, 0, 0, array.stored_type,
                           {"zarr format": array.zarr_format}, problem=array.problem)
    extras: dict[str, object] = {"zarr format": array.zarr_format, "chunks": array.chunks,
                                 "codecs" if array.zarr_format == 3 else "compressor": array.codecs_text}
    if array.order != "C":
        extras["order"] = array.order
    fill = array.doc.get("fill_value")
    if fill is not None:
        extras["fill value"] = short_json(fill)
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
    relative = _view_chunk(array)
    if relative is None:
        return base
    key = array.chunk_key((0,) * len(array.shape))
    size = sizes[join(root, relative)]
    if isinstance(size, FileNotFoundError):
        extras["chunk"] = f"{key} not written: the fill value"
        return base
    if isinstance(size, BaseException):
        why = size.message if isinstance(size, CoreError) else size.strerror
        return _with_problem(base, f"its chunk file '{printable_name(relative)}' cannot be read ({why})")
    if size is None:
        return _with_problem(base, f"its chunk '{printable_name(relative)}' is not a regular file")
    itemsize = array.itemsize
    chunk_bytes = math.prod(array.chunks) * itemsize
    if size != chunk_bytes:
        return _with_problem(base, f"its chunk file '{printable_name(relative)}' has {size} bytes, "
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


def _chunk_size(path: str) -> int | None:
    """The size of the chunk file ``path``; None when it is not a regular file.

    Raises
    ------
    FileNotFoundError
        Not written (no file, no object).
    OSError, SourceError
        It cannot be looked at (denied, unreachable).
    """
    if is_url(path):
        try:
            return object_size(path)
        except MissingObjectError:
            raise FileNotFoundError(path) from None
    info = os.stat(path)
    return info.st_size if stat.S_ISREG(info.st_mode) else None


def _with_problem(entry: TensorEntry, problem: str) -> TensorEntry:
    return TensorEntry(entry.name, None, entry.little_endian, entry.shape, 0, 0, entry.stored_type,
                       entry.extras, problem=f"zarr array '{printable_name(entry.name)}': {problem}")


FORMAT = ContainerFormat("zarr", sniff_zarr, list_zarr, zarr_values)
