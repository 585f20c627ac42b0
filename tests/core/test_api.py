"""The public API of core/__init__.py (core/api.py): thin doors to the one implementation."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import core
from core.errors import ContainerError, SliceError, SourceError

ROOT = Path(__file__).resolve().parents[2]


def test_importing_core_and_its_api_imports_no_qt():
    code = ("import sys, core, core.api, core.files.memory\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('PySide6', 'pyqtgraph', 'shiboken6', 'inspector')))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_name_in_all_exists():
    assert [name for name in core.__all__ if not hasattr(core, name)] == []


def test_decode_a_file_and_an_array_the_same_way(tmp_path):
    values = np.arange(24, dtype=">i4").reshape(4, 6)
    path = tmp_path / "values.bin"
    values.tofile(path)
    from_file = core.read_values(path, "[1:, ::2]", dtype="int32", little_endian=False, shape=(4, 6))
    np.testing.assert_array_equal(from_file, values[1:, ::2])
    np.testing.assert_array_equal(core.read_values(values, "[1:, ::2]"), values[1:, ::2])
    assert from_file.flags.owndata or from_file.base is not None  # a new array, files closed


def test_run_keeps_provenance_and_leaves_the_pipeline_open():
    with core.open_pipeline(np.arange(6, dtype=np.uint16)) as pipe:
        result = core.run(pipe, "[::2]")
        assert result.view.tolist() == [0, 2, 4]
        assert result.byte_offset(2) == (0, 8, 2)
        again = core.run(pipe, params=core.DecodeParams(dtype="uint8"), shape=(3, 4))
        assert again.view.shape == (3, 4)
        assert core.read_values(pipe, "[:3]", dtype="uint8").tolist() == [0, 0, 1]
        assert not pipe.source.closed


def test_run_refuses_unknown_options_and_bad_slices():
    with core.open_pipeline(b"abcd") as pipe:
        with pytest.raises(TypeError):
            core.run(pipe, dtyp="int8")
        with pytest.raises(SliceError):
            core.run(pipe, "[1:")


def test_tensor_reads_a_container_entry_by_name(tmp_path):
    np.savez(tmp_path / "w.npz", a=np.arange(4, dtype=np.int16), b=np.ones(3))
    assert core.tensor(tmp_path / "w.npz", "a", "[1:]").tolist() == [1, 2, 3]
    with pytest.raises(ContainerError):
        core.tensor(tmp_path / "w.npz", "missing")
    (tmp_path / "raw.bin").write_bytes(b"1234")
    with pytest.raises(ContainerError, match="not a container file"):
        core.tensor(tmp_path / "raw.bin", "a")


def test_tensor_reads_copies_and_computed_values_as_the_command_does(tmp_path, quantized_gguf):
    np.savez_compressed(tmp_path / "c.npz", a=np.arange(6, dtype=">i2").reshape(2, 3))
    assert core.tensor(tmp_path / "c.npz", "a", "[:, 1:]").tolist() == [[1, 2], [4, 5]]  # decompressed
    assert core.tensor(tmp_path / "c.npz", "a", shape=(3, 2)).tolist() == [[0, 1], [2, 3], [4, 5]]
    path, expected = quantized_gguf
    np.testing.assert_array_equal(core.tensor(path, "q8"), expected)  # dequantized
    assert core.tensor(path, "q8", dtype="uint8").shape == (136,)  # an explicit layout: the raw blocks


def test_slice_array_is_strided_slice():
    array = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(core.slice_array(array, "[1, ..., ::-2]"), array[1, ..., ::-2])
    with pytest.raises(SliceError):
        core.slice_array(array, "[5]")


def test_statistics_compare_and_export_of_results_and_arrays(tmp_path):
    with core.open_pipeline(bytearray(np.array([1, 2, 3, 10], np.float32).tobytes())) as pipe:
        result = core.run(pipe, dtype="float32")
        assert (core.statistics(result).mean, core.statistics(result.view).max) == (4.0, 10.0)
        assert core.compare_values(result, np.array([1, 2, 3, 11], np.float32)).mismatched == 1
        core.export_values(result, tmp_path / "v.bin")
        core.export_values(result.view[:2], tmp_path / "v.npy")
    assert (tmp_path / "v.bin").read_bytes() == np.array([1, 2, 3, 10], np.float32).tobytes()
    assert np.load(tmp_path / "v.npy").tolist() == [1.0, 2.0]


def test_open_pipeline_names_what_it_cannot_open(tmp_path):
    with pytest.raises(SourceError, match="cannot show a float"):
        core.open_pipeline(1.5)
    with pytest.raises(SourceError):
        core.open_pipeline(tmp_path / "missing.bin")


def test_the_api_shadows_no_engine_package():
    import types

    import core.compare.scanner
    import core.decode.decode_raw
    import core.export.arrays

    for name in ("compare", "decode", "export", "scan", "files", "formats", "guess", "slicing"):
        assert isinstance(getattr(core, name), types.ModuleType), name
