"""The loopback capture server, driven by real HTTP clients from the standard library."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request

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
