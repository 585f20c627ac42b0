"""PyTorch checkpoints: the zip ``torch.save`` writes (since 1.6; ``.pt``, ``.pth``,
``pytorch_model.bin``, Lightning ``.ckpt``), listed by tensor name, never unpickled.

Layout: a zip of stored members under one folder ``<archive>/``: ``data.pkl`` (the pickled
object, whose tensors name their storages by persistent id), ``byteorder`` (``little`` or
``big``; absent in old files: little), ``.format_version`` and ``data/<key>``, one member per
storage holding its raw elements. A storage member stored without compression is a range of the
file: its first data byte is its local header offset (from the central directory) + 30 + the
name and extra lengths of the *local* header (torch pads the extra field so data is aligned).

Rules
-----
- The zip directory is read by :mod:`zipfile` through the bounded header reader (as for npz);
  ``data.pkl`` (at most the 64 MiB header limit) and the local headers of the storage members
  are the only other bytes read. No storage is read by a listing but the per-channel scales and
  zero points of a quantized tensor (below).
- ``data.pkl`` is interpreted symbolically by :mod:`core.formats.pytorch_pickle` (no code of the
  file ever runs). Names are the keys of the top-level dict; nested dicts, lists and tuples
  join their keys with ``/`` (``state_dict/encoder.layer.0.weight``,
  ``optimizer/state/0/exp_avg``); the state of a pickled object (a whole ``nn.Module``, a
  TorchScript object) is walked the same way (``model/_parameters/weight``). A top-level tensor
  is named ``tensor``.
- Each tensor is a view of its storage member: dtype from the storage class
  (``torch.FloatStorage``...) or ``_rebuild_tensor_v3``'s dtype, ``offset`` = the member's first
  data byte + ``storage_offset`` x item size, the shape, element strides when not C-contiguous.
  Everything it reaches must lie inside the member, else the entry has a problem. Tensors whose
  bytes overlap in one storage (tied weights, a slice saved with its base) name each other in
  :attr:`~core.formats.entry.TensorEntry.shares`.
- Quantized tensors (``_rebuild_qtensor``) show their integer storage (``qint8`` as ``int8``,
  ``quint8`` as ``uint8``, ``qint32`` as ``int32``) with the ``qscheme`` extra and their
  :attr:`~core.formats.entry.TensorEntry.quantization`: per tensor (``per_tensor_affine``) the
  pickled scale rounded to float32 (``static_cast<float>``, what ``Tensor.dequantize`` multiplies
  by; the pickled float64 is the ``q_scale`` extra when it differs) and zero point; per channel
  (``per_channel_affine``) the values of the scale and zero-point tensors (entries of their own,
  ``NAME/scales``, ``NAME/zero_points``, listed after it; the only storages a listing reads,
  through the bounded header reads) and the axis. Each is followed by its computed
  ``NAME (dequantized)`` entry (:mod:`core.formats.quantization`; the format's ``values`` hook
  :func:`pytorch_values`). ``per_channel_affine_float_qparams`` (float zero points) is not
  dequantized: the ``quantization not used`` extra says so.
- Any other value is an entry with its type name as ``stored_type`` and a problem (an *opaque*
  value: a numpy array, a custom class, ``os.system``), never built; plain numbers and strings
  near the top (``epoch``, ``global_step``, a learning rate) are shown as metadata.
- Refused with a message naming the format: the legacy pre-1.6 format
  (``_use_new_zipfile_serialization=False``), a ``data.pkl`` that is compressed, missing or
  breaks a bound of the interpreter. A storage member that is missing, compressed (torch never
  compresses), encrypted, overlapping another member or shorter than its tensors is the problem
  of each tensor on it.
"""

from __future__ import annotations

import math
import struct
import zipfile

import numpy as np

