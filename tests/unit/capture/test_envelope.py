"""The gateway's answer judged against the recorded gateway envelopes, and the gateway side's
configuration: no gateway process here (tests/e2e/test_gateway_lane.py runs the real proxy)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from harness._errors import InputErrors
from harness._load import load_suite
from harness._pipeline.capture.envelope import check_envelope, key_paths
from harness._pipeline.capture.gateway import gateway_body, litellm_config
from harness._pipeline.capture.server import Exchange, Request
from harness._reject.cassettes import Catalog
from harness._reject.verdicts import cached_catalog

REPO = Path(__file__).resolve().parents[3]
ANTHROPIC_400 = ('{"type":"error","error":{"type":"invalid_request_error","message":"tools.0.custom.input_schema: '
                 'input_schema does not support oneOf, allOf, or anyOf at the top level"}}')
UPSTREAM = Exchange(Request("POST", "/v1/messages", "", (), b"{}"), 400, ANTHROPIC_400.encode(),
                    "anthropic.root-composition", "R001")


def _litellm(message: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": None, "param": None, "code": "400"}}).encode()


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return cached_catalog(str(REPO / "cases"), str(REPO / "cassettes"), ("rules/*.rules.yaml",))


def test_an_upstream_rejection_inside_litellms_envelope_is_carried_in_the_recorded_shape(catalog: Catalog) -> None:
    body = _litellm(f"litellm.BadRequestError: AnthropicException - {ANTHROPIC_400}. Received Model Group=x")
    got = check_envelope(catalog, "litellm-proxy", UPSTREAM, 400, body)
    assert got["carried"] is True and got["envelope_receipts"] == ["R072"]
    assert got["opening"] == "litellm.BadRequestError: <Provider>Exception"
    assert (got["upstream_rule"], got["upstream_receipt"], got["upstream_status"]) == (
        "anthropic.root-composition", "R001", 400)


def test_a_gateway_that_swallows_the_upstream_message_is_not_carried(catalog: Catalog) -> None:
    body = _litellm("litellm.BadRequestError: AnthropicException - upstream failed")
    got = check_envelope(catalog, "litellm-proxy", UPSTREAM, 400, body)
    assert got["carried"] is False and got["envelope_receipts"] == ["R072"]


def test_an_answer_in_another_envelope_matches_no_recorded_litellm_envelope(catalog: Catalog) -> None:
    got = check_envelope(catalog, "litellm-proxy", UPSTREAM, 400, ANTHROPIC_400.encode())
    assert got["carried"] is True and got["envelope_receipts"] == [] and got["opening"] == ""


def test_with_no_upstream_rule_there_is_nothing_to_carry(catalog: Catalog) -> None:
    accepted = Exchange(UPSTREAM.request, 200, b"{}", None, "accepted-anthropic")
    assert check_envelope(catalog, "litellm-proxy", accepted, 500, b"not json")["carried"] is None


def test_key_paths_name_every_nested_key() -> None:
    assert key_paths({"error": {"message": "m", "code": "1"}}) == {"error", "error.message", "error.code"}


def test_the_generated_proxy_config_routes_every_provider_to_the_capture_server_without_retries() -> None:
    config = yaml.safe_load(litellm_config("http://127.0.0.1:4242"))
    bases = {m["model_name"]: m["litellm_params"]["api_base"] for m in config["model_list"]}
    assert bases == {"anthropic/*": "http://127.0.0.1:4242", "openai/*": "http://127.0.0.1:4242/v1",
                     "gemini/*": "http://127.0.0.1:4242/v1beta/models/gemini"}
    assert config["litellm_settings"]["num_retries"] == 0 == config["router_settings"]["num_retries"]


def test_the_body_sent_to_the_gateway_is_the_cases_tools_as_chat_functions_strict_on_a_strict_lane() -> None:
    tool = {"name": "lookup", "input_schema": {"type": "object"}}
    body = gateway_body({"tools": [tool]}, {"model": "openai/gpt-4.1", "options": {"strict": True}})
    assert body["model"] == "openai/gpt-4.1"
    assert body["tools"] == [{"type": "function", "function": {"name": "lookup", "description": "",
                                                               "parameters": {"type": "object"}, "strict": True}}]


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    folder = tmp_path / "proxy"
    shutil.copytree(REPO / "examples" / "litellm" / "proxy", folder)
    return folder


def test_a_gateway_side_loads_with_its_package_to_provision_and_one_spec_for_equal_sides(suite: Path) -> None:
    subject = load_suite(suite).subjects["litellm_proxy"]
    new = subject.pipeline("new")
    assert (new.kind, new.gateway, new.requirements) == ("client", "litellm-proxy", ("litellm[proxy]==1.74.0",))
    assert new.python and new.python.endswith("/bin/python") and new.start_timeout_s == 180.0
    assert subject.pipeline("old") == new  # the same release on both sides: one proxy per worker, not two
    assert new.label() == "gateway litellm-proxy from litellm[proxy]==1.74.0"


@pytest.mark.parametrize("side", [
    '{gateway: kong, package: "litellm[proxy]==1.74.0"}',                        # not a gateway the harness starts
    "{gateway: litellm-proxy}",                                                   # nothing to provision
    '{gateway: litellm-proxy, package: "litellm[proxy]==1.74.0", call: "m:f"}',  # two kinds at once
])
def test_a_malformed_gateway_side_is_bad_input_naming_suite_yaml(suite: Path, side: str) -> None:
    text = (suite / "suite.yaml").read_text()
    old = '{gateway: litellm-proxy, package: "litellm[proxy]==1.74.0"}'
    (suite / "suite.yaml").write_text(text.replace(old, side, 1))
    with pytest.raises(InputErrors, match=r"suite\.yaml:\d+ at subjects\.litellm_proxy\.old"):
        load_suite(suite)


def test_report_md_says_how_each_upstream_rejection_reached_the_client_through_the_gateway(catalog: Catalog) -> None:
    from harness._reject.report import render_markdown

    body = _litellm(f"litellm.BadRequestError: AnthropicException - {ANTHROPIC_400}")
    answer = dict(check_envelope(catalog, "litellm-proxy", UPSTREAM, 400, body))
    rejection = {"rule": "anthropic.root-composition", "validator": "anthropic", "title": "t", "location": "tools[0]",
                 "expected": True, "why": "declared", "receipt": None}
    finding = {"case": "root-oneof", "lane": "litellm-proxy-claude", "side": "new", "fronts": ["anthropic"],
               "status": "known-rejected", "rejections": [rejection], "answer": answer}
    text = render_markdown({"summary": {}, "catalog": {}, "findings": [finding], "stale_declarations": []})
    assert "Through a gateway" in text
    assert ("- `root-oneof` on litellm-proxy-claude (new): `anthropic.root-composition` (R001, 400) reached the "
            "client as 400 from litellm-proxy, `litellm.BadRequestError: <Provider>Exception`, the envelope of "
            "R072: carried") in text


def test_an_upstream_body_followed_by_litellms_model_group_text_is_still_read_for_the_message(
        catalog: Catalog) -> None:
    # Gemini's message has quotes: they stay escaped until the embedded JSON is decoded, and the
    # text LiteLLM appends after it keeps a whole-string JSON parse from decoding it.
    gemini = json.dumps({"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": (
        "Invalid JSON payload received. Unknown name \"type\" at 'tools[0].function_declarations[0].parameters."
        "properties[0].value': Proto field is not repeating, cannot start list.")}})
    body = _litellm(f"litellm.BadRequestError: VertexAIException BadRequestError - {gemini}. Received Model Group=g")
    upstream = Exchange(UPSTREAM.request, 400, gemini.encode(), "gemini.type-list", "R071")
    got = check_envelope(catalog, "litellm-proxy", upstream, 400, body)
    assert got["carried"] is True and got["envelope_receipts"] == ["R072"]
