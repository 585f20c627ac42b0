"""Real servers on 127.0.0.1 for the remote-reading tests and benchmarks (no mocks).

Each server is a subprocess that listens on 127.0.0.1 only, on a port found free just before it
starts (retried on another port if it was taken meanwhile). :meth:`_ServerProcess.start` waits
until the port accepts connections, at most ``ready_timeout`` seconds, and otherwise raises
:class:`ServerStartError` with the server's exit code, command, stderr and error log.
:meth:`_ServerProcess.stop` ends the server by its own pid: SIGTERM, then SIGKILL after a
bounded wait; :meth:`_ServerProcess.kill` is SIGKILL at once, for tests that kill a server in
the middle of a transfer. Every server is a context manager (start on enter, stop on exit), and
any still running when the interpreter exits is stopped then.

- :class:`NginxServer`: Debian's nginx serving a root directory, with a JSON access log
  (:meth:`NginxServer.requests`), basic auth, a 403 location and a cross-port redirect.
- :class:`PlainHTTPServer`: Python's ``http.server``, which ignores ``Range`` (200, whole body).
- :class:`FaultHTTPServer`: ``fault_server.py`` beside this file, correct by default, faulty on
  ``/fault/MODES/NAME`` (its docstring lists the modes).
- :class:`MotoS3Server`: moto's standalone S3 server with fake credentials.

Nothing here imports pytest, so benchmarks can use it as well.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
FAULT_SCRIPT = HERE / "fault_server.py"
HOST = "127.0.0.1"
LOG_MARK = "/__tensor_inspector_log_mark__"  # NginxServer.clear_log's request

READY_TIMEOUT_S = 15.0
STOP_TIMEOUT_S = 5.0
PORT_ATTEMPTS = 3

_running: set[_ServerProcess] = set()


class ServerStartError(RuntimeError):
    """A server that exited or did not accept connections within its bounded wait."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def nginx_binary() -> str | None:
    """The nginx executable: on PATH, or Debian's /usr/sbin/nginx (not on a user's PATH)."""
    found = shutil.which("nginx")
    if found:
        return found
    return "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None


@dataclass(frozen=True)
class LoggedRequest:
    """One request as the server logged it after answering it.

    ``range`` is the request's Range header and ``content_range`` the answer's Content-Range
    (None when absent); ``body_bytes_sent`` counts the body only, as far as it was sent;
    ``connection`` is the server's serial number of the TCP connection and
    ``connection_requests`` the request's place on it; ``completion`` is ``"OK"`` when the
    whole response was sent.
    """

    method: str
    path: str
    status: int
    range: str | None
    body_bytes_sent: int
    content_range: str | None
    port: int
    connection: int
    connection_requests: int
    completion: str

    @classmethod
    def from_json(cls, entry: dict) -> LoggedRequest:
        return cls(
            method=entry["method"],
            path=entry["path"],
            status=int(entry["status"]),
            range=entry.get("range") or None,
            body_bytes_sent=int(entry["body_bytes_sent"]),
            content_range=entry.get("content_range") or None,
            port=int(entry["port"]),
            connection=int(entry["connection"]),
            connection_requests=int(entry["connection_requests"]),
            completion=entry.get("completion") or "",
        )


@dataclass(frozen=True)
class S3Request:
    """One request that moto's server logged (its werkzeug log has no ranges nor sizes)."""

    method: str
    path: str
    status: int


_WERKZEUG_LINE = re.compile(r'"(?P<method>[A-Z]+) (?P<path>\S+) HTTP/[\d.]+" (?P<status>\d{3}) ')


