"""Every id ``harness run`` prints reruns its one result: bare node ids when plain pytest plays
what the run played, the whole command when it needs options (``--old-ref``, against old), a
failing verdict named by its expect item, and no ``[lane]`` lost to the terminal's markup."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from rich.console import Console

from harness._baseline.compare import compare, findings, judge
from harness._cli.output import render_text
from harness._pins import cache
from harness._pins.rerun import command, expect_ids, pytest_options

SHA = "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c"
EXPECT = "suite/shop.cases.yaml::search[first]::expect"
PIN = "suite/shop.cases.yaml::search[first]::no_x"


def run_report(options: dict[str, Any] | None = None, reason: str = "1 failing pin(s)") -> dict[str, Any]:
    """A finished run's report: search fails on lane first, as its verdict and one pin."""
    row = {"subject": "shop", "case": "search", "lane": "first", "verdict": "unexpected", "failed": True,
           "detail": "1 differing path(s)", "file": "shop.cases.yaml"}
    results = [{"id": EXPECT, "outcome": "failed", "message": "verdict unexpected"},
               {"id": PIN, "outcome": "failed", "message": "$ matches the forbidden shape"},
               {"id": "suite/test_py.py::test_x", "outcome": "passed", "message": ""}]
    return {"differential": [row], "exit": {"code": 1, "reason": reason},
            "options": {"pins_against": "new", "pins": True, **(options or {})},
            "pins": {"against": "new", "results": results, "summary": {"passed": 1, "failed": 2, "skipped": 0,
                                                                       "error": 0}, "catches_old": None},
            "summary": {"units": 1, "failed": 1, "verdicts": {"identical": 0, "reordered": 0, "intended": 0,
                                                              "unexpected": 1, "error": 0}}}


def printed(report: dict[str, Any]) -> list[str]:
    console = Console(width=400, record=True, soft_wrap=True, file=open("/dev/null", "w"))  # noqa: SIM115
    render_text(report, console)
    return console.export_text().splitlines()


def test_plain_pytest_reruns_a_working_tree_run_s_ids_so_they_print_bare() -> None:
    assert pytest_options({"pins_against": "new"}) == []
    assert command(PIN, []) == PIN


def test_an_old_ref_run_s_ids_print_as_the_whole_command_with_its_revisions() -> None:
    options = pytest_options({"pins_against": "old", "revisions": {"old": SHA}})
    assert options == ["--harness-against=old", f"--harness-revisions=old:{SHA}"]
    assert shlex.split(command(PIN, options)) == ["pytest", *options, PIN]  # one shell word per part


def test_a_case_x_lane_s_expect_item_is_found_from_the_pins_results() -> None:
    assert expect_ids(run_report()["pins"]) == {"search[first]": EXPECT}
    assert expect_ids(None) == {}


def test_the_exit_line_keeps_each_id_s_lane_in_brackets() -> None:
    """rich read ``[first]`` as a style tag and printed ``search::no_x``, which pytest cannot find."""
    lines = printed(run_report(reason=f"1 new failing pin(s): {PIN}"))
    assert f"exit 1: 1 new failing pin(s): {PIN}" in lines


def test_a_failing_verdict_is_printed_as_the_expect_item_that_reruns_it() -> None:
    lines = printed(run_report())
    assert f"  FAIL {EXPECT}: unexpected: 1 differing path(s)" in lines
    assert f"  FAILED {PIN}: $ matches the forbidden shape" in lines


def test_an_old_ref_run_prints_each_failing_id_as_the_command_that_reruns_it() -> None:
    lines = printed(run_report({"revisions": {"old": SHA}}))
    rerun = f"pytest --harness-revisions=old:{SHA} '{PIN}'"
    assert f"  FAILED {rerun}: $ matches the forbidden shape" in lines
    assert f"  FAIL pytest --harness-revisions=old:{SHA} '{EXPECT}': unexpected: 1 differing path(s)" in lines


def test_a_baseline_s_new_findings_are_named_by_the_ids_that_rerun_them() -> None:
    report = run_report({"revisions": {"old": SHA}})
    report["rejections"] = None
    report["baseline"] = compare(findings(report), {}, "base-run", "new")
    _, reason = judge(report, "new")
    assert reason == (f"1 new failing verdict(s): pytest --harness-revisions=old:{SHA} '{EXPECT}'; "
                      f"2 new failing pin(s): pytest --harness-revisions=old:{SHA} '{EXPECT}', "
                      f"pytest --harness-revisions=old:{SHA} '{PIN}'")


def test_a_session_at_a_revision_and_a_later_one_without_it_do_not_share_a_loaded_suite(tmp_path: Path) -> None:
    """In one process (pytester, an IDE) a printed ``--harness-revisions`` command and then the
    bare id: the second session must not judge with the suite loaded at the revision."""
    try:
        cache.set_revisions(SHA, None)
        at_revision = cache._key(tmp_path)
    finally:
        cache.set_revisions(None, None)
    assert at_revision != cache._key(tmp_path) and SHA in at_revision


def test_run_from_below_the_project_root_says_where_the_ids_rerun() -> None:
    console = Console(width=400, record=True, soft_wrap=True, file=open("/dev/null", "w"))  # noqa: SIM115
    render_text(run_report(), console, root="..")
    assert "the ids above are relative to the project root: rerun one there, `cd .. && pytest ID`" in \
        console.export_text().splitlines()
    assert not any("relative to the project root" in line for line in printed(run_report()))
