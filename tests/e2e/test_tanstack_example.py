"""examples/tanstack: published TanStack AI releases (seed 003's library) as old and new through
the Node adapter. The live stream of the newer release removes a strict-mode null while a real
nullable field keeps its null; on resume no release removes it (the fix seed 003 describes is
not published). Skips with the reason when node or the installed releases are absent (`npm ci`
in examples/tanstack/old and examples/tanstack/new, as .ci/run does)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.examples_tree import REPO
from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow

EXAMPLE = REPO / "examples" / "tanstack"


def _missing() -> str | None:
    if not shutil.which("node"):
        return "needs node on PATH (the Node adapter)"
    absent = [side for side in ("old", "new") if not (EXAMPLE / side / "node_modules" / "@tanstack" / "ai").is_dir()]
    if absent:
        return f"needs the published releases installed: npm ci in examples/tanstack/{' and '.join(absent)}"
    return None


def run(out: Path, *args: str) -> dict[str, Any]:
    """``harness run examples/tanstack`` into ``out``: the report, with the run folder in it."""
    reason = _missing()
    if reason:
        pytest.skip(reason)
    got = harness_main("run", str(EXAMPLE), "--out", str(out), "--format", "json", *args)
    assert got.returncode == 0, got.stdout[-3000:] + got.stderr[-3000:]
    loaded: dict[str, Any] = json.loads(got.stdout)
    loaded["run_folder"] = str(next(out.iterdir()))
    return loaded


def _sides(report: dict[str, Any], case: str) -> tuple[Any, Any]:
    """The bodies old and new gave, read back from the run's saved evidence."""
    row = next(r for r in report["differential"] if r["case"] == case)
    folder = Path(report["run_folder"])
    old, new = (json.loads((folder / row["evidence"][side]).read_bytes()) for side in ("old", "new"))
    return old, new


def test_the_newer_release_removes_the_strict_null_live_and_keeps_the_nullable_one(tmp_path: Path) -> None:
    report = run(tmp_path, "--case", "live-bookflight-strict-nulls", "--no-pins", "--workers", "1")
    old, new = _sides(report, "live-bookflight-strict-nulls")
    assert old == {"tool_received": {"destination": "Tokyo", "date": None, "note": None}}
    assert new == {"tool_received": {"destination": "Tokyo", "note": None}}


@pytest.mark.expensive
def test_the_example_runs_clean_and_no_release_removes_the_strict_null_of_a_resumed_call(tmp_path: Path) -> None:
    report = run(tmp_path)
    assert {p["outcome"] for p in report["pins"]["results"]} == {"passed"}
    assert _sides(report, "resume-bookflight-strict-nulls")[1] == {
        "tool_received": {"destination": "Tokyo", "date": None, "note": None}}
    refused = _sides(report, "resume-zod-bookflight-strict-nulls")[1]["error"]
    assert "Input validation failed for tool bookFlight" in refused and "expected string, received null" in refused