class _ServerProcess:
    """A server subprocess on 127.0.0.1:``port``, started and stopped by its own pid.

    Subclasses give :meth:`_command` (for a port) and may prepare files in ``workdir`` (a
    temporary directory removed by :meth:`stop`), which also holds the server's stderr.
    """

    name = "server"

    def __init__(self, *, ready_timeout: float = READY_TIMEOUT_S):
        self.ready_timeout = ready_timeout
        self.port: int | None = None
        self.workdir: Path | None = None
        self._process: subprocess.Popen | None = None

    # -- subclass hooks ------------------------------------------------------------------------

    def _command(self, port: int) -> list[str]:
        raise NotImplementedError

    def _prepare(self, port: int) -> None:
        """Write what the command needs (configuration) into ``self.workdir``."""

    def _environment(self) -> dict[str, str] | None:
        return None

    def _error_log(self) -> str:
        """Text of the server's own error log, for ServerStartError (besides stderr)."""
        return ""

    def _is_ready(self, port: int) -> bool:
        """Once the port accepts connections: whether the server answers (default: yes)."""
        return True

    # -- life cycle ----------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def returncode(self) -> int | None:
        """The exit status once the server has ended (negative: killed by that signal)."""
        return self._process.poll() if self._process else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def base_url(self) -> str:
        self._require_started()
        return f"http://{HOST}:{self.port}"

    def start(self) -> _ServerProcess:
        """Start on a free port and wait until it accepts connections; retried on a taken port."""
        if self.running:
            return self
        self.workdir = Path(tempfile.mkdtemp(prefix=f"ti-{self.name}-"))
        errors = []
        for _attempt in range(PORT_ATTEMPTS):
            port = free_port()
            self._prepare(port)
            error = self._launch(port)
            if error is None:
                self.port = port
                _running.add(self)
                return self
            errors.append(error)
            if "address already in use" not in error.lower():
                break
        self._remove_workdir()
        raise ServerStartError(errors[-1])

    def _launch(self, port: int) -> str | None:
        """Run the command; None once it accepts connections, else the reason it did not."""
        stderr_path = self.workdir / "stderr.txt"
        command = self._command(port)
        with open(stderr_path, "wb") as stderr:
            # A session of its own: Ctrl-C in the test run reaches the tests, not the server,
            # which the fixtures' teardown stops.
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=stderr,
                stderr=stderr,
                cwd=self.workdir,
                env=self._environment(),
                start_new_session=True,
            )
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                break
            if _accepts_connections(port) and self._is_ready(port):
                return None
            time.sleep(0.02)
        exited = self._process.poll()
        if exited is None:
            self._end_process(STOP_TIMEOUT_S)
            state = f"did not accept connections on {HOST}:{port} within {self.ready_timeout:g} s"
        else:
            state = f"exited with code {exited} before accepting connections on {HOST}:{port}"
        self._process = None
        stderr_text = stderr_path.read_text(errors="replace").strip()
        message = [f"{self.name} {state}.", f"command: {' '.join(command)}", f"stderr: {stderr_text or '(empty)'}"]
        error_log = self._error_log().strip()
        if error_log:
            message.append(f"error log: {error_log}")
        return "\n".join(message)

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """SIGTERM, SIGKILL after ``timeout`` seconds; then remove the work directory."""
        if self._process is not None:
            self._end_process(timeout)
        _running.discard(self)
        self._remove_workdir()

    def kill(self) -> None:
        """SIGKILL now (a crash in the middle of a transfer); the work directory stays until stop()."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait(STOP_TIMEOUT_S)

    def _end_process(self, timeout: float) -> None:
        process = self._process
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout)

    def _remove_workdir(self) -> None:
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    def _require_started(self) -> None:
        if self.port is None or self.workdir is None:
            raise RuntimeError(f"{self.name} is not started")

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def stderr_text(self) -> str:
        """What the server printed so far."""
        self._require_started()
        path = self.workdir / "stderr.txt"
        return path.read_text(errors="replace") if path.exists() else ""


class _FileServer(_ServerProcess):
    """A server of the files under ``root``."""

    def __init__(self, root: str | os.PathLike, *, ready_timeout: float = READY_TIMEOUT_S):
        super().__init__(ready_timeout=ready_timeout)
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise NotADirectoryError(f"{self.name} root is not a directory: {self.root}")

    def url(self, name: str) -> str:
        """``http://127.0.0.1:PORT/NAME`` (NAME relative to root, as given)."""
        return f"{self.base_url}/{name.lstrip('/')}"

    def write(self, name: str, data: bytes) -> str:
        """Write ``root/NAME`` (creating folders) and return its URL."""
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return self.url(name)


