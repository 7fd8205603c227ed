"""docs/rejections.md: following the "add a cassette, a manifest entry and a rule" steps works."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from harness._model import Lane
from harness._reject.cassettes import load_catalog
from harness._reject.check import check_catalog
from harness._reject.replay import replay

DOC = Path(__file__).resolve().parents[3] / "docs" / "rejections.md"


def _blocks() -> list[str]:
    section = DOC.read_text().split("## Add a cassette", 1)[1].split("\n## ", 1)[0]
    return [textwrap.dedent(b) for b in re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)]


def test_the_documented_cassette_manifest_and_rule_pass_the_check_and_are_used(tmp_path: Path) -> None:
    cassette, manifest, rule = _blocks()[:3]
    (tmp_path / "suite.yaml").write_text("version: 1\ncassettes: cassettes\n")
    (tmp_path / "cassettes" / "acme").mkdir(parents=True)
    (tmp_path / "cassettes" / "acme" / "acme.no-enum.yaml").write_text(cassette)
    (tmp_path / "cassettes" / "manifest.yaml").write_text(manifest)
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "acme.rules.yaml").write_text(rule)
    catalog = load_catalog(tmp_path, {"cassettes": "cassettes"})
    assert check_catalog(catalog).problems == []
    lane = Lane(id="acme", wire="w", provider="acme", fronts=("acme",))
    body = {"tools": [{"name": "ok", "input_schema": {"type": "object"}},
                      {"name": "t", "input_schema": {"type": "object", "enum": [1]}}]}
    result = replay(catalog, lane, body)
    assert result.status == "rejected" and result.locations == ("tools[1].input_schema",)