from core.errors import CoreError
from core.files.sources import Source
from core.formats import listing_control
from core.formats.entry import ContainerFormat, ContainerListing, EntryValues, Quantization, TensorEntry
from core.formats.npz import _ReaderFile  # the zip directory through bounded reads
from core.formats.pt2_archive import CONSTANTS_SUFFIX, WEIGHTS_SUFFIX, ConfigRefusedError, pt2_records
from core.formats.pytorch_pickle import (
    Dict,
    Global,
    Opaque,
    PickleRefused,
    SetData,
    Storage,
    Tensor,
    walk_pickle,
)
from core.formats.quantization import (
    MAX_CHANNELS,
    checked_quantization,
    dequantized_entry,
    dequantized_values,
    view_array,
)
from core.formats.reader import HeaderReader, entry_limit, not_listed
from core.formats.shard_names import shard_set_note
from core.formats.zip_members import LOCAL_HEADER, member_span
from core.text.names import printable_name

__all__ = ["FORMAT", "LEGACY_MAGIC", "list_pytorch", "pytorch_values", "sniff_pytorch"]

#: How the legacy (pre-1.6) format starts: protocol 2, then LONG1 of torch's magic number.
LEGACY_MAGIC = b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19"
#: Deepest nesting of containers walked for names.
MAX_DEPTH = 100
#: Most plain values shown as metadata, and how deep they may be.
_MAX_METADATA, _METADATA_DEPTH = 40, 2
#: Most names one entry's ``shares`` lists.
_MAX_SHARES = 16
_BIG = 1 << 63

#: Storage class -> (engine dtype or None, item size, torch dtype name).
STORAGE_TYPES: dict[str, tuple[str | None, int, str]] = {
    "FloatStorage": ("float32", 4, "float32"), "DoubleStorage": ("float64", 8, "float64"),
    "HalfStorage": ("float16", 2, "float16"), "BFloat16Storage": ("bfloat16", 2, "bfloat16"),
    "LongStorage": ("int64", 8, "int64"), "IntStorage": ("int32", 4, "int32"),
    "ShortStorage": ("int16", 2, "int16"), "CharStorage": ("int8", 1, "int8"),
    "ByteStorage": ("uint8", 1, "uint8"), "BoolStorage": ("bool", 1, "bool"),
    "ComplexFloatStorage": ("complex64", 8, "complex64"),
    "ComplexDoubleStorage": ("complex128", 16, "complex128"),
    "QInt8Storage": ("int8", 1, "qint8"), "QUInt8Storage": ("uint8", 1, "quint8"),
    "QInt32Storage": ("int32", 4, "qint32"),
    "QUInt4x2Storage": (None, 1, "quint4x2"), "QUInt2x4Storage": (None, 1, "quint2x4"),
    "UntypedStorage": ("uint8", 1, "uint8"),
}
#: torch dtype name (``_rebuild_tensor_v3``) -> (engine dtype or None, item size).
TORCH_DTYPES: dict[str, tuple[str | None, int]] = {
    "float32": ("float32", 4), "float": ("float32", 4), "float64": ("float64", 8),
    "double": ("float64", 8), "float16": ("float16", 2), "half": ("float16", 2),
    "bfloat16": ("bfloat16", 2), "int64": ("int64", 8), "long": ("int64", 8),
    "int32": ("int32", 4), "int": ("int32", 4), "int16": ("int16", 2), "short": ("int16", 2),
    "int8": ("int8", 1), "uint8": ("uint8", 1), "uint16": ("uint16", 2), "uint32": ("uint32", 4),
    "uint64": ("uint64", 8), "bool": ("bool", 1), "complex64": ("complex64", 8),
    "cfloat": ("complex64", 8), "complex128": ("complex128", 16), "cdouble": ("complex128", 16),
    "float8_e4m3fn": ("float8_e4m3fn", 1), "float8_e5m2": ("float8_e5m2", 1),
    "float8_e4m3fnuz": ("float8_e4m3fnuz", 1), "float8_e5m2fnuz": ("float8_e5m2fnuz", 1),
    "float8_e8m0fnu": ("float8_e8m0fnu", 1),
    "qint8": ("int8", 1), "quint8": ("uint8", 1), "qint32": ("int32", 4),
    "bits8": ("uint8", 1), "bits16": ("uint16", 2),
    "complex32": (None, 4), "chalf": (None, 4), "float4_e2m1fn_x2": (None, 1),
    "quint4x2": (None, 1), "quint2x4": (None, 1), "bits1x8": (None, 1), "bits2x4": (None, 1),
    "bits4x2": (None, 1),
}
_STORAGE_MODULES = ("torch", "torch.storage", "torch.cuda")


