"""`harness bless` edits only the expect block of the cases it accepts: every other byte of the
case file stays, and the accepted divergence carries `why: TODO` for a person to replace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from harness._errors import ConfigError
from harness._evidence.accept import bless_divergences, blessable, case_lanes

CASES = """version: 1
subject: echo
# a comment the author wants kept
cases:
  - id: flat            # no expect at all
    tools:
      - {name: t, description: d, input_schema: {type: object, oneOf: [{required: [a]}, {required: [b]}]}}
    pins:
      - {name: p, kind: schema, select: model, must_match: {type: string}}

  - id: declared
    tools: [{name: t, description: d, input_schema: {type: object}}]
    expect:
      # why the star entry is there
      "*": {diverges: {why: the new line adds a note, paths: ["tools[*].description"]}}
      lane-b: same
    checks: [deterministic]
"""


def _row(case: str, lane: str, paths: list[str], verdict: str = "unexpected") -> dict[str, Any]:
    return {"case": case, "lane": lane, "file": "echo.cases.yaml", "failed": True, "verdict": verdict,
            "unexpected_paths": paths}


def test_an_accepted_divergence_is_written_with_a_todo_and_nothing_else_moves(tmp_path: Path) -> None:
    (tmp_path / "echo.cases.yaml").write_text(CASES)
    rows = [_row("flat", "lane-a", ["model"]), _row("declared", "lane-a", ["max_tokens"]),
            _row("declared", "lane-b", ["tools[0].name"])]
    done = bless_divergences(tmp_path, rows)
    text = (tmp_path / "echo.cases.yaml").read_text()
    assert [(b.case, b.lane, b.line) for b in done] == [("flat", "lane-a", 5), ("declared", "lane-a", 16),
                                                       ("declared", "lane-b", 16)]
    value = yaml.safe_load(text)["cases"]
    assert value[0]["expect"] == {"lane-a": {"diverges": {"why": "TODO", "paths": ["model"]}}}
    expect = value[1]["expect"]
    assert expect["*"] == {"diverges": {"why": "the new line adds a note", "paths": ["tools[*].description"]}}
    # the lane's own entry replaces "*" for that lane, so it keeps what "*" declared
    assert expect["lane-a"] == {"diverges": {"why": "TODO", "paths": ["tools[*].description", "max_tokens"]}}
    assert expect["lane-b"] == {"diverges": {"why": "TODO", "paths": ["tools[0].name"]}}  # was `same`
    assert "why: TODO  # was: the new line adds a note" in text
    kept = [line for line in CASES.splitlines() if "lane-b: same" not in line]
    for line in kept:
        assert line in text.splitlines(), line  # comments, flow style and blank lines untouched
    assert text.index("  - id: declared") > text.index("lane-a:\n        diverges:\n          why: TODO")


def test_only_failing_divergences_of_the_chosen_case_and_lanes_are_blessed() -> None:
    report = {"differential": [_row("a", "x", ["p"]), _row("a", "y", ["p"]), _row("b", "x", ["p"]),
                               {**_row("a", "z", []), "failed": False, "verdict": "intended"}]}
    assert [(r["case"], r["lane"]) for r in blessable(report, "a", ["x*"])] == [("a", "x")]
    assert len(blessable(report, None, [])) == 3
    with pytest.raises(ConfigError, match="a case of the run"):
        blessable(report, "nope", [])


def test_a_lane_entry_blessed_again_keeps_its_paths_and_what_it_said_about_raising(tmp_path: Path) -> None:
    (tmp_path / "echo.cases.yaml").write_text(
        "version: 1\nsubject: echo\ncases:\n  - id: raises\n    tools: []\n    expect:\n"
        "      lane-a: {diverges: {why: old   line\n          wraps, paths: [a], old_raises: ValueError}}\n"
        "      lane-b: {diverges: not-a-mapping}\n")
    bless_divergences(tmp_path, [_row("raises", "lane-a", ["b"]), _row("raises", "lane-b", ["c"])])
    text = (tmp_path / "echo.cases.yaml").read_text()
    expect = yaml.safe_load(text)["cases"][0]["expect"]
    assert expect["lane-a"] == {"diverges": {"why": "TODO", "paths": ["a", "b"], "old_raises": "ValueError"}}
    assert expect["lane-b"] == {"diverges": {"why": "TODO", "paths": ["c"]}}
    assert "why: TODO  # was: old line wraps" in text


SIXTEEN = [f"lane-{i:02}" for i in range(16)]
TWO_CASES = """version: 1
subject: echo
cases:
  - id: first
    tools: [{name: t, description: d, input_schema: {type: object}}]
  - id: second
    tools: [{name: u, description: d, input_schema: {type: object}}]
    expect:
      lane-03: same
