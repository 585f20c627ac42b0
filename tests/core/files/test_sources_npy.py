"""``.npy`` sources: header defaults through the pipeline, and corrupt headers (never unpickled)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from core.errors import SourceError
from core.files.npy_header import parse_npy_header
from core.files.sources import open_source
from core.pipeline.pipeline import DecodeParams, Pipeline


@pytest.fixture(autouse=True)
def _no_numpy_load(monkeypatch):
    """The engine must never call np.load (it could unpickle); the tests use it only as oracle."""
    monkeypatch.setattr(np, "load", lambda *a, **k: pytest.fail("np.load called by the engine"))


_REAL_LOAD = np.load


def _oracle(path):
    return _REAL_LOAD(path, allow_pickle=False)


ARRAYS = [
    np.arange(12, dtype="<f4").reshape(3, 4),
    np.arange(6, dtype=">i2").reshape(2, 3),
    np.array([True, False, True]),
    np.array([1 + 2j, np.nan - 1j], dtype="<c8"),
    np.arange(5, dtype="<u4"),
    np.array(3.5, dtype="<f8"),
    np.zeros((0, 3), dtype="<f2"),
    np.arange(24, dtype="<i8").reshape(2, 3, 4),
]


@pytest.mark.parametrize("array", ARRAYS, ids=lambda a: f"{a.dtype.str}{a.shape}")
@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
def test_npy_defaults_reproduce_the_saved_array(tmp_path, array, version):
    path = tmp_path / "a.npy"
    with open(path, "wb") as f:
        np.lib.format.write_array(f, array, version=version)
    with Pipeline([path]) as pipeline:
        result = pipeline.run(DecodeParams())
        expected = _oracle(path)
        assert result.tensor.shape == expected.shape
        assert result.tensor.dtype == expected.dtype
        assert result.tensor.tobytes() == expected.tobytes()
        assert result.params.dtype == np.dtype(array.dtype.type).name
        assert result.params.little_endian == (array.dtype.byteorder != ">")
        assert result.params.offset == pipeline.source.files[0].npy.data_offset
        if array.size:
            assert result.zero_copy and np.shares_memory(result.view, pipeline.source.data(0))


def test_fortran_order_shows_the_transpose(tmp_path):
    array = np.asfortranarray(np.arange(6, dtype="<i4").reshape(2, 3))
    path = tmp_path / "f.npy"
    np.save(path, array)
    with Pipeline([path]) as pipeline:
        result = pipeline.run(DecodeParams())
        assert result.tensor.shape == (3, 2)
        assert result.tensor.tolist() == array.T.tolist()
        assert any("Fortran" in step for step in result.steps)


def test_npy_defaults_can_be_overridden(tmp_path):
    path = tmp_path / "a.npy"
    np.save(path, np.arange(4, dtype="<u2"))
    with Pipeline([path]) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint8"))
        assert result.tensor.tolist() == [0, 0, 1, 0, 2, 0, 3, 0]  # header shape does not fit
        result = pipeline.run(DecodeParams(offset=0, dtype="uint8", shape=(-1,)))
        assert bytes(result.tensor[:6]) == b"\x93NUMPY"


def test_values_taken_from_the_header_are_named(tmp_path):
    path = tmp_path / "a.npy"
    np.save(path, np.arange(12, dtype="<i2").reshape(3, 4))  # version 1.0 header: data at 128
    with Pipeline([path]) as pipeline:
        result = pipeline.run(DecodeParams())
        assert (result.params.offset, result.params.shape) == (128, (3, 4))
        assert result.from_header == {"dtype", "little_endian", "offset", "shape"}
        chosen = pipeline.run(DecodeParams(dtype="int16", offset=128, shape=(12,)))
        assert chosen.from_header == {"little_endian"}
        # uint8 gives 24 values: the header's (3, 4) does not fit, the decode shape is not the header's
        assert pipeline.run(DecodeParams(dtype="uint8")).from_header == {"little_endian", "offset"}


def test_raw_files_take_nothing_from_a_header(tmp_path):
    path = tmp_path / "a.bin"
    path.write_bytes(bytes(8))
    with Pipeline([path]) as pipeline:
        assert pipeline.run(DecodeParams()).from_header == frozenset()


def test_extra_bytes_after_npy_data_are_trailing(tmp_path):
    path = tmp_path / "a.npy"
    np.save(path, np.arange(3, dtype="<i4"))
    with open(path, "ab") as f:
        f.write(b"junk!")
    with Pipeline([path]) as pipeline:
        result = pipeline.run(DecodeParams())
        assert result.tensor.tolist() == [0, 1, 2]
        assert result.trailing_bytes == (5,)


def test_several_npy_files_with_one_header_stack(tmp_path):
    paths = []
    for i in range(3):
        paths.append(tmp_path / f"{i}.npy")
        np.save(paths[-1], np.full((2, 2), i, dtype="<f4"))
    with Pipeline(paths) as pipeline:
        result = pipeline.run(DecodeParams())
        assert result.tensor.shape == (3, 2, 2)
        assert result.tensor[2].tolist() == [[2, 2], [2, 2]]


def test_npy_files_with_different_headers_fall_back_to_raw_defaults(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros(2, "<f4"))
    np.save(tmp_path / "b.npy", np.zeros(2, "<i4"))
    source = open_source([tmp_path / "a.npy", tmp_path / "b.npy"])
    assert source.npy is None
    source.close()


# -- corrupt headers --------------------------------------------------------------------------
def _npy(header: str, data: bytes = b"", version: int = 1, magic: bytes = b"\x93NUMPY") -> bytes:
    text = header.encode("latin1")
    if version == 1:
        prefix = magic + bytes([1, 0]) + struct.pack("<H", len(text))
    else:
        prefix = magic + bytes([version, 0]) + struct.pack("<I", len(text))
    return prefix + text + data


CORRUPT = [
    ("absurd shape", _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (10**30,), }"),
     r"not a Python dict literal"),
    ("huge shape", _npy("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(1000000000000000000000, 4), }", bytes(16)),
     r"promises .* but the file has only 16 bytes of data"),
    ("negative dim", _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }"),
     r"negative dimension"),
    ("float dim", _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,), }"),
     r"not a tuple of integers"),
    ("too many dims", _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (" + "1," * 65 + "), }"),
     r"65 dimensions"),
    ("object dtype", _npy("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", bytes(100)),
     r"pickle, which is never loaded"),
    ("opaque dtype", _npy("{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }", bytes(4)),
     r"dtype '<V2' is numpy's name for 2-byte values of a type numpy does not know \(ml_dtypes' "
     r"bfloat16 is saved so: open it with dtype bfloat16 \(--dtype bfloat16\)\)"),
    ("unknown dtype", _npy("{'descr': '<f3', 'fortran_order': False, 'shape': (2,), }", bytes(4)),
     r"dtype '<f3' is not a supported numeric type"),
    ("unicode dtype", _npy("{'descr': '<U4', 'fortran_order': False, 'shape': (1,), }", bytes(16)),
     r"'<U4' is not a supported"),
    ("datetime dtype", _npy("{'descr': '<M8[s]', 'fortran_order': False, 'shape': (1,), }", bytes(8)),
     r"not a supported"),
    ("structured dtype", _npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
                              bytes(4)), r"structured"),
    ("code in header", _npy("__import__('os').system('false')"), r"not a Python dict literal"),
    ("missing key", _npy("{'descr': '<f4', 'shape': (1,), }", bytes(4)), r"exactly the keys"),
    ("fortran not bool", _npy("{'descr': '<f4', 'fortran_order': 1, 'shape': (1,), }", bytes(4)),
     r"fortran_order is 1"),
    ("bad version", _npy("{}", version=4), r"format version 4\.0 is unknown"),
    ("header past end", b"\x93NUMPY\x01\x00\xff\x00{", r"header ends at byte 265 but the file has 11"),
    ("header too long", b"\x93NUMPY\x02\x00" + struct.pack("<I", 10**6) + b"{",
     r"more than the 10000-byte limit"),
    ("cut short", b"\x93NUMPY\x01", r"cut short"),
    ("truncated data", _npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", bytes(8)),
     r"promises \(4,\) float64 values \(32 bytes"),
]


@pytest.mark.parametrize(("name", "content", "pattern"), CORRUPT, ids=[c[0] for c in CORRUPT])
def test_corrupt_npy_is_refused(tmp_path, name, content, pattern):
    path = tmp_path / "bad.npy"
    path.write_bytes(content)
    with Pipeline([str(path)]) as pipeline:  # the file opens: the header is needed only for defaults
        for params in (DecodeParams(), DecodeParams(offset=0), DecodeParams(dtype="uint8")):
            with pytest.raises(SourceError, match=pattern) as info:
                pipeline.run(params if name != "opaque dtype" else DecodeParams())
            assert info.value.field == "files"
            assert str(info.value).startswith(f"'{path}' is not a usable .npy file: ")
            assert str(info.value).endswith(")")


@pytest.mark.parametrize(("name", "content", "pattern"), CORRUPT, ids=[c[0] for c in CORRUPT])
def test_explicit_offset_and_dtype_open_any_npy_as_raw_bytes(tmp_path, name, content, pattern):
    path = tmp_path / "bad.npy"
    path.write_bytes(content)
    with Pipeline([str(path)]) as pipeline:
        result = pipeline.run(DecodeParams(offset=0, dtype="uint8"))
    assert bytes(result.view) == content
    assert result.trailing_bytes == (0,)


def test_npy_extension_without_magic_is_refused(tmp_path):
    path = tmp_path / "raw.npy"
    path.write_bytes(b"not numpy at all")
    with Pipeline([str(path)]) as pipeline, \
            pytest.raises(SourceError, match=r"does not start with the magic"):
        pipeline.run(DecodeParams())


def test_magic_without_npy_extension_is_still_parsed(tmp_path):
    path = tmp_path / "data.bin"
    with open(path, "wb") as f:
        np.lib.format.write_array(f, np.arange(3, dtype="<i2"))
    with open_source(str(path)) as source:
        assert source.npy is not None and source.npy.shape == (3,)


def test_parse_header_directly():
    content = _npy("{'descr': '>c16', 'fortran_order': True, 'shape': (2, 1), }", bytes(32), 3)
    header = parse_npy_header(content, name="x.npy", file_size=len(content))
    assert header.dtype == "complex128" and not header.little_endian
    assert header.shape == (2, 1) and header.fortran_order and header.version == (3, 0)
    assert header.nbytes == 32 and header.data_offset == len(content) - 32
