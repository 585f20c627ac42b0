"""The pipeline's "view as" step: TensorBuffer.create_from applied to the sliced view (docs/semantics.md §6, §7)."""

import subprocess
import sys

import numpy as np
import pytest

from core import DecodeParams, Pipeline, TensorBuffer, parse_slice
from core.errors import TensorBufferError

# Hand-derived from docs/semantics.md §6: float -> UINT8 clamps to [0, 255] then truncates toward zero;
# NaN -> 0, +Inf -> 255, -Inf -> 0.
FLOATS = np.array([254.9, 255.5, -0.5, np.nan, np.inf, -np.inf, 300.0, 1.99], dtype=">f4")
AS_UINT8 = [254, 255, 0, 0, 255, 0, 255, 1]
# Java's (int) cast for INT32: truncation toward zero, NaN -> 0, saturation.
AS_INT32 = [254, 255, 0, 0, 2147483647, -2147483648, 300, 1]


@pytest.fixture
def floats_file(tmp_path):
    path = tmp_path / "floats.bin"
    path.write_bytes(FLOATS.tobytes())
    return path


@pytest.mark.parametrize(("view_as", "expected", "dtype"), [("uint8", AS_UINT8, np.uint8), ("INT32", AS_INT32, np.int32)])
def test_view_as_converts_with_tensorbuffer_rules(floats_file, view_as, expected, dtype):
    with Pipeline(floats_file) as p:
        r = p.run(DecodeParams(dtype="float32", little_endian=False, view_as=view_as))
        assert r.view.dtype == dtype
        assert r.view.tolist() == expected
        assert r.zero_copy is False
        assert any(step.startswith(f"view as {view_as.upper()}") for step in r.steps)


def test_view_as_applies_after_the_slice_and_keeps_byte_offsets(floats_file):
    with Pipeline(floats_file) as p:
        r = p.run(DecodeParams(dtype="float32", little_endian=False, view_as="uint8"), parse_slice("[1::3]"))
        assert r.view.tolist() == [AS_UINT8[1], AS_UINT8[4], AS_UINT8[7]]
        # Element 1 of the view is element 4 of the file: bytes 16..19.
        assert r.byte_offset((1,)) == (0, 16, 4)
        assert r.element_at_byte(0, 29) == (2,)


def test_pipeline_holds_the_tensor_in_a_tensorbuffer_without_copying(floats_file):
    with Pipeline(floats_file) as p:
        r = p.run(DecodeParams(dtype="float32", little_endian=False))
        assert isinstance(r.buffer, TensorBuffer)
        assert r.buffer.shape == (8,)
        assert np.shares_memory(r.buffer.array, p.source.data(0))
        assert r.buffer.get_int_array().tolist() == AS_INT32


def test_unknown_view_as_type_names_the_field(floats_file):
    with Pipeline(floats_file) as p, pytest.raises(TensorBufferError) as info:
        p.run(DecodeParams(dtype="float32", view_as="int3"))
    assert info.value.field == "view_as"
    assert "int3" in str(info.value)


def test_headless_view_as_option(floats_file):
    out = subprocess.run(
        [sys.executable, "-m", "core", str(floats_file), "--dtype", "float32", "--big-endian", "--view-as", "uint8", "--json"],
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr
    assert '"values": [254, 255, 0, 0, 255, 0, 255, 1]' in out.stdout
