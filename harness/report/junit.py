"""junit.xml: the differential verdicts and the pins as test cases, for CI systems.

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
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data
