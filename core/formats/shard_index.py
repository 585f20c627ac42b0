"""Sharded models as one listing: ``model.safetensors.index.json`` or ``pytorch_model.bin.index.json``
and its shards.

What ``transformers``' ``save_pretrained`` and ``huggingface_hub`` write for models larger
than one shard: a JSON object ``{"metadata": {...}, "weight_map": {tensor name: shard file}}``
beside the shards (``model-00001-of-00072.safetensors``, ``pytorch_model-00001-of-00002.bin``:
each a ``torch.save`` zip). Rules:

- **Sniffed from content**: a JSON object whose first 4096 bytes hold a ``"weight_map"`` key
  (the index is small: at most 64 MiB of it is read, through the bounded header reads).
- **Each tensor is listed from its shard**: every shard named in the map is opened read-only and
  listed by its own format's reader (safetensors or PyTorch, told by the shard's content:
  headers, zip directory and pickle only, never data); the tensor's entry is the shard's, with
  ``file`` = the shard, so it is a view of the shard's map. The listing keeps the index's order
  of names and says its shards' format: ``safetensors-index`` or ``pytorch-index`` (by the
  first shard that could be listed; by the index's name when none could).
- **Problems, never crashes**: a shard that is missing, unreadable or of another format makes
  each of its tensors an entry with that problem; a name the map gives but its shard lacks, too;
  a shard path that is absolute or leaves the index's folder is refused for its tensors
  (``../../etc/passwd`` opens nothing); more than :data:`MAX_SHARDS` shards are refused.
- **Copies and computed entries** of a shard (a dequantized PyTorch tensor) get their values
  from the shard's own format's ``values`` hook, on the shard's file.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace

from core.errors import ContainerError, CoreError
from core.files.locations import folder_of, inside, is_file
from core.files.sources import Source, open_source
from core.formats import listing_control, pytorch, safetensors
from core.formats.entry import ContainerFormat, ContainerListing, EntryValues, TensorEntry
from core.formats.reader import HeaderReader, entry_limit, not_listed
from core.text.names import printable_name

__all__ = ["FORMAT", "MAX_SHARDS", "list_shard_index", "shard_values", "sniff_shard_index"]

#: Most shards one index may name.
MAX_SHARDS = 10_000

#: The formats a shard may have, and the name an index of such shards lists as.
_SHARD_FORMATS: tuple[tuple[ContainerFormat, str], ...] = (
    (safetensors.FORMAT, "safetensors-index"),
    (pytorch.FORMAT, "pytorch-index"),
)


def sniff_shard_index(head: bytes, size: int) -> bool:
    """A JSON object with a ``"weight_map"`` key in its first 4096 bytes."""
    text = head.lstrip(b" \t\r\n\xef\xbb\xbf")
    return text[:1] == b"{" and b'"weight_map"' in head


def list_shard_index(reader: HeaderReader) -> ContainerListing:
    """List every tensor of a sharded model from its shards (module rules).

    Raises
    ------
    ContainerError
        The index is not JSON, has no ``weight_map`` object, or names too many shards.
    """
    fix = "the file is not a valid sharded-model index; open it as raw bytes"
    text = reader.read(0, reader.size, "index JSON")
    try:
        index = json.loads(text.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise reader.error(f"it is not JSON ({str(error)[:120]})", None, fix) from None
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict):
        raise reader.error("it has no \"weight_map\" object (tensor name -> shard file)", None, fix)
    shards = list(dict.fromkeys(str(v) for v in weight_map.values()))
    if len(shards) > MAX_SHARDS:
        raise reader.error(f"it names {len(shards):,} shards, more than {MAX_SHARDS:,}", None, fix)
    folder = folder_of(reader.path)
    listed: dict[str, dict[str, TensorEntry] | str] = {}
    kinds: list[str] = []
    for shard in shards:
        listing_control.check()
        found = _shard_entries(folder, shard)
        if isinstance(found, tuple):
            kinds.append(found[0])
            found = found[1]
        listed[shard] = found
    name = kinds[0] if kinds else _index_name(reader.path)
    entries: list[TensorEntry] = listing_control.collecting(name)
    limit, left_out = entry_limit(), 0
    for tensor, shard in weight_map.items():
        if len(entries) >= limit:
            left_out += 1
            continue
        shard = str(shard)
        found = listed[shard]
        if isinstance(found, str):
            entries.append(_missing(str(tensor), shard, found))
        elif str(tensor) not in found:
            entries.append(_missing(str(tensor), shard, f"the shard '{printable_name(shard)}' has no "
                                    "tensor of that name (the index and its shards disagree)"))
        else:
            entries.append(found[str(tensor)])
    problems = [not_listed(left_out, "tensors")] if left_out else []
    metadata = {"shards": str(len(shards))}
    raw = index.get("metadata")
    if isinstance(raw, dict):
        metadata.update({str(k): str(v)[:200] for k, v in raw.items()})
    return ContainerListing(name, reader.path, tuple(entries), metadata, tuple(problems))


def _index_name(path: str) -> str:
    return "pytorch-index" if os.path.basename(path).lower().endswith(".bin.index.json") else "safetensors-index"


def _shard_format(reader: HeaderReader) -> tuple[ContainerFormat, str] | None:
    head = reader.head(4096)
    for shard_format, index_name in _SHARD_FORMATS:
        if shard_format.sniff(head, reader.size):
            return shard_format, index_name
    return None


def _shard_entries(folder: str, shard: str) -> tuple[str, dict[str, TensorEntry]] | str:
    """The index name its format gives and the shard's entries by name (each with ``file`` = the
    shard), or why there are none."""
    path = inside(folder, shard)
    if path is None:
        return (f"its shard '{printable_name(shard)}' is not inside the index's folder (an index "
                "may name only files beside it or below it)")
    if not is_file(path):
        return f"its shard '{printable_name(shard)}' is missing beside the index"
    try:
        with open_source(path) as source:
            reader = HeaderReader(source, 0)
            found = _shard_format(reader)
            if found is None:
                return f"its shard '{printable_name(shard)}' is neither a safetensors file nor a PyTorch checkpoint"
            reader.format = found[0].name
            listing = found[0].list(reader)
    except CoreError as error:
        return f"its shard cannot be listed: {error.message}"
    return found[1], {entry.name: _in_shard(entry, shard) for entry in listing.entries}


def shard_values(source: Source, entry: TensorEntry) -> EntryValues:
    """The values of a copy or computed entry of a shard (``source``: the shard's file), from
    the shard's own format's ``values`` hook.

    Raises
    ------
    ContainerError
        ``field="tensor"``: the shard's format gives no values for it, or its hook refuses it.
    """
    found = _shard_format(HeaderReader(source, 0))
    hook = None if found is None else found[0].values
    if hook is None:
        raise ContainerError(f"tensor '{printable_name(entry.name)}' of the shard "
                             f"'{printable_name(source.paths[0])}' has no values to compute "
                             "(the shard changed since it was listed?)", field="tensor")
    return hook(source, entry)


def _in_shard(entry: TensorEntry, shard: str) -> TensorEntry:
    return replace(entry, file=shard)


def _missing(name: str, shard: str, problem: str) -> TensorEntry:
    return TensorEntry(name, None, True, (), 0, 0, "", problem=problem, file=shard)


FORMAT = ContainerFormat("safetensors-index", sniff_shard_index, list_shard_index, shard_values,
                         also_names=tuple(name for _, name in _SHARD_FORMATS[1:]))
