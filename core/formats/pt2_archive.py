"""``torch.export`` archives (``.pt2``, written by ``torch.export.save``): their weights and
constants as the tensor records the PyTorch lister turns into entries.

Layout (the PT2 archive format, ``archive_format`` = ``pt2``): a zip of stored members under one
folder; ``data/weights/<model>_weights_config.json`` (and ``data/constants/<model>_constants_config.json``)
map each fully qualified name to a ``path_name`` (a member beside the config holding the raw bytes
of the tensor's whole storage, shared by the tensors on it) and a ``tensor_meta``: dtype (the
serializer's ``ScalarType`` number), ``sizes``, ``strides`` and ``storage_offset`` (each
``{"as_int": n}``) and ``layout``. The program itself (``models/<model>.json``) is not read.

Rules
-----
- Names are the fully qualified names (``lin.weight``); constants are under ``constants/``;
  with several models in one archive each name starts with its model's (``model/lin.weight``).
- Each tensor becomes a :class:`~core.formats.pytorch_pickle.Tensor` on an untyped storage (the
  member's bytes) with its dtype, so it is checked and shown by the PyTorch rules exactly like a
  ``torch.save`` tensor: a view of the archive, strides when not C-contiguous, shared bytes named.
- A tensor saved pickled (``use_pickle``: a tensor subclass), a symbolic size, a layout other than
  strided or an unknown dtype number is an opaque entry saying why; the config is JSON, parsed,
  never run. A config that is not JSON, or larger than the header limit, is refused.
"""

from __future__ import annotations

import json

from core.formats.pytorch_pickle import Dict, Global, Opaque, Storage, Tensor

__all__ = ["CONSTANTS_SUFFIX", "SCALAR_TYPES", "WEIGHTS_SUFFIX", "ConfigRefusedError", "pt2_records"]

#: The serializer's ``ScalarType`` numbers (``torch._export.serde.schema``) -> torch dtype name.
SCALAR_TYPES: dict[int, str] = {
    1: "uint8", 2: "int8", 3: "int16", 4: "int32", 5: "int64", 6: "float16", 7: "float32",
    8: "float64", 9: "complex32", 10: "complex64", 11: "complex128", 12: "bool", 13: "bfloat16",
    28: "uint16", 29: "float8_e4m3fn", 30: "float8_e5m2", 31: "float8_e4m3fnuz",
    32: "float8_e5m2fnuz", 33: "float8_e8m0fnu", 34: "uint32", 35: "uint64",
}
_STRIDED = 7
WEIGHTS_SUFFIX = "_weights_config.json"
CONSTANTS_SUFFIX = "_constants_config.json"
_UNTYPED = Global("torch", "UntypedStorage")


class ConfigRefusedError(ValueError):
    """A weights or constants config that is not the JSON the format describes."""


def pt2_records(configs: list[tuple[str, str, str, bytes]], member_sizes: dict[str, int]) -> Dict:
    """The tensor records of an archive's configs, by name (module rules).

    ``configs``: ``(model, "weights" or "constants", folder of the config in the zip, its
    bytes)``; ``member_sizes``: the byte size of every member, by its name in the zip.

    Raises
    ------
    ConfigRefusedError
        A config is not JSON or has no ``config`` object.
    """
    models = {model for model, _, _, _ in configs}
    records = Dict(kind="pt2 archive")
    for model, kind, folder, text in configs:
        try:
            parsed = json.loads(text.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as error:
            raise ConfigRefusedError(f"its {model} {kind} config is not JSON ({str(error)[:120]})") from None
        items = parsed.get("config") if isinstance(parsed, dict) else None
        if not isinstance(items, dict):
            raise ConfigRefusedError(f"its {model} {kind} config has no \"config\" object")
        prefix = (f"{model}/" if len(models) > 1 else "") + ("constants/" if kind == "constants" else "")
        for name, meta in items.items():
            records.items.append((f"{prefix}{name}", _record(meta, folder, member_sizes)))
    return records


def _record(meta: object, folder: str, member_sizes: dict[str, int]) -> Tensor | Opaque:
    if not isinstance(meta, dict) or not isinstance(meta.get("path_name"), str):
        return Opaque("pt2 payload", "its config entry has no path_name")
    if meta.get("use_pickle"):
        return Opaque("pickled tensor (a tensor subclass)",
                      "torch.export pickled it (a tensor subclass), and pickles are never run here")
    tensor_meta = meta.get("tensor_meta")
    if not isinstance(tensor_meta, dict):
        return Opaque("pt2 payload", "its config entry has no tensor_meta")
    dtype = SCALAR_TYPES.get(tensor_meta.get("dtype")) if type(tensor_meta.get("dtype")) is int else None
    if dtype is None:
        return Opaque("pt2 tensor", f"its dtype number {str(tensor_meta.get('dtype'))[:20]} is not a "
                                    "known torch.export ScalarType")
    if tensor_meta.get("layout", _STRIDED) != _STRIDED:
        return Opaque("pt2 tensor", f"its layout {str(tensor_meta.get('layout'))[:20]} is not strided "
                                    "(a sparse or mkldnn tensor has no single byte range)")
    sizes = _ints(tensor_meta.get("sizes"))
    strides = _ints(tensor_meta.get("strides"))
    offset = _ints([tensor_meta.get("storage_offset", {"as_int": 0})])
    if sizes is None or strides is None or offset is None:
        return Opaque("pt2 tensor", "its sizes, strides or storage offset are not plain integers "
                                    "(symbolic sizes have no bytes to show)")
    member = f"{folder}/{meta['path_name']}"
    key = member.split("/data/", 1)[1] if "/data/" in member else member
    storage = Storage(_UNTYPED, key, "cpu", member_sizes.get(member, 0))
    return Tensor(storage, offset[0], tuple(sizes), tuple(strides), "_rebuild_tensor_v3",
                  dtype=Global("torch", dtype))


def _ints(values: object) -> list[int] | None:
    if not isinstance(values, list):
        return None
    out = []
    for value in values:
        number = value.get("as_int") if isinstance(value, dict) else None
        if type(number) is not int:
            return None
        out.append(number)
    return out