def sniff_pytorch(head: bytes, size: int) -> bool:
    """A zip whose first member lies in one folder and is torch's (``X/data.pkl``, ``X/data/0``,
    ``X/byteorder``, ``X/.format_version``, ``X/version``; a ``.pt2`` archive's
    ``X/archive_format``, ``X/data/weights/...``, ``X/data/constants/...``), or the legacy
    format's magic."""
    if head.startswith(LEGACY_MAGIC):
        return True
    if len(head) < 30 or head[:4] != LOCAL_HEADER:
        return False
    (name_length,) = struct.unpack("<H", head[26:28])
    name = head[30:30 + name_length]
    folder, slash, rest = name.partition(b"/")
    if not slash or not folder:
        return False
    return rest in (b"data.pkl", b"byteorder", b".format_version", b"version", b"archive_format") or (
        rest.startswith(b"data/") and rest[5:].isdigit()) or rest.startswith((b"data/weights/", b"data/constants/"))


def list_pytorch(reader: HeaderReader) -> ContainerListing:
    """List the tensors of a ``torch.save`` zip (reads its directory, ``data.pkl`` and the local
    headers of its storage members).

    Raises
    ------
    ContainerError
        The file is the legacy format, its zip directory cannot be read, it has no
        ``data.pkl``, or its pickle breaks a bound (naming the file and the problem).
    """
    if reader.head(len(LEGACY_MAGIC)) == LEGACY_MAGIC:
        raise reader.error(
            "it is a PyTorch checkpoint in the legacy format (before PyTorch 1.6, or saved with "
            "_use_new_zipfile_serialization=False): pickles followed by raw storages, which this "
            "tool does not list", 0,
            "in a trusted environment, load it and save it again with torch.save (PyTorch >= 1.6)")
    try:
        archive = zipfile.ZipFile(_ReaderFile(reader), "r")
    except CoreError as error:
        raise reader.error(f"its zip directory cannot be read ({error})", None,
                           "the file is truncated or corrupt") from None
    except Exception as error:  # zipfile's many ways of saying "not a zip"
        raise reader.error(f"its zip directory cannot be read ({str(error)[:120]})", None,
                           "the file is truncated or corrupt; open it as raw bytes") from None
    with archive:
        return _Lister(reader, archive).listing()


