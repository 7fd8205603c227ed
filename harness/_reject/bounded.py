"""Answers bounded in time and size, for the live probe.

httpx's timeouts bound each socket operation, not a request: a server that drips one byte
every half second never trips a one-second read timeout. vcrpy reads a whole answer inside the
transport before the client sees any of it, and decompresses it whole when recording. So the
bounds sit below both, on the connection pool's byte stream:

- ``deadline(seconds)``: an interval timer (main thread only; elsewhere the stream's own
  clock checks below still bound a dripping body) that raises ``AnswerRefused`` wherever the
  request is, connect and headers included;
- ``bounded_transport(...)``: an ``httpx.HTTPTransport`` whose answers are cut off past
  ``max_bytes`` as sent and past ``max_bytes`` once gzip/deflate is undone (a 1 MB gzip bomb
  is refused after a few MB of output, never held whole), and past the deadline between chunks.
"""

from __future__ import annotations

import signal
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import ssl

    import httpx

__all__ = ["MAX_ANSWER_BYTES", "WBITS", "AnswerRefused", "bounded_transport", "deadline", "tls_context"]

MAX_ANSWER_BYTES = 4 * 1024 * 1024  # a provider's error answer is a few KB; a completion well under this


class AnswerRefused(Exception):
    """An answer that took too long or grew too big; the message says which and the bound."""


@contextmanager
def deadline(seconds: float, what: str) -> Iterator[None]:
    """Raise AnswerRefused inside the block once ``seconds`` have passed (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(_signum: int, _frame: FrameType | None) -> None:
        raise AnswerRefused(f"{what}: no complete answer within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# zlib's window setting for each Content-Encoding it can undo (16 + : with a gzip header)
WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


class _Counted:
    """The raw byte stream of one answer, counted as sent and as decoded, and timed."""

    def __init__(self, stream: Any, encoding: str, max_bytes: int, seconds: float) -> None:
        self._stream = stream
        self._max = max_bytes
        self._until = time.monotonic() + seconds
        self._seconds = seconds
        self._raw = 0
        self._decoded = 0
        self._inflate = zlib.decompressobj(WBITS[encoding]) if encoding in WBITS else None

    def _count_decoded(self, chunk: bytes) -> None:
        if self._inflate is None:
            self._decoded += len(chunk)
            return
        data = self._inflate.unconsumed_tail + chunk
        while data:
            try:
                # at most one byte past the bound is inflated at a time: a bomb never unfolds
                piece = self._inflate.decompress(data, self._max - self._decoded + 1)
            except zlib.error:
                return  # not what it claims to be: httpx reports the decoding error itself
            self._decoded += len(piece)
            if self._decoded > self._max:
                raise AnswerRefused(f"an answer over {self._max:,} bytes once decompressed (refused, not read)")
            data = self._inflate.unconsumed_tail
            if not piece:
                return

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._stream:
            self._raw += len(chunk)
            if self._raw > self._max:
                raise AnswerRefused(f"an answer over {self._max:,} bytes (refused, not read further)")
            if time.monotonic() > self._until:
                raise AnswerRefused(f"no complete answer within {self._seconds:g} s")
            self._count_decoded(chunk)
            yield chunk

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if close is not None:
            close()


class _BoundedPool:
    """The connection pool, each answer's stream wrapped in ``_Counted``."""

    def __init__(self, pool: Any, max_bytes: int, seconds: float) -> None:
        self._pool = pool
        self._max = max_bytes
        self._seconds = seconds

    def handle_request(self, request: Any) -> Any:
        response = self._pool.handle_request(request)
        encoding = _content_encoding(response.headers)
        length = next((v for n, v in response.headers if n.lower() == b"content-length"), b"")
        if length.strip().isdigit() and int(length) > self._max:
            response.close()
            raise AnswerRefused(f"an answer of {int(length):,} bytes, over the {self._max:,} allowed (not read)")
        response.stream = _Counted(response.stream, encoding, self._max, self._seconds)
        return response

    def close(self) -> None:
        self._pool.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)


def _content_encoding(headers: Any) -> str:
    """The last Content-Encoding of raw (name, value) headers, lowercased; "" for none."""
    encoding = ""
    for name, value in headers:
        if name.lower() == b"content-encoding":
            encoding = value.decode("latin-1").strip().lower()
    return encoding


@cache
def tls_context() -> ssl.SSLContext:
    """httpx's own default TLS context (certifi's roots; SSL_CERT_FILE and SSL_CERT_DIR as they
    are at the first call), built once per process: each build loads the CA bundle, about 25 ms
    of CPU, and ``rejection_replay`` (harness._reject.replay) makes a client per body."""
    import httpx

    return httpx.create_ssl_context()


def bounded_transport(max_bytes: int, seconds: float) -> httpx.HTTPTransport:
    """An HTTP transport whose answers stop at ``max_bytes`` (sent and decoded) and ``seconds``."""
    import httpx  # here: a run that probes nothing (it reads WBITS) never imports httpx (0.1 CPU s)

    transport = httpx.HTTPTransport(verify=tls_context())
    transport._pool = _BoundedPool(transport._pool, max_bytes, seconds)  # type: ignore[assignment]
    return transport
