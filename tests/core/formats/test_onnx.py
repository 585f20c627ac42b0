"""ONNX models: every tensor of the fixtures written by onnx (fixtures/onnx/make_fixtures.py)
opens by name with the values ``onnx.numpy_helper.to_array`` gave, bit for bit; hostile
structure gives one message naming the file and the byte. The suite never imports onnx: the
hand-built models below use a ten-line protobuf encoder."""

from __future__ import annotations

import json
import mmap
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

import core.formats.onnx as onnx_format
from core.api import tensor
from core.cli import main
from core.errors import ContainerError
from core.formats.entry import Storage, find_entry
from core.formats.registry import list_file
from core.pipeline.pipeline import Pipeline

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "onnx"
MODELS = ["raw.onnx", "typed.onnx", "external/model.onnx", "subgraph.onnx"]


# -- a protobuf encoder for hand-built models --------------------------------------------------------
def varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int64 values: ten bytes, as protobuf writes them
    out = bytearray()
    while True:
        out.append((value & 0x7F) | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def vfield(number: int, value: int) -> bytes:
    return varint(number << 3) + varint(value)


def lfield(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def tensor_proto(name: str, data_type: int, dims: list[int], *parts: bytes) -> bytes:
    return b"".join(vfield(1, d) for d in dims) + vfield(2, data_type) + lfield(8, name.encode()) + b"".join(parts)


def model(*graph_parts: bytes, ir_version: int = 10) -> bytes:
    return vfield(1, ir_version) + lfield(7, b"".join(graph_parts))


def initializer(proto: bytes) -> bytes:
    return lfield(5, proto)


def write(folder: Path, data: bytes, name: str = "m.onnx") -> str:
    path = folder / name
    path.write_bytes(data)
    return str(path)


# -- the fixtures, against the writer's own reader ---------------------------------------------------
def _bits(values: np.ndarray, kind: str) -> np.ndarray:
    """The expectation's form of a value (make_fixtures.py: bit patterns for ml_dtypes types)."""
    if kind == "BFLOAT16":
        return values.view(np.uint16)
    if kind.startswith("FLOAT8"):
        return values.view(np.uint8)
    if kind == "INT4":
        return values.astype(np.int8)
    if kind == "UINT4":
        return values.astype(np.uint8)
    return values


def _same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    """Equal shape, dtype and bytes: NaN payloads and -0.0 included."""
    return (got.shape == want.shape and got.dtype == want.dtype
            and np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes())


@pytest.mark.parametrize("name", MODELS)
def test_every_tensor_has_the_values_of_onnx_to_array_bit_for_bit(name):
    path = FIXTURES / name
    expected = np.load(path.with_suffix(".npz"))
    names = [str(n) for n in expected["names"]]
    listing = list_file(str(path))
    assert listing.format == "onnx" and listing.problems == ()
    assert sorted(names) == sorted(e.name for e in listing.entries if e.readable)
    for i, (entry_name, kind) in enumerate(zip(names, expected["kinds"])):
        got = _bits(tensor(str(path), entry_name), str(kind))
        assert _same_bits(got, expected[f"v{i}"]), (name, entry_name, got, expected[f"v{i}"])


def test_raw_data_and_external_data_are_views_of_the_file():
    listing = list_file(str(FIXTURES / "raw.onnx"))
    kinds = {e.name: e.storage for e in listing.entries}
    # every raw_data tensor is a view, but an odd count of int4 (its last high nibble is padding)
    assert [n for n, k in kinds.items() if k is not Storage.VIEW] == ["i4_odd"]
    entry = find_entry(listing, "f32")
    data = (FIXTURES / "raw.onnx").read_bytes()
    assert entry.offset == 109 and entry.nbytes == 24  # hand-checked in the file
    assert np.array_equal(np.frombuffer(data, "<f4", 6, entry.offset), np.array(
        [0.0, -1.5, 3.25, np.nan, np.inf, -0.0], np.float32), equal_nan=True)
    with Pipeline(str(FIXTURES / "raw.onnx")) as pipeline:
        view = pipeline.run(entry.params()).view
        base = view
        while base is not None and not isinstance(base, mmap.mmap):
            base = getattr(base, "base", getattr(base, "obj", None))
        assert isinstance(base, mmap.mmap)  # a view of the read-only map, no copy
    external = list_file(str(FIXTURES / "external/model.onnx"))
    assert [(e.name, e.file, e.offset, e.nbytes, e.storage) for e in external.entries] == [
        ("w", "weights.bin", 0, 48, Storage.VIEW), ("ids", "weights.bin", 48, 40, Storage.VIEW),
        ("h", "weights.bin", 88, 4, Storage.VIEW)]


def test_typed_fields_are_views_when_packed_fixed_width_else_decoded_copies():
    listing = list_file(str(FIXTURES / "typed.onnx"))
    views = {e.name for e in listing.entries if e.storage is Storage.VIEW and e.readable}
    assert views == {"c", "f32", "f64", "c64", "c128", "scalar", "empty"}
    f16 = find_entry(listing, "f16")
    assert (f16.storage, f16.extras["stored in"]) == (Storage.COPY, "int32_data")
    # float16 bit patterns in the low 16 bits of int32_data: 1.5 is 0x3E00, -2.0 is 0xC000
    assert tensor(str(FIXTURES / "typed.onnx"), "f16").view(np.uint16)[:2].tolist() == [0x3E00, 0xC000]


def test_constant_nodes_and_subgraphs_are_named_by_node_and_attribute():
    listing = list_file(str(FIXTURES / "subgraph.onnx"))
    assert [(e.name, e.extras["in"]) for e in listing.entries] == [
        ("cond", "initializer"), ("branch/else_branch/k", "initializer"),
        ("branch/then_branch/t", "Constant node 'Constant_0'")]
    assert tensor(str(FIXTURES / "subgraph.onnx"), "branch/then_branch/t").tolist() == [1.0, 2.0]


def test_unshown_types_are_listed_with_their_reason_and_bytes():
    path = str(FIXTURES / "raw.onnx")
    listing = list_file(path)
    f4, words = find_entry(listing, "f4"), find_entry(listing, "words")
    assert not f4.readable and "FLOAT4E2M1, which the tool cannot decode" in f4.problem
    assert "a STRING tensor of 2 strings: strings are not decoded" in words.problem
    # 1.5, -2.0, 6.0 in FLOAT4E2M1 are 0x3, 0xC, 0x7: packed low nibble first
    assert tensor(path, "f4", dtype="uint8").tolist() == [0xC3, 0x07]


# -- the command ------------------------------------------------------------------------------------
def test_list_json_and_tensor_on_the_command_line(capsys):
    path = str(FIXTURES / "external" / "model.onnx")
    assert main([path, "--list", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["format"] == "onnx" and document["metadata"]["ir_version"] == "14"
    first = document["tensors"][0]
    assert (first["name"], first["storage"], first["file"], first["shape"]) == ("w", "view", "weights.bin", [3, 4])
    assert main([str(FIXTURES / "typed.onnx"), "--tensor", "i64", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["values"] == [-(2**63), -5, 2**63 - 1]
    assert captured.err.startswith("note: 'i64' is stored in int64_data of the model: these are its decoded values")


def test_a_tensor_missing_from_the_model_lists_the_closest(capsys):
    assert main([str(FIXTURES / "raw.onnx"), "--tensor", "f33"]) != 0
    assert "has no tensor named 'f33' (closest: 'f32', 'f4')" in capsys.readouterr().err


# -- sniffing ----------------------------------------------------------------------------------------
def test_only_a_dot_onnx_name_with_model_structure_is_claimed(tmp_path):
    data = (FIXTURES / "raw.onnx").read_bytes()
    assert list_file(write(tmp_path, data, "model.bin")) is None  # no magic: the name decides
    assert list_file(write(tmp_path, data, "MODEL.ONNX")).format == "onnx"
    assert list_file(write(tmp_path, bytes(range(256)) * 4, "noise.onnx")) is None
    assert list_file(write(tmp_path, b"\x08\x07" + b"\xff" * 100, "junk.onnx")) is None
    assert onnx_format.sniff(model(b""), 4) and not onnx_format.sniff(b"\x08\x00\x3a\x00", 4)
    assert onnx_format.sniff(vfield(1, 7) + lfield(7, b"\x00" * 8)[:3], 3)  # cut: listed to say so
    assert not onnx_format.sniff(vfield(1, 7) + vfield(7, 1), 4)  # graph is not a varint


def test_a_tfrecord_named_dot_onnx_stays_a_tfrecord(tmp_path):
    from core.formats.tfrecord import masked_crc32c

    payload = b"not a model"
    length = struct.pack("<Q", len(payload))
    record = length + struct.pack("<I", masked_crc32c(length)) + payload + struct.pack("<I", masked_crc32c(payload))
    assert list_file(write(tmp_path, record, "x.onnx")).format == "tfrecord"


# -- hand-built models: typed fields written otherwise, bad data --------------------------------------
def test_unpacked_and_split_typed_fields_decode_to_the_same_values(tmp_path):
    ints = b"".join(vfield(5, v) for v in (-3, 0, 70000))          # unpacked int32_data
    floats = lfield(4, struct.pack("<2f", 1.0, 2.0)) + lfield(4, struct.pack("<f", -4.0))  # two runs
    halves = b"".join(vfield(5, v) for v in (0x3C00, 0x7E00))      # float16 1.0 and NaN bit patterns
    path = write(tmp_path, model(initializer(tensor_proto("i", 6, [3], ints)),
                                 initializer(tensor_proto("f", 1, [3], floats)),
                                 initializer(tensor_proto("h", 10, [2], halves))))
    listing = list_file(path)
    assert [(e.name, e.storage, e.extras.get("fields")) for e in listing.entries] == [
        ("i", Storage.COPY, 3), ("f", Storage.COPY, 2), ("h", Storage.COPY, 2)]
    assert tensor(path, "i").tolist() == [-3, 0, 70000]
    assert tensor(path, "f").tolist() == [1.0, 2.0, -4.0]
    assert tensor(path, "h").view(np.uint16).tolist() == [0x3C00, 0x7E00]


def test_constant_scalar_attributes_are_tensors_too(tmp_path):
    def node(output: str, attribute: bytes) -> bytes:
        return lfield(1, lfield(2, output.encode()) + lfield(4, b"Constant") + lfield(5, attribute))

    path = write(tmp_path, model(
        node("a", lfield(1, b"value_float") + varint(2 << 3 | 5) + struct.pack("<f", 0.5)),
        node("b", lfield(1, b"value_ints") + lfield(8, varint(7) + varint(-1))),
        node("c", lfield(1, b"value_int") + vfield(3, 300))))
    listing = list_file(path)
    assert [(e.name, e.shape, e.storage) for e in listing.entries] == [
        ("a", (), Storage.VIEW), ("b", (2,), Storage.COPY), ("c", (), Storage.COPY)]
    assert tensor(path, "a").tolist() == 0.5 and tensor(path, "b").tolist() == [7, -1]
    assert tensor(path, "c").tolist() == 300


@pytest.mark.parametrize("parts, problem", [
    ((lfield(9, b"\x00" * 7),), "holds 7 bytes of data, but FLOAT dims (2,) need 8"),
    ((lfield(4, struct.pack("<3f", 1, 2, 3)),), "holds 12 bytes of float_data, but FLOAT dims (2,) need 8"),
    ((), "has no data (no raw_data, no float_data, no external data)"),
])
def test_data_that_disagrees_with_the_dims_is_a_problem_of_that_entry(tmp_path, parts, problem):
    path = write(tmp_path, model(initializer(tensor_proto("bad", 1, [2], *parts)),
                                 initializer(tensor_proto("ok", 1, [1], lfield(9, struct.pack("<f", 3.0))))))
    listing = list_file(path)
    assert problem in find_entry(listing, "bad").problem
    assert tensor(path, "ok").tolist() == [3.0]


def test_negative_dims_and_unknown_types_are_problems(tmp_path):
    path = write(tmp_path, model(initializer(tensor_proto("neg", 1, [-1], lfield(9, b""))),
                                 initializer(tensor_proto("odd", 99, [1], lfield(9, b"\x00")))))
    problems = {e.name: e.problem for e in list_file(path).entries}
    assert problems == {"neg": "tensor 'neg': its dims (-1,) are negative",
                        "odd": "tensor 'odd': its data type 99 is not an ONNX element type"}


def test_a_varcount_copy_that_holds_other_than_its_dims_is_refused_when_opened(tmp_path):
    path = write(tmp_path, model(initializer(tensor_proto("short", 7, [3], lfield(7, varint(1) + varint(2))))))
    with pytest.raises(ContainerError, match=r"'short' holds 2 values in int64_data, but its dims \(3,\) need 3"):
        tensor(path, "short")


def _external(location: str, offset: int = 0, length: int = 8) -> bytes:
    entries = [("location", location), ("offset", str(offset)), ("length", str(length))]
    parts = b"".join(lfield(13, lfield(1, k.encode()) + lfield(2, v.encode())) for k, v in entries)
    return model(initializer(tensor_proto("w", 1, [2], parts, vfield(14, 1))))


@pytest.mark.parametrize("location, problem", [
    ("../outside.bin", "names its external data file '../outside.bin', which is not inside the model's folder"),
    ("/etc/passwd", "names its external data file '/etc/passwd', which is not inside the model's folder"),
    ("missing.bin", "is stored in 'missing.bin', which is missing beside the model"),
    ("short.bin", "has external data of 8 bytes from byte 0 of 'short.bin', past its end (4 bytes)"),
])
def test_external_data_outside_the_folder_missing_or_short_is_refused(tmp_path, capsys, location, problem):
    folder = tmp_path / "model"
    folder.mkdir()
    (tmp_path / "outside.bin").write_bytes(b"\x00" * 8)
    (folder / "short.bin").write_bytes(b"\x00" * 4)
    path = write(folder, _external(location))
    entry = find_entry(list_file(path), "w")
    assert not entry.readable
    assert entry.problem == f"the onnx file '{path}': tensor 'w' {problem}" + (
        " (an ONNX model may name only files beside it or below it; copy the file there)"
        if "not inside" in problem else f" (in '{folder}')" if "missing" in problem else "")
    assert main([path, "--tensor", "w"]) != 0
    assert capsys.readouterr().err == f"error: {entry.problem}\n"


def test_external_data_below_the_folder_opens(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "w.bin").write_bytes(b"\xff" * 4 + struct.pack("<2f", 1.5, -2.0))
    path = write(tmp_path, _external("data/w.bin", offset=4))
    assert tensor(path, "w").tolist() == [1.5, -2.0]


def _graph_nested(depth: int) -> bytes:
    graph = initializer(tensor_proto("deep", 1, [1], lfield(9, struct.pack("<f", 1.0))))
    for _ in range(depth):
        attribute = lfield(1, b"then_branch") + lfield(6, graph)
        graph = lfield(1, lfield(4, b"If") + lfield(5, attribute))
    return graph


@pytest.mark.parametrize("data, what, offset", [
    (model(initializer(tensor_proto("w", 1, [1], lfield(9, b"\x00" * 4))))[:-2],
     "a field of 15 bytes runs past its message (13 bytes left)", 4),
    (b"\x08\x0a\x3a\x0c" + b"\x0a" + b"\xff" * 11, "a varint runs past its message or over 10 bytes", 5),
    (b"\x08\x0a\x3a\x02\x0b\x00", "wire type 3 is not used by tf.train.Example or ONNX", 5),
    (b"\x08\x0a\x3a\x02\x00\x00", "field number 0 is not valid protobuf", 4),
    (model(_graph_nested(MAX := onnx_format.MAX_GRAPH_DEPTH + 1)), f"subgraphs are nested more than {MAX - 1} deep", None),
])
def test_malformed_structure_stops_the_listing_with_one_message(tmp_path, data, what, offset):
    path = write(tmp_path, data)
    with pytest.raises(ContainerError) as caught:
        list_file(path)
    message = str(caught.value)
    assert message.startswith(f"the onnx file '{path}' at byte ")
    assert f"not a well-formed ONNX model: {what}" in message
    if offset is not None:
        assert message.startswith(f"the onnx file '{path}' at byte {offset}: ")


def test_subgraphs_up_to_the_depth_limit_are_listed(tmp_path):
    path = write(tmp_path, model(_graph_nested(onnx_format.MAX_GRAPH_DEPTH)))
    (entry,) = list_file(path).entries
    assert entry.name == "If_0/then_branch/" * onnx_format.MAX_GRAPH_DEPTH + "deep"
    assert tensor(path, entry.name).tolist() == [1.0]


def test_a_listing_keeps_at_most_entry_limit_entries(tmp_path, monkeypatch):
    monkeypatch.setattr(onnx_format, "entry_limit", lambda: 2)
    shutil.copy(FIXTURES / "raw.onnx", tmp_path / "raw.onnx")
    listing = list_file(str(tmp_path / "raw.onnx"))
    assert [e.name for e in listing.entries] == ["c", "f32"]
    assert listing.problems[0].startswith("26 more tensors not listed")


def test_an_odd_count_of_int4_in_external_data_is_unpacked_from_the_sibling_file(tmp_path):
    (tmp_path / "w.bin").write_bytes(bytes([0x00, 0x8F, 0x07]))  # -1, -8 | 7, pad: values 0..2 after byte 0
    entries = [("location", "w.bin"), ("offset", "1"), ("length", "2")]
    parts = b"".join(lfield(13, lfield(1, k.encode()) + lfield(2, v.encode())) for k, v in entries)
    path = write(tmp_path, model(initializer(tensor_proto("q", 22, [3], parts, vfield(14, 1)))))
    entry = find_entry(list_file(path), "q")
    assert (entry.storage, entry.file, entry.offset, entry.nbytes) == (Storage.COPY, "w.bin", 1, 2)
    assert tensor(path, "q").tolist() == [-1, -8, 7]


def test_a_sparse_initializer_lists_its_values_and_indices(tmp_path):
    values = tensor_proto("s", 1, [2], lfield(9, struct.pack("<2f", 0.5, -1.0)))
    indices = tensor_proto("", 7, [2], lfield(9, struct.pack("<2q", 1, 5)))
    path = write(tmp_path, model(lfield(15, lfield(1, values) + lfield(2, indices) + vfield(3, 8))))
    listing = list_file(path)
    assert [(e.name, e.extras["in"]) for e in listing.entries] == [
        ("s/values", "sparse initializer (values)"), ("s/indices", "sparse initializer (indices)")]
    assert tensor(path, "s/values").tolist() == [0.5, -1.0] and tensor(path, "s/indices").tolist() == [1, 5]


def test_listing_reads_the_structure_never_the_raw_data(tmp_path):
    from core.files.sources import open_source
    from core.formats.reader import HeaderReader
    from core.formats.registry import list_container

    size = 1 << 30  # a 1 GiB raw_data in a sparse file
    proto_head = vfield(1, size // 4) + vfield(2, 1) + lfield(8, b"big") + varint(9 << 3 | 2) + varint(size)
    graph_head = varint(5 << 3 | 2) + varint(len(proto_head) + size) + proto_head
    head = vfield(1, 10) + varint(7 << 3 | 2) + varint(len(graph_head) + size) + graph_head
    path = tmp_path / "big.onnx"
    with open(path, "wb") as out:
        out.write(head)
        out.truncate(len(head) + size)
    with open_source(str(path)) as source:
        reader = HeaderReader(source, 0)
        (entry,) = list_container(reader).entries
        assert reader.consumed < 1024  # the keys and lengths, a few hundred bytes
    assert (entry.offset, entry.nbytes, entry.shape, entry.storage) == (len(head), size, (size // 4,), Storage.VIEW)


@pytest.mark.parametrize("location, problem", [
    ("sub", "is stored in 'sub', which is not a regular file"),
    ("a\x00b", "is stored in 'a\\x00b', which is missing beside the model"),
])
def test_external_data_that_is_a_folder_or_no_file_name_is_refused(tmp_path, location, problem):
    (tmp_path / "sub").mkdir()
    entry = find_entry(list_file(write(tmp_path, _external(location))), "w")
    assert problem in entry.problem and not entry.readable


def test_huge_dims_are_refused_before_anything_is_allocated(tmp_path):
    from core.errors import BudgetError

    path = write(tmp_path, model(initializer(tensor_proto("huge", 7, [2**62], lfield(7, varint(5)))),
                                 initializer(tensor_proto("raw", 1, [2**61, 2**61], lfield(9, b"\x00" * 4)))))
    listing = list_file(path)
    huge, raw = listing.entries
    assert huge.storage is Storage.COPY and huge.extras["decoded bytes"] == 2**65
    with pytest.raises(BudgetError, match="decoding 'huge' would copy"):
        tensor(path, "huge")
    assert raw.problem == (f"tensor 'raw' holds 4 bytes of data, but FLOAT dims ({2**61}, {2**61}) need {2**124} "
                           "(the model is damaged; --dtype uint8 shows the bytes)")


def test_the_file_window_reads_small_blocks_after_a_jump_and_doubles_while_sequential():
    from core.formats.tfrecord_wire import FileWindow

    data = bytes(range(256)) * 64
    reads = []
    window = FileWindow(lambda offset, n: (reads.append((offset, n)), data[offset:offset + n])[1], len(data))
    assert (window[0], window[255], window[256], window[768], window[1000]) == (0, 255, 0, 0, 1000 % 256)
    assert window[5000:5004] == data[5000:5004]  # outside the block: read as is, not cached
    assert window[16383] == 255
    assert reads == [(0, 256), (256, 512), (768, 1024), (5000, 4), (16383, 1)]
