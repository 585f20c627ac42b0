"""Every way a server or the network fails gives a message that names the URL and what to do,
never a hang, a crash or a wrong value (core/files/remote_fetch.py)."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from servers import free_port

import core.files.remote as remote
import core.files.remote_fetch as remote_fetch
from core.errors import SourceError
from core.files.sources import open_source

MiB = 1 << 20
DATA = np.arange(256 * 1024, dtype=np.uint32).tobytes()  # 1 MiB: several cache blocks


@pytest.fixture(autouse=True)
def fresh_cache():
    remote.set_cache_capacity(64 * MiB)  # nothing fetched by another test answers here
    remote.cache().clear()


def _read_all(url: str) -> bytes:
    with open_source(url) as source:
        return source.read_exact(0, 0, source.files[0].size)


def _refusal(url: str, read: bool = True) -> str:
    with pytest.raises(SourceError) as caught:
        if read:
            _read_all(url)
        else:
            open_source(url)
    message = caught.value.message
    assert url.split("://", 1)[1].split("/", 1)[0] in message  # names the server (host:port)
    return message


def test_the_fault_server_serves_correct_bytes_by_default(fault_server):
    fault_server.write("ok.bin", DATA)
    assert _read_all(fault_server.url("ok.bin")) == DATA


def test_a_server_without_range_support_is_refused_before_its_body_is_read(plain_http_server):
    url = plain_http_server.write("norange.bin", DATA)
    message = _refusal(url)
    assert "does not support range requests" in message and "download" in message


def test_an_html_page_with_status_200_is_said_to_be_a_web_page(fault_server):
    fault_server.write("page.bin", DATA)
    message = _refusal(fault_server.fault_url("html200", "page.bin"))
    assert "web page" in message and "check the URL" in message


@pytest.mark.parametrize(("status", "words"), [(404, "was not found"), (403, "access denied"),
                                               (401, "access denied"), (503, "try again")])
def test_error_statuses_say_what_to_do(fault_server, status, words):
    fault_server.write("s.bin", DATA)
    message = _refusal(fault_server.fault_url(f"status={status}", "s.bin"), read=False)
    assert words in message


def test_a_missing_object_on_nginx_is_not_found_and_a_forbidden_one_denied(nginx):
    assert "was not found" in _refusal(nginx.url("no/such/file.bin"), read=False)
    nginx.write("denied.bin", DATA)
    assert "access denied" in _refusal(nginx.forbidden_url("denied.bin"), read=False)
    message = _refusal(nginx.private_url("denied.bin"), read=False)
    assert "access denied" in message and "never in the URL" in message


@pytest.mark.parametrize(("mode", "words"), [
    ("short", "the connection"),
    ("drop", "the connection"),
    ("long", "more or fewer bytes than asked"),
    ("bad-range", "disagrees with the request"),
])
def test_answers_that_are_not_the_range_asked_are_refused(fault_server, mode, words):
    fault_server.write("f.bin", DATA)
    assert words in _refusal(fault_server.fault_url(mode, "f.bin"))


def test_an_endless_answer_without_a_size_is_refused_at_once(fault_server):
    fault_server.write("e.bin", DATA)
    started = time.monotonic()
    message = _refusal(fault_server.fault_url("endless", "e.bin"), read=False)
    assert "gives no size" in message and "download it" in message
    assert time.monotonic() - started < 10  # not the 64 MiB / 30 s the server would send


def test_a_server_that_does_not_answer_times_out_with_a_message(fault_server, monkeypatch):
    monkeypatch.setattr(remote_fetch, "TIMEOUT_SECONDS", 1)
    fault_server.write("slow.bin", DATA)
    started = time.monotonic()
    message = _refusal(fault_server.fault_url("stall=20", "slow.bin"))
    assert time.monotonic() - started < 15
    assert "no answer within 1 s" in message or "connection" in message


def test_a_refused_connection_names_the_server_and_the_fix():
    url = f"http://127.0.0.1:{free_port()}/nothing-listens.bin"
    message = _refusal(url, read=False)
    assert "cannot connect" in message and "that the server is up" in message


def test_an_object_that_changes_while_open_is_reported_and_never_mixed(fault_server):
    fault_server.write("c.bin", DATA)
    fault_server.write("same.bin", DATA)
    url = fault_server.fault_url("change", "c.bin")
    # a batch opens without reading a byte: the first request for c.bin (HEAD) saw version 1
    with open_source([url, fault_server.url("same.bin")]) as source:
        with pytest.raises(SourceError) as caught:
            source.read_exact(0, 0, 4096)
        assert "changed since it was opened" in caught.value.message and "reload" in caught.value.message
        assert [(c.path, c.kind) for c in source.changes()] == [(url, "modified")]
        with pytest.raises(SourceError, match="changed since it was opened"):
            source.check_unchanged()


def test_a_replaced_object_is_found_by_the_re_check(nginx, remote_root):
    url = nginx.write("replaced.bin", DATA)
    with open_source(url) as source:
        assert source.read_exact(0, 0, 8) == DATA[:8]
        assert source.check_now() == ()
        path = remote_root / "replaced.bin"
        path.write_bytes(DATA[: len(DATA) // 2])
        os.utime(path, (time.time() + 5, time.time() + 5))
        changes = source.check_now()
        assert [(c.kind, c.old_size, c.new_size) for c in changes] == [("shrank", len(DATA), len(DATA) // 2)]
        with pytest.raises(SourceError, match="changed since it was opened"):
            source.check_unchanged()


def test_a_server_killed_mid_read_gives_a_message_not_a_hang(tmp_path):
    import threading

    from servers import FaultHTTPServer

    (tmp_path / "k.bin").write_bytes(DATA * 16)
    outcome: list[BaseException | bytes] = []
    with FaultHTTPServer(tmp_path) as server:
        source = open_source(server.fault_url("stall=20", "k.bin"))
        reader = threading.Thread(target=lambda: outcome.append(_attempt(source)))
        reader.start()
        time.sleep(1.0)  # the range's headers and half its body are in; the rest stalls
        server.kill()
        reader.join(35)
        assert not reader.is_alive()
        source.close()
    [error] = outcome
    assert isinstance(error, SourceError), error
    assert "127.0.0.1" in error.message and ("connection" in error.message or "no answer" in error.message)


def _attempt(source):
    try:
        return source.read_exact(0, 0, 2 * MiB)
    except BaseException as error:  # handed to the test thread
        return error


def test_a_redirect_to_another_host_is_followed_and_said(nginx):
    nginx.write("moved.bin", DATA)
    with open_source(nginx.redirect_url("moved.bin")) as source:
        assert source.read_exact(0, 0, 16) == DATA[:16]
        [(asked, answered)] = source.redirected()
        assert asked.endswith("/redirect/moved.bin") and answered.startswith("http://localhost:")


def test_a_redirect_is_said_in_the_source_step(nginx):
    from core import DecodeParams, Pipeline

    nginx.write("moved2.bin", DATA)
    with Pipeline(nginx.redirect_url("moved2.bin")) as pipe:
        step = pipe.run(DecodeParams(dtype="uint32")).steps[0]
    assert "answered by 'http://localhost:" in step and "(a redirect)" in step
