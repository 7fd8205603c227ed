"""``harness check-lane LANE``: one lane over a suite, printing only the rejection findings.

For operators: which bodies this lane's pipelines build would a validator it fronts refuse, by
the recorded evidence? Bodies are built by the isolated build stage (harness._differential).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from harness._cli.args import default_suite, suite_lane
from harness._differential import build
from harness._exitcodes import ExitCode
from harness._load.suite import load_suite
from harness._model import Observation, Suite
from harness._reject.report import warning_lines
from harness._reject.verdicts import catalog_of, evaluate, preload

__all__ = ["command", "lane_section", "nothing_to_check"]


def nothing_to_check(suite: Suite, lane_id: str) -> str:
    """Why no body of this lane can meet a known rejection, or "" when some can.

    "0 of 0 bodies" alone reads like a pass; a lane fronting no validator with rules (or one no
    case runs on) was not checked at all, and the operator should be told which it is.
    """
    lane = suite.lanes[lane_id]
    if not catalog_of(suite).rules.for_lane(lane):
        detail = (f"it fronts {', '.join(lane.fronts)}, which no rule names" if lane.fronts
                  else "its fronts list is empty")
        return f"{lane_id} fronts no validator with rules ({detail}), so there is nothing to check"
    if not any(lane_id in case.lanes for case in suite.cases):
        return f"no case of the suite runs on {lane_id}, so there is no body to check"
    return ""


def lane_section(suite_dir: Path, lane_id: str) -> dict[str, Any]:
    """Build every case on one lane (old and new) and evaluate the bodies."""
    suite = load_suite(suite_dir)
    suite_lane(suite, lane_id, "LANE")
    preload(suite)  # a broken rules file or declaration is bad input before anything is built
    note = nothing_to_check(suite, lane_id)
    section = evaluate(suite, {} if note else _observations(suite, lane_id))
    return {**section, "nothing_to_check": note} if note else section


def _observations(suite: Suite, lane_id: str) -> dict[tuple[str, str, str], Observation]:
    """Both sides' observations of every case on the lane, by (case, lane, side)."""
    return {(obs.case_id, obs.lane_id, obs.side): obs for result in build(suite, lanes=[lane_id])
            for obs in (result.old, result.new) if obs is not None}


def _line(finding: dict[str, Any], rej: dict[str, Any]) -> str:
    receipt = rej.get("receipt") or {}
    mark = "declared" if rej["expected"] else "REJECTED"
    message = " ".join(str(receipt.get("message", "")).split())
    return (f"{mark}  {finding['case']}  {finding['side']}  {rej['rule']}  at {rej['location']}\n"
            f"    recorded: {message}\n"
            f"    source:   {receipt.get('source_url', '')} ({receipt.get('provenance', '')})" + _answer(finding))


def _answer(finding: dict[str, Any]) -> str:
    """A gateway lane: what reached the client, and whether it is the recorded envelope
    (harness._pipeline.capture.envelope)."""
    got = finding.get("answer")
    if not got:
        return ""
    carried = {True: "carries the upstream's recorded message", False: "does NOT carry the upstream's message",
               None: "no upstream rejection to carry"}[got["carried"]]
    shape = (f"the envelope recorded in {', '.join(got['envelope_receipts'])}" if got["envelope_receipts"]
             else "no recorded envelope of this gateway has its shape")
    opening = got["opening"] or "no known opening"
    replayed = f"upstream answered {got['upstream_status']} ({got['upstream_rule'] or 'no rule'})"
    return f"\n    client:   {got['status']} from {got['gateway']} ({opening}), {replayed}: {carried}; {shape}"


@click.command("check-lane")
@click.argument("lane")
@click.option("--suite", "suite_dir", type=click.Path(path_type=Path), default=None,
              help="The suite folder (default: ./suite.yaml's folder, pyproject.toml's [tool.wire-harness], ./cases).")
@click.option("--side", type=click.Choice(["new", "old", "both"]), default="new", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
def command(lane: str, suite_dir: Path | None, side: str, as_json: bool) -> int:
    """Run LANE over a suite and print only its known-rejection findings."""
    section = lane_section(suite_dir or default_suite(), lane)
    sides = _SIDES[side]
    findings = _met(section, sides)
    note = str(section.get("nothing_to_check", ""))
    blind = (section.get("unselected") or {}).get(lane)
    if as_json:
        _print_json(lane, findings, note, blind)
    elif note:
        click.echo(f"{lane}: 0 bodies checked: {note} (exit 0: nothing failed, nothing was checked)", err=True)
    else:
        _print_findings(lane, section, findings, sides)
        for line in warning_lines({"unselected": {lane: blind}} if blind else {}):
            click.echo(line.strip(), err=True)
    return ExitCode.KNOWN_REJECTION if _undeclared(findings) else ExitCode.OK


def _met(section: dict[str, Any], sides: tuple[str, ...]) -> list[dict[str, Any]]:
    """The findings of these sides that meet a known rejection."""
    return [f for f in section["findings"] if f["side"] in sides and f["rejections"]]


def _undeclared(findings: list[dict[str, Any]]) -> bool:
    """A known rejection the case does not declare: exit 3."""
    return any(not r["expected"] for f in findings for r in f["rejections"])


def _print_json(lane: str, findings: list[dict[str, Any]], note: str, blind: dict[str, Any] | None) -> None:
    shown: dict[str, Any] = {"lane": lane, "findings": findings}
    if note:
        shown["nothing_to_check"] = note
    if blind:
        shown["unselected"] = blind  # rules whose select reached nothing in the lane's bodies
    click.echo(json.dumps(shown, indent=2, ensure_ascii=False))


_SIDES = {"new": ("new",), "old": ("old",), "both": ("old", "new")}


def _print_findings(lane: str, section: dict[str, Any], findings: list[dict[str, Any]], sides: tuple[str, ...]) -> None:
    """A paragraph per known rejection, then how many of the bodies built met one."""
    for finding in findings:
        for rej in finding["rejections"]:
            click.echo(_line(finding, rej))
    click.echo(f"{lane}: {len(findings)} of {_built(section, sides)} bodies ({'/'.join(sides)}) meet a known "
               "rejection", err=True)


def _built(section: dict[str, Any], sides: tuple[str, ...]) -> int:
    """How many request bodies of these sides were built and checked."""
    return sum(1 for f in section["findings"] if f["side"] in sides
               and f["status"] in ("known-rejected", "no-known-rejection"))
