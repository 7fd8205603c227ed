"""Narrowing a mutation run: ``--mutant ID`` (which mutants run) and ``--case``/``--lane`` (which
case-file pins run, through the pins plugin's own ``--harness-cases``/``--harness-lanes``).

A declared mutant claims pins by reference; when the filters leave none of a claim's pins, the
claim cannot be judged, so that mutant is left out of the run and named (``left_out``) rather
than reported as a failed claim or refused as a reference to no pin.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

from harness._errors import ConfigError
from harness._model import Case
from harness._mutate.mutants import Mutant
from harness._pins.killed_by import resolve

__all__ = ["in_scope", "pick", "pin_filter_args"]


def _kept(value: str, globs: Sequence[str]) -> bool:
    """Whether a filter of ``globs`` keeps ``value``: no filter keeps everything."""
    return not globs or any(fnmatch.fnmatchcase(value, g) for g in globs)


def pick(mutants: Sequence[Mutant], wanted: Sequence[str]) -> set[str]:
    """The keys of the mutants whose id matches one of ``wanted`` (ids or globs); an entry that
    matches none is bad input, with a few planned ids to copy from."""
    keys: set[str] = set()
    for want in wanted:
        hits = {m.key for m in mutants if fnmatch.fnmatchcase(m.id, want)}
        if not hits:
            raise ConfigError("--mutant", want, "the id of a planned mutant, as `harness mutate` prints it"
                              + _examples(mutants, want))
        keys |= hits
    return keys


def _examples(mutants: Sequence[Mutant], want: str) -> str:
    """A few planned ids to copy from: those holding the start of ``want``, else the first ones."""
    near = sorted(m.id for m in mutants if want.split("*")[0][:12] in m.id)[:5] or sorted(m.id for m in mutants)[:5]
    return f" (e.g. {', '.join(near)})" if near else " (this plan has no mutant)"


def _check_globs(option: str, globs: Sequence[str], known: set[str], noun: str) -> None:
    for g in globs:
        if not any(fnmatch.fnmatchcase(k, g) for k in known):
            raise ConfigError(option, g, f"a glob matching at least one of the suite's {len(known)} {noun}")


def _candidate_pins(cases: Sequence[Case], case_globs: Sequence[str], lane_globs: Sequence[str],
                    prefix: str) -> list[str]:
    """The case-file pin node ids the filters keep, spelled as the pins plugin names them."""
    out: list[str] = []
    for case in cases:
        if _kept(case.id, case_globs):
            for lane in case.lanes:
                if _kept(lane, lane_globs):
                    out += _lane_pins(case, lane, prefix)
    return out


def _lane_pins(case: Case, lane: str, prefix: str) -> list[str]:
    """The node ids of one case's pins on one lane: its expect, then each pin that runs there."""
    head = f"{prefix}{case.file}::{case.id}[{lane}]"
    return [f"{head}::expect", *(f"{head}::{pin.name}" for pin in case.pins if lane in pin.lanes)]


def in_scope(declared: Sequence[Mutant], cases: Sequence[Case], case_globs: Sequence[str],
             lane_globs: Sequence[str], prefix: str) -> tuple[list[Mutant], list[str]]:
    """(the declared mutants whose every claim still names a kept pin, the ids of the others).
    A claim on an ordinary test (``<file>.py::<test>``) is kept: the filters leave those alone."""
    if not case_globs and not lane_globs:
        return list(declared), []
    _check_filters(cases, case_globs, lane_globs)
    return _judged(declared, _candidate_pins(cases, case_globs, lane_globs, prefix), prefix)


def _judged(declared: Sequence[Mutant], kept_pins: list[str], prefix: str) -> tuple[list[Mutant], list[str]]:
    """(the mutants whose every claim names a kept pin, the ids of the others)."""
    kept: list[Mutant] = []
    left: list[str] = []
    for m in declared:
        if all(_claim_kept(r, kept_pins, prefix) for r in m.claims):
            kept.append(m)
        else:
            left.append(m.id)
    return kept, left


def _claim_kept(ref: str, kept_pins: list[str], prefix: str) -> bool:
    """Whether a claim's pin still runs: an ordinary test always does, a case-file pin when kept."""
    return ref.split("::", 1)[0].endswith(".py") or bool(resolve(ref, kept_pins, prefix))


def _check_filters(cases: Sequence[Case], case_globs: Sequence[str], lane_globs: Sequence[str]) -> None:
    """Each --case and --lane glob must match something in the suite: a typo is bad input, not an empty run."""
    _check_globs("--case", case_globs, {c.id for c in cases}, "case ids")
    _check_globs("--lane", lane_globs, {lane for c in cases for lane in c.lanes}, "lane ids of its cases")


def pin_filter_args(case_globs: Sequence[str], lane_globs: Sequence[str]) -> list[str]:
    """The pins plugin's own filter options (the ones ``harness run --case/--lane`` passes)."""
    args = []
    if case_globs:
        args.append("--harness-cases=" + ",".join(case_globs))
    if lane_globs:
        args.append("--harness-lanes=" + ",".join(lane_globs))
    return args