class _Lister:
    """One listing: the members, the walked pickle, the entries."""

    def __init__(self, reader: HeaderReader, archive: zipfile.ZipFile) -> None:
        self.reader = reader
        self.archive = archive
        self.members = {info.filename: info for info in archive.infolist()}
        self.starts = sorted(info.header_offset for info in archive.infolist())
        self.directory = archive.start_dir
        self.data_spans: dict[str, tuple[int, int] | str] = {}
        self.entries: list[TensorEntry] = listing_control.collecting("pytorch")
        self.problems: list[str] = []
        self.metadata: dict[str, str] = {}
        self.names: set[str] = set()
        self.visits = 0
        self.visit_limit = 0
        self.tensor_spans: dict[str, list[tuple[int, int, int]]] = {}
        self.storage_of: dict[int, str] = {}
        self.limit = entry_limit()
        self.dropped = 0

    # ------------------------------------------------------------------ members
    def listing(self) -> ContainerListing:
        pkl = [name for name in self.members if name.endswith("/data.pkl") and name.count("/") == 1]
        pt2 = [name for name in self.members if name.endswith("/archive_format") and name.count("/") == 1]
        if not pkl and pt2:
            return self._pt2_listing(pt2[0][:-len("/archive_format")])
        if not pkl:
            raise self.reader.error(
                "it is a zip without a '<folder>/data.pkl' member, so not a torch.save checkpoint "
                "(a torch.export .pt2 archive or another zip?)", None,
                "open it as raw bytes, or list its members with a zip tool")
        self.prefix = pkl[0][:-len("/data.pkl")]
        script = any(name.startswith(f"{self.prefix}/code/") or name == f"{self.prefix}/constants.pkl"
                     for name in self.members)
        self.metadata["archive"] = self.prefix
        if script:
            self.metadata["format"] = ("TorchScript archive (torch.jit.save): the tensors in its "
                                       "objects' state are listed; its code is not run")
        self.little = self._byte_order()
        version = self._small_member(".format_version")
        if version is not None:
            self.metadata["format version"] = version
        pickle = self._pickle_bytes(pkl[0])
        try:
            value, opcodes = walk_pickle(pickle)
        except PickleRefused as error:
            raise self.reader.error(f"its {pkl[0]} cannot be read: {error}", None,
                                    "the file is corrupt or hand-made; nothing of it was run") from None
        self.metadata["pickle opcodes"] = str(opcodes)
        self.metadata.update(shard_set_note(self.reader.path))
        self.visit_limit = 2 * opcodes + 1000
        self._walk_top(value)
        return self._finished()

    def _finished(self) -> ContainerListing:
        shares = self._shares()
        if shares:
            self.entries[:] = [self._with_shares(entry, shares.get(index))
                               for index, entry in enumerate(self.entries)]
        if self.dropped:
            self.problems.append(not_listed(self.dropped, "tensors"))
        return ContainerListing("pytorch", self.reader.path, tuple(self.entries), self.metadata,
                                tuple(self.problems))

    def _pt2_listing(self, prefix: str) -> ContainerListing:
        """A ``torch.export`` archive: its weights and constants (:mod:`core.formats.pt2_archive`)."""
        self.prefix = prefix
        kind = self._small_member("archive_format")
        if kind != "pt2":
            raise self.reader.error(f"it is a zip with an archive_format of {str(kind)[:20]!r}, not "
                                    "a torch.save checkpoint or a torch.export (pt2) archive", None,
                                    "open it as raw bytes, or list its members with a zip tool")
        self.metadata["archive"] = prefix
        self.metadata["format"] = ("torch.export archive (.pt2): its weights and constants are "
                                   "listed; its program is not run")
        self.little = self._byte_order()
        configs = []
        for name in self.members:
            for suffix, what in ((WEIGHTS_SUFFIX, "weights"), (CONSTANTS_SUFFIX, "constants")):
                folder, _, leaf = name.rpartition("/")
                if leaf.endswith(suffix) and folder == f"{prefix}/data/{what}":
                    configs.append((leaf[:-len(suffix)], what, folder, self._pickle_bytes(name)))
        try:
            records = pt2_records(configs, {n: i.file_size for n, i in self.members.items()})
        except ConfigRefusedError as error:
            raise self.reader.error(str(error), None, "the file is corrupt or hand-made") from None
        self.visit_limit = 4 * len(records.items) + 1000
        self._walk_top(records)
        return self._finished()

    def _byte_order(self) -> bool:
        order = self._small_member("byteorder")
        if order is None:
            return True
        if order not in ("little", "big"):
            self.problems.append(f"pytorch: its byteorder record says {order[:20]!r}, neither "
                                 "'little' nor 'big'; little-endian is assumed")
            return True
        self.metadata["byte order"] = order
        return order == "little"

    def _small_member(self, leaf: str) -> str | None:
        info = self.members.get(f"{self.prefix}/{leaf}")
        if info is None or info.compress_type != zipfile.ZIP_STORED or info.file_size > 64:
            return None
        span = self._data_span(info)
        if isinstance(span, str):
            return None
        return self.reader.read(span[0], info.file_size, leaf).decode("ascii", "replace").strip()

    def _pickle_bytes(self, name: str) -> bytes:
        info = self.members[name]
        if info.compress_type != zipfile.ZIP_STORED:
            raise self.reader.error(f"its {name} is compressed (method {info.compress_type}); "
                                    "torch.save never compresses it", None,
                                    "the file is hand-made or corrupt")
        span = self._data_span(info)
        if isinstance(span, str):
            raise self.reader.error(f"its {name} cannot be read: {span}", None, "the file is corrupt")
        return self.reader.read(span[0], info.file_size, name)

    def _data_span(self, info: zipfile.ZipInfo) -> tuple[int, int] | str:
        """``(first data byte, end)`` of a member, or why it cannot be a view of the file."""
        known = self.data_spans.get(info.filename)
        if known is None:
            known = self.data_spans[info.filename] = member_span(self.reader, info, self.starts,
                                                                 self.directory)
        return known

    # ------------------------------------------------------------------ names
    def _walk_top(self, value: object) -> None:
        if isinstance(value, Tensor):
            self._walk(value, "tensor", 0)
        elif isinstance(value, (Dict, list, tuple, Opaque, SetData)):
            if isinstance(value, Opaque) and value.state is not None:
                self.metadata["object"] = value.type_name
            self._walk(value, "", 0)
        else:
            self.metadata["value"] = _short(value)

    def _walk(self, value: object, name: str, depth: int) -> None:
        self.visits += 1
        if self.visits > self.visit_limit:
            if self.visits == self.visit_limit + 1:
                self.problems.append(
                    f"pytorch: the pickle refers to its values more than {self.visit_limit:,} "
                    "times (shared containers referring to each other, a memo bomb): the "
                    "listing stops there")
            return
        if depth > MAX_DEPTH:
            self._add(self._opaque(name, "nested value", f"it is nested more than {MAX_DEPTH} levels "
                                                         "deep (a nesting bomb): not walked"))
            return
        if isinstance(value, Tensor):
            self._add_tensor(value, name)
        elif isinstance(value, Dict):
            for key, item in list(value.items):
                self._child(item, name, _key_text(key), depth)
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(list(value)):
                self._child(item, name, str(index), depth)
        elif isinstance(value, Opaque):
            if value.state is not None and _holds_containers(value.state):
                self._walk(value.state, name, depth + 1)
            else:
                self._add(self._opaque(name or "object", value.type_name, value.problem))
        elif isinstance(value, Storage):
            self._add(self._opaque(name, "storage", "a bare storage record with no tensor on it "
                                                    "(no shape to show)"))
        elif depth <= _METADATA_DEPTH and name and len(self.metadata) < _MAX_METADATA and \
                not isinstance(value, (Global, SetData)):
            self.metadata[name] = _short(value)

    def _child(self, item: object, name: str, key: str, depth: int) -> None:
        if isinstance(item, (Dict, list, tuple, Tensor, Opaque, Storage)) or depth < _METADATA_DEPTH:
            self._walk(item, f"{name}/{key}" if name else key, depth + 1)

    def _add(self, entry: TensorEntry) -> None:
        if len(self.entries) >= self.limit:
            self.dropped += 1
            return
        name = entry.name
        if name in self.names:
            count = 2
            while f"{name} ({count})" in self.names:
                count += 1
            entry = _renamed(entry, f"{name} ({count})")
        self.names.add(entry.name)
        member = self.storage_of.pop(id(entry), None)
        if member is not None:
            self.tensor_spans.setdefault(member, []).append(
                (entry.offset, entry.offset + entry.nbytes, len(self.entries)))
        self.entries.append(entry)

    def _opaque(self, name: str, type_name: str, problem: str) -> TensorEntry:
        return TensorEntry(name, None, True, (), 0, 0, type_name,
                           problem=f"pytorch value {printable_name(name)!r} ({type_name}): {problem}; "
                                   "it is listed, never built (this tool never runs the pickle)")

    # ------------------------------------------------------------------ tensors
    def _add_tensor(self, tensor: Tensor, name: str) -> None:
        """A tensor's entry; for a quantized one, its quantization and its dequantized entry, then
        the entries of its per-channel scales and zero points."""
        entry = self._tensor_entry(tensor, name)
        parts: list[TensorEntry] = []
        quantizer = tensor.quantizer
        if isinstance(quantizer, tuple) and quantizer and isinstance(quantizer[0], Global) and \
                quantizer[0].name in ("per_channel_affine", "per_channel_affine_float_qparams"):
            for index, part in ((1, "scales"), (2, "zero_points")):
                if len(quantizer) > index and isinstance(quantizer[index], Tensor):
                    parts.append(self._tensor_entry(quantizer[index], f"{name}/{part}"))
        found = self._quantization(tensor, entry, parts)
        quantization = found if isinstance(found, Quantization) else None
        if found is not None:
            member = self.storage_of.pop(id(entry), None)
            if quantization is None:
                entry = _replace(entry, extras=dict(entry.extras, **{"quantization not used": found}))
            elif quantization.axis is None and isinstance(quantizer[1], float) and quantizer[1] != quantization.scale[0]:
                # the pickled float64 scale, which torch rounds to float32 to dequantize
                entry = _replace(entry, quantization=quantization, extras=dict(entry.extras, q_scale=quantizer[1]))
            else:
                entry = _replace(entry, quantization=quantization)
            if member is not None:
                self.storage_of[id(entry)] = member
        count = len(self.entries)
        self._add(entry)
        if quantization is not None and entry.problem is None and len(self.entries) > count:
            self._add(dequantized_entry(self.entries[-1]))
        for part in parts:
            self._add(part)

    def _tensor_entry(self, tensor: Tensor, name: str) -> TensorEntry:
        storage = tensor.storage
        if not isinstance(storage, Storage):
            return self._opaque(name, "tensor", "its storage is not torch's storage record")
        kind = storage.storage_type
        known = STORAGE_TYPES.get(kind.name) if kind.module in _STORAGE_MODULES else None
        if known is None:
            return self._opaque(name, kind.dotted[:80], f"its storage type {kind.dotted[:80]} is "
                                                        "not a torch storage class")
        dtype, itemsize, torch_name = known
        if tensor.builder == "_rebuild_tensor_v3" and isinstance(tensor.dtype, Global) \
                and tensor.dtype.module == "torch":
            v3 = TORCH_DTYPES.get(tensor.dtype.name)
            if v3 is None:
                return self._opaque(name, f"torch.{tensor.dtype.name[:40]}",
                                    f"torch dtype {tensor.dtype.name[:40]} is unknown here")
            dtype, itemsize, torch_name = v3[0], v3[1], tensor.dtype.name
        stored = f"torch.{torch_name}"
        extras: dict[str, object] = {"storage": storage.key[:80]}
        if storage.location != "cpu":
            extras["device"] = storage.location[:40]
        problem = None
        numbers = [tensor.storage_offset, tensor.size, tensor.stride]
        offset_elements = tensor.storage_offset
        shape, strides = tensor.size, tensor.stride
        if not (_is_size(offset_elements) and _is_sizes(shape) and _is_sizes(strides)
                and len(shape) == len(strides) and len(shape) <= 64):
            return self._broken(name, stored, extras,
                                f"its storage offset, size and stride {_short(numbers)} are not "
                                "sizes (non-negative integers below 2**63, one stride per "
                                "dimension): the pickle is corrupt or hand-made")
        count = math.prod(shape)
        if count and any(d and s for d, s in zip(shape, strides)):
            reach = offset_elements + sum((d - 1) * s for d, s in zip(shape, strides)) + 1
        else:
            reach = offset_elements + (1 if count else 0)
        if offset_elements:
            extras["storage offset"] = offset_elements
        if tensor.builder == "_rebuild_qtensor" or tensor.quantizer is not None:
            quantizer = tensor.quantizer
            extras["qscheme"] = quantizer[0].name[:40] if isinstance(quantizer, tuple) and quantizer \
                and isinstance(quantizer[0], Global) else "unknown"
        member_name = f"{self.prefix}/data/{storage.key}"
        info = self.members.get(member_name)
        if info is None:
            return self._broken(name, stored, extras, f"its storage member {member_name!r} is not in "
                                                      "the zip (the file is truncated or corrupt)",
                                shape=shape)
        span = self._data_span(info)
        if isinstance(span, str):
            return self._broken(name, stored, extras, f"its storage member {member_name!r}: {span}",
                                shape=shape)
        start, end = span
        storage_bytes = storage.numel * (1 if kind.name == "UntypedStorage" else known[1])
        if not 0 <= storage.numel < _BIG or storage_bytes > end - start:
            return self._broken(name, stored, extras,
                                f"its storage record says {storage.numel} elements of "
                                f"{1 if kind.name == 'UntypedStorage' else known[1]} bytes, but its "
                                f"member {member_name!r} holds {end - start} bytes (the file is "
                                "truncated or corrupt)", start, end - start, shape)
        member_elements = (end - start) // itemsize
        if reach > member_elements or (end - start) % itemsize and dtype is not None:
            return self._broken(name, stored, extras,
                                f"its view (storage offset {offset_elements}, shape {tuple(shape)}, "
                                f"strides {tuple(strides)}) reaches element {reach} of its storage "
                                f"member {member_name!r}, which holds {member_elements} elements of "
                                f"{itemsize} bytes ({end - start} bytes): the file is truncated or "
                                "corrupt", start, end - start, shape)
        offset = start + offset_elements * itemsize
        contiguous = strides == _c_strides(shape) or count == 0 or all(
            s == c for d, s, c in zip(shape, strides, _c_strides(shape)) if d != 1)
        nbytes = count * itemsize if contiguous else (reach - offset_elements) * itemsize
        if count == 0:
            offset, nbytes = start, 0
        if dtype is None:
            problem = (f"pytorch tensor {printable_name(name)!r}: {stored} has no engine type yet "
                       f"(look at its bytes with --tensor {printable_name(name)!r} --dtype uint8)")
        entry = TensorEntry(name, dtype, self.little or itemsize == 1, tuple(shape), offset, nbytes,
                            stored, extras, problem, strides=None if contiguous else tuple(strides))
        if nbytes:
            self.storage_of[id(entry)] = member_name
        return entry

    def _quantization(self, tensor: Tensor, entry: TensorEntry, parts: list[TensorEntry]) -> Quantization | str | None:
        """The quantization ``_rebuild_qtensor``'s arguments give (module rules), why there is
        none (a scheme or parameters it cannot be made of), or None (not quantized)."""
        quantizer = tensor.quantizer
        if not isinstance(quantizer, tuple) or not quantizer or not isinstance(quantizer[0], Global) \
                or entry.dtype is None:
            return None
        scheme = quantizer[0].name
        if scheme in ("per_tensor_affine", "per_tensor_symmetric") and len(quantizer) >= 3 and \
                isinstance(quantizer[1], (int, float)) and type(quantizer[2]) is int:
            # torch dequantizes with static_cast<float>(scale): that float32 is the scale used
            found = checked_quantization((float(np.float32(quantizer[1])),), (quantizer[2],), None,
                                         entry.dtype, entry.shape)
        elif scheme == "per_channel_affine" and len(quantizer) >= 4 and len(parts) == 2 \
                and type(quantizer[3]) is int:
            scales, zeros = (self._small_values(part) for part in parts)
            if isinstance(scales, str) or isinstance(zeros, str):
                found = scales if isinstance(scales, str) else zeros
            else:
                found = checked_quantization(scales, [int(z) for z in zeros], quantizer[3], entry.dtype,
                                             entry.shape)
        else:
            found = (f"the scheme {scheme[:40]} is not affine with integer zero points"
                     if scheme != "per_channel_affine" else "its scales, zero points or axis are not "
                     "torch's records")
        return found

    def _small_values(self, entry: TensorEntry) -> tuple | str:
        """The values of a per-channel scales or zero-points tensor (a view of its storage,
        read through the bounded header reads), or why they cannot be had."""
        if not entry.mappable or len(entry.shape) != 1:
            return f"its {entry.name} tensor cannot be read ({entry.problem or 'not one axis'})"
        if entry.element_count > MAX_CHANNELS:
            return f"it has more than {MAX_CHANNELS} scales or zero points"
        data = self.reader.read(entry.offset, entry.nbytes, f"the {entry.name} tensor")
        return tuple(view_array(data, entry.dtype, entry.little_endian, entry.shape, entry.strides,
                                entry.name).tolist())

    def _broken(self, name: str, stored: str, extras: dict, problem: str, offset: int = 0,
                nbytes: int = 0, shape: object = ()) -> TensorEntry:
        shape_t = tuple(shape) if _is_sizes(shape) and len(shape) <= 64 else ()
        return TensorEntry(name, None, True, shape_t, offset, nbytes, stored, extras,
                           problem=f"pytorch tensor {printable_name(name)!r}: {problem}")

    def _shares(self) -> dict[int, tuple[str, ...]]:
        """Entry index -> names of the other entries of its storage whose byte ranges overlap
        its own, directly or through another one (tied weights, a view saved with its base)."""
        shared: dict[int, tuple[str, ...]] = {}
        for spans in self.tensor_spans.values():
            if len(spans) < 2:
                continue
            spans.sort()
            groups: list[list[int]] = []
            reach = -1
            for start, end, index in spans:
                if start < reach:
                    groups[-1].append(index)
                else:
                    groups.append([index])
                reach = max(reach, end) if start < reach else end
            for group in groups:
                if len(group) > 1:
                    for index in group:
                        shared[index] = tuple(self.entries[i].name for i in group if i != index)[:_MAX_SHARES]
        return shared

    def _with_shares(self, entry: TensorEntry, shares: tuple[str, ...] | None) -> TensorEntry:
        if not shares:
            return entry
        return _replace(entry, shares=shares)


