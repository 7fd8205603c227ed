"""The committed catalog (cassettes/ and its manifest) is exactly what the cassette builder makes
from the shared and the project's receipts, every file byte for byte. Expensive (about half a
CPU second of YAML emitting and secret scans past loading the rules): the README tier builds the
first rule of each validator and compares those cassettes and manifest entries
(tests/unit/reject/test_build.py)."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest

from harness._reject.build import build_catalog
from tests.unit.reject.scenario import REPO, bundled_catalog

pytestmark = [pytest.mark.slow, pytest.mark.expensive]


def test_the_committed_catalog_is_exactly_what_the_builder_makes(tmp_path: Path, shared: Path) -> None:
    rules = bundled_catalog().rules
    out = tmp_path / "cassettes"
    counts = build_catalog([shared / "receipts" / "receipts.jsonl", REPO / "cassettes" / "receipts.jsonl"], rules, out)
    assert counts["rules"] >= 40 and counts["receipts"] >= 80
    built = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.yaml"))
    committed = sorted(p.relative_to(REPO / "cassettes").as_posix() for p in (REPO / "cassettes").rglob("*.yaml"))
    assert built == committed
    _, mismatch, errors = filecmp.cmpfiles(out, REPO / "cassettes", built, shallow=False)
    assert mismatch == [] and errors == []
