"""junit.xml names known rejections and mutation claims as test cases, failing where they fail the run."""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree as ET

from harness._mutate.results import build_section
from harness._report import junit


def _rejection(rule: str, expected: bool) -> dict[str, Any]:
    return {"rule": rule, "validator": "anthropic", "title": "root composition refused", "location": "tools[0]",
            "expected": expected, "why": "declared" if expected else None, "receipt": None}


def _finding(case: str, lane: str, side: str, *rejections: dict[str, Any]) -> dict[str, Any]:
    status = "known-rejected" if rejections else "no-known-rejection"
    return {"case": case, "lane": lane, "side": side, "fronts": ["anthropic"], "status": status,
            "rejections": list(rejections)}


def _report(rejections: dict[str, Any] | None = None, mutation: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"suite": {"name": "s"}, "differential": [], "pins": None, "rejections": rejections, "mutation": mutation}


def _cases(xml: bytes, suite: str) -> dict[str, str | None]:
    root = ET.fromstring(xml)
    (el,) = [s for s in root if s.get("name") == suite]
    return {f"{tc.get('classname')}::{tc.get('name')}": (tc[0].tag if len(tc) else None) for tc in el}


def test_an_undeclared_known_rejection_of_the_new_pipeline_is_a_failing_test_case() -> None:
    findings = [_finding("c1", "first-party", "new", _rejection("anthropic.root", False)),
                _finding("c2", "first-party", "new", _rejection("anthropic.root", True)),
                _finding("c1", "first-party", "old", _rejection("anthropic.root", False)),
                _finding("c3", "proxy", "new")]
    cases = _cases(junit.render(_report(rejections={"findings": findings})), "rejections")
    assert cases == {"c1[first-party]::new:known-rejection": "failure",
                     "c2[first-party]::new:known-rejection": None,
                     "c1[first-party]::old:known-rejection": None}


def test_each_ledger_claim_is_a_test_case_failing_when_it_does_not_hold() -> None:
    pins = ["t.py::test_a", "t.py::test_b"]
    metas = [{"key": f"k-{m}", "id": m, "kind": "declared", "file": "m.py", "module": "m", "function": "f",
              "line": 1, "column": 1, "end_line": 1, "end_column": 2, "operator": "", "title": m, "diff": "",
              "claims": ["t.py::test_a"], "equivalent": None, "ledger": "r.ledger.yaml:3"} for m in ("M1", "M2")]
    rows = {"k-M1": {"key": "k-M1", "id": "M1", "pins": {"t.py::test_a": "failed"}, "details": {}, "unviable": None},
            "k-M2": {"key": "k-M2", "id": "M2", "pins": {"t.py::test_a": "passed", "t.py::test_b": "failed"},
                     "details": {}, "unviable": None}}
    plan = {"selected": ["k-M1", "k-M2"], "mutants": metas, "suite_prefix": "", "threshold": {}}
    section = build_section(plan, {"pins": pins, "outcomes": {p: "passed" for p in pins}}, rows)
    xml = junit.render(_report(mutation=section))
    assert _cases(xml, "mutation claims") == {"r.ledger.yaml:3::M1": None, "r.ledger.yaml:3::M2": "failure"}
    assert b"claimed pin(s) stayed green: t.py::test_a" in xml


def test_a_failing_rejection_case_names_only_the_undeclared_rejections() -> None:
    findings = [_finding("c1", "first-party", "new", _rejection("anthropic.root", False),
                         _rejection("other.rule", True))]
    (case,) = ET.fromstring(junit.render(_report(rejections={"findings": findings})))[1]
    assert case[0].get("message") == case[0].text == "anthropic.root at tools[0]: root composition refused"
