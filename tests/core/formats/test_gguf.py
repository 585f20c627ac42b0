"""GGUF files written by llama.cpp's own writer (the ``gguf`` package's GGUFWriter)."""

import struct

import ml_dtypes
import numpy as np
import pytest

import core
from core.errors import ContainerError
from core.files.sources import open_source
from core.formats import gguf as gguf_format
from core.formats.entry import Storage, find_entry
from core.formats.registry import list_file
from core.pipeline.pipeline import DecodeParams, Pipeline

gguf = pytest.importorskip("gguf")
from gguf.constants import GGMLQuantizationType as Q

F32 = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 5.5
F16 = np.array([[0.5, -2.0], [65504.0, 1e-3]], dtype=np.float16)
I16 = np.array([1, -2, 300], dtype=np.int16)
BF16 = np.array([1.5, -3.0, 256.0], dtype=ml_dtypes.bfloat16)
ROWS = np.linspace(-4, 4, 2 * 64, dtype=np.float32).reshape(2, 64)


def q4k_blocks(rows: int) -> np.ndarray:
    """Q4_K blocks (gguf-py cannot quantize to Q4_K): 144 bytes per 256 values, d and dmin
    float16 then 12 bytes of 6-bit scales and 128 bytes of 4-bit values; fixed pseudo-random
    contents with finite d and dmin."""
    rng = np.random.default_rng(7)
    blocks = rng.integers(0, 256, size=(rows, 144), dtype=np.uint8)
    blocks[:, 0:4] = np.frombuffer(np.array([0.01, 0.002], dtype="<f2").tobytes(), np.uint8)
    return blocks


def write_gguf(path, endian=gguf.GGUFEndian.LITTLE, alignment=None, tensors=None):
    writer = gguf.GGUFWriter(str(path), "llama", endianess=endian)
    writer.add_string("general.name", "tiny test model")
    writer.add_array("tokenizer.ggml.tokens", ["<s>", "a", "b", "c", "d", "</s>"])
    writer.add_array("some.numbers", [3, 1, 4])
    if alignment:
        writer.add_custom_alignment(alignment)
    for name, array, raw in tensors if tensors is not None else [
        ("blk.0.w", F32, None), ("blk.0.h", F16, None), ("ids", I16, None),
        ("bf", BF16.view(np.uint16), Q.BF16),
        ("q8", gguf.quants.quantize(ROWS, Q.Q8_0), Q.Q8_0),
        ("q4_0", gguf.quants.quantize(ROWS, Q.Q4_0), Q.Q4_0),
        ("q4k", q4k_blocks(2), Q.Q4_K),
    ]:
        if raw is None:
            writer.add_tensor(name, array)
        else:
            writer.add_tensor(name, array, raw_dtype=raw)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return str(path)


def test_plain_tensors_in_c_order_with_values(tmp_path):
    path = write_gguf(tmp_path / "m.gguf")
    listing = list_file(path)
    assert listing.format == "gguf" and listing.problems == ()
    assert listing.metadata["general.name"] == "tiny test model"
    assert listing.metadata["tokenizer.ggml.tokens"] == "[6 x string: '<s>', 'a', 'b', 'c', ...]"
    assert listing.metadata["some.numbers"] == "[3, 1, 4]"
    assert listing.metadata["byte order"] == "little-endian"
    w = find_entry(listing, "blk.0.w")
    assert (w.dtype, w.shape, w.stored_type, w.nbytes) == ("float32", (2, 3, 4), "F32", 96)
    assert w.extras["ggml dims (innermost first)"] == (4, 3, 2)
    assert w.offset % 32 == 0
    with Pipeline(path) as pipeline:
        assert pipeline.run(w.params()).view.tolist() == F32.tolist()
        assert pipeline.run(find_entry(listing, "blk.0.h").params()).view.tolist() == F16.tolist()
        assert pipeline.run(find_entry(listing, "ids").params()).view.tolist() == [1, -2, 300]
        bf = find_entry(listing, "bf")
        assert (bf.dtype, bf.stored_type) == ("bfloat16", "BF16")
        assert pipeline.run(bf.params()).view.astype(np.float32).tolist() == [1.5, -3.0, 256.0]