class _JsonAccessLog:
    """An access log of one JSON object a line (see :class:`LoggedRequest`)."""

    def _access_log_path(self) -> Path:
        raise NotImplementedError

    def requests(self, at_least: int = 0, timeout: float = 5.0) -> list[LoggedRequest]:
        """The requests logged since the last :meth:`clear_log`, in the order they arrived.

        A server logs a request after answering it, so a client can see the answer a moment
        before the line is written: with ``at_least``, wait up to ``timeout`` seconds for that
        many entries (and return what there is then).
        """
        deadline = time.monotonic() + timeout
        while True:
            entries = self._since_clear(self._read_log())
            if (entries is not None and len(entries) >= at_least) or time.monotonic() >= deadline:
                return entries or []
            time.sleep(0.01)

    def _read_log(self) -> list[LoggedRequest]:
        path = self._access_log_path()
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        lines = text.splitlines(keepends=True)
        if lines and not lines[-1].endswith("\n"):
            lines.pop()  # a line being written
        return [
            LoggedRequest.from_json(entry)
            for entry in self._in_order([json.loads(line) for line in lines if line.strip()])
        ]

    def _in_order(self, entries: list[dict]) -> list[dict]:
        """The log's entries in the order the requests arrived (default: as written)."""
        return entries

    def _since_clear(self, entries: list[LoggedRequest]) -> list[LoggedRequest] | None:
        """The entries that belong after clear_log (None: not known yet)."""
        return entries

    def clear_log(self) -> None:
        """Empty the access log (the server appends, so it goes on at the start of the file).

        A request whose answer is still being written when the log is emptied is logged after
        (the fault server is one per test, so it has none from another test).
        """
        path = self._access_log_path()
        if path.exists():
            os.truncate(path, 0)


