"""The command's container options (--list, --tensor), trailing bytes and .npy robustness."""

from __future__ import annotations

import json
import struct

import ml_dtypes
import numpy as np
import pytest

from core.cli import main

safetensors_numpy = pytest.importorskip("safetensors.numpy")


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "model.safetensors"
    safetensors_numpy.save_file({
        "layer.0.weight": np.arange(6, dtype=np.float32).reshape(2, 3),
        "layer.0.bias": np.array([-1, 1], dtype=np.int16),
    }, str(path), metadata={"step": "10"})
    return path


def test_list_is_a_table(model, capsys):
    assert main([str(model), "--list"]) == 0
    out = capsys.readouterr().out
    assert out == (
        f"safetensors file '{model}': 2 tensors\n"
        "  step: 10\n"
        "name            dtype    shape   kind  offset  bytes  notes\n"
        "layer.0.weight  float32  (2, 3)  view     176     24  stored as F32\n"
        "layer.0.bias    int16    (2,)    view     200      4  stored as I16\n")


def test_list_json(model, capsys):
    assert main([str(model), "--list", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["format"] == "safetensors" and document["metadata"] == {"step": "10"}
    assert document["tensors"][0] == {  # the header's order (the writer aligns and sorts)
        "name": "layer.0.weight", "dtype": "float32", "stored_type": "F32",
        "byte_order": "little", "shape": [2, 3], "storage": "view", "strides": None, "file": None,
        "shares": None, "offset": 176, "nbytes": 24,
        "mappable": True, "problem": None, "quantization": None, "record_layout": None,
        "extras": {}}


def test_tensor_then_slice_and_json(model, capsys):
    assert main([str(model), "--tensor", "layer.0.weight", "--slice", ":, 1:", "--json"]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert document["values"] == [[1.0, 2.0], [4.0, 5.0]]
    assert document["trailing_bytes"] == [0]  # the bias follows: the container's data, not trailing
    assert captured.err == ""


def test_tensor_with_explicit_dtype_sees_the_same_bytes(model, capsys):
    assert main([str(model), "--tensor", "layer.0.bias", "--dtype", "uint8", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["values"] == [255, 255, 1, 0]  # int16 -1 and 1, little-endian
    assert document["trailing_bytes"] == [0]  # the last tensor of the file


def test_missing_tensor_lists_the_closest(model, capsys):
    assert main([str(model), "--tensor", "layer.0.weights"]) == 2
    assert capsys.readouterr().err == (
        f"error: the safetensors file '{model}' has no tensor named 'layer.0.weights' (closest: "
        "'layer.0.weight', 'layer.0.bias')\n")


def test_list_of_a_raw_file_says_it_is_not_a_container(tmp_path, capsys):
    path = tmp_path / "raw.bin"
    path.write_bytes(bytes(100))
    assert main([str(path), "--list"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: '{path}' is not a container this tool lists (known: aiff, ")
    assert err.endswith("(open it as a raw file without --list and --tensor)\n")


def test_list_takes_one_file(model, capsys):
    assert main([str(model), str(model), "--list"]) == 2
    assert capsys.readouterr().err == ("error: --list and --tensor take one container file, "
                                       "not 2 (name one file)\n")


def test_trailing_bytes_are_noted_on_stderr_and_in_json(tmp_path, capsys):
    path = tmp_path / "ten.bin"
    path.write_bytes(bytes(range(10)))
    assert main([str(path), "--record-size", "4", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["trailing_bytes"] == [2]
    assert captured.err == (f"note: 2 trailing bytes in '{path}' after the data are not shown "
                            "(see --steps; --record-size or --length choose the data)\n")


# -- .npy robustness -----------------------------------------------------------------------
def test_bfloat16_npy_asks_for_its_type_then_opens(tmp_path, capsys):
    path = tmp_path / "bf16.npy"
    values = np.array([[1.5, -2.0], [0.25, 3.0]], dtype=ml_dtypes.bfloat16)
    np.save(path, values)  # numpy writes descr '<V2'
    assert main([str(path)]) == 2
    assert capsys.readouterr().err == (
        f"error: '{path}' is not a usable .npy file: its dtype '<V2' is numpy's name for 2-byte "
        "values of a type numpy does not know (ml_dtypes' bfloat16 is saved so: open it with "
        "dtype bfloat16 (--dtype bfloat16))\n")
    assert main([str(path), "--dtype", "bfloat16", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["shape"] == [2, 2]  # the header's offset and shape are kept
    assert document["values"] == [[1.5, -2.0], [0.25, 3.0]]


def test_structured_npy_prints_its_records_or_its_raw_bytes(tmp_path, capsys):
    path = tmp_path / "rec.npy"
    np.save(path, np.array([(1, 2.0), (-3, 0.5)], dtype=[("a", "<i2"), ("b", "<f4")]))
    assert main([str(path), "--json"]) == 0  # records of named fields: printed as records
    shown = json.loads(capsys.readouterr().out)
    assert shown["layout"]["record_size"] == 6 and shown["records"] == 2 and shown["trailing_bytes"] == 0
    assert shown["values"] == [{"a": 1, "b": 2.0}, {"a": -3, "b": 0.5}]
    assert main([str(path), "--field", "b", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == [2.0, 0.5]
    assert main([str(path), "--offset", "0", "--dtype", "uint8", "--json", "--limit", "100000"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == list(path.read_bytes())


def test_python2_long_literals_are_read_as_numpy_reads_them(tmp_path, capsys):
    header = b"{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 3L), }"
    header += b" " * (64 - 10 - len(header) - 1) + b"\n"
    path = tmp_path / "py2.npy"
    data = np.arange(6, dtype="<i4")
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + data.tobytes())
    with pytest.warns(UserWarning, match="created on Python 2"):
        np.testing.assert_array_equal(np.load(path), data.reshape(2, 3))  # numpy's own reading
    assert main([str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == [[0, 1, 2], [3, 4, 5]]


def test_fortran_order_npy_says_it_is_shown_transposed(tmp_path, capsys):
    path = tmp_path / "f.npy"
    np.save(path, np.asfortranarray(np.arange(6, dtype="<i2").reshape(2, 3)))
    assert main([str(path), "--json", "--steps"]) == 0
    captured = capsys.readouterr()
    assert "(Fortran order: axes reversed, the transpose of np.load's array)" in captured.out
    document = json.loads(captured.out.splitlines()[-1])
    assert document["transposed"] is True
    assert document["values"] == [[0, 3], [1, 4], [2, 5]]
    assert captured.err == ("note: Fortran-order .npy: shown transposed (the C-order reading of "
                            "its bytes; np.load returns the transpose)\n")


def test_fortran_order_npz_member_is_transposed_too(tmp_path, capsys):
    path = tmp_path / "f.npz"
    np.savez(path, f=np.asfortranarray(np.arange(6, dtype="<i2").reshape(2, 3)))
    assert main([str(path), "--tensor", "f", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["transposed"] is True


def test_a_container_shown_as_raw_bytes_says_how_to_open_its_tensors(tmp_path, capsys):
    from safetensors.numpy import save_file

    path = tmp_path / "m.safetensors"
    save_file({"a": np.zeros((2, 3), np.float32), "b": np.ones(4, np.int16)}, str(path))
    assert main([str(path), "--limit", "2"]) == 0
    assert capsys.readouterr().err == (
        f"note: '{path}' starts like a safetensors file, shown here as raw bytes: "
        "--list lists its tensors, --tensor NAME shows one\n")
    raw = tmp_path / "raw.bin"
    raw.write_bytes(bytes(range(16)))
    assert main([str(raw)]) == 0
    assert capsys.readouterr().err == ""


def test_tensor_shows_a_quantized_gguf_tensors_float32_values(quantized_gguf, capsys):
    path, expected = quantized_gguf
    assert main([str(path), "--tensor", "q8", "--slice", "1, -3:", "--json"]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert document["shape"] == [3] and document["dtype"] == "float32"
    # the shortest decimals that read back to the same float32 (the table's digits)
    assert np.array_equal(np.array(document["values"], dtype=np.float32), expected[1, -3:])
    # Q8_0 of a ramp ending at 4.0: the last value comes back within one step of 4/127
    assert abs(document["values"][-1] - 4.0) < 4 / 127
    assert "note: 'q8' (Q8_0) dequantized to float32 by the gguf package: a copy of 512 bytes" in captured.err
    # --dequantize (older scripts) is accepted and changes nothing
    assert main([str(path), "--tensor", "q8", "--dequantize", "--slice", "1, -3:", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == document["values"]
    # a layout option shows its bytes in the file: 2 rows of 2 blocks of 34 bytes, flat
    assert main([str(path), "--tensor", "q8", "--dtype", "uint8", "--json", "--limit", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["shape"] == [136]


def test_dequantize_is_ignored_for_a_plain_tensor_and_without_tensor(quantized_gguf, capsys):
    # It used to refuse both; the one path for every entry made it a no-op alias.
    path, _ = quantized_gguf
    assert main([str(path), "--tensor", "plain", "--dequantize", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == [1.5, 2.5]
    assert main([str(path), "--dequantize", "--limit", "0"]) == 0
    assert capsys.readouterr().out.startswith("shape: (")


def _tfrecord(path, *records: bytes):
    from core.formats.tfrecord import masked_crc32c

    def frame(data):
        length = struct.pack("<Q", len(data))
        return (length + struct.pack("<I", masked_crc32c(length)) + data
                + struct.pack("<I", masked_crc32c(data)))

    path.write_bytes(b"".join(frame(r) for r in records))
    return str(path)


def test_tensor_of_string_elements_keeps_them_with_dtype_and_fixed_length(tmp_path, capsys):
    # Raw records of 4 and 8 bytes: --dtype and --fixed-length apply to each element, as
    # tf.io.decode_raw(records, tf.int16, fixed_length=8) does (never to the bytes between them).
    path = _tfrecord(tmp_path / "r.tfrecord", struct.pack("<2h", 1, -2), struct.pack("<4h", 3, 4, 5, 6))
    assert main([path, "--tensor", "records", "--dtype", "int16", "--fixed-length", "8"]) == 0
    assert capsys.readouterr().out == (
        "shape: (2, 4)\ndtype: int16 (little-endian)\n[[ 1 -2  0  0]\n [ 3  4  5  6]]\n")
    assert main([path, "--tensor", "records", "--dtype", "int16"]) == 2
    assert "DecodeRaw requires input strings to all be the same size, but element 1 has size 4 != 8" \
        in capsys.readouterr().err



def test_tensor_of_a_compressed_npz_member_prints_its_decompressed_values(tmp_path, capsys):
    path = tmp_path / "c.npz"
    np.savez_compressed(path, a=np.arange(6, dtype="<f4").reshape(2, 3), b=np.array([1, -2], ">i2"))
    assert main([str(path), "--tensor", "a", "--slice", "[::-1, 1:]"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "shape: (2, 2)\ndtype: float32 (little-endian)\n[[4.0 5.0]\n [1.0 2.0]]\n"
    assert captured.err == ("note: 'a' is compressed in the file (deflate): these are its decompressed "
                            "values, a copy of 24 bytes in memory (their byte offsets are not file offsets)\n")
    assert main([str(path), "--tensor", "b", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["values"] == [1, -2] and document["shape"] == [2]
    # a layout option means the member's bytes in the file: the deflate stream
    from core.formats.registry import list_file

    compressed = list_file(str(path)).entries[0].nbytes
    assert main([str(path), "--tensor", "a", "--dtype", "uint8", "--limit", "2"]) == 0
    assert capsys.readouterr().out.startswith(f"shape: ({compressed},)\ndtype: uint8\n")