def test_quantized_tensors_are_computed_values_over_their_raw_blocks(tmp_path):
    path = write_gguf(tmp_path / "q.gguf")
    listing = list_file(path)
    q8 = find_entry(listing, "q8")
    # 2 rows of 64 values: 2 blocks of 32 values in 34 bytes per row
    assert (q8.dtype, q8.shape, q8.nbytes, q8.stored_type) == ("float32", (2, 64), 136, "Q8_0")
    assert q8.storage is Storage.COMPUTED and not q8.mappable and q8.readable and q8.problem is None
    assert q8.extras["quantization"] == "Q8_0" and q8.extras["block"] == "32 values in 34 bytes"
    expected_blocks = gguf.quants.quantize(ROWS, Q.Q8_0)
    with Pipeline(path) as pipeline:  # an explicit dtype shows the raw blocks, flat
        raw = pipeline.run(q8.params_over(DecodeParams(dtype="uint8"))).view
        assert np.array_equal(raw, expected_blocks.reshape(-1))
    q4k = find_entry(listing, "q4k")
    assert (q4k.shape, q4k.nbytes) == ((2, 256), 2 * 144)
    with open_source(path) as source:
        values = gguf_format.dequantize(source, q8)
        assert values.shape == (2, 64) and values.dtype == np.float32
        assert np.array_equal(values, gguf.quants.dequantize(expected_blocks, Q.Q8_0))
        assert np.max(np.abs(values - ROWS)) < 0.02  # Q8_0: 8 bits per value
        q4 = gguf_format.dequantize(source, find_entry(listing, "q4_0"))
        assert np.max(np.abs(q4 - ROWS)) < 0.3  # Q4_0: 4 bits per value, scale 4/8
        k = gguf_format.dequantize(source, q4k)
        assert k.shape == (2, 256)
        assert np.array_equal(k, gguf.quants.dequantize(q4k_blocks(2), Q.Q4_K))
        with pytest.raises(ContainerError, match="'ids' is not a quantized GGUF tensor"):
            gguf_format.dequantize(source, find_entry(listing, "ids"))


def test_dequantize_without_the_package_says_how_to_install(tmp_path, monkeypatch):
    import sys

    path = write_gguf(tmp_path / "q.gguf")
    q8 = find_entry(list_file(path), "q8")
    monkeypatch.setitem(sys.modules, "gguf.quants", None)
    with open_source(path) as source, pytest.raises(ContainerError, match=r"needs the gguf package "
                                                    r"\(pip install 'tensor-inspector\[gguf\]'\)"):
        gguf_format.dequantize(source, q8)


def test_big_endian_file_and_custom_alignment(tmp_path):
    path = write_gguf(tmp_path / "be.gguf", gguf.GGUFEndian.BIG, alignment=64,
                      tensors=[("w", F32, None), ("ids", I16, None), ("q8", gguf.quants.quantize(ROWS, Q.Q8_0), Q.Q8_0)])
    listing = list_file(path)
    assert listing.metadata["byte order"] == "big-endian"
    assert listing.metadata["general.alignment"] == "64"
    w = find_entry(listing, "w")
    assert not w.little_endian and w.offset % 64 == 0
    with Pipeline(path) as pipeline:
        assert pipeline.run(w.params()).view.tolist() == F32.tolist()
        assert pipeline.run(find_entry(listing, "ids").params()).view.tolist() == [1, -2, 300]
    with open_source(path) as source:
        q8 = gguf_format.dequantize(source, find_entry(listing, "q8"))
        assert np.max(np.abs(q8 - ROWS)) < 0.02


