"""Fetching byte ranges of one remote object, checked, and every failure as a message that names
the URL and the fix.

Rules
-----
- HTTP(S) ranges are requested on fsspec's own HTTP session (its configuration, headers and
  authentication apply) but read here, because fsspec's ``cat_file`` reads whatever the server
  sends into memory: a server that ignores ``Range`` would send the whole object, an endless
  response would never end. A range answer must be ``206`` with a ``Content-Range`` of exactly
  the bytes asked and the object's size at open, and exactly that many bytes are read; anything
  else is refused before its body is read: ``200`` (the server does not do range requests; an
  HTML page with ``200`` is said to be a web page, not the file), another size or ETag (the
  object changed since it was opened), fewer bytes (the connection dropped), a
  ``Content-Length`` other than the range (the server sends more or fewer bytes than asked).
  One ``200`` is taken: to a request for the whole object (one no larger than a cache block,
  such as a store's metadata document or chunk), an answer whose ``Content-Length`` is the
  object's size at open is exactly the bytes asked, from any server.
- Other protocols (S3, GCS, the Hub, any fsspec file system) fetch with the file system's own
  ``cat_file(path, start, end)``; the answer must hold exactly the bytes asked.
- Failures (:func:`remote_error`): not found (404), access denied (401/403, with where the
  credentials come from), too many requests / server errors (try again), timeouts, names that
  do not resolve and refused connections (check the URL and the network), a missing protocol
  package (the extra to install). Each is a :class:`~core.errors.SourceError` (``field="files"``)
  naming the URL with its credentials masked (:func:`core.text.names.printable_name`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

from core.errors import MissingObjectError, SourceError
from core.text.names import printable_name

__all__ = ["TIMEOUT_SECONDS", "ObjectInfo", "http_fetch", "object_info", "call_with_timeout", "remote_error", "system_fetch"]

#: Seconds without an answer (connecting, or between two parts of a response) before a request fails.
TIMEOUT_SECONDS = 30
#: Short HTTP ranges of one batch in flight at once (:func:`http_fetch`'s ``many``).
MANY_AT_ONCE = 16
#: Bytes per second below which a long HTTP range request counts as stuck (its time allowed is
#: :data:`TIMEOUT_SECONDS` plus its length at this rate).
RATE_FLOOR = 64 << 10

_CONTENT_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")


class ObjectInfo:
    """What a remote object was at open: size, ETag (or None), type, the URL answered after redirects."""

    def __init__(self, size: int, etag: str | None, mimetype: str | None, final_url: str | None,
                 modified: str | None) -> None:
        self.size = size
        self.etag = etag
        self.mimetype = mimetype
        self.final_url = final_url
        self.modified = modified


def object_info(fs, path: str, url: str) -> ObjectInfo:
    """The object's size and version, by the file system's ``info`` (HTTP: a ``HEAD``).

    Raises
    ------
    SourceError
        Not an object (a folder), no size known, or a failure (:func:`remote_error`).
    """
    try:
        info = call_with_timeout(fs, "info", path)
    except BaseException as error:
        raise remote_error(url, error, "opening") from None
    if info.get("type") == "directory":
        raise SourceError(f"{printable_name(url)} is a folder, not a file (open a file inside it, a glob "
                          "such as .../*.bin, or a Zarr store by its URL ending with /)", field="files")
    size = info.get("size")
    if not isinstance(size, int) or size < 0:
        raise SourceError(f"{printable_name(url)}: the server gives no size for it, so its bytes cannot be read "
                          "by range (download it and open the local copy)", field="files")
    etag = info.get("ETag") or info.get("etag") or info.get("md5Hash") or info.get("blob_id")
    modified = info.get("Last-Modified") or info.get("LastModified") or info.get("mtime") or info.get("updated")
    final_url = info.get("url") if isinstance(info.get("url"), str) else None
    return ObjectInfo(size, None if etag is None else str(etag), info.get("mimetype") or info.get("ContentType"),
                      final_url, None if modified is None else str(modified))


def call_with_timeout(fs, method: str, *args, nbytes: int = 0, **kwargs):
    """``fs.method(*args, **kwargs)``; an asynchronous file system's (HTTP, S3, GCS) within
    :data:`TIMEOUT_SECONDS` plus ``nbytes`` at :data:`RATE_FLOOR` (its own default waits minutes)."""
    if getattr(fs, "async_impl", False) and hasattr(fs, "_" + method):
        from fsspec.asyn import sync
        return sync(fs.loop, getattr(fs, "_" + method), *args, timeout=TIMEOUT_SECONDS + nbytes / RATE_FLOOR,
                    **kwargs)
    return getattr(fs, method)(*args, **kwargs)


def system_fetch(fs, path: str, url: str) -> Callable[[int, int], bytes]:
    """Ranges by the file system's ``cat_file`` (any protocol), checked for their length."""
    def fetch(start: int, stop: int) -> bytes:
        try:
            data = call_with_timeout(fs, "cat_file", path, start=start, end=stop, nbytes=stop - start)
        except BaseException as error:
            raise remote_error(url, error, f"reading bytes {start:,} to {stop:,}") from None
        if len(data) != stop - start:
            raise SourceError(f"{printable_name(url)}: asked for bytes {start:,} to {stop:,}, got {len(data):,} "
                              "bytes (the object changed or the connection dropped; reload it)", field="files")
        return bytes(data)
    return fetch