class NginxServer(_JsonAccessLog, _FileServer):
    """Debian's nginx serving ``root`` on 127.0.0.1, configured in a temporary directory.

    Files are served as nginx serves static files by default: sendfile, ``ETag`` (nginx's
    ``"<mtime hex>-<size hex>"``, mtime in seconds), ``Last-Modified``, single and multiple
    byte ranges (206), ``Accept-Ranges: bytes``. One process (``master_process off``), so its
    pid is the whole server and :meth:`kill` leaves no worker behind; running as root it reads
    any file the tests write. Locations of the main port:

    - ``/NAME``: ``root/NAME``; 404 when missing; a folder ``/NAME/`` answers nginx's listing page
      (``autoindex``: what fsspec's HTTP glob reads).
    - ``/private/NAME``: ``root/NAME`` behind basic auth (``auth``: user, password); 401 without.
    - ``/forbidden/NAME``: 403.
    - ``/redirect/NAME``: 302 to ``redirect_to/NAME``; by default ``redirect_to`` is
      ``http://localhost:OTHER_PORT``, a second listening port of the same nginx serving the
      same root (another host name and port: :meth:`other_url`).

    Every request on either port is logged as JSON (:meth:`requests`), with the port it came to
    (:meth:`clear_log`'s own request to ``LOG_MARK`` is left out).
    All paths (pid, logs, temp files) are in the work directory.
    """

    name = "nginx"

    def __init__(
        self,
        root: str | os.PathLike,
        *,
        auth: tuple[str, str] = ("reader", "secret"),
        redirect_to: str | None = None,
        binary: str | None = None,
        ready_timeout: float = READY_TIMEOUT_S,
    ):
        super().__init__(root, ready_timeout=ready_timeout)
        self.auth = auth
        self.redirect_to = redirect_to.rstrip("/") if redirect_to else None
        self.binary = binary or nginx_binary()
        if self.binary is None:
            raise FileNotFoundError("nginx is not installed (apt-get install -y nginx)")
        self.other_port: int | None = None
        self._mark = 0
        for text in (str(self.root), *auth):
            if any(c in text for c in "\"'\\;{}\n") or not text:
                raise ValueError(f"not usable in an nginx configuration: {text!r}")

    def _command(self, port: int) -> list[str]:
        w = self.workdir
        return [self.binary, "-p", f"{w}/", "-c", str(w / "nginx.conf"), "-e", str(w / "error.log")]

    def _prepare(self, port: int) -> None:
        w = self.workdir
        self.other_port = free_port()
        user, password = self.auth
        (w / "htpasswd").write_text(f"{user}:{{PLAIN}}{password}\n")
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (w / "temp" / name).mkdir(parents=True, exist_ok=True)
        (w / "access.log").touch()
        (w / "error.log").write_text("")  # a retry on another port starts a fresh log
        redirect_to = self.redirect_to or f"http://localhost:{self.other_port}"
        # $request_uri as sent (query included); unset variables are "" with escape=json.
        log_format = (
            '{"method":"$request_method","path":"$request_uri","status":$status,'
            '"range":"$http_range","body_bytes_sent":$body_bytes_sent,'
            '"content_range":"$sent_http_content_range","port":$server_port,'
            '"connection":$connection,"connection_requests":$connection_requests,'
            '"completion":"$request_completion"}'
        )
        config = f"""
daemon off;
master_process off;
worker_processes 1;
pid "{w}/nginx.pid";
error_log "{w}/error.log" info;
events {{ worker_connections 512; }}
http {{
    types {{
        text/html html htm;
        text/plain txt;
        application/json json;
        application/octet-stream bin;
    }}
    default_type application/octet-stream;
    log_format ti_json escape=json '{log_format}';
    access_log "{w}/access.log" ti_json;
    client_body_temp_path "{w}/temp/client_body";
    proxy_temp_path "{w}/temp/proxy";
    fastcgi_temp_path "{w}/temp/fastcgi";
    uwsgi_temp_path "{w}/temp/uwsgi";
    scgi_temp_path "{w}/temp/scgi";
    sendfile on;
    tcp_nopush on;
    etag on;
    keepalive_timeout 30s;
    server_tokens off;

    server {{
        listen {HOST}:{port};
        server_name localhost;
        root "{self.root}";
        location / {{ autoindex on; }}
        location /private/ {{
            auth_basic "tensor-inspector tests";
            auth_basic_user_file "{w}/htpasswd";
            alias "{self.root}/";
        }}
        location /forbidden/ {{ return 403; }}
        location = {LOG_MARK} {{ return 204; }}
        location ~ ^/redirect/(?<target>.*)$ {{ return 302 {redirect_to}/$target; }}
    }}
    server {{
        listen {HOST}:{self.other_port};
        server_name localhost;
        root "{self.root}";
        location / {{ }}
    }}
}}
"""
        (w / "nginx.conf").write_text(config)

    def _error_log(self) -> str:
        path = self.workdir / "error.log" if self.workdir else None
        return path.read_text(errors="replace") if path and path.exists() else ""

    def _access_log_path(self) -> Path:
        self._require_started()
        return self.workdir / "access.log"

    def clear_log(self) -> None:
        """Empty the access log, then mark its new start with a request of its own.

        One nginx process answers and logs one event at a time, so the line of every request
        whose answer a client has already read is written before the mark's: a late line of a
        previous test falls before the mark, and :meth:`requests` only returns lines after it.
        """
        super().clear_log()
        self._mark += 1
        connection = http.client.HTTPConnection(HOST, self.port, timeout=10)
        try:
            connection.request("GET", f"{LOG_MARK}?{self._mark}")
            connection.getresponse().read()
        finally:
            connection.close()

    def _since_clear(self, entries: list[LoggedRequest]) -> list[LoggedRequest] | None:
        if self._mark == 0:
            return entries
        mark = f"{LOG_MARK}?{self._mark}"
        for index in range(len(entries) - 1, -1, -1):
            if entries[index].path == mark:
                return entries[index + 1 :]
        return None  # the mark's own line is not written yet

    def error_log(self) -> str:
        """nginx's error log so far (level info: also connections closed by clients)."""
        self._require_started()
        return self._error_log()

    def private_url(self, name: str) -> str:
        """``/private/NAME``: served with basic auth ``auth``, 401 without it."""
        return self.url(f"private/{name.lstrip('/')}")

    def forbidden_url(self, name: str) -> str:
        """``/forbidden/NAME``: always 403."""
        return self.url(f"forbidden/{name.lstrip('/')}")

    def redirect_url(self, name: str) -> str:
        """``/redirect/NAME``: 302 to ``redirect_to/NAME`` (by default :meth:`other_url`)."""
        return self.url(f"redirect/{name.lstrip('/')}")

    def other_url(self, name: str) -> str:
        """``http://localhost:OTHER_PORT/NAME``: the second port, where redirects go by default."""
        self._require_started()
        return f"http://localhost:{self.other_port}/{name.lstrip('/')}"

    def auth_header(self) -> dict[str, str]:
        """The Authorization header of ``auth``."""
        token = base64.b64encode(":".join(self.auth).encode()).decode()
        return {"Authorization": f"Basic {token}"}


