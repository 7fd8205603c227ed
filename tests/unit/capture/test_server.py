"""The loopback capture server, driven by real HTTP clients from the standard library."""

from __future__ import annotations

import http.client
import json
import socket
import urllib.error
import urllib.request

import pytest

from harness._pipeline.capture import REMOVED, CaptureServer, Request


def _echo(status: int = 200) -> object:
    def answer(request: Request) -> tuple[int, bytes, str | None, str | None]:
        return status, json.dumps({"saw": request.path}).encode(), None, None
    return answer


def test_a_request_is_recorded_exactly_and_answered() -> None:
    body = b'{"b": 1,  "a": [1.0, 2]}'  # odd spacing and key order: the bytes as sent, not re-encoded
    with CaptureServer(_echo()) as server:  # type: ignore[arg-type]
        req = urllib.request.Request(f"{server.url}/v1/messages?beta=true&q=a+b%20c", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as got:
            assert json.loads(got.read()) == {"saw": "/v1/messages"}
        [exchange] = server.take()
    assert (exchange.request.method, exchange.request.path, exchange.request.query) == ("POST", "/v1/messages",
                                                                                         "beta=true&q=a+b%20c")
    assert exchange.request.body == body and exchange.status == 200
    assert server.take() == []


def test_credentials_never_reach_the_record_in_headers_or_query() -> None:
    secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"
    with CaptureServer(_echo()) as server:  # type: ignore[arg-type]
        req = urllib.request.Request(f"{server.url}/v1beta/models/m:generateContent?key={secret}&alt=sse",
                                     data=b"{}", method="POST",
                                     headers={"x-api-key": secret, "Authorization": f"Bearer {secret}",
                                              "anthropic-version": "2023-06-01"})
        urllib.request.urlopen(req, timeout=10).read()
        [exchange] = server.take()
    record = json.dumps(exchange.as_dict())
    assert secret not in record
    headers = dict(exchange.request.headers)
    assert headers["X-Api-Key"] == REMOVED and headers["Authorization"] == REMOVED
    assert headers["Anthropic-Version"] == "2023-06-01"
    assert exchange.request.query == "key=[removed]&alt=sse"


def test_a_chunked_body_is_recorded_whole() -> None:
    with CaptureServer(_echo()) as server:  # type: ignore[arg-type]
        host, port = server.url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.request("POST", "/chunks", body=iter([b"{\"a\":", b" 1}"]), headers={"Transfer-Encoding": "chunked"},
                     encode_chunked=True)
        assert conn.getresponse().status == 200
        conn.close()
        [exchange] = server.take()
    assert exchange.request.body == b'{"a": 1}'


def test_a_rejection_answer_reaches_the_client_with_its_status_and_body() -> None:
    with CaptureServer(_echo(400)) as server:  # type: ignore[arg-type]
        req = urllib.request.Request(f"{server.url}/x", data=b"{}", method="POST")
        try:
            urllib.request.urlopen(req, timeout=10)
            raise AssertionError("a 400 must raise HTTPError")
        except urllib.error.HTTPError as exc:
            assert exc.code == 400 and json.loads(exc.read()) == {"saw": "/x"}


def test_an_answer_that_raises_is_a_500_and_is_still_recorded() -> None:
    def broken(request: Request) -> tuple[int, bytes, str | None, str | None]:
        raise KeyError("boom")

    with CaptureServer(broken) as server:
        try:
            urllib.request.urlopen(urllib.request.Request(f"{server.url}/x", data=b"{}"), timeout=10)
        except urllib.error.HTTPError as exc:
            assert exc.code == 500
        assert [e.status for e in server.take()] == [500]


def _raw(server: CaptureServer, data: bytes, hang_up: bool = False) -> bytes:
    """``data`` sent as is on one connection (then no more: ``hang_up``); everything the server
    answers before closing it."""
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(data)
        if hang_up:
            conn.shutdown(socket.SHUT_WR)
        got = b""
        while chunk := conn.recv(65536):
            got += chunk
    return got


def test_a_chunk_or_content_length_past_the_cap_is_refused_before_reading_and_named(
        capfd: pytest.CaptureFixture[str]) -> None:
    with CaptureServer(_echo()) as server:  # type: ignore[arg-type]
        chunked = _raw(server, b"POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                               b"10000000000\r\nabc")  # a 1 TiB chunk announced, three bytes sent
        sized = _raw(server, b"POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999\r\n\r\n{}")
        [first, second] = server.take()
    assert chunked.startswith(b"HTTP/1.1 413 ") and b"a chunked body over 67108864 bytes" in chunked
    assert sized.startswith(b"HTTP/1.1 413 ") and b"a body of 99999999999 bytes" in sized
    assert first.status == 413 and first.refused and first.request.body == b""
    assert second.refused == "a body of 99999999999 bytes, over 67108864"
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize(("head", "named"), [
    (b"Content-Length: -5", b"a Content-Length that is not a byte count: '-5'"),
    (b"Content-Length: lots", b"not a byte count: 'lots'"),
    (b"Transfer-Encoding: chunked\r\n\r\nzz", b"a chunk size that is not hexadecimal: b'zz'"),
    *((b"Transfer-Encoding: chunked\r\n\r\n" + size, b"a chunk size that is not hexadecimal: " + repr(size).encode())
      for size in (b"+a", b"1_0", b"0x10", b"-1")),  # what int(_, 16) would have taken
    (b"Transfer-Encoding: chunked\r\n\r\n" + b"1" * 5000, b"a chunk line longer than 4096 bytes"),
])
def test_a_body_length_that_is_no_byte_count_is_a_400_and_never_a_traceback(
        head: bytes, named: bytes, capfd: pytest.CaptureFixture[str]) -> None:
    with CaptureServer(_echo()) as server:  # type: ignore[arg-type]
        got = _raw(server, b"POST /x HTTP/1.1\r\nHost: h\r\n" + head + b"\r\n\r\n")
    assert got.startswith(b"HTTP/1.1 400 ") and named in got, got[:300]
    assert "Traceback" not in capfd.readouterr().err


def test_a_client_that_hangs_up_mid_body_is_refused_not_recorded_as_a_short_body(
        capfd: pytest.CaptureFixture[str]) -> None:
    with CaptureServer(_echo()) as server:  # type: ignore[arg-type]
        _raw(server, b"POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n{", hang_up=True)
        [exchange] = server.take()
    assert exchange.refused == "the client sent 1 of the 100 bytes it announced"
    assert capfd.readouterr().err == ""


def test_a_refused_request_is_the_calls_outcome_naming_why() -> None:
    from harness._pipeline.capture.pipeline import observed
    from harness._pipeline.capture.server import Exchange

    class Place:
        case_id, lane_id, side, start = "c", "l", "new", 0.0

        def outcome(self, kind: str, etype: str, message: str) -> tuple[str, str, str]:
            return kind, etype, message

    request = Request("POST", "/x", "", (), b"")
    got = observed([Exchange(request, 413, b"", refused="a body of 9 bytes, over 8")], "body", Place(), "")  # type: ignore[arg-type]
    assert got == ("error", "RequestRefused", "the capture server refused the request: a body of 9 bytes, over 8")
