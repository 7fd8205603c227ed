"""A declarative port of a review test with two assertions: as one ``kind: all`` pin, a mutant
that breaks only the second assertion kills the pin its ledger claims (``exact``); as two pins
claimed together, the same mutant reads as a failed claim, which was the port's false alarm."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness._mutate.results import expand
from tests.e2e.inproc import harness_main

pytestmark = [pytest.mark.slow, pytest.mark.expensive]

SUITE = """version: 1
name: ported
subjects:
  shop: {old: "pipes:body", new: "pipes:body", wires: [anthropic-messages]}
mutation:
  root: .
  operators: false
"""
LANES = "version: 1\nlanes:\n  - {id: first, wire: anthropic-messages, provider: anthropic, model: m-1}\n"
PIPES = '''def body(inp, lane):
    tools = [{"name": t["name"], "description": t["description"].strip(), "input_schema": t["input_schema"]}
             for t in inp["tools"]]
    return {"model": lane["model"], "tools": tools}
'''
CHECKS = [{"kind": "equals", "select": "tools[0].name", "value": "search"},
          {"kind": "equals", "select": "tools[0].description", "value": "find things"}]
LEDGER = """version: 1
mutants:
  - id: M1
    title: the description shipped unstripped
    site: {file: pipes.py, function: body}
    change: {find: '"description": t["description"].strip()', replace: '"description": t["description"]'}
    killed_by: [CLAIM]
"""


def project(root: Path, pins: list[dict[str, object]], claim: list[str]) -> Path:
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    case = {"version": 1, "subject": "shop", "cases": [{
        "id": "search", "tools": [{"name": "search", "description": " find things ", "input_schema": {}}],
        "pins": pins}]}
    for name, text in {"suite.yaml": SUITE, "lanes.yaml": LANES, "pipes.py": PIPES,
                       "shop.cases.yaml": json.dumps(case),
                       "m.ledger.yaml": LEDGER.replace("[CLAIM]", json.dumps(claim))}.items():
        (root / name).write_text(text)
    return root


def claim_of(root: Path) -> dict[str, object]:
    got = harness_main("mutate", ".", "--out", "out", cwd=root)
    assert got.returncode in (0, 4), got.stdout + got.stderr
    section = json.loads((root / "out" / "mutation.json").read_text())
    [mutant] = expand(section)["mutants"]
    claim: dict[str, object] = mutant["claim"]
    return claim


def test_a_mutant_breaking_one_assertion_of_an_all_pin_kills_the_pin_claimed(tmp_path: Path) -> None:
    root = project(tmp_path, [{"name": "ships_the_tool", "kind": "all", "checks": CHECKS}],
                   ["search::ships_the_tool"])
    assert claim_of(root)["result"] == "exact"


def test_the_same_assertions_as_two_pins_claimed_together_read_as_a_failed_claim(tmp_path: Path) -> None:
    pins = [{"name": "ships_the_name", **CHECKS[0]}, {"name": "ships_the_description", **CHECKS[1]}]
    root = project(tmp_path, pins, ["search::ships_the_name", "search::ships_the_description"])
    claim = claim_of(root)
    assert claim["result"] == "failed" and claim["green"] == ["shop.cases.yaml::search[first]::ships_the_name"]
