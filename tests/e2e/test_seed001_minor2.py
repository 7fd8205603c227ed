"""Seed 001's round-5 MINOR-2, as a bundled run reports it.

The built-in ``anthropic_messages`` subject ships the pull request head's endpoint predicate, so
on the careless spellings of the genuine URL the raw root union reaches the genuine validator
and the report lists the recorded root-composition 400 there, declared as a finding; the
userinfo lane is mis-narrowed, a divergence with its why. ``anthropic_messages_fixed`` carries
the review's one-line fix: the finding is gone on the upper-case-scheme and trailing-dot lanes,
and stays on the protocol-relative one, which the review's line does not reach.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow

CARELESS = ("url-upper-scheme", "url-trailing-dot", "url-protocol-relative")
ROOT_COMPOSITION = "anthropic.root-composition"
PR_HEAD_CASES = ("apply-patch-root-oneof", "finance-root-anyof")
FIXED_CASES = ("fixed-apply-patch-root-oneof", "fixed-finance-root-anyof")


REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One filtered bundled run, shared by the tests below (they only read its report's verdicts
    and rejections: the pins of these cases are the README tier's items of cases/), in this
    process (what it reports is the point)."""
    out = tmp_path_factory.mktemp("minor2")
    cases = [arg for case in (*PR_HEAD_CASES, *FIXED_CASES, "string-root-oneof") for arg in ("--case", case)]
    got = harness_main("run", "cases", *cases, "--no-pins", "--format", "json", "--out", str(out), "-q", cwd=REPO)
    assert got.returncode == 0, got.stdout[-2000:] + got.stderr[-2000:]
    loaded: dict[str, Any] = json.loads(got.stdout)
    return loaded


def rejections(report: dict[str, Any], case: str, lane: str, side: str = "new") -> list[dict[str, Any]]:
    found = [f for f in report["rejections"]["findings"]
             if f["case"] == case and f["lane"] == lane and f["side"] == side]
    assert len(found) <= 1, (case, lane, side)
    if not found:  # a body with no known rejection is counted per lane, not listed
        assert report["rejections"]["unlisted"][lane]["no-known-rejection"] >= 1, (case, lane, side)
        return []
    rows: list[dict[str, Any]] = found[0]["rejections"]
    return rows


def row(report: dict[str, Any], case: str, lane: str) -> dict[str, Any]:
    rows: list[dict[str, Any]] = [r for r in report["differential"] if r["case"] == case and r["lane"] == lane]
    assert len(rows) == 1, (case, lane)
    return rows[0]


@pytest.mark.parametrize("case", PR_HEAD_CASES)
@pytest.mark.parametrize("lane", CARELESS)
def test_the_pr_head_ships_the_root_union_to_the_genuine_validator_on_a_careless_url(
        report: dict[str, Any], case: str, lane: str) -> None:
    found = [r for r in rejections(report, case, lane) if r["rule"] == ROOT_COMPOSITION]
    assert len(found) == 1 and found[0]["expected"] is True
    assert found[0]["why"].startswith("FINDING (seed 001 round-5 MINOR-2")
    assert found[0]["receipt"]["status"] == 400
    # The previous line flattened the union on every lane: the finding is the new line's alone.
    assert rejections(report, case, lane, side="old") == []
    verdict = row(report, case, lane)
    assert verdict["verdict"] == "intended" and verdict["why"].startswith("FINDING (seed 001 round-5 MINOR-2)")


@pytest.mark.parametrize("case", PR_HEAD_CASES)
def test_the_plain_first_party_lane_has_no_root_composition_rejection(report: dict[str, Any], case: str) -> None:
    assert rejections(report, case, "anthropic-first-party") == []


@pytest.mark.parametrize("case", FIXED_CASES)
@pytest.mark.parametrize("lane", ["url-upper-scheme", "url-trailing-dot"])
def test_the_fixed_variant_removes_the_finding_on_the_upper_case_scheme_and_trailing_dot_lanes(
        report: dict[str, Any], case: str, lane: str) -> None:
    assert rejections(report, case, lane) == []
    assert row(report, case, lane)["verdict"] == "identical"


@pytest.mark.parametrize("case", FIXED_CASES)
def test_the_fixed_variant_still_ships_the_root_union_on_a_protocol_relative_url(
        report: dict[str, Any], case: str) -> None:
    found = rejections(report, case, "url-protocol-relative")
    assert [r["rule"] for r in found] == [ROOT_COMPOSITION]
    assert found[0]["why"].startswith("FINDING against the review")


def test_the_userinfo_lane_is_mis_narrowed_as_a_declared_divergence(report: dict[str, Any]) -> None:
    recorded = row(report, "apply-patch-root-oneof", "url-userinfo-trick")
    assert recorded["verdict"] == "identical" and recorded["why"].startswith("mis-narrowed")
    declared = row(report, "string-root-oneof", "url-userinfo-trick")
    assert declared["verdict"] == "intended" and declared["why"].startswith("mis-narrowed")
    assert declared["new"]["sha256"] == row(report, "string-root-oneof", "anthropic-first-party")["new"]["sha256"]
