"""Fixtures of the real loopback servers in servers.py (one set per pytest-xdist worker).

- ``remote_root`` (session): the directory ``nginx_server`` and ``plain_http_server`` serve;
  tests write files of their own names there (``server.write(name, data)``).
- ``nginx_server`` (session) and ``nginx`` (the same server with its access log cleared);
  ``nginx_installed`` for a test that starts an ``NginxServer`` of its own.
- ``plain_http_server`` (session): no Range support.
- ``fault_server`` (function): serves ``fault_root``, the test's own directory, with a fresh
  request log and fresh ``change`` counters.
- ``moto_server`` (session) and ``moto_s3`` (the same server, reset: no buckets, empty log);
  ``s3_fs``: an ``s3fs.S3FileSystem`` of ``moto_s3``; ``http_fs``: fsspec's HTTP file system.

A missing requirement (nginx; moto, s3fs, boto3, fsspec, aiohttp) skips the tests that need it,
except on CI (the ``CI`` variable set), where it fails them with the install command.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from servers import FaultHTTPServer, MotoS3Server, NginxServer, PlainHTTPServer, nginx_binary

S3_PACKAGES = {"moto": "moto[server]", "s3fs": "s3fs", "boto3": "boto3"}
HTTP_FS_PACKAGES = {"fsspec": "fsspec", "aiohttp": "aiohttp"}


def missing(message: str) -> None:
    """Skip the test, or fail it when running on CI (where every requirement must be there)."""
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def require_modules(packages: dict[str, str]) -> None:
    """``packages``: module name -> pip requirement; missing ones skip (fail on CI)."""
    absent = [pip for module, pip in packages.items() if importlib.util.find_spec(module) is None]
    if absent:
        missing(f"needs {', '.join(absent)}: .venv/bin/pip install {' '.join(repr(p) for p in absent)}")


def require_nginx() -> None:
    if nginx_binary() is None:
        missing("needs nginx: apt-get install -y nginx")


@pytest.fixture
def nginx_installed() -> None:
    """For a test that starts an nginx of its own: skip (fail on CI) without nginx."""
    require_nginx()


@pytest.fixture(scope="session")
def remote_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("served")


@pytest.fixture(scope="session")
def nginx_server(remote_root):
    require_nginx()
    with NginxServer(remote_root) as server:
        yield server


@pytest.fixture
def nginx(nginx_server) -> NginxServer:
    """The session's nginx, its access log emptied for this test."""
    nginx_server.clear_log()
    return nginx_server


@pytest.fixture(scope="session")
def plain_http_server(remote_root):
    with PlainHTTPServer(remote_root) as server:
        yield server


@pytest.fixture
def fault_root(tmp_path) -> Path:
    root = tmp_path / "fault-served"
    root.mkdir()
    return root


@pytest.fixture
def fault_server(fault_root):
    with FaultHTTPServer(fault_root) as server:
        yield server


@pytest.fixture(scope="session")
def moto_server():
    require_modules(S3_PACKAGES)
    with MotoS3Server() as server:
        yield server


@pytest.fixture
def moto_s3(moto_server) -> MotoS3Server:
    """The session's moto server with no bucket and an empty request log."""
    moto_server.reset()
    return moto_server


@pytest.fixture
def s3_fs(moto_s3):
    """A fresh ``s3fs.S3FileSystem`` (no instance cache, no listings cache) of ``moto_s3``."""
    import s3fs

    return s3fs.S3FileSystem(**moto_s3.storage_options(), skip_instance_cache=True, use_listings_cache=False)


@pytest.fixture
def http_fs():
    """A fresh fsspec HTTP file system (aiohttp; no instance cache)."""
    require_modules(HTTP_FS_PACKAGES)
    import fsspec

    return fsspec.filesystem("http", skip_instance_cache=True)


@pytest.fixture(autouse=True)
def placeholder_maps_fault(monkeypatch):
    """Remote sources map ``PROT_NONE`` here: any code that touched a remote view's pages instead
    of reading through the source would crash the test (core/files/remote.py)."""
    import core.files.remote

    monkeypatch.setattr(core.files.remote, "PLACEHOLDER_PROT", 0)
