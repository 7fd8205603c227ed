"""The rule engine's fast paths against their slow references at full size: every compiled rule
schema against jsonschema on every bundled value, and the compiled one-pass catalog against the
rules one by one on every bundled body and every corpus body of ../shared. Expensive (about 0.5
to 2.7 CPU s each): the README tier keeps both cross-checks on smaller inputs
(tests/unit/reject/test_fastschema.py: a rule of every validator and every keyword, on the edge
values and the bodies' schemas; tests/unit/reject/test_compiled.py: each validator's smallest
recorded body)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness._errors import Place
from harness._reject.match import fire_all
from harness._sources import tools_from_listing
from tests.unit.reject.test_compiled import _catalog_bodies, _one_by_one, compiled_pass_agrees
from tests.unit.reject.test_fastschema import agreeing_rule_schemas

pytestmark = [pytest.mark.slow, pytest.mark.expensive]


def test_every_rule_schema_agrees_with_jsonschema_on_every_bundled_value() -> None:
    assert agreeing_rule_schemas(head=400) >= 60


def test_the_compiled_pass_gives_each_rules_own_hits_in_order_on_every_bundled_body() -> None:
    rules, bodies = _catalog_bodies()
    assert len(compiled_pass_agrees(rules, bodies)) == len(rules)  # every rule fires on its receipt


def test_the_compiled_pass_agrees_on_every_corpus_body(shared: Path) -> None:
    rules, _ = _catalog_bodies()
    checked = 0
    corpora = shared / "corpora"
    for path in sorted([*(corpora / "mcp").glob("*.json"), *(corpora / "codewhale").glob("*.json")]):
        tools = tools_from_listing(json.loads(path.read_text()), Place(str(path)))
        for body in ({"tools": [{"name": t["name"], "input_schema": t["input_schema"]} for t in tools]},
                     {"tools": [{"type": "function", "function": {"name": t["name"], "parameters": t["input_schema"]}}
                                for t in tools]},
                     {"tools": [{"function_declarations": [{"name": t["name"], "parameters": t["input_schema"]}
                                                           for t in tools]}]}):
            assert fire_all(rules, body) == _one_by_one(rules, body), path.name
            checked += 1
    assert checked >= 30
