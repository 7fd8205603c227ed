"""The pre-merge job in a scratch git repository: the base commit's run is the baseline, and the
pull request's run (mutating only the diff) fails on exactly what the PR introduced, listed first
in report.md; the same job on an unchanged branch passes although the base has old findings."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness._exitcodes import ExitCode
from tests.e2e.inproc import harness_main

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("git") is None, reason="needs git for --in-diff")]

REPO = Path(__file__).resolve().parents[2]

SUITE = f"""version: 1
name: shop
cases: ["*.cases.yaml"]
lanes: ["lanes.yaml"]
rules: ["rules/*.rules.yaml"]
cassettes: {REPO / "cassettes"}
subjects:
  shop: {{old: "pipes:old_body", new: "pipes:new_body", wires: [anthropic-messages]}}
mutation:
  root: .
  targets: ["pipes.py"]
  timeout: {{factor: 10, floor_s: 2}}
"""

LANES = ("version: 1\nlanes:\n"
         "  - {id: first, wire: anthropic-messages, provider: anthropic, model: m-1, fronts: [anthropic]}\n")

PIPES = '''"""The shop's request bodies: the old and the new line build the same body."""


def old_body(inp, lane):
    body = {"model": lane["model"], "tools": inp["tools"]}
    return body


def new_body(inp, lane):
    body = {"model": lane["model"], "tools": inp["tools"]}
    return body
'''

# The base already has findings: an undeclared rejection (legacy-either) and escaping mutants.
CASES = """version: 1
subject: shop
cases:
  - id: search
    tools:
      - {name: search, description: find things, input_schema: {type: object, properties: {q: {type: string}}}}
    expect: {"*": same}
    pins:
      - {name: model_is_a_string, kind: schema, select: "model", must_match: {type: string}}
  - id: legacy-either
    tools:
      - name: find
        description: by id or by name
        input_schema: {type: object, properties: {id: {type: string}, name: {type: string}},
                       anyOf: [{required: [id]}, {required: [name]}]}
    expect: {"*": same}
"""

# The pull request: limits on the new line (two values no pin checks: two escapes) and a new
# case whose tool has a root oneOf (one new rejection on the first-party lane).
PIPES_PR = PIPES + '''    body.update(_limits())
    return body


def _limits():
    return {"max_tokens": 1024, "temperature": 0.5}
