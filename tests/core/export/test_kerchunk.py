"""core.export.kerchunk: the references, opened by fsspec's real ReferenceFileSystem and zarr,
give exactly the tool's decoded tensor; what references cannot describe is refused."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

fsspec = pytest.importorskip("fsspec")
zarr = pytest.importorskip("zarr")

import core
from core.cli import main
from core.errors import ExportError
from core.export.kerchunk import MAX_REFERENCES, export_kerchunk, kerchunk_plan
from core.pipeline.pipeline import DecodeParams, Pipeline
from core.slicing.expr import parse_slice


def _opened(refs, name="data"):
    """The array the references describe, read by zarr through fsspec's ReferenceFileSystem."""
    fs = fsspec.filesystem("reference", fo=str(refs), asynchronous=True)  # zarr 3's own fsspec store
    group = zarr.open_group(zarr.storage.FsspecStore(fs, read_only=True), mode="r", zarr_format=2)
    return group[name]


def _round_trip(tmp_path, files, params, slice_text=None, **options):
    """(the tool's tensor, zarr's array, the plan) for ``files`` decoded with ``params``."""
    refs = tmp_path / "refs.json"
    with Pipeline([str(f) for f in files]) as pipeline:
        result = pipeline.run(params, parse_slice(slice_text) if slice_text else None)
        expected = np.array(result.tensor)
        plan = export_kerchunk(pipeline, result, refs, **options)
    array = _opened(refs, plan.name)
    return expected, array, plan


def _check(expected, array):
    values = array[...]
    assert values.shape == expected.shape and values.dtype == expected.dtype
    assert values.tobytes() == expected.tobytes()  # bit for bit (NaN payloads, -0.0)


VALUES = np.array([1.5, -2.25, np.nan, np.inf, 0.1, -0.0, 3e4, 7.0, 1e-3, -8.5, 42.0, 0.5] * 2)


@pytest.mark.parametrize("order", ["<", ">"])
def test_float32_with_a_header_offset_both_byte_orders(tmp_path, order):
    path = tmp_path / "x.bin"
    path.write_bytes(b"HEADER!!" + VALUES.astype(f"{order}f4").tobytes() + b"tail")
    expected, array, plan = _round_trip(tmp_path, [path], DecodeParams(
        dtype="float32", little_endian=order == "<", offset=8, length=96, shape=(4, 6)))
    _check(expected, array)
    assert plan.dtype == f"{order}f4" and plan.chunks == (4, 6) and plan.chunk_count == 1
    assert list(plan.references()) == [("data/0.0", [os.path.abspath(path), 8, 96])]


def test_int16_three_d_in_chunks_along_axis_0(tmp_path):
    data = np.arange(-600, 600, dtype="<i2")
    path = tmp_path / "x.bin"
    path.write_bytes(data.tobytes())
    expected, array, plan = _round_trip(tmp_path, [path], DecodeParams(dtype="int16", shape=(10, 12, 10)),
                                        chunk_bytes=500)
    _check(expected, array)
    assert plan.chunks == (2, 12, 10) and plan.chunk_count == 5  # 480 bytes each: the largest divisor of 10
    assert [ref[1] for _key, ref in plan.references()] == [0, 480, 960, 1440, 1920]
    assert array.attrs["_ARRAY_DIMENSIONS"] == ["dim_0", "dim_1", "dim_2"]
    assert array.attrs["tensor_inspector"]["dtype"] == "int16"


def test_uint8_records_with_padding_are_one_chunk_per_record(tmp_path):
    records = np.zeros((7, 10), np.uint8)
    records[:, :6] = np.arange(42).reshape(7, 6)
    records[:, 6:] = 0xEE  # padding the decode skips
    path = tmp_path / "r.bin"
    path.write_bytes(b"\x01\x02" + records.tobytes() + b"xyz")
    expected, array, plan = _round_trip(tmp_path, [path], DecodeParams(
        dtype="uint8", offset=2, record_size=10, fixed_length=6, shape=(7, 2, 3)))
    _check(expected, array)
    np.testing.assert_array_equal(array[...], np.arange(42).reshape(7, 2, 3))
    assert plan.chunks == (1, 2, 3) and plan.chunk_count == 7 and plan.dtype == "|u1"
    assert [ref[1:] for _key, ref in plan.references()] == [[2 + 10 * r, 6] for r in range(7)]


def test_records_back_to_back_are_one_run(tmp_path):
    path = tmp_path / "r.bin"
    path.write_bytes(np.arange(40, dtype=">u4").tobytes())
    expected, array, plan = _round_trip(tmp_path, [path], DecodeParams(
        dtype="uint32", little_endian=False, record_size=16))
    _check(expected, array)
    assert plan.shape == (10, 4) and plan.chunk_count == 1


