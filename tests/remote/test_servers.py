"""The loopback test servers behave as servers.py and fault_server.py say, byte for byte.

Requests go through http.client (one request per connection unless a test says otherwise), so
what is checked is what the server sent, not what a client library made of it.
"""

from __future__ import annotations

import email.utils
import http.client
import os
import socket
import time
import urllib.parse
import urllib.request

import pytest
from servers import (
    FaultHTTPServer,
    LoggedRequest,
    NginxServer,
    ServerStartError,
    free_port,
)

DATA = bytes(range(256)) * 4  # 1024 bytes: DATA[i] == i % 256
FIXED_MTIME = 1_700_000_000  # Tue, 14 Nov 2023 22:13:20 GMT


@pytest.fixture
def name(request) -> str:
    """A file name of this test's own (the session servers share one root)."""
    return "".join(c if c.isalnum() else "_" for c in request.node.name) + ".bin"


def open_response(url: str, headers: dict | None = None, method: str = "GET", timeout: float = 10.0):
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    connection.request(method, parts.path, headers=headers or {})
    return connection, connection.getresponse()


def fetch(url: str, headers: dict | None = None, method: str = "GET", timeout: float = 10.0):
    """(status, headers, body) of one request on a connection of its own."""
    connection, response = open_response(url, headers, method, timeout)
    try:
        return response.status, response.headers, response.read()
    finally:
        connection.close()


def assert_refused(port: int) -> None:
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


# -- helpers of servers.py -------------------------------------------------------------------


def test_free_port_is_bindable_on_loopback():
    port = free_port()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", port))
    assert 1024 <= port <= 65535


