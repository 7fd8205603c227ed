"""Real HTTP clients on the wire: the official openai and anthropic Python SDKs and a Node fetch()
client, pointed at the loopback capture server, answered from the bundled cassettes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness._pipeline.capture import REMOVED, ClientPipeline, client_side
from harness._report.validate import validate_report
from tests.sdk_clients import CLAUDE, OPENAI, ROOT_ONEOF, copy_sdk_suite

pytestmark = pytest.mark.slow


@pytest.fixture
def suite(tmp_path: Path, scenarios: Path) -> Path:
    return copy_sdk_suite(tmp_path, scenarios)


def _client(suite: Path, script: str, env: str, base_path: str = "") -> ClientPipeline:
    raw = {"client": [sys.executable, f"clients/{script}"], "base_url_env": env, "base_path": base_path}
    return ClientPipeline(client_side(raw, "new", suite))


def _call(pipe: ClientPipeline, tools: list[dict[str, Any]], lane: dict[str, Any]) -> Any:
    try:
        return pipe.call({"tools": tools}, lane, case_id="c", lane_id=lane["id"], side="new", timeout=120)
    finally:
        pipe.close()


# a standard-library client in the README's tier; the openai SDK (imported in a fresh interpreter,
# about 1.5 CPU s) makes the same request in the expensive tier
CLIENTS = [pytest.param("plain_client.py", "plain-client/1", id="stdlib"),
           pytest.param("openai_client.py", "openai", id="openai-sdk", marks=pytest.mark.expensive)]


@pytest.mark.parametrize(("script", "agent"), CLIENTS)
def test_a_clients_request_is_recorded_as_sent_with_its_key_removed(suite: Path, script: str, agent: str) -> None:
    pipe = _client(suite, script, "OPENAI_BASE_URL", "/v1")
    tool = {"name": "lookup", "description": "Look a word up.", "input_schema": {"type": "object"}}
    obs = _call(pipe, [tool], OPENAI)
    assert obs.outcome == "ok", obs.error
    assert obs.value["tools"] == [{"type": "function", "function": {
        "name": "lookup", "description": "Look a word up.", "parameters": {"type": "object"}}}]
    [exchange] = pipe.last
    assert (exchange.request.method, exchange.request.path) == ("POST", "/v1/chat/completions")
    assert json.loads(exchange.request.body) == obs.value  # the observation is the body on the wire
    assert {k.lower(): v for k, v in exchange.request.headers}["authorization"] == REMOVED
    assert "not-a-real-key" not in json.dumps(exchange.as_dict())
    assert exchange.receipt == "accepted-openai-chat" and pipe.said.strip() == "answered 200"


@pytest.mark.expensive
def test_the_anthropic_sdk_receives_the_recorded_400_for_a_root_oneof_tool(suite: Path) -> None:
    pipe = _client(suite, "anthropic_client.py", "ANTHROPIC_BASE_URL")
    obs = _call(pipe, [ROOT_ONEOF], CLAUDE)
    assert obs.outcome == "ok" and obs.value["tools"][0]["input_schema"]["oneOf"]
    [exchange] = pipe.last
    assert (exchange.status, exchange.rule) == (400, "anthropic.root-composition")
    # The SDK's own error path ran on the recorded answer.
    assert pipe.said.startswith("answered 400:")
    assert "input_schema does not support oneOf, allOf, or anyOf at the top level" in pipe.said


def test_a_client_that_sends_nothing_is_an_error_outcome_naming_its_exit(suite: Path) -> None:
    raw = {"client": [sys.executable, "-c", "import sys; print('no', file=sys.stderr); sys.exit(7)"],
           "base_url_env": "ANTHROPIC_BASE_URL"}
    obs = _call(ClientPipeline(client_side(raw, "new", suite)), [ROOT_ONEOF], CLAUDE)
    assert obs.outcome == "error" and obs.error is not None and obs.error.type == "NoRequest"
    assert "exited with code 7" in obs.error.message and "stderr: no" in obs.error.message


def _run_json(suite: Path, tmp_path: Path) -> dict[str, Any]:
    """``harness run SUITE --format json``: exit 0, and a report valid against its schema."""
    got = subprocess.run([sys.executable, "-m", "harness", "run", str(suite), "--out", str(tmp_path / "out"),
                          "--format", "json"], capture_output=True, text=True, timeout=600, cwd=tmp_path,
                         check=False, env=os.environ.copy())
    assert got.returncode == 0, got.stderr
    report: dict[str, Any] = json.loads(got.stdout)
    validate_report(report)
    return report


def _same_body_same_rejection(report: dict[str, Any]) -> None:
    """Both sides put the same body on the wire, and the root-oneOf tool's is refused on both."""
    assert {r["case"]: r["verdict"] for r in report["differential"]} == {
        "root-oneof-tool": "identical", "clean-tool": "identical"}
    rules = {(f["side"], r["rule"]) for f in report["rejections"]["findings"] if f["case"] == "root-oneof-tool"
             for r in f["rejections"]}
    assert rules == {("old", "anthropic.root-composition"), ("new", "anthropic.root-composition")}


