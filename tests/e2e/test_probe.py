"""``harness probe`` end to end against a real loopback server: holds, drift, and a refused leak."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from tests.e2e.inproc import harness_main
from tests.unit.reject.scenario import MESSAGE, write_suite

pytestmark = pytest.mark.slow

FAKE_KEY = "sk-ant-api03-" + "LOOPBACKxFAKEx" * 4  # a key's shape, never a real key
REPO = Path(__file__).resolve().parents[2]


class Provider(BaseHTTPRequestHandler):
    """A stand-in provider: ``mode`` says whether it still refuses, accepts, or echoes the key."""

    mode = "holds"
    seen: ClassVar[list[str]] = []  # the paths of the requests that arrived, and their Authorization

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        Provider.seen.append(f"{self.path} {self.headers.get('authorization', '')}")
        key = self.headers.get("x-api-key", "")
        if self.mode == "redirect":  # a 307 to a path on the same host: the probe must not follow it
            self.send_response(307)
            self.send_header("location", "/elsewhere")
            self.send_header("content-length", "0")
            self.end_headers()
            return
        status, message = {"holds": (400, MESSAGE), "passes": (200, ""),
                           "echo": (401, f"invalid x-api-key: {key}"),
                           "fails": (500, "internal server error")}[self.mode]
        body = json.dumps({"type": "error", "error": {"type": "invalid_request_error", "message": message}}
                          if status >= 400 else {"id": "msg_1", "content": []}).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


class QuietServer(ThreadingHTTPServer):
    """The probe runs in this process (``harness_main``) and cuts hostile answers off on purpose:
    the server thread's report of a dropped connection would land in the command's stderr."""

    def handle_error(self, request: object, client_address: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[ThreadingHTTPServer]:
    httpd = QuietServer(("127.0.0.1", 0), Provider)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def probe(tmp_path: Path, server: ThreadingHTTPServer, mode: str, userinfo: str = "",
          port: int | None = None, fronts: tuple[str, ...] = ("anthropic",),
          ) -> tuple[subprocess.CompletedProcess[str], Path]:
    Provider.mode = mode
    Provider.seen = []
    lane = {"id": "loop", "title": "loopback claude", "wire": "anthropic-messages", "provider": "anthropic",
            "base_url": f"http://{userinfo}127.0.0.1:{port or server.server_address[1]}/v1", "model": "claude-x",
            "fronts": list(fronts)}
    suite = write_suite(tmp_path, None, lanes=[lane])
    out = tmp_path / "probe-out"
    got = harness_main("probe", "--lane", "loop", "--suite", str(suite), "--out", str(out),
                       "--key-env", "HARNESS_TEST_PROBE_KEY", cwd=REPO, env={"HARNESS_TEST_PROBE_KEY": FAKE_KEY})
    return got, out


def test_a_rejection_that_still_holds_is_recorded_without_the_key_and_exits_0(
        tmp_path: Path, server: ThreadingHTTPServer) -> None:
    got, out = probe(tmp_path, server, "holds")
    assert got.returncode == 0, got.stderr
    assert "1 holds" in got.stdout
    cassette = (out / "loop.yaml").read_text()
    assert "input_schema does not support" in cassette and FAKE_KEY not in cassette
    report = json.loads((out / "probe-report.json").read_text())
    assert report["drift"] == 0 and report["items"][0]["rule"] == "demo.root-composition"


def test_a_rejection_the_provider_now_accepts_is_drift_and_exits_5(
        tmp_path: Path, server: ThreadingHTTPServer) -> None:
    got, out = probe(tmp_path, server, "passes")
    assert got.returncode == 5, got.stderr
    assert "passes-now: D1 (demo.root-composition) status 200" in got.stdout
    assert json.loads((out / "probe-report.json").read_text())["drift"] == 1


def test_a_provider_echoing_the_key_is_compared_not_recorded_and_the_rest_of_the_result_is_kept(
        tmp_path: Path, server: ThreadingHTTPServer) -> None:
    got, out = probe(tmp_path, server, "echo")
    assert got.returncode == 5, (got.stdout, got.stderr)  # the echoed message no longer matches: drift
    assert "not recorded: the answer held anthropic-key" in got.stdout
    assert FAKE_KEY not in got.stderr + got.stdout and "LOOPBACKxFAKE" not in got.stdout + got.stderr
    report = json.loads((out / "probe-report.json").read_text())
    assert [(i["outcome"], i["status"]) for i in report["items"]] == [("message-changed", 401)]
    assert report["not_recorded"] == 1
    for written in out.rglob("*"):
        if written.is_file():
            assert b"LOOPBACKxFAKE" not in written.read_bytes(), written


def test_a_lane_url_with_credentials_is_refused_before_anything_is_sent_and_never_echoed(
        tmp_path: Path, server: ThreadingHTTPServer) -> None:
    got, out = probe(tmp_path, server, "holds", userinfo="bob:pw-LOOPBACKxPASS@")
    assert got.returncode == 2, (got.stdout, got.stderr)
    assert "lanes[loop].base_url" in got.stderr and "user:password@" in got.stderr
    assert "pw-LOOPBACKxPASS" not in got.stdout + got.stderr and "bob:" not in got.stdout + got.stderr
    assert Provider.seen == []
    written = [p for p in out.rglob("*") if p.is_file()] if out.exists() else []
    assert written == []


def test_the_probe_sends_to_the_lane_host_at_its_path_and_names_only_host_and_port(
        tmp_path: Path, server: ThreadingHTTPServer) -> None:
    got, out = probe(tmp_path, server, "holds")
    assert got.returncode == 0, got.stderr
    assert [seen.split()[0] for seen in Provider.seen] == ["/v1/messages"]
    manifest = (out / "manifest.yaml").read_text()
    assert f"host: 127.0.0.1:{server.server_address[1]}\n" in manifest


def _closed_port() -> int:
    """A loopback port nothing listens on: bound, then released."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.mark.parametrize(("mode", "why"), [("down", "ConnectError"), ("fails", "server error 500"),
                                           ("redirect", "redirect 307 not followed")])
def test_a_probe_that_got_no_answer_to_compare_could_not_check_and_exits_5_not_0(
        tmp_path: Path, server: ThreadingHTTPServer, mode: str, why: str) -> None:
    got, out = probe(tmp_path, server, mode, port=_closed_port() if mode == "down" else None)
    assert got.returncode == 5, (got.stdout, got.stderr)
    assert f"could not check: D1 (demo.root-composition): {why}" in got.stdout
    assert "could not check: 1 of 1 request(s)" in got.stdout
    assert "drift:" not in got.stdout and "passes-now" not in got.stdout
    report = json.loads((out / "probe-report.json").read_text())
    assert report["drift"] == 0 and report["could_not_check"] == 1
    if mode == "redirect":
        assert [seen.split()[0] for seen in Provider.seen] == ["/v1/messages"]


def test_a_lane_with_nothing_to_probe_says_so_and_exits_5(tmp_path: Path, server: ThreadingHTTPServer) -> None:
    got, _ = probe(tmp_path, server, "holds", fronts=("gemini",))
    assert got.returncode == 5, (got.stdout, got.stderr)
    assert "could not check: nothing to probe on loop" in got.stdout
    assert Provider.seen == []
