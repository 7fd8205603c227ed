"""``harness run --old-ref REV``: a user's repository at two commits, the base commit's pipelines
as old, the working tree's as new, the case files the working tree's own.

The repository is built by the test from tests/scenarios/revisions. The harness runs under an
interpreter whose site-packages has the user's ``src/`` on a ``.pth`` line (what ``pip install
-e .`` of the user's package writes), so the test also shows the worktree's copy of an installed
package wins in the old side's interpreter. Runs whose sides all stay in the harness's process
(no ref, a bad ref) run in this test process instead, the package put on its path.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from harness._report.validate import validate_report
from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The repository (base, then head committed), and an interpreter with its package installed."""
    if shutil.which("git") is None:
        pytest.skip("needs git on PATH")
    tmp = tmp_path_factory.mktemp("revisions")
    scenario = Path(__file__).resolve().parent.parent / "scenarios" / "revisions"
    repo = tmp / "repo"
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True).stdout.strip())
    # the harness and its dependencies, from the venv running this test
    (site / "harness_env.pth").write_text(f"import site; site.addsitedir({sysconfig.get_path('purelib')!r})\n")
    (site / "__editable__.wirepkg-0.pth").write_text(f"{repo / 'src'}\n")  # the user's package, installed
    shutil.copytree(scenario / "base", repo)
    suite_yaml = repo / "suite" / "suite.yaml"
    suite_yaml.write_text(suite_yaml.read_text().replace("@PYTHON@", str(python)))
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    shutil.copytree(scenario / "head", repo, dirs_exist_ok=True)
    _git(repo, "commit", "-q", "-am", "head: every tool is strict")
    return {"repo": repo, "python": python, "cache": tmp / "cache", "out": tmp / "out"}


