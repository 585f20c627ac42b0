"""TensorFlow checkpoints (tensor bundles) written by TensorFlow itself: every variable read back
bit-exactly as ``tf.train.load_checkpoint`` gives it (fixtures/tf_checkpoint/make_fixtures.py,
TensorFlow 2.21), opened by index, prefix or folder; and damaged tables refused with a message."""

from __future__ import annotations

import json
import os
import shutil
import struct

import numpy as np
import pytest

import core
import core.cli
from core.errors import ContainerError
from core.files.sources import open_source
from core.formats.reader import HeaderReader
from core.formats.registry import container_path, detect_format, list_file

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "tf_checkpoint")
PREFIXES = {
    "objects": os.path.join(HERE, "objects", "ckpt-1"),
    "v1": os.path.join(HERE, "v1", "model.ckpt"),
    "sharded": os.path.join(HERE, "sharded", "ckpt"),
    "saved_model": os.path.join(HERE, "saved_model", "variables", "variables"),
}
#: numpy view types of the bit patterns saved for types numpy lacks
BITS = {"bfloat16": np.uint16, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8}


def _expected(prefix: str) -> tuple[list[str], dict[str, np.ndarray]]:
    with np.load(prefix + ".expected.npz") as saved:
        names = [str(n) for n in saved["names"]]
        return names, {name: saved[f"v{i}"] for i, name in enumerate(names)}


@pytest.mark.parametrize("which", sorted(PREFIXES))
def test_every_variable_reads_back_as_tensorflow_reads_it(which):
    prefix = PREFIXES[which]
    names, expected = _expected(prefix)
    listing = list_file(prefix + ".index")
    assert listing.format == "tf-checkpoint"
    assert [e.name for e in listing.entries] == names  # tf.train.list_variables' order
    checked = 0
    for entry in listing.entries:
        want = expected[entry.name]
        if entry.stored_type == "string":  # the object graph: listed, not decoded
            assert not entry.readable and "not decoded" in entry.problem
            continue
        got = core.tensor(prefix + ".index", entry.name)
        assert got.shape == want.shape, entry.name
        if entry.dtype in BITS:
            got = got.view(BITS[entry.dtype])
        assert got.dtype.itemsize == want.dtype.itemsize, entry.name
        assert got.tobytes() == np.ascontiguousarray(want).tobytes(), entry.name  # bit-exact, NaN too
        checked += 1
    assert checked == {"objects": 20, "v1": 3, "sharded": 6, "saved_model": 1}[which]


def test_the_listing_says_types_shapes_shards_and_files():
    listing = list_file(PREFIXES["objects"] + ".index")
    entries = {e.name: e for e in listing.entries}
    cube = entries["cube/.ATTRIBUTES/VARIABLE_VALUE"]
    assert (cube.dtype, cube.shape, cube.nbytes, cube.file) == ("float32", (2, 3, 4), 96,
                                                                "ckpt-1.data-00000-of-00001")
    assert entries["empty/.ATTRIBUTES/VARIABLE_VALUE"].shape == (0, 3)
    assert entries["count/.ATTRIBUTES/VARIABLE_VALUE"].shape == ()
    assert listing.metadata == {"shards": "1", "byte order": "little-endian", "variables": "21"}
    sharded = {e.name: e for e in list_file(PREFIXES["sharded"] + ".index").entries}
    assert sharded["w0/.ATTRIBUTES/VARIABLE_VALUE"].file == "ckpt.data-00000-of-00002"
    assert sharded["w5/.ATTRIBUTES/VARIABLE_VALUE"].file == "ckpt.data-00001-of-00002"
    assert sharded["w5/.ATTRIBUTES/VARIABLE_VALUE"].offset == 256


def test_a_checkpoint_opens_by_its_prefix_its_folder_or_its_saved_model():
    assert container_path(PREFIXES["objects"]) == PREFIXES["objects"] + ".index"
    assert container_path(os.path.join(HERE, "objects")) == PREFIXES["objects"] + ".index"
    # TF1's Saver writes absolute paths into the 'checkpoint' file: taken by name in the folder
    assert container_path(os.path.join(HERE, "v1")) == PREFIXES["v1"] + ".index"
    assert container_path(os.path.join(HERE, "saved_model")) == PREFIXES["saved_model"] + ".index"
    data = PREFIXES["v1"] + ".data-00000-of-00001"
    assert container_path(data) == data  # a data shard opens as itself (raw bytes)
    assert container_path(os.path.join(HERE, "nothing-here")) == os.path.join(HERE, "nothing-here")


def test_a_checkpoint_file_naming_a_folder_outside_is_taken_inside(tmp_path):
    shutil.copytree(os.path.join(HERE, "objects"), tmp_path / "run")
    (tmp_path / "run" / "checkpoint").write_text('model_checkpoint_path: "../../elsewhere/ckpt-1"\n')
    assert container_path(str(tmp_path / "run")) == str(tmp_path / "run" / "ckpt-1.index")


