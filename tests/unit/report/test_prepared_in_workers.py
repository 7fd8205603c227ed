"""A run's per-unit evidence work (scrubbing and digesting bodies, firing the rejection rules,
making the redacted report row) is done where the unit ran, in its build worker; the parent only
writes it down, and the run folder holds the same bytes as when the parent did it all."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness import _runner as runner
from harness._evidence import Limits, ObservationStore
from harness._load.suite import load_suite
from harness._reject import verdicts

KEY = "sk-ant-api03-" + "Q" * 24 + "prepared"


def _folder(result: runner.RunResult) -> dict[str, Any]:
    """What a run wrote, minus what differs between any two runs (timings, run ids, durations)."""
    folder = result.folder
    assert not (folder / "observations" / ".staging").exists()  # the workers' staged bodies: moved or removed
    report = json.loads((folder / "report.json").read_text())
    report.pop("timings")
    index = sorted(re.sub(r'"duration_s": [^,}]+', "", line)
                   for line in (folder / "observations" / "observations.jsonl").read_text().splitlines())
    bodies = {p.name: p.read_bytes() for p in (folder / "observations" / "bodies").rglob("*.json")}
    return {"report": report, "index": index, "bodies": bodies,
            "rows": sorted((folder / "differential.jsonl").read_text().splitlines()),
            "markdown": (folder / "report.md").read_text().replace(folder.name, "RUN")}


def _run(scenarios: Path, out: Path, workers: int, limits: Limits) -> dict[str, Any]:
    suite = load_suite(scenarios / "suites" / "leaky")
    return _folder(runner.run(suite, runner.RunOptions(pins=False, out=out, workers=workers, evidence_limits=limits)))


@pytest.mark.parametrize("limits", [Limits(), Limits(body_bytes=40), Limits(run_bytes=60)],
                         ids=["every body saved", "bodies over the per-body cap", "the run's cap reached"])
def test_a_run_prepared_in_its_workers_writes_what_the_parent_alone_writes(
        scenarios: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limits: Limits) -> None:
    monkeypatch.setenv("LEAKY_API_KEY", KEY)
    prepared = _run(scenarios, tmp_path / "a", 1, limits)

    def refuses(*_args: Any) -> Any:
        def prepare(*_args: Any) -> Any:
            raise RuntimeError("a harness bug in prepare")
        return prepare

    monkeypatch.setattr(runner, "_prepare", refuses)  # every unit's prepare raises: the parent does the work
    alone = _run(scenarios, tmp_path / "b", 1, limits)
    assert prepared == alone
    assert KEY not in json.dumps(prepared["report"]) and all(KEY.encode() not in b for b in prepared["bodies"].values())
    assert (limits != Limits()) == any('"omitted"' in row for row in prepared["rows"])


def test_the_parent_neither_scrubs_bodies_nor_fires_rules_when_a_worker_prepared_them(
        scenarios: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here: list[str] = []  # appended to in this process only: a forked worker appends to its own copy
    scrub, fire = ObservationStore.digest, verdicts.findings_for_body
    monkeypatch.setattr(ObservationStore, "digest", lambda self, wire: here.append("scrub") or scrub(self, wire))
    monkeypatch.setattr(verdicts, "findings_for_body", lambda *a: here.append("fire") or fire(*a))
    suite = load_suite(scenarios / "suites" / "hostile")
    result = runner.run(suite, runner.RunOptions(pins=False, out=tmp_path, workers=1))
    assert result.report["summary"]["units"] > 0 and result.report["rejections"]["summary"]["bodies"] > 0
    assert here == []
