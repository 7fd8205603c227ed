"""The compiled catalog (one pass per body) fires exactly what each rule fires on its own."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from harness._reject.compiled import compiled, reach
from harness._reject.match import checker, fire, fire_all
from harness._reject.prefilters import LIST, anchor, prefilter
from harness._reject.rules import Rule
from harness._reject.walk import subschemas
from tests.unit.reject.scenario import bundled_catalog, receipt_bodies

REPO = Path(__file__).resolve().parents[3]


def _catalog_bodies(every: bool = True) -> tuple[list[Rule], list[Any]]:
    """The bundled rules and bodies: every recorded body, or (``every=False``) each validator's
    smallest one (scenario.receipt_bodies); each also with every schema's `type` dropped."""
    rules, bodies = _loaded_catalog_bodies(every)  # loaded once per session: the tests only read them
    return list(rules), list(bodies)


@functools.cache
def _loaded_catalog_bodies(every: bool) -> tuple[list[Rule], list[Any]]:
    catalog = bundled_catalog()
    bodies = [i.body for i in catalog.interactions] if every else receipt_bodies(catalog)
    # and each body with every schema's `type` dropped: the shapes the type-keyed rules skip
    for body in list(bodies):
        stripped = copy.deepcopy(body)
        for _, node in subschemas(stripped):
            if isinstance(node, dict):
                node.pop("type", None)
        bodies.append(stripped)
    return list(catalog.rules.rules), bodies


def _one_by_one(rules: list[Rule], body: Any) -> list[Any]:
    walks: dict[int, Any] = {}
    return [hit for rule in rules for hit in fire(rule, body, walks)]


def compiled_pass_agrees(rules: list[Rule], bodies: list[Any]) -> set[str]:
    """fire_all against the rules one by one on each body; the ids of the rules that fired."""
    fired: set[str] = set()
    for body in bodies:
        expected = _one_by_one(rules, body)
        assert fire_all(rules, body) == expected
        fired.update(hit.rule for hit in expected)
    return fired


def test_the_compiled_pass_gives_each_rules_own_hits_in_order_on_a_recorded_body_of_every_validator() -> None:
    """Each validator's smallest recorded body, so a rule of every family fires (every body, and
    so every rule firing: tests/e2e/test_rule_crosschecks.py)."""
    rules, bodies = _catalog_bodies(every=False)
    fired = compiled_pass_agrees(rules, bodies)
    # the bodies do trigger rules, so equality is not two empty lists; and of every validator
    assert {r.validator for r in rules if r.id in fired} == {r.validator for r in rules}


def test_a_node_a_rule_rejects_always_passes_its_prefilter_and_lands_in_its_anchor_bucket() -> None:
    rules, bodies = _catalog_bodies()
    nodes = [n for body in bodies for _, n in subschemas(body) if isinstance(n, dict)]
    nodes += [{"type": ["string", "null"]}, {"type": "STRING", "enum": [1]}, {"anyOf": [{}], "x": 1}, {}]
    looked = 0
    for rule in rules:
        if rule.rejects is None:
            continue
        check, pre, anchored = checker(rule.rejects), prefilter(rule.rejects), anchor(rule.rejects)
        for node in nodes:
            if not check(node):
                continue
            looked += 1
            assert pre is None or pre(node), (rule.id, node)
            if anchored is not None:
                key, values = anchored
                assert key in node, (rule.id, node)
                if values is not None:
                    kind = node["type"]
                    assert (kind if isinstance(kind, str) else LIST) in values, (rule.id, node)
    assert looked > 50


@pytest.mark.parametrize(("schema", "node", "passes"), [
    ({"required": ["a", "b"]}, {"a": 1}, False),
    ({"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}, {"b": 1}, True),
    ({"not": {"anyOf": [{"required": ["type"]}, {"required": ["anyOf"]}]}}, {"type": "x"}, False),
    ({"not": {"propertyNames": {"enum": ["type", "title"]}}}, {"type": "x", "title": "t"}, False),
    ({"not": {"propertyNames": {"enum": ["type", "title"]}}}, {"type": "x", "nope": 1}, True),
    ({"required": ["type"], "properties": {"type": {"const": "array"}}}, {"type": "object"}, False),
])
def test_prefilters_decide_by_keys_and_type_values(schema: dict[str, Any], node: dict[str, Any], passes: bool) -> None:
    pre = prefilter(schema)
    assert pre is not None and pre(node) is passes


def test_a_catalog_is_compiled_once_per_list_of_rules() -> None:
    rules, _ = _catalog_bodies()
    assert compiled(rules) is compiled(list(rules))


def test_the_linked_tree_walk_gives_each_node_the_path_the_recursive_walk_gives() -> None:
    from harness._reject.walk import subschema_tree, tree_parts

    _, bodies = _catalog_bodies()
    for body in bodies:
        tree = subschema_tree(body)
        assert [(tree_parts(tree, i), node) for i, (_, _, node) in enumerate(tree)] == list(subschemas(body))
    deep: Any = {"type": "string"}
    for _ in range(2000):  # deeper than Python's recursion limit: the stack walk does not care
        deep = {"type": "array", "items": deep}
    tree = subschema_tree(deep)
    assert len(tree) == 2001 and tree_parts(tree, 2000) == ["items"] * 2000


@pytest.mark.parametrize("selector", ["tools[*].function", "tools[0]", "tools[-1].name", "$", "*.x", "a[*][*]",
                                      "tools[9]", "missing.key"])
def test_the_list_selection_reaches_what_the_selector_walk_reaches_in_order(selector: str) -> None:
    from harness._common.selectors import compile_selector, walk

    body = {"tools": [{"function": {"n": 1}, "name": "a"}, {"function": 2, "name": "b"}],
            "a": [[1, 2], [], [3]], "b": {"x": 1}, "c": {"y": 2}, "d": [{"x": 3}]}
    steps = compile_selector(selector)
    assert reach(body, steps) == list(walk(body, steps))


def test_hits_keep_their_places_when_several_rules_hit_one_node_and_siblings_share_a_parent() -> None:
    rules, _ = _catalog_bodies()
    schema = {"type": "object", "properties": {
        "a": {"type": "object", "properties": {"x": {"type": "STRING"}, "y": {"type": "STRING"}}},
        "b": {"anyOf": [{"type": "string"}, {"type": "integer"}], "format": "weird"}}}
    body = {"tools": [{"function_declarations": [{"name": "f", "parameters": schema}]},
                      {"type": "function", "function": {"name": "g", "parameters": schema}}]}
    assert fire_all(rules, body) == _one_by_one(rules, body)
    assert len({hit.location for hit in fire_all(rules, body)}) > 1