class PlainHTTPServer(_FileServer):
    """Python's ``http.server`` serving ``root``: no Range support.

    It answers GET with 200 and the whole file whatever the Range header says (no
    ``Accept-Ranges``, no ``ETag``; ``Content-Length`` and ``Last-Modified``), HTTP/1.0, one
    connection per request; 404 for a missing file, a directory listing for a folder.
    """

    name = "http.server"

    def _command(self, port: int) -> list[str]:
        return [sys.executable, "-m", "http.server", str(port), "--bind", HOST, "--directory", str(self.root)]


class FaultHTTPServer(_JsonAccessLog, _FileServer):
    """``fault_server.py`` serving ``root``: correct by default, faulty on request.

    ``url(NAME)`` is served correctly (single ranges, 206/416, ETag from ``st_mtime_ns`` and
    size read at each request, ``Last-Modified``, ``Accept-Ranges: bytes``);
    ``fault_url(MODES, NAME)`` is ``/fault/MODES/NAME``, e.g. ``fault_url("delay=0.5,short",
    "a.bin")``. Modes: ``delay=S``, ``change``, ``short[=N]``, ``drop[=N]``, ``long[=N]``,
    ``bad-range``, ``endless[=N]``, ``stall=S``, ``html200``, ``status=C`` (fault_server.py's
    docstring states each). Each request is logged (:meth:`requests`).
    """

    name = "fault server"

    def _command(self, port: int) -> list[str]:
        return [
            sys.executable,
            str(FAULT_SCRIPT),
            "--root",
            str(self.root),
            "--port",
            str(port),
            "--log",
            str(self.workdir / "access.log"),
        ]

    def _access_log_path(self) -> Path:
        self._require_started()
        return self.workdir / "access.log"

    def _in_order(self, entries: list[dict]) -> list[dict]:
        return sorted(entries, key=lambda entry: entry["arrival"])

    def fault_url(self, modes: str, name: str) -> str:
        """``http://127.0.0.1:PORT/fault/MODES/NAME``."""
        return self.url(f"fault/{modes}/{name.lstrip('/')}")


