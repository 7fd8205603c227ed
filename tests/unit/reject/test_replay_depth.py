"""Replay refuses a body nested beyond any real request, before matching recurses into it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness._errors import ConfigError
from harness._model import Lane
from harness._reject.cassettes import load_catalog, suite_settings
from harness._reject.replay import MAX_BODY_DEPTH, body_depth, replay

REPO = Path(__file__).resolve().parents[3]
LANE = Lane(id="l", wire="anthropic-messages", provider="anthropic", base_url="https://api.anthropic.com/v1",
            fronts=("anthropic",))


def _nested(levels: int) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "m"}
    node = body
    for _ in range(levels - 1):
        node["a"] = {}
        node = node["a"]
    return body


def test_depth_counts_containers_and_stops_counting_past_the_limit() -> None:
    assert body_depth(3) == 0 and body_depth({"a": [1, {}]}) == 3
    assert body_depth(_nested(5000)) == MAX_BODY_DEPTH + 1


def test_the_library_replay_refuses_a_body_nested_past_the_limit_as_a_bad_argument() -> None:
    catalog = load_catalog(REPO / "cases", suite_settings(REPO / "cases"))
    with pytest.raises(ConfigError, match=f"nesting at most {MAX_BODY_DEPTH} levels deep"):
        replay(catalog, LANE, _nested(5000))
    assert replay(catalog, LANE, _nested(MAX_BODY_DEPTH)).status == "unknown"


def _root_oneof_nested(levels: int) -> dict[str, Any]:
    """A tool whose schema is a root oneOf over an object nesting ``levels`` property levels."""
    inner: dict[str, Any] = {"type": "object"}
    for _ in range(levels):
        inner = {"type": "object", "properties": {"x": inner}}
    return {"model": "m", "tools": [{"name": "t", "input_schema": {"oneOf": [inner]}}]}


def test_a_schema_just_within_the_depth_limit_is_checked_against_its_metaschema_like_any_other() -> None:
    # 97 property levels is 199 deep: accepted, and the metaschema check (about ten frames a
    # level in jsonschema) ran out of Python's default 1,000 frames: RecursionError, exit 70
    catalog = load_catalog(REPO / "cases", suite_settings(REPO / "cases"))
    body = _root_oneof_nested(97)
    assert body_depth(body) <= MAX_BODY_DEPTH
    answer = replay(catalog, LANE, body)
    assert answer.status == "rejected"
    assert "R001" in answer.receipts
