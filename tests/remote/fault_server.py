"""An HTTP file server that answers correctly by default and misbehaves on request.

Run as a subprocess by :class:`servers.FaultHTTPServer` (standard library only)::

    python fault_server.py --root DIR --port PORT --log FILE

It binds 127.0.0.1 only. ``GET``/``HEAD /NAME`` serves ``DIR/NAME`` as a careful server does:
a single ``Range`` (``bytes=a-b``, ``bytes=a-``, ``bytes=-n``) is answered 206 with
``Content-Range`` and ``Content-Length``; an unsatisfiable one 416 with ``Content-Range: bytes
*/SIZE``; a malformed or multi-range one is ignored (200, whole body), as RFC 9110 allows.
Every answer has ``Accept-Ranges: bytes``, ``Last-Modified`` and an ``ETag`` made of the file's
``st_mtime_ns`` and size, read at each request, so replacing the file is visible at once.
``If-Match`` (412 when it differs) and ``If-Range`` (whole body when it differs) are honoured.

``/fault/MODES/NAME`` serves the same file with faults. MODES is a comma-separated list of
``mode`` or ``mode=value``; at most one *shaping* mode and any of the *modifiers*:

modifiers
    ``delay=S``    sleep S seconds (at most 60) before answering.
    ``change``     from the second request for this exact path on (HEAD counts), serve other
                   bytes (each byte XOR 0xFF) of the same size, with another ETag and a
                   Last-Modified one second later.
shaping
    ``short[=N]``  headers promise the whole answer; send N bytes of the body (default: half),
                   then close cleanly (FIN).
    ``drop[=N]``   the same, with no ``Connection: close`` warning, and after N bytes (default:
                   half) and a pause of 0.2 s the connection is reset (RST). Linux discards what
                   the client had not read yet when the reset arrives, so a slow client can see
                   the reset while reading the body or even the headers.
    ``long[=N]``   send N more bytes (default 16) than asked for: ``Content-Range`` names the
                   requested range, ``Content-Length`` and the body are N bytes longer (the
                   file's following bytes, then ``X`` past its end). ``Connection: close``.
    ``bad-range``  answer 206 with bytes shifted by one (``start+1..end+1``, or ``start-1..end-1``
                   at the file's end) honestly labelled by ``Content-Range``: a Content-Range
                   that disagrees with the request. With no Range: ``bytes 1-(SIZE-1)/SIZE``.
    ``endless[=N]`` 200 (or 206 with the requested Content-Range) without Content-Length that
                   streams the body over and over until N bytes (default 64 MiB) or 30 seconds,
                   then closes.
    ``stall=S``    headers and half of the body, then sleep S seconds (at most 60), then the rest.
    ``html200``    an HTML error page with status 200 and ``Content-Type: text/html``.
    ``status=C``   status C (100..599 except 1xx/204/304) with a short text body; 401 adds
                   ``WWW-Authenticate: Basic``, 416 adds ``Content-Range: bytes */SIZE``.

An unknown or malformed mode is answered 400 with the reason. Each answered request appends one
JSON line to the log: method, path, status, range, body_bytes_sent, content_range, port,
connection (a serial number per accepted connection), connection_requests, completion ("OK"
when the whole body that was meant to be sent was sent), arrival (the request's serial number:
handler threads write their lines when done, so lines can be out of arrival order).

Bounds: an idle or stuck connection times out after 30 s; the process exits when its parent
process is gone, and after 30 minutes in any case.
"""

from __future__ import annotations

import argparse
import email.utils
import itertools
import json
import mimetypes
import os
import socket
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

MAX_SLEEP_S = 60.0
ENDLESS_DEFAULT_BYTES = 64 * 1024 * 1024
ENDLESS_MAX_S = 30.0
LONG_DEFAULT_EXTRA = 16
CONNECTION_TIMEOUT_S = 30.0
MAX_LIFETIME_S = 30 * 60.0
CHUNK = 64 * 1024
DROP_PAUSE_S = 0.2

MODIFIERS = {"delay", "change"}
SHAPING = {"short", "drop", "long", "bad-range", "endless", "stall", "html200", "status"}
NEEDS_VALUE = {"delay", "stall", "status"}
NO_VALUE = {"change", "bad-range", "html200"}