# -- hostile headers -------------------------------------------------------------------------------
def _header(tensor_count=0, kv_count=0, version=3):
    return b"GGUF" + struct.pack("<IQQ", version, tensor_count, kv_count)


def _string(text):
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def _write(tmp_path, blob):
    path = tmp_path / "h.gguf"
    path.write_bytes(blob)
    return str(path)


def test_hostile_huge_counts_and_lengths_are_refused(tmp_path):
    with pytest.raises(ContainerError, match=r"gguf file .*h.gguf' at byte 8: the header claims "
                       r"1152921504606846976 tensors, more than the file can hold"):
        list_file(_write(tmp_path, _header(tensor_count=1 << 60) + bytes(64)))
    with pytest.raises(ContainerError, match="at byte 16: the header claims 4294967296 key/values"):
        list_file(_write(tmp_path, _header(kv_count=1 << 32) + bytes(64)))
    lying_key = _header(kv_count=1) + struct.pack("<Q", 1 << 40) + bytes(16)
    with pytest.raises(ContainerError, match=r"at byte 24: key/value 0 key claims 1099511627776 bytes"):
        list_file(_write(tmp_path, lying_key))
    strings = [_string(f"t{i}") for i in range(6)]
    strings[5] = struct.pack("<Q", 1 << 33) + b"xx"  # the vocabulary's last string lies
    lying_string = _header(kv_count=1) + _string("v") + struct.pack("<IIQ", 9, 8, 6) + b"".join(strings)
    with pytest.raises(ContainerError, match=r"key/value 'v'\[5\] claims 8589934592 bytes, more than "
                       r"the 2 left in the file \(a corrupt header, or not a GGUF file"):
        list_file(_write(tmp_path, lying_string))
    lying_array = _header(kv_count=1) + _string("a") + struct.pack("<IIQ", 9, 4, 1 << 50) + bytes(8)
    with pytest.raises(ContainerError, match="key/value 'a' claims an array of 1125899906842624 values"):
        list_file(_write(tmp_path, lying_array))


def test_hostile_truncated_header_and_data(tmp_path):
    path = write_gguf(tmp_path / "m.gguf")
    blob = open(path, "rb").read()
    with pytest.raises(ContainerError, match=r"h.gguf' at byte 149: key/value 'tokenizer.ggml.tokens' "
                       r"claims an array of 6 values, more than the 39 bytes left in the file"):
        list_file(_write(tmp_path, blob[:200]))
    first = find_entry(list_file(path), "blk.0.w")
    with pytest.raises(ContainerError, match=r"h.gguf' at byte 536: the tensor 'q4k' dims \(4 bytes "
                       r"from byte 536\) reaches past the end of the file \(536 bytes\)"):
        list_file(_write(tmp_path, blob[:first.offset - 40]))
    w = find_entry(list_file(path), "q4k")
    listing = list_file(_write(tmp_path, blob[:w.offset + 10]))
    assert find_entry(listing, "blk.0.w").mappable  # the rest stays usable
    cut = find_entry(listing, "q4k")
    assert not cut.mappable
    assert f"h.gguf' at byte {w.offset}: tensor 'q4k' data (288 bytes from byte {w.offset}) " \
           "reaches past the end of the file" in cut.problem


def test_hostile_dims_types_versions_and_alignment(tmp_path):
    many_dims = _header(tensor_count=1) + _string("t") + struct.pack("<I", 9) + bytes(100)
    with pytest.raises(ContainerError, match=r"at byte 24: tensor 't' has 9 dims \(GGUF allows 4\)"):
        list_file(_write(tmp_path, many_dims))
    unknown = _header(tensor_count=1) + _string("t") + struct.pack("<IQIQ", 1, 4, 99, 0) + bytes(64)
    entry = list_file(_write(tmp_path, unknown)).entries[0]
    assert entry.stored_type == "ggml type 99" and "unknown" in entry.problem
    with pytest.raises(ContainerError, match="GGUF version 1 is not supported"):
        list_file(_write(tmp_path, _header(version=1) + bytes(64)))
    bad_alignment = _header(kv_count=1) + _string("general.alignment") + struct.pack("<II", 4, 24) + bytes(32)
    with pytest.raises(ContainerError, match="general.alignment is 24, not a power of two"):
        list_file(_write(tmp_path, bad_alignment))
    nested = _header(kv_count=1) + _string("n") + struct.pack("<I", 9) + struct.pack("<IQ", 9, 1) * 6 + bytes(64)
    with pytest.raises(ContainerError, match="nests arrays more than 4 deep"):
        list_file(_write(tmp_path, nested))


