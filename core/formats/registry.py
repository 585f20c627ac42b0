"""Which container a file is, from its content, and the one entry point to list it.

Rule: formats are tried in the order of :data:`FORMATS`; each one's ``sniff`` looks only at the
first :data:`SNIFF_BYTES` bytes and the file size (magic bytes and structure); the first that
claims the file lists it. A file no format claims is a raw file (None). The name matters only for
a format without magic bytes, which declares the name endings it is tried for
(:attr:`ContainerFormat.extensions`: ONNX's ``.onnx``), so that no raw file of another name is
ever taken for a protobuf message.
"""

from __future__ import annotations

import os

from core.errors import ContainerError
from core.files.sources import open_source
from core.formats import (
    c_arrays,
    firmware_hex,
    hdf5,
    hex_dump,
    idx,
    keras,
    npz,
    pytorch,
    safetensors,
    shard_index,
    wav,
    zarr_store,
)
from core.formats.entry import ContainerFormat, ContainerListing
from core.formats.gguf import FORMAT as GGUF
from core.formats.onnx import FORMAT as ONNX
from core.formats.reader import HeaderReader
from core.formats.tf_checkpoint import FORMAT as TF_CHECKPOINT
from core.formats.tf_checkpoint import checkpoint_index
from core.formats.tflite import FORMAT as TFLITE
from core.formats.tfrecord import FORMAT as TFRECORD

__all__ = ["FORMATS", "SNIFF_BYTES", "container_path", "detect_format", "format_named", "list_container", "list_file"]

#: Bytes of the file's start every ``sniff`` sees.
SNIFF_BYTES = 4096


#: Every known format, most specific magic first: each format module defines one
#: ``FORMAT = ContainerFormat(...)`` and is listed here.
FORMATS: tuple[ContainerFormat, ...] = (
    keras.FORMAT,        # HDF5 signature with Keras' words in its first bytes, or a zip whose first member is Keras'
    hdf5.FORMAT,         # 8-byte signature (at 0, 512, 1024 or 2048)
    npz.FORMAT,          # zip local header whose first member is a .npy
    pytorch.FORMAT,      # zip whose first member is torch's (X/data.pkl...), or the legacy magic
    wav.FORMAT,          # RIFF/RIFX/RF64/BW64 .... WAVE
    wav.AIFF_FORMAT,     # FORM .... AIFF/AIFC
    safetensors.FORMAT,  # uint64 header length, then '{'
    shard_index.FORMAT,  # a JSON object with a "weight_map" (model.safetensors.index.json, pytorch_model.bin.index.json)
    zarr_store.FORMAT,   # a JSON object with "zarr_format" or "zarr_consolidated_format" (.zarray, zarr.json, .zmetadata)
    GGUF,                # "GGUF"
    TFLITE,              # "TFL3" at byte 4
    TFRECORD,            # no magic: a length whose masked CRC-32C matches (1 in 2**32 by chance)
    TF_CHECKPOINT,       # two zero bytes, then a BundleHeaderProto (and the table magic at the end)
    firmware_hex.IHEX_FORMAT,  # text lines of ':' and hex digits (Intel HEX)
    firmware_hex.SREC_FORMAT,  # text lines of S0-S9 and hex digits (Motorola S-records)
    hex_dump.FORMAT,     # a first line of offset 0 and hex bytes (xxd, hexdump -C, od -Ax -tx1)
    c_arrays.FORMAT,     # C text defining an array: TYPE NAME[...] = {  (xxd -i output, model_data.cc)
    ONNX,                # no magic: only a .onnx name, ir_version first, then ModelProto fields up to the graph
    idx.FORMAT,          # two zero bytes, a type byte, a dimension count: the weakest magic (keep it last)
)


def format_named(name: str) -> ContainerFormat:
    """The format whose listings say ``name`` (``ContainerListing.format``).

    Raises
    ------
    ContainerError
        No known format has that name.
    """
    for candidate in FORMATS:
        if name == candidate.name or name in candidate.also_names:
            return candidate
    raise ContainerError(f"no container format is named {name!r} (known: "
                         f"{', '.join(f.name for f in FORMATS)})", field="files")


def detect_format(reader: HeaderReader) -> ContainerFormat | None:
    """The format that claims the file, or None (a raw file)."""
    head = reader.head(SNIFF_BYTES)
    name = os.path.basename(reader.path).lower()
    for candidate in FORMATS:
        if candidate.extensions and not name.endswith(candidate.extensions):
            continue
        if candidate.sniff(head, reader.size):
            return candidate
    return None


def list_container(reader: HeaderReader) -> ContainerListing | None:
    """The listing of the file's tensors, or None when it is not a known container.

    Raises
    ------
    ContainerError
        The file claims to be a container but cannot be listed (message names format, file
        and byte offset).
    """
    found = detect_format(reader)
    if found is None:
        return None
    reader.format = found.name
    return found.list(reader)


def container_path(path: str) -> str:
    """The file that ``path`` names as a container: a TensorFlow checkpoint's ``.index`` file for
    its prefix or its directory (:func:`core.formats.tf_checkpoint.checkpoint_index`), a Zarr
    store's metadata file for its folder (:func:`core.formats.zarr_store.store_metadata_file`),
    else ``path`` itself. The command line and the window open what this gives."""
    return checkpoint_index(path) or zarr_store.store_metadata_file(path) or path


def list_file(path: str) -> ContainerListing | None:
    """:func:`list_container` for one path (opened read-only, closed again; no data read).

    Raises
    ------
    SourceError
        The file cannot be opened (missing, a FIFO or device, permission...).
    ContainerError
        As :func:`list_container`.
    """
    with open_source(path) as source:
        return list_container(HeaderReader(source, 0))
