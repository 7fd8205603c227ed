"""The build's short way for its commonest unit (``rows.plain``: both sides in this process, no
checks) gives the row the whole way gives (``_finish``), whatever the sides did and whatever
the case declared: same bytes, different bytes, a raise, a timeout, a value that is not JSON,
a divergence or a raise declared where both sides answered the same."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from harness._differential import units
from harness._differential.rows import Bodies, plain
from harness._differential.unit import Pipelines
from harness._differential.workers import _finish
from harness._load import load_suite
from harness._pipeline.calls import disarm

REPO = Path(__file__).resolve().parents[3]


def without_durations(row: Any) -> Any:
    old, new, checks, verdict = row
    return old[:3], new[:3], checks, verdict


def both_ways(suite_root: Path, timeout: float | None = None) -> tuple[list[Any], list[Any]]:
    todo = [u for u in units(load_suite(suite_root), timeout=timeout) if not u.case.checks]
    short, whole = Pipelines(), Pipelines()
    try:
        fast = [plain(u, short, Bodies()) for u in todo]
        slow = [_finish(u, whole, {}, Bodies()) for u in todo]
    finally:
        disarm()
        short.close()
        whole.close()
    assert short.inputs.settle() and whole.inputs.settle()
    return [without_durations(r) for r in fast], [without_durations(r) for r in slow]


def test_every_unit_of_the_bundled_suite_gets_the_row_the_whole_way_gives() -> None:
    fast, slow = both_ways(REPO / "cases")
    assert len(fast) > 100 and None not in fast
    assert fast == slow
    kinds = {row[3][0] for row in fast}
    assert {"identical", "intended"} <= kinds  # equal answers and differing ones both went the short way


def test_a_raise_a_timeout_and_a_value_that_is_not_json_get_the_rows_the_whole_way_gives(
        tmp_path: Path, scenarios: Path) -> None:
    root = tmp_path / "toy"
    shutil.copytree(scenarios / "suites" / "toy", root)
    (root / "toy.cases.yaml").write_text(
        "version: 1\nsubject: toy\ncases:\n"
        "  - {id: raises, tools: [{name: a}], input: {behaviour: raise}}\n"
        "  - {id: hangs, tools: [{name: a}], lanes: [plain], input: {behaviour: hang}}\n"  # a busy loop: one lane
        "  - {id: not-json, tools: [{name: a}], input: {behaviour: not-json}}\n"
        "  - {id: stale, tools: [{name: a}], lanes: [plain], expect: {plain: {diverges: {why: w}}}}\n"
        "  - {id: unraised, tools: [{name: a}], lanes: [plain],\n"
        "     expect: {plain: {diverges: {why: w, old_raises: ValueError}}}}\n")
    fast, slow = both_ways(root, timeout=0.2)
    assert fast == slow
    assert {row[1][0] for row in fast} == {"ok", "error", "timeout"}
    assert [row[3][:3] for row in fast[-2:]] == [
        ("identical", True, "declared to diverge, but old and new are identical"),
        ("unexpected", True, "declared an error that did not happen: both sides answered")]
