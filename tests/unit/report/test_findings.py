"""The streamed rejections section: evaluate's section, with quiet findings counted per lane instead of listed."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from harness._differential import build
from harness._load.suite import load_suite
from harness._reject.verdicts import evaluate
from harness._report.findings import RejectionStream

ROOT = Path(__file__).parents[3]
CASES = ["apply-patch-root-oneof", "array-root", "typeless-root-without-composition", "fixed-apply-patch-root-oneof"]


def test_units_in_any_finishing_order_give_evaluates_section_with_quiet_rows_counted(tmp_path: Path) -> None:
    suite = load_suite(ROOT / "cases")
    results = build(suite, CASES, workers=0)
    observations = {(o.case_id, o.lane_id, o.side): o for r in results for o in (r.old, r.new) if o is not None}
    reference = evaluate(suite, observations)
    stream = RejectionStream(suite, tmp_path, len(results))
    order = list(enumerate(results))
    random.Random(7).shuffle(order)  # workers finish in any order; the section must not care
    for slot, res in order:
        stream.add(slot, res.unit.case, res.unit.lane, res.old, res.new)
    section = stream.section()
    listed = [f for f in reference["findings"] if f["rejections"]]
    assert listed and list(section["findings"]) == listed
    quiet: dict[str, Counter[str]] = {}
    for f in reference["findings"]:
        if not f["rejections"]:
            quiet.setdefault(f["lane"], Counter())[f["status"]] += 1
    assert section.get("unlisted") == {lane: dict(c) for lane, c in quiet.items()}
    assert sum(n for c in section.get("unlisted", {}).values() for n in c.values()) == \
        len(reference["findings"]) - len(listed)
    for key in ("summary", "delta", "stale_declarations", "fail_on", "catalog", "version", "unselected"):
        assert section[key] == reference[key], key  # type: ignore[literal-required]
