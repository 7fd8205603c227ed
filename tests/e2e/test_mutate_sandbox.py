"""Mutants never touch the user's tree: `harness mutate` on scenario projects whose mutants delete
and write files, in-process and as command sides (tests/scenarios/mutate/sandboxed, command,
node), in both sandbox modes; the tree is hashed before and after every run."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness._mutate.foreign import INSTRUMENTER
from harness._mutate.results import expand
from harness._mutate.sandbox import overlay_works

pytestmark = [pytest.mark.slow, pytest.mark.expensive]

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios" / "mutate"
HARNESS = [sys.executable, "-c", "from harness._cli.main import main; main()"]
MODES = [pytest.param("overlay", marks=pytest.mark.skipif(not overlay_works(), reason="no mount namespaces here")),
         "copy"]


def _hashes(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "node_modules" not in p.parts}


def _mutate(project: Path, out: Path, mode: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]], str]:
    env = {**os.environ, "HARNESS_SANDBOX": mode}
    proc = subprocess.run([*HARNESS, "mutate", str(project), "--out", str(out), "-q"], capture_output=True,
                          text=True, check=False, env=env, timeout=600)
    assert (out / "mutation.json").is_file(), proc.stderr[-2000:]
    section = expand(json.loads((out / "mutation.json").read_text()))
    return section, {m["id"]: m for m in section["mutants"]}, proc.stderr


@pytest.mark.parametrize("mode", MODES)
def test_a_mutant_deleting_a_file_leaves_the_users_tree_byte_identical_and_is_named(tmp_path: Path,
                                                                                      mode: str) -> None:
    project = tmp_path / "sandboxed"
    shutil.copytree(SCENARIOS / "sandboxed", project)
    (project / "home.txt").write_text(str(project))
    before = _hashes(project)
    section, mutants, stderr = _mutate(project, tmp_path / "out", mode)
    deleting = mutants["deletes-its-data"]
    assert deleting["writes"] == [{"path": "data.txt", "change": "deleted"}]
    assert deleting["status"] == "equivalent"  # no pin sees it; the report still names the write
    assert section["sandbox"]["mode"] == mode
    if mode == "overlay":
        # the user's tree is read-only to the row: the write by absolute path fails, nothing changes
        assert _hashes(project) == before
        assert section["sandbox"]["outside"] == []
        assert mutants["writes-home"]["status"] == "killed"
    else:
        # without mount namespaces a write by absolute path cannot be stopped: it is reported
        assert section["sandbox"]["outside"] == [{"path": "escaped.txt", "change": "created"}]
        assert "outside the sandbox: escaped.txt (created)" in stderr
        after = _hashes(project)
        assert after.pop("escaped.txt") and after == before


@pytest.mark.parametrize("mode", MODES)
def test_declared_mutants_of_a_command_side_are_built_and_run_in_the_sandbox(tmp_path: Path, mode: str) -> None:
    project = tmp_path / "command"
    shutil.copytree(SCENARIOS / "command", project)
    before = _hashes(project)
    section, mutants, _ = _mutate(project, tmp_path / "out", mode)
    assert _hashes(project) == before  # no build/ folder, data.txt still there
    assert mutants["model-dropped"]["status"] == "killed"
    assert mutants["model-dropped"]["claim"]["result"] == "exact"
    assert mutants["deletes-data"]["writes"] == [{"path": "data.txt", "change": "deleted"}]
    assert mutants["deletes-data"]["status"] == "equivalent"
    summary = subprocess.run([*HARNESS, "mutate", str(project), "--out", str(tmp_path / "out2")], capture_output=True,
                             text=True, check=False, env={**os.environ, "HARNESS_SANDBOX": mode}).stdout
    assert "wrote deletes-data (in its sandbox): data.txt (deleted)" in summary
    unbuilt = mutants["does-not-build"]
    assert unbuilt["status"] == "unviable"
    assert "build failed: src/pipeline.py:10: invalid syntax" in unbuilt["unviable"]
    assert "harness-sandbox" not in json.dumps(section)  # no absolute sandbox path in the report


def test_stryker_operator_mutants_of_a_node_pipeline_run_beside_its_ledger(tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    if not (SCENARIOS / "node" / INSTRUMENTER / "package.json").is_file():
        pytest.skip(f"@stryker-mutator/instrumenter is not installed: run `npm install` in {SCENARIOS / 'node'}")
    project = tmp_path / "node"
    shutil.copytree(SCENARIOS / "node", project, symlinks=True)
    before = _hashes(project)
    section, mutants, _ = _mutate(project, tmp_path / "out", "overlay" if overlay_works() else "copy")
    assert _hashes(project) == before
    assert mutants["gate-forced-open"]["claim"]["result"] == "exact"
    stryker = [m for m in section["mutants"] if m["kind"] == "operator"]
    assert len(stryker) >= 10 and {"EqualityOperator", "BooleanLiteral"} <= {m["operator"] for m in stryker}
    assert sum(m["status"] == "killed" for m in stryker) >= len(stryker) - 2


def test_the_suites_rebuild_command_replaces_each_sides_setup_in_a_mutants_tree(tmp_path: Path) -> None:
    project = tmp_path / "command"
    shutil.copytree(SCENARIOS / "command", project)
    suite = project / "suite.yaml"
    suite.write_text(suite.read_text().replace("  operators: false\n",
                                               "  operators: false\n  rebuild: python3 build.py && exit 3\n"))
    _, mutants, _ = _mutate(project, tmp_path / "out", "overlay" if overlay_works() else "copy")
    for m in mutants.values():  # the baseline still used the sides' setup: the run went on
        assert m["status"] == "unviable"
        assert m["unviable"].startswith("the rebuild 'python3 build.py && exit 3' does not build the mutant")
    assert "(exit code 3)" in mutants["model-dropped"]["unviable"]
    assert "(exit code 1): build failed" in mutants["does-not-build"]["unviable"]


def test_a_merge_of_shards_keeps_what_any_shard_changed_outside_its_sandbox(tmp_path: Path) -> None:
    project = tmp_path / "sandboxed"
    shutil.copytree(SCENARIOS / "sandboxed", project)
    (project / "home.txt").write_text(str(project))
    env = {**os.environ, "HARNESS_SANDBOX": "copy"}
    for k in (1, 2):
        (project / "escaped.txt").unlink(missing_ok=True)
        subprocess.run([*HARNESS, "mutate", str(project), "--shard", f"{k}/2", "--out", str(tmp_path / f"s{k}"), "-q"],
                       capture_output=True, text=True, check=False, env=env, timeout=600)
    subprocess.run([*HARNESS, "merge", "--out", str(tmp_path / "merged"), str(tmp_path / "s1"), str(tmp_path / "s2"),
                    "-q"], capture_output=True, text=True, check=False, timeout=600)
    merged = json.loads((tmp_path / "merged" / "mutation.json").read_text())
    assert merged["sandbox"] == {"mode": "copy", "outside": [{"path": "escaped.txt", "change": "created"}]}


@pytest.mark.parametrize("mode", MODES)
def test_the_run_folder_inside_the_project_stays_writable_while_the_rest_is_protected(tmp_path: Path,
                                                                                        mode: str) -> None:
    project = tmp_path / "sandboxed"
    shutil.copytree(SCENARIOS / "sandboxed", project)
    (project / "home.txt").write_text(str(project))
    before = _hashes(project)
    # the default --out (reports/mutation under the working folder) lands inside the project
    proc = subprocess.run([*HARNESS, "mutate", "."], cwd=project, capture_output=True, text=True, check=False,
                          env={**os.environ, "HARNESS_SANDBOX": mode}, timeout=600)
    section = json.loads((project / "reports" / "mutation" / "mutation.json").read_text())
    assert section["totals"]["total"] == 2, proc.stderr[-2000:]
    after = {k: v for k, v in _hashes(project).items() if not k.startswith("reports/")}
    if mode == "copy":
        after.pop("escaped.txt")
    assert after == before