HTML_PAGE = (
    b"<!DOCTYPE html>\n<html><head><title>Service unavailable</title></head>\n"
    b"<body><h1>Something went wrong</h1><p>This is an error page served with status 200.</p></body></html>\n"
)


class ModeError(ValueError):
    """A ``/fault/MODES/`` segment that names no known mode or has a bad value."""


def parse_modes(text: str) -> dict[str, str | None]:
    """``"delay=0.5,short"`` -> ``{"delay": "0.5", "short": None}``; at most one shaping mode."""
    modes: dict[str, str | None] = {}
    for item in text.split(","):
        name, eq, value = item.partition("=")
        if name not in MODIFIERS | SHAPING:
            raise ModeError(f"unknown fault mode {name!r}")
        if name in NEEDS_VALUE and not eq:
            raise ModeError(f"fault mode {name!r} needs a value ({name}=...)")
        if name in NO_VALUE and eq:
            raise ModeError(f"fault mode {name!r} takes no value")
        if eq:
            try:
                number = float(value)
            except ValueError:
                raise ModeError(f"fault mode {name}={value!r}: not a number") from None
            if number < 0:
                raise ModeError(f"fault mode {name}={value!r}: negative")
        modes[name] = value if eq else None
    shaping = [name for name in modes if name in SHAPING]
    if len(shaping) > 1:
        raise ModeError(f"at most one shaping mode, got {', '.join(shaping)}")
    if "status" in modes:
        code = int(float(modes["status"] or 0))
        if not 200 <= code <= 599 or code in (204, 304):
            raise ModeError(f"fault status {modes['status']!r}: use a code in 200..599 except 204 and 304")
    return modes


def parse_range(header: str | None, size: int) -> tuple[int, int] | str | None:
    """A single byte range ``(first, last)`` inclusive, ``"unsatisfiable"``, or None (serve all).

    None for no header, a malformed one, another unit or several ranges (ignored, RFC 9110 14.2).
    """
    if header is None:
        return None
    unit, _, spec = header.strip().partition("=")
    if unit.strip().lower() != "bytes" or "," in spec:
        return None
    first_text, dash, last_text = spec.strip().partition("-")
    if not dash:
        return None
    try:
        if first_text == "":
            suffix = int(last_text)
            if suffix < 0:
                return None
            if suffix == 0 or size == 0:
                return "unsatisfiable"
            return max(0, size - suffix), size - 1
        first = int(first_text)
        last = int(last_text) if last_text else size - 1
    except ValueError:
        return None
    if first < 0 or last < first:
        return None
    if first >= size:
        return "unsatisfiable"
    return first, min(last, size - 1)


class FaultServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, root: Path, log_path: Path):
        super().__init__(address, FaultHandler)
        self.root = root.resolve()
        self.log_path = log_path
        self.log_lock = threading.Lock()
        self.connections = itertools.count(1)
        self.arrivals = itertools.count(1)  # handler threads log when done, not in arrival order
        self.seen_lock = threading.Lock()
        self.seen: dict[str, int] = {}

    def count_request(self, path: str) -> int:
        with self.seen_lock:
            self.seen[path] = self.seen.get(path, 0) + 1
            return self.seen[path]

    def write_log(self, entry: dict) -> None:
        line = json.dumps(entry, separators=(",", ":")) + "\n"
        with self.log_lock, open(self.log_path, "a", encoding="utf-8") as log:
            log.write(line)


class ClientGoneError(Exception):
    """The client went away while the body was being written."""


class FaultHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FaultHTTP/1.0"
    timeout = CONNECTION_TIMEOUT_S
    server: FaultServer

    def setup(self):
        super().setup()
        self.connection_id = next(self.server.connections)
        self.connection_requests = 0

    def log_request(self, code="-", size="-"):
        """Requests go to the JSON log (after the body), not to stderr."""

    def do_GET(self):
        self._answer(head=False)

    def do_HEAD(self):
        self._answer(head=True)

    # -- one request -------------------------------------------------------------------------

    def _answer(self, head: bool) -> None:
        self.connection_requests += 1
        arrival = next(self.server.arrivals)
        self._status = 0
        self._sent = 0
        self._content_range = None
        self._completion = "OK"
        try:
            self._route(head)
        except ClientGoneError:
            self._completion = ""
            self.close_connection = True
        finally:
            self.server.write_log(
                {
                    "method": self.command,
                    "path": self.path,
                    "status": self._status,
                    "range": self.headers.get("Range"),
                    "body_bytes_sent": self._sent,
                    "content_range": self._content_range,
                    "port": self.server.server_address[1],
                    "connection": self.connection_id,
                    "connection_requests": self.connection_requests,
                    "completion": self._completion,
                    "arrival": arrival,
                }
            )

    def _route(self, head: bool) -> None:
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        modes: dict[str, str | None] = {}
        if path.startswith("/fault/"):
            modes_text, _, name = path[len("/fault/") :].partition("/")
            try:
                modes = parse_modes(modes_text)
            except ModeError as error:
                self._simple(400, f"{error}\n".encode(), head)
                return
        else:
            name = path.lstrip("/")
        if "delay" in modes:
            time.sleep(min(float(modes["delay"] or 0), MAX_SLEEP_S))
        file = (self.server.root / name).resolve()
        if not name or self.server.root not in file.parents or not file.is_file():
            self._simple(404, b"not found\n", head)
            return
        try:
            with open(file, "rb") as stream:
                stat = os.fstat(stream.fileno())
                self._serve_file(stream, stat, name, modes, head)
        except OSError as error:
            if isinstance(error, (BrokenPipeError, ConnectionResetError)):
                raise ClientGoneError() from error
            if self._status == 0:
                self._simple(500, f"cannot read {name}: {error}\n".encode(), head)
            else:
                raise ClientGoneError() from error

    def _serve_file(self, stream, stat: os.stat_result, name: str, modes: dict, head: bool) -> None:
        size = stat.st_size
        etag = f'"{stat.st_mtime_ns:x}-{size:x}"'
        mtime = stat.st_mtime
        changed = "change" in modes and self.server.count_request(self.path) >= 2
        if changed:
            etag = f'"{stat.st_mtime_ns:x}-{size:x}-changed"'
            mtime += 1
        last_modified = email.utils.formatdate(mtime, usegmt=True)

        if "status" in modes:
            self._fault_status(int(float(modes["status"] or 0)), size, head)
            return
        if "html200" in modes:
            self._simple(200, HTML_PAGE, head, content_type="text/html; charset=utf-8")
            return

        if_match = self.headers.get("If-Match")
        if if_match is not None and if_match.strip() != "*" and etag not in [t.strip() for t in if_match.split(",")]:
            self._simple(412, b"precondition failed\n", head)
            return
        wanted = parse_range(self.headers.get("Range"), size)
        if_range = self.headers.get("If-Range")
        if if_range is not None and if_range.strip() not in (etag, last_modified):
            wanted = None
        if wanted == "unsatisfiable":
            self._simple(416, b"range not satisfiable\n", head, extra={"Content-Range": f"bytes */{size}"})
            return

        status = 200 if wanted is None else 206
        first, last = (0, size - 1) if wanted is None else wanted
        if "bad-range" in modes:
            status = 206
            if wanted is None:
                first, last = min(1, size), size - 1
            elif last + 1 < size:
                first, last = first + 1, last + 1
            elif first >= 1:
                first, last = first - 1, last - 1
        length = max(0, last - first + 1)
        headers = {
            "Content-Type": mimetypes.guess_type(name)[0] or "application/octet-stream",
            "Accept-Ranges": "bytes",
            "ETag": etag,
            "Last-Modified": last_modified,
        }
        if status == 206:
            headers["Content-Range"] = f"bytes {first}-{last}/{size}"

        def body(start: int, count: int) -> bytes:
            stream.seek(start)
            data = stream.read(max(0, count))
            return bytes(b ^ 0xFF for b in data) if changed else data

        if "endless" in modes:
            self._endless(
                status, headers, body, first, length, int(float(modes["endless"] or ENDLESS_DEFAULT_BYTES)), head
            )
            return
        if "long" in modes:
            extra = int(float(modes["long"] or LONG_DEFAULT_EXTRA))
            payload = body(first, length + extra)
            payload += b"X" * (length + extra - len(payload))
            headers["Content-Length"] = str(len(payload))
            headers["Connection"] = "close"
            self.close_connection = True
            self._head(status, headers)
            if not head:
                self._write(payload)
            return

        headers["Content-Length"] = str(length)
        payload = b"" if head else body(first, length)
        if "short" in modes or "drop" in modes:
            mode = "short" if "short" in modes else "drop"
            cut = min(length, int(float(modes[mode]))) if modes[mode] is not None else length // 2
            if mode == "short":
                headers["Connection"] = "close"
            self.close_connection = True
            self._head(status, headers)
            if head:
                return
            self._write(payload[:cut])
            self._completion = ""
            if mode == "drop":
                time.sleep(DROP_PAUSE_S)  # time for the client to read what was sent
                self._reset_connection()
            return
        self._head(status, headers)
        if head:
            return
        if "stall" in modes:
            half = length // 2
            self._write(payload[:half])
            time.sleep(min(float(modes["stall"] or 0), MAX_SLEEP_S))
            self._write(payload[half:])
            return
        self._write(payload)

    # -- pieces ------------------------------------------------------------------------------

    def _fault_status(self, code: int, size: int, head: bool) -> None:
        extra = {}
        if code == 401:
            extra["WWW-Authenticate"] = 'Basic realm="fault"'
        if code == 416:
            extra["Content-Range"] = f"bytes */{size}"
        self._simple(code, f"fault status {code}\n".encode(), head, extra=extra)

    def _simple(
        self,
        code: int,
        payload: bytes,
        head: bool,
        content_type: str = "text/plain; charset=utf-8",
        extra: dict | None = None,
    ) -> None:
        headers = {"Content-Type": content_type, "Content-Length": str(len(payload)), **(extra or {})}
        self._head(code, headers)
        if not head:
            self._write(payload)

    def _head(self, code: int, headers: dict[str, str]) -> None:
        self._status = code
        self._content_range = headers.get("Content-Range")
        try:
            self.send_response_only(code)
            self.send_header("Date", self.date_time_string())
            self.send_header("Server", self.version_string())
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
        except OSError as error:
            raise ClientGoneError() from error

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            for offset in range(0, len(view), CHUNK):
                part = view[offset : offset + CHUNK]
                self.wfile.write(part)
                self._sent += len(part)
        except OSError as error:
            raise ClientGoneError() from error

    def _endless(self, status, headers, body, first: int, length: int, limit: int, head: bool) -> None:
        headers["Connection"] = "close"
        self.close_connection = True
        self._head(status, headers)
        if head:
            return
        unit = body(first, min(length, CHUNK)) or b"E"
        while len(unit) < CHUNK:
            unit += unit
        deadline = time.monotonic() + ENDLESS_MAX_S
        while self._sent < limit and time.monotonic() < deadline:
            self._write(unit[: limit - self._sent])
        self._completion = ""  # an endless body is never complete

    def _reset_connection(self) -> None:
        """Close with RST (SO_LINGER 0) instead of FIN: the client sees a connection reset."""
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        # wfile is not a makefile() of the socket and stays open (the handler flushes it after
        # us); rfile is, and holds the descriptor open until it is closed too.
        for closable in (self.rfile, self.connection):
            try:
                closable.close()
            except OSError:
                pass


def _exit_with_parent(parent: int) -> None:
    """Bounded lifetime: exit when the process that started us is gone, or after MAX_LIFETIME_S."""
    deadline = time.monotonic() + MAX_LIFETIME_S
    while time.monotonic() < deadline and os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--port", required=True, type=int)
    parser.add_argument("--log", required=True, type=Path)
    args = parser.parse_args(argv)
    try:
        server = FaultServer(("127.0.0.1", args.port), args.root, args.log)
    except OSError as error:
        print(f"fault server: cannot listen on 127.0.0.1:{args.port}: {error}", file=sys.stderr, flush=True)
        return 98
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()
    server.serve_forever(poll_interval=0.2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