def harness(world: dict[str, Path], *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HARNESS_CACHE": str(world["cache"])}
    env.pop("PYTHONPATH", None)
    return subprocess.run([str(world["python"]), "-m", "harness", "run", str(world["repo"] / "suite"), "--no-pins",
                           "--out", str(world["out"]), "--format", "json", "--workers", "2", *args],
                          capture_output=True, text=True, timeout=300, cwd=world["repo"], check=False, env=env)


def _rows(got: subprocess.CompletedProcess[str]) -> dict[str, dict[str, Any]]:
    report: dict[str, Any] = json.loads(got.stdout)
    validate_report(report)
    return {r["case"]: r for r in report["differential"]}


def test_without_a_ref_both_sides_are_the_working_tree_and_agree(world: dict[str, Path],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # in this process (no side runs in another interpreter without a ref): the user's package
    # importable as its .pth line makes it in the world's interpreter, and forgotten afterwards
    monkeypatch.syspath_prepend(str(world["repo"] / "src"))
    try:
        got = harness_main("run", str(world["repo"] / "suite"), "--no-pins", "--out", str(world["out"]),
                           "--format", "json", "--workers", "2", cwd=world["repo"],
                           env={"HARNESS_CACHE": str(world["cache"])})
    finally:
        for name in [m for m in sys.modules if m == "wirepkg" or m.startswith("wirepkg.")]:
            del sys.modules[name]
    assert got.returncode == 0, got.stderr
    assert {case: r["verdict"] for case, r in _rows(got).items()} == {
        "local-two-tools": "identical", "packaged-two-tools": "identical", "served-two-tools": "identical"}


def test_old_ref_plays_the_base_commits_pipelines_and_shows_the_change_as_divergences(
        world: dict[str, Path]) -> None:
    got = harness(world, "--old-ref", "HEAD~1")
    assert got.returncode == 1, got.stderr
    rows = _rows(got)
    for case in ("local-two-tools", "packaged-two-tools", "served-two-tools"):
        assert rows[case]["verdict"] == "unexpected", (case, rows[case])
        assert rows[case]["old"]["outcome"] == rows[case]["new"]["outcome"] == "ok"
        assert sorted(rows[case]["paths"]) == ["tools[0].strict", "tools[1].strict"], rows[case]["paths"]
    report = json.loads(got.stdout)
    base = _git(world["repo"], "rev-parse", "HEAD~1")
    assert report["options"]["revisions"] == {"old": base}
    assert {s["name"]: s["old"] for s in report["suite"]["subjects"]}["local"] == f"pipe:body at HEAD~1 ({base[:12]})"
    assert _git(world["repo"], "status", "--porcelain") == "", "the run changed the user's working tree"


@pytest.mark.expensive
def test_a_second_run_reuses_the_worktree_and_does_not_run_setup_again(world: dict[str, Path]) -> None:
    for _ in range(2):
        got = harness(world, "--old-ref", "HEAD~1", "--case", "served-*")
        assert got.returncode == 1, got.stderr
    tree = _git(world["repo"], "rev-parse", "HEAD~1^{tree}")
    [worktree] = world["cache"].glob(f"revisions/repo-*/worktrees/{tree}")
    assert (worktree / "suite" / "setup.log").read_text() == "built\n"  # once, in the base's tree


# expensive: the user's interpreter again (0.8 CPU s); test_a_pins_own_pipeline_calls_play_the_revision_the_run_compared
# plays the new side from a revision in this process
@pytest.mark.expensive
def test_new_ref_plays_the_new_side_from_a_revision_too(world: dict[str, Path]) -> None:
    got = harness(world, "--old-ref", "HEAD~1", "--new-ref", "HEAD~1", "--case", "packaged-*")
    assert got.returncode == 0, got.stderr
    assert _rows(got)["packaged-two-tools"]["verdict"] == "identical"


def test_a_ref_git_cannot_resolve_is_bad_input_naming_it(world: dict[str, Path]) -> None:
    # in this process: what the command says and returns is the point, not the interpreter
    got = harness_main("run", str(world["repo"] / "suite"), "--no-pins", "--out", str(world["out"]),
                       "--old-ref", "no-such-branch", cwd=world["repo"], env={"HARNESS_CACHE": str(world["cache"])})
    assert got.returncode == 2
    assert "--old-ref" in got.stderr and "no-such-branch" in got.stderr and "Traceback" not in got.stderr


def test_a_suite_outside_any_git_repository_is_bad_input_for_old_ref(tmp_path: Path, scenarios: Path) -> None:
    suite = shutil.copytree(scenarios / "suites" / "memory_hungry", tmp_path / "not-a-repo")
    got = harness_main("run", str(suite), "--old-ref", "HEAD", "--no-pins", "--out", str(tmp_path / "out"),
                       env={"GIT_CEILING_DIRECTORIES": str(tmp_path)})
    assert got.returncode == 2, got.stderr
    assert "--old-ref" in got.stderr and "git repository" in got.stderr and "Traceback" not in got.stderr


def test_a_pins_own_pipeline_calls_play_the_revision_the_run_compared(tmp_path: Path) -> None:
    """A deterministic pin calls the pipeline itself: with --new-ref it must run that revision,
    not the working tree (here the working tree's pipeline is random, the revision's is not)."""
    if shutil.which("git") is None:
        pytest.skip("needs git on PATH")
    repo = tmp_path / "repo"
    (repo / "suite").mkdir(parents=True)
    # rules: none: the pins are the point here, not the rejection catalog (each run checks it again)
    (repo / "suite" / "suite.yaml").write_text("version: 1\nname: pinned\nrules: none\nsubjects:\n  s:\n"
                                               "    old: p:body\n    new: p:body\n    wires: [w]\n")
    (repo / "suite" / "lanes.yaml").write_text("version: 1\nlanes:\n  - {id: l, wire: w, provider: x}\n")
    (repo / "suite" / "s.cases.yaml").write_text("version: 1\nsubject: s\ncases:\n  - id: c\n    tools: [{name: t}]\n"
                                                 "    pins:\n      - {name: same_bytes_twice, kind: deterministic}\n")
    (repo / "suite" / "p.py").write_text("def body(inp, lane):\n    return {'tools': inp['tools']}\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "deterministic")
    (repo / "suite" / "p.py").write_text("import random\n\n\ndef body(inp, lane):\n"
                                         "    return {'tools': inp['tools'], 'nonce': random.random()}\n")
    got = harness_main("run", str(repo / "suite"), "--old-ref", "HEAD", "--new-ref", "HEAD", "--out",
                       str(tmp_path / "out"), "--format", "json", cwd=repo,
                       env={"HARNESS_CACHE": str(tmp_path / "cache")})
    assert got.returncode == 0, got.stdout[-2000:] + got.stderr
    pins = json.loads(got.stdout)["pins"]
    assert pins["summary"]["passed"] >= 1 and pins["summary"]["failed"] == 0, pins
