"""Zarr v2 and v3 stores written by zarr itself, for the local and the remote Zarr tests."""

from __future__ import annotations

import numpy as np
import zarr
from zarr.codecs import BytesCodec, TransposeCodec

F32 = np.arange(35, dtype="<f4").reshape(5, 7) / 4
I16 = np.arange(-12, 12, dtype=">i2").reshape(2, 3, 4)


def write_v2(folder):
    """A v2 group: nested arrays, uncompressed and compressed, F order, filters, a missing
    chunk, an edge chunk; consolidated."""
    root = zarr.open_group(str(folder), mode="w", zarr_format=2)
    one = root.create_array("plain/big", shape=I16.shape, chunks=(2, 3, 4), dtype=">i2", compressors=None)
    one[...] = I16
    root.create_array("plain/edge", shape=(3, 5), chunks=(4, 8), dtype="<f8", compressors=None)[...] = \
        np.arange(15.0).reshape(3, 5)
    root.create_array("plain/prefix", shape=(3, 4), chunks=(8, 4), dtype="<u2", compressors=None)[...] = \
        np.arange(12).reshape(3, 4)
    root.create_array("blosc", shape=F32.shape, chunks=(2, 3), dtype="<f4")[...] = F32
    root.create_array("chunked", shape=(100,), chunks=(30,), dtype="<i4", compressors=None)[...] = np.arange(100)
    from numcodecs import GZip, Zlib
    root.create_array("gz", shape=(50,), chunks=(50,), dtype="<i8", compressors=GZip(level=1))[...] = np.arange(50) ** 2
    root.create_array("zl", shape=(10, 10), chunks=(5, 5), dtype="|u1", compressors=Zlib(level=1))[...] = \
        np.arange(100, dtype="u1").reshape(10, 10)
    root.create_array("fortran", shape=(4, 6), chunks=(4, 6), dtype="<f4", compressors=None, order="F")[...] = \
        np.arange(24, dtype="<f4").reshape(4, 6)
    from numcodecs import Delta
    root.create_array("delta", shape=(20,), chunks=(20,), dtype="<i4", filters=[Delta(dtype="<i4")],
                      compressors=None)[...] = np.arange(20) * 3
    sparse = root.create_array("sparse", shape=(6,), chunks=(3,), dtype="<f4", compressors=None, fill_value=-1.5)
    sparse[:3] = [1, 2, 3]
    root.create_array("never", shape=(4,), chunks=(4,), dtype="<i2", compressors=None, fill_value=9)
    root.create_array("flags", shape=(5,), chunks=(5,), dtype="|b1", compressors=None)[...] = [True, False, True, True, False]
    root.create_array("complex", shape=(3,), chunks=(3,), dtype="<c8", compressors=None)[...] = [1 + 2j, -1j, 3]
    root.create_array("scalar", shape=(), dtype="<i4", compressors=None)[()] = 42
    root.create_array("empty", shape=(0, 3), chunks=(1, 3), dtype="<f4", compressors=None)
    zarr.consolidate_metadata(str(folder))
    return folder


def write_v3(folder):
    root = zarr.open_group(str(folder), mode="w", zarr_format=3)
    root.create_array("a/y", shape=(3, 5), chunks=(4, 8), dtype="float64", compressors=None)[...] = \
        np.arange(15.0).reshape(3, 5)
    root.create_array("be", shape=(6,), chunks=(6,), dtype="int16", compressors=None,
                      serializer=BytesCodec(endian="big"))[...] = np.arange(6) - 3
    root.create_array("zstd", shape=(100,), chunks=(10,), dtype="uint8")[:50] = 7
    root.create_array("a/b/deep", shape=(4, 4), chunks=(2, 2), dtype="float32", compressors=zarr.codecs.GzipCodec())[...] = \
        np.arange(16, dtype="f4").reshape(4, 4)
    root.create_array("v2keys", shape=(2, 2), chunks=(1, 2), dtype="uint8", compressors=None,
                      chunk_key_encoding={"name": "v2", "separator": "."})[...] = [[1, 2], [3, 4]]
    root.create_array("t", shape=(3, 4), chunks=(3, 4), dtype="int32", compressors=None,
                      filters=[TransposeCodec(order=(1, 0))])[...] = np.arange(12).reshape(3, 4)
    root.create_array("s", shape=(), dtype="int32", compressors=None)[()] = 5
    return folder


def all_arrays(store) -> dict[str, np.ndarray]:
    """Every array of the store at ``store`` (a folder, or any URL zarr opens) as zarr reads it."""
    group = zarr.open_group(str(store), mode="r")
    found = {}

    def walk(node, prefix):
        for name, child in node.members():
            path = f"{prefix}{name}"
            if isinstance(child, zarr.Array):
                found[path] = np.asarray(child[...])
            else:
                walk(child, path + "/")
    walk(group, "")
    return found
