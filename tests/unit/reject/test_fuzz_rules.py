"""Fuzzing the rule engine: any body against the bundled rules, and any rule document, gives a
result or an InputError, never another exception."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st

from harness._errors import InputError, InputErrors
from harness._reject.match import fire_all
from harness._reject.rules import RuleSet, load_rules
from tests.fuzzing import fuzz
from tests.unit.reject.scenario import bundled_catalog

REPO = Path(__file__).resolve().parents[3]
KEYS = st.sampled_from(["tools", "input_schema", "type", "properties", "oneOf", "anyOf", "allOf", "required",
                        "items", "enum", "const", "$ref", "format", "pattern", "name", "description", "model",
                        "additionalProperties", "strict", "parameters", "function", "default", "not", "x"])
SCALARS = (st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False)
           | st.sampled_from(["object", "string", "array", "integer", "number", "null", "boolean", "#/x"])
           | st.text(max_size=12))
BODIES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
                      max_leaves=40)


def bundled() -> RuleSet:
    return bundled_catalog().rules


@fuzz()
@given(st.fixed_dictionaries({"model": st.just("m"), "tools": st.lists(BODIES, max_size=4)}) | BODIES)
def test_any_body_against_the_bundled_rules_gives_hits_or_an_input_error(body: Any) -> None:
    try:
        hits = fire_all(bundled().rules, body)
    except InputError:
        return
    assert isinstance(hits, list)


RULE_FIELDS = st.fixed_dictionaries(
    {"id": st.sampled_from(["r.one", "r-two", "", "x y"]), "select": st.sampled_from(
        ["tools[*].input_schema", "tools[", "*", "$..x", "tools[*]", ""]),
     "message": st.sampled_from(["does not support", "(", "a{2,1}", "(?P<x>", ".*", "[z-a]"])},
    optional={"rejects": BODIES, "validator": st.sampled_from(["anthropic", "", "x"]),
              "receipts": st.lists(st.text(max_size=4), max_size=2), "within": st.sampled_from(["tools[*]", "]["]),
              "location": st.lists(st.sampled_from(["tools.{0}.x", "{path}", "{9}", "{"]), max_size=2)})


@fuzz(share=0.5)
@given(st.lists(RULE_FIELDS, max_size=3), BODIES)
def test_any_rules_document_loads_or_is_refused_and_what_loads_fires_safely(
        tmp_path_factory: Any, rules: list[dict[str, Any]], body: Any) -> None:
    path = Path(str(tmp_path_factory.mktemp("rules"))) / "fuzz.rules.yaml"
    path.write_text(yaml.safe_dump({"version": 1, "validator": "anthropic", "rules": rules}))
    try:
        loaded = load_rules([path])
    except (InputError, InputErrors):
        return
    with contextlib.suppress(InputError):
        fire_all(loaded.rules, {"tools": [body]})
