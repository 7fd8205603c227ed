"""A client side run in the harness's process on a recording MockTransport (``transport: httpx2``):
a client's requests recorded and answered from the bundled cassettes, without a socket. The
clients here are the SDKs' calls written on httpx2 alone; the anthropic and openai SDKs
themselves are tests/e2e/test_transport_sdks.py's (expensive: importing them costs about a CPU
second each)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._errors import InputErrors
from harness._load import load_suite
from harness._model import Observation, PipelineSpec
from harness._pipeline.capture import REMOVED, open_client
from harness._pipeline.capture.transport import TransportPipeline
from tests.sdk_clients import CLAUDE, OPENAI, ROOT_ONEOF, copy_sdk_suite


@pytest.fixture
def suite(tmp_path: Path, scenarios: Path) -> Path:
    return copy_sdk_suite(tmp_path, scenarios)


def _pipe(suite: Path, call: str, **extra: Any) -> TransportPipeline:
    spec = PipelineSpec(kind="client", call=call, transport="httpx2", root=str(suite), cwd=str(suite), **extra)
    pipe = open_client(spec)
    assert isinstance(pipe, TransportPipeline)
    return pipe


def _call(pipe: TransportPipeline, tools: list[dict[str, Any]], lane: dict[str, Any]) -> Observation:
    return pipe.call({"tools": tools}, lane, case_id="c", lane_id=lane["id"], side="new", timeout=60)


def test_a_client_in_process_receives_the_recorded_400_for_a_root_oneof_tool_and_raises(suite: Path) -> None:
    # A plain httpx2 client: the anthropic SDK's own call is tests/e2e/test_transport_sdks.py's
    # (importing the SDK costs about two CPU seconds)
    pipe = _pipe(suite, "clients.inproc:plain_send")
    obs = _call(pipe, [ROOT_ONEOF], CLAUDE)
    assert obs.outcome == "ok", obs.error
    assert obs.value["tools"][0]["input_schema"]["oneOf"]  # the body the client built, as it went out
    [exchange] = pipe.last
    assert (exchange.request.method, exchange.request.path) == ("POST", "/v1/messages")
    assert (exchange.status, exchange.rule) == (400, "anthropic.root-composition")
    assert {k.lower(): v for k, v in exchange.request.headers}["x-api-key"] == REMOVED
    # The client's own error path ran on the recorded answer: what it raised is what it said.
    assert pipe.said.startswith("Rejected: Error code: 400")
    assert "input_schema does not support oneOf, allOf, or anyOf at the top level" in pipe.said


def test_an_openai_chat_client_in_process_gets_the_recorded_acceptance_and_its_key_is_removed(suite: Path) -> None:
    # A plain httpx2 client: the openai SDK's own call is tests/e2e/test_transport_sdks.py's
    pipe = _pipe(suite, "clients.inproc:plain_openai_send")
    obs = _call(pipe, [{"name": "lookup", "description": "Look a word up.", "input_schema": {"type": "object"}}],
                OPENAI)
    assert obs.outcome == "ok", obs.error
    assert obs.value["tools"] == [{"type": "function", "function": {
        "name": "lookup", "description": "Look a word up.", "parameters": {"type": "object"}}}]
    [exchange] = pipe.last
    assert exchange.request.path == "/v1/chat/completions" and exchange.receipt == "accepted-openai-chat"
    assert json.loads(exchange.request.body) == obs.value and pipe.said == "answered 200"
    assert {k.lower(): v for k, v in exchange.request.headers}["authorization"] == REMOVED
    assert "not-a-real-key" not in json.dumps(exchange.as_dict())


def test_observe_request_in_process_is_the_whole_request_without_host_or_key(suite: Path) -> None:
    pipe = _pipe(suite, "clients.inproc:plain_openai_send", observe="request")
    obs = _call(pipe, [{"name": "lookup", "input_schema": {"type": "object"}}], OPENAI)
    assert (obs.value["method"], obs.value["path"], obs.value["query"]) == ("POST", "/v1/chat/completions", "")
    assert obs.value["headers"]["authorization"] == REMOVED and "host" not in obs.value["headers"]


def test_a_client_that_raises_before_sending_is_a_no_request_error_naming_the_raise(suite: Path) -> None:
    (suite / "broken.py").write_text("def send(job, lane, transport):\n    raise RuntimeError('no key set')\n")
    obs = _call(_pipe(suite, "broken:send"), [ROOT_ONEOF], CLAUDE)
    assert obs.outcome == "error" and obs.error is not None and obs.error.type == "NoRequest"
    assert "raised RuntimeError: no key set without sending a request" in obs.error.message


def test_a_transport_side_loads_from_suite_yaml_and_names_its_callable(suite: Path) -> None:
    text = (suite / "suite.yaml").read_text()
    (suite / "suite.yaml").write_text(text.replace(
        "{client: [node, clients/fetch_client.mjs], base_url_env: ANTHROPIC_BASE_URL}",
        "{call: 'clients.inproc:anthropic_send', transport: httpx2}"))
    new = load_suite(suite).subjects["anthropic_sdk_vs_fetch"].pipeline("new")
    assert (new.kind, new.call, new.transport, new.command) == ("client", "clients.inproc:anthropic_send",
                                                                "httpx2", ())
    assert new.label() == "client clients.inproc:anthropic_send on httpx2"


@pytest.mark.parametrize("side", [
    "{call: 'clients.inproc:anthropic_send', transport: requests}",          # not an httpx library
    "{call: 'clients.inproc:anthropic_send', transport: httpx2, python: x}",  # in process and not at once
    "{transport: httpx2}",                                                     # nothing to call
])
def test_a_malformed_transport_side_is_bad_input_naming_suite_yaml(suite: Path, side: str) -> None:
    text = (suite / "suite.yaml").read_text()
    old = "{client: [node, clients/fetch_client.mjs], base_url_env: ANTHROPIC_BASE_URL}"
    assert old in text
    (suite / "suite.yaml").write_text(text.replace(old, side))
    with pytest.raises(InputErrors, match=r"suite\.yaml:\d+ at subjects\.anthropic_sdk_vs_fetch\.new"):
        load_suite(suite)
