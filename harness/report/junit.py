"""junit.xml: the differential verdicts, the pins, the known rejections and the mutation claims
as test cases, for CI systems. A test case fails exactly where its finding fails the run: an
undeclared known rejection of the new pipeline (exit 3), a ledger claim that does not hold (exit 4).

Every attribute and text passes ``sanitize.clean_text`` here even though the runner sanitizes
the whole report first: a control character or a lone surrogate in a pipeline's message must
never make the file invalid XML, whoever calls ``render``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from xml.etree import ElementTree as ET

from harness.report.sanitize import clean_text

__all__ = ["render"]


def _suite(name: str, cases: list[tuple[str, str, str | None, str | None]]) -> ET.Element:
    el = ET.Element("testsuite", name=name, tests=str(len(cases)),
                    failures=str(sum(1 for c in cases if c[2] == "failure")),
                    errors=str(sum(1 for c in cases if c[2] == "error")),
                    skipped=str(sum(1 for c in cases if c[2] == "skipped")))
    for classname, test, kind, message in cases:
        tc = ET.SubElement(el, "testcase", classname=clean_text(classname), name=clean_text(test))
        if kind:
            text = clean_text(message or "")
            ET.SubElement(tc, kind, message=text[:500]).text = text or None
    return el


def render(report: Mapping[str, Any]) -> bytes:
    root = ET.Element("testsuites", name=clean_text(f"wire-harness {report['suite']['name']}"))
    diff = [
        (f"{r['subject']}.{r['case']}", r["lane"],
         ("error" if r["verdict"] == "error" else "failure") if r["failed"] else None,
         f"{r['verdict']}: {r['detail']}" if r["failed"] else None)
        for r in report["differential"]
    ]
    root.append(_suite("differential", diff))
    if report.get("pins"):
        kinds = {"failed": "failure", "error": "error", "skipped": "skipped"}
        pins = [
            (p["id"].rpartition("::")[0], p["id"].rpartition("::")[2], kinds.get(p["outcome"]), p["message"] or None)
            for p in report["pins"]["results"]
        ]
        root.append(_suite("pins", pins))
    if report.get("rejections"):
        root.append(_suite("rejections", _rejections(report["rejections"])))
    if report.get("mutation"):
        root.append(_suite("mutation claims", _claims(report["mutation"])))
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data


def _rejections(section: Mapping[str, Any]) -> list[tuple[str, str, str | None, str | None]]:
    """One case per case x lane x side a known rejection fires on; undeclared on new fails."""
    out: list[tuple[str, str, str | None, str | None]] = []
    for finding in section.get("findings", []):
        if not finding["rejections"]:
            continue
        undeclared = [r for r in finding["rejections"] if not r["expected"]]
        fails = finding["side"] == "new" and bool(undeclared)
        shown = undeclared if fails else finding["rejections"]
        message = "; ".join(f"{r['rule']} at {r['location']}: {r['title']}" for r in shown)
        if not fails:
            message = ("declared: " if finding["side"] == "new" else "old pipeline: ") + message
        out.append((f"{finding['case']}[{finding['lane']}]", f"{finding['side']}:known-rejection",
                    "failure" if fails else None, message if fails else None))
    return out


def _claims(section: Mapping[str, Any]) -> list[tuple[str, str, str | None, str | None]]:
    """One case per declared mutant: a claim that does not hold fails, a pending one is skipped."""
    from harness.mutate.results import expand  # names pins by id; the mutation stage is optional

    out: list[tuple[str, str, str | None, str | None]] = []
    for m in expand(section)["mutants"]:
        claim = m.get("claim")
        if claim is None:
            continue
        kind = {"failed": "failure", "pending": "skipped"}.get(claim["result"])
        green = claim.get("green") or []
        detail = f"{claim['note']}" + (f": {', '.join(green[:10])}" if green else "")
        out.append((m.get("ledger") or "ledger", m["id"], kind, detail if kind else None))
    return out
