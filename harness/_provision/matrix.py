"""A version matrix from one case set: ``harness run --versions 1.74.0,1.80.0,1.110.2``.

Every subject whose two sides name the same package (``package:`` sides) is played once per pair
of versions: consecutive pairs (1.74.0 -> 1.80.0, 1.80.0 -> 1.110.2) and each version against the
first (1.74.0 -> 1.110.2), in one run and one report. A pair is a subject of its own, named
``<subject>@<old>..<new>``, and each of its cases is the original case with the id
``<case>@<old>..<new>``: the report's tables, verdicts, rejections, delta and pins are per pair.

Pins run in a child pytest that loads the suite from its folder: ``pins_option`` is the argument
that tells it the versions (``--harness-versions``), and ``expand_for_pins`` plays the same
pairs there, so every pin of a case is checked on every compared pair (node ids
``<file>::<case>@<old>..<new>[<lane>]::<pin>``), not only on the pair suite.yaml declares.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence

from harness._errors import ConfigError
from harness._model import Case, Subject, Suite
from harness._provision.released import distribution, with_version

__all__ = ["PINS_OPTION", "expand", "expand_for_pins", "pairs", "parse_versions", "pins_option"]

PINS_OPTION = "--harness-versions"


def parse_versions(text: str) -> list[str]:
    """``1.74.0,1.80.0`` -> the versions; ConfigError unless two or more distinct ones."""
    versions = [v.strip() for v in text.split(",") if v.strip()]
    if len(versions) < 2 or len(set(versions)) != len(versions) or any(" " in v for v in versions):
        raise ConfigError("--versions", text, "two or more distinct versions separated by commas (1.74.0,1.80.0)")
    return versions


def pairs(versions: Sequence[str]) -> list[tuple[str, str]]:
    """Consecutive pairs, then each version against the first (when not already a pair)."""
    out = list(itertools.pairwise(versions))
    out += [(versions[0], v) for v in versions[2:]]
    return out


def _package(subject: Subject) -> str | None:
    """The package both sides name, or None when the subject has no package sides."""
    old, new = subject.pipeline("old"), subject.pipeline("new")
    if not old.requirements and not new.requirements:
        return None
    names = {distribution(s.requirements[0]).lower() if s.requirements else "(not a package side)"
             for s in (old, new)}
    if len(names) != 1:
        raise ConfigError("--versions", subject.name, f"a subject whose old and new name one package, "
                          f"not {' and '.join(sorted(names))}")
    return names.pop()


def _pair(subject: Subject, old: str, new: str) -> Subject:
    sides = {"old": with_version(subject.pipeline("old"), old), "new": with_version(subject.pipeline("new"), new)}
    return dataclasses.replace(subject, name=f"{subject.name}@{old}..{new}", old=sides["old"].label(),
                               new=sides["new"].label(), pipelines={**subject.pipelines, **sides})


def expand(suite: Suite, versions: Sequence[str]) -> Suite:
    """The suite with each package subject played once per pair of ``versions``."""
    played = {name: s for name, s in suite.subjects.items() if _package(s) is not None}
    if not played:
        raise ConfigError("--versions", ",".join(versions),
                          "a suite with a subject whose sides name a package (old: {package: NAME==V, call: ...})")
    subjects: dict[str, Subject] = {n: s for n, s in suite.subjects.items() if n not in played}
    cases: list[Case] = []
    for case in suite.cases:
        if case.subject not in played:
            cases.append(case)
            continue
        for old, new in pairs(versions):
            pair = _pair(played[case.subject], old, new)
            subjects[pair.name] = pair
            cases.append(dataclasses.replace(case, id=f"{case.id}@{old}..{new}", subject=pair.name))
    return dataclasses.replace(suite, subjects=subjects, cases=tuple(cases),
                               settings=suite.settings.updated(matrix=list(versions)))


def pins_option(suite: Suite) -> list[str]:
    """The child pytest's argument for a matrix run (the versions ``expand`` recorded), else none."""
    versions = suite.settings.matrix
    return [f"{PINS_OPTION}={','.join(versions)}"] if versions else []


def expand_for_pins(suite: Suite, versions: Sequence[str]) -> Suite:
    """The suite folder's suite (as loaded, never expanded) played as the matrix run played it;
    unchanged without versions."""
    return expand(suite, versions) if versions else suite
