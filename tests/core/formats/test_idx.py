"""IDX (MNIST) files written by hand from the spec and by idx2numpy: values exact, as views."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from core.formats.registry import list_file

TYPES = [(0x08, ">u1"), (0x09, ">i1"), (0x0B, ">i2"), (0x0C, ">i4"), (0x0D, ">f4"), (0x0E, ">f8")]


def _idx(path, code: int, array: np.ndarray) -> None:
    """The spec's layout: 0, 0, type, ndim, big-endian uint32 sizes, big-endian data."""
    path.write_bytes(bytes([0, 0, code, array.ndim])
                     + struct.pack(f">{array.ndim}I", *array.shape) + array.tobytes())


@pytest.mark.parametrize(("code", "dtype"), TYPES, ids=[t[1] for t in TYPES])
def test_handwritten_idx_every_type(tmp_path, shown, code, dtype):
    path = tmp_path / "data.idx"
    array = (np.arange(24).reshape(2, 3, 4) - 5).astype(dtype)
    _idx(path, code, array)
    listing = list_file(str(path))
    [entry] = listing.entries
    assert listing.format == "idx"
    assert (entry.shape, entry.offset, entry.nbytes) == ((2, 3, 4), 16, array.nbytes)
    assert entry.little_endian == (array.itemsize == 1)
    values, result = shown(path, "data")
    np.testing.assert_array_equal(values, array)
    assert result.zero_copy


def test_mnist_like_images_written_by_idx2numpy(tmp_path, shown):
    idx2numpy = pytest.importorskip("idx2numpy")
    path = tmp_path / "train-images-idx3-ubyte"
    images = np.random.default_rng(0).integers(0, 256, (5, 28, 28), dtype=np.uint8)
    idx2numpy.convert_to_file(str(path), images)
    values, _ = shown(path, "data")
    np.testing.assert_array_equal(values, images)
    np.testing.assert_array_equal(values, idx2numpy.convert_from_file(str(path)))


def test_truncated_idx_says_so(tmp_path):
    path = tmp_path / "cut.idx"
    _idx(path, 0x0C, np.arange(10, dtype=">i4"))
    path.write_bytes(path.read_bytes()[:-6])
    [entry] = list_file(str(path)).entries
    assert entry.problem == ("IDX data: the dimensions (10,) of int32 need 40 bytes from byte 8 "
                             "but the file has 34 (the file is truncated; open it as raw bytes "
                             "with --offset 8 --dtype int32 --big-endian)")


@pytest.mark.parametrize("head", [
    bytes([0, 0, 0x07, 1, 0, 0, 0, 2]),  # unknown type byte
    bytes([0, 0, 0x08, 0, 0, 0, 0, 2]),  # no dimensions
    bytes([0, 0, 0x08, 17]) + bytes([0, 0, 0, 1]) * 17,  # more than 16 dimensions
    struct.pack("<Q", 0x010D_0000) + struct.pack("<I", 0),  # a TFRecord length: dimension 0
])
def test_other_files_are_not_idx(tmp_path, head):
    path = tmp_path / "raw.bin"
    path.write_bytes(head + bytes(64))
    assert list_file(str(path)) is None
