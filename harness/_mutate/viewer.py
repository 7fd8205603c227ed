"""The Stryker report in the official viewer: one self-contained page, no network.

The page inlines the vendored ``mutation-testing-elements`` bundle (vendor/, version and licence
beside it) and the report itself, so it opens from a CI artifact or a file:// URL offline.
"""

from __future__ import annotations

import json
from html import escape
from importlib import resources
from typing import Any

__all__ = ["VIEWER_FILE", "elements_version", "render_viewer", "script_json", "short_test_ids"]

VIEWER_FILE = "mutation-report.html"


def _vendor(name: str) -> str:
    return resources.files("harness._mutate").joinpath(f"vendor/{name}").read_text("utf-8")


def elements_version() -> str:
    entries = json.loads(_vendor("VENDORED.json"))
    return str(next(e["version"] for e in entries if e["package"] == "mutation-testing-elements"))


def script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no "</script>", no "<!--", no line separators that
    older parsers end a string on."""
    text = json.dumps(value, separators=(",", ":"), sort_keys=True)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def short_test_ids(report: dict[str, Any]) -> dict[str, Any]:
    """The report with each test's id a short number and its node id kept as ``name`` (what the
    viewer shows). ``killedBy``/``coveredBy`` name every covering pin of every mutant: spelled in
    full they are most of a bundled-suite report (96,508 references, 17 MB), as numbers ~1 MB."""
    short: dict[str, str] = {}
    tests = {path: {**entry, "tests": [_numbered(test, short) for test in entry["tests"]]}
             for path, entry in report.get("testFiles", {}).items()}
    files = {path: {**entry, "mutants": [_short_refs(m, short) for m in entry["mutants"]]}
             for path, entry in report["files"].items()}
    return {**report, "files": files, "testFiles": tests}


def _numbered(test: dict[str, Any], short: dict[str, str]) -> dict[str, Any]:
    """The test with the next short id, which ``short`` records by its node id."""
    short[test["id"]] = str(len(short))
    return {**test, "id": short[test["id"]]}


def _short_refs(m: dict[str, Any], short: dict[str, str]) -> dict[str, Any]:
    """A mutant whose killedBy and coveredBy name tests by short id (a test not listed keeps its name)."""
    return {**m, **{k: [short.get(t, t) for t in m[k]] for k in ("killedBy", "coveredBy") if k in m}}


def render_viewer(report: dict[str, Any], title: str) -> str:
    """The page: the bundle defines <mutation-test-report-app>; the report (test ids shortened) is
    set as its property."""
    report = short_test_ids(report)
    bundle = _vendor("mutation-test-elements.js").replace("</script", "<\\/script")
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Mutation report: {escape(title)}</title>"
        f"<!-- mutation-testing-elements {escape(elements_version())} (Apache-2.0), vendored by wire-harness -->"
        f"<script>{bundle}</script></head><body>"
        f'<mutation-test-report-app title-postfix="{escape(title)}"></mutation-test-report-app>'
        f'<script id="report" type="application/json">{script_json(report)}</script>'
        "<script>document.querySelector('mutation-test-report-app').report = "
        "JSON.parse(document.getElementById('report').textContent);</script>"
        "</body></html>\n"
    )