class MotoS3Server(_ServerProcess):
    """moto's standalone server (``python -m moto.server``) on 127.0.0.1, state in memory.

    It never reaches AWS: clients are pointed at :attr:`endpoint_url` with the fake
    :attr:`credentials`; :meth:`environment` gives the same as AWS_* variables with the
    shared config and credentials files set to /dev/null, so no real profile is read.
    :meth:`reset` forgets all buckets (moto's ``/moto-api/reset``); :meth:`requests` lists the
    requests it logged (method, path, status), to count what a client asked for.
    """

    name = "moto server"
    region = "us-east-1"
    credentials = {"key": "testing", "secret": "testing"}
    _log_start = 0

    def _command(self, port: int) -> list[str]:
        return [sys.executable, "-m", "moto.server", "-H", HOST, "-p", str(port)]

    def _environment(self) -> dict[str, str]:
        return {**os.environ, **self.environment(endpoint=False)}

    def _is_ready(self, port: int) -> bool:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/moto-api/data.json", timeout=2) as answer:
                return answer.status == 200
        except OSError:
            return False

    @property
    def endpoint_url(self) -> str:
        return self.base_url

    def environment(self, endpoint: bool = True) -> dict[str, str]:
        """AWS_* variables for a client (or the server) that must only ever see this server."""
        env = {
            "AWS_ACCESS_KEY_ID": self.credentials["key"],
            "AWS_SECRET_ACCESS_KEY": self.credentials["secret"],
            "AWS_SESSION_TOKEN": "testing",
            "AWS_DEFAULT_REGION": self.region,
            "AWS_REGION": self.region,
            "AWS_CONFIG_FILE": os.devnull,
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
            "AWS_EC2_METADATA_DISABLED": "true",
        }
        if endpoint:
            env["AWS_ENDPOINT_URL"] = self.endpoint_url
        return env

    def storage_options(self) -> dict:
        """Keyword arguments of ``s3fs.S3FileSystem`` (or fsspec's ``storage_options``)."""
        return {
            **self.credentials,
            "client_kwargs": {"endpoint_url": self.endpoint_url, "region_name": self.region},
        }

    def client(self):
        """A boto3 S3 client of this server."""
        import boto3

        return boto3.session.Session(
            aws_access_key_id=self.credentials["key"],
            aws_secret_access_key=self.credentials["secret"],
            region_name=self.region,
        ).client("s3", endpoint_url=self.endpoint_url)

    def create_bucket(self, bucket: str) -> None:
        self.client().create_bucket(Bucket=bucket)

    def put_object(self, bucket: str, key: str, data: bytes) -> str:
        """Store ``data`` at ``bucket/key`` (the bucket is created if needed); return ``"bucket/key"``."""
        client = self.client()
        with contextlib.suppress(client.exceptions.BucketAlreadyOwnedByYou):
            client.create_bucket(Bucket=bucket)
        client.put_object(Bucket=bucket, Key=key, Body=data)
        return f"{bucket}/{key}"

    def reset(self) -> None:
        """Forget every bucket and object, and clear :meth:`requests`."""
        request = urllib.request.Request(f"{self.endpoint_url}/moto-api/reset", method="POST")
        with urllib.request.urlopen(request, timeout=10) as answer:
            answer.read()
        self.clear_log()

    def requests(self, at_least: int = 0, timeout: float = 5.0) -> list[S3Request]:
        """The S3 requests logged since :meth:`clear_log` (moto's own ``/moto-api/`` left out).

        moto logs a request after answering it: ``at_least`` waits up to ``timeout`` seconds
        for that many.
        """
        deadline = time.monotonic() + timeout
        while True:
            text = self.stderr_text()[self._log_start :]
            found = [
                S3Request(m["method"], m["path"], int(m["status"]))
                for m in _WERKZEUG_LINE.finditer(text)
                if not m["path"].startswith("/moto-api/")
            ]
            if len(found) >= at_least or time.monotonic() >= deadline:
                return found
            time.sleep(0.01)

    def clear_log(self) -> None:
        self._log_start = len(self.stderr_text())


def _accepts_connections(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.2):
            return True
    except OSError:
        return False


@atexit.register
def _stop_all() -> None:
    for server in list(_running):
        server.stop()
