"""The compiled predicates give jsonschema's answers, over every rule and every bundled body."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from harness.reject.cassettes import load_catalog
from harness.reject.fastschema import compile_schema, json_equal
from harness.reject.walk import subschemas

REPO = Path(__file__).resolve().parents[3]
EDGES: list[Any] = [None, True, False, 0, 1, 1.0, 1.5, -3, "", "x", "object", [], [1], [None], [True, 1],
                    {}, {"type": "object"}, {"type": ["string", "null"]}, {"enum": [1, True]}, {"a": None}]


def _values(body: Any) -> list[Any]:
    out: list[Any] = []

    def visit(v: Any) -> None:
        out.append(v)
        if isinstance(v, dict):
            for x in v.values():
                visit(x)
        elif isinstance(v, list):
            for x in v:
                visit(x)

    visit(body)
    return out


def test_every_rule_schema_agrees_with_jsonschema_on_every_bundled_value() -> None:
    catalog = load_catalog(REPO / "cases", {"rules": ["rules/*.rules.yaml"], "cassettes": "../cassettes"})
    values = list(EDGES)
    for interaction in catalog.interactions:
        values += [node for _, node in subschemas(interaction.body)] + _values(interaction.body)[:400]
    distinct = {json.dumps(v, sort_keys=True): v for v in values}  # one of each, fast enough for a unit test
    values = list(distinct.values())
    compiled = 0
    for rule in catalog.rules.rules:
        for schema in (rule.rejects, rule.when):
            if schema is None:
                continue
            fast = compile_schema(schema)
            if fast is None:
                continue
            compiled += 1
            slow = jsonschema.Draft202012Validator(schema)
            for value in values:
                assert fast(value) == slow.is_valid(value), (rule.id, value)
    assert compiled >= 60  # the point is that the common shapes do compile


@pytest.mark.parametrize(("a", "b", "same"), [(1, True, False), (1, 1.0, True), ([1], [1.0], True),
                                              ({"a": 0}, {"a": False}, False), ("1", 1, False)])
def test_json_equality_tells_booleans_from_numbers(a: Any, b: Any, same: bool) -> None:
    assert json_equal(a, b) is same


@pytest.mark.parametrize("schema", [{"$ref": "#/x"}, {"if": {}}, {"patternProperties": {}}, {"type": "objekt"}])
def test_schemas_out_of_reach_are_left_to_jsonschema(schema: Any) -> None:
    assert compile_schema(schema) is None
