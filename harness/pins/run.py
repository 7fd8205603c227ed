"""Run a suite's pins through pytest in a child process and read back each item's outcome.

A child process, because pins call pipelines in-process: a pipeline that kills its process
must end one pytest run, not the harness (and ``--harness-isolate`` makes even that rare).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness import supervise
from harness.errors import InputError, Place
from harness.model import Side, Suite
from harness.pins.ids import node_root
from harness.pins.ids import pin_set as pin_set_refs
from harness.provision.matrix import pins_option

__all__ = ["run_pins"]


def _command(suite: Suite, against: Side, results: Path, cases: Sequence[str] | None,
             lanes: Sequence[str] | None, observations: Path | None = None,
             pin_set: str | None = None, revisions: Mapping[str, str] | None = None) -> list[str]:
    root = Path(suite.root)
    # node ids relative to the project root, as `harness mutate` and plain pytest there name them;
    # the user's addopts (-n 2, --lf...) would change what runs and who writes the results file
    cmd = [sys.executable, "-m", "pytest", str(root), "-p", "harness.pins.plugin", "-p", "no:cacheprovider",
           "-o", "addopts=", "-q", "--tb=no", "--no-header", f"--rootdir={node_root(suite)}", "--harness-isolate",
           f"--harness-against={against}", f"--harness-results={results}",
           "--harness-rejections=off"]  # the rejection stage reports those, with their own exit code
    if pin_set:
        cmd.append(f"--harness-pins={pin_set}")
    if cases:
        cmd.append("--harness-cases=" + ",".join(cases))
    if lanes:
        cmd.append("--harness-lanes=" + ",".join(lanes))
    if observations is not None:
        cmd.append(f"--harness-observations={observations}")
    if revisions:  # the pins' own pipeline calls (determinism, idempotence) play the same revisions
        cmd.append("--harness-revisions=" + ",".join(f"{side}:{sha}" for side, sha in sorted(revisions.items())))
    cmd += pins_option(suite)  # a version matrix: every pair's pins, not only the declared pair's
    return cmd


def _claims(suite: Suite, results: list[dict[str, Any]]) -> dict[str, Any]:
    """Against old: which pins marked ``catches_old`` failed (good) or passed (a defect)."""
    marked = {f"{c.id}::{p.name}" for c in suite.cases for p in c.pins if p.catches_old}
    passed, failed, ids = [], 0, []
    for r in results:
        file_case_lane, _, pin = r["id"].rpartition("::")
        case = file_case_lane.rpartition("::")[2].partition("[")[0]
        if f"{case}::{pin}" in marked:
            ids.append(r["id"])
            if r["outcome"] == "passed":
                passed.append(r["id"])
            elif r["outcome"] == "failed":
                failed += 1
    return {"failed": failed, "passed": sorted(passed), "marked": sorted(ids)}


_SET_ERROR = re.compile(r"(suite\.yaml) at (pin_sets\.\S+?): expected (.+?), found (.+)$", re.M)


def _refused_set(output: str) -> None:
    """A pin set naming no collected pin is found only once the child has collected: it is the
    user's bad input (exit 2, naming the reference), not a failing pin."""
    found = _SET_ERROR.search(output)
    if found:
        raise InputError(Place(found[1], None, found[2]), found[3], found[4].strip())


def run_pins(suite: Suite, against: Side = "new", cases: Sequence[str] | None = None,
             lanes: Sequence[str] | None = None, timeout: float = 1800,
             observations: Path | None = None, pin_set: str | None = None,
             revisions: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Every pin's outcome, a summary, and (against old) the catches_old check. With
    ``observations`` (a run's store), pins read the build stage's observations instead of
    calling every pipeline again; ``pin_set`` keeps only the pins of that named set
    (``pin_sets`` in suite.yaml)."""
    if pin_set:
        pin_set_refs(suite, pin_set)  # an unknown set is bad input, before any pytest starts
    with tempfile.TemporaryDirectory(prefix="harness-pins-") as tmp:
        out = Path(tmp) / "results.jsonl"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [suite.root, os.environ.get("PYTHONPATH")]))}
        env.pop("PYTEST_ADDOPTS", None)
        # supervised: the child pytest and every fork it makes end with the harness or at the deadline
        command = _command(suite, against, out, cases, lanes, observations, pin_set, revisions)
        proc = supervise.run(command, timeout=timeout, env=env, cwd=str(node_root(suite)))
        lines = out.read_text().splitlines() if out.exists() else []
    results = [{"id": r["nodeid"], "outcome": r["outcome"] if r["when"] == "call" or r["outcome"] != "failed"
                else "error", "message": r["message"], "when": r["when"]}
               for r in map(json.loads, lines)]
    results = [{k: v for k, v in r.items() if k != "when"} for r in results]
    results.sort(key=lambda r: r["id"])
    counts = Counter(r["outcome"] for r in results)
    summary = {k: counts.get(k, 0) for k in ("passed", "failed", "skipped", "error")}
    doc: dict[str, Any] = {"against": against, "results": results, "summary": summary,
                           "pytest_exit": proc.code, "catches_old": None, "set": pin_set}
    if proc.code not in (0, 1, 5):  # 2-4: pytest itself could not run (collection, usage)
        _refused_set(proc.tail(20000))
        tail = proc.tail(20000).splitlines()[-15:]
        doc["problem"] = "\n".join([*tail, *([f"(the pins' pytest was {proc.how()})"] if proc.code < 0 or
                                             proc.timed_out else [])])
        summary["error"] += 1
    if against == "old":
        doc["catches_old"] = _claims(suite, results)
    return doc
