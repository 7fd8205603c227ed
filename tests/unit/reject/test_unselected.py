"""Rules that never saw what they judge: a lane whose bodies spell the selected field another way
passes every body unjudged, and the section says so ("N rules selected nothing in M bodies")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness._model import Case, Lane, Observation, Suite
from harness._reject.report import render_markdown, text_lines
from harness._reject.unselected import head
from harness._reject.verdicts import evaluate
from tests.unit.reject.scenario import write_scenario

_LANE = Lane(id="gw", wire="anthropic-messages", provider="custom", fronts=("anthropic",))


def _section(tmp_path: Path, *bodies: Any) -> dict[str, Any]:
    """The section for one case per body, built the same on both sides of lane ``gw``."""
    root = write_scenario(tmp_path)
    cases = tuple(Case(id=f"c{i}", subject="demo", file="x", line=1, title="", input={}, lanes=("gw",), expect={},
                       checks=frozenset(), pins=()) for i in range(len(bodies)))
    suite = Suite(root=str(root), name="tiny", lanes={"gw": _LANE}, subjects={}, cases=cases,
                  settings={"rules": ["rules/*.rules.yaml"], "cassettes": "cassettes"})
    obs = {(f"c{i}", "gw", side): Observation(f"c{i}", "gw", side, "ok", None, body)
           for i, body in enumerate(bodies) for side in ("old", "new")}
    return evaluate(suite, obs)


def _camel(schema: Any) -> dict[str, Any]:
    return {"model": "m", "tools": [{"name": "t", "inputSchema": schema}]}


def test_bodies_that_spell_the_selected_field_another_way_are_warned_about(tmp_path: Path) -> None:
    union = {"type": "object", "oneOf": [{"required": ["a"]}]}
    section = _section(tmp_path, _camel(union), _camel({"type": "object"}))
    assert section["summary"]["new_rejected_bodies"] == 0  # the union passes unseen: the blind spot
    assert section["unselected"] == {"gw": {"bodies": 4, "rules": ["demo.root-composition"]}}
    warning = [line for line in text_lines(section, quiet=True) if "WARNING" in line]
    assert warning == ["  WARNING: on gw, 1 rule(s) selected nothing in 4 bodies (demo.root-composition): the "
                       "lane's bodies never hold the fields these rules judge, so they pass unjudged: the bodies "
                       "spell those fields another way, or the rules were recorded on another request shape than "
                       "this lane's (then nothing recorded judges the lane for them)."]
    assert "**WARNING: on gw, 1 rule(s) selected nothing in 4 bodies" in render_markdown(section)


def test_a_lane_whose_bodies_have_no_tools_or_the_field_once_is_not_warned_about(tmp_path: Path) -> None:
    no_tools = {"model": "m", "messages": []}
    spelled = {"model": "m", "tools": [{"name": "t", "input_schema": {"type": "object"}}]}
    assert _section(tmp_path / "a", no_tools)["unselected"] == {}
    assert _section(tmp_path / "b", _camel({"type": "object"}), spelled)["unselected"] == {}


def test_the_head_of_a_selector_is_the_part_up_to_its_first_wildcard() -> None:
    assert head("tools[*].(function_declarations|functionDeclarations)[*]") == (("key", "tools"), ("any-index", None))
    assert head("response_format.json_schema") is None
