"""Keras weights: ``.weights.h5`` and legacy ``.h5`` files (HDF5), and ``.keras`` archives (a zip).

Every Keras weight is an HDF5 dataset, stored contiguously by Keras' writers: the entries are
the datasets :mod:`core.formats.hdf5` lists (views, or h5py copies for chunked ones), renamed
after Keras' own names; each entry keeps its dataset path in ``extras["dataset"]``.

Names
-----
- Keras 3 ``.weights.h5`` (``model.save_weights``): datasets ``layers/<layer>/vars/<i>``
  (nested models ``layers/<model>/layers/<layer>/vars/<i>``, the optimizer
  ``optimizer/vars/<i>``). ``<layer>`` is Keras' saving path (the snake-cased class name made
  unique: ``dense``, ``dense_1``), not the layer's own name, which the ``vars`` group's ``name``
  attribute holds (``extras["object"]``). The file does not name the variables: the names are
  the dataset paths, in layer path order with the variable numbers in numeric order.
- In a ``.keras`` archive, ``config.json`` gives each layer's class and configuration: where it
  says unambiguously which variables a built-in layer has (:data:`_VARIABLES`: ``Dense``
  without LoRA has ``kernel`` and, with ``use_bias``, ``bias``; ``BatchNormalization`` has
  ``gamma``/``beta`` as ``scale``/``center`` say, ``moving_mean``, ``moving_variance``...) and
  the file holds exactly that many, ``vars/<i>`` becomes the variable's name
  (``layers/dense/kernel``); any other layer keeps ``vars/<i>``.
- Legacy HDF5 (Keras 2 / tf_keras ``model.save("x.h5")`` and ``save_weights("x.h5")``, Keras 3's
  legacy writer): datasets ``[model_weights/]<layer>/<weight name>``; the names are the weight
  names (``dense/kernel:0``), in the order of the ``layer_names`` and ``weight_names``
  attributes (the model's order, what ``get_weights`` returns); the optimizer's
  (``optimizer_weights``) are named by their dataset path. A dataset those attributes do not
  name keeps its path.
- Any other HDF5 file is listed as plain HDF5 (format ``hdf5``).

``.keras`` archives
-------------------
The zip's directory is read as for ``.npz`` and PyTorch (:mod:`core.formats.npz`'s bounded zip
reader; the member's data span by :mod:`core.formats.pytorch`'s checks: encrypted, truncated,
overlapping members refused). Keras writes ``model.weights.h5`` stored (ZIP_STORED): then the
HDF5 file is read in place, through a file object restricted to the member's bytes, and every
contiguous dataset is a view of the ``.keras`` file (offset = the member's first data byte + the
dataset's offset in the member). A compressed member is decompressed into memory (its size
checked against the copy budget first) to list it, and each weight is a copy
(``extras["compressed"]``) read from the decompressed member by the values hook. An archive
with a member whose name is absolute or climbs out of it (``../x``), or without
``model.weights.h5``, is refused with a message naming the file and the member.
``metadata.json`` (Keras version, date saved) and the model's class go in the metadata; the
legacy files' ``keras_version`` and ``backend`` attributes too.

Sniffing: the HDF5 signature with Keras' words in the first 4096 bytes (``keras_version``, or
``layers`` and ``vars`` in the root group's names), or a zip whose first member is one Keras
writes first. Isolation: plain HDF5 files are listed by :func:`core.formats.hdf5.list_hdf5`
and their copies read by :func:`core.formats.hdf5.hdf5_values`; the group attributes
(:func:`_group_attrs`) and the weights member of an archive (:func:`_walk_member`,
:func:`keras_values`) are read by h5py in the HDF5 worker too (:mod:`core.formats.hdf5_worker`:
a stored member as a byte range of the archive's descriptor, a decompressed one as an
anonymous in-memory file), never in this process.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import struct
import zipfile
import zlib

import numpy as np

from core.budget import check_copy_budget
from core.errors import ContainerError, CoreError
from core.files.sources import FileSource
from core.formats import hdf5, hdf5_worker
from core.formats.entry import ContainerFormat, ContainerListing, EntryValues, Storage, TensorEntry
from core.formats.hdf5_worker import FileRange, WorkerFile
from core.formats.listing_control import ListingCancelled
from core.formats.npz import _ReaderFile, _SourceFile
from core.formats.reader import HeaderReader
from core.formats.zip_members import LOCAL_HEADER, member_span
from core.text.names import printable_name

__all__ = ["FORMAT", "WEIGHTS_MEMBER", "keras_values", "list_keras", "sniff_keras"]

#: The weights member of a ``.keras`` archive.
WEIGHTS_MEMBER = "model.weights.h5"
#: The members Keras writes first (any of them first: a Keras archive).
_FIRST_MEMBERS = (b"metadata.json", b"config.json", b"model.weights.h5")
#: Most bytes of ``config.json`` / ``metadata.json`` read.
_MAX_JSON = 16 * 1024 * 1024
_VARS = re.compile(r"^(?:(.*)/)?vars/(\d+)$")

def _dense_like(kernel: str):
    def names(config: dict) -> list[str] | None:
        if config.get("lora_rank") or _quantized(config):
            return None
        return [kernel] + (["bias"] if config.get("use_bias", True) else [])
    return names


def _quantized(config: dict) -> bool:
    dtype = config.get("dtype")
    text = json.dumps(dtype) if isinstance(dtype, dict) else str(dtype)
    return "int8" in text or "int4" in text or "float8" in text or "quantiz" in text


def _normalization(tail: list[str]):
    def names(config: dict) -> list[str] | None:
        return ((["gamma"] if config.get("scale", True) else [])
                + (["beta"] if config.get("center", True) else []) + tail)
    return names


#: Class name -> the variables its ``build`` creates in order, from its config (None: not known
#: from the config alone). Only Keras' built-in layers whose variables the config fixes.
_VARIABLES = {
    "Dense": _dense_like("kernel"),
    "Conv1D": _dense_like("kernel"), "Conv2D": _dense_like("kernel"), "Conv3D": _dense_like("kernel"),
    "Conv1DTranspose": _dense_like("kernel"), "Conv2DTranspose": _dense_like("kernel"),
    "Conv3DTranspose": _dense_like("kernel"),
    "DepthwiseConv1D": _dense_like("depthwise_kernel"), "DepthwiseConv2D": _dense_like("depthwise_kernel"),
    "Embedding": lambda config: None if config.get("lora_rank") or _quantized(config) else ["embeddings"],
    "BatchNormalization": _normalization(["moving_mean", "moving_variance"]),
    "LayerNormalization": _normalization([]),
}


def sniff_keras(head: bytes, size: int) -> bool:
    """A zip whose first member is one Keras writes first (``metadata.json``...), or an HDF5 file
    whose first bytes (its root group's attributes and first names) hold Keras' words:
    ``keras_version`` (legacy files), or both ``layers`` and ``vars`` (Keras 3 weights). An HDF5
    file whose Keras names lie further in is listed as plain HDF5."""
    if hdf5.sniff_hdf5(head, size):
        return b"keras_version" in head or (b"layers\0" in head and b"vars\0" in head)
    if len(head) < 30 or head[:4] != LOCAL_HEADER:
        return False
    (name_length,) = struct.unpack("<H", head[26:28])
    return head[30:30 + name_length] in _FIRST_MEMBERS


def list_keras(reader: HeaderReader) -> ContainerListing:
    """The weights of a Keras file by Keras' names (module rules).

    Raises
    ------
    ContainerError
        The HDF5 library cannot open it (or h5py is missing); an archive without its weights
        member, with a member escaping it, or whose weights member cannot be read.
    """
    if reader.head(4) == LOCAL_HEADER:
        return _list_archive(reader)
    listing = hdf5.list_hdf5(reader)
    names = [entry.name for entry in listing.entries]
    if names and all(_VARS.match(name) for name in names):
        groups = sorted({(m.group(1) + "/vars") if m.group(1) else "vars"
                         for m in map(_VARS.match, names)})
        attrs = _group_attrs(reader.source, reader.index, groups)
        layer_names = {group: _strings(a["name"])[0] for group, a in attrs.items()
                       if _strings(a.get("name"))}
        return _keras3(listing, listing.entries, layer_names, {})
    if "keras_version" in listing.metadata or "layer_names" in listing.metadata or \
            any(name.startswith("model_weights/") for name in names):
        attrs = _group_attrs(reader.source, reader.index, _legacy_groups(names))
        return _legacy(listing, attrs)
    return listing


# ---------------------------------------------------------------------- Keras 3 names
def _natural(name: str) -> tuple:
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in name.split("/"))


def _keras3(listing: ContainerListing, entries, layer_names: dict[str, str],
            config: dict[str, tuple[str, dict]], metadata: dict[str, str] | None = None,
            path: str | None = None) -> ContainerListing:
    """The listing of a Keras 3 weights file: ``entries`` (its datasets) by path, renamed after
    the layer's variables where ``config`` (layer name -> class, config) fixes them;
    ``layer_names``: ``vars`` group path -> the layer's own name (its ``name`` attribute)."""
    ordered = sorted(entries, key=lambda e: _natural(e.name))
    numbers: dict[str, list[int]] = {}  # vars group's owner -> its variable numbers
    for entry in ordered:
        group, index = _VARS.match(entry.name).groups()
        numbers.setdefault(group or "", []).append(int(index))
    taken = {entry.name for entry in ordered}
    renamed = []
    for entry in ordered:
        group, index = _VARS.match(entry.name).groups()
        group = group or ""
        extras = dict(entry.extras, dataset=entry.name)
        name = entry.name
        layer = layer_names.get(f"{group}/vars" if group else "vars")
        if layer is not None:
            extras["object"] = layer
            known = config.get(layer) if group.startswith("layers/") else None  # not the optimizer
            if known is not None:
                extras["class"] = known[0]
                variables = _VARIABLES.get(known[0], lambda c: None)(known[1])
                # named only when the file holds exactly the variables the config gives: 0..n-1
                if variables is not None and sorted(numbers[group]) == list(range(len(variables))):
                    candidate = f"{group}/{variables[int(index)]}"
                    if candidate not in taken:
                        name = candidate
                        taken.add(candidate)
        renamed.append(dataclasses.replace(entry, name=name, extras=extras, problem=_renamed_problem(entry, name)))
    return ContainerListing("keras", path or listing.path, tuple(renamed),
                            {**listing.metadata, **(metadata or {}), "layout": "Keras 3 weights (layers/<layer>/vars/<i>)"},
                            listing.problems)


def _renamed_problem(entry: TensorEntry, name: str) -> str | None:
    if entry.problem is None or name == entry.name:
        return entry.problem
    return entry.problem.replace(repr(entry.name), f"{name!r} ({entry.name!r})", 1)


# ---------------------------------------------------------------------- legacy names
def _legacy_groups(names: list[str]) -> list[str]:
    """The groups whose attributes name a legacy file's weights: the root, ``model_weights``,
    ``optimizer_weights`` and every layer group (first path part under them)."""
    groups = {"", "model_weights", "optimizer_weights"}
    for name in names:
        parts = name.split("/")
        if parts[0] == "model_weights" and len(parts) > 2:
            groups.add("model_weights/" + parts[1])
        elif len(parts) > 1:
            groups.add(parts[0])
    return sorted(groups)


def _legacy(listing: ContainerListing, attrs: dict[str, dict[str, object]]) -> ContainerListing:
    by_path = {entry.name: entry for entry in listing.entries}
    base = "model_weights" if "model_weights" in attrs and "layer_names" in attrs["model_weights"] else ""
    top = attrs.get(base, {})
    metadata = dict(listing.metadata)
    for key in ("keras_version", "backend"):
        if key in top:
            metadata[key] = str(top[key])
    metadata["layout"] = "legacy Keras HDF5 (" + (f"{base}/" if base else "") + "<layer>/<weight name>)"
    metadata.pop("layer_names", None)  # the names are the listing's
    metadata.pop("model_config", None)
    metadata.pop("training_config", None)
    entries: list[TensorEntry] = []
    used: set[str] = set()
    names: set[str] = set()

    def add(path: str, name: str) -> None:
        entry = by_path.get(path)
        if entry is None or path in used:
            return
        used.add(path)
        if name in names or name in by_path and name != path:
            name = path
        names.add(name)
        entries.append(dataclasses.replace(entry, name=name, extras=dict(entry.extras, dataset=path),
                                           problem=_renamed_problem(entry, name)))

    for layer in _strings(top.get("layer_names")):
        group = f"{base}/{layer}" if base else layer
        for weight in _strings(attrs.get(group, {}).get("weight_names")):
            add(f"{group}/{weight}", weight)
    for weight in _strings(attrs.get("optimizer_weights", {}).get("weight_names")):
        add(f"optimizer_weights/{weight}", f"optimizer_weights/{weight}")
    for entry in listing.entries:  # anything the attributes do not name: by its path
        add(entry.name, entry.name)
    problems = listing.problems
    if not _strings(top.get("layer_names")):
        problems += ("keras: the file has no layer_names attribute, so its weights are named by "
                     "their HDF5 paths",)
    return ContainerListing("keras", listing.path, tuple(entries), metadata, problems)


def _strings(value: object) -> list[str]:
    """An HDF5 attribute holding names (an array of bytes or str) as a list of str."""
    if value is None:
        return []
    items = np.asarray(value).ravel().tolist() if not isinstance(value, (str, bytes)) else [value]
    return [item.decode("utf-8", "surrogateescape") if isinstance(item, bytes) else str(item)
            for item in items]


def _group_attrs(source: FileSource, index: int, groups: list[str]) -> dict[str, dict[str, object]]:
    """The attributes of ``groups`` of file ``index`` (missing groups left out), read by h5py
    in a worker process (:mod:`core.formats.hdf5_worker`)."""
    where = f"the keras file '{printable_name(source.paths[index])}'"
    try:
        file = hdf5.file_range(source, index)
    except OSError as error:
        answer: tuple = ("unread", str(error)[:160])
    else:
        answer = hdf5_worker.run(_attrs_in_worker, file, groups, where=where,
                                 what="reading its layer attributes")
    if answer[0] == "unread":
        raise ContainerError(f"{where}: its layer attributes cannot be read ({answer[1]}) (the "
                             "file is corrupt)", field="files")
    return answer[1]


def _attrs_in_worker(file: WorkerFile, groups: list[str]) -> tuple:
    """In the worker: ``("read", attributes)``, or ``("unread", why)``."""
    try:
        with file.open() as handle:
            return ("read", _attrs_of(handle, groups))
    except (OSError, RuntimeError, ValueError, KeyError, TypeError) as error:
        return ("unread", str(error)[:160])


def _attrs_of(handle, groups: list[str]) -> dict[str, dict[str, object]]:
    found: dict[str, dict[str, object]] = {}
    for group in groups:
        try:
            item = handle[group] if group else handle
            found[group] = {key: item.attrs[key] for key in ("layer_names", "weight_names",
                                                              "keras_version", "backend", "name")
                            if key in item.attrs}
        except (KeyError, OSError, ValueError, TypeError, RuntimeError):
            continue
    return found


# ---------------------------------------------------------------------- .keras archives
def _open_archive(reader: HeaderReader) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(_ReaderFile(reader), "r")
    except ListingCancelled:
        raise
    except CoreError as error:
        raise reader.error(f"its zip directory cannot be read ({error})", None,
                           "the file is truncated or corrupt") from None
    except Exception as error:  # zipfile's many ways of saying "not a zip"
        raise reader.error(f"its zip directory cannot be read ({str(error)[:120]})", None,
                           "the file is truncated or corrupt") from None


def _escapes(name: str) -> bool:
    parts = name.replace("\\", "/").split("/")
    return name.startswith(("/", "\\")) or ".." in parts or (len(name) > 1 and name[1] == ":")


def _span(reader: HeaderReader, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> tuple[int, int] | str:
    """The stored member's data span, by the checks of PyTorch's zips (:func:`member_span`)."""
    return member_span(reader, info, sorted(i.header_offset for i in archive.infolist()),
                       archive.start_dir)


def _list_archive(reader: HeaderReader) -> ContainerListing:
    reader.format = "keras"
    archive = _open_archive(reader)
    with archive:
        members = {info.filename: info for info in archive.infolist()}
        for name in members:
            if _escapes(name):
                raise reader.error(f"its member {printable_name(name)!r} names a path outside the "
                                   "archive (absolute or with '..'): Keras archives never do", None,
                                   "the file is hand-made or hostile; nothing was extracted")
        info = members.get(WEIGHTS_MEMBER)
        if info is None:
            raise reader.error(f"it has no {WEIGHTS_MEMBER} member, so no weights (its members: "
                               f"{', '.join(printable_name(n) for n in list(members)[:8]) or 'none'})",
                               None, "save the model again with model.save('x.keras')")
        metadata = {"archive": "Keras (.keras)"}
        about = _json_member(reader, archive, members.get("metadata.json"))
        for key in ("keras_version", "date_saved"):
            if isinstance(about, dict) and key in about:
                metadata[key] = str(about[key])[:200]
        config_json = _json_member(reader, archive, members.get("config.json"))
        config = _layer_configs(config_json)
        if isinstance(config_json, dict) and "class_name" in config_json:
            metadata["model"] = str(config_json["class_name"])[:200]
        if info.flag_bits & 0x1:
            raise reader.error(f"its {WEIGHTS_MEMBER} member is encrypted", None,
                               "decrypt the archive first")
        if info.compress_type == zipfile.ZIP_STORED:
            span = _span(reader, archive, info)
            if isinstance(span, str):
                raise reader.error(f"its {WEIGHTS_MEMBER} member cannot be read in place: {span}",
                                   None, "the file is truncated or corrupt")
            start = span[0]
            member = _member_range(reader.source, reader.index, start, info.file_size)
            compressed = None
        else:
            start = info.header_offset
            compressed = {zipfile.ZIP_DEFLATED: "deflate", zipfile.ZIP_BZIP2: "bzip2",
                          zipfile.ZIP_LZMA: "lzma"}.get(info.compress_type, f"method {info.compress_type}")
            member = hdf5_worker.bytes_range(_member_bytes(reader.source, reader.index, info), reader.path)
        with member as file:
            entries, layer_names, problems = _walk_member(reader.path, file)
    if compressed is None:
        entries = [_moved(entry, start, info.file_size) for entry in entries]
    else:
        entries = [_compressed(entry, compressed, start, info.compress_size) for entry in entries]
    if entries and not all(_VARS.match(e.name) for e in entries):
        problems.append("keras: its weights member is not in Keras 3's layout (layers/<layer>/vars/<i>); "
                        "its datasets are named by their HDF5 paths")
        return ContainerListing("keras", reader.path, tuple(
            dataclasses.replace(e, extras=dict(e.extras, dataset=e.name)) for e in entries),
            metadata, tuple(problems))
    plain = ContainerListing("keras", reader.path, (), {}, tuple(problems))
    return _keras3(plain, entries, layer_names, config, metadata, reader.path)


def _json_member(reader: HeaderReader, archive: zipfile.ZipFile, info: zipfile.ZipInfo | None) -> object:
    if info is None or info.file_size > _MAX_JSON:
        return None
    try:
        with archive.open(info) as member:
            return json.loads(member.read(_MAX_JSON + 1))
    except CoreError:
        raise
    except Exception:  # a damaged config: names stay vars/<i>
        return None


def _layer_configs(config: object) -> dict[str, tuple[str, dict]]:
    """Layer name -> (class name, config) of every layer ``config.json`` describes (nested
    models too); a name given twice is left out (ambiguous)."""
    found: dict[str, tuple[str, dict]] = {}
    twice: set[str] = set()
    stack = [config]
    seen = 0
    while stack and seen < 100_000:
        seen += 1
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            inner = item.get("config")
            if isinstance(item.get("class_name"), str) and isinstance(inner, dict) \
                    and isinstance(inner.get("name"), str):
                name = inner["name"]
                if name in found:
                    twice.add(name)
                found[name] = (item["class_name"], inner)
            stack.extend(v for v in item.values() if isinstance(v, (dict, list)))
    return {name: value for name, value in found.items() if name not in twice}


def _member_bytes(source: FileSource, index: int, info: zipfile.ZipInfo) -> bytes:
    """A compressed weights member decompressed (budget-checked first, CRC checked by zipfile),
    its data read through the source (member data, not header bytes: no header limit)."""
    path = source.paths[index]
    check_copy_budget(info.file_size, f"decompressing the {WEIGHTS_MEMBER} member of "
                      f"'{printable_name(path)}'", "save it uncompressed (model.save writes it stored)",
                      field="files")
    try:
        with zipfile.ZipFile(_SourceFile(source, index), "r") as archive, archive.open(info) as member:
            data = member.read(info.file_size + 1)
    except CoreError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError, RuntimeError,
            zlib.error) as error:
        raise ContainerError(f"the keras file '{printable_name(path)}': its {WEIGHTS_MEMBER} member "
                             f"does not decompress ({str(error)[:160]}) (the file is corrupt)",
                             field="files") from None
    if len(data) != info.file_size:
        raise ContainerError(f"the keras file '{printable_name(path)}': its {WEIGHTS_MEMBER} member "
                             f"decompresses to {len(data)} bytes, not {info.file_size} (corrupt)",
                             field="files")
    return data


@contextlib.contextmanager
def _member_range(source: FileSource, index: int, start: int, size: int):
    """The stored weights member (``size`` bytes from ``start``) as a worker's file range."""
    try:
        yield hdf5.file_range(source, index, start, size)
    except OSError as error:
        raise ContainerError(f"the keras file '{printable_name(source.paths[index])}': its "
                             f"{WEIGHTS_MEMBER} member cannot be read ({error})", field="files") from None


def _h5_open(file: WorkerFile):
    """In the worker: the weights member opened by h5py (a ContainerError if it cannot be)."""
    try:
        return file.h5py, file.open()
    except (OSError, ValueError, RuntimeError) as error:
        raise ContainerError(f"the keras file '{printable_name(file.path)}': the HDF5 library cannot open "
                             f"its {WEIGHTS_MEMBER} member ({str(error)[:160]}) (the file is "
                             "truncated or corrupt)", field="files") from None


def _require_h5py(path: str, field: str) -> None:
    if not hdf5.h5py_installed():
        raise ContainerError(f"the keras file '{printable_name(path)}': reading its weights needs "
                             "the h5py package (pip install 'tensor-inspector[hdf5]')", field=field)


def _walk_member(path: str, file: FileRange) -> tuple[list[TensorEntry], dict[str, str], list[str]]:
    """The datasets of the weights member (offsets in the member), the ``vars`` groups' layer
    names, and problems; as :func:`core.formats.hdf5.list_hdf5` lists a whole file, by h5py in
    a worker process (:mod:`core.formats.hdf5_worker`)."""
    _require_h5py(path, "files")
    return hdf5_worker.run(_walk_in_worker, file, os.path.dirname(os.path.abspath(path)),
                           where=f"the keras file '{printable_name(path)}'",
                           what=f"listing its {WEIGHTS_MEMBER} member")


def _walk_in_worker(file: WorkerFile, folder: str) -> tuple[list[TensorEntry], dict[str, str], list[str]]:
    """In the worker: :func:`_walk_member`'s answer."""
    h5py, handle = _h5_open(file)
    entries: list[TensorEntry] = []
    layer_names: dict[str, str] = {}
    problems: list[str] = []
    with handle:
        def visit(name, item):
            text = hdf5._text_name(name)
            if isinstance(item, h5py.Dataset):
                if len(entries) >= hdf5.MAX_DATASETS:
                    problems.append(f"keras: only the first {hdf5.MAX_DATASETS} datasets are listed")
                    return True
                try:
                    others = _virtual_sources(h5py, item)
                    if others:  # libhdf5 finds them by path: never from inside an archive
                        entry = TensorEntry(text, None, True, tuple(item.shape or ()), 0, 0, item.dtype.str,
                                            problem=(f"HDF5 dataset {text!r}: a virtual dataset inside the "
                                                     f"{WEIGHTS_MEMBER} member whose sources are other "
                                                     f"files ({', '.join(others)}), which libhdf5 cannot "
                                                     "find from inside an archive"))
                    else:
                        entry = hdf5._dataset_entry(h5py, text, item, folder)
                    entries.append(entry)
                except hdf5._LIBRARY_ERRORS as error:
                    entries.append(TensorEntry(text, None, True, (), 0, 0, "", problem=(
                        f"HDF5 dataset {text!r}: the HDF5 library cannot read its description "
                        f"({str(error)[:160]}) (the file is corrupt)")))
            elif text == "vars" or text.endswith("/vars"):
                try:
                    value = item.attrs.get("name")
                except hdf5._LIBRARY_ERRORS:
                    value = None
                if value is not None:
                    layer_names[text] = _strings(value)[0] if _strings(value) else str(value)
            return None

        try:
            handle.visititems(visit)
        except (OSError, RuntimeError, ValueError, KeyError, TypeError) as error:
            problems.append(f"keras: the walk through the weights member stopped ({str(error)[:160]})")
    return entries, layer_names, problems


def _virtual_sources(h5py, dataset) -> list[str]:
    """The source files of a virtual dataset other than its own file (``"."``), sorted."""
    plist = dataset.id.get_create_plist()
    if plist.get_layout() != getattr(h5py.h5d, "VIRTUAL", -1):
        return []
    names = {plist.get_virtual_filename(i) for i in range(plist.get_virtual_count())}
    return sorted(printable_name(name) for name in names - {"."})


def _moved(entry: TensorEntry, start: int, size: int) -> TensorEntry:
    """An entry of the stored member, its offset made an offset of the ``.keras`` file; a
    dataset said to lie beyond the member's ``size`` bytes has that problem (never a view of
    other bytes of the archive)."""
    extras = dict(entry.extras, member=WEIGHTS_MEMBER, **{"member offset": start})
    if entry.storage is Storage.VIEW and entry.dtype is not None and entry.problem is None:
        if entry.offset + entry.nbytes > size:
            return dataclasses.replace(entry, dtype=None, extras=extras, problem=(
                f"HDF5 dataset {entry.name!r}: its {entry.nbytes} bytes from byte {entry.offset} of "
                f"the {WEIGHTS_MEMBER} member reach past the member's {size} bytes (the archive "
                "is corrupt or hand-made)"))
        return dataclasses.replace(entry, offset=entry.offset + start, extras=extras)
    return dataclasses.replace(entry, extras=extras)


def _compressed(entry: TensorEntry, method: str, start: int, size: int) -> TensorEntry:
    """An entry of a compressed member: a copy, read from the decompressed member."""
    if entry.dtype is None:
        return dataclasses.replace(entry, extras=dict(entry.extras, member=WEIGHTS_MEMBER))
    extras = dict(entry.extras, member=WEIGHTS_MEMBER, compressed=method)
    return dataclasses.replace(entry, offset=start, nbytes=size, storage=Storage.COPY, extras=extras)


# ---------------------------------------------------------------------- values
def keras_values(source: FileSource, entry: TensorEntry) -> EntryValues:
    """The format's ``values`` hook: a dataset of a compressed weights member (decompressed,
    then read by h5py), of a stored member (chunked or compact: read by h5py in place), or of
    an HDF5 file (:func:`core.formats.hdf5.hdf5_values` by its dataset path)."""
    dataset = entry.extras.get("dataset", entry.name)
    if not isinstance(dataset, str):
        raise ContainerError(f"'{entry.name}' has no HDF5 dataset path", field="tensor")
    if entry.extras.get("member") != WEIGHTS_MEMBER:
        values = hdf5.hdf5_values(source, dataclasses.replace(entry, name=dataset))
        return dataclasses.replace(values, note=values.note.replace(f"'{dataset}'", f"'{entry.name}'", 1))
    path = source.paths[0]
    where = f"the keras file '{printable_name(path)}': tensor {printable_name(entry.name)!r}"
    reader = HeaderReader(source, 0, "keras")
    with _open_archive(reader) as archive:
        try:
            info = archive.getinfo(WEIGHTS_MEMBER)
        except KeyError:
            raise ContainerError(f"{where}: the archive no longer has {WEIGHTS_MEMBER} (list it again)",
                                 field="tensor") from None
        if info.compress_type == zipfile.ZIP_STORED:
            span = _span(reader, archive, info)
            if isinstance(span, str):
                raise ContainerError(f"{where}: {span}", field="tensor")
            member = _member_range(source, 0, span[0], info.file_size)
        else:
            _require_h5py(path, "tensor")
            member = hdf5_worker.bytes_range(_member_bytes(source, 0, info), path)
    _require_h5py(path, "tensor")
    with member as file:
        array = hdf5_worker.run(hdf5.read_dataset, file, hdf5._stored_name(dataset), where,
                                f"reading Keras weight {entry.name!r}", "open a smaller weight",
                                where=where, what="reading it", field="tensor",
                                read_bytes=hdf5.expected_bytes(entry))
    how = "decompressed" if "compressed" in entry.extras else "read by h5py"
    what = (f"'{entry.name}' is in the {WEIGHTS_MEMBER} member, compressed ({entry.extras['compressed']}): "
            "these are its values from the decompressed member" if "compressed" in entry.extras else
            f"'{entry.name}' is not one byte range of the {WEIGHTS_MEMBER} member: these are its values "
            "as h5py reads them")
    return EntryValues.stored_copy(array, how, what)


FORMAT = ContainerFormat("keras", sniff_keras, list_keras, keras_values)