def test_a_server_that_exits_at_once_is_reported_with_its_code_and_stderr(tmp_path):
    """(A fake nginx binary: the rule is the base class's, for every server.)"""
    fake = tmp_path / "fake-nginx"
    fake.write_text("#!/bin/sh\necho 'boom: cannot start' >&2\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(ServerStartError) as raised:
        NginxServer(tmp_path, binary=str(fake)).start()
    message = str(raised.value)
    assert "nginx exited with code 3 before accepting connections on 127.0.0.1:" in message
    assert "stderr: boom: cannot start" in message
    assert f"command: {fake} -p " in message


def test_a_server_that_never_listens_is_ended_after_the_bounded_wait(tmp_path):
    pid_file = tmp_path / "pid"
    fake = tmp_path / "silent-nginx"
    fake.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 30\n")
    fake.chmod(0o755)
    started = time.monotonic()
    with pytest.raises(ServerStartError, match=r"did not accept connections on 127\.0\.0\.1:\d+ within 0\.5 s"):
        NginxServer(tmp_path, binary=str(fake), ready_timeout=0.5).start()
    assert time.monotonic() - started < 5
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


class NginxWithABadConfig(NginxServer):
    """An nginx whose configuration has a directive nginx does not know."""

    def _prepare(self, port: int) -> None:
        super()._prepare(port)
        config = self.workdir / "nginx.conf"
        config.write_text(config.read_text() + "no_such_directive on;\n")


def test_nginx_start_error_includes_its_error_log(nginx_installed, tmp_path):
    server = NginxWithABadConfig(tmp_path)
    with pytest.raises(ServerStartError) as raised:
        server.start()
    message = str(raised.value)
    assert "nginx exited with code 1 before accepting connections" in message
    assert "error log: " in message
    assert "[emerg]" in message and 'unknown directive "no_such_directive"' in message
    assert server.workdir is None  # removed


class FaultServerFirstOnATakenPort(FaultHTTPServer):
    """A fault server whose first start is on a port already taken."""

    def __init__(self, root, taken: int):
        super().__init__(root)
        self.taken = taken
        self.ports_tried = []

    def _command(self, port: int) -> list[str]:
        port = self.taken if not self.ports_tried else port
        self.ports_tried.append(port)
        return super()._command(port)


def test_a_port_taken_meanwhile_is_retried_on_another(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        taken_port = taken.getsockname()[1]
        with FaultServerFirstOnATakenPort(tmp_path, taken_port) as server:
            assert server.ports_tried[0] == taken_port
            assert server.port == server.ports_tried[-1] != taken_port
            assert fetch(server.url("missing.bin"))[0] == 404


# -- nginx -------------------------------------------------------------------------------------


def test_nginx_answers_a_range_with_206_exactly_those_bytes_and_logs_it(nginx, name):
    url = nginx.write(name, DATA)
    status, headers, body = fetch(url, {"Range": "bytes=10-19"})
    assert status == 206
    assert body == DATA[10:20] == bytes(range(10, 20))
    assert headers["Content-Range"] == "bytes 10-19/1024"
    assert headers["Content-Length"] == "10"
    [entry] = nginx.requests(at_least=1)
    assert entry == LoggedRequest(
        method="GET",
        path=f"/{name}",
        status=206,
        range="bytes=10-19",
        body_bytes_sent=10,
        content_range="bytes 10-19/1024",
        port=nginx.port,
        connection=entry.connection,
        connection_requests=1,
        completion="OK",
    )
    nginx.clear_log()
    assert nginx.requests() == []


def test_nginx_head_gives_size_etag_and_last_modified_of_the_file(nginx, name):
    url = nginx.write(name, DATA)
    os.utime(nginx.root / name, (FIXED_MTIME, FIXED_MTIME))
    status, headers, body = fetch(url, method="HEAD")
    assert (status, body) == (200, b"")
    assert headers["Content-Length"] == "1024"
    assert headers["ETag"] == '"6553f100-400"'  # nginx: mtime seconds and size, in hex
    assert headers["Last-Modified"] == "Tue, 14 Nov 2023 22:13:20 GMT"
    assert headers["Accept-Ranges"] == "bytes"
    assert headers["Content-Type"] == "application/octet-stream"

    (nginx.root / name).write_bytes(DATA[:100])
    os.utime(nginx.root / name, (FIXED_MTIME + 1, FIXED_MTIME + 1))
    _, headers, _ = fetch(url, method="HEAD")
    assert (headers["Content-Length"], headers["ETag"]) == ("100", '"6553f101-64"')


def test_nginx_suffix_and_open_ranges_and_416(nginx, name):
    url = nginx.write(name, DATA)
    assert fetch(url, {"Range": "bytes=-5"})[2] == DATA[-5:]
    assert fetch(url, {"Range": "bytes=1000-"})[2] == DATA[1000:]
    status, headers, _ = fetch(url, {"Range": "bytes=2000-2010"})
    assert status == 416
    assert headers["Content-Range"] == "bytes */1024"


def test_nginx_private_location_needs_basic_auth(nginx, name):
    nginx.write(name, DATA)
    status, headers, _ = fetch(nginx.private_url(name))
    assert status == 401
    assert headers["WWW-Authenticate"] == 'Basic realm="tensor-inspector tests"'
    status, _, body = fetch(nginx.private_url(name), {**nginx.auth_header(), "Range": "bytes=0-3"})
    assert (status, body) == (206, DATA[:4])
    assert fetch(nginx.private_url(name), {"Authorization": "Basic d3Jvbmc6d3Jvbmc="})[0] == 401


def test_nginx_forbidden_and_missing(nginx, name):
    nginx.write(name, DATA)
    assert fetch(nginx.forbidden_url(name))[0] == 403
    assert fetch(nginx.url("no-such-file.bin"))[0] == 404
    assert [(e.path, e.status) for e in nginx.requests(at_least=2)] == [
        (f"/forbidden/{name}", 403),
        ("/no-such-file.bin", 404),
    ]


def test_nginx_redirects_to_its_other_host_and_port(nginx, name):
    nginx.write(name, DATA)
    status, headers, _ = fetch(nginx.redirect_url(name))
    assert status == 302
    assert headers["Location"] == nginx.other_url(name) == f"http://localhost:{nginx.other_port}/{name}"
    assert nginx.other_port != nginx.port
    request = urllib.request.Request(nginx.redirect_url(name), headers={"Range": "bytes=4-7"})
    with urllib.request.urlopen(request, timeout=10) as answer:  # follows the redirect
        assert (answer.status, answer.url, answer.read()) == (206, nginx.other_url(name), DATA[4:8])
    assert [(e.port, e.status) for e in nginx.requests(at_least=3)] == [
        (nginx.port, 302),
        (nginx.port, 302),
        (nginx.other_port, 206),
    ]


def test_nginx_redirect_to_another_server(nginx_installed, fault_server, tmp_path):
    fault_server.write("f.bin", DATA)
    with NginxServer(tmp_path, redirect_to=fault_server.base_url) as server:
        status, headers, _ = fetch(server.redirect_url("f.bin"))
    assert (status, headers["Location"]) == (302, fault_server.url("f.bin"))


def test_nginx_killed_mid_transfer_leaves_the_client_with_an_incomplete_body(nginx_installed, tmp_path):
    size = 32 * 1024 * 1024  # far more than the loopback socket buffers hold
    (tmp_path / "big.bin").write_bytes(b"\x5a" * size)
    with NginxServer(tmp_path) as server:
        connection, response = open_response(server.url("big.bin"))
        assert response.status == 200
        assert response.read(65536) == b"\x5a" * 65536
        server.kill()
        assert server.returncode == -9
        with pytest.raises(http.client.IncompleteRead) as raised:
            response.read()
        connection.close()
        assert len(raised.value.partial) < size - 65536
        assert_refused(server.port)


def test_stop_ends_the_server_promptly_even_with_an_idle_client(nginx_installed, tmp_path):
    server = NginxServer(tmp_path).start()
    port, workdir = server.port, server.workdir
    idle = socket.create_connection(("127.0.0.1", port), timeout=5)
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 3
    idle.close()
    assert server.returncode is not None and not server.running
    assert not workdir.exists()
    assert_refused(port)


# -- Python's http.server: no Range --------------------------------------------------------------


def test_plain_server_ignores_range_and_sends_the_whole_body(plain_http_server, name):
    url = plain_http_server.write(name, DATA)
    status, headers, body = fetch(url, {"Range": "bytes=10-19"})
    assert status == 200
    assert body == DATA
    assert headers["Content-Length"] == "1024"
    assert "Content-Range" not in headers
    assert "Accept-Ranges" not in headers
    assert "ETag" not in headers
    assert fetch(plain_http_server.url("no-such-file.bin"))[0] == 404


# -- fault server: correct by default ----------------------------------------------------------


def test_fault_server_answers_a_range_correctly_by_default(fault_server):
    url = fault_server.write("a.bin", DATA)
    stat = os.stat(fault_server.root / "a.bin")
    status, headers, body = fetch(url, {"Range": "bytes=10-19"})
    assert (status, body) == (206, DATA[10:20])
    assert headers["Content-Range"] == "bytes 10-19/1024"
    assert headers["Content-Length"] == "10"
    assert headers["Accept-Ranges"] == "bytes"
    assert headers["ETag"] == f'"{stat.st_mtime_ns:x}-400"'
    assert headers["Last-Modified"] == email.utils.formatdate(stat.st_mtime, usegmt=True)
    status, headers, body = fetch(url, method="HEAD")
    assert (status, body, headers["Content-Length"]) == (200, b"", "1024")
    [get, head] = fault_server.requests(at_least=2)
    assert (get.method, get.status, get.range, get.body_bytes_sent, get.completion) == (
        "GET",
        206,
        "bytes=10-19",
        10,
        "OK",
    )
    assert (head.method, head.status, head.body_bytes_sent) == ("HEAD", 200, 0)


def test_fault_server_range_forms(fault_server):
    url = fault_server.write("a.bin", DATA)
    assert fetch(url, {"Range": "bytes=-5"})[2] == DATA[-5:]
    assert fetch(url, {"Range": "bytes=1000-"})[2] == DATA[1000:]
    assert fetch(url, {"Range": "bytes=1000-5000"})[1]["Content-Range"] == "bytes 1000-1023/1024"
    status, headers, _ = fetch(url, {"Range": "bytes=1024-1030"})
    assert (status, headers["Content-Range"]) == (416, "bytes */1024")
    # several ranges, another unit or a malformed header: ignored, whole body
    for ignored in ("bytes=0-1,5-6", "items=0-1", "bytes=5-2", "bytes=x-"):
        assert fetch(url, {"Range": ignored})[:3:2] == (200, DATA), ignored


def test_fault_server_if_range_and_if_match(fault_server):
    url = fault_server.write("a.bin", DATA)
    etag = fetch(url, method="HEAD")[1]["ETag"]
    assert fetch(url, {"Range": "bytes=0-3", "If-Range": etag})[:3:2] == (206, DATA[:4])
    assert fetch(url, {"Range": "bytes=0-3", "If-Range": '"other"'})[:3:2] == (200, DATA)
    assert fetch(url, {"If-Match": etag})[0] == 200
    assert fetch(url, {"If-Match": '"other"'})[0] == 412


def test_fault_server_headers_follow_a_replaced_file(fault_server):
    url = fault_server.write("a.bin", DATA)
    path = fault_server.root / "a.bin"
    os.utime(path, (FIXED_MTIME, FIXED_MTIME))
    before = fetch(url, method="HEAD")[1]
    path.write_bytes(DATA[:100])
    os.utime(path, (FIXED_MTIME + 60, FIXED_MTIME + 60))
    status, after, body = fetch(url)
    assert (before["ETag"], before["Content-Length"]) == (f'"{FIXED_MTIME * 10**9:x}-400"', "1024")
    assert (after["ETag"], after["Content-Length"]) == (f'"{(FIXED_MTIME + 60) * 10**9:x}-64"', "100")
    assert before["Last-Modified"] == "Tue, 14 Nov 2023 22:13:20 GMT"
    assert after["Last-Modified"] == "Tue, 14 Nov 2023 22:14:20 GMT"
    assert (status, body) == (200, DATA[:100])


def test_fault_server_keeps_a_connection_alive_and_logs_its_requests(fault_server):
    fault_server.write("a.bin", DATA)
    connection = http.client.HTTPConnection("127.0.0.1", fault_server.port, timeout=10)
    for first in (0, 100):
        connection.request("GET", "/a.bin", headers={"Range": f"bytes={first}-{first + 9}"})
        assert connection.getresponse().read() == DATA[first : first + 10]
    connection.close()
    one, two = fault_server.requests(at_least=2)
    assert one.connection == two.connection
    assert (one.connection_requests, two.connection_requests) == (1, 2)


def test_fault_server_refuses_paths_outside_its_root(fault_server):
    fault_server.write("a.bin", DATA)
    (fault_server.root.parent / "outside.bin").write_bytes(b"secret")
    assert fetch(fault_server.url("../outside.bin"))[0] == 404
    assert fetch(fault_server.url("%2e%2e/outside.bin"))[0] == 404
    assert fetch(fault_server.url("missing.bin"))[0] == 404


# -- fault server: faults ----------------------------------------------------------------------


def test_fault_delay_holds_the_answer(fault_server):
    fault_server.write("a.bin", DATA)
    started = time.monotonic()
    status, _, body = fetch(fault_server.fault_url("delay=0.5", "a.bin"), {"Range": "bytes=0-3"})
    assert time.monotonic() - started >= 0.5
    assert (status, body) == (206, DATA[:4])
    with pytest.raises(TimeoutError):
        fetch(fault_server.fault_url("delay=2", "a.bin"), timeout=0.2)


def test_fault_short_promises_the_range_sends_half_then_closes(fault_server):
    fault_server.write("a.bin", DATA)
    connection, response = open_response(fault_server.fault_url("short", "a.bin"), {"Range": "bytes=10-19"})
    assert (response.status, response.headers["Content-Length"]) == (206, "10")
    assert response.headers["Content-Range"] == "bytes 10-19/1024"
    with pytest.raises(http.client.IncompleteRead) as raised:
        response.read()
    connection.close()
    assert (raised.value.partial, raised.value.expected) == (DATA[10:15], 5)
    status, _, body = fetch(fault_server.fault_url("short=3", "a.bin"), method="HEAD")
    assert status == 200
    [short, head] = fault_server.requests(at_least=2)
    assert (short.body_bytes_sent, short.completion) == (5, "")
    assert head.method == "HEAD"
    connection, response = open_response(fault_server.fault_url("short=3", "a.bin"))
    with pytest.raises(http.client.IncompleteRead) as raised:
        response.read()
    assert raised.value.partial == DATA[:3]


def test_fault_drop_resets_the_connection_in_the_body(fault_server):
    fault_server.write("a.bin", DATA)
    seen = []
    # Where the reset shows depends on how far the client had read when it came (see
    # fault_server.py): in the body here, at worst in the headers on a loaded machine.
    connection = http.client.HTTPConnection("127.0.0.1", fault_server.port, timeout=10)
    with pytest.raises((ConnectionResetError, http.client.IncompleteRead)):
        connection.request("GET", "/fault/drop/a.bin")
        response = connection.getresponse()
        seen.append((response.status, response.headers["Content-Length"], response.headers["Connection"]))
        response.read()
    connection.close()
    assert seen in ([], [(200, "1024", None)])
    [entry] = fault_server.requests(at_least=1)
    assert (entry.status, entry.body_bytes_sent, entry.completion) == (200, 512, "")


def test_fault_long_sends_more_than_the_range(fault_server):
    fault_server.write("a.bin", DATA)
    status, headers, body = fetch(fault_server.fault_url("long", "a.bin"), {"Range": "bytes=10-19"})
    assert status == 206
    assert headers["Content-Range"] == "bytes 10-19/1024"
    assert headers["Content-Length"] == "26"
    assert body == DATA[10:36]
    _, headers, body = fetch(fault_server.fault_url("long=8", "a.bin"), {"Range": "bytes=1020-1023"})
    assert (headers["Content-Range"], body) == ("bytes 1020-1023/1024", DATA[1020:] + b"XXXXXXXX")
    status, headers, body = fetch(fault_server.fault_url("long=4", "a.bin"))
    assert (status, headers["Content-Length"], body) == (200, "1028", DATA + b"XXXX")


def test_fault_bad_range_answers_another_range(fault_server):
    fault_server.write("a.bin", DATA)
    status, headers, body = fetch(fault_server.fault_url("bad-range", "a.bin"), {"Range": "bytes=10-19"})
    assert (status, headers["Content-Range"], headers["Content-Length"]) == (206, "bytes 11-20/1024", "10")
    assert body == DATA[11:21]
    _, headers, body = fetch(fault_server.fault_url("bad-range", "a.bin"), {"Range": "bytes=1014-1023"})
    assert (headers["Content-Range"], body) == ("bytes 1013-1022/1024", DATA[1013:1023])
    status, headers, body = fetch(fault_server.fault_url("bad-range", "a.bin"))
    assert (status, headers["Content-Range"], body) == (206, "bytes 1-1023/1024", DATA[1:])


def test_fault_endless_streams_until_its_bound(fault_server):
    fault_server.write("a.bin", DATA)
    mib = 1024 * 1024
    status, headers, body = fetch(fault_server.fault_url(f"endless={mib}", "a.bin"), {"Range": "bytes=10-19"})
    assert (status, headers["Content-Range"]) == (206, "bytes 10-19/1024")
    assert "Content-Length" not in headers
    assert headers["Connection"] == "close"
    assert len(body) == mib
    assert body == (DATA[10:20] * (mib // 10 + 1))[:mib]
    status, headers, body = fetch(fault_server.fault_url(f"endless={mib}", "a.bin"))
    assert (status, len(body), body[:2048]) == (200, mib, DATA * 2)


def test_fault_endless_client_leaving_early_is_logged(fault_server):
    fault_server.write("a.bin", DATA)
    connection, response = open_response(fault_server.fault_url("endless", "a.bin"))
    assert len(response.read(100_000)) == 100_000
    connection.close()
    response.close()
    [entry] = fault_server.requests(at_least=1, timeout=10)
    assert entry.completion == ""
    assert 100_000 <= entry.body_bytes_sent < 64 * 1024 * 1024


def test_fault_html200_is_an_error_page_with_status_200(fault_server):
    fault_server.write("a.bin", DATA)
    status, headers, body = fetch(fault_server.fault_url("html200", "a.bin"), {"Range": "bytes=10-19"})
    assert status == 200
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert body.startswith(b"<!DOCTYPE html>\n<html>")
    assert headers["Content-Length"] == str(len(body))
    assert "Content-Range" not in headers


@pytest.mark.parametrize("code", [401, 403, 404, 416, 500, 503])
def test_fault_status(fault_server, code):
    fault_server.write("a.bin", DATA)
    status, headers, body = fetch(fault_server.fault_url(f"status={code}", "a.bin"), {"Range": "bytes=0-3"})
    assert (status, body) == (code, f"fault status {code}\n".encode())
    assert headers.get("WWW-Authenticate") == ('Basic realm="fault"' if code == 401 else None)
    assert headers.get("Content-Range") == ("bytes */1024" if code == 416 else None)


def test_fault_change_serves_other_bytes_from_the_second_request_on(fault_server):
    fault_server.write("a.bin", DATA)
    url = fault_server.fault_url("change", "a.bin")
    first = fetch(url, {"Range": "bytes=0-3"})
    second = fetch(url, {"Range": "bytes=0-3"})
    third = fetch(url, method="HEAD")
    assert first[2] == b"\x00\x01\x02\x03"
    assert second[2] == b"\xff\xfe\xfd\xfc"
    assert second[1]["ETag"] == first[1]["ETag"][:-1] + '-changed"'
    assert third[1]["ETag"] == second[1]["ETag"]
    assert (second[1]["Content-Range"], third[1]["Content-Length"]) == ("bytes 0-3/1024", "1024")
    later = email.utils.parsedate_to_datetime(second[1]["Last-Modified"])
    assert (later - email.utils.parsedate_to_datetime(first[1]["Last-Modified"])).total_seconds() == 1
    # the count is per path: the plain URL and another mode are unaffected
    assert fetch(fault_server.url("a.bin"), {"Range": "bytes=0-3"})[2] == DATA[:4]


def test_fault_modes_combine_and_bad_modes_are_400(fault_server):
    fault_server.write("a.bin", DATA)
    started = time.monotonic()
    connection, response = open_response(fault_server.fault_url("delay=0.3,short=2", "a.bin"))
    with pytest.raises(http.client.IncompleteRead) as raised:
        response.read()
    connection.close()
    assert time.monotonic() - started >= 0.3 and raised.value.partial == DATA[:2]
    for modes, reason in [
        ("nope", "unknown fault mode 'nope'"),
        ("short,long", "at most one shaping mode, got short, long"),
        ("delay", "fault mode 'delay' needs a value (delay=...)"),
        ("delay=soon", "fault mode delay='soon': not a number"),
        ("html200=1", "fault mode 'html200' takes no value"),
        ("status=204", "fault status '204': use a code in 200..599 except 204 and 304"),
    ]:
        assert fetch(fault_server.fault_url(modes, "a.bin"))[:3:2] == (400, f"{reason}\n".encode()), modes


def test_fault_server_killed_mid_transfer_leaves_the_client_with_an_incomplete_body(fault_server):
    fault_server.write("a.bin", DATA)
    connection, response = open_response(fault_server.fault_url("stall=20", "a.bin"))
    assert response.read(512) == DATA[:512]  # the half sent before the stall
    started = time.monotonic()
    fault_server.kill()
    with pytest.raises(http.client.IncompleteRead) as raised:
        response.read()
    connection.close()
    assert time.monotonic() - started < 5
    assert (raised.value.partial, raised.value.expected) == (b"", 512)
    assert fault_server.returncode == -9
    assert_refused(fault_server.port)


def test_fault_server_as_a_context_manager_stops_on_exit(tmp_path):
    with FaultHTTPServer(tmp_path) as server:
        port, workdir = server.port, server.workdir
        assert server.running
    assert not server.running and not workdir.exists()
    assert_refused(port)


# -- moto S3 -------------------------------------------------------------------------------------


def test_moto_object_range_read_through_s3fs(moto_s3, s3_fs):
    assert moto_s3.put_object("tensors", "dir/a.bin", DATA) == "tensors/dir/a.bin"
    moto_s3.clear_log()
    assert s3_fs.cat_file("tensors/dir/a.bin", start=10, end=20) == DATA[10:20]
    info = s3_fs.info("tensors/dir/a.bin")
    assert (info["size"], info["type"]) == (1024, "file")
    assert [(r.method, r.path, r.status) for r in moto_s3.requests(at_least=2)] == [
        ("GET", "/tensors/dir/a.bin", 206),
        ("HEAD", "/tensors/dir/a.bin", 200),
    ]


def test_moto_reset_forgets_buckets_and_environment_is_fake(moto_s3, s3_fs):
    moto_s3.create_bucket("first")
    assert s3_fs.ls("", refresh=True) == ["first"]
    moto_s3.reset()
    assert s3_fs.ls("", refresh=True) == []
    env = moto_s3.environment()
    assert (env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"]) == ("testing", "testing")
    assert env["AWS_ENDPOINT_URL"] == moto_s3.endpoint_url == f"http://127.0.0.1:{moto_s3.port}"
    assert env["AWS_SHARED_CREDENTIALS_FILE"] == env["AWS_CONFIG_FILE"] == os.devnull
    assert moto_s3.storage_options()["client_kwargs"]["endpoint_url"] == moto_s3.endpoint_url


# -- fsspec against nginx ------------------------------------------------------------------------


def test_fsspec_http_reads_a_range_from_nginx(nginx, http_fs, name):
    url = nginx.write(name, DATA)
    assert http_fs.cat_file(url, start=10, end=20) == DATA[10:20]
    [entry] = nginx.requests(at_least=1)
    assert (entry.method, entry.status, entry.range, entry.body_bytes_sent) == ("GET", 206, "bytes=10-19", 10)
