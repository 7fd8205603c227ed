"""`harness probe` end to end against a real HTTP server on 127.0.0.1 playing a provider.

The fake key set in the environment must be absent from every byte written; a response that
echoes it makes the persister refuse the cassette; drift is exit 5; redirects are not followed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from harness.cli.main import cli
from tests.unit.reject.scenario import MESSAGE, write_scenario

pytestmark = pytest.mark.slow

FAKE_KEY = "sk-ant-api03-FAKEFAKEFAKE0123456789abcdefghijklmnopqrstuv"


class Provider(BaseHTTPRequestHandler):
    """Plays the Anthropic Messages endpoint; ``mode`` on the server picks its behaviour."""

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        mode = self.server.mode  # type: ignore[attr-defined]
        self.server.seen.append({"path": self.path, "key": self.headers.get("x-api-key"), "body": body})  # type: ignore[attr-defined]
        if mode == "redirect":
            self._reply(302, {"moved": True}, [("Location", "http://evil.invalid/steal")])
            return
        if any(t.get("name") == "forbidden" for t in body.get("tools", [])):
            self._reply(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                         "message": "tools.0.custom.name: reserved"}})
            return
        composed = any("anyOf" in t.get("input_schema", {}) for t in body.get("tools", []))
        if mode == "accepts" or not composed:
            self._reply(200, {"type": "message", "content": []})
            return
        text = MESSAGE if mode == "same" else "tools.1.custom.input_schema: a different wording now"
        if mode == "echo":
            text = f"{MESSAGE} (your key was {self.headers.get('x-api-key')})"
        self._reply(400, {"type": "error", "error": {"type": "invalid_request_error", "message": text}},
                    [("set-cookie", "session=abc123def456ghi789"), ("request-id", "req_0123")])

    def _reply(self, status: int, payload: Any, headers: list[tuple[str, str]] = ()) -> None:  # type: ignore[assignment]
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def provider() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Provider)
    server.mode = "same"  # type: ignore[attr-defined]
    server.seen = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _suite(tmp_path: Path, server: ThreadingHTTPServer) -> Path:
    suite = write_scenario(tmp_path)
    host, port = server.server_address[:2]
    (suite / "lanes.yaml").write_text(
        "version: 1\nlanes:\n  - id: loop\n    wire: anthropic-messages\n    provider: anthropic\n"
        f"    base_url: http://{host}:{port}\n    model: claude-test\n    fronts: [anthropic]\n")
    return suite


def _probe(suite: Path, out: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> Any:
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    return CliRunner().invoke(cli, ["probe", "--lane", "loop", "--suite", str(suite), "--out", str(out), *extra],
                              standalone_mode=False)


def _written(out: Path) -> list[Path]:
    return [p for p in out.rglob("*") if p.is_file()]


def test_a_probe_that_still_sees_the_rejection_holds_and_writes_no_key(
        tmp_path: Path, provider: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "scratch"
    result = _probe(_suite(tmp_path, provider), out, monkeypatch)
    assert result.return_value == 0, result.output
    assert "1 holds" in result.output
    assert provider.seen[0]["key"] == FAKE_KEY  # the key did reach the provider...
    assert provider.seen[0]["body"]["model"] == "claude-test"
    files = _written(out)
    assert {p.name for p in files} == {"loop.yaml", "manifest.yaml", "probe-report.json"}
    for path in files:  # ...and no byte written holds it, nor the cookie the provider set
        data = path.read_bytes()
        assert FAKE_KEY.encode() not in data and b"abc123def456" not in data
    cassette = (out / "loop.yaml").read_text()
    assert "x-api-key" not in cassette.lower() and "set-cookie" not in cassette.lower()
    manifest = (out / "manifest.yaml").read_text()
    assert "kind: recorded" in manifest and "model: claude-test" in manifest


def test_a_rule_that_now_passes_is_drift_exit_5(
        tmp_path: Path, provider: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    provider.mode = "accepts"  # type: ignore[attr-defined]
    result = _probe(_suite(tmp_path, provider), tmp_path / "scratch", monkeypatch)
    assert result.return_value == 5
    assert "passes-now" in result.output


def test_a_changed_message_is_drift_exit_5(
        tmp_path: Path, provider: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    provider.mode = "changed"  # type: ignore[attr-defined]
    result = _probe(_suite(tmp_path, provider), tmp_path / "scratch", monkeypatch)
    assert result.return_value == 5
    assert "message-changed" in result.output


def test_a_new_body_no_rule_covers_that_is_refused_is_a_new_rejection(
        tmp_path: Path, provider: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    bodies = tmp_path / "bodies.jsonl"
    novel = {"model": "m", "tools": [{"name": "forbidden", "input_schema": {"type": "object"}}]}
    known = {"model": "m", "tools": [{"name": "k", "input_schema": {"type": "object", "anyOf": []}}]}
    bodies.write_text(json.dumps({"body": novel}) + "\n" + json.dumps(known) + "\n")
    result = _probe(_suite(tmp_path, provider), tmp_path / "scratch", monkeypatch, "--bodies", str(bodies))
    assert result.return_value == 5
    assert "new-rejection: new-1 (no rule) status 400" in result.output
    assert len(provider.seen) == 2  # the recorded body and the novel one; the covered one is not re-sent


def test_a_response_echoing_the_key_is_refused_and_nothing_is_written(
        tmp_path: Path, provider: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    provider.mode = "echo"  # type: ignore[attr-defined]
    out = tmp_path / "scratch"
    result = _probe(_suite(tmp_path, provider), out, monkeypatch)
    assert result.return_value == 2 and "refused to write" in result.output
    assert FAKE_KEY not in result.output
    for path in _written(out) if out.exists() else []:
        assert FAKE_KEY.encode() not in path.read_bytes()
    assert not (out / "loop.yaml").exists()


def test_a_redirect_is_not_followed(
        tmp_path: Path, provider: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    provider.mode = "redirect"  # type: ignore[attr-defined]
    result = _probe(_suite(tmp_path, provider), tmp_path / "scratch", monkeypatch)
    assert "redirect 302 not followed" in result.output
    assert len(provider.seen) == 1


def test_without_the_key_in_the_environment_the_probe_refuses_to_start(
        tmp_path: Path, provider: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = CliRunner().invoke(cli, ["probe", "--lane", "loop", "--suite", str(_suite(tmp_path, provider)),
                                      "--out", str(tmp_path / "o")], standalone_mode=False)
    assert result.return_value == 2 or "ANTHROPIC_API_KEY" in str(result.exception)
    assert provider.seen == []


def test_from_run_probes_the_new_bodies_of_a_run_that_no_rule_covers(
        tmp_path: Path, provider: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    suite = _suite(tmp_path, provider)
    (suite / "probe.cases.yaml").write_text(
        "version: 1\nsubject: anthropic_messages\ncases:\n"
        "  - id: reserved-name\n    tools:\n      - name: forbidden\n        description: d\n"
        "        input_schema: {type: object, properties: {}}\n")
    result = _probe(suite, tmp_path / "scratch", monkeypatch, "--from-run")
    assert result.return_value == 5, result.output
    assert "new-rejection" in result.output
    assert [s["body"]["tools"][0]["name"] for s in provider.seen][-1] == "forbidden"
