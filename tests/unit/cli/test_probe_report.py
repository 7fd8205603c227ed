"""`harness probe`: the bodies it reads (a file, a run) and its closing report: a line per drifted,
unchecked or unrecorded request, the counts, and exit 5 whenever anything drifted or could not be
checked (never green unchecked)."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from harness._cli.probe import _bodies, _report, _run_bodies
from harness._errors import ConfigError
from harness._exitcodes import ExitCode
from harness._load import load_suite
from harness._reject.probe import ProbeItem

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
HELD = ProbeItem("R1", "demo.rule", "still-rejected", 400)
DRIFTED = ProbeItem("R2", "demo.rule", "passes-now", 200, "accepted now")
MISSED = ProbeItem("B1", None, "error", None, "timed out")
REFUSED = ProbeItem("R3", "demo.other", "still-rejected", 400, refused="a credential in the answer")


def _printed(capsys: pytest.CaptureFixture[str], items: list[ProbeItem]) -> tuple[int, list[str]]:
    code = _report("loop", Path("rec"), items)
    return code, capsys.readouterr().out.splitlines()


def test_a_probe_where_every_request_held_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert _printed(capsys, [HELD]) == (ExitCode.OK, ["probe loop: 1 request(s): 1 still-rejected; recorded in rec"])


def test_each_drifted_unchecked_or_unrecorded_request_gets_its_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert _printed(capsys, [HELD, DRIFTED, MISSED, REFUSED]) == (ExitCode.DRIFT, [
        "passes-now: R2 (demo.rule) status 200: accepted now",
        "could not check: B1 (no rule): timed out",
        "a credential in the answer: R3 (demo.other); its outcome (still-rejected) stands",
        "probe loop: 4 request(s): 1 error, 1 passes-now, 2 still-rejected; recorded in rec",
        "drift: 1 of 4 request(s) answered differently from the record",
        "could not check: 1 of 4 request(s) got no answer to compare (not drift, but not a pass either); exit 5",
    ])


def test_a_request_with_no_answer_alone_is_exit_5(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = _printed(capsys, [MISSED])
    assert code == ExitCode.DRIFT and lines[-1].startswith("could not check: 1 of 1 request(s)")


def test_nothing_to_probe_is_exit_5_not_a_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert _printed(capsys, []) == (ExitCode.DRIFT, [
        "probe loop: 0 request(s): none; recorded in rec",
        "could not check: nothing to probe on loop (no recorded rejection of its validators and no uncovered "
        "body); exit 5, not a pass",
    ])


def test_bodies_reads_one_body_a_line_unwrapping_a_body_field_and_skipping_blank_lines(tmp_path: Path) -> None:
    seen = tmp_path / "bodies.jsonl"
    seen.write_text('{"body": {"model": "a"}}\n\n  \n{"model": "b"}\n[1, 2]\n{"bodyless": 1}\n')
    assert _bodies(seen) == [{"model": "a"}, {"model": "b"}, [1, 2], {"bodyless": 1}]
    assert _bodies(None) == []


def test_a_bad_bodies_line_is_a_bad_argument_naming_its_line(tmp_path: Path) -> None:
    seen = tmp_path / "bodies.jsonl"
    seen.write_text('{"model": "a"}\n{"model": \n')
    with pytest.raises(ConfigError) as got:
        _bodies(seen)
    assert str(got.value).startswith(f"--bodies='{seen}:2': expected one JSON body a line (")


def test_from_run_builds_the_new_pipelines_request_bodies_of_the_lane() -> None:
    suite = load_suite(SCENARIOS / "mutate" / "cased")
    assert _run_bodies(suite, "one") == [{"model": "m-1", "tools": [
        {"name": "t", "description": "d", "input_schema": {"type": "object"}}]}]
    assert _run_bodies(dataclasses.replace(suite, cases=()), "one") == []


def test_from_run_leaves_out_a_subject_whose_output_is_not_a_request_body(tmp_path: Path) -> None:
    folder = shutil.copytree(SCENARIOS / "mutate" / "cased", tmp_path / "cased")
    suite_yaml = folder / "suite.yaml"
    suite_yaml.write_text(suite_yaml.read_text().replace("    wires: [echo-wire]\n",
                                                         "    wires: [echo-wire]\n    output: value\n"))
    assert _run_bodies(load_suite(folder), "one") == []
