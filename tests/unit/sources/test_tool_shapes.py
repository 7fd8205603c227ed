"""Tools in every shape users have: one case file, its tools written as OpenAI (Chat Completions
and Responses), Anthropic, Gemini and MCP write them, gives the pipeline the same input; a
shape the harness cannot read is one error naming file, line, expected and found."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._errors import InputErrors
from harness._load import load_suite

SUITE = "version: 1\nname: shapes\nsubjects:\n  echo: {old: echo_pipes:old, new: echo_pipes:new, wires: [echo]}\n"
LANES = "version: 1\nlanes:\n  - {id: one, wire: echo, provider: p}\n"
PIPES = "def old(i, lane):\n    return i\n\n\ndef new(i, lane):\n    return i\n"
CASE_FILE = "version: 1\nsubject: echo\ncases:\n  - id: weather\n    tools: {tools}\n"

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
          "required": ["city"]}
DESCRIPTION = "Forecast for a city"
PIPELINE_INPUT = [{"name": "forecast", "description": DESCRIPTION, "input_schema": SCHEMA}]

# The one tool, as each API's own documentation writes it (fields the shape allows included).
SHAPED: dict[str, Any] = {
    "openai-chat": [{"type": "function", "function": {"name": "forecast", "description": DESCRIPTION,
                                                      "parameters": SCHEMA, "strict": False}}],
    "openai-responses": [{"type": "function", "name": "forecast", "description": DESCRIPTION,
                          "parameters": SCHEMA, "strict": False}],
    "anthropic": [{"name": "forecast", "description": DESCRIPTION, "input_schema": SCHEMA,
                   "cache_control": {"type": "ephemeral"}}],
    "gemini": [{"name": "forecast", "description": DESCRIPTION, "parametersJsonSchema": SCHEMA}],
    "gemini-openapi-schema": [{"name": "forecast", "description": DESCRIPTION, "parameters": {
        "type": "OBJECT", "properties": {"city": {"type": "STRING"}, "days": {"type": "INTEGER"}},
        "required": ["city"]}}],
    "gemini-tool-object": [{"functionDeclarations": [{"name": "forecast", "description": DESCRIPTION,
                                                      "parameters": SCHEMA}]}],
    "gemini-rest-snake-case": [{"function_declarations": [{"name": "forecast", "description": DESCRIPTION,
                                                           "parameters_json_schema": SCHEMA}]}],
    "mcp": [{"name": "forecast", "title": "Forecast", "description": DESCRIPTION, "inputSchema": SCHEMA,
             "annotations": {"readOnlyHint": True}}],
}


def suite_with(tmp: Path, tools: str, files: dict[str, Any] | None = None) -> Path:
    (tmp / "suite.yaml").write_text(SUITE)
    (tmp / "lanes.yaml").write_text(LANES)
    (tmp / "echo_pipes.py").write_text(PIPES)
    for name, value in (files or {}).items():
        (tmp / name).write_text(json.dumps(value, indent=1))
    (tmp / "w.cases.yaml").write_text(CASE_FILE.format(tools=tools))
    return tmp


def pipeline_tools(root: Path) -> Any:
    [case] = load_suite(root).cases
    return case.input["tools"]


@pytest.fixture(scope="module")
def every_shape(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One suite holding, per shape, the same case file twice: its tools from ``tools.json`` in
    that shape, and inline. Loaded once: case id -> the tools the pipeline is given."""
    root = suite_with(tmp_path_factory.mktemp("shapes"), "[{name: unrelated}]")
    for shape, tools in SHAPED.items():
        (root / shape).mkdir()
        (root / shape / "tools.json").write_text(json.dumps(tools, indent=1))
        for form, source in (("file", "{file: tools.json}"), ("inline", json.dumps(tools))):
            text = CASE_FILE.replace("id: weather", f"id: weather-{form}-{shape}").format(tools=source)
            (root / shape / f"{form}.cases.yaml").write_text(text)
    return {case.id: case.input["tools"] for case in load_suite(root).cases}


