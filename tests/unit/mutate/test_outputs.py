"""Output fingerprints for declared equivalents: one per case x lane of a suite of cases."""

from __future__ import annotations

import sys
from pathlib import Path

from harness._mutate.outputs import differing, fingerprints


def _suite(tmp_path: Path) -> Path:
    (tmp_path / "shout_subject.py").write_text(
        "def new(inputs, lane):\n    return {'names': [t['name'].upper() for t in inputs['tools']]}\n")
    (tmp_path / "suite.yaml").write_text(
        "version: 1\nsubjects:\n  shout:\n    old: shout_subject:new\n    new: shout_subject:new\n"
        "    wires: [w]\n")
    (tmp_path / "lanes.yaml").write_text(
        "version: 1\nlanes:\n  - {id: a, wire: w, provider: p}\n  - {id: b, wire: w, provider: q}\n")
    (tmp_path / "x.cases.yaml").write_text(
        "version: 1\nsubject: shout\ncases:\n  - id: one\n    tools: [{name: ping}]\n")
    return tmp_path


def test_every_case_and_lane_gets_a_fingerprint_and_changes_are_named(tmp_path: Path) -> None:
    sys.path.insert(0, str(_suite(tmp_path)))
    try:
        prints = fingerprints(str(tmp_path))
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("shout_subject", None)
    assert prints is not None and sorted(prints) == ["one[a]", "one[b]"]
    assert differing(prints, dict(prints)) == []
    assert differing(prints, {**prints, "one[b]": "raised KeyError: 'x'"}) == ["one[b]"]
    assert differing(prints, None) == ["one[a]", "one[b]"]


def test_a_project_without_cases_has_nothing_to_fingerprint(tmp_path: Path) -> None:
    assert fingerprints(str(tmp_path)) is None
