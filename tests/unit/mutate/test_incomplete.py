"""A section that is not a full verdict must not read as one: pending mutants (a merge missing a
shard) make the run incomplete and non-zero; no mutant at all (an --in-diff touching no target)
claims no score; the Markdown section sits under a level-2 heading."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from harness._errors import ConfigError
from harness._exitcodes import ExitCode
from harness._mutate import exit_code, merge, render_markdown, render_summary
from harness._mutate.html_view import render_html
from harness._mutate.results import build_section

REPO = Path(__file__).resolve().parents[3]
PIN = "t.py::test_a"


def _meta(mid: str) -> dict[str, Any]:
    return {"key": f"k-{mid}", "id": mid, "kind": "operator", "file": "m.py", "module": "m", "function": "f",
            "line": 3, "column": 5, "end_line": 3, "end_column": 9, "operator": "BinaryOperation",
            "title": mid, "diff": f"-a\n+{mid}\n", "claims": [], "equivalent": None, "ledger": ""}


def _killed(mid: str) -> dict[str, Any]:
    return {"key": f"k-{mid}", "id": mid, "pins": {PIN: "failed"}, "details": {}, "unviable": None,
            "forks": 1, "duration_s": 0.1}


def _section(ids: list[str], ran: list[str], missing: list[str] | None = None,
             in_diff: str | None = None) -> dict[str, Any]:
    metas = [_meta(i) for i in ids]
    plan = {"selected": [m["key"] for m in metas], "mutants": metas, "suite_prefix": "", "suite_name": "s",
            "threshold": {"max_escaped": 0, "min_score": 90}, "shard": None, "in_diff": in_diff}
    baseline = {"pins": [PIN], "outcomes": {PIN: "passed"}}
    return build_section(plan, baseline, {f"k-{i}": _killed(i) for i in ran}, ["1/2"] if missing else None,
                         missing)


def _valid(section: dict[str, Any]) -> None:
    schema = json.loads((REPO / "harness/_report/schemas/mutation.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(section)


def test_mutants_no_shard_ran_make_the_verdict_incomplete_and_the_exit_code_non_zero() -> None:
    section = _section(["a", "b", "c", "d"], ran=["a", "b"], missing=["2/2"])
    _valid(section)
    assert section["totals"]["pending"] == 2 and section["totals"]["total"] == 4
    assert section["verdict"]["complete"] is False and section["shards_missing"] == ["2/2"]
    assert exit_code(section) == ExitCode.MUTANTS_ESCAPED
    summary = render_summary(section)
    assert "2 pending (shards missing: 2/2)" in summary
    assert "INCOMPLETE" in summary and "Incomplete: 2 mutant(s) pending" in summary


def test_a_complete_section_with_every_mutant_killed_exits_zero() -> None:
    section = _section(["a", "b"], ran=["a", "b"])
    assert section["verdict"]["complete"] is True and section["totals"]["score"] == 100.0
    assert exit_code(section) == ExitCode.OK
    assert "pending" not in render_summary(section) and "Incomplete" not in render_summary(section)


def test_no_mutant_in_the_diff_says_so_and_claims_no_score() -> None:
    section = _section([], ran=[], in_diff="HEAD~5")
    _valid(section)
    assert section["totals"]["score"] is None and section["totals"]["total"] == 0
    assert exit_code(section) == ExitCode.OK  # nothing to mutate is no failure of a pre-merge run
    for text in (render_summary(section), render_markdown(section), render_html(section)):
        assert "no mutants: the diff touches no target function" in text
        assert "Score" not in text and "100.0" not in text


def test_mutants_that_all_stay_pending_have_no_score_rather_than_a_perfect_one() -> None:
    section = _section(["a", "b"], ran=[], missing=["1/2", "2/2"])
    _valid(section)
    assert section["totals"]["score"] is None and exit_code(section) == ExitCode.MUTANTS_ESCAPED
    assert "No score: no mutant was judged" in render_summary(section)


def test_the_markdown_section_starts_with_a_level_two_heading_and_nests_its_parts_below() -> None:
    text = render_markdown(_section(["a"], ran=[]))
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings[0] == "## Mutation: s"
    assert not any(line.startswith("# ") for line in headings)
    assert all(line.startswith("### ") or line.startswith("#### ") for line in headings[1:])


def _shard_folder(folder: Path, k: int, n: int) -> Path:
    folder.mkdir()
    from harness._mutate.mutants import shard_keys

    plan = {"mutants": [_meta("a"), _meta("b")], "selected": sorted(shard_keys(["k-a", "k-b"], k, n)),
            "shard": [k, n], "suite_prefix": "", "root": str(folder)}
    (folder / "plan.json").write_text(json.dumps(plan))
    (folder / "baseline.json").write_text(json.dumps({"pins": [PIN], "outcomes": {PIN: "passed"}}))
    return folder


def test_shards_of_different_splits_are_refused_not_merged(tmp_path: Path) -> None:
    folders = [_shard_folder(tmp_path / "a", 1, 2), _shard_folder(tmp_path / "b", 2, 3)]
    with pytest.raises(ConfigError, match="shards of one split"):
        merge(folders, tmp_path / "m")
    assert not (tmp_path / "m").exists()


def test_a_declared_equivalent_no_shard_ran_is_pending_not_held() -> None:
    meta = {**_meta("same"), "kind": "declared", "equivalent": "a rename", "ledger": "x:1"}
    plan = {"selected": ["k-same"], "mutants": [meta], "suite_prefix": "", "suite_name": "s",
            "threshold": {}, "shard": None}
    section = build_section(plan, {"pins": [PIN], "outcomes": {PIN: "passed"}}, {}, None, ["2/2"])
    _valid(section)
    assert section["mutants"][0]["claim"]["result"] == "pending"
    assert "equivalent (held)" not in render_markdown(section)


def test_a_merge_names_the_slices_given_and_the_slices_of_the_split_missing(tmp_path: Path) -> None:
    folders = [_shard_folder(tmp_path / "c", 3, 4), _shard_folder(tmp_path / "a", 1, 4)]
    section = merge(folders, tmp_path / "m")
    assert section["shard"] == ["1/4", "3/4"]
    assert section["shards_missing"] == ["2/4", "4/4"]
    assert "shards missing: 2/4, 4/4" in render_summary(section)