def test_a_batch_of_files_is_chunks_per_file(tmp_path):
    files = []
    for i in range(3):
        files.append(tmp_path / f"f{i}.bin")
        files[-1].write_bytes((np.arange(12, dtype="<f8") + 100 * i).tobytes())
    expected, array, plan = _round_trip(tmp_path, files, DecodeParams(dtype="float64", shape=(3, 4, 3)))
    _check(expected, array)
    assert plan.chunks == (1, 4, 3)
    assert [ref[0] for _key, ref in plan.references()] == [os.path.abspath(f) for f in files]


def test_a_batch_of_files_with_records(tmp_path):
    files = []
    for i in range(2):
        files.append(tmp_path / f"f{i}.bin")
        files[-1].write_bytes(b"HD" + (np.arange(8, dtype="<i2") + 10 * i).tobytes())
    expected, array, _plan = _round_trip(tmp_path, files, DecodeParams(dtype="int16", offset=2, record_size=6,
                                                                        fixed_length=4))
    _check(expected, array)
    assert expected.shape == (2, 3, 2)  # the last record ends within the data: its 4 used bytes are there


def test_an_npy_file_and_a_container_entry(tmp_path):
    path = tmp_path / "a.npy"
    np.save(path, np.arange(24, dtype=">f2").reshape(2, 3, 4))
    expected, array, _plan = _round_trip(tmp_path, [path], DecodeParams())
    _check(expected, array)
    np.testing.assert_array_equal(array[...], np.load(path))
    from safetensors.numpy import save_file

    model = tmp_path / "m.safetensors"
    save_file({"w": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.ones(3, np.int64)}, str(model))
    entry = core.find_entry(core.list_file(str(model)), "w")
    expected, array, _plan = _round_trip(tmp_path, [model], entry.params())
    _check(expected, array)


def test_a_slice_is_recorded_not_described(tmp_path):
    path = tmp_path / "x.bin"
    path.write_bytes(VALUES.astype("<f4").tobytes())
    expected, array, plan = _round_trip(tmp_path, [path], DecodeParams(dtype="float32", shape=(4, 6)), "1:, ::2")
    _check(expected, array)  # the whole tensor
    assert plan.notes == ("the slice [1:, ::2] is not part of the references: they describe the whole tensor "
                          "(4, 6) (apply it after opening: z[1:, ::2])",)
    assert array.attrs["tensor_inspector"]["slice"] == "[1:, ::2]"


def test_the_file_is_kerchunk_version_1(tmp_path):
    path = tmp_path / "x.bin"
    path.write_bytes(bytes(range(16)))
    _round_trip(tmp_path, [path], DecodeParams(dtype="uint8", shape=(4, 4)))
    document = json.loads((tmp_path / "refs.json").read_text())
    assert document["version"] == 1
    refs = document["refs"]
    assert json.loads(refs[".zgroup"]) == {"zarr_format": 2}
    assert json.loads(refs["data/.zarray"]) == {
        "zarr_format": 2, "shape": [4, 4], "chunks": [4, 4], "dtype": "|u1", "compressor": None, "filters": None,
        "fill_value": None, "order": "C", "dimension_separator": "."}
    assert refs["data/0.0"] == [os.path.abspath(path), 0, 16]


def test_rows_that_do_not_line_up_with_records_are_small_chunks(tmp_path):
    path = tmp_path / "r.bin"
    path.write_bytes(np.arange(30, dtype="<i4").tobytes())  # 5 records of 6 bytes... as 10 x 3 values
    expected, array, plan = _round_trip(tmp_path, [path], DecodeParams(dtype="int32", record_size=24,
                                                                        fixed_length=12, shape=(5, 3)))
    _check(expected, array)
    assert plan.chunks == (1, 3)


@pytest.mark.parametrize("params, message", [
    (DecodeParams(dtype="bfloat16"), "zarr v2 has no bfloat16 type, so kerchunk references cannot describe bfloat16 "
                                     "values (decode as uint16: the same bytes; after reading, view them with "
                                     ".view(ml_dtypes.bfloat16))"),
    (DecodeParams(dtype="float8_e4m3fn"), "decode as uint8"),
    (DecodeParams(dtype="int4"), "int4 values are decoded into wider integers, not the stored bytes"),
    (DecodeParams(dtype="int24", length=12), "int24 values are decoded into wider integers"),
    (DecodeParams(dtype="uint8", record_size=4, fixed_length=8), "the decode pads each element of 4 bytes to "
                                                                 "fixed_length 8: the zero padding is a copy"),
    (DecodeParams(dtype="uint8", shape=(4, 4), strides=(1, 4)), "this tensor is a strided view of its bytes"),
])
def test_what_references_cannot_describe_is_refused(tmp_path, params, message):
    path = tmp_path / "x.bin"
    path.write_bytes(bytes(range(16)))
    with Pipeline([str(path)]) as pipeline:
        result = pipeline.run(params)
        with pytest.raises(ExportError, match=None) as raised:
            kerchunk_plan(pipeline.source, result)
    assert message in raised.value.message
    assert not (tmp_path / "refs.json").exists()


