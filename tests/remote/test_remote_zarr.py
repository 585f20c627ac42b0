"""Zarr stores behind URLs: nginx (an index page per folder), Python's http.server, and S3
(moto through s3fs). Stores are written by zarr itself, and every array's values are zarr's own
reading of the same store on disk."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")

from core import tensor
from core.cli import main
from core.files.sources import open_source
from core.formats.entry import Storage, find_entry
from core.formats.registry import container_path, list_file
from core.formats.values import open_entry

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core" / "formats"))
from zarr_stores import all_arrays, write_v2, write_v3


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """``{name: folder}``: a consolidated v2 group and a v3 group without consolidated metadata."""
    base = tmp_path_factory.mktemp("zarr-src")
    return {"v2.zarr": write_v2(base / "v2.zarr"), "v3.zarr": write_v3(base / "v3.zarr")}


def _serve(root: Path, stores: dict, prefix: str) -> None:
    for name, folder in stores.items():
        target = root / prefix / name
        if not target.exists():
            shutil.copytree(folder, target)


def _values(path: str, name: str):
    """The array's values through the public API (reads through the source: a remote view's map
    holds no bytes) and how the entry opened."""
    listing = list_file(path)
    with open_source(path) as source:
        opened = open_entry(source, listing, find_entry(listing, name))
        kind, remote = opened.kind, opened.source.remote
        if opened.owned:
            opened.source.close()
    return tensor(path, name), (kind, remote)


@pytest.mark.parametrize("name", ["v2.zarr", "v3.zarr"])
def test_every_array_of_a_store_served_by_nginx_is_zarrs(name, stores, nginx, remote_root):
    _serve(remote_root, stores, "zarr-nginx")
    url = nginx.url(f"zarr-nginx/{name}")
    path = container_path(url)
    assert path == url + ("/.zmetadata" if name == "v2.zarr" else "/zarr.json")
    listing = list_file(path)
    expected = all_arrays(stores[name])
    assert listing.format == "zarr" and listing.problems == ()
    assert listing.metadata["consolidated"] == ("yes" if name == "v2.zarr" else "no")  # v3: walked by index pages
    assert sorted(e.name for e in listing.entries) == sorted(expected)
    for entry in listing.entries:
        values, opened = _values(path, entry.name)
        want = expected[entry.name]
        assert values.shape == want.shape, entry.name
        np.testing.assert_array_equal(values, want, err_msg=entry.name)
        if entry.storage is Storage.VIEW:  # one uncompressed chunk: a view of its chunk object
            assert opened == (Storage.VIEW, True), entry.name


def test_listing_a_consolidated_store_costs_a_few_requests(stores, nginx, remote_root):
    _serve(remote_root, stores, "zarr-count")
    url = nginx.url("zarr-count/v2.zarr/")
    nginx.clear_log()
    listing = list_file(container_path(url))
    asked = [(r.method, r.path.split("/v2.zarr/", 1)[1], r.status) for r in nginx.requests(at_least=4)]
    assert len(listing.entries) == len(all_arrays(stores["v2.zarr"]))
    # zarr.json is not there (fsspec asks HEAD, then GET), .zmetadata is (its info, then its
    # bytes); then one HEAD per array stored as one plain chunk (its size, for a view); no chunk
    # is read.
    assert [a for a in asked if a[0] == "GET"] == [("GET", "zarr.json", 404), ("GET", ".zmetadata", 206),
                                                   ("GET", "never/0", 404)]
    heads = sorted(a[1] for a in asked if a[0] == "HEAD")
    assert heads == sorted(["zarr.json", ".zmetadata", "complex/0", "flags/0", "never/0", "plain/big/0.0.0",
                            "plain/edge/0.0", "plain/prefix/0.0", "scalar/0"])


def test_a_chunk_never_written_is_the_fill_value_over_http(stores, nginx, remote_root):
    _serve(remote_root, stores, "zarr-fill")
    path = container_path(nginx.url("zarr-fill/v2.zarr"))
    np.testing.assert_array_equal(_values(path, "sparse")[0], [1, 2, 3, -1.5, -1.5, -1.5])
    np.testing.assert_array_equal(_values(path, "never")[0], [9, 9, 9, 9])
    assert find_entry(list_file(path), "never").extras["chunk"] == "0 not written: the fill value"


def test_a_server_without_an_index_lists_a_consolidated_store_and_says_why_not_a_walked_one(
        stores, plain_http_server, remote_root, tmp_path):
    _serve(remote_root, stores, "zarr-plain")
    v2 = container_path(plain_http_server.url("zarr-plain/v2.zarr/"))
    assert sorted(e.name for e in list_file(v2).entries) == sorted(all_arrays(stores["v2.zarr"]))
    np.testing.assert_array_equal(_values(v2, "blosc")[0], all_arrays(stores["v2.zarr"])["blosc"])
    # http.server shows an index page too; a bucket website or a CDN often shows none. A v3
    # store written without consolidated metadata, served where its group folder lists nothing:
    bare = remote_root / "zarr-plain" / "bare.zarr"
    bare.mkdir(parents=True, exist_ok=True)
    (bare / "zarr.json").write_text(json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {}}))
    (bare / "index.html").write_text("<html><body>nothing to see</body></html>")
    listing = list_file(container_path(plain_http_server.url("zarr-plain/bare.zarr/")))
    assert listing.entries == ()
    assert any("has no consolidated metadata and its server lists no arrays" in p for p in listing.problems)


def test_a_store_in_an_s3_bucket_lists_by_its_prefixes_and_reads_through_s3fs(stores, moto_s3, monkeypatch):
    import fsspec.config

    moto_s3.create_bucket("stores")
    store = stores["v3.zarr"]  # not consolidated: the listing walks the bucket's prefixes
    for file in sorted(p for p in store.rglob("*") if p.is_file()):
        moto_s3.put_object("stores", f"v3.zarr/{file.relative_to(store).as_posix()}", file.read_bytes())
    monkeypatch.setitem(fsspec.config.conf, "s3", {**moto_s3.storage_options(), "skip_instance_cache": True,
                                                   "use_listings_cache": False})
    path = container_path("s3://stores/v3.zarr")
    assert path == "s3://stores/v3.zarr/zarr.json"
    listing = list_file(path)
    expected = all_arrays(store)
    assert sorted(e.name for e in listing.entries) == sorted(expected)
    for name in ("a/b/deep", "be"):  # gzip chunks read by zarr; one plain chunk: a view
        np.testing.assert_array_equal(_values(path, name)[0], expected[name], err_msg=name)


def test_the_command_prints_an_array_of_a_remote_store(stores, nginx, remote_root, capsys):
    _serve(remote_root, stores, "zarr-cli")
    assert main([nginx.url("zarr-cli/v3.zarr/"), "--tensor", "a/b/deep", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    np.testing.assert_array_equal(np.asarray(shown["values"], np.float32),
                                  np.arange(16, dtype="f4").reshape(4, 4))


def test_a_url_that_names_no_store_opens_as_itself(nginx):
    url = nginx.write("zarr-none/plain.bin", b"\x01\x02")
    assert container_path(url) == url  # no request: not a store's name
    assert container_path(nginx.url("zarr-none/nothing.zarr/")) == nginx.url("zarr-none/nothing.zarr/")
