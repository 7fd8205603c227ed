"""Divergences declared above the case (suite.yaml, a lane): a body-wide change is declared once,
and each case's own expectation still governs every other path."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._compare import compare
from harness._compare.verdict import Judgement
from harness._errors import InputErrors
from harness._load import load_suite
from harness._model import Allowance, Expectation
from tests.unit.compare.test_verdicts import ok

MAX_TOKENS = Allowance(("max_tokens",), "the release raised max_tokens", "suite.yaml")
TYPES = Allowance(("tools[*].type",), "tools gained a type", "lane claude")
OLD = {"max_tokens": 1024, "tools": [{"name": "a", "input_schema": {"oneOf": []}}]}
NEW = {"max_tokens": 4096, "tools": [{"name": "a", "input_schema": {"oneOf": []}}]}


def test_a_case_expecting_same_passes_when_it_differs_only_where_the_suite_allows() -> None:
    got = compare_with(Expectation(above=(MAX_TOKENS,)))
    assert (got.kind, got.failed) == ("intended", False)
    assert got.detail == "suite.yaml allows max_tokens: the release raised max_tokens"


def test_without_the_allowance_the_same_change_is_unexpected() -> None:
    assert compare_with(Expectation()).kind == "unexpected"


def test_a_difference_the_allowance_does_not_cover_still_fails() -> None:
    new = {**NEW, "tools": [{"name": "b", "input_schema": {"oneOf": []}}]}
    got = compare(ok(OLD, "old"), ok(new), Expectation(above=(MAX_TOKENS,)))
    assert (got.kind, got.failed, got.unexpected_paths) == ("unexpected", True, ("tools[0].name",))


def test_a_case_divergence_and_an_allowance_combine() -> None:
    new = {**NEW, "tools": [{"name": "a", "input_schema": {}, "type": "custom"}]}
    exp = Expectation(kind="diverges", why="flattened", paths=("tools[*].input_schema",), above=(MAX_TOKENS, TYPES))
    got = compare(ok(OLD, "old"), ok(new), exp)
    assert (got.kind, got.failed) == ("intended", False)
    assert "flattened; and where suite.yaml allows max_tokens" in got.detail and "lane claude allows" in got.detail


def test_a_case_divergence_that_did_not_happen_is_stale_even_when_an_allowance_did() -> None:
    exp = Expectation(kind="diverges", why="flattened", paths=("tools[*].input_schema",), above=(MAX_TOKENS,))
    got = compare_with(exp)
    assert (got.kind, got.failed) == ("unexpected", True)
    assert got.detail.startswith("declared to diverge, but differs only where suite.yaml allows max_tokens")


def compare_with(exp: Expectation) -> Judgement:
    return compare(ok(OLD, "old"), ok(NEW), exp)


SUITE = """version: 1
subjects:
  s: {old: "pipes:old", new: "pipes:new", wires: [w]}
diverges:
  - {why: body-wide, paths: [max_tokens], lanes: ["fast-*"]}
  - {why: only t, paths: [model], subjects: [t]}
"""
LANES = """version: 1
lanes:
  - {id: fast-a, wire: w, provider: p}
  - {id: slow, wire: w, provider: p, diverges: [{why: the lane adds a type, paths: ["tools[*].type"]}]}
"""


def _suite(tmp_path: Path, suite: str = SUITE) -> Path:
    (tmp_path / "suite.yaml").write_text(suite)
    (tmp_path / "lanes.yaml").write_text(LANES)
    (tmp_path / "pipes.py").write_text("def old(i, lane):\n    return {}\n\ndef new(i, lane):\n    return {}\n")
    (tmp_path / "s.cases.yaml").write_text("version: 1\nsubject: s\ncases:\n  - {id: c, tools: [{name: t}]}\n")
    return tmp_path


def test_the_loader_gives_each_case_the_allowances_of_its_lanes_and_subject(tmp_path: Path) -> None:
    case = load_suite(_suite(tmp_path)).case("c")
    fast, slow = case.expectation("fast-a"), case.expectation("slow")
    assert [a.paths for a in fast.above] == [("max_tokens",)]  # the lane glob matches; subject t does not
    assert [(a.paths, a.source) for a in slow.above] == [(("tools[*].type",), "lane slow")]


def test_an_allowance_without_paths_is_bad_input_naming_the_place(tmp_path: Path) -> None:
    with pytest.raises(InputErrors, match=r"suite\.yaml.*diverges"):
        load_suite(_suite(tmp_path, SUITE.replace("paths: [max_tokens], ", "")))
