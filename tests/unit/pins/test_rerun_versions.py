"""A version matrix run (``harness run --versions``, or suite.yaml's ``matrix:``) names each pair's
results ``case@1.0.0..2.0.0[lane]``: plain pytest never collects those, so every id such a run
prints is the whole command, with the versions that make the pairs (``--harness-versions``)."""

from __future__ import annotations

import shlex
from typing import Any

from rich.console import Console

from harness._cli.output import render_text
from harness._pins.rerun import command, pytest_options
from harness._runner import RunOptions

PAIR_PIN = "suite/tiny.cases.yaml::slash-name@2.0.0..3.0.0[claude]::max_tokens_stays_1024"


def matrix_report(versions: list[str]) -> dict[str, Any]:
    """A finished matrix run whose one pin failed on the pair 2.0.0 -> 3.0.0."""
    options = RunOptions().as_json(versions)
    results = [{"id": PAIR_PIN, "outcome": "failed", "message": "max_tokens is 4096"}]
    return {"differential": [], "exit": {"code": 1, "reason": f"1 failing pin(s): {PAIR_PIN}"}, "options": options,
            "pins": {"against": "new", "results": results, "catches_old": None,
                     "summary": {"passed": 0, "failed": 1, "skipped": 0, "error": 0}},
            "summary": {"units": 3, "failed": 0, "verdicts": {"identical": 3, "reordered": 0, "intended": 0,
                                                              "unexpected": 0, "error": 0}}}


def test_report_json_records_the_versions_a_run_played() -> None:
    assert RunOptions().as_json(["1.0.0", "2.0.0", "3.0.0"])["versions"] == ["1.0.0", "2.0.0", "3.0.0"]
    assert "versions" not in RunOptions().as_json()  # a run without a matrix: nothing to repeat


def test_a_matrix_run_s_id_is_the_pytest_command_with_its_versions() -> None:
    options = pytest_options(matrix_report(["1.0.0", "2.0.0", "3.0.0"])["options"])
    assert options == ["--harness-versions=1.0.0,2.0.0,3.0.0"]
    assert shlex.split(command(PAIR_PIN, options)) == ["pytest", "--harness-versions=1.0.0,2.0.0,3.0.0", PAIR_PIN]


def test_a_matrix_run_prints_each_failing_pin_as_the_command_that_reruns_it() -> None:
    console = Console(width=400, record=True, soft_wrap=True, file=open("/dev/null", "w"))  # noqa: SIM115
    render_text(matrix_report(["1.0.0", "2.0.0", "3.0.0"]), console)
    lines = console.export_text().splitlines()
    assert f"  FAILED pytest --harness-versions=1.0.0,2.0.0,3.0.0 '{PAIR_PIN}': max_tokens is 4096" in lines