'''
PIPES_PR = PIPES_PR.replace("    return body\n    body.update(_limits())\n", "    body.update(_limits())\n")

_DIVERGES = '      "*": {diverges: {why: the new line sends its limits, paths: [max_tokens, temperature]}}'
CASES_PR = f"""version: 1
subject: shop
cases:
  - id: search
    tools:
      - {{name: search, description: find things, input_schema: {{type: object, properties: {{q: {{type: string}}}}}}}}
    expect:
{_DIVERGES}
    pins:
      - {{name: model_is_a_string, kind: schema, select: "model", must_match: {{type: string}}}}
      - {{name: sends_max_tokens, kind: schema, select: "max_tokens", must_match: {{type: integer}}}}
      - {{name: sends_temperature, kind: schema, select: "temperature", must_match: {{type: number}}}}
  - id: legacy-either
    tools:
      - name: find
        description: by id or by name
        input_schema: {{type: object, properties: {{id: {{type: string}}, name: {{type: string}}}},
                       anyOf: [{{required: [id]}}, {{required: [name]}}]}}
    expect:
{_DIVERGES}
  - id: patch-either-way
    tools:
      - name: patch
        description: a patch or a replacement
        input_schema: {{type: object, properties: {{patch: {{type: string}}, replace: {{type: string}}}},
                       oneOf: [{{required: [patch]}}, {{required: [replace]}}]}}
    expect:
{_DIVERGES}
"""


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", *args], cwd=repo, check=True,
                   capture_output=True)


def _write(suite: Path, pipes: str, cases: str) -> None:
    (suite / "pipes.py").write_text(pipes)
    (suite / "shop.cases.yaml").write_text(cases)


def _harness(repo: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # --fail-on-rejections any: the old and new pipelines ship the same tools here, so every
    # rejection persists from old to new; counted as findings, the baseline tells new from old
    env = {**os.environ, "HARNESS_CACHE": str(repo.parent / "cache")}  # --old-ref's worktrees
    return subprocess.run([sys.executable, "-m", "harness", "run", "suite", "-q", "--mutate", "--out", str(out),
                           "--fail-on-rejections", "any", *args],
                          cwd=repo, capture_output=True, text=True, timeout=600, check=False, env=env)


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository with a base commit on main."""
    repo = tmp_path_factory.mktemp("premerge") / "proj"
    suite = repo / "suite"
    (suite / "rules").mkdir(parents=True)
    shutil.copy(REPO / "cases" / "rules" / "anthropic.rules.yaml", suite / "rules")
    (suite / "suite.yaml").write_text(SUITE)
    (suite / "lanes.yaml").write_text(LANES)
    _write(suite, PIPES, CASES)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    return repo


@pytest.fixture(scope="module")
def project(repository: Path) -> tuple[Path, Path]:
    """The repository and its base commit's run (the baseline)."""
    repo, root = repository, repository.parent
    base = _harness(repo, root / "base")
    assert base.returncode == ExitCode.KNOWN_REJECTION, base.stderr  # the base's own finding
    return repo, root / "base"


@pytest.mark.expensive
def test_a_pr_adding_two_escapes_and_a_rejection_fails_and_lists_exactly_those_first(
        project: tuple[Path, Path], tmp_path: Path) -> None:
    repo, base = project
    _git(repo, "checkout", "-q", "-B", "pr", "main")
    _write(repo / "suite", PIPES_PR, CASES_PR)
    _git(repo, "commit", "-qam", "limits and a new tool")
    got = _harness(repo, tmp_path / "pr", "--in-diff", "main", "--baseline", str(base))
    assert got.returncode == ExitCode.KNOWN_REJECTION, got.stderr  # 3 and 4 found: the lowest wins
    text = (tmp_path / "pr" / "latest" / "report.md").read_text()
    sections = re.findall(r"^## .*$", text, re.M)
    assert sections[0] == "## New since the baseline: 3", sections
    first = text.split(sections[0], 1)[1].split(sections[1], 1)[0]
    assert re.findall(r"^### .*$", first, re.M) == ["### New undeclared rejections (new pipeline): 1",
                                                    "### New escaped mutants: 2"]
    assert "`patch-either-way[first]: anthropic.root-composition`" in first
    assert "legacy-either" not in first.split("Still failing")[0]  # the base's rejection is not new
    assert "+    return {\"max_tokens\": 1025, \"temperature\": 0.5}" in first
    assert "+    return {\"max_tokens\": 1024, \"temperature\": 1.5}" in first
    assert "Still failing (were failing in the baseline): 1 undeclared rejections" in first
    # without a baseline, --in-diff still fails on the diff's escapes: the suite sets no threshold
    alone = _harness(repo, tmp_path / "alone", "--in-diff", "main", "--no-rejections")
    assert alone.returncode == ExitCode.MUTANTS_ESCAPED, alone.stderr


@pytest.mark.expensive
def test_the_readme_s_pre_merge_line_with_the_base_commit_as_old_kills_mutants(
        project: tuple[Path, Path], tmp_path: Path) -> None:
    """``--old-ref``, ``--mutate``, ``--in-diff`` and ``--baseline`` together: the old side is the
    base commit's pipeline, and the pins still kill the working tree's mutants (before: every
    mutant survived, 0 killed, because the engine never ran the mutated code)."""
    repo, base = project
    _git(repo, "checkout", "-q", "-B", "pr-old-ref", "main")
    _write(repo / "suite", PIPES_PR, CASES_PR)
    _git(repo, "commit", "-qam", "limits and a new tool")
    got = _harness(repo, tmp_path / "pr", "--old-ref", "main", "--in-diff", "main", "--baseline", str(base))
    assert got.returncode == ExitCode.KNOWN_REJECTION, got.stderr  # the new rejection, as without --old-ref
    report = json.loads((tmp_path / "pr" / "latest" / "report.json").read_text())
    assert report["options"]["revisions"]["old"] == subprocess.run(
        ["git", "rev-parse", "main"], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()
    # the base commit's new_body plays old: the limits are an intended divergence, not identical
    assert {r["case"]: r["verdict"] for r in report["differential"]}["search"] == "intended"
    mutation = report["mutation"]
    ids = mutation["pins"]["ids"]
    killers = {m["id"]: sorted(ids[i].rsplit("::", 1)[-1] for i in m["killed_by"])
               for m in mutation["mutants"] if m["status"] == "killed"}
    assert mutation["totals"]["killed"] == len(killers) >= 4, mutation["totals"]
    # each limit's pin kills the mutants that drop or retype its value
    assert sum(k == ["sends_max_tokens"] for k in killers.values()) >= 1, killers
    assert sum(k == ["sends_temperature"] for k in killers.values()) >= 1, killers
    escaped = sorted(m["title"] for m in mutation["mutants"] if m["status"] == "survived")
    # the two limits' values no pin checks, and the tools key the base already let through
    assert escaped == ['"tools" -> "TOOLS"', '"tools" -> "XXtoolsXX"', "0.5 -> 1.5", "1024 -> 1025"], escaped
    first = (tmp_path / "pr" / "latest" / "report.md").read_text().split("\n## ", 2)[1]
    assert "### New escaped mutants: 2" in first, first  # against the baseline: only the limits are new
    assert mutation["pin_runs"]["run"] > 0, mutation["pin_runs"]


@pytest.mark.expensive
def test_the_same_job_on_an_unchanged_branch_passes_though_the_base_has_findings(
        project: tuple[Path, Path], tmp_path: Path) -> None:
    repo, base = project
    _git(repo, "checkout", "-q", "-B", "unchanged", "main")
    got = _harness(repo, tmp_path / "same", "--in-diff", "main", "--baseline", str(base))
    assert got.returncode == ExitCode.OK, got.stderr
    assert "Nothing new." in (tmp_path / "same" / "latest" / "report.md").read_text()
    without = _harness(repo, tmp_path / "plain", "--in-diff", "main")
    assert without.returncode == ExitCode.KNOWN_REJECTION  # without a baseline every finding counts


@pytest.mark.parametrize(("args", "said"), [
    (["--in-diff", "main"], "--in-diff='main': expected --mutate as well"),
    (["--fail-on", "new"], "--fail-on='new': expected --baseline PREVIOUS_RUN_DIR as well"),
    (["--baseline", "nowhere"], "--baseline='nowhere': expected a finished run folder"),
    (["--mutate", "--new-ref", "main"], "--new-ref='main': expected no --mutate with it"),
], ids=["in-diff-without-mutate", "fail-on-new-without-baseline", "baseline-that-is-no-run", "mutate-a-new-ref"])
def test_baseline_flags_that_cannot_work_are_bad_input_before_anything_runs(
        repository: Path, tmp_path: Path, args: list[str], said: str) -> None:
    got = harness_main("run", "suite", "-q", "--out", str(tmp_path / "out"), *args, cwd=repository)
    assert got.returncode == ExitCode.BAD_INPUT and said in got.stderr, got.stderr
    assert not (tmp_path / "out").exists()
