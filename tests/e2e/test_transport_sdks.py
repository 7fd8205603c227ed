"""The anthropic and openai SDKs themselves in the harness's process on the recording MockTransport
(``transport: httpx2``): the anthropic SDK's own error path on a recorded 400, the openai SDK's
request on a recorded acceptance. Expensive: importing an SDK and building its first request
costs one to three CPU seconds; tests/unit/capture/test_transport.py keeps the same behaviour
with the same calls written on a plain httpx2 client."""

from __future__ import annotations

import json
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from harness._model import PipelineSpec
from harness._pipeline.capture import REMOVED, open_client
from harness._pipeline.capture.transport import TransportPipeline
from tests.sdk_clients import CLAUDE, OPENAI, ROOT_ONEOF, copy_sdk_suite

pytestmark = [pytest.mark.slow, pytest.mark.expensive,
              pytest.mark.skipif(find_spec("anthropic") is None, reason="needs the anthropic SDK (the [test] extra)")]


def test_the_anthropic_sdk_in_process_receives_the_recorded_400_for_a_root_oneof_tool(tmp_path: Path,
                                                                                       scenarios: Path) -> None:
    suite = copy_sdk_suite(tmp_path, scenarios)
    pipe = open_client(PipelineSpec(kind="client", call="clients.inproc:anthropic_send", transport="httpx2",
                                    root=str(suite), cwd=str(suite)))
    assert isinstance(pipe, TransportPipeline)
    lane: dict[str, Any] = CLAUDE
    obs = pipe.call({"tools": [ROOT_ONEOF]}, lane, case_id="c", lane_id=lane["id"], side="new", timeout=60)
    assert obs.outcome == "ok", obs.error
    assert obs.value["tools"][0]["input_schema"]["oneOf"]  # the body the SDK built, as it went out
    [exchange] = pipe.last
    assert (exchange.request.method, exchange.request.path) == ("POST", "/v1/messages")
    assert (exchange.status, exchange.rule) == (400, "anthropic.root-composition")
    # The SDK's own error path ran on the recorded answer: it raised its BadRequestError.
    assert pipe.said.startswith("BadRequestError: Error code: 400")
    assert "input_schema does not support oneOf, allOf, or anyOf at the top level" in pipe.said


@pytest.mark.skipif(find_spec("openai") is None, reason="needs the openai SDK (the [test] extra)")
def test_the_openai_sdk_in_process_gets_the_recorded_acceptance_and_its_key_is_removed(tmp_path: Path,
                                                                                       scenarios: Path) -> None:
    suite = copy_sdk_suite(tmp_path, scenarios)
    pipe = open_client(PipelineSpec(kind="client", call="clients.inproc:openai_send", transport="httpx2",
                                    root=str(suite), cwd=str(suite)))
    assert isinstance(pipe, TransportPipeline)
    lane: dict[str, Any] = OPENAI
    tool = {"name": "lookup", "description": "Look a word up.", "input_schema": {"type": "object"}}
    obs = pipe.call({"tools": [tool]}, lane, case_id="c", lane_id=lane["id"], side="new", timeout=60)
    assert obs.outcome == "ok", obs.error
    assert obs.value["tools"] == [{"type": "function", "function": {
        "name": "lookup", "description": "Look a word up.", "parameters": {"type": "object"}}}]
    [exchange] = pipe.last
    assert exchange.request.path == "/v1/chat/completions" and exchange.receipt == "accepted-openai-chat"
    assert json.loads(exchange.request.body) == obs.value and pipe.said == "answered 200"
    assert {k.lower(): v for k, v in exchange.request.headers}["authorization"] == REMOVED
    assert "not-a-real-key" not in json.dumps(exchange.as_dict())