def _replace(entry: TensorEntry, **changes: object) -> TensorEntry:
    import dataclasses

    return dataclasses.replace(entry, **changes)


def _renamed(entry: TensorEntry, name: str) -> TensorEntry:
    return _replace(entry, name=name)


def _is_size(value: object) -> bool:
    return type(value) is int and 0 <= value < _BIG


def _is_sizes(value: object) -> bool:
    return isinstance(value, tuple) and all(type(v) is int and 0 <= v < _BIG for v in value)


def _c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for dim in reversed(shape):
        strides.append(step)
        step *= max(dim, 1)
    return tuple(reversed(strides))


def _holds_containers(state: object) -> bool:
    return isinstance(state, (Dict, list, tuple))


def _key_text(key: object) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, (bool, int, float)) or key is None:
        return str(key)
    if isinstance(key, tuple) and all(isinstance(k, (str, int, float, bool)) for k in key):
        return ",".join(str(k) for k in key)
    return f"<{type(key).__name__}>"


def _short(value: object) -> str:
    if isinstance(value, (bytes, bytearray)):
        return f"{len(value)} bytes"
    if isinstance(value, (Dict, list, tuple, SetData)):
        return f"({type(value).__name__})"
    text = str(value) if isinstance(value, (str, int, float, bool)) or value is None else type(value).__name__
    return text if len(text) <= 80 else text[:77] + "..."


def pytorch_values(source: Source, entry: TensorEntry) -> EntryValues:
    """The format's ``values`` hook: a dequantized entry's float32 values
    (:func:`~core.formats.quantization.dequantized_values` of its stored integers, a view of
    their storage).

    Raises
    ------
    ContainerError
        ``field="tensor"``: not a dequantized entry, or its quantization does not fit.
    BudgetError
        The integers and the values exceed the copy budget.
    """
    return dequantized_values(source, entry)


FORMAT = ContainerFormat("pytorch", sniff_pytorch, list_pytorch, pytorch_values)
