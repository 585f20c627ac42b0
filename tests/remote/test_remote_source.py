"""Remote files read through fsspec from real loopback servers (nginx with Range, moto's S3) give
exactly what the same files give locally, and cost only the bytes asked for
(core/files/remote.py, core/files/block_cache.py)."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest

import core.files.remote as remote
from core import DecodeParams, Pipeline, read_values, tensor
from core.errors import SourceError
from core.files.block_cache import REQUEST_BYTES
from core.files.sources import open_source
from core.formats.registry import list_file
from core.scan.statistics import compute_statistics

MiB = 1 << 20


def _stats(path, params):
    with Pipeline(path) as pipe:
        result = pipe.run(params)
        return compute_statistics(result.view, reader=result.block_reader(), check=pipe.source.check_unchanged)


def _safetensors(tensors: dict[str, np.ndarray]) -> bytes:
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array).tobytes()
        header[name] = {"dtype": {"float32": "F32", "int16": "I16"}[array.dtype.name], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def test_a_remote_raw_file_decodes_slices_and_measures_as_the_local_file(nginx, remote_root):
    values = (np.arange(300 * 200, dtype=np.float32).reshape(300, 200) * np.float32(0.5) - 7).astype(">f4")
    url = nginx.write("raw/big_endian.bin", values.tobytes())
    local = str(remote_root / "raw/big_endian.bin")
    params = DecodeParams(dtype="float32", little_endian=False, shape=(300, 200))
    with Pipeline(url) as pipe:
        result = pipe.run(params)
        assert result.view.shape == (300, 200)
        assert pipe.source.remote and not pipe.source.holds_data
        window = result.block_reader().read(result.view[17:20, 5:8])
    np.testing.assert_array_equal(window, values[17:20, 5:8].astype("<f4"))
    assert window[0, 0] == np.float32(17 * 200 + 5) * np.float32(0.5) - 7
    np.testing.assert_array_equal(read_values(url, "1::100, -1", params), values[1::100, -1])
    remote_stats, local_stats = _stats(url, params), _stats(local, params)
    assert remote_stats == local_stats
    assert remote_stats.count == 60_000 and remote_stats.min == -7.0 and remote_stats.max == 29_992.5


def test_listing_a_remote_safetensors_file_reads_its_header_only(nginx, remote_root):
    rng = np.random.default_rng(5)
    tensors = {f"layers.{i}.weight": rng.normal(size=(256, 1024)).astype(np.float32) for i in range(24)}
    url = nginx.write("model/model.safetensors", _safetensors(tensors))  # 24 MiB of values
    listing = list_file(url)
    assert [e.name for e in listing.entries] == list(tensors)  # file order: layers.2 before layers.10
    requests = nginx.requests(at_least=1)
    fetched = sum(r.body_bytes_sent for r in requests if r.method == "GET")
    assert [r.method for r in requests] == ["HEAD", "GET"]  # one info, one block
    assert fetched < 300 << 10  # the header's block, not 24 MiB
    assert all(r.range is not None and "," not in r.range for r in requests if r.method == "GET")


def test_opening_one_tensor_of_a_remote_model_costs_few_requests_and_bytes(nginx, remote_root):
    rng = np.random.default_rng(6)
    tensors = {f"blocks.{i}.w": rng.normal(size=(2048, 1024)).astype(np.float32) for i in range(8)}  # 8 MiB each
    url = nginx.write("model/eight.safetensors", _safetensors(tensors))
    nginx.clear_log()
    remote.set_cache_capacity(256 * MiB)  # nothing of earlier tests in the cache
    remote.cache().clear()
    values = tensor(url, "blocks.5.w", slice="0, :4")
    np.testing.assert_array_equal(values, tensors["blocks.5.w"][0, :4])
    gets = [r for r in nginx.requests(at_least=2) if r.method == "GET"]
    assert len(gets) <= 3
    assert sum(r.body_bytes_sent for r in gets) <= 1.2 * (8 << 20)


def test_reads_hold_to_the_cache_bound_and_scans_read_ahead_in_few_requests(nginx, remote_root):
    values = np.random.default_rng(7).integers(-30_000, 30_000, size=12 * MiB, dtype=np.int16)  # 24 MiB
    url = nginx.write("raw/shorts.bin", values.tobytes())
    remote.set_cache_capacity(16 * MiB)
    remote.cache().clear()
    nginx.clear_log()
    stats = _stats(url, DecodeParams(dtype="int16"))
    assert stats == _stats(str(remote_root / "raw/shorts.bin"), DecodeParams(dtype="int16"))
    assert remote.cache().held() <= 16 * MiB
    gets = [r for r in nginx.requests(at_least=3) if r.method == "GET"]
    fetched = sum(r.body_bytes_sent for r in gets)
    assert 24 * MiB <= fetched <= 3 * 24 * MiB  # two passes (histogram), never a whole-object read
    assert all(r.range is not None for r in gets)
    assert max(r.body_bytes_sent for r in gets) <= REQUEST_BYTES
    assert len(gets) <= 2 * 24 * MiB // (1 * MiB)  # read-ahead: far fewer than one request per 256 KiB block


def test_a_large_span_is_fetched_as_parallel_single_range_requests(nginx):
    data = np.random.default_rng(8).integers(0, 256, size=40 * MiB, dtype=np.uint8).tobytes()
    url = nginx.write("raw/forty.bin", data)
    remote.set_cache_capacity(256 * MiB)
    remote.cache().clear()
    with open_source(url) as source:
        nginx.clear_log()
        got = source.read_exact(0, 3 * MiB + 5, 30 * MiB)
    assert got == data[3 * MiB + 5:33 * MiB + 5]
    ranges = sorted(r.range for r in nginx.requests(at_least=4) if r.method == "GET")
    assert len(ranges) >= 4 and all("," not in r for r in ranges)
    assert len({r.connection for r in nginx.requests() if r.method == "GET"}) >= 2  # in parallel


def test_remote_containers_find_their_sibling_files_by_url(nginx, remote_root):
    first = {"a": np.arange(6, dtype=np.float32)}
    second = {"b": np.arange(4, dtype=np.int16).reshape(2, 2)}
    nginx.write("sharded/model-00001-of-00002.safetensors", _safetensors(first))
    nginx.write("sharded/model-00002-of-00002.safetensors", _safetensors(second))
    index = {"metadata": {}, "weight_map": {"a": "model-00001-of-00002.safetensors",
                                            "b": "model-00002-of-00002.safetensors"}}
    url = nginx.write("sharded/model.safetensors.index.json", json.dumps(index).encode())
    listing = list_file(url)
    assert sorted(e.name for e in listing.entries) == ["a", "b"]
    np.testing.assert_array_equal(tensor(url, "b"), second["b"])
    np.testing.assert_array_equal(tensor(url, "a", slice="::2"), [0.0, 2.0, 4.0])


def test_an_index_naming_a_file_outside_its_folder_is_refused_remotely_too(nginx):
    nginx.write("outside/secret.safetensors", _safetensors({"s": np.ones(2, np.float32)}))
    index = {"metadata": {}, "weight_map": {"s": "../outside/secret.safetensors"}}
    url = nginx.write("inside/model.safetensors.index.json", json.dumps(index).encode())
    listing = list_file(url)
    assert any("not inside the index's folder" in p for p in listing.problems + tuple(
        e.problem or "" for e in listing.entries))


def test_an_s3_object_reads_through_s3fs_with_the_standard_configuration(moto_s3, monkeypatch):
    import fsspec.config

    moto_s3.create_bucket("weights")
    values = np.linspace(-1, 1, 5000, dtype=np.float32)
    moto_s3.put_object("weights", "dumps/layer_3.bin", values.tobytes())
    options = moto_s3.storage_options()
    monkeypatch.setitem(fsspec.config.conf, "s3", {**options, "skip_instance_cache": True})
    url = "s3://weights/dumps/layer_3.bin"
    assert remote.is_url(url)
    np.testing.assert_array_equal(read_values(url, "4990:", DecodeParams(dtype="float32")), values[4990:])
    with open_source(url) as source:
        assert source.files[0].size == 20_000
        assert source.read_exact(0, 8, 4) == values[2:3].tobytes()


@pytest.mark.parametrize(("url", "extra"), [("gs://bucket/model.bin", "gcs"),
                                             ("hf://datasets/owner/name/shard-0.bin", "hf")])
def test_a_protocol_without_its_package_names_the_extra(url, extra):
    import importlib.util

    package = {"gcs": "gcsfs", "hf": "huggingface_hub"}[extra]
    if importlib.util.find_spec(package) is not None:  # the rule holds for any missing package
        pytest.skip(f"{package} is installed here")
    with pytest.raises(SourceError) as caught:
        open_source(url)
    assert caught.value.message == f"opening {url.split(':')[0]}:// URLs needs that protocol's package: " \
                                   f"pip install 'tensor-inspector[{extra}]'"


def test_an_unknown_protocol_is_said_to_be_unknown():
    with pytest.raises(SourceError, match=r"no file system knows the protocol nosuch://"):
        open_source("nosuch://host/file.bin")


def test_credentials_in_a_url_never_reach_a_message(nginx):
    url = nginx.url("private/missing.bin").replace("http://", "http://reader:secret@")
    with pytest.raises(Exception) as caught:
        open_source(url)
    assert "secret" not in str(caught.value) and "***@" in str(caught.value)


def test_a_remote_glob_opens_its_matches_as_one_batch_in_natural_order(nginx):
    for i in (10, 1, 2):
        nginx.write(f"globbed/dump_{i}.bin", np.full(4, i, np.float32).tobytes())
    nginx.write("globbed/other.txt", b"no")
    values = read_values(nginx.url("globbed/dump_*.bin"), ":, 0", DecodeParams(dtype="float32"))
    assert values.tolist() == [1.0, 2.0, 10.0]


def test_an_s3_glob_lists_the_keys_of_its_prefix(moto_s3, monkeypatch):
    import fsspec.config

    moto_s3.create_bucket("frames")
    for i in (3, 20, 100):
        moto_s3.put_object("frames", f"run/frame_{i}.raw", np.full((2, 2), i, np.uint8).tobytes())
    monkeypatch.setitem(fsspec.config.conf, "s3", {**moto_s3.storage_options(), "skip_instance_cache": True})
    values = read_values("s3://frames/run/frame_*.raw", ":, 0, 0", DecodeParams(dtype="uint8", shape=(3, 2, 2)))
    assert values.tolist() == [3, 20, 100]
