"""Divergences declared above the case: once in suite.yaml or on a lane, for every case they cover.

    suite.yaml   diverges: [{why, paths, lanes: [GLOB...], subjects: [NAME...]}]
    a lane       diverges: [{why, paths}]

A body-wide change (``max_tokens`` raised, ``tools[*].type`` added) would otherwise be declared
again in every case. These are allowances, not claims: a case they cover may differ at their
paths without failing, and a case where that difference does not happen is not stale (a body-wide
change need not show in every pair of a version matrix). The case's own expectation still governs
every other path (``harness._compare.verdict``).
"""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Mapping, Sequence
from typing import Any

from harness._model import Allowance, Case, Lane

__all__ = ["allowances", "lane_allowances", "with_above"]


def lane_allowances(raw: Mapping[str, Any], lane_id: str) -> tuple[Allowance, ...]:
    """A lane's own ``diverges:`` entries."""
    return tuple(Allowance(tuple(d["paths"]), d["why"], f"lane {lane_id}") for d in raw.get("diverges", ()))


def allowances(settings: Mapping[str, Any]) -> list[tuple[Allowance, tuple[str, ...], tuple[str, ...]]]:
    """suite.yaml's ``diverges:`` entries with the lane globs and subjects each covers (empty: all)."""
    return [(Allowance(tuple(d["paths"]), d["why"], "suite.yaml"), tuple(d.get("lanes", ())),
             tuple(d.get("subjects", ()))) for d in settings.get("diverges", ())]


def _covers(lanes: Sequence[str], subjects: Sequence[str], lane_id: str, subject: str) -> bool:
    return (not lanes or any(fnmatch.fnmatchcase(lane_id, g) for g in lanes)) and (not subjects or subject in subjects)


def _lane_above(suite_wide: list[tuple[Allowance, tuple[str, ...], tuple[str, ...]]], lane: Lane,
                subject: str) -> tuple[Allowance, ...]:
    """The allowances that cover a case of ``subject`` on ``lane``: suite.yaml's, then the lane's own."""
    return (*(a for a, globs, subjects in suite_wide if _covers(globs, subjects, lane.id, subject)), *lane.diverges)


def with_above(case: Case, settings: Mapping[str, Any], lanes: Mapping[str, Lane]) -> Case:
    """``case`` with, per lane it runs on, the suite's and the lane's allowances that cover it."""
    suite_wide = allowances(settings)
    above = {}
    for lane_id in case.lanes:
        found = _lane_above(suite_wide, lanes[lane_id], case.subject)
        if found:
            above[lane_id] = found
    return dataclasses.replace(case, above=above) if above else case
