"""Model checkpoints by name (issue 32): listing a 1,000-tensor PyTorch checkpoint and a
1,000-variable TensorFlow checkpoint, and opening one tensor of each, against a raw file.

Goals: listing < 200 ms and < 20 MiB of added memory, reading only the zip directory and
``data.pkl`` (PyTorch) or the ``.index`` file (TensorFlow); opening one tensor of the listed
checkpoint (what choosing its row does) <= 1.5x the same tensor in a raw file, with no added
memory (a view; the probe lists and opens, so its memory includes the listing).

The PyTorch checkpoint is laid out as ``torch.save`` lays it out (a zip of stored members
``archive/data.pkl``, ``archive/byteorder``, ``archive/data/<key>`` with 64-byte aligned data,
the pickle of an ``OrderedDict`` of ``_rebuild_tensor_v2`` records), written here without torch
and with its storages left sparse, so it costs no disk. The TensorFlow checkpoint is written by
TensorFlow itself (``tf.train.Checkpoint``) when it is importable (its data file is real bytes).
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

from benchmarks.harness import Row, median_time, run_probe, sparse_file, temp_dir

MiB = 1 << 20
GiB = 1 << 30

_IMPORT_PROBE = """
import numpy as np
from core import DecodeParams, Pipeline
from core.formats.entry import find_entry
from core.formats.registry import container_path, list_file
RESULT = {}
"""
_LIST_PROBE = """
from core.formats.registry import container_path, list_file
listing = list_file(container_path({path!r}))
RESULT = dict(count=len(listing.entries))
"""
_OPEN_PROBE = """
import numpy as np
from core import Pipeline
from core.formats.entry import entry_file, find_entry
from core.formats.registry import container_path, list_file
path = container_path({path!r})
entry = find_entry(list_file(path), {name!r})
with Pipeline(entry_file(path, entry)) as p:
    r = p.run(entry.params())
    row = np.array(r.view[r.view.shape[0] // 2])
RESULT = dict(zero_copy=r.zero_copy)
"""
_RAW_PROBE = """
import numpy as np
from core import DecodeParams, Pipeline
with Pipeline({path!r}) as p:
    r = p.run(DecodeParams(dtype="float32", shape=(-1, {columns})))
    row = np.array(r.view[r.view.shape[0] // 2])
RESULT = dict(zero_copy=r.zero_copy)
"""


def _text(value: str) -> bytes:
    data = value.encode()
    return b"X" + struct.pack("<I", len(data)) + data


def _int(value: int) -> bytes:
    return b"J" + struct.pack("<i", value)


def torch_pickle(tensors: list[tuple[str, str, tuple[int, ...]]]) -> bytes:
    """The protocol-2 pickle ``torch.save`` writes for an ``OrderedDict`` of float32 tensors
    (name, storage key, shape), each on its own storage (opcodes as torch's pickler emits them)."""
    out = [b"\x80\x02", b"ccollections\nOrderedDict\n", b")R", b"("]
    for name, key, shape in tensors:
        numel = int(np.prod(shape))
        strides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
        out += [_text(name), b"ctorch._utils\n_rebuild_tensor_v2\n", b"(",
                b"(", _text("storage"), b"ctorch\nFloatStorage\n", _text(key), _text("cpu"), _int(numel),
                b"tQ", _int(0), b"(", *[_int(d) for d in shape], b"t",
                b"(", *[_int(s) for s in strides], b"t", b"\x89",
                b"ccollections\nOrderedDict\n", b")R", b"tR"]
    out += [b"u", b"."]
    return b"".join(out)


def write_torch_checkpoint(path: Path, count: int, shape: tuple[int, ...]) -> list[str]:
    """A sparse ``torch.save``-layout zip of ``count`` float32 tensors of ``shape``; their names."""
    names = [f"model.layers.{i // 10}.block.{i % 10}.weight" for i in range(count)]
    nbytes = int(np.prod(shape)) * 4
    pickle = torch_pickle([(name, str(i), shape) for i, name in enumerate(names)])
    members = [("archive/data.pkl", pickle, None), ("archive/byteorder", b"little", None)]
    zero_crc = zlib.crc32(bytes(nbytes))
    members += [(f"archive/data/{i}", None, nbytes) for i in range(count)]
    members.append(("archive/version", b"3\n", None))
    central = []
    with open(path, "wb") as out:
        for name, data, size in members:
            offset = out.tell()
            encoded = name.encode()
            pad = -(offset + 30 + len(encoded) + 4) % 64  # data 64-byte aligned, as torch does
            extra = struct.pack("<HH", 0x4246, pad) + bytes(pad)
            length = len(data) if data is not None else size
            crc = zlib.crc32(data) if data is not None else zero_crc
            out.write(struct.pack("<4s5H3I2H", b"PK\x03\x04", 20, 0, 0, 0, 0x21, crc, length, length,
                                  len(encoded), len(extra)) + encoded + extra)
            if data is not None:
                out.write(data)
            else:
                out.seek(length, 1)
            central.append(struct.pack("<4s6H3I5H2I", b"PK\x01\x02", 20, 20, 0, 0, 0, 0x21, crc, length,
                                       length, len(encoded), 0, 0, 0, 0, 0, offset) + encoded)
        start = out.tell()
        directory = b"".join(central)
        out.write(directory)
        out.write(struct.pack("<4s4H2IH", b"PK\x05\x06", 0, 0, len(central), len(central),
                              len(directory), start, 0))
    return names


_TF_WRITER = """
import tensorflow as tf
variables = {{f"layer_{{i}}": tf.Variable(tf.fill([{rows}, 1024], float(i))) for i in range({count})}}
RESULT = dict(prefix=tf.train.Checkpoint(**variables).write({prefix!r}))
"""


def write_tf_checkpoint(folder: Path, count: int, elements: int) -> str | None:
    """A TensorFlow checkpoint of ``count`` float32 variables of ``elements`` values, written by
    ``tf.train.Checkpoint`` in a child process (so that no memory figure here counts its
    variables); its prefix (None without TensorFlow)."""
    try:
        import importlib.util

        if importlib.util.find_spec("tensorflow") is None:
            return None
    except ValueError:
        return None
    return run_probe(_TF_WRITER.format(rows=elements // 1024, count=count, prefix=str(folder / "ckpt")),
                     timeout=600)["prefix"]


def _list_rows(label: str, path: str, count: int, repeats: int, base_rss: int) -> list[Row]:
    from core.files.sources import open_source
    from core.formats.reader import HeaderReader
    from core.formats.registry import container_path, list_container

    consumed = []

    def list_it() -> None:
        with open_source(container_path(path)) as source:
            reader = HeaderReader(source, 0)
            listing = list_container(reader)
            consumed.append(reader.consumed)
            assert listing.problems == () and len(listing.entries) >= count

    seconds = median_time(list_it, repeats=repeats)
    probe = run_probe(_LIST_PROBE.format(path=path))
    added = probe["peak_rss"] - base_rss
    return [Row(f"list {label}", seconds, None, "", "< 200 ms", seconds < 0.200,
                note=f"(reads {consumed[-1]:,} bytes)"),
            Row(f"added peak memory, listing {label}", added, None, "", "< 20 MiB", added < 20 * MiB, unit="B")]


def _open_rows(label: str, path: str, name: str, raw: Path, columns: int, repeats: int,
               base_rss: int) -> list[Row]:
    from core import DecodeParams, Pipeline
    from core.formats.entry import entry_file, find_entry
    from core.formats.registry import container_path, list_file

    index = container_path(path)

    listing = list_file(index)  # listed once (its own row), as the window has it when a row is chosen
    entry = find_entry(listing, name)

    where = entry_file(index, entry)  # the data shard of a TF variable, else the checkpoint

    def open_container() -> None:  # open the file the tensor lives in, decode it, read a row
        with Pipeline(where) as p:
            r = p.run(entry.params())
            np.array(r.view[r.view.shape[0] // 2])

    def open_raw() -> None:
        with Pipeline(str(raw)) as p:
            r = p.run(DecodeParams(dtype="float32", shape=(-1, columns)))
            np.array(r.view[r.view.shape[0] // 2])

    ours = median_time(open_container, repeats=repeats)
    baseline = median_time(open_raw, repeats=repeats)
    container = run_probe(_OPEN_PROBE.format(path=path, name=name))
    raw_probe = run_probe(_RAW_PROBE.format(path=str(raw), columns=columns))
    added, raw_added = container["peak_rss"] - base_rss, raw_probe["peak_rss"] - base_rss
    return [Row(f"open one tensor of {label} (once listed)", ours, baseline,
                "the same tensor in a raw file", "<= 1.5x raw", ours <= 1.5 * baseline),
            Row(f"added peak memory, one tensor of {label}", added, raw_added, "raw file",
                "raw + 5 MiB (a view)", added <= raw_added + 5 * MiB and container["zero_copy"], unit="B")]


def rows(tiny: bool, quick: bool, repeats: int) -> list[Row]:
    count = 50 if tiny else 1000
    shape = (16, 256) if tiny else (1024, 1024)  # 4 MiB each: 1,000 of them = 3.9 GiB (a zip without zip64)
    nbytes = int(np.prod(shape)) * 4
    total = count * nbytes
    size = f"{total / GiB:.1f} GiB" if total >= GiB else f"{total / MiB:.1f} MiB"
    out: list[Row] = []
    with temp_dir() as tmp:
        folder = Path(tmp)
        base_rss = run_probe(_IMPORT_PROBE)["peak_rss"]
        torch_path = folder / "pytorch_model.bin"
        names = write_torch_checkpoint(torch_path, count, shape)
        raw = sparse_file(folder, "tensor.bin", nbytes)
        label = f"a PyTorch checkpoint of {count:,} tensors / {size} (sparse)"
        out += _list_rows(label, str(torch_path), count, repeats, base_rss)
        out += _open_rows(label, str(torch_path), names[count // 2], raw, shape[-1], repeats, base_rss)
        if quick:
            return out
        tf_count, elements = (count, nbytes // 4) if not tiny else (20, 4096)
        prefix = write_tf_checkpoint(folder, tf_count, elements)
        tf_size = tf_count * elements * 4
        tf_label = (f"a TensorFlow checkpoint of {tf_count:,} variables / "
                    f"{tf_size / GiB:.1f} GiB" if tf_size >= GiB else
                    f"a TensorFlow checkpoint of {tf_count:,} variables / {tf_size / MiB:.1f} MiB")
        if prefix is None:
            out.append(Row("list a TensorFlow checkpoint of 1,000 variables", None, None, "", "< 200 ms",
                           None, note="skipped: TensorFlow not installed (it writes the checkpoint)"))
            return out
        out += _list_rows(tf_label, prefix, tf_count, repeats, base_rss)
        out += _open_rows(tf_label, prefix, f"layer_{tf_count // 2}/.ATTRIBUTES/VARIABLE_VALUE",
                          sparse_file(folder, "variable.bin", elements * 4), 1024, repeats, base_rss)
    return out
