"""Evidence for a declared ``equivalent``: the new pipeline's output on every case x lane.

"No pin turned red" only says the pins cannot tell; a claimed no-op should also leave every
output the suite can produce byte-identical. So for declared-equivalent mutants the engine
fingerprints the subjects' ``new`` pipelines over every case x lane of the suite, once on the
unmutated code and once with the mutant on, and reports the case x lanes that differ.
Suites without cases (a project of plain tests) have nothing to fingerprint: None.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

__all__ = ["differing", "fingerprints"]


def fingerprints(suite_root: str) -> dict[str, str] | None:
    """``case[lane]`` -> sha256 of the canonical output (or the error raised), None without cases."""
    from harness.canonical import canonical_bytes
    from harness.load import load_suite
    from harness.subjects import load_callable

    try:
        suite = load_suite(suite_root)
    except Exception:  # not a suite of cases: the pins are the only oracle
        return None
    if not suite.cases:
        return None
    out: dict[str, str] = {}
    for case in suite.cases:
        pipeline = load_callable(suite.subjects[case.subject].new)
        for lane_id in case.lanes:
            key = f"{case.id}[{lane_id}]"
            try:
                value: Any = pipeline(copy.deepcopy(dict(case.input)), suite.lanes[lane_id].as_dict())
                out[key] = hashlib.sha256(canonical_bytes(value)).hexdigest()
            except Exception as exc:  # an error is an output too: the same one must come back
                out[key] = f"raised {type(exc).__name__}: {str(exc)[:200]}"
    return out


def differing(before: dict[str, str], after: dict[str, str] | None) -> list[str]:
    """The case x lanes whose output changed (all of them when none could be made)."""
    if after is None:
        return sorted(before)
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
