"""``harness probe`` against a hostile loopback server: slow drips, huge and compressed answers,
a run past its deadline, broken inputs. Every one ends in a recorded result and a contract exit."""

from __future__ import annotations

import gzip
import json
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.e2e.inproc import harness_main
from tests.unit.reject.scenario import write_suite

pytestmark = pytest.mark.slow

FAKE_KEY = "sk-ant-api03-" + "HOSTILExFAKEx" * 4
REPO = Path(__file__).resolve().parents[2]
BOMB = gzip.compress(b"\0" * (64 * 1024 * 1024))  # 64 MiB of zeros in about 64 KB


class Hostile(BaseHTTPRequestHandler):
    mode = "drip"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(400)
        self.send_header("content-type", "application/json")
        if self.mode == "drip":  # one byte every 0.3 s, forever: each read is quick, the whole is not
            self.end_headers()
            for _ in range(200):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.3)
        elif self.mode == "huge":  # no content-length: the size shows only while reading
            self.end_headers()
            chunk = b"x" * 65536
            for _ in range(160):  # 10 MiB
                self.wfile.write(chunk)
        elif self.mode == "deep":  # nested past any JSON decoder's recursion
            body = b"[" * 200_000
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.mode == "bomb":
            self.send_header("content-encoding", "gzip")
            self.send_header("content-length", str(len(BOMB)))
            self.end_headers()
            self.wfile.write(BOMB)

    def log_message(self, *args: object) -> None:
        pass


class QuietServer(ThreadingHTTPServer):
    """The probe runs in this process (``harness_main``) and cuts hostile answers off on purpose:
    the server thread's report of a dropped connection would land in the command's stderr."""

    def handle_error(self, request: object, client_address: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[ThreadingHTTPServer]:
    httpd = QuietServer(("127.0.0.1", 0), Hostile)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _probe(tmp_path: Path, server: ThreadingHTTPServer, mode: str, *extra: str,
           ) -> tuple[subprocess.CompletedProcess[str], Path, float]:
    Hostile.mode = mode
    lane = {"id": "loop", "title": "loopback", "wire": "anthropic-messages", "provider": "anthropic",
            "base_url": f"http://127.0.0.1:{server.server_address[1]}/v1", "model": "claude-x",
            "fronts": ["anthropic"]}
    suite = write_suite(tmp_path, None, lanes=[lane])
    out = tmp_path / "probe-out"
    started = time.monotonic()
    got = harness_main("probe", "--lane", "loop", "--suite", str(suite), "--out", str(out),
                       "--key-env", "HARNESS_TEST_PROBE_KEY", *extra, cwd=REPO,
                       env={"HARNESS_TEST_PROBE_KEY": FAKE_KEY})
    return got, out, time.monotonic() - started


def test_a_server_that_drips_bytes_is_cut_at_the_request_deadline_and_could_not_check(
        tmp_path: Path, server: ThreadingHTTPServer) -> None:
    got, out, took = _probe(tmp_path, server, "drip", "--timeout", "1")
    assert got.returncode == 5, (got.stdout, got.stderr)
    assert took < 20, f"the probe ran {took:.1f} s against a 1 s request deadline"
    assert "no complete answer within 1 s" in got.stdout
    assert json.loads((out / "probe-report.json").read_text())["could_not_check"] == 1


def test_an_answer_past_the_size_cap_is_refused_while_reading_and_nothing_big_is_written(
        tmp_path: Path, server: ThreadingHTTPServer) -> None:
    got, out, _ = _probe(tmp_path, server, "huge")
    assert got.returncode == 5, (got.stdout, got.stderr)
    assert "an answer over 4,194,304 bytes" in got.stdout
    assert all(p.stat().st_size < 1_000_000 for p in out.rglob("*") if p.is_file())


def test_a_gzip_bomb_is_refused_after_decompressing_past_the_cap_not_held_whole(
        tmp_path: Path, server: ThreadingHTTPServer) -> None:
    got, out, _ = _probe(tmp_path, server, "bomb")
    assert got.returncode == 5, (got.stdout, got.stderr)
    assert "once decompressed" in got.stdout
    assert json.loads((out / "probe-report.json").read_text())["items"][0]["outcome"] == "error"


def test_an_answer_nested_past_the_json_decoder_is_compared_as_text_not_an_internal_error(
        tmp_path: Path, server: ThreadingHTTPServer) -> None:
    got, out, _ = _probe(tmp_path, server, "deep")
    assert got.returncode == 5, (got.stdout, got.stderr)
    assert "Traceback" not in got.stderr and "internal error" not in got.stderr
    assert json.loads((out / "probe-report.json").read_text())["items"][0]["outcome"] == "message-changed"


def test_requests_not_sent_before_the_run_deadline_could_not_be_checked(
        tmp_path: Path, server: ThreadingHTTPServer) -> None:
    bodies = tmp_path / "bodies.jsonl"
    bodies.write_text("".join(json.dumps({"model": "m", "tools": [{"name": f"t{n}", "input_schema": {
        "type": "object"}}]}) + "\n" for n in range(3)))
    got, out, took = _probe(tmp_path, server, "drip", "--timeout", "1", "--deadline", "1.5", "--bodies", str(bodies))
    assert got.returncode == 5, (got.stdout, got.stderr)
    assert took < 20
    items = json.loads((out / "probe-report.json").read_text())["items"]
    assert len(items) == 4
    assert any("the run's deadline passed" in i["detail"] for i in items)


@pytest.mark.parametrize("line", ['{"model": NaN}', "[" * 5000, '{"a": 1, "a": 2}', '{"t": "\\ud800"}'])
def test_a_bad_bodies_line_is_bad_input_naming_its_line(
        tmp_path: Path, server: ThreadingHTTPServer, line: str) -> None:
    bodies = tmp_path / "bodies.jsonl"
    bodies.write_text('{"model": "m"}\n' + line + "\n")
    got, _, _ = _probe(tmp_path, server, "drip", "--bodies", str(bodies))
    assert got.returncode == 2, (got.stdout, got.stderr)
    assert "bodies.jsonl:2" in got.stderr and "Traceback" not in got.stderr


def test_a_bodies_line_that_is_not_utf8_is_bad_input_naming_its_line_and_byte(
        tmp_path: Path, server: ThreadingHTTPServer) -> None:
    bodies = tmp_path / "bodies.jsonl"
    bodies.write_bytes(b'{"model": "m"}\n{"model": "caf\xe9"}\n')  # Latin-1, not UTF-8
    got, _, _ = _probe(tmp_path, server, "drip", "--bodies", str(bodies))
    assert got.returncode == 2, (got.stdout, got.stderr)
    assert f"--bodies='{bodies}:2': expected one JSON body a line in UTF-8 (found byte 0xe9 at column 15" in got.stderr
    assert "internal error" not in got.stderr


def test_an_earlier_recording_in_the_out_folder_is_refused_before_anything_is_sent(
        tmp_path: Path, server: ThreadingHTTPServer) -> None:
    out = tmp_path / "probe-out"
    out.mkdir()
    (out / "loop.yaml").write_text("interactions: [broken\n")
    got, _, _ = _probe(tmp_path, server, "drip")
    assert got.returncode == 2, (got.stdout, got.stderr)
    assert "loop.yaml" in got.stderr and "Traceback" not in got.stderr
