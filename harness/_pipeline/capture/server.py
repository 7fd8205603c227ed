"""A loopback capture server: a real HTTP server on 127.0.0.1 that records each request exactly
(method, path, query, body bytes; headers with credentials removed) and answers it.

    with CaptureServer(answer) as server:      # answer(request) -> (status, body bytes, rule or None)
        run_client(base_url=server.url)
        server.exchanges[0].body               # the bytes the client sent

Stdlib ``http.server`` in a daemon thread, HTTP/1.1 with keep-alive (SDK clients pool their
connections), ``Content-Length`` and chunked request bodies. Credentials never reach a record:
a header whose name says it carries one keeps its name with the value ``[removed]``, and so does
a query parameter such as Gemini's ``key=``.
"""

from __future__ import annotations

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

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            out = bytearray()
            while len(out) <= MAX_BODY:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                out += self.rfile.read(size)
                self.rfile.readline()
            return bytes(out)
        length = min(int(self.headers.get("Content-Length") or 0), MAX_BODY)
        return self.rfile.read(length) if length else b""

    def _handle(self) -> None:
        url = urlsplit(self.path)
        request = Request(self.command, url.path, scrub_query(url.query),
                          scrub_headers(list(self.headers.items())), self._body())
        try:
            status, body, rule, receipt = self.server.capture.answer(request)
        except Exception as exc:  # an answer that raises is the harness's bug: the client sees a 500
            status, body, rule, receipt = 500, f'{{"harness_error": "{type(exc).__name__}"}}'.encode(), None, None
        self.server.capture.record(Exchange(request, status, body, rule, receipt))
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    capture: CaptureServer


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
