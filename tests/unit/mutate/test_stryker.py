"""The Stryker document (checked against the vendored official schema, with each mutant's
replacement code), the viewer page that inlines the vendored mutation-testing-elements bundle,
and the vendored files themselves (their sha256 and versions as VENDORED.json records them)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import jsonschema

from harness._mutate.results import build_section
from harness._mutate.stryker import diff_replacement, official_schema, stryker_report
from harness._mutate.viewer import elements_version, render_viewer, short_test_ids

VENDOR = Path(__file__).resolve().parents[3] / "harness" / "_mutate" / "vendor"
PINS = ["t.py::test_a", "t.py::test_b"]
SOURCE = "def f(a):\n    return a + 1\n\n\ndef g(b):\n    if b:\n        return 1\n    return 2\n"


def _plan_and_section() -> tuple[dict[str, Any], dict[str, Any]]:
    op = {"key": "k-op", "id": "m.x_f__mutmut_1", "kind": "operator", "file": "m.py", "module": "m", "function": "f",
          "line": 2, "column": 12, "end_line": 2, "end_column": 17, "operator": "BinaryOperation",
          "title": "a + 1 -> a - 1", "diff": "@@ -2 +2 @@\n-    return a + 1\n+    return a - 1\n",
          "replacement": "a - 1", "claims": [], "equivalent": None}
    declared = {"key": "k-d", "id": "M1-gate-off", "kind": "declared", "file": "m.py", "module": "m",
                "function": "g", "line": 6, "column": 1, "end_line": 6, "end_column": 1, "operator": "Declared",
                "title": "the gate is forced off", "replacement": "",
                "diff": "--- a/m.py\n+++ b/m.py\n@@ -5,3 +5,3 @@\n def g(b):\n-    if b:\n+    if False:\n"
                        "         return 1\n", "claims": ["t.py::test_b"], "equivalent": None, "ledger": "l:1"}
    plan = {"selected": ["k-op", "k-d"], "mutants": [op, declared], "suite_prefix": "", "suite_name": "s",
            "threshold": {}, "shard": None}
    rows = {"k-op": {"key": "k-op", "pins": {PINS[0]: "failed", PINS[1]: "passed"}, "details": {}},
            "k-d": {"key": "k-d", "pins": {PINS[1]: "passed"}, "details": {}}}
    section = build_section(plan, {"pins": PINS, "outcomes": dict.fromkeys(PINS, "passed")}, rows)
    return plan, section


def _report(tmp_path: Path) -> dict[str, Any]:
    (tmp_path / "m.py").write_text(SOURCE)
    plan, section = _plan_and_section()
    return stryker_report(section, tmp_path, plan)


def test_the_stryker_report_validates_against_the_vendored_official_schema(tmp_path: Path) -> None:
    schema = official_schema()
    report = _report(tmp_path)
    jsonschema.validators.validator_for(schema)(schema).validate(report)
    mutants = {m["id"]: m for m in report["files"]["m.py"]["mutants"]}
    assert mutants["m.x_f__mutmut_1"]["status"] == "Killed" and mutants["M1-gate-off"]["status"] == "Survived"
    assert report["files"]["m.py"]["source"] == SOURCE


def test_an_operator_mutant_carries_its_replacement_code_from_the_plan(tmp_path: Path) -> None:
    op = next(m for m in _report(tmp_path)["files"]["m.py"]["mutants"] if m["mutatorName"] == "BinaryOperation")
    assert op["replacement"] == "a - 1"
    assert op["location"] == {"start": {"line": 2, "column": 12}, "end": {"line": 2, "column": 17}}


def test_a_declared_mutant_replaces_its_removed_lines_with_its_added_ones(tmp_path: Path) -> None:
    declared = next(m for m in _report(tmp_path)["files"]["m.py"]["mutants"] if m["id"] == "M1-gate-off")
    assert declared["replacement"] == "if False:"
    assert declared["location"] == {"start": {"line": 6, "column": 5}, "end": {"line": 6, "column": 10}}
    # what the viewer shows: the source with the location swapped for the replacement
    line = SOURCE.splitlines()[5]
    start, end = declared["location"]["start"]["column"], declared["location"]["end"]["column"]
    assert line[: start - 1] + declared["replacement"] + line[end - 1:] == "    if False:"


def test_a_diff_that_only_adds_lines_is_a_zero_width_location_before_them() -> None:
    found = diff_replacement("@@ -3,2 +3,3 @@\n x = 1\n+y = 2\n z = 3\n")
    assert found == ({"start": {"line": 4, "column": 1}, "end": {"line": 4, "column": 1}}, "y = 2\n")
    assert diff_replacement("no hunk here") is None


def test_a_diff_that_removes_a_line_replaces_it_with_nothing() -> None:
    location, replacement = diff_replacement("@@ -40,1 +40,0 @@\n-    prune_dangling_required(schema)\n") or ({}, "x")
    assert location == {"start": {"line": 40, "column": 5}, "end": {"line": 40, "column": 36}}
    assert replacement == ""


def test_the_vendored_files_match_the_versions_and_hashes_recorded_beside_them() -> None:
    entries = json.loads((VENDOR / "VENDORED.json").read_text())
    assert {e["package"] for e in entries} == {"mutation-testing-elements", "mutation-testing-report-schema"}
    for e in entries:
        body = (VENDOR / e["file"]).read_bytes()
        assert hashlib.sha256(body).hexdigest() == e["sha256"], f"{e['file']} changed: rerun scripts/vendor_stryker.py"
        assert re.fullmatch(r"\d+\.\d+\.\d+", e["version"])
        assert "Apache License" in (VENDOR / f"{e['package']}.LICENSE").read_text()
    assert elements_version() == next(e["version"] for e in entries if e["package"] == "mutation-testing-elements")


def test_the_viewer_page_inlines_the_bundle_and_the_report_it_shows(tmp_path: Path) -> None:
    report = _report(tmp_path)
    report["files"]["m.py"]["source"] += "# </script><!-- a hostile comment \u2028\n"
    page = render_viewer(report, "bundled")
    bundle = (VENDOR / "mutation-test-elements.js").read_text()
    assert bundle in page  # the whole official component, offline
    assert '<mutation-test-report-app title-postfix="bundled">' in page
    embedded = re.search(r'<script id="report" type="application/json">(.*?)</script>', page, re.S)
    assert embedded is not None and json.loads(embedded.group(1)) == short_test_ids(report)
    assert page.count("</script>") == 3  # the bundle, the report, the line that hands it over
    assert "https://" not in page.replace(bundle, "").replace(json.dumps(report["$schema"])[1:-1], "")


def test_the_viewer_names_tests_by_short_ids_and_keeps_every_reference(tmp_path: Path) -> None:
    report = _report(tmp_path)
    short = short_test_ids(report)
    names = {t["id"]: t["name"] for f in short["testFiles"].values() for t in f["tests"]}
    assert sorted(names) == ["0", "1"] and sorted(names.values()) == PINS
    schema = official_schema()
    jsonschema.validators.validator_for(schema)(schema).validate(short)
    for full, brief in zip(report["files"]["m.py"]["mutants"], short["files"]["m.py"]["mutants"], strict=True):
        for key in ("killedBy", "coveredBy"):
            assert [names[t] for t in brief[key]] == full[key]


def test_a_diff_with_several_changes_locates_only_the_first_run_of_its_first_hunk() -> None:
    diff = ("--- a/m.py\n+++ b/m.py\n@@ -2,4 +2,4 @@\n a = 1\n-b = 2\n+b = 3\n c = 4\n-d = 5\n+d = 6\n"
            "@@ -20,1 +20,1 @@\n-z = 1\n+z = 2\n")
    assert diff_replacement(diff) == ({"start": {"line": 3, "column": 1}, "end": {"line": 3, "column": 6}}, "b = 3")


def test_each_mutant_says_why_it_is_unviable_equivalent_or_crashed(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE)
    plan, _ = _plan_and_section()
    op = plan["mutants"][0]
    plan["mutants"] = [{**op, "key": f"k{i}", "id": f"m{i}"} for i in range(3)]
    plan["mutants"][1]["equivalent"] = "same output"
    plan["selected"] = ["k0", "k1", "k2"]
    rows = {"k0": {"key": "k0", "unviable": "SyntaxError at 2", "pins": {}},
            "k1": {"key": "k1", "pins": {PINS[0]: "passed"}, "outputs": {"outcome": "passed"}},
            "k2": {"key": "k2", "pins": {PINS[0]: "crash", PINS[1]: "crash"}, "details": {PINS[0]: "segfault"}}}
    section = build_section(plan, {"pins": PINS, "outcomes": dict.fromkeys(PINS, "passed")}, rows)
    mutants = {m["id"]: m for m in stryker_report(section, tmp_path, plan)["files"]["m.py"]["mutants"]}
    assert mutants["m0"]["statusReason"] == "SyntaxError at 2"
    assert mutants["m1"]["statusReason"] == "declared equivalent: "
    assert mutants["m2"]["statusReason"] == f"{PINS[0]}: segfault; {PINS[1]}: crash"
