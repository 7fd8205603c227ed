"""The compiled predicates give jsonschema's answers, over every rule and every bundled body."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from harness._common.patterns import bounded
from harness._reject.fastschema import compile_schema, json_equal, rust_pattern
from harness._reject.rules import Rule
from harness._reject.walk import subschemas
from tests.unit.reject.scenario import bundled_catalog

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


def _words(schema: Any, out: set[str]) -> set[str]:
    """The keywords a schema uses at any depth, with the value of ``type``, ``const`` and ``format``."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            scalar = isinstance(value, str | int | float | bool) and key in ("type", "const", "format")
            out.add(f"{key}={value}" if scalar else key)
            _words(value, out)
    elif isinstance(schema, list):
        for value in schema:
            _words(value, out)
    return out


def representative_rules(rules: list[Rule]) -> list[Rule]:
    """The first rule of each validator, and rules whose compiled schemas use, between them, every
    keyword (and type, const and format value) any compiled rule schema uses: about 30 of the 93."""
    words: dict[str, set[str]] = {}
    for rule in rules:
        words[rule.id] = set()
        for schema in (rule.rejects, rule.when):
            if schema is not None and compile_schema(schema) is not None:
                _words(schema, words[rule.id])
    chosen = {rule.validator: rule for rule in reversed(rules)}  # the first of each validator
    covered = set().union(*(words[rule.id] for rule in chosen.values()))
    wanted = set().union(*words.values())
    while covered != wanted:
        best = max(rules, key=lambda rule: len(words[rule.id] - covered))
        chosen[best.id] = best
        covered |= words[best.id]
    return list(chosen.values())


def agreeing_rule_schemas(head: int, every: bool = True) -> int:
    """Every compiled rule schema (``every=False``: the representative rules') against jsonschema
    on the edge values and each bundled body's schemas and first ``head`` values (one of each); the
    number of schemas compiled. Every rule, on the first 400 values of each body too (about 1,200
    distinct: 2.2 CPU s more than none), is tests/e2e/test_rule_crosschecks.py's."""
    catalog = bundled_catalog()
    rules = list(catalog.rules.rules) if every else representative_rules(list(catalog.rules.rules))
    values = list(EDGES)
    for interaction in catalog.interactions:
        values += [node for _, node in subschemas(interaction.body)] + _values(interaction.body)[:head]
    distinct = {json.dumps(v, sort_keys=True): v for v in values}  # one of each
    values = list(distinct.values())
    compiled = 0
    for rule in rules:
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
    return compiled


def test_a_rule_schema_of_every_keyword_and_validator_agrees_with_jsonschema_on_every_bundled_schema() -> None:
    """Representative rules (every rule: tests/e2e/test_rule_crosschecks.py)."""
    rules = list(bundled_catalog().rules.rules)
    chosen = representative_rules(rules)
    assert {r.validator for r in chosen} == {r.validator for r in rules} and len(chosen) < len(rules) / 2
    assert agreeing_rule_schemas(head=0, every=False) >= 25  # the common shapes do compile


@pytest.mark.parametrize(("a", "b", "same"), [(1, True, False), (1, 1.0, True), ([1], [1.0], True),
                                              ({"a": 0}, {"a": False}, False), ("1", 1, False)])
def test_json_equality_tells_booleans_from_numbers(a: Any, b: Any, same: bool) -> None:
    assert json_equal(a, b) is same


@pytest.mark.parametrize("schema", [{"$ref": "#/x"}, {"if": {}}, {"patternProperties": {}}, {"type": "objekt"}])
def test_schemas_out_of_reach_are_left_to_jsonschema(schema: Any) -> None:
    assert compile_schema(schema) is None


# Shapes the generator writes special code for (string sets, identity for null and booleans,
# a subset test for allowed property names, Rust for plain patterns): jsonschema's answers on
# values chosen to tell them apart.
SPECIAL = [
    {"enum": ["a", None, 1, [1]]},
    {"enum": ["a", "b"]},
    {"enum": [True, 0]},
    {"const": None}, {"const": True}, {"const": False}, {"const": 1}, {"const": {"a": [1.0]}},
    {"propertyNames": {"enum": ["a", "b"]}},
    {"not": {"propertyNames": {"enum": ["type", "title"]}}},
    {"propertyNames": {"enum": ["a", 1]}},
    {"type": "string", "not": {"pattern": "^[a-zA-Z0-9_-]{1,8}$"}},
    {"pattern": "^[A-Za-z_][A-Za-z0-9_.:-]{0,3}$"},
    {"pattern": "[0-9]+"},
]
SPECIAL_VALUES: list[Any] = [
    *EDGES, "a", "b", "ab", "a\n", "abc_def\n", "x" * 9, "é", "😀", "a\ud800", "9", "a:b",
    {"a": 1, "b": 2}, {"a": 1, "c": 2}, {"type": 1, "title": 2}, {"type": 1, "extra": 2},
    [1.0], {"a": [1]}, {"a": [True]}, 0.0, False,
]


@pytest.mark.parametrize("schema", SPECIAL, ids=[json.dumps(s) for s in SPECIAL])
def test_specialised_keywords_agree_with_jsonschema_on_values_that_tell_them_apart(schema: Any) -> None:
    fast = compile_schema(schema)
    assert fast is not None
    slow = jsonschema.Draft202012Validator(schema)
    for value in SPECIAL_VALUES:
        assert fast(value) == slow.is_valid(value), value


@pytest.mark.parametrize(("pattern", "rust"), [
    ("^[a-zA-Z0-9_-]{1,128}$", True), ("^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$", True), ("^[a-z]+$", True),
    ("(a|aa)+$", False), ("^a.b$", False), (r"^\d+$", False), ("abc(?![0-9])", False), ("^[a-z]+?$", False),
])
def test_only_plain_patterns_are_matched_in_rust(pattern: str, rust: bool) -> None:
    assert (rust_pattern(pattern, bounded(pattern)) is not None) is rust


def test_a_rust_matched_pattern_keeps_pythons_answer_for_a_final_newline_and_a_lone_surrogate() -> None:
    check = rust_pattern("^[a-z\\ud800]+$", bounded("^[a-z]+$"))
    assert check is None  # a surrogate in the pattern is not plain
    check = rust_pattern("^[a-z]+$", bounded("^[a-z]+$"))
    assert check is not None
    assert check("abc") and not check("ab1")
    assert check("abc\n")  # Python's $ matches before a final newline (ECMA's would not)
    assert not check("ab\ud800")  # no Rust string holds a lone surrogate: Python decides
