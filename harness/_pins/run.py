"""The pin stage of ``harness run``: every pin's outcome, a summary, and (against old) the
``catches_old`` check.

Case-file items (each pin of a case x lane, and its ``expect`` item) are evaluated in the
harness process on the build stage's saved observations (``harness._pins.inproc``): no pytest
starts for them. A suite with Python pins also gets one pytest child for those alone
(``harness._pins.child``), running beside the in-process evaluation. Both name and judge each
item as the pytest plugin does, so every printed id still reruns with plain pytest.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._common.redact import redactor
from harness._errors import InputError, Place
from harness._model import Side, Suite
from harness._pins.child import ChildRun, PythonPins, StageOptions
from harness._pins.collect import CaseItem, case_items, item_hooks, python_pin_files
from harness._pins.ids import node_root, suite_prefix
from harness._pins.ids import pin_set as pin_set_refs
from harness._pins.inproc import ItemResult, Saved, evaluate_items
from harness._pins.refs import resolve

__all__ = ["run_pins"]


@dataclass(frozen=True)
class _Chosen:
    """The case-file items to evaluate, every case-file node id (a pin set's refs are checked
    against them), and the set's refs (None: no set)."""

    items: list[CaseItem]
    all_ids: list[str]
    refs: list[str] | None


def _choose(suite: Suite, cases: Sequence[str] | None, lanes: Sequence[str] | None,
            pin_set: str | None) -> _Chosen:
    rootdir = node_root(suite)
    items = case_items(suite, rootdir, cases, lanes)
    ids = [i.nodeid for i in items]
    if not pin_set:
        return _Chosen(items, ids, None)
    refs = pin_set_refs(suite, pin_set)  # an unknown set is bad input, before anything runs
    prefix = suite_prefix(suite, rootdir)
    kept = {n for ref in refs for n in resolve(ref, ids, prefix)}
    return _Chosen([i for i in items if i.nodeid in kept], ids, refs)


def _check_refs(suite: Suite, pin_set: str, chosen: _Chosen, python_ids: Sequence[str]) -> None:
    """A ref naming no item, neither a case-file one nor a Python pin the child ran, is the
    user's bad input (exit 2), as ``ids.select_set`` says it."""
    assert chosen.refs is not None
    every = [*chosen.all_ids, *python_ids]
    prefix = suite_prefix(suite, node_root(suite))
    for i, ref in enumerate(chosen.refs):
        if not resolve(ref, every, prefix):
            raise InputError(Place("suite.yaml", None, f"pin_sets.{pin_set}[{i}]"),
                             "a pin reference matching a collected pin", repr(ref))


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


def _exit_code(own: Sequence[ItemResult], child: ChildRun | None) -> int:
    """pytest's exit code for the stage's items as one session would give it."""
    if child is not None and child.code not in (0, 1, 5):
        return child.code
    if any(r.failed for r in own) or (child is not None and child.code == 1):
        return 1
    return 0 if own or (child is not None and child.code == 0) else 5


def _document(suite: Suite, against: Side, pin_set: str | None, own: Sequence[ItemResult],
              child: ChildRun | None) -> dict[str, Any]:
    scrub = redactor().text  # a pin's message can quote pipeline output
    results = [{"id": r.id, "outcome": r.outcome, "message": scrub(r.message[:2000])} for r in own]
    results += child.results if child is not None else []
    results.sort(key=lambda r: r["id"])
    counts = Counter(r["outcome"] for r in results)
    summary = {k: counts.get(k, 0) for k in ("passed", "failed", "skipped", "error")}
    doc: dict[str, Any] = {"against": against, "results": results, "summary": summary,
                           "pytest_exit": _exit_code(own, child), "catches_old": None, "set": pin_set}
    if child is not None and child.problem is not None:
        doc["problem"] = child.problem
        summary["error"] += 1
    if against == "old":
        doc["catches_old"] = _claims(suite, results)
    return doc


def run_pins(suite: Suite, against: Side = "new", cases: Sequence[str] | None = None,
             lanes: Sequence[str] | None = None, timeout: float = 1800,
             observations: Path | None = None, pin_set: str | None = None,
             revisions: Mapping[str, str] | None = None, saved: Saved | None = None) -> dict[str, Any]:
    """Every pin's outcome, a summary, and (against old) the catches_old check. With
    ``observations`` (a run's store), pins read the build stage's observations instead of
    calling every pipeline again; ``saved`` hands the same observations over in memory (the
    case-file items and the Python pins' fork read them there, not the store). ``pin_set``
    keeps only the pins of that named set (``pin_sets`` in suite.yaml)."""
    opts = StageOptions(against, timeout, observations, pin_set, revisions, saved, cases, lanes)
    chosen = _choose(suite, cases, lanes, pin_set)
    with tempfile.TemporaryDirectory(prefix="harness-pins-") as tmp:
        if item_hooks(suite, node_root(suite)):  # a conftest may act on case-file items: pytest runs them all
            return _document(suite, against, pin_set, [], _through_pytest(PythonPins(suite, Path(tmp), [], True), opts))
        child = PythonPins(suite, Path(tmp), chosen.all_ids) if python_pin_files(suite) else None
        own, ran = _side_by_side(suite, chosen, child, opts)
    if pin_set and (ran is None or ran.problem is None):  # a pytest that could not collect says so itself
        _check_refs(suite, pin_set, chosen, [r["id"] for r in ran.results] if ran else [])
    return _document(suite, against, pin_set, own, ran)


def _through_pytest(child: PythonPins, opts: StageOptions) -> ChildRun:
    try:
        child.start(opts)
        return child.finish()
    finally:
        child.stop()


def _side_by_side(suite: Suite, chosen: _Chosen, child: PythonPins | None,
                  opts: StageOptions) -> tuple[list[ItemResult], ChildRun | None]:
    """The case-file items evaluated here while the Python pins' child runs."""
    try:
        if child is not None:
            child.start(opts)
        own = evaluate_items(suite, chosen.items, opts.against, opts.observations, opts.saved)
        return own, (child.finish() if child is not None else None)
    finally:
        if child is not None:
            child.stop()