"""


def _strict_rows(cases: list[str], lanes: list[str]) -> list[dict[str, Any]]:
    return [_row(case, lane, ["tools[0].strict"]) for case in cases for lane in lanes]


def test_one_change_on_every_lane_of_a_case_is_one_star_block_with_one_why(tmp_path: Path) -> None:
    (tmp_path / "echo.cases.yaml").write_text(TWO_CASES.replace("    expect:\n      lane-03: same\n", ""))
    every = {("echo.cases.yaml", c): SIXTEEN for c in ("first", "second")}
    done = bless_divergences(tmp_path, _strict_rows(["first", "second"], SIXTEEN), every)
    text = (tmp_path / "echo.cases.yaml").read_text()
    assert [(b.case, b.lane) for b in done] == [("first", "*"), ("second", "*")]
    assert text.count("why: TODO") == 2 and len(text.splitlines()) == 7 + 2 * 5
    for case in yaml.safe_load(text)["cases"]:
        assert case["expect"] == {"*": {"diverges": {"why": "TODO", "paths": ["tools[0].strict"]}}}


def test_lanes_sharing_a_change_short_of_every_lane_share_one_anchored_block(tmp_path: Path) -> None:
    (tmp_path / "echo.cases.yaml").write_text(TWO_CASES)
    every = {("echo.cases.yaml", c): SIXTEEN for c in ("first", "second")}
    rows = _strict_rows(["first"], SIXTEEN[:5]) + _strict_rows(["second"], SIXTEEN)
    rows.append(_row("first", "lane-09", ["max_tokens"]))
    done = bless_divergences(tmp_path, rows, every)
    text = (tmp_path / "echo.cases.yaml").read_text()
    assert [(b.case, b.lane) for b in done] == [
        ("first", "lane-00, lane-01, lane-02, lane-03, lane-04"), ("first", "lane-09"), ("second", ", ".join(SIXTEEN))]
    assert text.count("why: TODO") == 3  # one per case and change
    first, second = yaml.safe_load(text)["cases"]  # aliases read back as the anchored block
    strict = {"diverges": {"why": "TODO", "paths": ["tools[0].strict"]}}
    assert first["expect"] == {**dict.fromkeys(SIXTEEN[:5], strict),
                               "lane-09": {"diverges": {"why": "TODO", "paths": ["max_tokens"]}}}
    # lane-03's own entry (`same`) is rewritten where it stands and holds the anchor
    assert second["expect"] == dict.fromkeys(["lane-03", *SIXTEEN], strict)
    assert "      lane-03: &blessed-2\n" in text and "      lane-00: *blessed-2\n" in text


def test_blessing_again_the_lane_that_holds_an_anchor_leaves_its_aliases_what_they_were(tmp_path: Path) -> None:
    (tmp_path / "echo.cases.yaml").write_text(TWO_CASES)
    bless_divergences(tmp_path, _strict_rows(["first"], ["lane-00", "lane-01"]), {})
    bless_divergences(tmp_path, [_row("first", "lane-00", ["max_tokens"])], {})
    expect = yaml.safe_load((tmp_path / "echo.cases.yaml").read_text())["cases"][0]["expect"]
    assert expect == {"lane-00": {"diverges": {"why": "TODO", "paths": ["tools[0].strict", "max_tokens"]}},
                      "lane-01": {"diverges": {"why": "TODO", "paths": ["tools[0].strict"]}}}


def test_a_run_of_some_lanes_never_blesses_for_every_lane() -> None:
    rows = _strict_rows(["first"], ["lane-00"])
    report = {"options": {"lanes": ["lane-0*"]}, "differential": [{**r, "file": "f"} for r in rows]}
    assert case_lanes(report) == {}
    assert case_lanes({**report, "options": {"lanes": []}}) == {("f", "first"): ["lane-00"]}
