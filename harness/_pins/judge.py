"""What one case-file item checks, shared by its two runners: the pytest items of
``harness.pins.plugin`` (plain ``pytest``, the mutation engine, a rerun of a printed id) and the
in-process evaluation of ``harness._pins.inproc`` (the pin stage of ``harness run``).

One implementation of each check and of each message, so the two runners cannot tell a pin's
outcome differently (tests/unit/pins/test_inproc_matches_plugin.py compares them item by item).
"""

from __future__ import annotations

from dataclasses import replace

from harness._compare import compare
from harness._errors import HarnessError
from harness._model import Case, Observation, PinSpec, Suite, Verdict, VerdictKind
from harness._pins import cache
from harness._pins.declarative import PinFailure

__all__ = ["CATCHES_OLD_PASSED", "EXPECT_AGAINST_OLD", "catches_old_applies", "check_expect", "check_verdict",
           "message_of"]

EXPECT_AGAINST_OLD = "old-vs-new expectations have no meaning when pins run against the old pipeline"
CATCHES_OLD_PASSED = ("marked catches_old, but it passes against the old pipeline: it does not catch "
                      "the old behaviour it claims to")


def message_of(exc: BaseException) -> str:
    """The one-line message a failed item reports: a pin's own words for a PinFailure or a
    harness error, ``Type: text`` for anything else (a bug in a check, a refeed that raised)."""
    text = str(exc) if isinstance(exc, PinFailure | HarnessError) else f"{type(exc).__name__}: {exc}"
    lines = text.strip().splitlines()
    return lines[-1] if lines else type(exc).__name__


def catches_old_applies(pin: PinSpec) -> bool:
    """Whether this pin's outcome is inverted: marked ``catches_old`` while pins play old."""
    return pin.catches_old and cache.against() == "old"


def check_expect(suite: Suite, case: Case, lane_id: str, rejections: bool) -> None:
    """The verdict the case declares for this lane holds (PinFailure otherwise); with
    ``rejections``, the new body also meets no known rejection the case leaves undeclared."""
    old = cache.observe(suite, case.id, lane_id, "old")
    new = cache.observe(suite, case.id, lane_id, "new")
    got = compare(old, new, case.expectation(lane_id))
    _holds(got.kind, got.failed, got.detail, got.unexpected_paths)
    if rejections:
        _undeclared_rejections(suite, case, lane_id, new)


def check_verdict(verdict: Verdict) -> bool:
    """``check_expect`` (without rejections) on the verdict the build stage already made of the
    same two observations, when that verdict is the comparison alone: True when it decided
    (PinFailure when it fails), False when the unit's declared checks were folded into it
    (one failed: its detail says so too), so only ``check_expect`` can say what compare alone
    says. The build compared with the same function and the same expectation, so the item's
    outcome and message are the ones ``check_expect`` would give, without comparing again."""
    if any(said != "held" for said in verdict.checks.values()):
        return False
    _holds(verdict.kind, verdict.failed, verdict.detail, verdict.unexpected_paths)
    return True


def _holds(kind: VerdictKind, failed: bool, detail: str, unexpected: tuple[str, ...]) -> None:
    """PinFailure, in the expect item's one wording, when the comparison failed."""
    if failed:
        where = f" at {', '.join(unexpected[:5])}" if unexpected else ""
        raise PinFailure(f"verdict {kind}: {detail}{where}")


def _undeclared_rejections(suite: Suite, case: Case, lane_id: str, new: Observation) -> None:
    """A known rejection the case does not declare fails the item, as it fails ``harness run``
    (exit 3); ``harness run`` itself checks rejections in its own stage and turns this off."""
    from harness._reject.verdicts import evaluate as rejections

    section = rejections(replace(suite, cases=(case,)), {(case.id, lane_id, "new"): new})
    found = [r for f in section["findings"] if f["side"] == "new" for r in f["rejections"] if not r["expected"]]
    if found:
        said = "; ".join(f"{r['rule']} at {r['location']}" + (f": {r['title']}" if r["title"] else "")
                         for r in found[:5])
        raise PinFailure(f"the new body meets a known provider rejection the case does not declare: {said}")