def test_values_in_memory_are_refused(tmp_path):
    with Pipeline(np.arange(4, dtype=np.float32)) as pipeline:
        result = pipeline.run(DecodeParams())
        with pytest.raises(ExportError, match="kerchunk references name bytes of files, and the tensor is values "
                                              "in memory"):
            export_kerchunk(pipeline, result, tmp_path / "refs.json")


def test_an_absurd_count_of_chunks_is_refused_before_writing(tmp_path):
    path = tmp_path / "sparse.bin"
    with open(path, "wb") as handle:
        handle.truncate(2 * (MAX_REFERENCES + 1))  # sparse: records of 2 bytes, 1 used
    started = __import__("time").monotonic()
    with Pipeline([str(path)]) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint8", record_size=2, fixed_length=1))
        with pytest.raises(ExportError, match=r"the references would need 1,000,001 chunks of 1 bytes, more than "
                                              r"1,000,000"):
            export_kerchunk(pipeline, result, tmp_path / "refs.json")
    assert __import__("time").monotonic() - started < 30
    assert not (tmp_path / "refs.json").exists()


def test_a_huge_sparse_file_is_a_few_references(tmp_path):
    path = tmp_path / "huge.bin"
    with open(path, "wb") as handle:
        handle.truncate(1 << 40)  # 1 TiB of zeros, nothing written
    with Pipeline([str(path)]) as pipeline:
        result = pipeline.run(DecodeParams(dtype="float32", shape=(1 << 20, 1 << 18)))
        plan = export_kerchunk(pipeline, result, tmp_path / "refs.json")
    assert plan.chunks == (32, 1 << 18) and plan.chunk_count == 32768
    array = _opened(tmp_path / "refs.json")
    assert array.shape == (1 << 20, 1 << 18)
    np.testing.assert_array_equal(array[-1, -4:], np.zeros(4, np.float32))


def test_the_output_is_never_an_inspected_file(tmp_path):
    path = tmp_path / "x.bin"
    path.write_bytes(bytes(range(16)))
    link = tmp_path / "link.json"
    link.symlink_to(path)
    with Pipeline([str(path)]) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint8"))
        for target in (path, link):
            with pytest.raises(ExportError, match="is the file being inspected"):
                export_kerchunk(pipeline, result, target)
        with pytest.raises(ExportError, match="is a directory"):
            export_kerchunk(pipeline, result, tmp_path)
        with pytest.raises(ExportError, match=r"the array name 'a/b' cannot be a zarr array's name"):
            export_kerchunk(pipeline, result, tmp_path / "r.json", "a/b")
    assert path.read_bytes() == bytes(range(16))


def test_the_command(tmp_path, capsys):
    path = tmp_path / "x.bin"
    path.write_bytes(b"\x00" * 4 + VALUES.astype(">f4").tobytes())
    refs = tmp_path / "refs.json"
    assert main(["kerchunk", str(path), "-o", str(refs), "--dtype", "float32", "--big-endian", "--offset", "4",
                 "--shape", "-1,6", "--slice", "0", "--name", "x"]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"wrote {refs}: 1 chunk reference of 96 bytes to x (4, 6) >f4\n"
    assert captured.err.startswith("note: the slice [0] is not part of the references")
    np.testing.assert_array_equal(_opened(refs, "x")[...], VALUES.astype(">f4").reshape(4, 6))
    assert main(["kerchunk", str(path), "-o", str(path), "--dtype", "float32"]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert main(["kerchunk", str(path), "-o", str(refs), "--dtype", "bfloat16"]) == 2
    assert "zarr v2 has no bfloat16 type" in capsys.readouterr().err


def test_the_command_on_a_container_tensor(tmp_path, capsys):
    from safetensors.numpy import save_file

    model = tmp_path / "m.safetensors"
    weights = np.arange(12, dtype=np.float32).reshape(3, 4)
    save_file({"w": weights}, str(model))
    refs = tmp_path / "refs.json"
    assert main(["kerchunk", str(model), "--tensor", "w", "-o", str(refs)]) == 0
    np.testing.assert_array_equal(_opened(refs)[...], weights)
    assert main(["kerchunk", str(model), "--tensor", "w", "-o", str(model)]) == 2
    assert "is the file being inspected" in capsys.readouterr().err


def test_the_public_api(tmp_path):
    path = tmp_path / "x.bin"
    path.write_bytes(np.arange(8, dtype="<u2").tobytes())
    with core.open_pipeline(str(path)) as pipe:
        plan = core.export_kerchunk(pipe, core.run(pipe, dtype="uint16", shape=(2, 4)), tmp_path / "refs.json")
    assert plan.shape == (2, 4)
    np.testing.assert_array_equal(_opened(tmp_path / "refs.json")[...], np.arange(8).reshape(2, 4))
