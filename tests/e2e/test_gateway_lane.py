"""LiteLLM's proxy as a real gateway lane: started on loopback from its own package with its
upstream at the capture server, a root-oneOf tool sent through it, Anthropic's recorded
root-composition 400 reaching the client inside LiteLLM's envelope, the proxy stopped after.

Heavy (``tox -e heavy`` nightly, and ``tox -e real-software``): the proxy's environment is ~100
packages, provisioned from PyPI once by ``harness check-lane ... --suite examples/litellm/proxy``
(both tox envs run it before these tests); these tests never download it, they skip naming that
command when it is missing. The same path from the build worker to the report, without LiteLLM,
is in the README's tier: tests/e2e/test_gateway_answer.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness._pipeline.capture.gateway import GatewayPipeline, gateway_side
from harness._provision.envs import env_folder
from harness._report.validate import validate_report

REPO = Path(__file__).resolve().parents[2]
PACKAGE = "litellm[proxy]==1.74.0"
pytestmark = [pytest.mark.slow, pytest.mark.heavy, pytest.mark.skipif(
    not (env_folder((PACKAGE,)) / "ready.json").is_file(),
    reason=f"{PACKAGE} is not provisioned: run `tox -e real-software` (or `harness check-lane litellm-proxy-claude "
           f"--suite examples/litellm/proxy`) once with PyPI reachable")]
ROOT_ONEOF = {"name": "apply_patch", "description": "Apply a patch to a file.", "input_schema": {
    "type": "object", "properties": {"path": {"type": "string"}, "patch": {"type": "string"}},
    "oneOf": [{"required": ["path"]}, {"required": ["patch"]}]}}
CLAUDE = {"id": "litellm-proxy-claude", "wire": "litellm-proxy", "provider": "anthropic",
          "model": "anthropic/claude-sonnet-4-5", "fronts": ["anthropic"], "options": {}}


@pytest.fixture
def suite() -> Path:
    """The example in place (its rules and cassettes are the repository's, by relative path);
    nothing is written into it: reports go to tmp_path."""
    return REPO / "examples" / "litellm" / "proxy"


def _gateways() -> list[str]:
    """Processes still running a harness-made gateway configuration (none once a run is over)."""
    out = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if "harness-gateway-" in cmdline and "litellm" in cmdline:
            out.append(f"{proc.name}: {cmdline}")
    return out


def _harness(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PIP_NO_INDEX": "1"}  # the environment is made already: never the network
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True, timeout=900,
                          cwd=cwd, check=False, env=env)


def test_the_proxy_forwards_a_root_oneof_to_anthropic_and_returns_its_400_in_litellms_envelope(suite: Path) -> None:
    pipe = GatewayPipeline(gateway_side({"gateway": "litellm-proxy", "package": PACKAGE}, "new", suite))
    try:
        obs = pipe.call({"tools": [ROOT_ONEOF]}, CLAUDE, case_id="c", lane_id=CLAUDE["id"], side="new", timeout=120)
        assert pipe.gateway is not None
        proxy, folder = pipe.gateway.proc, pipe.gateway.folder
    finally:
        pipe.close()
    assert obs.outcome == "ok", obs.error
    # What the gateway forwarded upstream: Anthropic Messages, the root oneOf kept, the key removed.
    [upstream] = pipe.last
    assert upstream.request.path == "/v1/messages" and obs.value["tools"][0]["input_schema"]["oneOf"]
    assert {k.lower(): v for k, v in upstream.request.headers}["x-api-key"] == "[removed]"
    assert (upstream.status, upstream.rule) == (400, "anthropic.root-composition")
    assert obs.answer is not None and obs.answer["status"] == 400 and obs.answer["carried"] is True
    assert obs.answer["body"].startswith('{"error":{"message":"litellm.BadRequestError: AnthropicException - ')
    # Stopped: the proxy's process has ended and its generated configuration is gone.
    assert proxy.poll() is not None and not folder.exists() and not _gateways()


def test_harness_run_reports_the_anthropic_rejection_reaching_the_client_inside_the_gateways_envelope(
        suite: Path, tmp_path: Path) -> None:
    got = _harness("run", str(suite), "--out", str(tmp_path / "out"), "--format", "json", cwd=tmp_path)
    assert got.returncode == 0, got.stderr[-3000:]
    report = json.loads(got.stdout)
    validate_report(report)
    finding: dict[str, Any] = next(f for f in report["rejections"]["findings"] if (f["case"], f["lane"], f["side"]) ==
                                   ("root-oneof", "litellm-proxy-claude", "new"))
    assert [r["rule"] for r in finding["rejections"]] == ["anthropic.root-composition"]
    answer = finding["answer"]
    assert (answer["gateway"], answer["status"], answer["upstream_rule"], answer["upstream_receipt"]) == (
        "litellm-proxy", 400, "anthropic.root-composition", "R001")
    assert answer["carried"] is True and answer["envelope_receipts"] == ["R072"]
    assert "input_schema does not support oneOf, allOf, or anyOf at the top level" in answer["body"]
    # The same proxy in front of Gemini: the type list refused upstream, R072's very envelope to the client.
    gemini = next(f for f in report["rejections"]["findings"] if (f["case"], f["lane"], f["side"]) ==
                  ("nullable-type-list", "litellm-proxy-gemini", "new"))
    assert [r["rule"] for r in gemini["rejections"]] == ["gemini.type-list"]
    assert gemini["answer"]["carried"] is True and "VertexAIException" in gemini["answer"]["body"]
    markdown = (next((tmp_path / "out").glob("2*")) / "report.md").read_text()
    assert "Through a gateway" in markdown and "`anthropic.root-composition` (R001, 400) reached the client as 400" \
        in markdown
    assert not _gateways()  # the run stopped every proxy it started


def test_check_lane_on_the_gateway_lane_shows_what_reached_the_client(suite: Path, tmp_path: Path) -> None:
    got = _harness("check-lane", "litellm-proxy-claude", "--suite", str(suite), cwd=tmp_path)
    assert got.returncode == 0, got.stderr[-3000:]  # the rejection is declared in the case
    assert "declared  root-oneof  new  anthropic.root-composition  at tools[0].input_schema" in got.stdout
    assert ("client:   400 from litellm-proxy (litellm.BadRequestError: <Provider>Exception), upstream answered "
            "400 (anthropic.root-composition): carries the upstream's recorded message; the envelope recorded in "
            "R072") in got.stdout
    assert not _gateways()
