"""The typed values the stages hand the report: one TypedDict per section of report.json.

Each matches its schema in ``harness/_report/schemas/`` (report.schema.json's ``$defs`` and the
section schemas), so mypy sees every hop from a stage to the file: a misspelt key is a type
error, not a KeyError in a user's run. They are TypedDicts, not dataclasses, because the value
a stage makes *is* the JSON written: no conversion step to keep in step with the schema.

Long lists (the differential rows, the listed rejection findings) are ``Sequence``: in a run they
are streams read back from the run folder (``harness._report.stream.OrderedLines``), elsewhere
plain lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, NotRequired, TypedDict

from harness._evidence.store import EvidenceSummary
from harness._mutate.section import MutationSection, MutationTotals, MutationVerdict

__all__ = [
    "Catalog",
    "Delta",
    "DeltaGroup",
    "ErrorJson",
    "EvidenceLinks",
    "EvidenceSummary",
    "Exit",
    "Finding",
    "MutationSection",
    "MutationTotals",
    "MutationVerdict",
    "Partial",
    "PinResult",
    "PinsSection",
    "Receipt",
    "Rejection",
    "RejectionSummary",
    "RejectionsSection",
    "Report",
    "Row",
    "SideJson",
    "Stale",
    "Summary",
    "VerdictCounts",
]

VerdictKind = Literal["identical", "reordered", "intended", "unexpected", "error"]


class ErrorJson(TypedDict):
    type: str
    message: str
    where: str


class SideJson(TypedDict):
    outcome: str
    sha256: str | None
    bytes: int | None
    error: ErrorJson | None


class EvidenceLinks(TypedDict):
    old: str | None
    new: str | None
    omitted: NotRequired[dict[str, str]]


class Row(TypedDict):
    """One case x lane of ``differential``."""

    subject: str
    case: str
    lane: str
    file: str
    verdict: VerdictKind
    failed: bool
    detail: str
    why: str
    paths: list[str]
    unexpected_paths: list[str]
    checks: dict[str, str]
    old: SideJson
    new: SideJson
    diff: dict[str, Any] | None
    evidence: EvidenceLinks


class PinResult(TypedDict):
    id: str
    outcome: Literal["passed", "failed", "skipped", "error"]
    message: str


class PinCounts(TypedDict):
    passed: int
    failed: int
    skipped: int
    error: int


class CatchesOld(TypedDict):
    failed: int
    passed: list[str]
    marked: list[str]


class PinsSection(TypedDict):
    against: Literal["old", "new"]
    results: list[PinResult]
    summary: PinCounts
    pytest_exit: int
    catches_old: CatchesOld | None
    set: NotRequired[str | None]
    problem: NotRequired[str]


class Receipt(TypedDict):
    id: str
    status: int
    message: str
    source_url: str
    provenance: str
    date: str | None
    provider: str
    cassette: str
    receipts: int


class Rejection(TypedDict):
    rule: str
    validator: str
    title: str
    location: str
    expected: bool
    why: str | None
    receipt: Receipt | None


class Finding(TypedDict):
    case: str
    lane: str
    side: Literal["old", "new"]
    fronts: list[str]
    status: Literal["known-rejected", "no-known-rejection", "not-built", "not-a-request-body"]
    rejections: list[Rejection]


class Catalog(TypedDict):
    rules: int
    receipts: int
    folder: str


class RejectionSummary(TypedDict):
    """``bodies`` checked, ``known_rejected`` of them with a known rejection; per side the bodies
    rejected (``new_rejected_bodies``, ``new_undeclared_bodies``: with an undeclared one,
    ``old_rejected_bodies``), and the hits (one per rule and place): ``new_undeclared``,
    ``new_expected``, ``old``."""

    bodies: int
    known_rejected: int
    new_undeclared: int
    new_expected: int
    old: int
    new_rejected_bodies: NotRequired[int]
    new_undeclared_bodies: NotRequired[int]
    old_rejected_bodies: NotRequired[int]


class DeltaGroup(TypedDict):
    subject: str
    lane: str
    rule: str
    introduced: list[str]
    fixed: list[str]
    silenced: list[str]
    persisting: list[str]
    undeclared: list[str]


class Delta(TypedDict):
    summary: dict[str, Any]
    groups: list[DeltaGroup]


class Stale(TypedDict):
    case: str
    rule: str
    lanes: list[str]
    sides: list[str]


class Unselected(TypedDict):
    """A lane's rules whose ``select`` reached nothing in any of its ``bodies`` (harness._reject.unselected)."""

    bodies: int
    rules: list[str]


class RejectionsSection(TypedDict):
    """report.json's ``rejections`` (rejections.schema.json). ``unlisted``: per lane, how many
    case x lane x side findings of each quiet status (no known rejection, not a request body) the
    run counted instead of listing."""

    version: int
    catalog: Catalog
    summary: RejectionSummary
    findings: Sequence[Finding]
    unlisted: NotRequired[dict[str, dict[str, int]]]
    stale_declarations: list[Stale]
    fail_on: str
    delta: Delta
    unselected: NotRequired[dict[str, Unselected]]


class VerdictCounts(TypedDict):
    identical: int
    reordered: int
    intended: int
    unexpected: int
    error: int


class Summary(TypedDict):
    units: int
    verdicts: VerdictCounts
    failed: int
    pins: NotRequired[PinCounts]


class Exit(TypedDict):
    code: int
    reason: str


class Partial(TypedDict):
    stage: str
    signal: str
    units_done: int
    units_planned: int


class Report(TypedDict):
    """report.json (report.schema.json, version 1)."""

    report: str
    version: int
    harness_version: str
    suite: dict[str, Any]
    options: dict[str, Any]
    differential: Sequence[Row]
    pins: PinsSection | None
    rejections: RejectionsSection | None
    mutation: MutationSection | None
    summary: Summary
    evidence: EvidenceSummary | None
    baseline: dict[str, Any] | None
    timings: dict[str, Any]
    exit: Exit
    partial: NotRequired[Partial]
