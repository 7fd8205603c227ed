"""Rules load like case files (one clear error per problem); templates and paths round-trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness._errors import InputErrors
from harness._reject.match import fire
from harness._reject.rules import Rule, load_rules
from harness._reject.template import extract, render
from harness._reject.walk import PATH_STYLES, render_path, subschemas

GOOD = """version: 1
validator: anthropic
rules:
  - id: a.one
    select: tools[*].input_schema
    rejects: {type: object, required: [oneOf]}
    message: "does not support"
    receipts: [R1]
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "x.rules.yaml"
    path.write_text(text)
    return path


def test_a_rules_file_loads_into_frozen_rules(tmp_path: Path) -> None:
    rules = load_rules([_write(tmp_path, GOOD)], tmp_path).rules
    assert [(r.id, r.validator, r.receipts, r.line) for r in rules] == [("a.one", "anthropic", ("R1",), 4)]


@pytest.mark.parametrize(("change", "expected"), [
    (("receipts: [R1]", "receipts: []"), "receipts"),
    (("select: tools[*].input_schema", "select: tools[*].input_schema\n    colour: red"), "colour"),
    (('message: "does not support"', 'message: "(unclosed"'), "regular expression"),
    (("rejects: {type: object, required: [oneOf]}", "rejects: {type: objekt}"), "JSON Schema"),
    (("rejects: {type: object, required: [oneOf]}", "predicate: {name: guess}"), "predicate"),
])
def test_a_bad_rule_is_one_error_naming_file_line_and_place(tmp_path: Path, change: tuple[str, str],
                                                           expected: str) -> None:
    with pytest.raises(InputErrors) as caught:
        load_rules([_write(tmp_path, GOOD.replace(*change))], tmp_path)
    text = str(caught.value)
    assert "x.rules.yaml:" in text and "rules[0]" in text
    assert expected in text


@pytest.mark.parametrize(("key", "schema", "ref"), [
    ("rejects", '{$ref: "#/nope"}', "'#/nope' at $ref"),
    ("rejects", '{type: object, properties: {a: {$ref: "#/$defs/missing"}}}', "at properties.a.$ref"),
    ("when", '{anyOf: [{$ref: "https://schemas.invalid/x.json"}]}', "at anyOf[0].$ref"),
])
def test_a_ref_pointing_nowhere_is_bad_input_at_load_naming_the_rule_key(tmp_path: Path, key: str, schema: str,
                                                                          ref: str) -> None:
    text = GOOD.replace('    message: "does not support"', f'    {key}: {schema}\n    message: "does not support"')
    if key == "rejects":
        text = text.replace("    rejects: {type: object, required: [oneOf]}\n", "")
    with pytest.raises(InputErrors) as caught:
        load_rules([_write(tmp_path, text)], tmp_path)
    [error] = caught.value.errors
    assert error.place.file == "x.rules.yaml" and error.place.path == f"rules[0].{key}"
    assert error.expected == "a $ref that points into the rule's own schema"
    assert ref in error.found


def test_a_ref_into_the_rules_own_defs_loads_and_fires(tmp_path: Path) -> None:
    schema = '{$defs: {bad: {required: [oneOf]}}, $ref: "#/$defs/bad"}'
    text = GOOD.replace("rejects: {type: object, required: [oneOf]}", f"rejects: {schema}")
    [rule] = load_rules([_write(tmp_path, text)], tmp_path).rules
    assert fire(rule, {"tools": [{"input_schema": {"oneOf": []}}]})
    assert not fire(rule, {"tools": [{"input_schema": {"type": "object"}}]})


def test_two_rules_with_one_id_are_refused(tmp_path: Path) -> None:
    twice = GOOD + GOOD.split("rules:\n", 1)[1]
    with pytest.raises(InputErrors, match="a rule id unique in the suite"):
        load_rules([_write(tmp_path, twice)], tmp_path)


def test_a_template_renders_and_extracts_the_same_place() -> None:
    template = "tools.{0}.custom.input_schema"
    assert render(template, {"0": "13"}) == "tools.13.custom.input_schema"
    assert extract(template, ["x tools.13.custom.input_schema: no"]) == [{"0": "13"}]
    assert extract("tools.{0}", ["tools.13.custom"]) == [{"0": "13"}]  # not tools.1


def test_a_template_ending_in_a_word_does_not_match_inside_a_longer_word() -> None:
    assert extract("tools[{0}].parameters", ["tools[2].parametersX"]) == []


def test_paths_render_in_each_provider_style() -> None:
    root = {"type": "object", "properties": {"a": {}, "b": {"type": "array", "items": {"anyOf": [{}, {}]}}}}
    parts = next(p for p, node in subschemas(root) if p[-2:] == ["anyOf", 1])
    assert render_path("tuple", root, parts) == "'properties', 'b', 'items', 'anyOf', '1'"
    assert render_path("proto", root, parts) == ".properties[1].value.items.any_of[1]"
    assert render_path("keyed", root, parts) == ".properties[b].items.any_of[1]"
    assert render_path("names", root, parts) == ".b.items.any_of[1]"
    assert render_path("selector", root, parts) == ".properties.b.items.anyOf[1]"


def test_a_rule_within_a_schema_fires_at_the_nested_node_with_its_path() -> None:
    rule = Rule(id="r", validator="v", select="tools[*].function", within="parameters", message="m",
                receipts=("R",), rejects={"type": "object", "required": ["type"], "properties": {
                    "type": {"const": "array"}}, "not": {"required": ["items"]}},
                location=("In context=({path})",), path_style="tuple")
    body = {"tools": [{"function": {"parameters": {"type": "object", "properties": {"x": {"type": "array"}}}}}]}
    [hit] = fire(rule, body)
    assert hit.location == "tools[0].function.parameters.properties.x"
    assert hit.places(rule) == ["In context=('properties', 'x')"]


def test_the_duplicates_predicate_names_the_second_tool() -> None:
    rule = Rule(id="d", validator="v", select="tools", message="m", receipts=("R",),
                predicate={"name": "duplicates", "key": "name"})
    hits = fire(rule, {"tools": [{"name": "a"}, {"name": "b"}, {"name": "a"}]})
    assert [h.location for h in hits] == ["tools[2]"]


def test_the_rules_schema_offers_exactly_the_path_styles_the_walker_renders() -> None:
    schema = json.loads((Path(__file__).resolve().parents[3] / "harness/_load/schemas/rules.schema.json").read_text())
    enums = [node["enum"] for _, node in subschemas(schema) if isinstance(node, dict)
             and "enum" in node and "selector" in node["enum"]]
    assert enums == [list(PATH_STYLES)]
    root = {"properties": {"a": {}, "b": {"items": {"anyOf": [{}, {}]}}}}
    rendered = {render_path(style, root, ["properties", "b", "items", "anyOf", 1]) for style in PATH_STYLES}
    assert len(rendered) == len(PATH_STYLES), "each style renders the path its own way"
