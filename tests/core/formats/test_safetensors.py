"""safetensors files written by the ``safetensors`` package: every value exact, as a view."""

from __future__ import annotations

import json
import struct

import ml_dtypes
import numpy as np
import pytest

from core.errors import ContainerError
from core.formats.entry import find_entry
from core.formats.registry import list_file
from core.pipeline.pipeline import DecodeParams

safetensors = pytest.importorskip("safetensors")
from safetensors.numpy import save_file

RNG = np.random.default_rng(7)
ARRAYS = {
    "f64": RNG.standard_normal((3, 4)),
    "f32": RNG.standard_normal((2, 3, 2)).astype(np.float32),
    "f16": np.array([0.5, -1.0, 65504.0, np.inf], dtype=np.float16),
    "i64": np.array([-(2**63), 2**63 - 1, 0], dtype=np.int64),
    "i32": np.arange(-6, 6, dtype=np.int32).reshape(3, 4),
    "i16": np.array([-32768, 32767], dtype=np.int16),
    "i8": np.array([-128, 5, 127], dtype=np.int8),
    "u8": np.arange(256, dtype=np.uint8).reshape(16, 16),
    "u16": np.array([0, 65535], dtype=np.uint16),
    "u32": np.array([0, 2**32 - 1], dtype=np.uint32),
    "u64": np.array([0, 2**64 - 1], dtype=np.uint64),
    "bool": np.array([[True, False], [False, True]]),
    "c64": np.array([1 + 2j, -3.5j], dtype=np.complex64),
    "scalar": np.array(3.0, dtype=np.float32),
    "empty": np.zeros((0, 3), dtype=np.float32),
}
STORED = {"f64": "F64", "f32": "F32", "f16": "F16", "i64": "I64", "i32": "I32", "i16": "I16",
          "i8": "I8", "u8": "U8", "u16": "U16", "u32": "U32", "u64": "U64", "bool": "BOOL",
          "c64": "C64", "scalar": "F32", "empty": "F32"}


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("st") / "model.safetensors"
    save_file(ARRAYS, str(path), metadata={"format": "np", "note": "unit test"})
    return path


def test_listing_names_types_shapes_and_metadata(model):
    listing = list_file(str(model))
    assert listing.format == "safetensors"
    assert listing.metadata == {"format": "np", "note": "unit test"}
    assert listing.problems == ()
    assert {e.name for e in listing.entries} == set(ARRAYS)
    (length,) = struct.unpack("<Q", model.read_bytes()[:8])
    header = json.loads(model.read_bytes()[8:8 + length])
    for entry in listing.entries:
        assert entry.stored_type == STORED[entry.name]
        assert entry.shape == ARRAYS[entry.name].shape
        assert entry.nbytes == ARRAYS[entry.name].nbytes
        begin, end = header[entry.name]["data_offsets"]
        assert (entry.offset, entry.nbytes) == (8 + length + begin, end - begin)
        assert entry.mappable and entry.little_endian


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_every_dtype_shows_the_written_values_as_a_view(model, shown, name):
    values, result = shown(model, name)
    expected = ARRAYS[name]
    assert values.dtype == expected.dtype
    np.testing.assert_array_equal(values, expected)
    assert result.zero_copy
    assert result.trailing_bytes == (model.stat().st_size - find_entry(
        list_file(str(model)), name).offset - expected.nbytes,)


def _serialized(path, name: str, dtype: str, shape: list[int], data: np.ndarray) -> None:
    """Write with the package's own low-level writer (types its numpy API does not take)."""
    raw = np.ascontiguousarray(data)
    spec = safetensors.TensorSpec(dtype=dtype, shape=shape, data_ptr=raw.ctypes.data,
                                  data_len=raw.nbytes)
    path.write_bytes(safetensors.serialize({name: spec}))


def test_bfloat16_written_by_safetensors(tmp_path, shown):
    path = tmp_path / "bf16.safetensors"
    data = np.array([[1.5, -2.0], [3.25, 1e30]], dtype=ml_dtypes.bfloat16)
    _serialized(path, "w", "bfloat16", [2, 2], data)
    [entry] = list_file(str(path)).entries
    assert (entry.dtype, entry.stored_type, entry.shape) == ("bfloat16", "BF16", (2, 2))
    values, result = shown(path, "w")
    np.testing.assert_array_equal(values.astype(np.float32), data.astype(np.float32))
    assert result.zero_copy


@pytest.mark.parametrize(("dtype", "stored"), [("float8_e4m3fn", "F8_E4M3"),
                                               ("float8_e5m2", "F8_E5M2")])
def test_float8_tensors_decode_bit_for_bit_as_views(tmp_path, shown, dtype, stored):
    path = tmp_path / "f8.safetensors"
    data = np.array([0.5, -1.0, 2.0, float("nan")], dtype=getattr(ml_dtypes, dtype))
    _serialized(path, "q", dtype, [4], data)
    [entry] = list_file(str(path)).entries
    assert (entry.stored_type, entry.dtype, entry.nbytes) == (stored, dtype, 4)
    assert entry.mappable and entry.problem is None
    values, result = shown(path, "q")
    assert values.dtype == np.dtype(getattr(ml_dtypes, dtype))
    np.testing.assert_array_equal(values.view(np.uint8), data.view(np.uint8))
    assert result.zero_copy
    values, _ = shown(path, "q", DecodeParams(dtype="uint8"))  # its bytes, as before
    np.testing.assert_array_equal(values, data.view(np.uint8))


def test_explicit_options_override_the_entry(model, shown):
    values, _ = shown(model, "i16", DecodeParams(dtype="int16", little_endian=False))
    np.testing.assert_array_equal(values, ARRAYS["i16"].byteswap())
    values, _ = shown(model, "u16", DecodeParams(dtype="uint8"))  # another item size: flat bytes
    np.testing.assert_array_equal(values, ARRAYS["u16"].view(np.uint8))
    values, _ = shown(model, "i32", DecodeParams(shape=(4, 3)))
    np.testing.assert_array_equal(values, ARRAYS["i32"].reshape(4, 3))
    entry = find_entry(list_file(str(model)), "u8")
    values, _ = shown(model, "u8", DecodeParams(offset=entry.offset + 16, length=16))
    np.testing.assert_array_equal(values, ARRAYS["u8"][1])


def test_a_missing_name_lists_the_closest(model):
    with pytest.raises(ContainerError, match=r"has no tensor named 'f33' \(closest: 'f32'\)$"):
        find_entry(list_file(str(model)), "f33")
