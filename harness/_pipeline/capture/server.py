"""A loopback capture server: a real HTTP server on 127.0.0.1 that records each request exactly
(method, path, query, body bytes; headers with credentials removed) and answers it.

    with CaptureServer(answer) as server:      # answer(request) -> (status, body bytes, rule or None)
        run_client(base_url=server.url)
        server.exchanges[0].body               # the bytes the client sent

Stdlib ``http.server`` in a daemon thread, HTTP/1.1 with keep-alive (SDK clients pool their
connections), ``Content-Length`` and chunked request bodies. Credentials never reach a record:
a header whose name says it carries one keeps its name with the value ``[removed]``, and so does
a query parameter such as Gemini's ``key=``.

The client under test is not trusted: a body over ``MAX_BODY`` (by its Content-Length or its chunk
sizes, found before reading), a Content-Length or chunk size that is not a byte count, or a chunk
line past ``_MAX_LINE`` is answered 413 or 400 and the connection closed; the exchange is recorded
with ``refused`` saying why, so the call's outcome names it. Nothing a client sends prints a
traceback (``handle_error`` is quiet: a client that hangs up mid-request is no harness error).
"""

from __future__ import annotations

import dataclasses
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote_plus, urlsplit

__all__ = ["REMOVED", "Answer", "CaptureServer", "Exchange", "Request", "scrub_headers", "scrub_query"]

REMOVED = "[removed]"
_SECRET_NAME = re.compile(r"auth|key|token|secret|cookie|session|password|signature|credential", re.I)
MAX_BODY = 64 << 20
_MAX_LINE = 4096  # a chunk-size line (with extensions) or a trailer line
_CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,16}")  # a chunk size as HTTP/1.1 writes it: hex digits only


class _Refused(Exception):
    """A request body the server will not read: its HTTP status and why."""

    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status, self.why = status, why


@dataclass(frozen=True)
class Request:
    """One request as the client sent it (credentials removed from headers and query)."""

    method: str
    path: str
    query: str
    headers: tuple[tuple[str, str], ...]
    body: bytes


@dataclass(frozen=True)
class Exchange:
    """A request and the answer it got (``rule``: the rejection rule the answer replays, if any)."""

    request: Request
    status: int
    answer: bytes
    rule: str | None = None
    receipt: str | None = None
    refused: str | None = None  # why the body was not read (too big, not a byte count): no body to observe

    def as_dict(self) -> dict[str, Any]:
        req = self.request
        return {"method": req.method, "path": req.path, "query": req.query, "headers": dict(req.headers),
                "body": req.body.decode("utf-8", "replace"), "status": self.status, "rule": self.rule,
                "receipt": self.receipt}


Answer = Callable[[Request], tuple[int, bytes, str | None, str | None]]
"""(status, body, rule id or None, receipt id or None) for a request."""


def scrub_headers(headers: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple((k, REMOVED if _SECRET_NAME.search(k) else v) for k, v in headers)


def scrub_query(query: str) -> str:
    """The query as sent, but the value of a parameter whose name says it is a credential."""
    parts = []
    for part in query.split("&") if query else []:
        name, eq, _value = part.partition("=")
        parts.append(f"{name}={REMOVED}" if eq and _SECRET_NAME.search(unquote_plus(name)) else part)
    return "&".join(parts)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the record is the log."""

    def _line(self) -> bytes:
        line = self.rfile.readline(_MAX_LINE + 1)
        if len(line) > _MAX_LINE:
            raise _Refused(400, f"a chunk line longer than {_MAX_LINE} bytes")
        return line

    def _chunked(self) -> bytes:
        out = bytearray()
        while True:
            text = self._line().split(b";")[0].strip() or b"0"
            if not _CHUNK_SIZE.fullmatch(text):  # int(_, 16) takes "+a", "1_0", "0x10" and "-1" too
                raise _Refused(400, f"a chunk size that is not hexadecimal: {text[:40]!r}")
            size = int(text, 16)
            if len(out) + size > MAX_BODY:
                raise _Refused(413, f"a chunked body over {MAX_BODY} bytes (a chunk of {size})")
            if size == 0:
                while self._line() not in (b"\r\n", b"\n", b""):
                    pass
                return bytes(out)
            chunk = self.rfile.read(size)
            if len(chunk) < size:
                raise _Refused(400, f"the client sent {len(chunk)} of a {size}-byte chunk")
            out += chunk
            self._line()

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._chunked()
        given = (self.headers.get("Content-Length") or "0").strip()
        if not given.isdigit() or not given.isascii():
            raise _Refused(400, f"a Content-Length that is not a byte count: {given[:40]!r}")
        length = int(given)
        if length > MAX_BODY:
            raise _Refused(413, f"a body of {length} bytes, over {MAX_BODY}")
        body = self.rfile.read(length) if length else b""
        if len(body) < length:
            raise _Refused(400, f"the client sent {len(body)} of the {length} bytes it announced")
        return body

    def _handle(self) -> None:
        url = urlsplit(self.path)
        request = Request(self.command, url.path, scrub_query(url.query), scrub_headers(list(self.headers.items())),
                          b"")
        try:
            request = dataclasses.replace(request, body=self._body())
        except _Refused as exc:  # answered, recorded, and the connection closed: the rest is not a request
            self.close_connection = True
            body = json.dumps({"harness_error": exc.why}).encode()
            self.server.capture.record(Exchange(request, exc.status, body, refused=exc.why))
            self._send(exc.status, body)
            return
        try:
            status, body, rule, receipt = self.server.capture.answer(request)
        except Exception as exc:  # an answer that raises is the harness's bug: the client sees a 500
            status, body, rule, receipt = 500, f'{{"harness_error": "{type(exc).__name__}"}}'.encode(), None, None
        self.server.capture.record(Exchange(request, status, body, rule, receipt))
        self._send(status, body)

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    capture: CaptureServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet: socketserver would print a traceback for a client that hung up or sent garbage."""


@dataclass
class CaptureServer:
    """The server, started on a free loopback port; ``answer`` may be replaced between calls."""

    answer: Answer
    exchanges: list[Exchange] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._http = _Server(("127.0.0.1", 0), _Handler)
        self._http.capture = self
        self._thread = threading.Thread(target=self._http.serve_forever, name="capture-server", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    def record(self, exchange: Exchange) -> None:
        with self._lock:
            self.exchanges.append(exchange)

    def take(self) -> list[Exchange]:
        """The exchanges so far, forgetting them (one pipeline call's worth)."""
        with self._lock:
            out, self.exchanges = self.exchanges, []
        return out

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> CaptureServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
