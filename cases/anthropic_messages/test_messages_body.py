"""Python pins: what a declarative pin cannot say in one line. They receive observations through
the ``observe`` fixture (harness.pins.plugin) and run as ordinary pytest items beside the case files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness import suite_for

SUITE = suite_for(Path(__file__))
CASE = "mcp-root-oneof-lanes"


@pytest.mark.parametrize("lane", SUITE.case(CASE).lanes)
def test_every_lane_ships_a_real_messages_body_with_each_tool_in_order(observe: Any, lane: str) -> None:
    body = observe(CASE, lane).value
    assert list(body) == ["model", "max_tokens", "messages", "tools"]
    assert isinstance(body["max_tokens"], int) and body["max_tokens"] > 0
    assert body["messages"] and body["messages"][0]["role"] == "user"
    declared = [t["name"] for t in SUITE.case(CASE).input["tools"]]
    assert [t["name"] for t in body["tools"]] == declared
    assert all(list(t) == ["name", "description", "input_schema"] for t in body["tools"])


# body.DEFAULT_MODEL written out, so a change to the placeholder turns this pin red.
PLACEHOLDER_MODEL = "claude-sonnet-4-5"


@pytest.mark.parametrize("lane", SUITE.case(CASE).lanes)
def test_the_model_comes_from_the_lane_or_else_the_placeholder(observe: Any, lane: str) -> None:
    wanted = SUITE.lanes[lane].model or PLACEHOLDER_MODEL
    assert observe(CASE, lane).value["model"] == wanted


def test_a_lane_without_a_model_gets_the_placeholder(observe: Any) -> None:
    # named on its own so that dropping the bundled lane without a model fails here, rather
    # than leaving the placeholder branch above silently unexercised
    assert SUITE.lanes["custom-no-model"].model is None
    assert observe(CASE, "custom-no-model").value["model"] == PLACEHOLDER_MODEL