def test_the_command_lists_and_prints_a_checkpoint_by_folder(capsys):
    assert core.cli.main([os.path.join(HERE, "v1"), "--list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [e["name"] for e in listed["tensors"]] == ["dense/bias", "dense/kernel", "global_step"]
    assert listed["tensors"][1]["shape"] == [2, 3]
    assert core.cli.main([PREFIXES["v1"], "--tensor", "dense/kernel"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("shape: (2, 3)\ndtype: float32 (little-endian)\n[[0.0 1.0 2.0]\n [3.0 4.0 5.0]]")


# ------------------------------------------------------------------ damaged tables
def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _block(items: list[tuple[bytes, bytes]]) -> bytes:
    body = b"".join(_varint(0) + _varint(len(k)) + _varint(len(v)) + k + v for k, v in items)
    return body + struct.pack("<II", 0, 1)


def _index_file(items: list[tuple[bytes, bytes]], *, compression: int = 0, magic: int = 0xDB4775248B80FB57) -> bytes:
    data = _block(items)
    out = data + bytes([compression]) + b"\0\0\0\0"
    index = _block([(b"\xff", _varint(0) + _varint(len(data)))])
    index_offset = len(out)
    out += index + b"\0\0\0\0\0"
    handles = _varint(0) + _varint(0) + _varint(index_offset) + _varint(len(index))
    return out + handles.ljust(40, b"\0") + struct.pack("<Q", magic)


def _entry(dtype: int, dims: tuple[int, ...], offset: int, size: int, shard: int = 0) -> bytes:
    shape = b"".join(b"\x12" + _varint(len(d)) + d for d in (b"\x08" + _varint(n) for n in dims))
    return (b"\x08" + _varint(dtype) + b"\x12" + _varint(len(shape)) + shape + b"\x18" + _varint(shard)
            + b"\x20" + _varint(offset) + b"\x28" + _varint(size))


HEADER = (b"", b"\x08\x01\x1a\x02\x08\x01")


def _write(tmp_path, index: bytes, data: bytes = bytes(64)) -> str:
    (tmp_path / "m.index").write_bytes(index)
    (tmp_path / "m.data-00000-of-00001").write_bytes(data)
    return str(tmp_path / "m.index")


def test_a_hand_built_table_lists_as_tensorflow_would(tmp_path):
    path = _write(tmp_path, _index_file([HEADER, (b"a", _entry(1, (2, 2), 16, 16))]),
                  np.arange(16, dtype="<f4").tobytes())
    assert core.tensor(path, "a").tolist() == [[4.0, 5.0], [6.0, 7.0]]


@pytest.mark.parametrize("change, message", [
    (lambda b: b[:-8] + struct.pack("<Q", 1), "the table footer's magic is not 0xdb4775248b80fb57"),
    (lambda b: b[:40], "is shorter than a table footer"),
])
def test_a_damaged_footer_is_refused_with_its_problem(tmp_path, change, message):
    path = _write(tmp_path, change(_index_file([HEADER, (b"a", _entry(1, (4,), 0, 16))])))
    with open_source(path) as source, pytest.raises(ContainerError) as caught:
        from core.formats.tf_checkpoint import list_bundle
        list_bundle(HeaderReader(source, 0, "tf-checkpoint"))
    assert message in caught.value.message and "m.index" in caught.value.message


def test_a_compressed_block_and_bad_entries_are_problems_not_crashes(tmp_path):
    compressed = _write(tmp_path, _index_file([HEADER, (b"a", _entry(1, (4,), 0, 16))], compression=1))
    assert "is compressed (type 1)" in list_file(compressed).problems[0]
    bad = {
        b"size": _entry(1, (4,), 0, 12),           # 4 float32 need 16 bytes
        b"past": _entry(1, (32,), 0, 128),         # past the 64-byte shard
        b"shard": _entry(1, (1,), 0, 4, shard=3),  # one shard only
        b"type": _entry(99, (1,), 0, 4),
        b"unknown": _entry(1, ((1 << 64) - 1,), 0, 4),  # dimension -1
    }
    path = _write(tmp_path, _index_file([HEADER] + sorted(bad.items())))
    problems = {e.name: e.problem for e in list_file(path).entries}
    assert "stores 12 bytes, but its 4 float32 values take 16" in problems["size"]
    assert "reach past the end of 'm.data-00000-of-00001' (64 bytes)" in problems["past"]
    assert "names data shard 3, but the checkpoint has 1 shard(s)" in problems["shard"]
    assert "DataType 99" in problems["type"]
    assert "shape (-1,) is not fully known" in problems["unknown"]


def test_an_entry_whose_key_sharing_lies_is_a_problem(tmp_path):
    body = _varint(0) + _varint(0) + _varint(len(HEADER[1])) + HEADER[1]
    body += _varint(5) + _varint(1) + _varint(2) + b"x" + b"\x08\x01"  # shares 5 bytes of an empty key
    data = body + struct.pack("<II", 0, 1)
    out = data + b"\0" * 5
    index = _block([(b"\xff", _varint(0) + _varint(len(data)))])
    offset = len(out)
    out += index + b"\0" * 5
    out += (_varint(0) + _varint(0) + _varint(offset) + _varint(len(index))).ljust(40, b"\0")
    out += struct.pack("<Q", 0xDB4775248B80FB57)
    listing = list_file(_write(tmp_path, out))
    assert listing.entries == () and "reaches past the block (shared 5 of 0 key bytes" in listing.problems[0]


def test_a_missing_data_shard_is_named(tmp_path):
    path = _write(tmp_path, _index_file([HEADER, (b"a", _entry(1, (4,), 0, 16))]))
    os.remove(tmp_path / "m.data-00000-of-00001")
    (entry,) = list_file(path).entries
    assert "data file 'm.data-00000-of-00001' is missing beside the index" in entry.problem


def test_sniffing_claims_indexes_only(tmp_path):
    idx = tmp_path / "images.idx"
    idx.write_bytes(b"\x00\x00\x08\x01" + struct.pack(">I", 3) + b"abc")  # an IDX file stays IDX
    zeros = tmp_path / "zeros.bin"
    zeros.write_bytes(bytes(4096))
    for path, name in ((idx, "idx"), (zeros, None), (PREFIXES["v1"] + ".index", "tf-checkpoint")):
        with open_source(str(path)) as source:
            found = detect_format(HeaderReader(source, 0))
        assert (found.name if found else None) == name
