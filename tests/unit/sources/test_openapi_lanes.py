"""The shipping view: a subject's pipelines over imported tools, lane by lane (``--lanes``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness._errors import InputError, InputErrors
from harness._model import Lane, Subject
from harness._sources.openapi.lanes import load_lanes, rules_beside, ship

COMPOSED = {"name": "pick", "description": "", "input_schema": {"type": "object", "anyOf": [{"required": ["a"]}]}}
PLAIN = {"name": "plain", "description": "", "input_schema": {"type": "object"}}
BOOM = {"name": "boom", "description": "", "input_schema": {"type": "object", "oneOf": [{}]}}


def verbatim(data: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    if any(t["name"] == "boom" for t in data["tools"]):
        raise ValueError("boom")
    return {"tools": [{"name": t["name"], "input_schema": t["input_schema"]} for t in data["tools"]]}


def narrowing(data: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    return {"tools": [{"name": t["name"], "input_schema": {k: v for k, v in t["input_schema"].items()
                                                          if k not in ("anyOf", "oneOf", "allOf")}}
                      for t in data["tools"]]}


SUBJECT = Subject(name="toy", old=f"{__name__}:narrowing", new=f"{__name__}:verbatim", wires=frozenset({"toy"}))
LANES = [Lane(id="toy-lane", wire="toy", provider="p"), Lane(id="other-wire", wire="else", provider="p")]


def test_each_lane_and_side_says_what_the_composed_tools_ship_as() -> None:
    rows = ship([COMPOSED, PLAIN], SUBJECT, LANES)
    assert [(r.lane, r.side, dict(r.counts)) for r in rows] == [
        ("toy-lane", "old", {"narrowed": 1, "errors_any_tool": 0}),
        ("toy-lane", "new", {"kept": 1, "errors_any_tool": 0}),
    ]


def test_a_pipeline_that_raises_on_one_tool_is_retried_tool_by_tool() -> None:
    rows = ship([COMPOSED, BOOM, PLAIN], SUBJECT, LANES, sides=("new",))
    assert dict(rows[0].counts) == {"kept": 1, "error": 1, "errors_any_tool": 1}
    assert rows[0].examples == {"kept": ["pick"], "error": ["boom"]}


def test_lanes_come_from_a_lanes_file_or_a_suite_folder(tmp_path: Path) -> None:
    (tmp_path / "lanes").mkdir()
    (tmp_path / "lanes" / "a.yaml").write_text("version: 1\nlanes:\n  - {id: a, wire: toy, provider: p}\n")
    assert [lane.id for lane in load_lanes(tmp_path)] == ["a"]
    assert [lane.id for lane in load_lanes(tmp_path / "lanes" / "a.yaml")] == ["a"]


def editing(data: dict[str, Any], lane: dict[str, Any]) -> dict[str, Any]:
    for t in data["tools"]:
        t["input_schema"].pop("anyOf", None)  # edits its input in place
    return {"tools": data["tools"]}


def test_a_pipeline_editing_its_input_in_place_does_not_change_the_next_call() -> None:
    subject = Subject(name="toy", old=f"{__name__}:editing", new=f"{__name__}:verbatim", wires=frozenset({"toy"}))
    tools = [COMPOSED]
    rows = ship(tools, subject, LANES)
    assert [dict(r.counts) for r in rows] == [{"narrowed": 1, "errors_any_tool": 0},
                                              {"kept": 1, "errors_any_tool": 0}]
    assert "anyOf" in COMPOSED["input_schema"]


@pytest.mark.parametrize(("suite_yaml", "where"), [("rules: 5\n", "rules"), ("- x\n", "")])
def test_a_malformed_suite_yaml_beside_the_lanes_is_one_input_error(
        tmp_path: Path, suite_yaml: str, where: str) -> None:
    (tmp_path / "suite.yaml").write_text(suite_yaml)
    with pytest.raises((InputError, InputErrors)) as caught:
        rules_beside(tmp_path)
    errors = caught.value.errors if isinstance(caught.value, InputErrors) else [caught.value]
    assert any(e.place.file.endswith("suite.yaml") and e.place.path == where for e in errors), errors
