"""`harness show`, `bless` and `--baseline` read only inside the run folder: a report whose body
link is `../../outside_secret.json`, absolute, or a symlink out of the folder is one clear error
naming the report and the place, and the file outside is never printed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from harness._baseline.compare import load_baseline
from harness._cli.main import cli
from harness._errors import InputError
from harness._evidence.runs import load_report, run_file
from harness._evidence.store import load_observations
from harness._exitcodes import ExitCode
from harness._report.validate import validate_report
from tests.fuzzing import fuzz

SCENARIO = Path(__file__).parents[2] / "scenarios" / "reports" / "small.report.json"
SECRET = '{"outside": "the secret file a crafted report tried to print"}'
CASE, LANE = "registry-nested-shapes", "anthropic-first-party"


def _run(tmp_path: Path, old_link: str) -> Path:
    """A run folder two levels below a secret file, its first row's old body linked at ``old_link``."""
    (tmp_path / "outside_secret.json").write_text(SECRET)
    folder = tmp_path / "reports" / "run-1"
    folder.mkdir(parents=True)
    report: dict[str, Any] = json.loads(SCENARIO.read_text(encoding="utf-8"))
    report["differential"][0]["evidence"]["old"] = old_link
    (folder / "report.json").write_text(json.dumps(report))
    return folder


@pytest.mark.parametrize("link", ["../../outside_secret.json", "observations/../../../outside_secret.json",
                                  "/etc/passwd"])
def test_show_refuses_a_report_linking_a_body_outside_its_folder_and_prints_nothing_of_it(
        tmp_path: Path, link: str) -> None:
    folder = _run(tmp_path, link)
    got = CliRunner().invoke(cli, ["show", CASE, LANE, "--run", str(folder)])
    assert got.exit_code == ExitCode.BAD_INPUT, got.output
    assert "outside" not in got.stdout and "root:" not in got.stdout
    assert got.stderr == (f"harness: {folder / 'report.json'} at differential[0].evidence.old: expected a path "
                          f"inside the run folder, found {link!r}\n")


def test_a_symlink_in_the_run_folder_leading_out_of_it_is_refused_when_read(tmp_path: Path) -> None:
    link = "observations/bodies/aa/" + "a" * 64 + ".json"
    folder = _run(tmp_path, link)
    (folder / link).parent.mkdir(parents=True)
    os.symlink(tmp_path / "outside_secret.json", folder / link)
    got = CliRunner().invoke(cli, ["show", CASE, LANE, "--run", str(folder)])
    assert got.exit_code == ExitCode.BAD_INPUT, got.output
    assert "the secret file" not in got.stdout
    assert f"at evidence: expected a path inside the run folder, found {link!r}, which resolves outside" in got.stderr


def test_bless_and_a_baseline_refuse_the_same_report(tmp_path: Path) -> None:
    folder = _run(tmp_path, "../../outside_secret.json")
    got = CliRunner().invoke(cli, ["bless", "--all", "--run", str(folder), "--suite", str(tmp_path)])
    assert got.exit_code == ExitCode.BAD_INPUT and "differential[0].evidence.old" in got.stderr, got.output
    with pytest.raises(InputError, match=r"differential\[0\]\.evidence\.old: expected a path inside the run folder"):
        load_baseline(folder, validate_report)


def test_an_observation_index_naming_a_body_by_a_path_is_refused(tmp_path: Path) -> None:
    (tmp_path / "outside.json").write_text("{}")
    store = tmp_path / "run" / "observations"
    store.mkdir(parents=True)
    line = {"case": "c", "lane": "l", "side": "old", "outcome": "ok", "body": "../../../outside"}
    (store / "observations.jsonl").write_text(json.dumps(line) + "\n")
    with pytest.raises(InputError, match="expected a body's sha256 digest"):
        load_observations(store)


def test_a_report_written_by_the_harness_still_loads_and_its_bodies_are_read(tmp_path: Path) -> None:
    folder = _run(tmp_path, "observations/bodies/ab/" + "b" * 64 + ".json")
    assert load_report(folder, validate_report)["differential"][0]["evidence"]["old"].startswith("observations/")
    assert run_file(folder, "observations/x.json") == (folder / "observations" / "x.json").resolve()


SEGMENT = st.sampled_from(["..", ".", "a", "observations", "bodies", "", "/", "~", "x.json", "\0"])


@fuzz()
@given(st.lists(SEGMENT, max_size=8).map("/".join))
def test_whatever_a_report_links_is_read_inside_its_folder_or_refused(tmp_path_factory: pytest.TempPathFactory,
                                                                      link: str) -> None:
    root = tmp_path_factory.getbasetemp() / "property-run"
    (root / "a").mkdir(parents=True, exist_ok=True)
    if not (root / "a" / "up").is_symlink():
        os.symlink("../..", root / "a" / "up")  # a symlink in the folder that leads out of it
    try:
        path = run_file(root, link + "/a/up/x" if link.endswith("a") else link)
    except InputError as exc:
        assert "expected a path inside the run folder" in str(exc)
        return
    assert path.is_relative_to(root.resolve())
