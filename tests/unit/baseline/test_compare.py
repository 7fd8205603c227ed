"""A run compared with its baseline: findings named the same in both runs, new vs still vs fixed,
and the exit code when only new findings fail."""

from __future__ import annotations

from typing import Any

import pytest

from harness._baseline import compare, escape_names, findings, judge, mutation_exit
from harness._errors import ConfigError
from harness._evidence.runs import run_folder
from harness._exitcodes import ExitCode


def _mutant(number: int, line: int, change: str, status: str, function: str = "f") -> dict[str, Any]:
    return {"id": f"pipe.x_{function}__mutmut_{number}", "kind": "operator", "file": "pipe.py", "function": function,
            "operator": "Op", "line": line, "status": status, "title": change,
            "diff": f"--- a/pipe.py\n+++ b/pipe.py\n@@ -{line},1 +{line},1 @@\n-    {change}\n+    {change} + 1\n"}


def _section(mutants: list[dict[str, Any]], in_diff: str | None = None) -> dict[str, Any]:
    escaped = [m["id"] for m in mutants if m["status"] == "survived"]
    return {"mutants": mutants, "escaped": escaped, "claims_failed": [], "in_diff": in_diff,
            "verdict": {"escaped_over_threshold": False, "claims_failed": False, "complete": True}}


def _report(failing: list[str], undeclared: list[str], mutation: dict[str, Any] | None = None) -> dict[str, Any]:
    rows = [{"case": c, "lane": "l", "failed": True} for c in failing]
    hits = [{"case": c, "lane": "l", "side": "new", "status": "known-rejected",
             "rejections": [{"rule": "r", "expected": False}]}
            for c in undeclared]
    return {"differential": rows, "pins": None, "rejections": {"findings": hits}, "mutation": mutation,
            "baseline": None}


def test_an_escape_keeps_its_name_when_edits_elsewhere_renumber_and_move_it() -> None:
    before = escape_names(_section([_mutant(3, 10, "x = a", "survived")]))
    after = escape_names(_section([_mutant(1, 25, "y = b", "killed"), _mutant(7, 31, "x = a", "survived")]))
    assert list(before) == list(after)
    assert list(after.values()) == ["pipe.x_f__mutmut_7"]


def test_two_identical_changes_in_one_function_are_two_escapes() -> None:
    names = escape_names(_section([_mutant(1, 3, "x = a", "survived"), _mutant(2, 9, "x = a", "survived")]))
    assert len(names) == 2


def test_new_still_and_fixed_are_told_apart_by_kind() -> None:
    base = _report(["a", "b"], ["a"], _section([_mutant(1, 1, "old", "survived")]))
    now = _report(["b", "c"], ["a", "c"], _section([_mutant(1, 1, "old", "survived"), _mutant(2, 2, "new", "survived"),
                                                    _mutant(3, 3, "newer", "survived")]))
    delta = compare(findings(now), findings(base), "reports/base", "new")
    assert delta["new"]["verdicts"] == ["c[l]"] and delta["still"]["verdicts"] == ["b[l]"]
    assert delta["fixed"]["verdicts"] == ["a[l]"]
    assert delta["new"]["rejections"] == ["c[l]: r"] and delta["still"]["rejections"] == ["a[l]: r"]
    assert delta["new"]["escapes"] == ["pipe.x_f__mutmut_2", "pipe.x_f__mutmut_3"]
    assert delta["counts"]["escapes"] == {"new": 2, "still": 1, "fixed": 0}


def test_with_fail_on_new_only_new_findings_fail_and_the_lowest_code_wins() -> None:
    base = _report(["b"], ["a"], _section([_mutant(1, 1, "old", "survived")]))
    now = _report(["b"], ["a", "c"], _section([_mutant(1, 1, "old", "survived"), _mutant(2, 2, "new", "survived")]))
    now["baseline"] = compare(findings(now), findings(base), "reports/base", "new")
    code, reason = judge(now, "new")
    assert code == ExitCode.KNOWN_REJECTION and "1 new undeclared rejection(s): c[l]: r" in reason
    unchanged = _report(["b"], ["a"], _section([_mutant(9, 40, "old", "survived")]))
    unchanged["baseline"] = compare(findings(unchanged), findings(base), "reports/base", "new")
    assert judge(unchanged, "new") == (ExitCode.OK, "no new finding since base")
    assert judge(unchanged, "any")[0] == ExitCode.DIVERGENCE  # everything counts again


def test_in_diff_fails_on_any_escape_whatever_the_suite_threshold() -> None:
    section = _section([_mutant(1, 1, "x", "survived")], in_diff="origin/main")
    assert section["verdict"]["escaped_over_threshold"] is False  # under the suite's threshold
    assert mutation_exit(section, None, "any") == ExitCode.MUTANTS_ESCAPED
    assert mutation_exit({**section, "escaped": []}, None, "any") == ExitCode.OK


def test_a_baseline_path_without_a_run_is_one_clear_error(tmp_path: Any) -> None:
    with pytest.raises(ConfigError, match=r"--baseline=.*a finished run folder"):
        run_folder(tmp_path / "nowhere", "--baseline")


def test_a_run_that_mutated_only_the_diff_does_not_call_the_other_escapes_fixed() -> None:
    base = _section([_mutant(1, 1, "kept", "survived", "f"), _mutant(2, 5, "elsewhere", "survived", "g")])
    now = _section([_mutant(1, 1, "kept", "survived", "f")], in_diff="main")
    delta = compare(findings(_report([], [], now)), findings(_report([], [], base)), "b", "new")
    assert delta["counts"]["escapes"] == {"new": 0, "still": 1, "fixed": 0}


def test_without_a_baseline_every_finding_counts_the_first_three_named_and_the_lowest_code_wins() -> None:
    report = _report(["a", "b", "c", "d"], ["e"])
    assert judge(report, "any") == (ExitCode.DIVERGENCE, "4 failing verdict(s): a[l], b[l], c[l] …")
    assert judge(_report([], ["e"]), "any") == (ExitCode.KNOWN_REJECTION, "1 undeclared rejection(s): e[l]: r")
    assert judge(_report([], []), "any") == (ExitCode.OK, "clean")


def test_an_incomplete_mutation_run_fails_with_its_reason_beside_the_other_findings() -> None:
    section = _section([_mutant(1, 1, "x", "survived")])
    section["verdict"]["complete"] = False
    code, reason = judge(_report([], [], section), "any")
    assert code == ExitCode.MUTANTS_ESCAPED
    assert reason == "1 escaped mutant(s), 0 failed claim(s): pipe.x_f__mutmut_1 (incomplete)"
