"""The OpenAPI corpus run: ../shared/corpora/openapi/*.json imported, then the seed 001 subject's
pipelines over every resulting tool on the anthropic lanes. Prints what each lane ships for
the operations whose input schema carries a root composition; asserts loosely (the corpus is
real data, measured, not assumed). Skipped when ../shared is absent (a user's clone)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness._common.canonical import canonical_bytes
from harness._plugins import resolve_subject
from harness._sources.openapi import ImportResult, import_document
from harness._sources.openapi.lanes import load_lanes, rules_beside, ship

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpora" / "openapi"
GITHUB = CORPUS / "github-api.github.com.json"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.corpus,
    pytest.mark.skipif(not GITHUB.is_file(), reason="../shared/corpora/openapi is absent (not in a user's clone)"),
]


@pytest.fixture(scope="module")
def github() -> ImportResult:
    return import_document(GITHUB)


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.json")) if CORPUS.is_dir() else [])
def test_every_corpus_document_imports_within_the_bounds(name: str, request: pytest.FixtureRequest) -> None:
    # GitHub's is the module's own import (0.6 CPU s): the tests below read it too
    result = request.getfixturevalue("github") if name == GITHUB.name else import_document(CORPUS / name)
    print(f"\n{name}: {len(result.tools)} tools of {result.operations} operations; "
          f"{len(result.skipped)} skipped; {len(result.dropped_responses)} responses dropped")
    for line in result.warnings():
        print("  " + line)
    assert result.tools
    assert len(result.tools) + len(result.skipped) == result.operations
    for t in result.tools:
        assert canonical_bytes(t["input_schema"])  # serialisable: no cycle survived inlining


def test_github_yields_about_twelve_hundred_tools_with_reasons_for_the_rest(github: ImportResult) -> None:
    assert 1_100 <= len(github.tools) <= 1_300
    assert all(s.reason for s in github.skipped)
    assert all(s.reason.startswith("request body is not JSON") for s in github.skipped)


def test_github_root_compositions_are_measured(github: ImportResult) -> None:
    roots, bodies = github.root_compositions, github.body_compositions
    print(f"\nGitHub: {len(bodies)} JSON bodies with a root oneOf/anyOf/allOf; {len(roots)} tools carry "
          "one at the root (object bodies); the rest become one `body` field (seed 002)")
    assert set(roots) <= set(bodies)
    assert 5 <= len(roots) <= 60 and 10 <= len(bodies) <= 60


@pytest.mark.expensive
def test_each_anthropic_lane_ships_something_known_for_every_composed_tool(github: ImportResult) -> None:
    subject = resolve_subject("anthropic_messages")
    lanes = load_lanes(REPO / "cases" / "lanes" / "anthropic.yaml")
    rows = ship(github.tools, subject, lanes, rules=rules_beside(REPO / "cases"))
    composed = len(github.root_compositions)
    print(f"\nwhat each anthropic lane ships for GitHub's {composed} composed tools:")
    for row in rows:
        print(f"  {row.lane:28} {row.side}: {dict(sorted(row.counts.items()))} {sorted(row.rules)}")
    assert {r.lane for r in rows} == {lane.id for lane in lanes if lane.wire in subject.wires}
    for row in rows:
        shown = sum(v for k, v in row.counts.items() if k not in ("errors_any_tool", "known-rejected"))
        assert shown == composed, row
        assert row.counts["known-rejected"] <= composed
    new_rows = [r for r in rows if r.side == "new"]
    assert any(r.counts["narrowed"] == composed for r in new_rows), "no lane narrows the compositions"
    assert any(r.counts["kept"] == composed for r in new_rows), "no lane ships them verbatim"


@pytest.mark.expensive
def test_the_cli_reports_the_same_in_json(github: ImportResult) -> None:
    harness = Path(sys.executable).parent / "harness"
    done = subprocess.run([str(harness), "openapi", str(GITHUB), "--format", "json", "--lanes", str(REPO / "cases")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["tools"] == len(github.tools)
    assert report["root_compositions"] == github.root_compositions
    assert report["shipping"]["subject"] == "anthropic_messages" and report["shipping"]["lanes"]