def line_of(path: Path, text: str) -> int:
    """The first line of ``path`` holding ``text``."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def errors_of(root: Path) -> list[str]:
    with pytest.raises(InputErrors) as err:
        load_suite(root)
    return [str(e).removeprefix(f"{root.as_posix()}/") for e in err.value.errors]


@pytest.mark.parametrize("shape", sorted(SHAPED))
def test_one_case_file_reads_its_tools_file_in_every_shape_as_the_same_pipeline_input(
        every_shape: dict[str, Any], shape: str) -> None:
    assert every_shape[f"weather-file-{shape}"] == PIPELINE_INPUT


@pytest.mark.parametrize("shape", sorted(SHAPED))
def test_inline_tools_in_every_shape_are_the_same_pipeline_input(every_shape: dict[str, Any], shape: str) -> None:
    assert every_shape[f"weather-inline-{shape}"] == PIPELINE_INPUT


@pytest.mark.parametrize(("body", "shape"), [
    ({"model": "gpt-5", "input": "hi", "tools": SHAPED["openai-responses"]}, None),
    ({"contents": [], "tools": SHAPED["gemini-tool-object"]}, "gemini"),
    ({"jsonrpc": "2.0", "id": 1, "result": {"tools": SHAPED["mcp"]}}, None),
    (SHAPED["gemini-tool-object"][0], None),
])
def test_a_captured_request_body_or_answer_is_a_tools_file_too(tmp_path: Path, body: Any, shape: str | None) -> None:
    declared = f", shape: {shape}" if shape else ""
    root = suite_with(tmp_path, f"{{file: body.json{declared}}}", {"body.json": body})
    assert pipeline_tools(root) == PIPELINE_INPUT


def test_a_declared_shape_reads_the_tools_as_that_shape(tmp_path: Path) -> None:
    root = suite_with(tmp_path, "{inline: [{name: forecast, description: 'Forecast for a city', parameters: "
                      + json.dumps(SCHEMA) + "}], shape: gemini}")
    assert pipeline_tools(root) == PIPELINE_INPUT


def test_tools_that_are_not_the_declared_shape_are_one_error_at_the_tools_line(tmp_path: Path) -> None:
    root = suite_with(tmp_path, "{file: tools.json, shape: gemini}", {"tools.json": SHAPED["mcp"]})
    [message] = errors_of(root)
    line = line_of(root / "tools.json", '"annotations"')
    assert message.startswith(f"tools.json:{line} at [0].annotations: expected the fields of the gemini shape (")
    assert "found unknown field(s) annotations, inputSchema, title" in message


def test_a_tool_with_the_keys_of_two_shapes_is_ambiguous(tmp_path: Path) -> None:
    tools = [{"name": "ok", "input_schema": {}}, {"name": "forecast", "input_schema": SCHEMA, "parameters": SCHEMA}]
    root = suite_with(tmp_path, "{file: tools.json}", {"tools.json": tools})
    [message] = errors_of(root)
    line = line_of(root / "tools.json", '"forecast"')
    assert message.startswith(f"tools.json:{line - 1} at [1]: expected a tool in one shape "
                              "(or the source's shape: declared)")
    assert "found the keys of anthropic and gemini in one tool: input_schema, name, parameters" in message


def test_a_tool_in_no_known_shape_names_every_shape_it_could_have_been(tmp_path: Path) -> None:
    root = suite_with(tmp_path, "\n      - {name: forecast, schema: {type: object}}")
    [message] = errors_of(root)
    assert message.startswith("w.cases.yaml:6 at cases[0].tools[0]: expected a tool in one shape: openai-chat")
    assert all(shape in message for shape in ("openai-responses", "anthropic", "gemini", "mcp"))
    assert message.endswith("found a tool with the keys name, schema")


def test_a_misspelt_field_of_a_provider_s_shape_is_an_error_not_a_dropped_field(tmp_path: Path) -> None:
    root = suite_with(tmp_path, "\n      - {type: function, name: forecast, descripton: x, parameters: {}}")
    [message] = errors_of(root)
    assert message.startswith("w.cases.yaml:6 at cases[0].tools[0].descripton: expected the fields of the "
                              "openai-responses shape")
    assert message.endswith("found unknown field(s) descripton")


def test_a_declared_mcp_tool_with_another_shape_s_schema_key_is_refused_not_left_without_a_schema(
        tmp_path: Path) -> None:
    root = suite_with(tmp_path, "{file: tools.json, shape: mcp}", {"tools.json": SHAPED["anthropic"]})
    [message] = errors_of(root)
    assert message.endswith("found unknown field(s) input_schema")


def test_an_mcp_server_s_own_fields_are_dropped_like_the_other_fields_mcp_allows(tmp_path: Path) -> None:
    tools = [{**SHAPED["mcp"][0], "source": "transcribed from the server's Rust source", "x-vendor": {}}]
    root = suite_with(tmp_path, "{mcp: tools.json}", {"tools.json": tools})
    assert pipeline_tools(root) == PIPELINE_INPUT


def test_a_gemini_built_in_tool_beside_declarations_is_refused_not_dropped(tmp_path: Path) -> None:
    tools = [{"functionDeclarations": SHAPED["gemini"], "googleSearch": {}}]
    root = suite_with(tmp_path, "{file: tools.json}", {"tools.json": tools})
    [message] = errors_of(root)
    assert message.startswith("tools.json:2 at [0]: expected a Gemini tool object holding functionDeclarations only")
    assert message.endswith("found the keys functionDeclarations, googleSearch")


def test_a_chat_completions_tool_of_another_type_is_refused(tmp_path: Path) -> None:
    tools = [{"type": "custom", "function": {"name": "forecast"}}]
    root = suite_with(tmp_path, "{file: tools.json}", {"tools.json": tools})
    [message] = errors_of(root)
    assert message.startswith("tools.json:3 at [0].type: expected 'function' (a Chat Completions function tool)")


def test_gemini_capitalised_types_leave_the_file_s_own_value_unchanged(tmp_path: Path) -> None:
    """The converted schema is a new value: the listing other cases pick from keeps its capitals."""
    from harness._sources.shapes import converted

    entry = SHAPED["gemini-openapi-schema"][0]
    before = json.dumps(entry)
    [tool] = converted(entry, "[0]", lambda path: pytest.fail(f"no error expected at {path}"))
    assert tool["input_schema"] == SCHEMA and json.dumps(entry) == before
