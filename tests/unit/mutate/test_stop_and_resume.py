"""A stopped ``harness mutate``: its section from the rows it finished; ``--resume`` keeps the
stopped run's baseline only for the same project and pins (the whole commands, a real signal:
tests/e2e/test_mutate_stopped.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness._mutate.outputs import reused_baseline
from harness._mutate.runner import _keep_baseline_if, stopped_section

PINS = ["tests/test_m.py::test_f"]


def _meta(mid: str) -> dict[str, Any]:
    return {"key": f"k-{mid}", "id": mid, "kind": "operator", "file": "m.py", "module": "m", "function": "f",
            "line": 1, "column": 12, "end_line": 1, "end_column": 13, "operator": "BinaryOperation",
            "title": mid, "diff": "", "claims": [], "equivalent": None, "ledger": ""}


def _stopped_folder(out: Path, project: Path) -> None:
    """What a run stopped after one of three rows leaves: plan, baseline, one row."""
    (project / "m.py").write_text("def f(a):\n    return a + 1\n")
    metas = [_meta("one"), _meta("two"), _meta("three")]
    plan = {"selected": [m["key"] for m in metas], "mutants": metas, "suite_prefix": "", "suite_name": "s",
            "threshold": {}, "shard": None, "root": str(project), "project_root": str(project)}
    (out / "plan.json").write_text(json.dumps(plan))
    (out / "baseline.json").write_text(json.dumps({"pins": PINS, "outcomes": {PINS[0]: "passed"}, "key": "k1"}))
    row = {"key": "k-one", "id": "one", "pins": {PINS[0]: "failed"}, "details": {}, "unviable": None, "forks": 1,
           "duration_s": 0.1}
    (out / "results.jsonl").write_text(json.dumps(row) + "\n")


def test_a_stopped_run_s_section_holds_its_finished_rows_and_the_rest_pending(tmp_path: Path) -> None:
    out, project = tmp_path / "out", tmp_path / "project"
    out.mkdir()
    project.mkdir()
    assert stopped_section(out) is None  # stopped before its baseline: nothing to summarise
    _stopped_folder(out, project)
    section = stopped_section(out)
    assert section is not None
    assert (section["totals"]["killed"], section["totals"]["pending"]) == (1, 2)
    assert section["verdict"]["complete"] is False
    assert "2 pending" in (out / "mutation.md").read_text()  # the reports are written too


def test_a_resume_keeps_the_baseline_only_with_the_same_key_and_pins(tmp_path: Path) -> None:
    out, project = tmp_path / "out", tmp_path / "project"
    out.mkdir()
    project.mkdir()
    _stopped_folder(out, project)
    plan = {"resume": True, "baseline_key": "k1"}
    assert reused_baseline(out, plan, PINS) is not None
    assert reused_baseline(out, {**plan, "resume": False}, PINS) is None  # a fresh run measures again
    assert reused_baseline(out, plan, [*PINS, "tests/test_m.py::test_g"]) is None  # another collection
    _keep_baseline_if(out, True, "k1")
    assert (out / "baseline.json").is_file()
    _keep_baseline_if(out, True, "k2")  # the project or the pins changed since: it describes other code
    assert not (out / "baseline.json").exists()