def test_hostile_random_corruption_never_crashes(tmp_path):
    """Flipped header bytes give a listing (maybe with problems) or a ContainerError."""
    import random

    blob = open(write_gguf(tmp_path / "m.gguf"), "rb").read()
    header_end = find_entry(list_file(str(tmp_path / "m.gguf")), "blk.0.w").offset
    rng = random.Random(16)
    outcomes = set()
    for _ in range(300):
        bad = bytearray(blob)
        for _ in range(rng.randint(1, 3)):
            bad[rng.randrange(4, header_end)] = rng.randrange(256)
        try:
            list_file(_write(tmp_path, bytes(bad)))
            outcomes.add("listed")
        except ContainerError as error:
            assert "gguf file" in error.message and "at byte" in error.message
            outcomes.add("refused")
    assert outcomes == {"listed", "refused"}


# ------------------------------------------------------------------ split models (issue 32 item 6)
def _split_model(folder):
    rows = np.linspace(-2, 2, 64, dtype=np.float32).reshape(2, 32)
    writer = gguf.GGUFWriter(str(folder / "model.gguf"), "llama", split_max_tensors=2)
    writer.add_tensor("a", np.arange(6, dtype=np.float32).reshape(2, 3))
    writer.add_tensor("b", np.arange(4, dtype=np.int16))
    writer.add_tensor("c", np.full((3,), 7, dtype=np.float16))
    writer.add_tensor("q", gguf.quants.quantize(rows, Q.Q8_0), raw_dtype=Q.Q8_0)
    writer.add_tensor("d", np.array([1.5, -1.5], dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return rows


def test_any_split_of_a_split_model_lists_every_split_and_each_tensor_reads_from_its_file(tmp_path):
    rows = _split_model(tmp_path)
    names = ["model-00001-of-00003.gguf", "model-00002-of-00003.gguf", "model-00003-of-00003.gguf"]
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    for opened in names:
        listing = list_file(str(tmp_path / opened))
        assert [e.name for e in listing.entries] == ["a", "b", "c", "q", "d"]
        assert listing.metadata["split set"] == ("3 files, model-0000k-of-00003.gguf: every split's "
                                                 "tensors are listed")
        files = [e.file for e in listing.entries]
        assert files == [None if names[i // 2] == opened else names[i // 2] for i in range(5)]
        assert core.tensor(str(tmp_path / opened), "a").tolist() == [[0, 1, 2], [3, 4, 5]]
        assert core.tensor(str(tmp_path / opened), "d").tolist() == [1.5, -1.5]
        # a computed (dequantized) tensor of another split is read from that split
        expected = gguf.quants.dequantize(gguf.quants.quantize(rows, Q.Q8_0), Q.Q8_0)
        assert np.array_equal(core.tensor(str(tmp_path / opened), "q"), expected)


def test_a_missing_split_is_a_problem_and_the_others_still_list(tmp_path):
    _split_model(tmp_path)
    (tmp_path / "model-00002-of-00003.gguf").unlink()
    listing = list_file(str(tmp_path / "model-00001-of-00003.gguf"))
    assert [e.name for e in listing.entries] == ["a", "b", "d"]
    assert listing.problems[0].startswith("split 2 of 3 ('model-00002-of-00003.gguf') is not listed:")
