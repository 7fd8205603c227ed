"""The gateway lane's answer from the build worker to the report, without LiteLLM: the harness
starts the scenario's own small gateway (tests/scenarios/suites/gateway/mini_gateway.py) where it
starts LiteLLM's proxy, in an environment this module makes (``bin/python`` is this interpreter,
``bin/litellm`` runs the scenario's gateway). The root oneOf goes upstream to the capture server,
Anthropic's recorded 400 comes back inside a LiteLLM-shaped envelope, and what reached the client
must survive the worker's message to the parent: report.json's ``answer``, report.md's "Through
a gateway", check-lane's ``client:`` line. The same path with the real proxy is
tests/e2e/test_gateway_lane.py (heavy)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from harness._provision.envs import env_folder
from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow
SUITE = Path(__file__).resolve().parents[1] / "scenarios" / "suites" / "gateway"
REQUIREMENT = "mini-gateway==1.0"  # the scenario's package: what the environment made here is named by


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache holding the scenario gateway's environment, as provisioning leaves one (ready.json last)."""
    root = tmp_path_factory.mktemp("cache")
    before = os.environ.get("HARNESS_CACHE")
    os.environ["HARNESS_CACHE"] = str(root)  # env_folder reads it; harness_main sets it again per call
    try:
        folder = env_folder((REQUIREMENT,))
    finally:
        os.environ.pop("HARNESS_CACHE") if before is None else os.environ.update(HARNESS_CACHE=before)
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "python").symlink_to(sys.executable)
    script = SUITE / "mini_gateway.py"
    launcher = folder / "bin" / "litellm"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {script} \"$@\"\n")
    launcher.chmod(0o755)
    (folder / "ready.json").write_text(json.dumps({"requirements": [REQUIREMENT]}))
    return root


@pytest.fixture(scope="module")
def run(cache: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    """One ``harness run`` of the scenario (one worker: one gateway per side); report.json and report.md."""
    out = tmp_path_factory.mktemp("out")
    got = harness_main("run", str(SUITE), "--out", str(out), "--workers", "1",
                       "--format", "json", "--no-pins", env={"HARNESS_CACHE": str(cache)})
    assert got.returncode == 0, got.stderr[-3000:]
    folder = next(out.glob("2*"))
    return json.loads((folder / "report.json").read_text()), (folder / "report.md").read_text()


def test_what_the_gateway_answered_the_client_reaches_report_json_from_the_build_worker(
        run: tuple[dict[str, Any], str]) -> None:
    report, _ = run
    findings = report["rejections"]["findings"]
    assert [(f["side"], [r["rule"] for r in f["rejections"]]) for f in findings] == [
        ("old", ["anthropic.root-composition"]), ("new", ["anthropic.root-composition"])]
    answer = findings[1]["answer"]
    assert (answer["gateway"], answer["status"], answer["upstream_status"], answer["upstream_rule"],
            answer["upstream_receipt"]) == ("litellm-proxy", 400, 400, "anthropic.root-composition", "R001")
    assert answer["carried"] is True and answer["envelope_receipts"] == ["R072"]
    assert answer["body"].startswith('{"error": {"message": "litellm.BadRequestError: AnthropicException - ')


def test_report_md_says_how_the_upstream_rejection_reached_the_client(run: tuple[dict[str, Any], str]) -> None:
    _, markdown = run
    assert "Through a gateway" in markdown
    assert ("`root-oneof` on gateway-claude (new): `anthropic.root-composition` (R001, 400) reached the client "
            "as 400 from litellm-proxy") in markdown


def test_check_lane_prints_the_client_line_under_the_gateway_finding(cache: Path) -> None:
    got = harness_main("check-lane", "gateway-claude", "--suite", str(SUITE),
                       env={"HARNESS_CACHE": str(cache)})
    assert got.returncode == 0, got.stderr[-3000:]
    assert ("client:   400 from litellm-proxy (litellm.BadRequestError: <Provider>Exception), upstream answered "
            "400 (anthropic.root-composition): carries the upstream's recorded message; the envelope recorded in "
            "R072") in got.stdout