def http_fetch(fs, url: str, info: ObjectInfo) -> Callable[[int, int], bytes]:
    """Ranges of an HTTP(S) object on fsspec's session, checked as the module rules say."""
    import asyncio

    import aiohttp
    from fsspec.asyn import sync

    async def get(start: int, stop: int) -> bytes:
        session = await fs.set_session()
        options = dict(fs.kwargs)
        headers = dict(options.pop("headers", None) or {})
        headers["Range"] = f"bytes={start}-{stop - 1}"
        headers["Accept-Encoding"] = "identity"
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=TIMEOUT_SECONDS, sock_read=TIMEOUT_SECONDS)
        async with session.get(fs.encode_url(url), headers=headers, timeout=timeout, **options) as response:
            _check_answer(url, response, start, stop, info)
            try:
                return await response.content.readexactly(stop - start)
            except asyncio.IncompleteReadError as error:
                raise SourceError(
                    f"{printable_name(url)}: the connection ended after {len(error.partial):,} of the "
                    f"{stop - start:,} bytes asked (bytes {start:,} to {stop:,}); the server dropped it or sent "
                    "fewer bytes than it promised (try again, or reload)", field="files") from None

    def fetch(start: int, stop: int) -> bytes:
        try:
            return sync(fs.loop, get, start, stop, timeout=TIMEOUT_SECONDS + (stop - start) / RATE_FLOOR)
        except SourceError:
            raise
        except BaseException as error:
            raise remote_error(url, error, f"reading bytes {start:,} to {stop:,}") from None

    async def get_many(ranges: list[tuple[int, int]]) -> list:
        limit = asyncio.Semaphore(MANY_AT_ONCE)

        async def one(start: int, stop: int):
            async with limit:
                try:
                    return await get(start, stop)
                except BaseException as error:  # each range's own outcome
                    return error
        return await asyncio.gather(*(one(a, b) for a, b in ranges))

    def fetch_many(ranges: list[tuple[int, int]]) -> list:
        """Many short ranges as one batch on the session's event loop (:data:`MANY_AT_ONCE` in
        flight): per range its bytes, or the SourceError it failed with."""
        total = sum(b - a for a, b in ranges)
        try:
            answers = sync(fs.loop, get_many, ranges,
                           timeout=TIMEOUT_SECONDS * (1 + len(ranges) // MANY_AT_ONCE) + total / RATE_FLOOR)
        except BaseException as error:
            answers = [error] * len(ranges)
        return [a if isinstance(a, (bytes, SourceError)) else
                remote_error(url, a, f"reading bytes {r[0]:,} to {r[1]:,}") for a, r in zip(answers, ranges)]

    fetch.many = fetch_many
    return fetch


def _check_answer(url: str, response, start: int, stop: int, info: ObjectInfo) -> None:
    """Refuse an answer that is not exactly the range asked (module rules)."""
    name = printable_name(url)
    status = response.status
    if status == 416:
        raise SourceError(f"{name} changed since it was opened: bytes {start:,} to {stop:,} are no longer "
                          "inside it (reload it)", field="files")
    if status >= 400:
        raise _status_error(url, status, response.reason)
    kind = (response.headers.get("Content-Type") or "").partition(";")[0].strip().lower()
    if status != 206:
        length = response.headers.get("Content-Length")
        whole = (start, stop) == (0, info.size) and length is not None and length.strip() == str(info.size)
        if status == 200 and whole and kind not in ("text/html", "application/xhtml+xml"):
            return  # the whole object was asked (a small file in one block): a whole answer is it
        if kind in ("text/html", "application/xhtml+xml"):
            raise SourceError(f"{name} answered with a web page (HTTP {status}, {kind}) instead of the bytes "
                              "asked: the URL points to a page (a login, an error or a download page), not to "
                              "the file; check the URL (a file's raw or download link)", field="files")
        raise SourceError(f"{name}: the server does not support range requests (it answered HTTP {status} "
                          "with the whole object); download the file and open the local copy, or serve it "
                          "from a server that supports Range", field="files")
    match = _CONTENT_RANGE.fullmatch((response.headers.get("Content-Range") or "").strip())
    if match is None:
        raise SourceError(f"{name}: the server's partial answer has no valid Content-Range (bytes {start:,} to "
                          f"{stop:,} were asked); the server or a proxy on the way is broken", field="files")
    first, last, total = int(match[1]), int(match[2]), match[3]
    if (first, last) != (start, stop - 1):
        raise SourceError(f"{name}: asked for bytes {start:,} to {stop - 1:,}, the server answered bytes "
                          f"{first:,} to {last:,} (a Content-Range that disagrees with the request); the "
                          "server or a proxy on the way is broken", field="files")
    length = response.headers.get("Content-Length")
    if length is not None and length.strip().isdigit() and int(length) != stop - start:
        raise SourceError(f"{name}: asked for {stop - start:,} bytes, the server announces {int(length):,} "
                          "(it sends more or fewer bytes than asked); the server or a proxy on the way is "
                          "broken", field="files")
    if total != "*" and int(total) != info.size:
        raise SourceError(f"{name} changed since it was opened: it is now {int(total):,} bytes, was "
                          f"{info.size:,} (reload it)", field="files")
    etag = response.headers.get("ETag")
    if info.etag is not None and etag is not None and etag != info.etag:
        raise SourceError(f"{name} changed since it was opened (its ETag was {info.etag}, is {etag}); "
                          "reload it", field="files")


def _status_error(url: str, status: int, reason: str | None) -> SourceError:
    name = printable_name(url)
    said = f"HTTP {status}{' ' + reason if reason else ''}"
    if status == 404 or status == 410:
        return MissingObjectError(f"{name} was not found ({said}): check the URL", field="files")
    if status in (401, 403):
        return SourceError(f"{name}: access denied ({said}); give credentials the way the protocol's "
                           "file system reads them (its configuration file or environment variables), "
                           "never in the URL", field="files")
    if status == 429 or status >= 500:
        return SourceError(f"{name}: the server could not answer now ({said}); try again later", field="files")
    return SourceError(f"{name}: the server refused the request ({said})", field="files")


def remote_error(url: str, error: BaseException, doing: str) -> SourceError:
    """The message for a failure of a remote request (module rules)."""
    name = printable_name(url)
    if isinstance(error, SourceError):
        return error
    while isinstance(error, FileNotFoundError) and isinstance(error.__cause__, Exception):
        error = error.__cause__  # fsspec's HTTP info says "not found" for any failure: the cause says why
    status = getattr(error, "status", None) or getattr(error, "code", None)
    if isinstance(status, int) and 400 <= status < 600:
        return _status_error(url, status, getattr(error, "message", None) or None)
    response = getattr(error, "response", None)
    if isinstance(response, dict):  # botocore's ClientError
        code = str(response.get("Error", {}).get("Code", ""))
        http = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if code in ("NoSuchKey", "NoSuchBucket", "404", "NotFound"):
            return MissingObjectError(f"{name} was not found ({code}): check the bucket and key", field="files")
        if code in ("AccessDenied", "403", "InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken"):
            return SourceError(f"{name}: access denied ({code}); set the credentials the way the file system "
                               "reads them (e.g. AWS_ACCESS_KEY_ID / AWS_PROFILE, ~/.aws/credentials)",
                               field="files")
        if code in ("PreconditionFailed", "412"):
            return SourceError(f"{name} changed since it was opened (reload it)", field="files")
        if isinstance(http, int):
            return _status_error(url, http, code)
    if isinstance(error, FileNotFoundError):
        return MissingObjectError(f"{name} was not found: check the URL", field="files")
    if isinstance(error, PermissionError):
        return SourceError(f"{name}: access denied; set the credentials the way the protocol's file system "
                           "reads them (its configuration or environment), never in the URL", field="files")
    asyncio = sys.modules.get("asyncio")  # imported by the protocols that raise its errors
    if isinstance(error, TimeoutError) or (asyncio is not None and isinstance(error, asyncio.TimeoutError)) \
            or type(error).__name__ in (
            "FSTimeoutError", "ServerTimeoutError", "ReadTimeoutError", "ConnectTimeoutError"):
        return SourceError(f"{name}: no answer within {TIMEOUT_SECONDS} s while {doing}; check the network "
                           "and the server, then try again", field="files")
    text = str(error)
    kind = type(error).__name__
    if kind in ("ClientConnectorDNSError", "gaierror") or "Name or service not known" in text \
            or "nodename nor servname" in text or "Temporary failure in name resolution" in text:
        return SourceError(f"{name}: the host name does not resolve (DNS); check the URL's host and the "
                           "network", field="files")
    if kind in ("ClientConnectorError", "ConnectionRefusedError", "EndpointConnectionError", "ConnectionError",
                "ClientOSError") or "Connection refused" in text or "Cannot connect" in text:
        return SourceError(f"{name}: cannot connect to the server while {doing} ({_short(text)}); check the "
                           "URL and that the server is up", field="files")
    if kind in ("ServerDisconnectedError", "ClientPayloadError", "IncompleteReadError", "ConnectionResetError",
                "ProtocolError", "ResponseStreamingError", "RemoteProtocolError"):
        return SourceError(f"{name}: the connection dropped while {doing}; try again (the view shown is the "
                           "last good one)", field="files")
    if isinstance(error, ImportError):
        return SourceError(f"{name}: {_short(text)}", field="files")
    return SourceError(f"{name}: {doing} failed ({kind}: {_short(text)})", field="files")


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(printable_name(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"
