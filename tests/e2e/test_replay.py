"""Replay through httpx under vcrpy (record mode none) with the rejection-signature matcher."""

from __future__ import annotations

from pathlib import Path

import pytest
import vcr

from harness.model import Lane
from harness.reject.cassettes import load_catalog
from harness.reject.replay import block_network, replay

REPO = Path(__file__).resolve().parents[2]
GATEWAY = Lane(id="gw", wire="anthropic-messages", provider="custom", base_url="https://one-api.gateway.example/v1",
               fronts=("one-api", "anthropic"))
TOOL = {"name": "apply_patch", "description": "Apply a patch.",
        "input_schema": {"type": "object", "properties": {"input": {"type": "string"}},
                         "oneOf": [{"required": ["input"]}]}}
CLEAN = {"name": "ok", "description": "Fine.", "input_schema": {"type": "object", "properties": {}}}

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def catalog():  # type: ignore[no-untyped-def]
    return load_catalog(REPO / "cases", {"rules": ["rules/*.rules.yaml"], "cassettes": "../cassettes"})


def test_a_known_rejected_body_replays_the_recorded_400(catalog) -> None:  # type: ignore[no-untyped-def]
    result = replay(catalog, GATEWAY, {"model": "m", "max_tokens": 1, "tools": [CLEAN, TOOL]})
    assert result.status == "rejected"
    assert result.rules == ("anthropic.root-composition",)
    assert result.locations == ("tools[1].input_schema",)
    assert result.response_status == 400
    assert "does not support oneOf, allOf, or anyOf at the top level" in result.response_body


def test_a_body_matching_no_rule_is_unknown_and_never_sent(catalog) -> None:  # type: ignore[no-untyped-def]
    result = replay(catalog, GATEWAY, {"model": "m", "max_tokens": 1, "tools": [CLEAN]})
    assert result.status == "unknown"
    assert result.response_status is None


def test_a_lane_that_fronts_nothing_recorded_gets_unknown(catalog) -> None:  # type: ignore[no-untyped-def]
    lane = Lane(id="x", wire="anthropic-messages", provider="minimax", fronts=("minimax",))
    assert replay(catalog, lane, {"tools": [TOOL]}).status == "unknown"


def test_the_network_is_blocked_during_a_replay() -> None:
    import socket

    with block_network(), pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", 9), timeout=1)


def test_every_bundled_cassette_loads_in_plain_vcrpy(tmp_path: Path) -> None:
    import httpx

    cassette = REPO / "cassettes" / "anthropic" / "anthropic.root-composition.yaml"
    with vcr.use_cassette(str(cassette), record_mode="none", match_on=["method", "uri"],
                          allow_playback_repeats=True), httpx.Client() as client:
        response = client.post("https://api.anthropic.com/v1/messages", content=b"{}")
    assert response.status_code == 400


def test_the_pytest_plugin_replays_for_a_marked_test_in_a_users_suite(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "test_user.py").write_text(f"""
import pytest
TOOL = {TOOL!r}
CLEAN = {CLEAN!r}

@pytest.mark.rejections(fronts=["anthropic"])
def test_known(rejection_replay):
    assert rejection_replay({{"tools": [TOOL]}}).status == "rejected"

@pytest.mark.rejections(fronts=["anthropic"])
def test_unknown(rejection_replay):
    assert rejection_replay({{"tools": [CLEAN]}}).status == "unknown"

def test_recording_is_refused(rejection_replay):
    rejection_replay({{"tools": [TOOL]}}, fronts=["anthropic"])
""")
    base = [sys.executable, "-m", "pytest", "-q", "-p", "harness.reject.pytest_plugin", "-p", "no:cacheprovider",
            "--rejections-suite", str(REPO / "cases"), str(tmp_path / "test_user.py")]
    done = subprocess.run([*base, "-k", "not refused"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout
    recording = subprocess.run([*base, "-k", "refused", "--record-mode", "all"], capture_output=True, text=True,
                               cwd=tmp_path, timeout=120)
    assert recording.returncode == 1 and "replay only" in recording.stdout


def test_the_replay_command_prints_the_recorded_answer_and_exits_3(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    body = tmp_path / "body.json"
    body.write_text(json.dumps({"model": "m", "max_tokens": 1, "tools": [TOOL]}))
    harness = Path(sys.executable).parent / "harness"
    done = subprocess.run([str(harness), "replay", str(body), "--lane",
                           "custom-gateway-claude", "--suite", str(REPO / "cases")],
                          capture_output=True, text=True, timeout=120)
    if "custom-gateway-claude" in done.stderr and done.returncode == 2:
        pytest.skip("the seed 001 lanes are not in the bundled suite")
    assert done.returncode == 3, done.stderr
    assert "replayed 400" in done.stdout and "anthropic.root-composition" in done.stdout


def test_pytest_recording_loads_a_bundled_cassette_unchanged(tmp_path: Path) -> None:
    import subprocess
    import sys

    cassette = REPO / "cassettes" / "openai-chat" / "openai-chat.tool-name-pattern.yaml"
    (tmp_path / "test_pr.py").write_text(f"""
import httpx
import pytest

@pytest.mark.vcr({str(cassette)!r})
def test_recorded():
    response = httpx.post("https://api.openai.com/v1/chat/completions", content=b"{{}}")
    assert response.status_code == 400
    assert "does not match pattern" in response.text
""")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--record-mode", "none",
                           "--block-network", str(tmp_path / "test_pr.py")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
