"""The pins section of a run: which case-file items a run evaluates, and every outcome, a
summary, pytest's exit code and (against old) the ``catches_old`` check, in one document."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness._errors import InputError, Place
from harness._model import Side, Suite
from harness._pins.child import ChildRun
from harness._pins.collect import CaseItem, case_items
from harness._pins.ids import node_root, suite_prefix
from harness._pins.ids import pin_set as pin_set_refs
from harness._pins.refs import resolve

__all__ = ["Chosen", "check_refs", "choose", "claims", "document"]


@dataclass(frozen=True)
class Chosen:
    """The case-file items to evaluate, every case-file node id (a pin set's refs are checked
    against them), and the set's refs (None: no set)."""

    items: list[CaseItem]
    all_ids: list[str]
    refs: list[str] | None


def choose(suite: Suite, cases: Sequence[str] | None, lanes: Sequence[str] | None,
           pin_set: str | None) -> Chosen:
    rootdir = node_root(suite)
    items = case_items(suite, rootdir, cases, lanes)
    ids = [i.nodeid for i in items]
    if not pin_set:
        return Chosen(items, ids, None)
    refs = pin_set_refs(suite, pin_set)  # an unknown set is bad input, before anything runs
    prefix = suite_prefix(suite, rootdir)
    kept = {n for ref in refs for n in resolve(ref, ids, prefix)}
    return Chosen([i for i in items if i.nodeid in kept], ids, refs)


def check_refs(suite: Suite, pin_set: str, chosen: Chosen, python_ids: Sequence[str]) -> None:
    """A ref naming no item, neither a case-file one nor a Python pin the child ran, is the
    user's bad input (exit 2), as ``ids.select_set`` says it."""
    assert chosen.refs is not None
    every = [*chosen.all_ids, *python_ids]
    prefix = suite_prefix(suite, node_root(suite))
    for i, ref in enumerate(chosen.refs):
        if not resolve(ref, every, prefix):
            raise InputError(Place("suite.yaml", None, f"pin_sets.{pin_set}[{i}]"),
                             "a pin reference matching a collected pin", repr(ref))


def claims(suite: Suite, results: list[dict[str, Any]]) -> dict[str, Any]:
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


def _exit_code(own: int, own_failed: bool, child: ChildRun | None) -> int:
    """pytest's exit code for the stage's items as one session would give it (``own``: how
    many items the harness evaluated itself)."""
    code = child.code if child is not None else 5
    if code not in (0, 1, 5):
        return code
    if own_failed or code == 1:
        return 1
    return 0 if own or code == 0 else 5


def document(suite: Suite, against: Side, pin_set: str | None, own: list[dict[str, Any]], own_failed: bool,
             child: ChildRun | None) -> dict[str, Any]:
    """The pins section from the harness's own outcomes (rows already redacted; ``own_failed``:
    whether pytest would count one a failure) and what the child reported."""
    results = sorted([*own, *(child.results if child is not None else [])], key=lambda r: r["id"])
    counts = Counter(r["outcome"] for r in results)
    summary = {k: counts.get(k, 0) for k in ("passed", "failed", "skipped", "error")}
    doc: dict[str, Any] = {"against": against, "results": results, "summary": summary,
                           "pytest_exit": _exit_code(len(own), own_failed, child), "catches_old": None,
                           "set": pin_set}
    if child is not None and child.problem is not None:
        doc["problem"] = child.problem
        summary["error"] += 1
    if against == "old":
        doc["catches_old"] = claims(suite, results)
    return doc
