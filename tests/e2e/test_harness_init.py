"""``harness init`` in a fresh git repository outside this one: ``harness init && harness run``
is green against the bundled catalog's rules at once, and a stub changed to ship a root
``oneOf`` to Anthropic meets the recorded rejection; no file copied from this repository, no
environment variable set."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow

ROOT_ONEOF = '''

def new_body(pipeline_input, lane):
    """The change under review: every tool's schema becomes a root oneOf."""
    body = build_body(pipeline_input, lane)
    for tool in body["tools"]:
        tool["input_schema"] = {"type": "object", "oneOf": [{"required": ["query"]}, {"required": ["id"]}]}
    return body
'''


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "gateway"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "pyproject.toml").write_text('[project]\nname = "gateway"\nversion = "0"\n')
    return root


def _report(root: Path) -> dict[str, object]:
    return json.loads((root / "reports" / "latest" / "report.json").read_text())  # type: ignore[no-any-return]


def _green(repo: Path) -> None:
    """``harness init && harness run``: exit 0, every case x lane run, against the bundled rules."""
    made = harness_main("init", cwd=repo)
    assert made.returncode == 0, made.stderr
    assert {p.name for p in (repo / "cases").iterdir()} == {"suite.yaml", "lanes.yaml", "example.cases.yaml",
                                                             "pipeline.py"}
    green = harness_main("run", "--workers", "1", "--no-pins", cwd=repo)
    assert green.returncode == 0, green.stdout + green.stderr
    report = _report(repo)
    assert report["rejections"]["catalog"]["rules"] > 50  # type: ignore[index]
    assert report["summary"]["units"] == 3  # type: ignore[index]


def test_init_then_run_is_green_at_once_against_the_bundled_rules(repo: Path) -> None:
    _green(repo)


@pytest.mark.expensive  # two runs and the pins: the cheaper halves are the test above and
# tests/e2e/test_user_repository.py's root oneOf outside this repository
def test_init_then_run_is_green_and_a_stub_changed_to_ship_a_root_oneof_meets_the_recorded_400(
        repo: Path) -> None:
    _green(repo)
    with (repo / "cases" / "pipeline.py").open("a") as stub:
        stub.write(ROOT_ONEOF)
    sys.modules.pop("pipeline", None)  # a second `harness run` is a new process; here, the same one
    red = harness_main("run", "--workers", "1", cwd=repo)  # the pins too: the expect items fail
    # the change is an undeclared divergence (exit 1, which outranks the rejection's 3) and the
    # report names the recorded 400 it would meet on the first-party lane
    assert red.returncode == 1, red.stdout + red.stderr
    assert "REJECTED anthropic.root-composition on anthropic-first-party (new): 1 case(s), 1 introduced" in red.stdout
    assert "deepseek-anthropic (new)" not in red.stdout  # DeepSeek documents input_schema as fully supported


@pytest.mark.expensive  # a whole run; tests/unit/cli/test_init.py loads the --pyproject suite cheaply
def test_init_with_pyproject_keeps_the_settings_in_tool_wire_harness_and_runs_green(repo: Path) -> None:
    assert harness_main("init", "--pyproject", "--wire", "openai-chat", cwd=repo).returncode == 0
    assert not (repo / "cases" / "suite.yaml").exists()
    assert '[tool.wire-harness]\n' in (repo / "pyproject.toml").read_text()
    green = harness_main("run", "--workers", "1", "-q", cwd=repo)
    assert green.returncode == 0, green.stdout + green.stderr
    assert _report(repo)["summary"]["units"] == 2  # type: ignore[index]


def test_init_never_overwrites_a_file(repo: Path) -> None:
    (repo / "cases").mkdir()
    (repo / "cases" / "pipeline.py").write_text("# mine\n")
    refused = harness_main("init", cwd=repo)
    assert refused.returncode == 2
    assert "cases/pipeline.py" in refused.stderr and "never overwrites" in refused.stderr
    assert (repo / "cases" / "pipeline.py").read_text() == "# mine\n"
    assert not (repo / "cases" / "suite.yaml").exists()
