"""Compare stage: old vs new Observation on one case x lane -> Verdict.

The verdicts are a closed set (``harness._model.VerdictKind``):

    identical    the wire bytes are the same
    reordered    the values are equal, only key order differs
    intended     they differ, and the case declares this lane may differ (where, and why)
    unexpected   they differ, and nothing declares it (or outside the declared paths)
    error        either side raised, timed out or crashed, and the case does not declare it

A verdict also fails when the case expected a divergence that did not happen (a stale
declaration hides the next real change), or when a declared check (deterministic,
idempotent) does not hold.
"""

from harness._compare.paths import diff_paths, path_allowed
from harness._compare.verdict import Judgement, compare, equal_answers

__all__ = ["Judgement", "compare", "diff_paths", "equal_answers", "path_allowed"]
