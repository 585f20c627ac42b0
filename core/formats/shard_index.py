"""Sharded safetensors models as one listing: ``model.safetensors.index.json`` + its shards.

What ``transformers``' ``save_pretrained`` and ``huggingface_hub`` write for models larger
than one shard: a JSON object ``{"metadata": {...}, "weight_map": {tensor name: shard file}}``
beside the shards (``model-00001-of-00072.safetensors``). Rules:

- **Sniffed from content**: a JSON object whose first 4096 bytes hold a ``"weight_map"`` key
  (the index is small: at most 64 MiB of it is read, through the bounded header reads).
- **Each tensor is listed from its shard**: every shard named in the map is opened read-only and
  its header listed by the safetensors reader (headers only, never data); the tensor's entry is
  the shard's, with ``file`` = the shard, so it is a view of the shard's map. The listing keeps
  the index's order of names.
- **Problems, never crashes**: a shard that is missing, unreadable or not safetensors makes
  each of its tensors an entry with that problem; a name the map gives but its shard lacks, too;
  a shard path that is absolute or leaves the index's folder is refused for its tensors
  (``../../etc/passwd`` opens nothing); more than :data:`MAX_SHARDS` shards are refused.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace

from core.errors import CoreError
from core.files.sources import open_source
from core.formats import listing_control
from core.formats.entry import ContainerFormat, ContainerListing, TensorEntry
from core.formats.reader import HeaderReader, entry_limit, not_listed
from core.formats.safetensors import list_safetensors, sniff_safetensors
from core.text.names import printable_name

__all__ = ["FORMAT", "MAX_SHARDS", "list_shard_index", "sniff_shard_index"]

#: Most shards one index may name.
MAX_SHARDS = 10_000


def sniff_shard_index(head: bytes, size: int) -> bool:
    """A JSON object with a ``"weight_map"`` key in its first 4096 bytes."""
    text = head.lstrip(b" \t\r\n\xef\xbb\xbf")
    return text[:1] == b"{" and b'"weight_map"' in head


def list_shard_index(reader: HeaderReader) -> ContainerListing:
    """List every tensor of a sharded model from its shards' headers (module rules).

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
    folder = os.path.dirname(os.path.abspath(reader.path))
    listed: dict[str, dict[str, TensorEntry] | str] = {}
    for shard in shards:
        listing_control.check()
        listed[shard] = _shard_entries(folder, shard)
    entries: list[TensorEntry] = listing_control.collecting("safetensors-index")
    limit, left_out = entry_limit(), 0
    for name, shard in weight_map.items():
        if len(entries) >= limit:
            left_out += 1
            continue
        shard = str(shard)
        found = listed[shard]
        if isinstance(found, str):
            entries.append(_missing(str(name), shard, found))
        elif str(name) not in found:
            entries.append(_missing(str(name), shard, f"the shard '{printable_name(shard)}' has no "
                                    "tensor of that name (the index and its shards disagree)"))
        else:
            entries.append(found[str(name)])
    problems = [not_listed(left_out, "tensors")] if left_out else []
    metadata = {"shards": str(len(shards))}
    raw = index.get("metadata")
    if isinstance(raw, dict):
        metadata.update({str(k): str(v)[:200] for k, v in raw.items()})
    return ContainerListing("safetensors-index", reader.path, tuple(entries), metadata, tuple(problems))


def _shard_entries(folder: str, shard: str) -> dict[str, TensorEntry] | str:
    """The shard's entries by name (each with ``file`` = the shard), or why there are none."""
    path = os.path.normpath(os.path.join(folder, shard))
    if os.path.isabs(shard) or os.path.commonpath([folder, path]) != folder:
        return (f"its shard '{printable_name(shard)}' is not inside the index's folder (an index "
                "may name only files beside it or below it)")
    if not os.path.isfile(path):
        return f"its shard '{printable_name(shard)}' is missing beside the index"
    try:
        with open_source(path) as source:
            reader = HeaderReader(source, 0, "safetensors")
            if not sniff_safetensors(reader.head(4096), reader.size):
                return f"its shard '{printable_name(shard)}' is not a safetensors file"
            listing = list_safetensors(reader)
    except CoreError as error:
        return f"its shard cannot be listed: {error.message}"
    return {entry.name: _in_shard(entry, shard) for entry in listing.entries}


def _in_shard(entry: TensorEntry, shard: str) -> TensorEntry:
    return replace(entry, file=shard)


def _missing(name: str, shard: str, problem: str) -> TensorEntry:
    return TensorEntry(name, None, True, (), 0, 0, "", problem=problem, file=shard)


FORMAT = ContainerFormat("safetensors-index", sniff_shard_index, list_shard_index)
