"""What a whole-model command works on: every tensor of the paths it is given.

Rules
-----
- A path is a container file (any format :mod:`core.formats` lists; a TensorFlow checkpoint by
  prefix or folder, :func:`~core.formats.registry.container_path`), a raw file, or a folder.
- A folder is walked recursively, its files in *natural* order of their path relative to it
  (``layer2.bin`` before ``layer10.bin``; :func:`natural_key`); symbolic links to folders are
  not followed (no cycles), hidden files and folders (a leading ``.``) are skipped. A folder
  that is a TensorFlow checkpoint (a ``checkpoint`` file) or a SavedModel is that checkpoint.
- Every container is listed (headers only); each of its entries that can be had is a
  :class:`ModelTensor`, in the container's order, except where that order is only the string
  order of the names (:data:`NAME_SORTED_FORMATS`: safetensors writers sort their tensors by
  name, and sharded-model indexes their weight maps): those are taken in natural order (``layers.2`` before ``layers.10``), so "the first
  divergent tensor" follows the layers. An entry that cannot (a string, an opaque pickled object) is *skipped*
  with its reason, not an error.
- Files whose data a listed container already covers (a checkpoint's ``.data-*`` shards, the
  shards of a sharded-model index, ONNX external data) are not listed again.
- A file no format claims is a raw tensor when the caller gives a dtype (its decode options),
  else it is skipped (its reason says to give ``--dtype``); a ``.npy`` file is a tensor by its
  header.
- A path that does not exist, cannot be read or claims a format but cannot be listed is an
  *error* of that path; the others are still worked on. A file named like a container
  (:data:`CONTAINER_SUFFIXES`: ``.safetensors``, ``.gguf``, ...) whose content no format claims
  is an error too (a damaged or mislabelled file), never a raw tensor.
- At most :data:`MAX_FILES` files per run (a folder of more says so, as an error, and the first
  ones are still worked on) and at most :func:`~core.formats.reader.entry_limit` tensors per
  container (the listing says when it stopped).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from core.errors import CoreError, describe_error
from core.files.sources import open_source
from core.formats.entry import ContainerListing, TensorEntry, entry_file
from core.formats.reader import HeaderReader
from core.formats.registry import container_path, list_container
from core.pipeline.params import DecodeParams
from core.text.names import natural_key, printable_name

__all__ = ["CONTAINER_SUFFIXES", "MAX_FILES", "NAME_SORTED_FORMATS", "Inventory", "ModelTensor", "PathProblem", "inventory", "natural_key"]

#: Name endings that say a file is a container: one no format claims is damaged, not raw data.
CONTAINER_SUFFIXES = (".safetensors", ".gguf", ".tflite", ".onnx", ".keras", ".npz", ".pt", ".pth",
                      ".pt2", ".ckpt", ".index.json", ".h5", ".hdf5", ".tfrecord", ".wav", ".aiff")

#: Formats whose stored order is their writers' sort of the names, not the model's order.
NAME_SORTED_FORMATS = ("safetensors", "safetensors-index", "pytorch-index")

#: Most files one run looks at (a folder of more is cut, with an error saying so).
MAX_FILES = 100_000



@dataclass(frozen=True)
class ModelTensor:
    """One tensor to work on.

    ``path`` is the file it was listed from (a container, or the raw file itself); ``name`` the
    entry's name (a raw file's: its path relative to the folder given, or its base name);
    ``label`` what a table shows to tell tensors of several files apart (``file:name``, or the
    name alone when the run has one container). ``entry`` and ``listing`` are None for a raw
    file, which is decoded with ``params``.
    """

    path: str
    name: str
    label: str
    entry: TensorEntry | None
    listing: ContainerListing | None
    params: DecodeParams | None = None


@dataclass(frozen=True)
class PathProblem:
    """A path (and for a skipped entry its name) and what kept it out."""

    path: str
    message: str
    name: str | None = None


@dataclass(frozen=True)
class Inventory:
    """Every tensor of a run, in order, and what was left out."""

    tensors: tuple[ModelTensor, ...]
    errors: tuple[PathProblem, ...] = ()
    skipped: tuple[PathProblem, ...] = ()
    containers: tuple[ContainerListing, ...] = field(default=(), repr=False)


def inventory(paths: Iterable[str | os.PathLike], params: DecodeParams | None = None, *,
              cancelled: Callable[[], bool] | None = None, max_files: int = MAX_FILES) -> Inventory:
    """The tensors of ``paths`` (module rules). ``params``: how to decode raw files (their
    ``dtype`` given makes them tensors). ``cancelled`` is checked between files."""
    files: list[tuple[str, str]] = []  # (path to open, label prefix)
    errors: list[PathProblem] = []
    given = [os.fspath(p) for p in paths]
    for path in given:
        if os.path.isdir(path) and container_path(path) == path:
            found, more = _walk(path, max_files - len(files))
            files += [(file, os.path.relpath(file, path)) for file in found]
            if more:
                errors.append(PathProblem(path, f"the folder has more than {max_files:,} files: only "
                                                f"the first {max_files:,} are looked at (name a subfolder)"))
        elif len(files) < max_files:
            files.append((path, os.path.basename(os.path.normpath(path))))
    tensors: list[ModelTensor] = []
    skipped: list[PathProblem] = []
    listings: list[ContainerListing] = []
    covered: set[str] = set()
    listed: list[tuple[str, str, ContainerListing | None]] = []
    for path, prefix in files:
        if cancelled is not None and cancelled():
            break
        try:
            listing = _list(path)
        except CoreError as error:
            errors.append(PathProblem(path, describe_error(error).message))
            continue
        except OSError as error:
            errors.append(PathProblem(path, f"'{printable_name(path)}' cannot be read ({error.strerror or error})"))
            continue
        if listing is None and path.lower().endswith(CONTAINER_SUFFIXES):
            errors.append(PathProblem(path, f"'{printable_name(path)}' is named like a container, "
                                            "but no format recognises its content (a damaged or "
                                            "mislabelled file; `tensor-inspect --guess` looks at it "
                                            "as raw data)"))
            continue
        listed.append((path, prefix, listing))
        if listing is not None:
            listings.append(listing)
            covered.update(_data_files(listing) - {os.path.realpath(path)})
    listed = [item for item in listed if os.path.realpath(item[0]) not in covered]
    listings = [listing for listing in listings if os.path.realpath(listing.path) not in covered]
    several = len(listed) > 1
    for path, prefix, listing in listed:
        if listing is None:
            _raw(path, prefix, params, tensors, skipped)
            continue
        for problem in listing.problems:
            skipped.append(PathProblem(listing.path, problem))
        entries = listing.entries
        if listing.format in NAME_SORTED_FORMATS:
            entries = sorted(entries, key=lambda e: natural_key(e.name))
        for entry in entries:
            label = f"{prefix}:{entry.name}" if several else entry.name
            if not entry.readable:
                skipped.append(PathProblem(listing.path, entry.problem or f"its type {entry.stored_type} "
                                           "is not decoded", entry.name))
                continue
            tensors.append(ModelTensor(listing.path, entry.name, label, entry, listing))
    return Inventory(tuple(tensors), tuple(errors), tuple(skipped), tuple(listings))


def _walk(folder: str, room: int) -> tuple[list[str], bool]:
    """The files under ``folder`` in natural order, at most ``room``; and whether there were more."""
    found: list[str] = []
    more = False
    for root, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = sorted((d for d in dirs if not d.startswith(".")), key=natural_key)
        for name in sorted((n for n in names if not n.startswith(".")), key=natural_key):
            if len(found) >= room:
                more = True
                break
            found.append(os.path.join(root, name))
        if more:
            break
    found = [f for f in found if not _checkpoint_bookkeeping(f)]
    found.sort(key=lambda f: natural_key(os.path.relpath(f, folder)))
    return found, more


def _checkpoint_bookkeeping(path: str) -> bool:
    """TensorFlow's ``checkpoint`` file beside ``.index`` files (it names the latest prefix; the
    checkpoints themselves are listed by their ``.index``)."""
    if os.path.basename(path) != "checkpoint":
        return False
    try:
        return any(name.endswith(".index") for name in os.listdir(os.path.dirname(path) or "."))
    except OSError:
        return False


def _list(path: str) -> ContainerListing | None:
    with open_source(container_path(path)) as source:
        return list_container(HeaderReader(source, 0))


def _data_files(listing: ContainerListing) -> set[str]:
    """The real paths of the other files a listing's entries live in."""
    out = set()
    for entry in listing.entries:
        if entry.file is not None:
            try:
                out.add(os.path.realpath(entry_file(listing.path, entry)))
            except CoreError:
                continue
    return out


def _raw(path: str, prefix: str, params: DecodeParams | None, tensors: list[ModelTensor],
         skipped: list[PathProblem]) -> None:
    if path.lower().endswith(".npy") or (params is not None and params.dtype is not None):
        tensors.append(ModelTensor(path, prefix, prefix, None, None, params or DecodeParams()))
    else:
        skipped.append(PathProblem(path, f"'{printable_name(prefix)}' is not a container this tool "
                                         "lists: give --dtype (and the other decode options) to "
                                         "scan raw files"))
