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

__all__ = ["differing", "fingerprints"]


def fingerprints(suite_root: str) -> dict[str, str] | None:
    """``case[lane]`` -> sha256 of the canonical output (or the error raised), None without cases.
    The suite is the one the pins loaded in this process (so a row working in its own copy of the
    sandbox fingerprints its own sides); every side is reached through the pipeline seam."""
    from pathlib import Path

    from harness.build.unit import Pipelines
    from harness.load import load_suite
    from harness.mutate.sides import suites

    try:
        suite = suites().get(str(Path(suite_root).resolve())) or load_suite(suite_root)
    except Exception:  # not a suite of cases: the pins are the only oracle
        return None
    if not suite.cases:
        return None
    out: dict[str, str] = {}
    timeout = float(suite.settings.get("timeout_s", 10.0))
    with Pipelines() as pipes:
        for case in suite.cases:
            pipeline = pipes.get(suite.subjects[case.subject].pipeline("new"))
            for lane_id in case.lanes:
                key = f"{case.id}[{lane_id}]"
                obs = pipeline.call(copy.deepcopy(dict(case.input)), suite.lanes[lane_id].as_dict(), case_id=case.id,
                                    lane_id=lane_id, side="new", timeout=timeout)
                if obs.ok and obs.wire is not None:
                    out[key] = hashlib.sha256(obs.wire).hexdigest()
                else:  # an error is an output too: the same one must come back
                    err = obs.error
                    out[key] = f"{obs.outcome} {err.type if err else ''}: {(err.message if err else '')[:200]}"
    return out


def differing(before: dict[str, str], after: dict[str, str] | None) -> list[str]:
    """The case x lanes whose output changed (all of them when none could be made)."""
    if after is None:
        return sorted(before)
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
