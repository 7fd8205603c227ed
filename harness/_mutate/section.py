"""The mutation stage's section as a type: what ``harness mutate`` writes to mutation.json and
``harness run --mutate`` puts in report.json (mutation.schema.json, version 2).

Here, in the mutation stage, because the stage makes it; report.json's ``Report`` names it
(``harness._report.sections``). The mutants, pins and timing rows stay the schema's own JSON
objects, read by key where they are rendered (``harness._mutate.render``)."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

__all__ = ["MutationSection", "MutationTotals", "MutationVerdict"]


class MutationTotals(TypedDict):
    killed: int
    survived: int
    timeout: int
    unviable: int
    no_coverage: int
    equivalent: int
    pending: int
    total: int
    score: float | None


class MutationVerdict(TypedDict):
    escaped_over_threshold: bool
    claims_failed: bool
    complete: bool


class MutationSection(TypedDict):
    """mutation.json, and report.json's ``mutation``."""

    version: int
    suite: str
    shard: list[str] | None
    in_diff: str | None
    targets: list[str]
    pins: dict[str, Any]
    totals: MutationTotals
    threshold: dict[str, Any]
    escaped: list[str]
    expected_survivors: NotRequired[list[str]]
    claims_failed: list[str]
    verdict: MutationVerdict
    mutants: list[dict[str, Any]]
    pin_kills: list[dict[str, Any]]
    timing: dict[str, Any]
    pin_sets: list[list[int]]
    shards_missing: list[str]
    sandbox: NotRequired[dict[str, Any]]
    first_kill: NotRequired[bool]
    pin_runs: NotRequired[dict[str, Any]]
