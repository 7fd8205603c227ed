"""junit.xml: the differential verdicts, the pins, the known rejections and the mutation claims
as test cases, for CI systems. A test case fails exactly where its finding fails the run: an
undeclared known rejection of the new pipeline (exit 3), a ledger claim that does not hold (exit 4).

Every attribute and text passes ``sanitize.clean_text`` here even though the runner sanitizes
the whole report first: a control character or a lone surrogate in a pipeline's message must
never make the file invalid XML, whoever calls ``render``."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any
from xml.sax.saxutils import escape, quoteattr

from harness._common.sanitize import clean_text

__all__ = ["render", "write"]

Case = tuple[str, str, str | None, str | None]  # classname, name, failure/error/skipped or None, message
_ATTR = {"\n": "&#10;", "\r": "&#13;", "\t": "&#09;"}


def _attr(value: str) -> str:
    return quoteattr(clean_text(value), _ATTR)


def _testcase(case: Case) -> str:
    classname, test, kind, message = case
    head = f"    <testcase classname={_attr(classname)} name={_attr(test)}"
    if not kind:
        return head + " />\n"
    text = clean_text(message or "")
    body = f">{escape(text)}</{kind}>" if text else " />"
    return f"{head}>\n      <{kind} message={_attr(text[:500])}{body}\n    </testcase>\n"


def _suite(out: IO[str], name: str, cases: Callable[[], Iterable[Case]]) -> None:
    """One testsuite; ``cases`` is called twice (counts first, then each case), so a streamed
    differential is read from disk twice instead of held in memory."""
    counts = {"failure": 0, "error": 0, "skipped": 0, None: 0}
    tests = 0
    for case in cases():
        tests += 1
        counts[case[2]] += 1
    out.write(f"  <testsuite name={_attr(name)} tests=\"{tests}\" failures=\"{counts['failure']}\" "
              f"errors=\"{counts['error']}\" skipped=\"{counts['skipped']}\"")
    if not tests:
        out.write(" />\n")
        return
    out.write(">\n")
    for case in cases():
        out.write(_testcase(case))
    out.write("  </testsuite>\n")


def _differential(report: Mapping[str, Any]) -> Iterator[Case]:
    for r in report["differential"]:
        kind = ("error" if r["verdict"] == "error" else "failure") if r["failed"] else None
        message = f"{r['verdict']}: {r['detail']}" if r["failed"] else None
        yield (f"{r['subject']}.{r['case']}", r["lane"], kind, message)


def _pins(report: Mapping[str, Any]) -> Iterator[Case]:
    kinds = {"failed": "failure", "error": "error", "skipped": "skipped"}
    for p in report["pins"]["results"]:
        yield (p["id"].rpartition("::")[0], p["id"].rpartition("::")[2], kinds.get(p["outcome"]), p["message"] or None)


def _stream(out: IO[str], report: Mapping[str, Any]) -> None:
    out.write("<?xml version='1.0' encoding='utf-8'?>\n")
    name = "wire-harness " + str(report["suite"]["name"])
    out.write(f"<testsuites name={_attr(name)}>\n")
    _suite(out, "differential", lambda: _differential(report))
    if report.get("pins"):
        _suite(out, "pins", lambda: _pins(report))
    if report.get("rejections"):
        _suite(out, "rejections", lambda: _rejections(report["rejections"]))
    if report.get("mutation"):
        _suite(out, "mutation claims", lambda: _claims(report["mutation"]))
    out.write("</testsuites>\n")


def write(path: Path, report: Mapping[str, Any]) -> None:
    """junit.xml into ``path`` (through a temporary file), written a test case at a time."""
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8") as out:
        _stream(out, report)
    tmp.replace(path)


def render(report: Mapping[str, Any]) -> bytes:
    """junit.xml's bytes (what ``write`` puts in the file)."""
    out = io.StringIO()
    _stream(out, report)
    return out.getvalue().encode()


def _rejections(section: Mapping[str, Any]) -> list[Case]:
    """One case per case x lane x side a known rejection fires on; undeclared on new fails."""
    return [_rejection_case(f) for f in section.get("findings", []) if f["rejections"]]


def _rejection_case(finding: Mapping[str, Any]) -> Case:
    """A finding's case: failing, with the undeclared rejections named, when the new pipeline has any."""
    name, kind = f"{finding['case']}[{finding['lane']}]", f"{finding['side']}:known-rejection"
    undeclared = [r for r in finding["rejections"] if not r["expected"]]
    if finding["side"] != "new" or not undeclared:
        return name, kind, None, None
    return name, kind, "failure", "; ".join(f"{r['rule']} at {r['location']}: {r['title']}" for r in undeclared)


def _claims(section: Mapping[str, Any]) -> list[Case]:
    """One case per declared mutant: a claim that does not hold fails, a pending one is skipped."""
    from harness._mutate.results import expand  # names pins by id; the mutation stage is optional

    return [_claim_case(m, m["claim"]) for m in expand(section)["mutants"] if m.get("claim") is not None]


def _claim_case(m: Mapping[str, Any], claim: Mapping[str, Any]) -> Case:
    kind = {"failed": "failure", "unchecked": "failure", "pending": "skipped"}.get(claim["result"])
    green = claim.get("green") or []
    detail = f"{claim['note']}" + (f": {', '.join(green[:10])}" if green else "")
    return m.get("ledger") or "ledger", m["id"], kind, detail if kind else None
