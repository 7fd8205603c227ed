"""Every id ``harness run`` and ``harness run --baseline`` print reruns exactly its one item with
plain ``pytest ID`` from the project root: the ids are collected from what the harness printed,
each must name one collected item, and a sample is rerun and fails as it failed in the run. An
``--old-ref`` run prints each id as the whole command, which plays the same revision. Each test
runs the harness twice or more and pytest after it (seconds of CPU): the expensive tier; the
formatting itself is tests/unit/pins/test_rerun_ids.py's, in the README's tier."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.inproc import harness_main

pytestmark = [pytest.mark.slow, pytest.mark.expensive]
pytest_plugins = ["pytester"]

SUITE = """version: 1
name: shop
subjects:
  shop: {old: "pipes:old_body", new: "pipes:new_body", wires: [anthropic-messages]}
"""
LANES = """version: 1
lanes:
  - {id: first, wire: anthropic-messages, provider: anthropic, model: m-1}
  - {id: second, wire: anthropic-messages, provider: other, model: m-1}
"""
PIPES = """def old_body(inp, lane):
    return {"model": lane["model"], "tools": inp["tools"]}


def new_body(inp, lane):
    return {"model": lane["model"], "tools": inp["tools"], "extra": 1}
"""
CASES = """version: 1
subject: shop
cases:
  - id: search
    tools: [{name: search, input_schema: {type: object}}]
    pins:
      - {name: no_extra, kind: schema, select: "$", must_not_match: {required: [extra]}}
"""
MORE = """  - id: lookup
    tools: [{name: lookup, input_schema: {type: object}}]
    lanes: [second]
"""
PY_PINS = """import pytest


@pytest.mark.parametrize("lane", ["first", "second"])
def test_no_extra_key(observe, lane):
    assert "extra" not in observe("search", lane).value
"""
# a node id as the harness prints one: a case file's or a Python pin's, brackets and all
NODE_ID = re.compile(r"suite/[\w./-]+\.(?:cases\.yaml|py)::[^\s,;']+")


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    """A user's project: a pyproject.toml at its root, the suite in suite/."""
    root = pytester.path
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    suite = root / "suite"
    suite.mkdir()
    for name, text in {"suite.yaml": SUITE, "lanes.yaml": LANES, "pipes.py": PIPES, "shop.cases.yaml": CASES,
                       "test_pins.py": PY_PINS}.items():
        (suite / name).write_text(text)
    return root


def printed_ids(stdout: str) -> list[str]:
    return list(dict.fromkeys(m.rstrip(":") for m in NODE_ID.findall(stdout)))


def collected(pytester: pytest.Pytester, *ids: str) -> list[str]:
    result = pytester.runpytest("--collect-only", "-q", "-p", "no:randomly", *ids)
    return [line for line in result.outlines if "::" in line and not line.startswith(("=", " ", "ERROR"))]


def test_every_id_a_run_and_a_baseline_run_print_reruns_its_one_item(pytester: pytest.Pytester,
                                                                     project: Path) -> None:
    run = harness_main("run", "suite", "--out", "reports", "--no-rejections", "--workers", "1", cwd=project)
    assert run.returncode == 1, run.stdout + run.stderr
    (project / "suite" / "shop.cases.yaml").write_text(CASES + MORE)  # a new failing case since the baseline
    again = harness_main("run", "suite", "--out", "reports", "--no-rejections", "--workers", "1",
                         "--baseline", "reports/latest", cwd=project)
    assert again.returncode == 1, again.stdout + again.stderr
    exit_line = next(line for line in again.stdout.splitlines() if line.startswith("exit 1:"))
    assert "suite/shop.cases.yaml::lookup[second]::expect" in exit_line  # the lane kept, as pytest needs it

    ids = printed_ids(run.stdout + again.stdout)
    assert "suite/shop.cases.yaml::search[first]::expect" in ids  # the failing verdict, by its expect item
    assert "suite/test_pins.py::test_no_extra_key[second]" in ids
    # each printed id names its one item: all of them together collect each of them once, nothing else
    assert sorted(collected(pytester, *ids)) == sorted(ids)
    sample = ("suite/shop.cases.yaml::search[first]::no_extra", "suite/shop.cases.yaml::lookup[second]::expect",
              "suite/test_pins.py::test_no_extra_key[first]")
    pytester.runpytest("-p", "no:randomly", *sample).assert_outcomes(failed=3)  # each fails as it did in the run


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git for --old-ref")
def test_an_old_ref_run_prints_commands_that_replay_its_revision(pytester: pytest.Pytester, project: Path,
                                                                 tmp_path: Path) -> None:
    """The working tree's old and new agree; only against the base commit's new line does the
    verdict fail. The printed command plays that revision; the bare id alone would pass."""
    pipes = project / "suite" / "pipes.py"
    (project / "suite" / "test_pins.py").unlink()
    pipes.write_text(PIPES.replace('"tools": inp["tools"]}', '"tools": inp["tools"], "extra": 2}'))
    (project / ".gitignore").write_text("reports/\n")
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "base")
    pipes.write_text(pipes.read_text().replace('"extra": 1', '"extra": 2'))  # the change under review
    got = harness_main("run", "suite", "--out", "reports", "--no-rejections", "--workers", "1", "--old-ref", "HEAD",
                       cwd=project, env={"HARNESS_CACHE": str(tmp_path / "cache")})
    assert got.returncode == 1, got.stdout + got.stderr
    sha = _git(project, "rev-parse", "HEAD")
    commands = re.findall(r"pytest --harness-revisions=\S+ '[^']+'", got.stdout)
    assert f"pytest --harness-revisions=old:{sha} 'suite/shop.cases.yaml::search[first]::expect'" in commands
    assert all(printed_ids(command) for command in commands)
    expect = shlex.split(commands[0])
    pytester.runpytest("-p", "no:randomly", *expect[1:]).assert_outcomes(failed=1)
    pytester.runpytest("-p", "no:randomly", expect[-1]).assert_outcomes(passed=1)  # the id alone plays the tree