@pytest.mark.expensive
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_harness_run_compares_the_anthropic_sdk_with_a_node_fetch_client_on_the_wire(suite: Path,
                                                                                     tmp_path: Path) -> None:
    report = _run_json(suite, tmp_path)
    # Two clients in two languages put the same body on the wire.
    _same_body_same_rejection(report)
    assert report["rejections"]["delta"]["summary"]["persisting"] == 1
    run = next((tmp_path / "out").glob("2*"))
    assert not [p for p in run.rglob("*") if p.is_file() and "not-a-real-key" in p.read_text(errors="replace")]


@pytest.mark.parametrize(("script", "agent"), CLIENTS)
def test_observe_request_of_a_client_is_the_whole_request_without_host_or_key(suite: Path, script: str,
                                                                              agent: str) -> None:
    raw = {"client": [sys.executable, f"clients/{script}"], "base_url_env": "OPENAI_BASE_URL",
           "base_path": "/v1", "observe": "request"}
    pipe = ClientPipeline(client_side(raw, "new", suite))
    obs = _call(pipe, [{"name": "lookup", "input_schema": {"type": "object"}}], OPENAI)
    assert obs.outcome == "ok", obs.error
    assert (obs.value["method"], obs.value["path"], obs.value["query"]) == ("POST", "/v1/chat/completions", "")
    headers = obs.value["headers"]
    assert headers["authorization"] == REMOVED and "host" not in headers  # the port changes every run
    assert headers["content-type"] == "application/json" and agent in headers["user-agent"].lower()
    assert obs.value["body"]["tools"][0]["function"]["name"] == "lookup"


@pytest.mark.expensive
def test_the_wire_and_the_in_process_transport_record_the_same_request_for_the_same_sdk_call(suite: Path) -> None:
    from harness._pipeline.capture.transport import TransportPipeline

    wire = ClientPipeline(client_side({"client": [sys.executable, "clients/anthropic_client.py"],
                                       "base_url_env": "ANTHROPIC_BASE_URL", "observe": "request"}, "old", suite))
    inproc = TransportPipeline(client_side({"call": "clients.inproc:anthropic_send", "transport": "httpx2",
                                            "observe": "request"}, "new", suite))
    on_wire, in_process = _call(wire, [ROOT_ONEOF], CLAUDE), _call(inproc, [ROOT_ONEOF], CLAUDE)
    assert on_wire.outcome == in_process.outcome == "ok", (on_wire.error, in_process.error)
    # The same bytes, byte for byte, and the same answer: the recorded 400 of the same rule.
    assert wire.last[0].request.body == inproc.last[0].request.body
    assert (wire.last[0].status, wire.last[0].rule) == (inproc.last[0].status, inproc.last[0].rule) == (
        400, "anthropic.root-composition")
    # One observation shape: method, path, query and headers too (credentials removed, no Host).
    assert on_wire.value == in_process.value and on_wire.wire == in_process.wire


@pytest.mark.expensive
def test_harness_run_compares_an_sdk_on_the_wire_with_the_same_sdk_in_process(suite: Path, tmp_path: Path) -> None:
    text = (suite / "suite.yaml").read_text()
    (suite / "suite.yaml").write_text(text.replace(
        "{client: [node, clients/fetch_client.mjs], base_url_env: ANTHROPIC_BASE_URL}",
        "{call: 'clients.inproc:anthropic_send', transport: httpx2}"))
    report = _run_json(suite, tmp_path)
    _same_body_same_rejection(report)
