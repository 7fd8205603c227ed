"""`harness mutate` on a suite of case files (tests/scenarios/mutate/cased): it needs no conftest.py
to collect the declarative pins, and what it prints by default is a summary, not the report."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness._exitcodes import ExitCode

pytestmark = [pytest.mark.slow, pytest.mark.expensive]

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "mutate" / "cased"
HARNESS = [sys.executable, "-c", "from harness._cli.main import main; main()"]


def _mutate(suite: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*HARNESS, "mutate", str(suite), "--out", str(out), *extra],
                          capture_output=True, text=True, check=False, cwd=suite.parent)


@pytest.mark.parametrize("conftest", [False, True], ids=["without-conftest", "with-conftest"])
def test_case_file_pins_are_collected_with_or_without_a_conftest_registering_the_plugin(
        tmp_path: Path, conftest: bool) -> None:
    suite = shutil.copytree(SCENARIO, tmp_path / "cased")
    if conftest:  # the plugin named twice (here and by the engine) is still one plugin
        (suite / "conftest.py").write_text('pytest_plugins = ["harness.pins.plugin"]\n')
    proc = _mutate(suite, tmp_path / "out", "-q")
    assert proc.returncode == ExitCode.OK, proc.stderr
    section = json.loads((tmp_path / "out" / "mutation.json").read_text())
    (mutant,) = section["mutants"]
    assert mutant["claim"]["result"] == "exact"
    assert section["pins"]["collected"] == 1


def test_the_default_output_is_a_summary_and_the_full_forms_are_asked_for(tmp_path: Path) -> None:
    suite = shutil.copytree(SCENARIO, tmp_path / "cased")
    ledger = suite / "echo.ledger.yaml"
    ledger.write_text(ledger.read_text() + (
        "  - id: model-upper\n    title: the model in capitals\n    site: {file: echo.py, function: new_body}\n"
        "    change: {find: \"str(model)\", replace: \"str(model).upper()\"}\n"
        "    killed_by: [plain::model_is_string]\n"))
    proc = _mutate(suite, tmp_path / "out")
    assert proc.returncode == ExitCode.MUTANTS_ESCAPED, proc.stderr
    lines = proc.stdout.splitlines()
    assert "```" not in proc.stdout and len(lines) < 25
    assert "2 mutants: 1 killed" in proc.stdout
    assert any(line.startswith("| model-upper") and "CLAIM FAILED" in line for line in lines)
    assert "escaped model-upper (survived) echo.py:12 new_body" in lines
    assert any(str(tmp_path / "out" / "mutation.md") in line for line in lines)
    # off a terminal, progress goes to stderr: where the run is, with the time left, and its end
    assert any(line.startswith("harness mutate: 2/2 mutants run (100.0%), ") and line.endswith(", done")
               for line in proc.stderr.splitlines()), proc.stderr
    full = _mutate(suite, tmp_path / "out", "--format", "markdown", "-q")
    assert full.stdout == (tmp_path / "out" / "mutation.md").read_text()
    as_json = _mutate(suite, tmp_path / "out", "--format", "json", "-q")
    assert json.loads(as_json.stdout)["escaped"] == ["model-upper"]


_EQUIVALENT = ("version: 1\nmutants:\n  - id: said-equivalent\n    title: t\n"
               "    site: {file: echo.py, function: new_body}\n"
               "    change: {find: \"%s\", replace: \"%s\"}\n    equivalent: nobody can tell\n")


@pytest.mark.parametrize(("find", "replace", "refuted_by"), [
    ("str(model)", "None", "a pin"),                       # the pin checks the model
    ('\\"tools\\": inp[\\"tools\\"]', '\\"tools\\": []', "an output"),  # no pin checks the tools
], ids=["refuted-by-a-pin", "refuted-by-an-output"])
def test_a_refuted_equivalent_exits_4(tmp_path: Path, find: str, replace: str, refuted_by: str) -> None:
    suite = shutil.copytree(SCENARIO, tmp_path / "cased")
    (suite / "echo.ledger.yaml").write_text(_EQUIVALENT % (find, replace))
    proc = _mutate(suite, tmp_path / "out", "-q")
    assert proc.returncode == ExitCode.MUTANTS_ESCAPED, proc.stderr
    (mutant,) = json.loads((tmp_path / "out" / "mutation.json").read_text())["mutants"]
    assert mutant["claim"]["result"] == "failed"
    if refuted_by == "a pin":
        assert mutant["status"] == "killed" and mutant["killed_by"] == [0]
    else:
        assert mutant["status"] == "survived" and mutant["claim"]["outputs"]["differ"] == ["plain[one]"]


def test_merge_prints_the_summary_or_the_asked_form(tmp_path: Path) -> None:
    suite = shutil.copytree(SCENARIO, tmp_path / "cased")
    for k in (1, 2):
        assert _mutate(suite, tmp_path / f"s{k}", "-q", "--shard", f"{k}/2").returncode == ExitCode.OK
    merge = [*HARNESS, "merge", "--out", str(tmp_path / "m"), str(tmp_path / "s1"), str(tmp_path / "s2")]
    summary = subprocess.run(merge, capture_output=True, text=True, check=False)
    assert summary.returncode == ExitCode.OK, summary.stderr
    assert summary.stdout.startswith("Mutation: cased\n1 mutants: 1 killed")
    as_json = subprocess.run([*merge, "--format", "json"], capture_output=True, text=True, check=False)
    assert json.loads(as_json.stdout)["shard"] == ["1/2", "2/2"]


_SECOND = ("  - id: model-upper\n    title: the model is not a string\n    site: {file: echo.py, function: new_body}\n"
           "    change: {find: \"str(model)\", replace: \"[model]\"}\n    killed_by: [plain::model_is_string]\n")


def test_a_merge_missing_a_shard_lists_its_mutants_as_pending_and_is_no_pass(tmp_path: Path) -> None:
    suite = shutil.copytree(SCENARIO, tmp_path / "cased")
    ledger = suite / "echo.ledger.yaml"
    ledger.write_text(ledger.read_text() + _SECOND)  # two mutants: one a shard
    assert _mutate(suite, tmp_path / "s1", "-q", "--shard", "1/2").returncode == ExitCode.OK
    merge = [*HARNESS, "merge", "--out", str(tmp_path / "m"), str(tmp_path / "s1")]
    proc = subprocess.run(merge, capture_output=True, text=True, check=False)
    assert proc.returncode == ExitCode.MUTANTS_ESCAPED, proc.stdout + proc.stderr
    assert "2 mutants: 1 killed" in proc.stdout and "1 pending (shards missing: 2/2)" in proc.stdout
    section = json.loads((tmp_path / "m" / "mutation.json").read_text())
    assert sorted(m["status"] for m in section["mutants"]) == ["killed", "pending"]
    assert section["verdict"]["complete"] is False and section["shards_missing"] == ["2/2"]
    assert "1 pending (shards missing: 2/2)" in (tmp_path / "m" / "mutation.md").read_text()


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                   capture_output=True)


def test_a_diff_touching_no_target_function_says_so_and_claims_no_score(tmp_path: Path) -> None:
    suite = shutil.copytree(SCENARIO, tmp_path / "cased")
    _git(suite, "init", "-q")
    _git(suite, "add", ".")
    _git(suite, "commit", "-q", "-m", "base")
    body = suite / "echo.py"  # old_body changes; the one mutant is in new_body
    body.write_text(body.read_text().replace('{"model": lane.get("model")', '{"model": lane.get("model", None)'))
    _git(suite, "commit", "-q", "-am", "touch old_body only")
    proc = _mutate(suite, tmp_path / "out", "--in-diff", "HEAD~1")
    assert proc.returncode == ExitCode.OK, proc.stderr
    assert "no mutants: the diff touches no target function" in proc.stdout
    assert "Score" not in proc.stdout and "100.0" not in proc.stdout
    section = json.loads((tmp_path / "out" / "mutation.json").read_text())
    assert section["totals"]["total"] == 0 and section["totals"]["score"] is None


def test_a_suite_inside_a_project_mutates_its_own_modules_under_the_names_its_subjects_import(
        tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")  # the project root is tmp_path, not the suite
    suite = shutil.copytree(SCENARIO, tmp_path / "cased")
    settings = suite / "suite.yaml"
    settings.write_text(settings.read_text().replace("  root: .\n", "").replace("  operators: false\n", ""))
    ledger = suite / "echo.ledger.yaml"
    ledger.write_text(ledger.read_text().replace("file: echo.py", "file: cased/echo.py")
                      .replace("mutants:", "targets: [cased/echo.py:new_body]\nmutants:"))
    proc = _mutate(suite, tmp_path / "out", "-q")
    section = json.loads((tmp_path / "out" / "mutation.json").read_text())
    # the subject imports `echo` (the suite folder is on sys.path), so that is the module mutated,
    # not a second copy named `cased.echo` that no pin ever calls
    assert proc.returncode == ExitCode.OK, proc.stderr  # survivors, but the suite sets no threshold
    by_id = {m["id"]: m for m in section["mutants"]}
    assert by_id["model-dropped"]["claim"]["result"] == "exact"
    operators = [m for m in section["mutants"] if m["kind"] == "operator"]
    assert operators and all(m["id"].startswith("echo.x_new_body__mutmut_") for m in operators)
    assert sum(m["status"] == "killed" for m in operators) >= 3
    assert not any(m["status"] == "no_coverage" for m in operators)
