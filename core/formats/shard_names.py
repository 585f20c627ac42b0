"""How sharded models name their files: ``PREFIX-0000k-of-0000n.EXT`` beside ``PREFIX.EXT.index.json``.

``transformers``' ``save_pretrained`` writes ``model-00001-of-00072.safetensors`` +
``model.safetensors.index.json``, or ``pytorch_model-00001-of-00002.bin`` +
``pytorch_model.bin.index.json``. A shard opened by itself names its index (the listing's
``sharded model`` metadata) so the user can open the whole set.
"""

from __future__ import annotations

import os
import re

from core.files.locations import folder_of, is_file, join

__all__ = ["shard_set_index", "shard_set_note"]

_SHARD_NAME = re.compile(r"-\d{5}-of-\d{5}\.(safetensors|bin)$")


def shard_set_index(path: str) -> str | None:
    """The ``PREFIX.EXT.index.json`` beside a shard named ``PREFIX-0000k-of-0000n.EXT`` (EXT:
    ``safetensors`` or ``bin``), when it exists; else None."""
    name = os.path.basename(path)
    match = _SHARD_NAME.search(name)
    if match is None:
        return None
    index = join(folder_of(path), f"{name[:match.start()]}.{match.group(1)}.index.json")
    return index if is_file(index) else None


def shard_set_note(path: str) -> dict[str, str]:
    """The metadata that points a shard to its index: ``{"sharded model": ...}``, or empty."""
    index = shard_set_index(path)
    if index is None:
        return {}
    return {"sharded model": (f"one shard of {os.path.basename(index)}: open the index to list "
                              "every tensor of every shard")}
